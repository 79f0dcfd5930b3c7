/*
 * flow.c - max-min fair rates with strict priority, and event-driven runs
 * (contract in flow.h).
 *
 * Filling a level: all its unfrozen classes share one rate t (they started
 * at 0 together and rise together), so an iteration raises t by the
 * smallest of rem(l) / sum(l) over the links they load (sum: their loads on
 * l, rem: what is left of l) and of max_rate - t over their caps, then
 * freezes every class through a link now full or at its cap. The link or
 * class that set the step is frozen by force, so each iteration freezes one
 * class at least whatever the rounding. A link counts as full when what is
 * left of it is within FLOW_EPS of its bandwidth. Each iteration walks every
 * unfrozen class's loads, so what no later step reads is skipped: a set
 * where one class at most loads links is solved in one walk of it, the
 * last level's last class leaves rem[] as it is, and sum[] is not kept
 * once no class is left.
 *
 * A run keeps every interval of constant rates (its ends and the memoized
 * solution of its active set), so the window peaks are one sweep after the
 * run: a window [L, L + W] slides from [-W, 0] to [T, T + W], stopping
 * wherever L or L + W meets an interval's end; between stops its integral
 * is linear in L, so the stops hold the maximum.
 */
#include "flow_int.h"
#include "heap.h"
#include "par.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { FLOW_WAIT = 0, FLOW_ACTIVE, FLOW_TAIL, FLOW_DONE };

/* A class in a run. */
typedef struct flow_state {
    double left;   /* work still to do, progress units */
    double rate;   /* in the current interval, progress units per s */
    double ready;  /* earliest start known so far, s */
    int npl;       /* predecessors not finished */
    int state;     /* FLOW_WAIT .. FLOW_DONE */
} flow_state;

/* A memoized solution: classes at[0..n) of the set (ascending) in
 * memo_idx[], their rates at the same offsets in memo_rate[]. A set is
 * found again by its classes' shapes (loads, priority, cap), not their
 * indices: rates depend on nothing else, so layers and micro-batches that
 * repeat a set with other classes of the same shapes reuse its solution
 * (and its link figures, which the same loads give). */
typedef struct flow_memo {
    uint32_t hash;
    int n;
    size_t at;
} flow_memo;

/* A link in a solve. */
typedef struct flow_link {
    double rem;            /* bandwidth left, bytes/s */
    double sum;            /* loads of a level's unfrozen classes, bytes per unit */
} flow_link;

/* A link's bytes in the context's per-link block: ln, util, slot, touched, on. */
#define FLOW_LINK_BYTES (sizeof(flow_link) + sizeof(double) + 2 * sizeof(int) + 1)

/* A stretch of constant rates: [t0, t1), memo entry, -1 when idle. */
typedef struct flow_interval {
    double t0, t1;
    int set;
} flow_interval;

typedef struct flow_key {
    int prio, idx;
} flow_key;

struct flow_ctx {
    size_t nlinks;
    net_bw bw;             /* its arrays borrowed: 1 / bandwidth of each link */
    /* Per link, in one block that ln owns (flow_ctx_new). on[], util[]
     * and slot[] are zero between calls; a solve sets rem[] and sum[] on
     * the links of its classes. Pages of links no class loads are never
     * touched. */
    flow_link *ln;         /* what a solve keeps per link, side by side: one cache line */
    double *util;          /* an interval's utilisation, then a window's busy time */
    int *slot;             /* index into stats + 1, 0 = none */
    unsigned char *on;     /* listed in touched */
    int *touched;          /* ntouched links */
    size_t ntouched;
    /* Per class, cap_cls of each. */
    int cap_cls;
    flow_key *keys;        /* a solve's classes by priority */
    int *ulist;            /* a level's unfrozen classes */
    int *flist;            /* the classes an iteration froze */
    int *act;              /* a run's active set, ascending */
    int *succ_off;         /* cap_cls + 1: successors of c at succ[succ_off[c]..] */
    flow_state *st;
    double *rate;          /* a solve's rates by class */
    int *succ;
    size_t cap_succ;
    /* The memo of the current run: open addressing over memo[]. */
    flow_memo *memo;
    size_t nmemo, cap_memo;
    int *table;            /* cap_table slots: memo index + 1, 0 = empty */
    size_t cap_table;
    /* Solutions of sets of two or more loading classes, kept across runs
     * with keep: the loading classes' shapes (flow_class copies) and
     * rates, nkept sets of them in kept[]. */
    int keep;              /* flow_ctx_keep */
    flow_memo *kept;
    size_t nkept, cap_kept;
    flow_class *kept_cls;
    double *kept_rate;
    size_t nkept_arena, cap_kept_arena;
    int *memo_idx;
    double *memo_rate;
    size_t narena, cap_arena;
    flow_interval *iv;
    size_t niv, cap_iv;
    flow_link_stat *stats;
    size_t nstats, cap_stats;
};

/* Grows *p (elements of size sz, *cap of them) to hold need; keeps the
 * contents. Returns 0, or -1 with *p untouched when out of memory. */
static int grow(void *p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*(void **)p, n * sz);
    if (!q)
        return -1;
    *(void **)p = q;
    *cap = n;
    return 0;
}

static void free_classes(flow_ctx *fc)
{
    free(fc->keys);
    free(fc->ulist);
    free(fc->flist);
    free(fc->act);
    free(fc->succ_off);
    free(fc->st);
    free(fc->rate);
    fc->keys = NULL;
    fc->ulist = fc->flist = fc->act = fc->succ_off = NULL;
    fc->st = NULL;
    fc->rate = NULL;
    fc->cap_cls = 0;
}

int flow_ctx_new(flow_ctx **out, size_t nlinks, const net_bw *bw, wt_err *e)
{
    *out = NULL;
    flow_ctx *fc = calloc(1, sizeof *fc);
    if (!fc)
        return wt_oom(e, "flow context");
    fc->nlinks = nlinks;
    fc->bw = *bw;
    /* ln, util, slot, touched and on in one block mapped afresh: zero
     * without a memset, and only the pages of the links a run touches come
     * in (heap.h) */
    char *block = heap_map_sparse(nlinks * FLOW_LINK_BYTES);
    if (!block) {
        free(fc);
        return wt_oom(e, "flow context");
    }
    fc->ln = (flow_link *)block;
    fc->util = (double *)(block + nlinks * sizeof *fc->ln);
    fc->slot = (int *)(block + nlinks * (sizeof *fc->ln + sizeof *fc->util));
    fc->touched = (int *)(block + nlinks * (sizeof *fc->ln + sizeof *fc->util + sizeof *fc->slot));
    fc->on = (unsigned char *)(block + nlinks * (FLOW_LINK_BYTES - 1));
    *out = fc;
    return WT_OK;
}

void flow_ctx_free(flow_ctx *fc)
{
    if (!fc)
        return;
    heap_unmap_sparse(fc->ln, fc->nlinks * FLOW_LINK_BYTES); /* with util, slot, touched, on */
    free_classes(fc);
    free(fc->succ);
    free(fc->memo);
    free(fc->table);
    free(fc->kept);
    free(fc->kept_cls);
    free(fc->kept_rate);
    free(fc->memo_idx);
    free(fc->memo_rate);
    free(fc->iv);
    free(fc->stats);
    free(fc);
}

/* Room for n classes in every per-class array. They hold nothing between
 * calls, so growing them is a fresh allocation. succ_off has n + 1 entries,
 * so even a run of no classes needs it allocated. */
static int ensure_classes(flow_ctx *fc, int n, wt_err *e)
{
    if (n <= fc->cap_cls && fc->succ_off)
        return WT_OK;
    free_classes(fc);
    size_t m = (size_t)n;
    fc->keys = malloc(m * sizeof *fc->keys);
    fc->ulist = malloc(m * sizeof *fc->ulist);
    fc->flist = malloc(m * sizeof *fc->flist);
    fc->act = malloc(m * sizeof *fc->act);
    fc->succ_off = malloc((m + 1) * sizeof *fc->succ_off);
    fc->st = malloc(m * sizeof *fc->st);
    fc->rate = malloc(m * sizeof *fc->rate);
    if (!fc->keys || !fc->ulist || !fc->flist || !fc->act || !fc->succ_off || !fc->st || !fc->rate) {
        free_classes(fc);
        return wt_oom(e, "flow classes");
    }
    fc->cap_cls = n;
    return WT_OK;
}

static int cmp_key(const void *a, const void *b)
{
    const flow_key *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Fills one priority level: classes lv[0..n) share what is left in rem[].
 * The first level finds sum[] zero; the last leaves rem[] stale: no level
 * reads it after. */
static void fill_level(flow_ctx *fc, const flow_class *cls, const flow_key *lv, int n, int first, int last,
                       double *rate)
{
    int nu = 0;
    for (int i = 0; i < n && !first; i++) {
        const flow_class *c = &cls[lv[i].idx];
        for (int k = 0; k < c->nnz; k++)
            fc->ln[c->link[k]].sum = 0;
    }
    for (int i = 0; i < n; i++) {
        int ci = lv[i].idx;
        const flow_class *c = &cls[ci];
        int loads = 0;
        for (int k = 0; k < c->nnz; k++)
            if (c->load[k] > 0) {
                fc->ln[c->link[k]].sum += c->load[k];
                loads = 1;
            }
        if (loads)
            fc->ulist[nu++] = ci;
        else
            rate[ci] = c->max_rate > 0 ? c->max_rate : INFINITY;
    }
    double t = 0;
    while (nu > 0) {
        double delta = INFINITY;
        int arg_link = -1, arg_cls = -1;
        for (int i = 0; i < nu; i++) {
            const flow_class *c = &cls[fc->ulist[i]];
            if (c->max_rate > 0 && c->max_rate - t < delta) {
                delta = c->max_rate - t;
                arg_cls = fc->ulist[i];
                arg_link = -1;
            }
            for (int k = 0; k < c->nnz; k++) {
                int l = c->link[k];
                if (c->load[k] > 0 && fc->ln[l].rem < delta * fc->ln[l].sum) {
                    delta = fc->ln[l].rem / fc->ln[l].sum;
                    arg_link = l;
                    arg_cls = -1;
                }
            }
        }
        delta = fmax(delta, 0);
        t += delta;
        if (nu == 1 && last) {
            /* what set the step is the class's own link or cap */
            const flow_class *c = &cls[fc->ulist[0]];
            rate[fc->ulist[0]] = c->max_rate > 0 ? fmin(t, c->max_rate) : t;
            return;
        }
        for (int i = 0; i < nu - 1; i++) {
            const flow_class *c = &cls[fc->ulist[i]];
            for (int k = 0; k < c->nnz; k++)
                fc->ln[c->link[k]].rem -= delta * c->load[k];
        }
        /* The last class's links change no more after its own subtraction
         * (but for arg_link, zeroed below): its freeze test rides along. */
        int last_full = 0;
        const flow_class *lc = &cls[fc->ulist[nu - 1]];
        for (int k = 0; k < lc->nnz; k++) {
            int l = lc->link[k];
            double left = fc->ln[l].rem -= delta * lc->load[k];
            last_full |= lc->load[k] > 0 && (l == arg_link ? 0 : left) * net_bw_inv(&fc->bw, (size_t)l) <= FLOW_EPS;
        }
        if (arg_link >= 0)
            fc->ln[arg_link].rem = 0;
        int kept = 0, nfrozen = 0;
        for (int i = 0; i < nu; i++) {
            int ci = fc->ulist[i];
            const flow_class *c = &cls[ci];
            int frozen = ci == arg_cls || (c->max_rate > 0 && t >= c->max_rate * (1 - FLOW_EPS)) ||
                         (i == nu - 1 && last_full);
            for (int k = 0; k < c->nnz && !frozen && i < nu - 1; k++)
                frozen = c->load[k] > 0 && fc->ln[c->link[k]].rem * net_bw_inv(&fc->bw, (size_t)c->link[k]) <= FLOW_EPS;
            if (!frozen) {
                fc->ulist[kept++] = ci;
                continue;
            }
            rate[ci] = c->max_rate > 0 ? fmin(t, c->max_rate) : t;
            fc->flist[nfrozen++] = ci;
        }
        /* sum[] matters only while some class is left */
        for (int i = 0; i < nfrozen && kept > 0; i++) {
            const flow_class *c = &cls[fc->flist[i]];
            for (int k = 0; k < c->nnz; k++)
                fc->ln[c->link[k]].sum -= c->load[k];
        }
        nu = kept;
    }
}

/* The largest load[k] * inv(link[k]) so far, the first link with it. */
static inline void busy_at(flow_busy *busy, int k, int link, double b)
{
    if (b > busy->s || k == 0) {
        busy->s = b;
        busy->link = link;
    }
}

/* flow_busiest over parts of a list: each part's busiest link, the first
 * of equals, then the first part's of the busiest parts. */
typedef struct busiest_job {
    const int *link;
    const double *load;
    int nnz, nparts;
    const net_bw *bw;
    flow_busy part[PAR_MAX];
} busiest_job;

static void busiest_part(void *ctx, int part)
{
    busiest_job *j = ctx;
    size_t k0, k1;
    par_range((size_t)j->nnz, part, j->nparts, &k0, &k1);
    const int *link = j->link;
    const double *load = j->load;
    net_bw bw = *j->bw; /* a copy: the loop's loads of it stay in registers */
    flow_busy busy = {0, -1};
    for (size_t k = k0; k < k1; k++)
        busy_at(&busy, (int)(k - k0), link[k], load[k] * net_bw_inv(&bw, (size_t)link[k]));
    j->part[part] = busy;
}

flow_busy flow_busiest(const int *link, const double *load, int nnz, const net_bw *bw)
{
    busiest_job j = {link, load, nnz, par_chunks((size_t)nnz), bw, {{0, -1}}};
    par_run(j.nparts, busiest_part, &j);
    flow_busy busy = j.part[0];
    for (int part = 1; part < j.nparts; part++)
        if (j.part[part].link >= 0 && (busy.link < 0 || j.part[part].s > busy.s))
            busy = j.part[part];
    return busy;
}

/* The smallest of start and each loaded link's bandwidth over its load:
 * fill_level's arithmetic in one walk, without its per-link scratch. *loads
 * says whether any load is positive. */
static double alone_delta(const int *link, const double *load, int nnz, const net_bw *bw, double start,
                          int *loads, flow_busy *busy)
{
    double delta = start, inv = -1, rem = 0;
    *loads = 0;
    busy->s = 0;
    busy->link = -1;
    for (int k = 0; k < nnz; k++) {
        double ik = net_bw_inv(bw, (size_t)link[k]);
        busy_at(busy, k, link[k], load[k] * ik);
        if (load[k] > 0) {
            if (ik != inv) { /* most links share a bandwidth: few divisions */
                inv = ik;
                rem = inv > 0 ? 1 / inv : 0;
            }
            *loads = 1;
            if (rem < delta * load[k])
                delta = rem / load[k];
        }
    }
    return delta;
}

double flow_free_rate(const int *link, const double *load, int nnz, const net_bw *bw, flow_busy *busy)
{
    int loads;
    double delta = alone_delta(link, load, nnz, bw, INFINITY, &loads, busy);
    return loads ? fmax(delta, 0) : INFINITY;
}

/* The rate of class ci alone on free links into rate[ci]. A known free
 * rate serves when it is not within rounding of the cap: the walk from the
 * cap then takes the same steps as the one from infinity, or none. */
static int solve_alone(flow_ctx *fc, const flow_class *cls, int ci, double *rate, wt_err *e)
{
    const flow_class *c = &cls[ci];
    double f = c->free_rate;
    if (f > 0 && (c->max_rate <= 0 || fabs(f - c->max_rate) > 1e-9 * c->max_rate)) {
        rate[ci] = c->max_rate > 0 ? fmin(f, c->max_rate) : f;
        return WT_OK;
    }
    int loads;
    flow_busy busy;
    for (int k = 0; k < c->nnz; k++) {
        int l = c->link[k];
        if (l < 0 || (size_t)l >= fc->nlinks) {
            wt_fail(e, "flow class %d loads link slot %d, outside 0..%zu", ci, l, fc->nlinks);
            return WT_EINTERNAL;
        }
    }
    double delta = alone_delta(c->link, c->load, c->nnz, &fc->bw, c->max_rate > 0 ? c->max_rate : INFINITY,
                               &loads, &busy);
    if (!loads)
        rate[ci] = c->max_rate > 0 ? c->max_rate : INFINITY;
    else
        rate[ci] = c->max_rate > 0 ? fmin(fmax(delta, 0), c->max_rate) : fmax(delta, 0);
    return WT_OK;
}

/* FNV-1a over the bytes of one value. */
static uint32_t hash_bytes(uint32_t h, const void *v, size_t n)
{
    const unsigned char *b = v;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

/* The hash of the shapes of classes a[0..n), in order. */
static uint32_t hash_set(const flow_class *cls, const int *a, int n)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++) {
        const flow_class *c = &cls[a[i]];
        h = hash_bytes(h, &c->link, sizeof c->link);
        h = hash_bytes(h, &c->load, sizeof c->load);
        h = hash_bytes(h, &c->prio, sizeof c->prio);
        h = hash_bytes(h, &c->max_rate, sizeof c->max_rate);
    }
    return h;
}

/* 1 when classes x and y load the same links the same way under the same
 * priority and cap: their rates in equal sets are equal. */
static int same_shape(const flow_class *x, const flow_class *y)
{
    return x->link == y->link && x->load == y->load && x->nnz == y->nnz && x->prio == y->prio &&
           x->max_rate == y->max_rate;
}

/* The kept solution of the loading classes list[0..n) (ascending), or
 * -1. Rates depend on those alone: classes that load no link take their
 * cap or run unbounded, whatever else runs. */
static long kept_find(const flow_ctx *fc, const flow_class *cls, const int *list, int n, uint32_t h)
{
    for (size_t i = 0; i < fc->nkept; i++) {
        const flow_memo *k = &fc->kept[i];
        int same = k->hash == h && k->n == n;
        for (int j = 0; j < n && same; j++)
            same = same_shape(&fc->kept_cls[k->at + (size_t)j], &cls[list[j]]);
        if (same)
            return (long)i;
    }
    return -1;
}

/* Keeps the rates of the loading classes list[0..n) under hash h. */
static int kept_add(flow_ctx *fc, const flow_class *cls, const int *list, int n, uint32_t h, const double *rate)
{
    size_t cap = fc->cap_kept_arena, need = fc->nkept_arena + (size_t)n;
    if (grow(&fc->kept_cls, &cap, need, sizeof *fc->kept_cls) ||
        grow(&fc->kept_rate, &fc->cap_kept_arena, need, sizeof *fc->kept_rate) ||
        grow(&fc->kept, &fc->cap_kept, fc->nkept + 1, sizeof *fc->kept))
        return -1;
    /* Both arenas grow by the same doublings from the same start. */
    for (int j = 0; j < n; j++) {
        fc->kept_cls[fc->nkept_arena + (size_t)j] = cls[list[j]];
        fc->kept_rate[fc->nkept_arena + (size_t)j] = rate[list[j]];
    }
    fc->kept[fc->nkept++] = (flow_memo){h, n, fc->nkept_arena};
    fc->nkept_arena = need;
    return 0;
}

void flow_ctx_keep(flow_ctx *fc, int keep)
{
    fc->keep = keep;
}

void flow_ctx_forget(flow_ctx *fc)
{
    fc->nkept = fc->nkept_arena = 0;
}

/* The classes of idx[0..m) that load links, in order, into list; returns
 * their number. */
static int loading_list(const flow_class *cls, const int *idx, int m, int *list)
{
    int n = 0;
    for (int i = 0; i < m; i++)
        if (cls[idx[i]].nnz > 0)
            list[n++] = idx[i];
    return n;
}

/* 1 when some load of c is positive (fill_level's test of a loading class). */
static int loads_some(const flow_class *c)
{
    for (int k = 0; k < c->nnz; k++)
        if (c->load[k] > 0)
            return 1;
    return 0;
}

/* Classes idx[0..m) of one priority of which two load links, both with
 * some positive load, the others none (the DP buckets beside a pass, a
 * streamed gather beside a tensor pass): their rates into rate[] from
 * flow_pair_solve, the others' as fill_level gives them; 1 when done, 0
 * when the set is not such a pair or the pair's lists do not allow it. */
static int solve_pair(flow_ctx *fc, const flow_class *cls, const int *idx, int m, double *rate)
{
    int pair[2], n = 0;
    for (int i = 0; i < m; i++) {
        const flow_class *c = &cls[idx[i]];
        if (c->prio != cls[idx[0]].prio)
            return 0;
        if (c->nnz > 0 && (n == 2 || !loads_some(c)))
            return 0;
        if (c->nnz > 0)
            pair[n++] = idx[i];
    }
    if (n != 2)
        return 0;
    int a = pair[0] < pair[1] ? pair[0] : pair[1], b = pair[0] < pair[1] ? pair[1] : pair[0];
    if (flow_pair_solve(&fc->bw, fc->nlinks, &cls[a], &cls[b], &rate[a], &rate[b]))
        return 0;
    for (int i = 0; i < m; i++) {
        const flow_class *c = &cls[idx[i]];
        if (c->nnz == 0)
            rate[idx[i]] = c->max_rate > 0 ? c->max_rate : INFINITY;
    }
    return 1;
}

/* The rates of classes idx[0..m) active together into rate[class]; a set
 * of loading classes solved before since the last forget is not solved
 * again. */
static int solve_set(flow_ctx *fc, const flow_class *cls, const int *idx, int m, double *rate, wt_err *e)
{
    int loading = 0;
    for (int i = 0; i < m; i++)
        loading += cls[idx[i]].nnz > 0;
    /* With one class on the links at most, each has them to itself. */
    for (int i = 0; i < m && loading <= 1; i++) {
        int rc = solve_alone(fc, cls, idx[i], rate, e);
        if (rc != WT_OK || i == m - 1)
            return rc;
    }
    int *list = fc->flist, nload = loading_list(cls, idx, m, list);
    uint32_t h = hash_set(cls, list, nload);
    long k = kept_find(fc, cls, list, nload, h);
    if (k >= 0) {
        const flow_memo *me = &fc->kept[k];
        for (int i = 0, j = 0; i < m; i++) {
            const flow_class *c = &cls[idx[i]];
            rate[idx[i]] = c->nnz > 0 ? fc->kept_rate[me->at + (size_t)j++] : c->max_rate > 0 ? c->max_rate : INFINITY;
        }
        return WT_OK;
    }
    if (solve_pair(fc, cls, idx, m, rate)) {
        nload = loading_list(cls, idx, m, list);
        return kept_add(fc, cls, list, nload, h, rate) ? wt_oom(e, "flow solutions") : WT_OK;
    }
    /* A link two classes load is set twice, to the same values. Most links
     * share a bandwidth: a division only where it changes. */
    double inv = -1, bw = 0;
    for (int i = 0; i < m; i++) {
        const flow_class *c = &cls[idx[i]];
        for (int k = 0; k < c->nnz; k++) {
            int l = c->link[k];
            if (l < 0 || (size_t)l >= fc->nlinks) {
                wt_fail(e, "flow class %d loads link slot %d, outside 0..%zu", idx[i], l, fc->nlinks);
                return WT_EINTERNAL;
            }
            if (net_bw_inv(&fc->bw, (size_t)l) != inv) {
                inv = net_bw_inv(&fc->bw, (size_t)l);
                bw = inv > 0 ? 1 / inv : 0;
            }
            fc->ln[l] = (flow_link){bw, 0};
        }
        fc->keys[i] = (flow_key){cls[idx[i]].prio, idx[i]};
    }
    qsort(fc->keys, (size_t)m, sizeof *fc->keys, cmp_key);
    for (int lo = 0, hi; lo < m; lo = hi) {
        for (hi = lo + 1; hi < m && fc->keys[hi].prio == fc->keys[lo].prio; hi++)
            ;
        fill_level(fc, cls, fc->keys + lo, hi - lo, lo == 0, hi == m, rate);
    }
    nload = loading_list(cls, idx, m, list); /* fill_level used flist */
    return kept_add(fc, cls, list, nload, h, rate) ? wt_oom(e, "flow solutions") : WT_OK;
}

int flow_solve(flow_ctx *fc, const flow_class *cls, int n, double *rate, wt_err *e)
{
    int rc = ensure_classes(fc, n, e);
    if (rc != WT_OK)
        return rc;
    flow_ctx_forget(fc);
    for (int i = 0; i < n; i++)
        fc->act[i] = i;
    return solve_set(fc, cls, fc->act, n, rate, e);
}

/* 1 when memo entry me is the set act[0..m) up to shapes. */
static int same_set(const flow_ctx *fc, const flow_class *cls, const flow_memo *me, const int *act, int m)
{
    if (me->n != m)
        return 0;
    for (int i = 0; i < m; i++)
        if (!same_shape(&cls[fc->memo_idx[me->at + (size_t)i]], &cls[act[i]]))
            return 0;
    return 1;
}

/* Doubles the memo's table and places every entry again. */
static int grow_table(flow_ctx *fc)
{
    size_t cap = fc->cap_table ? fc->cap_table * 2 : 64;
    int *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < fc->nmemo; i++) {
        size_t j = fc->memo[i].hash & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = (int)i + 1;
    }
    free(fc->table);
    fc->table = t;
    fc->cap_table = cap;
    return 0;
}

/* The memo entry of the active set act[0..m) (ascending), solved and added
 * when new; sets *id. */
static int memo_get(flow_ctx *fc, const flow_class *cls, int m, int *id, flow_run_out *out, wt_err *e)
{
    uint32_t h = hash_set(cls, fc->act, m);
    size_t mask = fc->cap_table - 1, j = h & mask;
    for (; fc->table[j]; j = (j + 1) & mask) {
        const flow_memo *me = &fc->memo[fc->table[j] - 1];
        if (me->hash == h && same_set(fc, cls, me, fc->act, m)) {
            *id = fc->table[j] - 1;
            out->memo_hits++;
            return WT_OK;
        }
    }
    int rc = solve_set(fc, cls, fc->act, m, fc->rate, e);
    if (rc != WT_OK)
        return rc;
    out->solves++;
    size_t cap_idx = fc->cap_arena, need = fc->narena + (size_t)m;
    if (grow(&fc->memo_idx, &cap_idx, need, sizeof *fc->memo_idx) ||
        grow(&fc->memo_rate, &fc->cap_arena, need, sizeof *fc->memo_rate) ||
        grow(&fc->memo, &fc->cap_memo, fc->nmemo + 1, sizeof *fc->memo))
        return wt_oom(e, "flow memo");
    /* Both arenas grow by the same doublings from the same start. */
    for (int i = 0; i < m; i++) {
        fc->memo_idx[fc->narena + (size_t)i] = fc->act[i];
        fc->memo_rate[fc->narena + (size_t)i] = fc->rate[fc->act[i]];
    }
    fc->memo[fc->nmemo] = (flow_memo){h, m, fc->narena};
    fc->narena = need;
    fc->table[j] = (int)++fc->nmemo;
    *id = (int)fc->nmemo - 1;
    if (2 * fc->nmemo > fc->cap_table && grow_table(fc))
        return wt_oom(e, "flow memo");
    return WT_OK;
}

/* Adds scale * (utilisation) of memo entry id's classes to util[] and lists
 * the links in touched[]; with peaks, raises each link's peak to its util.
 * (A link loaded by several classes is looked at after each one's part: the
 * parts are positive then, so the last look is the largest.) */
static void add_util(flow_ctx *fc, const flow_class *cls, int id, double scale, int peaks)
{
    const flow_memo *me = &fc->memo[id];
    for (int i = 0; i < me->n; i++) {
        const flow_class *c = &cls[fc->memo_idx[me->at + (size_t)i]];
        double r = fc->memo_rate[me->at + (size_t)i] * scale;
        if (!(r != 0 && isfinite(r)))
            continue;
        for (int k = 0; k < c->nnz; k++) {
            int l = c->link[k];
            if (c->load[k] <= 0)
                continue;
            double u = fc->util[l] += r * c->load[k] * net_bw_inv(&fc->bw, (size_t)l);
            if (peaks && u > fc->stats[fc->slot[l] - 1].peak) /* not fmax: a libm call per link */
                fc->stats[fc->slot[l] - 1].peak = u;
            if (!fc->on[l]) {
                fc->on[l] = 1;
                fc->touched[fc->ntouched++] = l;
            }
        }
    }
}

/* The stats row of link l, added when l is first loaded. */
static flow_link_stat *stat_of(flow_ctx *fc, int l)
{
    if (!fc->slot[l]) {
        fc->slot[l] = (int)fc->nstats + 1;
        fc->stats[fc->nstats++] = (flow_link_stat){l, 0, 0, 0};
    }
    return &fc->stats[fc->slot[l] - 1];
}

/* Records [t0, t1) with memo entry id (-1: idle) and adds its busy and hot
 * time to the links it loads. */
static int add_interval(flow_ctx *fc, const flow_class *cls, double t0, double t1, int id, const flow_run_opts *o,
                        wt_err *e)
{
    if (grow(&fc->iv, &fc->cap_iv, fc->niv + 1, sizeof *fc->iv))
        return wt_oom(e, "flow intervals");
    fc->iv[fc->niv++] = (flow_interval){t0, t1, id};
    if (id < 0 || o->times_only)
        return WT_OK;
    size_t nnz = 0;
    for (int i = 0; i < fc->memo[id].n; i++)
        nnz += (size_t)cls[fc->memo_idx[fc->memo[id].at + (size_t)i]].nnz;
    if (grow(&fc->stats, &fc->cap_stats, fc->nstats + nnz, sizeof *fc->stats))
        return wt_oom(e, "flow link figures");
    add_util(fc, cls, id, 1, 0);
    double dt = t1 - t0;
    for (size_t i = 0; i < fc->ntouched; i++) {
        int l = fc->touched[i];
        flow_link_stat *s = stat_of(fc, l);
        s->busy_s += dt * fc->util[l];
        if (o->hot_frac > 0 && fc->util[l] >= o->hot_frac * (1 - FLOW_EPS))
            s->hot_s += dt;
        fc->util[l] = 0;
        fc->on[l] = 0;
    }
    fc->ntouched = 0;
    return WT_OK;
}

/* Slides a window of w seconds over the intervals (see the top of the file)
 * and keeps each link's largest busy time in it, over w. */
static void window_peaks(flow_ctx *fc, const flow_class *cls, double w)
{
    size_t n = fc->niv;
    if (n == 0)
        return;
    double tol = FLOW_EPS * fmax(w, fc->iv[n - 1].t1);
    double lo = -w, hi = 0;
    size_t ilo = 0, ihi = 0; /* the intervals holding lo and hi; lo < 0 before ilo's */
    while (ilo < n) {
        double nlo = lo < 0 ? 0 : fc->iv[ilo].t1, nhi = ihi < n ? fc->iv[ihi].t1 : INFINITY;
        double dlo = nlo - lo, dhi = nhi - hi, step = fmin(dlo, dhi);
        /* Drop the stretch leaving at lo first: only links gaining at hi can
         * reach a new maximum. */
        if (lo >= 0 && fc->iv[ilo].set >= 0)
            add_util(fc, cls, fc->iv[ilo].set, -step, 0);
        if (ihi < n && fc->iv[ihi].set >= 0)
            add_util(fc, cls, fc->iv[ihi].set, step, 1);
        int move_lo = dlo <= dhi + tol, move_hi = dhi <= dlo + tol;
        if (move_lo && move_hi) {
            lo = nlo;
            hi = nhi;
        } else if (move_lo) {
            lo = nlo;
            hi += dlo;
        } else {
            hi = nhi;
            lo += dhi;
        }
        if (move_lo && nlo > 0)
            ilo++;
        if (move_hi)
            ihi++;
    }
    for (size_t i = 0; i < fc->ntouched; i++) {
        fc->util[fc->touched[i]] = 0;
        fc->on[fc->touched[i]] = 0;
    }
    fc->ntouched = 0;
    for (size_t i = 0; i < fc->nstats; i++)
        fc->stats[i].peak /= w;
}

/* Checks the run's fields and builds the successor lists. */
static int prepare_run(flow_ctx *fc, const flow_class *cls, int n, wt_err *e)
{
    size_t total = 0;
    for (int c = 0; c < n; c++) {
        const flow_class *k = &cls[c];
        if (!(k->work >= 0 && k->start_s >= 0 && k->latency_s >= 0) || !isfinite(k->work) ||
            !isfinite(k->start_s) || !isfinite(k->latency_s) || k->npred < 0)
            return wt_fail(e, "flow class %d: work, start and latency must be finite and >= 0", c);
        for (int i = 0; i < k->npred; i++)
            if (k->pred[i] < 0 || k->pred[i] >= n || k->pred[i] == c)
                return wt_fail(e, "flow class %d: predecessor %d is not another class", c, k->pred[i]);
        total += (size_t)k->npred;
    }
    if (grow(&fc->succ, &fc->cap_succ, total + 1, sizeof *fc->succ))
        return wt_oom(e, "flow successors");
    memset(fc->succ_off, 0, ((size_t)n + 1) * sizeof *fc->succ_off);
    for (int c = 0; c < n; c++)
        for (int i = 0; i < cls[c].npred; i++)
            fc->succ_off[cls[c].pred[i] + 1]++;
    for (int c = 0; c < n; c++)
        fc->succ_off[c + 1] += fc->succ_off[c];
    /* Each fill moves succ_off[p] to p's end, where p + 1 starts. */
    for (int c = 0; c < n; c++)
        for (int i = 0; i < cls[c].npred; i++)
            fc->succ[fc->succ_off[cls[c].pred[i]]++] = c;
    for (int c = n; c > 0; c--)
        fc->succ_off[c] = fc->succ_off[c - 1];
    fc->succ_off[0] = 0;
    return WT_OK;
}

/* Starts and finishes everything due at time now, until nothing changes. */
static void settle(flow_ctx *fc, const flow_class *cls, int lo, int n, double now, flow_time *t, int *done)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int c = lo; c < n; c++) {
            flow_state *s = &fc->st[c];
            if (s->state == FLOW_WAIT && s->npl == 0 && s->ready <= now) {
                s->state = FLOW_ACTIVE;
                t[c].start_s = now;
                s->left = cls[c].work;
            }
            if (s->state == FLOW_ACTIVE && s->left <= 0) {
                s->state = FLOW_TAIL;
                t[c].bw_done_s = now;
                t[c].finish_s = now + cls[c].latency_s;
            }
            if (s->state == FLOW_TAIL && t[c].finish_s <= now) {
                s->state = FLOW_DONE;
                ++*done;
                changed = 1;
                for (int i = fc->succ_off[c]; i < fc->succ_off[c + 1]; i++) {
                    flow_state *q = &fc->st[fc->succ[i]];
                    q->npl--;
                    q->ready = fmax(q->ready, t[c].finish_s);
                }
            }
        }
    }
}

/* Why nothing more happens although classes are left: the message. */
static int stuck(const flow_ctx *fc, int n, wt_err *e)
{
    for (int c = 0; c < n; c++)
        if (fc->st[c].state == FLOW_ACTIVE)
            return wt_fail(e, "flow class %d makes no progress: it loads an unusable link", c);
    for (int c = 0; c < n; c++)
        if (fc->st[c].state == FLOW_WAIT)
            return wt_fail(e, "flow class %d waits on a cycle of predecessors", c);
    return wt_fail(e, "flow run stopped with classes left");
}

int flow_run(flow_ctx *fc, const flow_class *cls, int n, const flow_run_opts *o, flow_time *t, flow_run_out *out,
             wt_err *e)
{
    static const flow_run_opts none;
    if (!o)
        o = &none;
    *out = (flow_run_out){0};
    if (!fc->keep)
        flow_ctx_forget(fc);
    for (size_t i = 0; i < fc->nstats; i++)
        fc->slot[fc->stats[i].link] = 0;
    fc->nstats = fc->niv = fc->nmemo = fc->narena = 0;
    if (fc->cap_table)
        memset(fc->table, 0, fc->cap_table * sizeof *fc->table);
    else if (grow_table(fc))
        return wt_oom(e, "flow memo");
    int rc = ensure_classes(fc, n, e);
    if (rc == WT_OK)
        rc = prepare_run(fc, cls, n, e);
    if (rc != WT_OK)
        return rc;
    for (int c = 0; c < n; c++) {
        fc->st[c] = (flow_state){0, 0, cls[c].start_s, cls[c].npred, FLOW_WAIT};
        t[c] = (flow_time){0, 0, 0};
    }
    double now = 0;
    int done = 0, lo = 0; /* classes before lo are all done: no scan visits them */
    for (;;) {
        settle(fc, cls, lo, n, now, t, &done);
        if (done == n)
            break;
        while (fc->st[lo].state == FLOW_DONE)
            lo++;
        int m = 0, id = -1;
        for (int c = lo; c < n; c++)
            if (fc->st[c].state == FLOW_ACTIVE)
                fc->act[m++] = c;
        if (m > 0 && (rc = memo_get(fc, cls, m, &id, out, e)) != WT_OK)
            return rc;
        double next = INFINITY;
        for (int i = 0; i < m; i++) {
            flow_state *s = &fc->st[fc->act[i]];
            s->rate = fc->memo_rate[fc->memo[id].at + (size_t)i];
            if (s->rate > 0)
                next = fmin(next, now + s->left / s->rate);
        }
        for (int c = lo; c < n; c++) {
            const flow_state *s = &fc->st[c];
            if (s->state == FLOW_WAIT && s->npl == 0)
                next = fmin(next, s->ready);
            if (s->state == FLOW_TAIL)
                next = fmin(next, t[c].finish_s);
        }
        if (next == INFINITY)
            return stuck(fc, n, e);
        if (next > now && (rc = add_interval(fc, cls, now, next, id, o, e)) != WT_OK)
            return rc;
        /* Finishes within FLOW_EPS of the first are the same event. */
        for (int i = 0; i < m; i++) {
            flow_state *s = &fc->st[fc->act[i]];
            if (s->rate > 0 && now + s->left / s->rate <= next * (1 + FLOW_EPS))
                s->left = 0;
            else
                s->left -= s->rate * (next - now);
        }
        now = next;
    }
    if (o->window_s > 0 && !o->times_only)
        window_peaks(fc, cls, o->window_s);
    for (int c = 0; c < n; c++)
        out->end_s = fmax(out->end_s, t[c].finish_s);
    out->intervals = (int)fc->niv;
    out->nlinks = (int)fc->nstats;
    out->links = fc->stats;
    return WT_OK;
}
