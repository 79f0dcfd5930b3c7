/*
 * search.c - the two levels of the search, its threads, and the baselines.
 */
#include "search.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "search_int.h"

/* Candidates evaluated between two checks of the stopping rule. Fixed, so
 * the counts do not depend on the number of threads. */
#define BATCH 32

/* ---- a parallel for ---- */

typedef struct par_job {
    void (*fn)(void *ctx, size_t i, int thread);
    void *ctx;
    size_t n;
    int jobs, thread;
} par_job;

static void *par_main(void *arg)
{
    par_job *j = arg;
    for (size_t i = (size_t)j->thread; i < j->n; i += (size_t)j->jobs)
        j->fn(j->ctx, i, j->thread);
    return NULL;
}

/* Runs fn(ctx, i, thread) for i < n on `jobs` threads, i striped over them. */
static void par_for(int jobs, size_t n, void (*fn)(void *, size_t, int), void *ctx)
{
    if (jobs > (int)n)
        jobs = (int)n;
    if (jobs < 1)
        jobs = 1;
    par_job j[64];
    pthread_t t[64];
    int started[64] = {0};
    if (jobs > 64)
        jobs = 64;
    for (int k = 0; k < jobs; k++) {
        j[k] = (par_job){fn, ctx, n, jobs, k};
        if (k > 0)
            started[k] = pthread_create(&t[k], NULL, par_main, &j[k]) == 0;
    }
    par_main(&j[0]);
    for (int k = 1; k < jobs; k++) {
        if (started[k])
            pthread_join(t[k], NULL);
        else
            par_main(&j[k]); /* no thread: do its share here */
    }
}

/* ---- level 1 ---- */

typedef struct level1 {
    const wafer *wf;
    const model *m;
    const search_space *sp;
    search_core *cores;
    const size_t *group;  /* start of each group of cores; group[ngroups] = ncores */
    size_t ngroups;
    void (*progress)(void *ud, double done); /* the search's, or NULL */
    void *progress_ud;
    sim_result *scratch;  /* one per thread */
    double link_bw;
    const atomic_int *stop; /* the search's, or NULL: when set, the groups left are skipped */
} level1;

/* Memory of the fullest unit of core c with the memory switches `mem` and
 * chunk index `chunk` instead of its own, or INFINITY when refused. */
static double core_memory(level1 *l, const search_core *c, int mem, int chunk, int thread)
{
    search_core v = *c;
    v.mem = (unsigned char)mem;
    v.chunk = (unsigned char)chunk;
    strategy s;
    model m;
    search_core_strategy(&v, PLACE_TILES, COLL_RING, &s);
    search_core_model(&v, l->m, &m);
    sim_result *r = &l->scratch[thread];
    return sim_spec(r, l->wf, &m, &s, NULL) == WT_OK ? r->mem.total : INFINITY;
}

/* A core that does not fit is never ordered by its bounds. */
static void no_bound(search_core *c)
{
    for (int a = 0; a < COLL_NALGOS; a++)
        c->bound[a] = INFINITY;
}

static void level1_core(level1 *l, search_core *c, int thread)
{
    strategy s;
    model m;
    search_core_strategy(c, PLACE_TILES, COLL_RING, &s);
    search_core_model(c, l->m, &m);
    sim_result *r = &l->scratch[thread];
    c->valid = sim_spec(r, l->wf, &m, &s, NULL) == WT_OK;
    c->fits = c->valid && r->mem.fits;
    c->memory = c->valid ? r->mem.total : INFINITY;
    if (c->fits) /* only candidates that fit are ever ordered by it */
        sim_bounds(r, l->link_bw, c->bound);
    else
        no_bound(c);
}

/*
 * One group of cores: the same dimensions, grid, micro-batch and exec mode, every
 * checkpointing, memory-switch set and chunk. int8 activations and fp8
 * gradients only ever lower a unit's memory and the smallest chunk gives the
 * smallest buffers, so the engine's memory with those, for each
 * checkpointing and with zero or without, is the least any core of the group
 * can need. When even that does not fit, none of them does, and the group
 * costs six evaluations instead of one per core.
 */
static void level1_group(void *ctx, size_t g, int thread)
{
    level1 *l = ctx;
    if (l->stop && atomic_load(l->stop))
        return;
    size_t begin = l->group[g], end = l->group[g + 1];
    /* the calling thread reports; groups are striped over the threads, so
     * its share done is about everyone's */
    if (thread == 0 && l->progress && g % 4096 == 0)
        l->progress(l->progress_ud, 0.5 * (double)g / (double)l->ngroups);
    unsigned chunks = l->sp->chunks ? l->sp->chunks : (1u << SEARCH_NCHUNKS) - 1;
    int small = 1; /* the smallest chunk allowed: buffers of at most 2 chunks; 0 means unchunked */
    while (small < SEARCH_NCHUNKS && !(chunks >> small & 1))
        small++;
    if (small == SEARCH_NCHUNKS)
        small = 0;
    double least = INFINITY;
    size_t at = begin;
    for (size_t i = begin; i < end; i++) {
        const search_core *c = &l->cores[i];
        int lean = (c->mem & MEM_ZERO) | MEM_ACT_INT8 | MEM_GRAD_FP8;
        double need = c->mem == lean && c->chunk == small ? core_memory(l, c, lean, small, thread) : INFINITY;
        if (need < least) {
            least = need;
            at = i;
        }
    }
    /* Cores with no such sibling (narrowed spaces) are evaluated one by one. */
    int covered = least < INFINITY;
    if (covered && least > wafer_unit_capacity(l->wf)) {
        for (size_t i = begin; i < end; i++) {
            search_core *c = &l->cores[i];
            c->valid = 1;
            c->fits = 0;
            c->memory = i == at ? least : INFINITY; /* the others need at least that */
            no_bound(c);
        }
        return;
    }
    for (size_t i = begin; i < end; i++)
        level1_core(l, &l->cores[i], thread);
}

/* Splits the cores into groups of the same dimensions, grid, micro-batch
 * and exec mode (they are enumerated together). Returns the count; *out is allocated. */
static size_t group_cores(const search_core *cores, size_t n, size_t **out)
{
    size_t *g = malloc((n + 1) * sizeof *g), k = 0;
    if (!g)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const search_core *a = &cores[i], *b = i ? &cores[i - 1] : NULL;
        if (!b || memcmp(a->dims, b->dims, sizeof a->dims) || a->gw != b->gw || a->gh != b->gh ||
            a->microbatch != b->microbatch || a->exec != b->exec)
            g[k++] = i;
    }
    g[k] = n;
    *out = g;
    return k;
}

/* ---- level 2 ---- */

/* Numbers each core's dimensions, grid and exec mode (a signature: what
 * places and routes the same patterns, with one variant); the cores of one
 * dimensions and grid are enumerated together. Returns the count of
 * signatures; *out (allocated, NULL on out of memory) holds each core's. */
static size_t core_signatures(const search_core *cores, size_t n, int **out)
{
    int *sig = malloc((n ? n : 1) * sizeof *sig), run = -1;
    for (size_t i = 0; sig && i < n; i++) {
        const search_core *a = &cores[i], *b = i ? &cores[i - 1] : NULL;
        if (!b || memcmp(a->dims, b->dims, sizeof a->dims) || a->gw != b->gw || a->gh != b->gh)
            run++;
        sig[i] = run * EXEC_NKINDS + a->exec;
    }
    *out = sig;
    return (size_t)(run + 1) * EXEC_NKINDS;
}

/* A candidate: a core in bound order and one of its variants. */
typedef struct cand {
    size_t core; /* index into the cores, the tie-break after the step time */
    int variant;
} cand;

typedef struct level2 {
    const model *m;
    const search_core *cores;
    const place_kind *pl;
    const coll_algo *co;
    sim_ctx **ctx;       /* one per thread */
    const cand *batch;
    sim_result *out;     /* one per batch entry */
    int *ok;
} level2;

static void level2_one(void *arg, size_t i, int thread)
{
    level2 *l = arg;
    const cand *c = &l->batch[i];
    const search_core *core = &l->cores[c->core];
    strategy s;
    model m;
    search_core_strategy(core, l->pl[c->variant], l->co[c->variant], &s);
    search_core_model(core, l->m, &m);
    l->ok[i] = sim_eval_ctx(l->ctx[thread], &l->out[i], &m, &s, NULL) == WT_OK;
}

/* Kept results in order: step time, then enumeration order. */
typedef struct kept {
    sim_result r;
    size_t core;
    int variant;
} kept;

static int better(double step, size_t core, int variant, const kept *k)
{
    if (step != k->r.step_time_s)
        return step < k->r.step_time_s;
    if (core != k->core)
        return core < k->core;
    return variant < k->variant;
}

/* Offers a result to the top K of distinct strategies (taking it, or
 * freeing it): of one strategy's variants (search_same_strategy), the first
 * in the order stays, whichever comes first. */
static void offer(kept *top, int *ntop, int k, sim_result *r, size_t core, int variant)
{
    for (int i = 0; i < *ntop; i++) {
        if (!search_same_strategy(&top[i].r, r))
            continue;
        if (!better(r->step_time_s, core, variant, &top[i])) {
            sim_free(r);
            return;
        }
        sim_free(&top[i].r);
        memmove(&top[i], &top[i + 1], (size_t)(*ntop - i - 1) * sizeof *top);
        (*ntop)--;
        break;
    }
    int pos = *ntop;
    while (pos > 0 && better(r->step_time_s, core, variant, &top[pos - 1]))
        pos--;
    if (pos >= k) {
        sim_free(r);
        return;
    }
    if (*ntop == k)
        sim_free(&top[--*ntop].r);
    memmove(&top[pos + 1], &top[pos], (size_t)(*ntop - pos) * sizeof *top);
    top[pos].r = *r; /* field by field: a compound literal would put a sim_result on the stack */
    top[pos].core = core;
    top[pos].variant = variant;
    (*ntop)++;
}

/* arr (n of *cap elements of size bytes) with room for one more: doubled
 * (from `first`) when full; NULL when out of memory, arr left as it was. */
static void *room_for_one(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
    if (n < *cap)
        return arr;
    size_t grow = *cap ? 2 * *cap : first;
    void *bigger = realloc(arr, grow * size);
    if (bigger)
        *cap = grow;
    return bigger;
}

/* What a candidate's bound has seen of its signature (flags): its
 * placement's cuts, a routed sibling's links; and whether it was taken
 * from the queue before (put off or refined, for the progress). */
enum { SEEN_GEOM = 1, SEEN_PROFILE = 2, SEEN_TAKEN = 4 };

/* Sort key of a candidate that fits: its bound, then its place in the
 * enumeration. */
typedef struct order {
    double bound;
    size_t core;
    int variant;
    int seen;
} order;

static int order_cmp(const void *a, const void *b)
{
    const order *x = a, *y = b;
    if (x->bound != y->bound)
        return x->bound < y->bound ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->variant - y->variant;
}

/* The candidates not taken yet, least first (order_cmp): a binary heap,
 * built at once over every candidate that fits (only the few taken before
 * the search stops are ever ordered, where sorting them all would take
 * seconds on large spaces); a refined bound goes back in. */
typedef struct queue {
    order *heap;
    size_t n, cap;
} queue;

static void sift_down(queue *q, size_t i, order o)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && order_cmp(&q->heap[c + 1], &q->heap[c]) < 0)
            c++;
        if (order_cmp(&q->heap[c], &o) >= 0)
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    q->heap[i] = o;
}

/* Takes the n candidates of ord (allocated, cap of them) as the queue. */
static void queue_init(queue *q, order *ord, size_t n, size_t cap)
{
    *q = (queue){ord, n, cap};
    for (size_t i = n / 2; i-- > 0;)
        sift_down(q, i, q->heap[i]);
}

static int queue_push(queue *q, order o)
{
    order *heap = room_for_one(q->heap, q->n, &q->cap, sizeof *heap, 256);
    if (!heap)
        return -1;
    q->heap = heap;
    size_t i = q->n++;
    for (; i > 0 && order_cmp(&o, &q->heap[(i - 1) / 2]) < 0; i = (i - 1) / 2)
        q->heap[i] = q->heap[(i - 1) / 2];
    q->heap[i] = o;
    return 0;
}

static const order *queue_peek(const queue *q)
{
    return q->n ? &q->heap[0] : NULL;
}

static order queue_pop(queue *q)
{
    order o = q->heap[0];
    if (--q->n)
        sift_down(q, 0, q->heap[q->n]);
    return o;
}

/* For the progress only: how many first bounds fall at or below each of
 * NBINS log-spaced bounds from the least to the largest, so that the
 * candidates left below the K-th best are counted without sorting. */
#define NBINS 1024

typedef struct bound_bins {
    double lo, scale;          /* bin of x: (log x - log lo) * scale */
    size_t cum[NBINS];         /* candidates with a bin <= i */
} bound_bins;

static int bin_of(const bound_bins *b, double x)
{
    double f = x > b->lo ? (log(x) - log(b->lo)) * b->scale : 0;
    return f >= NBINS - 1 ? NBINS - 1 : (int)f;
}

static void bins_fill(bound_bins *b, const order *ord, size_t n)
{
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, ord[i].bound);
        hi = fmax(hi, ord[i].bound);
    }
    b->lo = lo > 0 ? lo : 1e-30;
    b->scale = hi > b->lo ? (NBINS - 1) / (log(hi) - log(b->lo)) : 0;
    memset(b->cum, 0, sizeof b->cum);
    for (size_t i = 0; i < n; i++)
        b->cum[bin_of(b, ord[i].bound)]++;
    for (int i = 1; i < NBINS; i++)
        b->cum[i] += b->cum[i - 1];
}

/* About how many candidates have a first bound at most x. */
static size_t bins_within(const bound_bins *b, double x)
{
    return x == INFINITY ? b->cum[NBINS - 1] : b->cum[bin_of(b, x)];
}

/* Level 2's half of the progress (bins NULL: none asked for): the first
 * bounds taken over those at or below the K-th best's step, kth. */
static void level2_progress(const search_opts *o, const bound_bins *bins, size_t fresh, double kth)
{
    if (!bins)
        return;
    size_t left = bins_within(bins, kth);
    o->progress(o->progress_ud, 0.5 + 0.5 * fmin(1, (double)fresh / (double)(left ? left : 1)));
}

const char search_no_valid[] = "the search space is empty: no valid candidate";
const char search_none_placed[] =
    "no candidate that fits memory could be placed (every one was refused by its placement)";

/* What would fit when nothing does: the smallest footprint, into r->nofit
 * (an answer), and into part (when not NULL) with where it sorts; an error
 * when no candidate is valid at all, unless in a shard's part. */
static int fits_nowhere(const search_core *cores, size_t n, const search_core *skipped, const wafer *wf,
                        const search_space *sp, search_result *r, search_part *part, wt_err *e)
{
    const search_core *least = skipped->valid ? skipped : NULL;
    for (size_t i = 0; i < n; i++) /* the least footprint, the first in the order of those */
        if (cores[i].valid && (!least || cores[i].memory < least->memory ||
                               (cores[i].memory == least->memory && cores[i].at < least->at)))
            least = &cores[i];
    if (part) {
        part->least = least ? least->memory : INFINITY;
        part->least_at = least ? least->at : -1;
    }
    if (!least)
        return part ? WT_OK : wt_fail(e, search_no_valid);
    strategy s;
    char text[64], mem[64];
    search_core_strategy(least, PLACE_TILES, COLL_RING, &s);
    double cap = wafer_unit_capacity(wf), ratio = least->memory / cap;
    int all_switches = (!sp->checkpoints || (sp->checkpoints >> RECOMPUTE_FULL & 1)) &&
                       (!sp->mems || (sp->mems >> 7 & 1));
    snprintf(r->nofit, sizeof r->nofit,
             "no candidate fits the %.3g GB of a unit: the smallest footprint is %.3g GB (%s, checkpoint %s, "
             "mem %s, micro-batch %d), %.1fx the capacity; it would fit with about %.0fx the units%s",
             cap / 1e9, least->memory / 1e9, strategy_format(&s, text, sizeof text), recompute_name(s.checkpoint),
             mem_switches_format(s.mem, mem, sizeof mem), least->microbatch, ratio, ceil(ratio),
             all_switches ? ", or units with DRAM"
                          : ", or with --only checkpoint=full and mem=zero+act_int8+grad_fp8 allowed");
    return WT_OK;
}

/* What level 2 knows of each signature (a core's dimensions, grid and exec
 * mode, with one variant): a routed sibling's profile (search_routed.c). */
enum { SIG_UNKNOWN = -1, SIG_NONE = -2 }; /* not evaluated yet; refused (no profile) */

typedef struct level2_state {
    search_run_state *st;
    const search_core *cores;
    const int *core_sig;    /* per core: its dimensions-grid-exec signature */
    int nvar;
    const place_kind *pl;
    const coll_algo *co;
    const int *ring;        /* per variant: the variant of its placement with the ring, or -1 */
    int *sig;               /* per signature x variant: a profile index or SIG_* */
    search_routed *prof;    /* the profiles */
    size_t nprof, cap_prof;
    unsigned algos;         /* the collective algorithms of the variants */
    int *geo;               /* per signature x placement: a geometry index, or -1 before its first use */
    search_geom *geom;      /* the geometries */
    size_t ngeom, cap_geom;
    search_cuts *cuts;      /* one per thread */
    order *ahead;           /* GEOM_AHEAD: candidates looked at for placements to build */
    sim_result *spec;       /* sim_spec scratch of the calling thread */
    double link_bw;
} level2_state;

static int sig_of(const level2_state *s, const order *o)
{
    return s->core_sig[o->core] * s->nvar + o->variant;
}

/* o's placement of its signature: the geometry every collective shares. */
static int geo_of(const level2_state *s, const order *o)
{
    return s->core_sig[o->core] * PLACE_NKINDS + (int)s->pl[o->variant];
}

/* o's spec (sim_spec) into s->spec, the calling thread's scratch: WT_OK,
 * or the code of its refusal. */
static int spec_of(level2_state *s, const order *o)
{
    const search_core *c = &s->cores[o->core];
    strategy st;
    model m;
    search_core_strategy(c, s->pl[o->variant], s->co[o->variant], &st);
    search_core_model(c, s->st->m, &m);
    return sim_spec(s->spec, s->st->wf, &m, &st, NULL);
}

/* The group kinds o's phases run collectives on (bit coll kind), the
 * ones its placement's geometry is built for; every kind when its spec is
 * refused (the evaluation says why). */
static unsigned op_kinds(level2_state *s, const order *o)
{
    if (spec_of(s, o) != WT_OK)
        return ~0u;
    unsigned kinds = 0;
    for (int i = 0; i < s->spec->nphases; i++)
        for (int j = 0; j < s->spec->phases[i].nops; j++)
            kinds |= 1u << s->spec->phases[i].ops[j].kind;
    return kinds;
}

/* o's bound with what is known of its signature (its geometry, and its
 * routed profile when it has one), never below its own. *twin is set when
 * o's collective acts on nothing (search_geom_acts) and its ring twin is
 * in the space: then it is that twin to the bit, and never evaluated. */
static double refine(level2_state *s, const order *o, int *twin)
{
    *twin = 0;
    int sg = sig_of(s, o);
    if (spec_of(s, o) != WT_OK)
        return o->bound;
    const search_geom *g = &s->geom[s->geo[geo_of(s, o)]];
    coll_algo a = s->co[o->variant];
    *twin = s->ring[o->variant] >= 0 && !search_geom_acts(g, a, s->spec);
    double routed[SIM_MAX_PHASES] = {0};
    if (s->sig[sg] >= 0)
        search_routed_bounds(&s->prof[s->sig[sg]], s->spec, routed);
    search_geom_bounds(g, a, s->spec, routed);
    return fmax(o->bound, sim_bound_routed(s->spec, s->link_bw, routed, a));
}

/* Candidates looked at ahead of the one taken for placements to build
 * beside its own: enough to pass its siblings (a placement's candidates
 * run to thousands), few enough to cost little against a placement. */
#define GEOM_AHEAD 16384

/* Placements built side by side: the candidates whose placement each is,
 * and where each goes. */
typedef struct geom_batch {
    level2_state *s;
    const order *at;
    const unsigned *kinds;
    search_geom *out;
    int *rc;
    wt_err *err;
} geom_batch;

/* Places batch candidate i's signature and takes its cuts for every
 * collective (the thread's scratch). */
static void geom_one(void *arg, size_t i, int thread)
{
    geom_batch *b = arg;
    const order *o = &b->at[i];
    const search_core *c = &b->s->cores[o->core];
    strategy st;
    model m;
    search_core_strategy(c, b->s->pl[o->variant], b->s->co[o->variant], &st);
    search_core_model(c, b->s->st->m, &m);
    memset(&b->out[i], 0, sizeof b->out[i]);
    /* the strategy as the evaluation resolves it: a refused one has no cuts */
    b->rc[i] = strategy_resolve(&st, &m, b->s->st->wf, NULL) == WT_OK
                   ? search_geom_build(&b->s->cuts[thread], &st, b->s->algos, b->kinds[i], &b->out[i], &b->err[i])
                   : WT_OK;
}

/*
 * Makes sure o's placement (its signature's, shared by every collective)
 * is built. When it is not, the next candidates in queue order that would
 * be taken (none the K-th best, kth when not NULL, already beats) are
 * looked at too, and the first placements missing among them are built
 * beside it, one per thread: the order candidates are taken in and every
 * result stay as they were (the queue holds them again, its order is
 * total), only the placements come sooner.
 */
static int take_geometry(level2_state *s, queue *q, const order *o, const kept *kth, wt_err *e)
{
    if (s->geo[geo_of(s, o)] >= 0)
        return WT_OK;
    int jobs = s->st->jobs, n = 0, rc = WT_OK;
    order want[64];
    size_t npop = 0;
    want[n++] = *o;
    while (n < jobs && npop < GEOM_AHEAD) {
        const order *p = queue_peek(q);
        if (!p || (kth && !better(p->bound, p->core, p->variant, kth)))
            break;
        order next = s->ahead[npop++] = queue_pop(q);
        int gk = geo_of(s, &next), dup = s->geo[gk] >= 0;
        for (int i = 0; i < n && !dup; i++)
            dup = geo_of(s, &want[i]) == gk;
        if (!dup)
            want[n++] = next;
    }
    for (size_t i = 0; i < npop; i++)
        queue_push(q, s->ahead[i]); /* cannot fail: they were in it */
    if (s->ngeom + (size_t)n > s->cap_geom) {
        size_t cap = 2 * (s->ngeom + (size_t)n);
        search_geom *geom = realloc(s->geom, cap * sizeof *geom);
        if (!geom)
            return wt_oom(e, "search geometries");
        s->geom = geom;
        s->cap_geom = cap;
    }
    int brc[64];
    unsigned kinds[64];
    for (int i = 0; i < n; i++)
        kinds[i] = op_kinds(s, &want[i]);
    wt_err *err = malloc((size_t)n * sizeof *err); /* 2 KB each: not on the stack */
    if (!err)
        return wt_oom(e, "search geometries");
    geom_batch b = {s, want, kinds, s->geom + s->ngeom, brc, err};
    par_for(jobs, (size_t)n, geom_one, &b);
    for (int i = 0; i < n; i++) {
        if (brc[i] != WT_OK && rc == WT_OK) {
            *e = err[i];
            rc = brc[i];
        }
        s->geo[geo_of(s, &want[i])] = (int)s->ngeom++;
    }
    free(err);
    return rc;
}

/* Keeps r's profile for its signature, the first evaluation of it. */
static int keep_profile(level2_state *s, int sig, const sim_result *r)
{
    search_routed *prof = room_for_one(s->prof, s->nprof, &s->cap_prof, sizeof *prof, 64);
    if (!prof)
        return -1;
    s->prof = prof;
    search_routed_take(&s->prof[s->nprof], r);
    s->sig[sig] = (int)s->nprof++;
    return 0;
}

/*
 * Level 2: evaluates the candidates that fit in bound order, in batches,
 * until the next bound exceeds the K-th best (or all of them when
 * exhaustive), and fills r's top and counts. The first evaluation of a
 * signature leaves a profile; a sibling taken later has its bound refined
 * with it and goes back in the queue (pruned at once when that already
 * exceeds the K-th best). A batch evaluates one candidate per signature
 * that has no profile yet and puts its siblings off to the next, and holds
 * no more candidates than the top still lacks while it is not full: on
 * large meshes evaluations are slow and the cutoff only works once it is.
 * Every choice depends on results only, never on the threads.
 */
static int level2_run(level2_state *s, order *ord, size_t total, search_result *r, wt_err *e)
{
    search_run_state *st = s->st;
    const search_opts *o = st->o;
    int k = o->top_k, ntop = 0, rc = WT_OK, done = 0;
    kept *top = calloc((size_t)k + 1, sizeof *top);
    cand *batch = malloc(BATCH * sizeof *batch);
    order *taken = malloc(BATCH * sizeof *taken);
    sim_result *out = calloc(BATCH, sizeof *out);
    int *ok = calloc(BATCH, sizeof *ok);
    order *later = NULL;
    size_t nlater = 0, cap_later = 0;
    size_t fresh = 0; /* first bounds taken, for the progress */
    bound_bins *bins = o->progress ? malloc(sizeof *bins) : NULL;
    if (bins)
        bins_fill(bins, ord, total);
    queue q;
    queue_init(&q, ord, total, total);
    if (!top || !batch || !taken || !out || !ok) {
        rc = wt_oom(e, "search batch");
        goto out;
    }
    while (!done) {
        if (o->stop && atomic_load(o->stop)) {
            for (int i = 0; i < ntop; i++)
                sim_free(&top[i].r);
            ntop = 0;
            rc = wt_fail(e, "search stopped");
            goto out;
        }
        /* A candidate the K-th best already beats need not be finished:
         * the K-th best only improves within a batch. Another shard's
         * K-th best (theirs) prunes the same, but on a tie, which the
         * enumeration order breaks. */
        double kth = !o->exhaustive && ntop == k ? top[k - 1].r.step_time_s : INFINITY;
        double theirs = o->share && !o->exhaustive ? o->share(o->share_ud, kth) : INFINITY;
        for (int t = 0; t < st->jobs; t++)
            sim_ctx_set_cutoff(st->ctx[t], fmin(kth, theirs));
        size_t nb = 0, room = ntop < k && k - ntop < BATCH ? (size_t)(k - ntop) : BATCH;
        while (nb < room && !(o->stop && atomic_load(o->stop))) { /* placements take seconds on a wafer */
            /* step >= bound: what the heap holds from here on cannot beat
             * the K-th best, not even on a tie (broken by enumeration
             * order, as the heap's is) */
            const order *peek = queue_peek(&q);
            if (!peek || (kth < INFINITY && !better(peek->bound, peek->core, peek->variant, &top[k - 1])) ||
                peek->bound > theirs) {
                done = 1;
                break;
            }
            order c = queue_pop(&q);
            fresh += !(c.seen & SEEN_TAKEN);
            c.seen |= SEEN_TAKEN;
            int sg = o->exhaustive ? 0 : sig_of(s, &c), in_batch = 0;
            if (!o->exhaustive) {
                size_t placed = s->ngeom;
                if ((rc = take_geometry(s, &q, &c, kth < INFINITY ? &top[k - 1] : NULL, e)) != WT_OK)
                    goto out;
                if (s->ngeom > placed) /* placements take seconds on a wafer: say how far */
                    level2_progress(o, bins, fresh, kth);
                int known = SEEN_GEOM | (s->sig[sg] >= 0 ? SEEN_PROFILE : 0);
                if (known & ~c.seen) {
                    int twin;
                    c.bound = refine(s, &c, &twin);
                    c.seen |= known;
                    if (!twin && c.bound <= fmin(kth, theirs) && queue_push(&q, c)) {
                        rc = wt_oom(e, "search queue");
                        goto out;
                    }
                    continue;
                }
            }
            for (size_t i = 0; i < nb && !o->exhaustive && s->sig[sg] == SIG_UNKNOWN; i++)
                in_batch |= sig_of(s, &taken[i]) == sg;
            if (in_batch) {
                order *more = room_for_one(later, nlater, &cap_later, sizeof *more, 64);
                if (!more) {
                    rc = wt_oom(e, "search queue");
                    goto out;
                }
                later = more;
                later[nlater++] = c;
                continue;
            }
            taken[nb] = c;
            batch[nb++] = (cand){c.core, c.variant};
        }
        if (nb == 0 && nlater == 0)
            break;
        level2 l2 = {st->m, s->cores, s->pl, s->co, st->ctx, batch, out, ok};
        par_for(st->jobs, nb, level2_one, &l2);
        for (size_t i = 0; i < nb; i++) {
            int sg = o->exhaustive ? 0 : sig_of(s, &taken[i]);
            r->evaluated++;
            if (!o->exhaustive && s->sig[sg] == SIG_UNKNOWN &&
                (ok[i] ? keep_profile(s, sg, &out[i]) : (s->sig[sg] = SIG_NONE, 0))) {
                for (size_t j = i; j < nb; j++)
                    if (ok[j])
                        sim_free(&out[j]);
                rc = wt_oom(e, "search profiles");
                goto out;
            }
            if (!ok[i])
                r->invalid++;
            else if (out[i].above_cutoff)
                sim_free(&out[i]);
            else
                offer(top, &ntop, k, &out[i], batch[i].core, batch[i].variant);
        }
        for (size_t i = 0; i < nlater; i++)
            if (queue_push(&q, later[i])) {
                rc = wt_oom(e, "search queue");
                goto out;
            }
        if (nlater)
            done = 0; /* what was put off is still to be taken */
        nlater = 0;
        level2_progress(o, bins, fresh, !o->exhaustive && ntop == k ? top[k - 1].r.step_time_s : INFINITY);
    }
    r->pruned_bound = (long long)total - r->evaluated;
    if (ntop > 0 && !(r->top = malloc((size_t)ntop * sizeof *r->top))) {
        rc = wt_oom(e, "search top");
        goto out;
    }
    r->ntop = ntop;
    for (int i = 0; i < ntop; i++) {
        r->top[i] = top[i].r;
        if (st->part) { /* what evaluates it again, as level2_one did */
            search_pick *p = &st->part->top[i];
            const search_core *c = &s->cores[top[i].core];
            search_core_strategy(c, s->pl[top[i].variant], s->co[top[i].variant], &p->s);
            p->microbatch = c->microbatch;
            p->step_time_s = top[i].r.step_time_s;
            p->core = c->at;
            p->variant = top[i].variant;
        }
    }
    ntop = 0;
    if (r->ntop == 0)
        rc = st->part ? WT_OK : wt_fail(e, search_none_placed);
out:
    for (int t = 0; t < st->jobs; t++)
        sim_ctx_set_cutoff(st->ctx[t], INFINITY);
    for (int i = 0; i < ntop; i++)
        sim_free(&top[i].r);
    free(top);
    free(batch);
    free(taken);
    free(out);
    free(ok);
    free(later);
    free(q.heap);
    free(bins);
    return rc;
}

int search_levels(search_run_state *st, search_result *r, wt_err *e)
{
    const search_opts *o = st->o;
    search_cores_out all;
    int rc = search_cores(st->wf, st->m, &o->space, o, &all, e);
    if (rc != WT_OK)
        return rc;
    search_core *cores = all.cores;
    size_t ncores = all.n;
    place_kind pl[SEARCH_MAX_VARIANTS];
    coll_algo co[SEARCH_MAX_VARIANTS];
    int nvar = search_variants(&o->space, pl, co, SEARCH_MAX_VARIANTS);
    r->candidates = all.total * nvar;
    if (r->candidates == 0) {
        free(cores);
        return wt_fail(e, "the search space is empty: no (DP,TP,SP,PP,TATP) with the model's constraints and the "
                          "--fix/--only choices fills the units");
    }

    /* level 1 */
    int *core_sig = NULL;
    size_t nsig = core_signatures(cores, ncores, &core_sig);
    sim_result *scratch = calloc((size_t)st->jobs, sizeof *scratch);
    size_t *group = NULL, ngroups = group_cores(cores, ncores, &group);
    if (!core_sig || !scratch || !group) {
        free(core_sig);
        free(scratch);
        free(group);
        free(cores);
        return wt_oom(e, "search level 1");
    }
    level1 l1 = {st->wf, st->m, &o->space, cores, group, ngroups, o->progress, o->progress_ud, scratch,
                 sim_ctx_link_bw(st->ctx[0]), o->stop};
    par_for(st->jobs, ngroups, level1_group, &l1);
    free(group);
    free(scratch);
    if (o->stop && atomic_load(o->stop)) {
        free(core_sig);
        free(cores);
        return wt_fail(e, "search stopped");
    }
    if (o->progress)
        o->progress(o->progress_ud, 0.5);

    size_t nfit = 0;
    for (size_t i = 0; i < ncores; i++)
        nfit += cores[i].fits;
    order *ord = malloc((nfit ? nfit * (size_t)nvar : 1) * sizeof *ord);
    if (!ord) {
        free(core_sig);
        free(cores);
        return wt_oom(e, "search order");
    }
    size_t total = 0;
    for (size_t i = 0; i < ncores; i++)
        for (int v = 0; v < nvar && cores[i].fits; v++)
            ord[total++] = (order){cores[i].bound[co[v]], i, v, 0};
    r->pruned_memory = r->candidates - (long long)total;
    if (nfit == 0) {
        rc = fits_nowhere(cores, ncores, &all.least, st->wf, &o->space, r, st->part, e);
        free(ord);
        free(core_sig);
        free(cores);
        return rc;
    }
    unsigned algos = 0;
    for (int v = 0; v < nvar; v++)
        algos |= 1u << co[v];
    int ring[SEARCH_MAX_VARIANTS];
    for (int v = 0; v < nvar; v++) {
        ring[v] = -1;
        for (int w = 0; w < nvar; w++)
            if (pl[w] == pl[v] && co[w] == COLL_RING)
                ring[v] = w;
    }
    level2_state l2 = {st, cores, core_sig, nvar, pl, co, ring, NULL, NULL, 0, 0, algos, NULL, NULL, 0, 0,
                       calloc((size_t)st->jobs, sizeof(search_cuts)), malloc(GEOM_AHEAD * sizeof(order)),
                       calloc(1, sizeof(sim_result)), sim_ctx_link_bw(st->ctx[0])};
    size_t nsv = nsig * (size_t)nvar, ngk = nsig * PLACE_NKINDS;
    l2.sig = malloc(nsv * sizeof *l2.sig);
    l2.geo = malloc(ngk * sizeof *l2.geo);
    if (!l2.sig || !l2.geo || !l2.spec || !l2.cuts || !l2.ahead)
        rc = wt_oom(e, "search signatures");
    for (int t = 0; t < st->jobs && rc == WT_OK; t++)
        rc = search_cuts_init(&l2.cuts[t], st->wf, e);
    for (size_t i = 0; rc == WT_OK && i < nsv; i++)
        l2.sig[i] = SIG_UNKNOWN;
    for (size_t i = 0; rc == WT_OK && i < ngk; i++)
        l2.geo[i] = -1;
    if (rc == WT_OK)
        rc = level2_run(&l2, ord, total, r, e); /* takes ord */
    else
        free(ord);
    free(l2.sig);
    free(l2.prof);
    free(l2.geo);
    free(l2.geom);
    for (int t = 0; t < st->jobs && l2.cuts; t++)
        search_cuts_free(&l2.cuts[t]);
    free(l2.cuts);
    free(l2.ahead);
    free(l2.spec);
    free(core_sig);
    free(cores);
    return rc;
}

int search_with_contexts(const wafer *wf, const model *m, const search_opts *opts, search_opts *o,
                         search_body body, void *arg, search_result *r, wt_err *e)
{
    memset(r, 0, sizeof *r);
    double t0 = wt_clock_s();
    *o = *opts;
    if (o->top_k <= 0)
        o->top_k = 5;
    if (o->top_k > SEARCH_MAX_TOP)
        return wt_fail(e, "--top: at most %d", SEARCH_MAX_TOP);
    search_run_state st = {wf, m, o, {NULL}, o->jobs < 1 ? 1 : o->jobs > 64 ? 64 : o->jobs, NULL};
    int rc = model_check(m, e);
    for (int t = 0; t < st.jobs && rc == WT_OK; t++)
        if ((rc = sim_ctx_new(&st.ctx[t], wf, e)) == WT_OK)
            sim_ctx_set_net(st.ctx[t], o->net);
    if (rc == WT_OK)
        rc = body(&st, r, arg, e);
    for (int t = 0; t < st.jobs; t++)
        sim_ctx_free(st.ctx[t]);
    if (rc != WT_OK) {
        search_free(r);
        return rc;
    }
    r->elapsed_s = wt_clock_s() - t0;
    if (o->progress)
        o->progress(o->progress_ud, 1.0);
    return WT_OK;
}

static int whole_body(search_run_state *st, search_result *r, void *arg, wt_err *e)
{
    (void)arg;
    int rc = search_levels(st, r, e);
    if (rc == WT_OK && st->o->baselines && r->ntop > 0)
        rc = search_baselines(st, r, e);
    return rc;
}

int search_run(const wafer *wf, const model *m, const search_opts *opts, search_result *r, wt_err *e)
{
    search_opts o, whole = *opts;
    whole.shard = whole.nshards = 0;
    whole.share = NULL;
    return search_with_contexts(wf, m, &whole, &o, whole_body, NULL, r, e);
}

void search_free(search_result *r)
{
    for (int i = 0; i < r->ntop; i++)
        sim_free(&r->top[i]);
    for (int i = 0; i < r->nbaselines; i++)
        if (r->baselines[i].ok)
            sim_free(&r->baselines[i].r);
    free(r->top);
    free(r->baselines);
    r->top = NULL;
    r->baselines = NULL;
    r->ntop = r->nbaselines = 0;
}

int search_each(const wafer *wf, const model *m, const search_space *sp,
                void (*fn)(void *ud, const strategy *s, const model *m, int fits, double bound), void *ud,
                wt_err *e)
{
    search_cores_out all;
    int rc = search_cores(wf, m, sp, NULL, &all, e);
    if (rc != WT_OK)
        return rc;
    search_core *cores = all.cores;
    size_t n = all.n;
    sim_ctx *ctx;
    if ((rc = sim_ctx_new(&ctx, wf, e)) != WT_OK) {
        free(cores);
        return rc;
    }
    sim_result *scratch = calloc(1, sizeof *scratch);
    if (!scratch) {
        free(cores);
        sim_ctx_free(ctx);
        return wt_oom(e, "search scratch");
    }
    level1 l1 = {wf, m, sp, cores, NULL, 0, NULL, NULL, scratch, sim_ctx_link_bw(ctx), NULL};
    place_kind pl[SEARCH_MAX_VARIANTS];
    coll_algo co[SEARCH_MAX_VARIANTS];
    int nvar = search_variants(sp, pl, co, SEARCH_MAX_VARIANTS);
    for (size_t i = 0; i < n; i++) {
        level1_core(&l1, &cores[i], 0);
        for (int v = 0; v < nvar && cores[i].valid; v++) {
            strategy s;
            model mm;
            search_core_strategy(&cores[i], pl[v], co[v], &s);
            search_core_model(&cores[i], m, &mm);
            fn(ud, &s, &mm, cores[i].fits, cores[i].bound[co[v]]);
        }
    }
    free(scratch);
    free(cores);
    sim_ctx_free(ctx);
    return WT_OK;
}
