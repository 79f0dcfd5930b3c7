/*
 * sim_classes.c - the loaded links of a result by class (contract in sim.h,
 * sim_link_classes): links with the same bytes from every timed phase's
 * patterns and the same bandwidth have the same figure in every window and
 * the same busy time in every phase, so the windows (sim_window.c), each
 * phase's busiest link (sim_busiest.c) and the screen work over the classes
 * (hundreds) instead of the links (millions).
 *
 * A wafer's loaded links split into ranges (par.h), each classed on its
 * own side by side by codes (below); the ranges' classes are then entered
 * into one table by their chains, in range order, and the links of the
 * ranges after the first renamed to theirs. A class is its chain's
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
 * equal chains are one node of an interning table, where the ranges'
 * classes meet (classes_join) and a wafer's classes are joined by fewer
 * patterns (classes_project). */
typedef struct win_node {
    int parent;       /* the chain before this pair; node 0 is the empty chain */
    int pattern;      /* -1: the node closes a chain, val the link's 1 / bandwidth */
    double val;       /* the pattern's bytes on the link, or 1 / bandwidth (s/B) */
    int first;        /* a closed chain: its first link slot, -1 none yet */
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

/* Links take a few steps of their chains alike over and over (a
 * collective's groups, a row's directions, a stream's loads falling along
 * a row of 750), so the steps met last are kept in a direct-mapped table
 * in front of the interning one: on a wafer whose links are all loaded
 * most steps are found there, without a probe (64 slots missed 44 % on
 * wse2, where 1024 miss few). A table serves one pattern (or the closing
 * steps, -1). Only the links the codes cannot class walk their chains
 * so (classes_by_chains). */
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

/* The 1 / bandwidth a link's chain closes with: bw's, or the wafer's. */
static double link_inv(const sim_result *r, const net_bw *bw, int l)
{
    return bw ? net_bw_inv(bw, (size_t)l) : sim_link_inv_bw(r->wf, (size_t)l);
}

/* The loaded links of r by chain, in one table g (a node per step, as
 * memo_get takes them): of[l] the link's class, numbered by classes_number
 * (id). The path for what the codes cannot class: slower, never wrong. */
static int classes_by_chains(const sim_result *r, const unsigned char *use, const net_bw *bw, sim_link_classes *c,
                             win_classes *g, int **id)
{
    int *of = c->of;
    for (int i = 0; i < r->nloaded; i++)
        of[r->loaded[i]] = 0;
    if (classes_init(g))
        return -1;
    win_memo m;
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        memo_clear(&m);
        for (int k = 0; k < pat->nnz && use[p]; k++)
            if ((of[pat->link[k]] = memo_get(g, &m, of[pat->link[k]], p, pat->load[k])) < 0)
                return -1;
    }
    memo_clear(&m);
    for (int i = 0; i < r->nloaded; i++) {
        int l = r->loaded[i];
        if (of[l] && (of[l] = memo_get(g, &m, of[l], -1, link_inv(r, bw, l))) < 0)
            return -1;
        if (of[l] && g->node[of[l]].first < 0)
            g->node[of[l]].first = l;
    }
    if (classes_number(g, id, c))
        return -1;
    for (int i = 0; i < r->nloaded; i++)
        of[r->loaded[i]] = (*id)[of[r->loaded[i]]];
    return 0;
}

/* A range's codes. Each used pattern in turn adds to the code of every
 * link it loads in the range the digit id * R: id (1..K) numbers the
 * pattern's distinct loads in the range as they are met, and R, the radix,
 * is the product of (K + 1) over the patterns before. A link's code is so
 * its chain written in mixed radix: equal chains have equal codes and
 * unequal chains unequal ones, exactly, with no table per entry, and a
 * run of entries with one load (a collective's passes carry the same
 * bytes on most links) costs an add each. The links are then numbered by
 * (code, bandwidth), one lookup per link. The codes live in `of` itself,
 * no other array per link (every page of one is a fault), so they are ints
 * of at most code_max (INT_MAX): a pattern that would pass it first has
 * the codes met so far numbered 1.. (codes_compact); when a range is too
 * varied even for that, every link is classed by chains instead. */

/* Keys (a load's bits, a code) numbered 1.. as they are entered: open
 * addressing at most an eighth full, so nearly every key sits in its first
 * slot, which the walks test inline (code_get). */
typedef struct code_map {
    struct code_slot {
        uint64_t key;
        int id; /* 0: an empty slot */
    } *slot;
    int shift; /* 64 - log2 of the slots */
    int n;     /* keys entered */
} code_map;

static int code_map_init(code_map *m, int bits)
{
    m->shift = 64 - bits;
    m->n = 0;
    m->slot = calloc((size_t)1 << bits, sizeof *m->slot);
    return m->slot ? 0 : -1;
}

static size_t code_slot_of(const code_map *m, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15u) >> m->shift);
}

/* key's id, entered when new; -1 out of memory (code_get's slow path). */
WT_COLD int code_enter(code_map *m, uint64_t key)
{
    size_t mask = ((size_t)1 << (64 - m->shift)) - 1, i = code_slot_of(m, key);
    for (; m->slot[i].id; i = (i + 1) & mask)
        if (m->slot[i].key == key)
            return m->slot[i].id;
    if (8 * ((size_t)m->n + 1) > mask + 1) { /* an eighth full: doubled, the keys entered again */
        code_map grown;
        if (code_map_init(&grown, 64 - m->shift + 1))
            return -1;
        for (size_t k = 0; k <= mask; k++) {
            size_t at = code_slot_of(&grown, m->slot[k].key);
            if (!m->slot[k].id)
                continue;
            while (grown.slot[at].id)
                at = (at + 1) & (2 * mask + 1);
            grown.slot[at] = m->slot[k];
        }
        grown.n = m->n;
        free(m->slot);
        *m = grown;
        return code_enter(m, key);
    }
    m->slot[i] = (struct code_slot){key, ++m->n};
    return m->n;
}

/* key's id, entered when new; -1 out of memory. */
WT_HOT int code_get(code_map *m, uint64_t key)
{
    const struct code_slot *s = &m->slot[code_slot_of(m, key)];
    return s->key == key && s->id ? s->id : code_enter(m, key);
}

/* code_get for a key other than 0, an empty slot's: one test less. */
WT_HOT int code_get_nonzero(code_map *m, uint64_t key)
{
    const struct code_slot *s = &m->slot[code_slot_of(m, key)];
    return s->key == key ? s->id : code_enter(m, key);
}

/* A range of the loaded links, classed on its own: links loaded[i0 ..
 * i1), the link slots [lo, hi). */
typedef struct class_part {
    int i0, i1, lo, hi;
    int n;       /* its classes 1..n-1 */
    int *first;  /* n: each class's first link (first[0] unused) */
    int cap;
    int *to;     /* n: each class's number in the whole, after the join */
    int renamed; /* to is not the identity: its links are renamed */
    int compacted; /* its codes were numbered again (codes_compact) */
    int failed;  /* -1 out of memory, 1 codes past code_max */
} class_part;

typedef struct class_job {
    const sim_result *r;
    const unsigned char *use;  /* npatterns: the patterns chained */
    const net_bw *bw;          /* the links' bandwidths, or NULL: the wafer's */
    int code_max;              /* the largest code (INT_MAX) */
    int *of;                   /* wafer_nlinks: codes, then each range's classes */
    int nparts;
    class_part part[PAR_MAX];
} class_job;

/* Adds pattern pat's digit to the codes of the links of [lo, hi) (code[l])
 * and its radix to *radix; 1 when a code would pass code_max (the codes
 * left as they were), -1 out of memory. */
static int codes_add(int *restrict code, const sim_pattern *pat, int lo, int hi, int code_max, int64_t *radix)
{
    const int *link = pat->link;
    const double *load = pat->load;
    int k0 = sim_pattern_first(pat, lo), k1 = hi == INT_MAX ? pat->nnz : sim_pattern_first(pat, hi), k = k0;
    int radix_in = (int)*radix, most = (int)(((int64_t)code_max + 1) / *radix - 1); /* (most + 1) * R - 1 fits */
    code_map ids;
    if (k0 == k1)
        return 0;
    if (code_map_init(&ids, 10))
        return -1;
    uint64_t prev;
    memcpy(&prev, &load[k0], sizeof prev);
    prev = ~prev; /* not the first load: its id is looked up */
    int add = 0, rc = 0;
    for (; k < k1; k++) {
        uint64_t bits;
        memcpy(&bits, &load[k], sizeof bits);
        if (bits != prev) {
            int id = code_get(&ids, bits);
            if (id < 0 || id > most) {
                rc = id < 0 ? -1 : 1;
                break;
            }
            add = id * radix_in;
            prev = bits;
        }
        code[link[k]] += add;
    }
    for (int u = k0; u < k && rc; u++) /* the digits added before the code that would not fit */
        code[link[u]] %= radix_in;
    if (!rc)
        *radix *= ids.n + 1;
    free(ids.slot);
    return rc;
}

/* Numbers the codes of part's loaded links 1.. as met (0 stays 0), the
 * radix then their count + 1; -1 out of memory. */
static int codes_compact(const class_job *j, const class_part *part, int64_t *radix)
{
    code_map m;
    int rc = code_map_init(&m, 10);
    for (int i = part->i0; i < part->i1 && !rc; i++) {
        int *code = &j->of[j->r->loaded[i]];
        rc = *code && (*code = code_get_nonzero(&m, (uint64_t)*code)) < 0; /* a code is never 0 here */
    }
    *radix = m.n + 1;
    free(m.slot);
    return rc ? -1 : 0;
}

/* A new class of part, whose first link is l; -1 out of memory. */
static int part_class_add(class_part *part, int l)
{
    if (part->n >= part->cap) {
        int cap = 2 * part->cap + 64, *grown = realloc(part->first, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        part->first = grown;
        part->cap = cap;
    }
    part->first[part->n++] = l;
    return 0;
}

/* Numbers part's loaded links with a code by (code, 1 / bandwidth), 1..
 * in link order, into of (0 stays 0: the empty chain), each class's first
 * link into part->first; -1 out of memory. */
static int codes_classify(const class_job *j, class_part *part)
{
    const sim_result *r = j->r;
    const net_bw *bw = j->bw;
    const unsigned char *bw_cls = bw ? bw->cls : NULL; /* the usual bandwidths: a class byte per link */
    const int *loaded = r->loaded;
    int *restrict of = j->of;
    code_map cls = {0}, inv = {0};
    int rc = code_map_init(&cls, 10) || code_map_init(&inv, 4) ? -1 : 0;
    double v = part->i0 < part->i1 ? link_inv(r, bw, loaded[part->i0]) : 0;
    uint64_t prev;
    memcpy(&prev, &v, sizeof prev);
    int inv_id = rc ? 0 : code_get(&inv, prev);
    part->n = 1;
    for (int i = part->i0, end = part->i1; i < end && !rc; i++) {
        int l = loaded[i], code = of[l];
        if (!code)
            continue;
        uint64_t bits;
        v = bw_cls ? bw->inv[bw_cls[l]] : link_inv(r, bw, l);
        memcpy(&bits, &v, sizeof bits);
        if (bits != prev && (prev = bits, inv_id = code_get(&inv, bits)) < 0)
            break;
        int k = code_get_nonzero(&cls, (uint64_t)code << 32 | (unsigned)inv_id); /* code > 0 */
        if ((unsigned)k >= (unsigned)part->n && (rc = k < 0 || part_class_add(part, l))) /* new, or -1 */
            break;
        of[l] = k;
    }
    free(cls.slot);
    free(inv.slot);
    return rc || inv_id < 0 ? -1 : 0;
}

/* part's loaded links and link slots, as par_first splits them (one part
 * takes every slot, an empty one none). */
static void part_range(const class_job *j, int part, class_part *p)
{
    p->i0 = (int)par_first((size_t)j->r->nloaded, part, j->nparts);
    p->i1 = (int)par_first((size_t)j->r->nloaded, part + 1, j->nparts);
    int whole = j->nparts == 1, empty = p->i0 == p->i1;
    p->lo = whole || empty ? 0 : j->r->loaded[p->i0];
    p->hi = whole ? INT_MAX : empty ? 0 : j->r->loaded[p->i1 - 1] + 1;
}

/* Codes, then classes, for one range (par_run). */
static void class_range(void *ctx, int part)
{
    class_job *j = ctx;
    class_part *p = &j->part[part];
    part_range(j, part, p);
    sim_zero_slots(j->r, j->of, sizeof *j->of, part, j->nparts);
    int64_t radix = 1;
    int rc = 0;
    for (int q = 0; q < j->r->npatterns && !rc; q++) {
        if (!j->use[q])
            continue;
        rc = codes_add(j->of, &j->r->patterns[q], p->lo, p->hi, j->code_max, &radix);
        if (rc == 1 && !(rc = codes_compact(j, p, &radix))) {
            p->compacted = 1;
            rc = codes_add(j->of, &j->r->patterns[q], p->lo, p->hi, j->code_max, &radix);
        }
    }
    p->failed = rc ? rc : codes_classify(j, p);
}

/* Renames one range's links to their classes in the whole (par_run). */
static void class_rename(void *ctx, int part)
{
    class_job *j = ctx;
    const class_part *p = &j->part[part];
    for (int i = p->i0; i < p->i1 && p->renamed; i++)
        j->of[j->r->loaded[i]] = p->to[j->of[j->r->loaded[i]]];
}

/* Link l's chain, read from the patterns' lists, entered into g; its
 * closed node, -1 out of memory. */
static int link_chain(const class_job *j, win_classes *g, int l)
{
    int at = 0;
    for (int p = 0; p < j->r->npatterns && at >= 0; p++) {
        const sim_pattern *pat = &j->r->patterns[p];
        int k = j->use[p] ? sim_pattern_first(pat, l) : pat->nnz;
        if (k < pat->nnz && pat->link[k] == l)
            at = classes_get(g, at, p, pat->load[k]);
    }
    return at < 0 ? -1 : classes_get(g, at, -1, link_inv(j->r, j->bw, l));
}

/* The ranges' classes entered into one table (g) by their chains, read at
 * their first links, in range order; numbered in g's order (id), which is
 * the first links' order, into c (n, first) and each range's to. */
static int classes_join(class_job *j, win_classes *g, int **id, sim_link_classes *c)
{
    if (classes_init(g))
        return -1;
    for (int part = 0; part < j->nparts; part++) {
        class_part *p = &j->part[part];
        if (!(p->to = malloc((size_t)p->n * sizeof *p->to)))
            return -1;
        p->to[0] = 0;
        for (int k = 1; k < p->n; k++) {
            if ((p->to[k] = link_chain(j, g, p->first[k])) < 0)
                return -1;
            if (g->node[p->to[k]].first < 0)
                g->node[p->to[k]].first = p->first[k];
        }
    }
    if (classes_number(g, id, c))
        return -1;
    for (int part = 0; part < j->nparts; part++)
        for (int k = 1; k < j->part[part].n; k++)
            j->part[part].renamed |= (j->part[part].to[k] = (*id)[j->part[part].to[k]]) != k;
    return 0;
}

/* The loaded links of r by the chains of the patterns with use[p] and
 * their bandwidths (bw, or the wafer's when NULL), codes at most code_max:
 * c's of, n and first, and the joined table g whose closed node f is class
 * id[f] (g and id the caller's to free, also on failure); *path (unless
 * NULL) as sim_result_reps_max says. -1 out of memory. */
static int classes_make(const sim_result *r, const unsigned char *use, const net_bw *bw, int code_max,
                        sim_link_classes *c, win_classes *g, int **id, int *path)
{
    size_t entries = 0;
    for (int q = 0; q < r->npatterns; q++)
        entries += use[q] ? (size_t)r->patterns[q].nnz : 0;
    class_job j = {.r = r, .use = use, .bw = bw, .code_max = code_max, .nparts = par_parts(entries)};
    j.of = c->of = sim_links_alloc(r, sizeof *c->of); /* cleared by the ranges (class_range) */
    int rc = c->of ? 0 : -1;
    if (!rc)
        par_run(j.nparts, class_range, &j);
    for (int part = 0; part < j.nparts && rc >= 0; part++)
        rc = j.part[part].failed < 0 ? -1 : rc | j.part[part].failed;
    int compacted = 0;
    for (int part = 0; part < j.nparts; part++)
        compacted |= j.part[part].compacted;
    if (path)
        *path = rc == 1 ? 2 : compacted;
    if (rc == 1)
        rc = classes_by_chains(r, use, bw, c, g, id);
    else if (!rc && !(rc = classes_join(&j, g, id, c)))
        par_run(j.nparts, class_rename, &j);
    for (int part = 0; part < j.nparts; part++) {
        free(j.part[part].first);
        free(j.part[part].to);
    }
    return rc;
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
        rc = r->reps ? classes_project(r, use, c, &g, &id) : classes_make(r, use, NULL, INT_MAX, c, &g, &id, NULL);
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
    return sim_result_reps_max(r, bw, INT_MAX, NULL, e);
}

int sim_result_reps_max(sim_result *r, const net_bw *bw, int code_max, int *path, wt_err *e)
{
    sim_result_reps_free(r);
    sim_reps *s = calloc(1, sizeof *s);
    unsigned char *use = malloc((size_t)r->npatterns + 1);
    win_classes g = {0};
    int *id = NULL;
    int rc = !s || !use || !r->loaded ? -1 : 0;
    if (!rc) {
        memset(use, 1, (size_t)r->npatterns + 1);
        rc = classes_make(r, use, bw, code_max, &s->cl, &g, &id, path);
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
