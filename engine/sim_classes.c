/*
 * sim_classes.c - the loaded links of a result by class (contract in sim.h,
 * sim_link_classes): links with the same bytes from every timed phase's
 * patterns and the same bandwidth have the same figure in every window and
 * the same busy time in every phase, so the windows (sim_window.c), each
 * phase's busiest link (sim_busiest.c) and the screen work over the classes
 * (hundreds) instead of the links (millions).
 *
 * A wafer's loaded links split into ranges (par.h), each classed with a
 * table of its own side by side; the tables are then entered into one, in
 * range order, and each link renamed to its class. A class is its chain's
 * content, so the classes are the same whatever the split.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hot.h"
#include "par.h"
#include "sim_int.h"

/* A link's class is the chain of the (pattern, load) pairs the timed
 * phases' patterns give it, in pattern order, closed by its 1 / bandwidth:
 * equal chains are one node of an interning table, so the links of alike
 * groups meet one class, found in O(1) per pattern entry and per link. */
typedef struct win_node {
    int parent;       /* the chain before this pair; node 0 is the empty chain */
    int pattern;      /* -1: the node closes a chain, val the link's 1 / bandwidth */
    double val;       /* the pattern's bytes on the link, or 1 / bandwidth (s/B) */
    int first;        /* a closed chain: the first link slot a range closes to it, -1 none */
} win_node;

typedef struct win_classes {
    win_node *node; /* n of cap; node 0 the empty chain */
    int n, cap;
    int *slot;      /* mask + 1 node indices, -1 empty */
    size_t mask;
} win_classes;

static size_t node_hash(int parent, int pattern, double val)
{
    uint64_t bits;
    memcpy(&bits, &val, sizeof bits);
    uint64_t h = ((uint64_t)(unsigned)parent * 0x9E3779B97F4A7C15u) ^ ((uint64_t)(unsigned)(pattern + 1) << 40) ^ bits;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    return (size_t)(h ^ h >> 32);
}

static int classes_init(win_classes *cl)
{
    memset(cl, 0, sizeof *cl);
    cl->mask = 1023;
    cl->cap = 256;
    cl->node = malloc(sizeof *cl->node * (size_t)cl->cap);
    cl->slot = malloc(sizeof *cl->slot * (cl->mask + 1));
    if (!cl->node || !cl->slot)
        return -1;
    memset(cl->slot, -1, sizeof *cl->slot * (cl->mask + 1));
    cl->node[0] = (win_node){.parent = -1, .pattern = -1, .first = -1};
    cl->n = 1;
    return 0;
}

static void classes_free(win_classes *cl)
{
    free(cl->node);
    free(cl->slot);
}

/* Doubles the table and enters the nodes again. */
static int classes_grow(win_classes *cl)
{
    size_t mask = 2 * cl->mask + 1;
    int *slot = malloc(sizeof *slot * (mask + 1));
    if (!slot)
        return -1;
    memset(slot, -1, sizeof *slot * (mask + 1));
    for (int k = 1; k < cl->n; k++) {
        const win_node *o = &cl->node[k];
        size_t i = node_hash(o->parent, o->pattern, o->val) & mask;
        while (slot[i] >= 0)
            i = (i + 1) & mask;
        slot[i] = k;
    }
    free(cl->slot);
    cl->slot = slot;
    cl->mask = mask;
    return 0;
}

/* The node (parent, pattern, val), entered when new; -1 out of memory. */
static int classes_get(win_classes *cl, int parent, int pattern, double val)
{
    size_t i = node_hash(parent, pattern, val) & cl->mask;
    for (; cl->slot[i] >= 0; i = (i + 1) & cl->mask) {
        const win_node *o = &cl->node[cl->slot[i]];
        if (o->parent == parent && o->pattern == pattern && !memcmp(&o->val, &val, sizeof val))
            return cl->slot[i];
    }
    if (cl->n == cl->cap) {
        win_node *grown = realloc(cl->node, sizeof *grown * 2 * (size_t)cl->cap);
        if (!grown)
            return -1;
        cl->node = grown;
        cl->cap *= 2;
    }
    if (2 * (size_t)cl->n >= cl->mask) {
        if (classes_grow(cl))
            return -1;
        return classes_get(cl, parent, pattern, val);
    }
    cl->node[cl->n] = (win_node){.parent = parent, .pattern = pattern, .val = val, .first = -1};
    cl->slot[i] = cl->n;
    return cl->n++;
}

/* Links take a few steps of their chains alike over and over (a
 * collective's groups, a row's directions, a stream's loads falling along
 * a row of 750), so the steps met last are kept in a direct-mapped table
 * in front of the interning one: on a wafer whose links are all loaded
 * most steps are found there, without a probe (64 slots missed 44 % on
 * wse2, where 1024 miss few). A table serves one pattern (or the closing
 * steps, -1). */
#define MEMO_SIZE 1024

typedef struct win_memo {
    struct {
        int from, to;
        double val;
    } e[MEMO_SIZE];
} win_memo;

static void memo_clear(win_memo *m)
{
    for (int i = 0; i < MEMO_SIZE; i++)
        m->e[i].from = -1;
}

/* classes_get(cl, from, pattern, val) through m (in the loops over link
 * entries: WT_HOT). */
WT_HOT int memo_get(win_classes *cl, win_memo *m, int from, int pattern, double val)
{
    uint64_t bits;
    memcpy(&bits, &val, sizeof bits);
    uint32_t h = (uint32_t)from * 0x9E3779B1u ^ (uint32_t)(bits >> 32) ^ (uint32_t)bits;
    h ^= h >> 15;
    h = (h * 0x2C1B3C6Du) >> 22; /* the top 10 bits: MEMO_SIZE slots */
    if (m->e[h].from != from || memcmp(&m->e[h].val, &val, sizeof val)) {
        int to = classes_get(cl, from, pattern, val);
        if (to < 0)
            return -1;
        m->e[h].from = from;
        m->e[h].val = val;
        m->e[h].to = to;
    }
    return m->e[h].to;
}

int sim_pattern_first(const sim_pattern *p, int lo)
{
    int a = 0, b = p->nnz;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (p->link[mid] < lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* Every open chain of a link slot in [lo, hi) in cls[nl] (zero on entry):
 * the patterns p with use[p], in pattern order, each appending its bytes on
 * the links it loads. */
static int classes_chain(const sim_result *r, win_classes *cl, const unsigned char *use, int *cls, int lo, int hi)
{
    win_memo m;
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        memo_clear(&m);
        for (int k = use[p] ? sim_pattern_first(pat, lo) : pat->nnz; k < pat->nnz && pat->link[k] < hi; k++) {
            int l = pat->link[k];
            if ((cls[l] = memo_get(cl, &m, cls[l], p, pat->load[k])) < 0)
                return -1;
        }
    }
    return 0;
}

void sim_link_classes_free(sim_link_classes *c)
{
    if (!c->of_borrowed)
        free(c->of);
    free(c->start);
    free(c->load);
    free(c->inv);
    free(c->first);
    memset(c, 0, sizeof *c);
}

/* c's loads from the closed chains of cl: id[f] is node f's class (0 for
 * an open chain); mark and bytes npatterns of scratch. */
static int classes_loads_of(const sim_result *r, const win_classes *cl, const int *id, int *mark, double *bytes,
                            sim_link_classes *c)
{
    size_t cap = 64, n = 0;
    c->start = malloc(((size_t)c->n + 1) * sizeof *c->start);
    c->inv = malloc((size_t)c->n * sizeof *c->inv);
    c->load = malloc(cap * sizeof *c->load);
    if (!c->start || !c->inv || !c->load)
        return -1;
    c->start[0] = c->start[1] = 0;
    c->inv[0] = 0;
    for (int f = 1; f < cl->n; f++) {
        if (!id[f])
            continue;
        for (int k = cl->node[f].parent; k > 0; k = cl->node[k].parent) {
            mark[cl->node[k].pattern] = f;
            bytes[cl->node[k].pattern] = cl->node[k].val;
        }
        for (int i = 0; i < r->nphases; i++)
            for (int t = 0; t < r->phases[i].nterms && r->phases[i].time_s > 0; t++) {
                int q = r->phases[i].terms[t].pattern;
                if (mark[q] != f)
                    continue;
                if (n == cap) {
                    struct sim_class_load *grown = realloc(c->load, 2 * cap * sizeof *grown);
                    if (!grown)
                        return -1;
                    c->load = grown;
                    cap *= 2;
                }
                c->load[n++] = (struct sim_class_load){i, t, bytes[q]};
            }
        c->inv[id[f]] = cl->node[f].val;
        c->start[id[f] + 1] = (int)n;
    }
    return 0;
}

/* One range of the loaded links, classed with a table of its own: links
 * links[i0 .. i1), their chains over the link slots [lo, hi). */
typedef struct class_job {
    const sim_result *r;
    const unsigned char *use;  /* npatterns: the patterns chained */
    const net_bw *bw;          /* the links' bandwidths, or NULL: the wafer's */
    int nparts;
    int *of;                   /* wafer_nlinks: each range writes its links' closed nodes */
    win_classes cl[PAR_MAX];   /* each range's table */
    int failed[PAR_MAX];
    int *to[PAR_MAX];          /* each range's node -> class id, for the relabelling */
} class_job;

static void range_of(const class_job *j, int part, int *i0, int *i1, int *lo, int *hi)
{
    *i0 = (int)par_first((size_t)j->r->nloaded, part, j->nparts);
    *i1 = (int)par_first((size_t)j->r->nloaded, part + 1, j->nparts);
    int whole = j->nparts == 1 || *i0 == *i1;
    *lo = whole ? 0 : j->r->loaded[*i0];
    *hi = whole ? INT_MAX : j->r->loaded[*i1 - 1] + 1;
}

/* Opens and closes the chains of one range's links (of[l] its node). */
static void class_range(void *ctx, int part)
{
    class_job *j = ctx;
    const sim_result *r = j->r;
    win_classes *cl = &j->cl[part];
    int i0, i1, lo, hi;
    range_of(j, part, &i0, &i1, &lo, &hi);
    int rc = classes_init(cl) || classes_chain(r, cl, j->use, j->of, lo, hi) ? -1 : 0;
    win_memo close;
    memo_clear(&close);
    for (int i = i0; i < i1 && !rc; i++) {
        int l = r->loaded[i], *of = &j->of[l];
        double inv = j->bw ? net_bw_inv(j->bw, (size_t)l) : sim_link_inv_bw(r->wf, (size_t)l);
        if (*of && (*of = memo_get(cl, &close, *of, -1, inv)) < 0)
            rc = -1;
        else if (*of && cl->node[*of].first < 0)
            cl->node[*of].first = l;
    }
    j->failed[part] = rc;
}

/* Renames one range's links from its nodes to their classes. */
static void class_rename(void *ctx, int part)
{
    class_job *j = ctx;
    int i0, i1, lo, hi;
    range_of(j, part, &i0, &i1, &lo, &hi);
    for (int i = i0; i < i1; i++)
        j->of[j->r->loaded[i]] = j->to[part][j->of[j->r->loaded[i]]];
}

/* Numbers g's closed nodes 1.. in g's order (id[f], 0 for the others)
 * into c: its n and each class's first link. */
static int classes_number(const win_classes *g, int **id, sim_link_classes *c)
{
    if (!(*id = calloc((size_t)g->n, sizeof **id)))
        return -1;
    c->n = 1;
    for (int f = 1; f < g->n; f++)
        if (g->node[f].pattern < 0) /* node 0, the empty chain, is never closed */
            (*id)[f] = c->n++;
    if (!(c->first = malloc((size_t)c->n * sizeof *c->first)))
        return -1;
    c->first[0] = -1;
    for (int f = 1; f < g->n; f++)
        if ((*id)[f])
            c->first[(*id)[f]] = g->node[f].first;
    return 0;
}

/* The ranges' tables entered into one (g), in range order: to[part][f] is
 * range node f's node in g, then, once g's closed nodes are numbered
 * (id), its class; each class's first link is the first range's. */
static int classes_join(class_job *j, win_classes *g, int **id, sim_link_classes *c)
{
    if (classes_init(g))
        return -1;
    for (int part = 0; part < j->nparts; part++) {
        const win_classes *cl = &j->cl[part];
        if (!(j->to[part] = malloc((size_t)cl->n * sizeof *j->to[part])))
            return -1;
        j->to[part][0] = 0;
        for (int f = 1; f < cl->n; f++) { /* a node's parent comes before it */
            const win_node *o = &cl->node[f];
            if ((j->to[part][f] = classes_get(g, j->to[part][o->parent], o->pattern, o->val)) < 0)
                return -1;
            if (o->first >= 0 && g->node[j->to[part][f]].first < 0)
                g->node[j->to[part][f]].first = o->first;
        }
    }
    if (classes_number(g, id, c))
        return -1;
    for (int part = 0; part < j->nparts; part++)
        for (int f = 0; f < j->cl[part].n; f++)
            j->to[part][f] = (*id)[j->to[part][f]];
    return 0;
}

/* The loaded links of r by the chains of the patterns with use[p] and
 * their bandwidths (bw, or the wafer's when NULL): c's of,
 * n and first, and the joined table g whose closed node f is class id[f]
 * (g and id the caller's to free, also on failure). -1 out of memory. */
static int classes_make(const sim_result *r, const unsigned char *use, const net_bw *bw, sim_link_classes *c,
                        win_classes *g, int **id)
{
    size_t entries = 0;
    for (int q = 0; q < r->npatterns; q++)
        entries += use[q] ? (size_t)r->patterns[q].nnz : 0;
    class_job j = {.r = r, .use = use, .bw = bw, .nparts = par_parts(entries)};
    j.of = c->of = calloc(wafer_nlinks(r->wf), sizeof *c->of); /* calloc: only the pages of loaded links are touched */
    int rc = c->of ? 0 : -1;
    if (!rc)
        par_run(j.nparts, class_range, &j);
    for (int part = 0; part < j.nparts && !rc; part++)
        rc = j.failed[part];
    if (!rc)
        rc = classes_join(&j, g, id, c);
    if (!rc)
        par_run(j.nparts, class_rename, &j);
    for (int part = 0; part < j.nparts; part++) {
        classes_free(&j.cl[part]);
        free(j.to[part]);
    }
    return rc;
}

/* use[p] = 1 for the patterns of the phases that take time, else 0. */
static void timed_patterns(const sim_result *r, unsigned char *use)
{
    memset(use, 0, (size_t)r->npatterns + 1);
    for (int i = 0; i < r->nphases; i++)
        for (int t = 0; t < r->phases[i].nterms && r->phases[i].time_s > 0; t++)
            use[r->phases[i].terms[t].pattern] = 1;
}

/* r->reps' classes joined into the chains of the timed patterns alone
 * (use): the table g and its numbering id as classes_make leaves them, and
 * c's of for r's loaded links. */
static int classes_project(const sim_result *r, const unsigned char *use, sim_link_classes *c, win_classes *g,
                           int **id)
{
    const sim_reps *f = r->reps;
    int *node = malloc((size_t)f->cl.n * sizeof *node);
    int rc = !node || classes_init(g) ? -1 : 0;
    for (int k = 1; k < f->cl.n && !rc; k++) {
        int at = 0;
        for (int j = f->cstart[k]; j < f->cstart[k + 1] && at >= 0; j++)
            if (use[f->cpat[j]])
                at = classes_get(g, at, f->cpat[j], f->cload[j]);
        if (at > 0)
            at = classes_get(g, at, -1, f->cl.inv[k]);
        if ((node[k] = at) < 0)
            rc = -1;
        else if (at > 0 && g->node[at].first < 0)
            g->node[at].first = f->cl.first[k];
    }
    if (!rc)
        rc = classes_number(g, id, c);
    int same = !rc && c->n == f->cl.n; /* every class its own: the numbering is the same */
    for (int k = 1; k < f->cl.n && same; k++)
        same = (*id)[node[k]] == k;
    if (same) {
        c->of = f->cl.of;
        c->of_borrowed = 1;
    } else if (!rc && !(c->of = calloc(wafer_nlinks(r->wf), sizeof *c->of))) {
        rc = -1;
    }
    for (int i = 0; i < r->nloaded && !rc && !same; i++) {
        int l = r->loaded[i];
        c->of[l] = (*id)[node[f->cl.of[l]]];
    }
    free(node);
    return rc;
}

int sim_link_classes_new(const sim_result *r, sim_link_classes *c, wt_err *e)
{
    memset(c, 0, sizeof *c);
    if (!r->loaded) {
        wt_fail(e, "link classes of a result without its link figures");
        return WT_EINTERNAL;
    }
    size_t np = (size_t)r->npatterns + 1;
    win_classes g = {0};
    int *mark = calloc(np, sizeof *mark), *id = NULL; /* no node is 0: none marked */
    double *bytes = malloc(np * sizeof *bytes);
    unsigned char *use = malloc(np);
    int rc = !mark || !bytes || !use ? -1 : 0;
    if (!rc) {
        timed_patterns(r, use);
        rc = r->reps ? classes_project(r, use, c, &g, &id) : classes_make(r, use, NULL, c, &g, &id);
    }
    if (!rc)
        rc = classes_loads_of(r, &g, id, mark, bytes, c);
    free(mark);
    free(bytes);
    free(use);
    free(id);
    classes_free(&g);
    if (rc) {
        sim_link_classes_free(c);
        return wt_oom(e, "link classes");
    }
    return WT_OK;
}

/* s's chains (cstart, cpat, cload) from the table g of classes_make, whose
 * closed node f is class id[f], and each pattern's classes (pstart, plink,
 * pload): the classes in id order are in first-link order, so each
 * pattern's list comes out ascending. */
static int reps_lists(const sim_result *r, const win_classes *g, const int *id, sim_reps *s)
{
    int n = s->cl.n, np = r->npatterns, total = 0;
    s->cstart = calloc((size_t)n + 1, sizeof *s->cstart);
    s->pstart = calloc((size_t)np + 1, sizeof *s->pstart);
    s->cl.inv = calloc((size_t)n, sizeof *s->cl.inv);
    if (!s->cstart || !s->pstart || !s->cl.inv)
        return -1;
    for (int f = 1; f < g->n; f++)
        if (id[f]) {
            s->cl.inv[id[f]] = g->node[f].val;
            for (int k = g->node[f].parent; k > 0; k = g->node[k].parent) {
                s->cstart[id[f] + 1]++;
                s->pstart[g->node[k].pattern + 1]++;
                total++;
            }
        }
    for (int k = 0; k < n; k++)
        s->cstart[k + 1] += s->cstart[k];
    for (int p = 0; p < np; p++)
        s->pstart[p + 1] += s->pstart[p];
    s->cpat = malloc(((size_t)total + 1) * sizeof *s->cpat);
    s->cload = malloc(((size_t)total + 1) * sizeof *s->cload);
    s->plink = malloc(((size_t)total + 1) * sizeof *s->plink);
    s->pload = malloc(((size_t)total + 1) * sizeof *s->pload);
    int *fill = malloc(((size_t)np + 1) * sizeof *fill);
    if (!s->cpat || !s->cload || !s->plink || !s->pload || !fill) {
        free(fill);
        return -1;
    }
    for (int f = 1; f < g->n; f++) /* a chain's nodes run from its last pattern back */
        if (id[f]) {
            int at = s->cstart[id[f] + 1];
            for (int k = g->node[f].parent; k > 0; k = g->node[k].parent) {
                s->cpat[--at] = g->node[k].pattern;
                s->cload[at] = g->node[k].val;
            }
        }
    memcpy(fill, s->pstart, ((size_t)np + 1) * sizeof *fill);
    for (int k = 1; k < n; k++)
        for (int j = s->cstart[k]; j < s->cstart[k + 1]; j++) {
            int at = fill[s->cpat[j]]++;
            s->plink[at] = s->cl.first[k];
            s->pload[at] = s->cload[j];
        }
    free(fill);
    return 0;
}

static void reps_free(sim_reps *s)
{
    sim_link_classes_free(&s->cl);
    free(s->cstart);
    free(s->cpat);
    free(s->cload);
    free(s->pstart);
    free(s->plink);
    free(s->pload);
}

int sim_result_reps(sim_result *r, const net_bw *bw, wt_err *e)
{
    sim_result_reps_free(r);
    sim_reps *s = calloc(1, sizeof *s);
    unsigned char *use = malloc((size_t)r->npatterns + 1);
    win_classes g = {0};
    int *id = NULL;
    int rc = !s || !use || !r->loaded ? -1 : 0;
    if (!rc) {
        memset(use, 1, (size_t)r->npatterns + 1);
        rc = classes_make(r, use, bw, &s->cl, &g, &id);
    }
    if (!rc)
        rc = reps_lists(r, &g, id, s);
    free(use);
    free(id);
    classes_free(&g);
    if (rc) {
        if (s)
            reps_free(s);
        free(s);
        return wt_oom(e, "link classes");
    }
    r->reps = s;
    return WT_OK;
}

void sim_result_reps_free(sim_result *r)
{
    if (r->reps)
        reps_free(r->reps);
    free(r->reps);
    r->reps = NULL;
}

int sim_result_classes(sim_result *r, wt_err *e)
{
    if (r->classes)
        return WT_OK;
    sim_link_classes *c = malloc(sizeof *c);
    if (!c)
        return wt_oom(e, "link classes");
    int rc = sim_link_classes_new(r, c, e);
    if (rc != WT_OK) {
        free(c);
        return rc;
    }
    r->classes = c;
    return WT_OK;
}

void sim_result_classes_free(sim_result *r)
{
    if (r->classes)
        sim_link_classes_free(r->classes);
    free(r->classes);
    r->classes = NULL;
}
