/*
 * search_space.c - the candidates of the search: --fix and --only, and the
 * enumeration of cores (everything but placement and collective).
 */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qty.h"
#include "search_int.h"

/* Ascending; 4 KB for wafers of 48 KB cores (WSE-2/3), whose buffers of two
 * chunks must leave room for the activations. */
const double search_chunks[SEARCH_NCHUNKS] = {0, 4e3, 64e3, 256e3, 1e6};

/* The space's masks hold one bit per row. */
_Static_assert(PLACE_NKINDS <= 32 && COLL_NALGOS <= 32 && RECOMPUTE_NKINDS <= 32 && SEARCH_NMEMS <= 32 &&
                   SEARCH_NCHUNKS <= 32,
               "a search_space mask has a bit per choice");

static const char *const dim_keys[] = {"dp", "tp", "sp", "pp", "tatp"};

/* Splits "key=value,key=value" and hands each pair to fn. */
static int each_pair(const char *text, const char *flag, search_space *sp,
                     int (*fn)(search_space *sp, const char *key, const char *value, const char *flag, wt_err *e),
                     wt_err *e)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return wt_fail(e, "%s: too long", flag);
    strcpy(buf, text);
    char *save = NULL;
    for (char *pair = strtok_r(buf, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(pair, '=');
        if (!eq || eq == pair || !eq[1])
            return wt_fail(e, "%s: '%s' is not key=value", flag, pair);
        *eq = '\0';
        int rc = fn(sp, pair, eq + 1, flag, e);
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

static int positive(const char *v, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x <= 0 || x > (1 << 24))
        return -1;
    *out = (int)x;
    return 0;
}

static int fix_pair(search_space *sp, const char *key, const char *value, const char *flag, wt_err *e)
{
    int *dims[] = {&sp->dp, &sp->tp, &sp->sp, &sp->pp, &sp->tatp};
    for (int d = 0; d < 5; d++)
        if (!strcasecmp(key, dim_keys[d]))
            return positive(value, dims[d]) ? wt_fail(e, "%s: %s=%s is not a positive whole number", flag, key, value)
                                            : WT_OK;
    if (!strcasecmp(key, "microbatch"))
        return positive(value, &sp->microbatch) ? wt_fail(e, "%s: microbatch=%s is not a positive whole number", flag, value)
                                                : WT_OK;
    if (!strcasecmp(key, "grid")) {
        int w, h;
        char *x = strpbrk(value, "xX");
        char left[32];
        if (!x || (size_t)(x - value) >= sizeof left)
            return wt_fail(e, "%s: grid=%s is not WxH", flag, value);
        memcpy(left, value, (size_t)(x - value));
        left[x - value] = '\0';
        if (positive(left, &w) || positive(x + 1, &h))
            return wt_fail(e, "%s: grid=%s is not WxH", flag, value);
        sp->grid_w = w;
        sp->grid_h = h;
        return WT_OK;
    }
    return wt_fail(e, "%s: unknown key '%s' (dp, tp, sp, pp, tatp, grid, microbatch)", flag, key);
}

int search_parse_fix(const char *text, search_space *sp, wt_err *e)
{
    return each_pair(text, "--fix", sp, fix_pair, e);
}

/* A memory-switch subset written "zero+act_int8" or "none". */
static int mem_subset(const char *word)
{
    if (!strcasecmp(word, "none"))
        return 0;
    char buf[64];
    if (strlen(word) >= sizeof buf)
        return -1;
    strcpy(buf, word);
    int set = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
        int i = choice_find(mem_switch_table(), w);
        if (i < 0)
            return -1;
        set |= 1 << i;
    }
    return set;
}

static int chunk_index(const char *word)
{
    double v = 0;
    char why[64];
    if (strcmp(word, "0") && qty_parse(word, QTY_BYTES, &v, why, sizeof why))
        return -1;
    for (int i = 0; i < SEARCH_NCHUNKS; i++)
        if (v == search_chunks[i])
            return i;
    return -1;
}

/* The memory-switch subsets --only takes, for its error. */
static const char *mem_choices(char *buf, size_t n)
{
    char list[128];
    snprintf(buf, n, "none, or %s joined by +", choice_join(mem_switch_table(), 0, "+", list, sizeof list));
    return buf;
}

/* The chunk sizes the search tries, "0|64KB|..." as --only takes them. */
static const char *chunk_choices(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < SEARCH_NCHUNKS && len + 1 < n; i++) {
        char q[32] = "0";
        if (search_chunks[i] > 0)
            qty_format(search_chunks[i], QTY_BYTES, q, sizeof q);
        char *sp = strchr(q, ' '); /* "64 KB" -> "64KB" */
        if (sp)
            memmove(sp, sp + 1, strlen(sp));
        snprintf(buf + len, n - len, "%s%s", i ? "|" : "", q);
        len = strlen(buf);
    }
    return buf;
}

/* A key of --only and the mask it sets: the rows of an option's table
 * flagged CHOICE_SEARCH, or (mem, chunk) its own words. */
typedef struct only_key {
    const char *name;
    choice_table (*table)(void);
    int (*index)(const char *word);                      /* without a table: the bit, or -1 */
    const char *(*choices)(char *buf, size_t n);         /* without a table: the words, for errors */
    size_t slot;                                         /* offset of the mask in search_space */
} only_key;

static const only_key only_keys[] = {
    {"placement", place_kind_table, NULL, NULL, offsetof(search_space, placements)},
    {"collective", coll_algo_table, NULL, NULL, offsetof(search_space, collectives)},
    {"checkpoint", recompute_table, NULL, NULL, offsetof(search_space, checkpoints)},
    {"mem", NULL, mem_subset, mem_choices, offsetof(search_space, mems)},
    {"chunk", NULL, chunk_index, chunk_choices, offsetof(search_space, chunks)},
    {"exec", exec_mode_table, NULL, NULL, offsetof(search_space, execs)},
};

/* The bit word stands for under key k, or -1 when the search has no such choice. */
static int only_index(const only_key *k, const char *word)
{
    if (!k->table)
        return k->index(word);
    int i = choice_find(k->table(), word);
    return i >= 0 && (choice_at(k->table(), i)->flags & CHOICE_SEARCH) ? i : -1;
}

static const char *only_choices(const only_key *k, char *buf, size_t n)
{
    return k->table ? choice_join(k->table(), CHOICE_SEARCH, "|", buf, n) : k->choices(buf, n);
}

static int only_pair(search_space *sp, const char *key, const char *value, const char *flag, wt_err *e)
{
    const only_key *k = NULL;
    for (size_t i = 0; i < sizeof only_keys / sizeof only_keys[0] && !k; i++)
        if (!strcasecmp(key, only_keys[i].name))
            k = &only_keys[i];
    if (!k) {
        char keys[96] = "";
        for (size_t i = 0; i < sizeof only_keys / sizeof only_keys[0]; i++)
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", i ? ", " : "", only_keys[i].name);
        return wt_fail(e, "%s: unknown key '%s' (%s)", flag, key, keys);
    }
    unsigned mask = 0;
    char buf[128];
    if (strlen(value) >= sizeof buf)
        return wt_fail(e, "%s: %s value too long", flag, key);
    strcpy(buf, value);
    char *save = NULL;
    for (char *w = strtok_r(buf, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
        int i = only_index(k, w);
        if (i < 0) {
            char list[160];
            return wt_fail(e, "%s: %s=%s is not a choice of the search (%s)", flag, key, w,
                           only_choices(k, list, sizeof list));
        }
        mask |= 1u << i;
    }
    *(unsigned *)((char *)sp + k->slot) = mask;
    return WT_OK;
}

int search_parse_only(const char *text, search_space *sp, wt_err *e)
{
    return each_pair(text, "--only", sp, only_pair, e);
}

/* The space's mask, or every row of the table the search tries. */
static unsigned mask_or_all(unsigned mask, choice_table t)
{
    return mask ? mask : choice_mask(t, CHOICE_SEARCH);
}

int search_variants(const search_space *sp, place_kind *pl, coll_algo *co, int max)
{
    unsigned pm = mask_or_all(sp->placements, place_kind_table()), cm = mask_or_all(sp->collectives, coll_algo_table());
    int n = 0;
    for (int p = 0; p < PLACE_NKINDS; p++)
        for (int c = 0; c < COLL_NALGOS; c++)
            if ((pm >> p & 1) && (cm >> c & 1) && n < max) {
                pl[n] = (place_kind)p;
                co[n++] = (coll_algo)c; /* below COLL_NALGOS: an index of search_core.bound */
            }
    return n;
}

void search_core_strategy(const search_core *c, place_kind pl, coll_algo co, strategy *s)
{
    strategy_defaults(s);
    s->dp = c->dims[0];
    s->tp = c->dims[1];
    s->sp = c->dims[2];
    s->pp = c->dims[3];
    s->tatp = c->dims[4];
    s->tatp_w = c->gw;
    s->tatp_h = c->gh;
    s->dp_given = s->grid_given = 1;
    s->checkpoint = (model_recompute)c->checkpoint;
    s->mem = c->mem;
    s->chunk = search_chunks[c->chunk];
    s->exec = (exec_mode)c->exec;
    s->tp_seqpar = c->seqpar;
    s->placement = pl;
    s->collective = co;
}

void search_core_model(const search_core *c, const model *m, model *out)
{
    *out = *m;
    out->microbatch = c->microbatch;
}

/* No int has more divisors (2,095,133,040 has these). */
#define WALK_MAX_DIVISORS 1600

/* The dimensions being filled, and where the cores go. */
typedef struct walk {
    const wafer *wf;
    const model *m;
    const search_space *sp;
    search_core *cores;
    size_t n, cap;
    int dims[5];
    int oom;
    enum { GRID_KEEP, GRID_LEFT_OUT, GRID_OTHERS } grid; /* the grid's cores: kept, counted in skipped, another shard's */
    long long at;              /* cores enumerated so far, every shard's */
    long long grids;           /* grids enumerated so far, every shard's */
    int shard, nshards;
    void (*progress)(void *ud, double done); /* the search's, or NULL */
    void *progress_ud;
    long long skipped;         /* cores of grids that cannot fit (search_cores) */
    search_core least;         /* the least footprint of those; valid = 0 when none */
    sim_result *scratch;       /* for their memory */
    unsigned char seqpar;      /* the 5-tuple's tp-seqpar */
    /* What each free dimension but DP (the last, what is left) may take,
     * ascending: TATP the divisors of the product walked (div), the others
     * the values the model allows them (allocated). */
    const int *vals[5];
    int nvals[5];
    int div[WALK_MAX_DIVISORS];
    /* reach[d][x], x up to the live units: 1 when the levels from the d-th
     * on can fill a product x (a node without it holds no 5-tuple) */
    unsigned char *reach[6];
} walk;

static void push_core(walk *w, const search_core *c)
{
    long long at = w->at++;
    if (w->grid != GRID_KEEP) {
        w->skipped += w->grid == GRID_LEFT_OUT;
        return;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 1024;
        search_core *grown = realloc(w->cores, cap * sizeof *grown);
        if (!grown) {
            w->oom = 1;
            return;
        }
        w->cores = grown;
        w->cap = cap;
    }
    w->cores[w->n] = *c;
    w->cores[w->n++].at = at;
}

/* The model's own constraints on dimension dim = v (strategy_resolve
 * refuses the rest): a free dimension only ever takes values that meet
 * them (model_values), a fixed one is checked. */
static int dim_valid(const model *m, int dim, int v)
{
    switch (dim) {
    case 0: return m->batch % v == 0;
    case 1: return m->heads % v == 0 && m->kv_heads % v == 0 && m->ffn % v == 0;
    case 2: return m->seq % v == 0; /* with TP not dividing seq / SP, tp-seqpar is off */
    case 3: return v <= m->layers;
    default: return 1;
    }
}

/* The option masks of a 5-tuple. */
typedef struct masks {
    unsigned x, c, m, k;       /* exec, checkpoint, memory switches, chunk */
} masks;

/* Every micro-batch and option set of one 5-tuple on grid gw x gh. */
static void expand_grid(walk *w, int gw, int gh, const masks *o)
{
    for (int b = 1; w->m->batch % (w->dims[0] * b) == 0; b *= 2) {
        if (w->sp->microbatch && b != w->sp->microbatch)
            continue;
        for (int x = 0; x < EXEC_NKINDS; x++)
            for (int c = 0; c < RECOMPUTE_NKINDS; c++)
                for (int me = 0; me < SEARCH_NMEMS; me++)
                    for (int k = 0; k < SEARCH_NCHUNKS; k++) {
                        if (!(o->x >> x & 1) || !(o->c >> c & 1) || !(o->m >> me & 1) || !(o->k >> k & 1) ||
                            (x == EXEC_STREAM && (me & MEM_ZERO)))
                            continue;
                        search_core core = {.gw = (short)gw, .gh = (short)gh, .microbatch = b};
                        memcpy(core.dims, w->dims, sizeof core.dims);
                        core.checkpoint = (unsigned char)c;
                        core.mem = (unsigned char)me;
                        core.chunk = (unsigned char)k;
                        core.exec = (unsigned char)x;
                        core.seqpar = w->seqpar;
                        push_core(w, &core);
                    }
    }
}

/*
 * The least memory any core of the 5-tuple on grid gw x gh can need, or 0
 * when the space lacks what tells it. As level 1's groups (search.c): int8
 * activations and fp8 gradients only lower memory and the smallest chunk
 * gives the smallest buffers; and a larger micro-batch never needs less
 * (activations and buffers grow with it). So the least over exec mode,
 * checkpointing and zero of the lean switches, the smallest chunk and the
 * smallest micro-batch is it. *at gets that core.
 */
static double grid_least(walk *w, int gw, int gh, const masks *o, search_core *at)
{
    int small = 1, b = 1; /* the smallest chunk (0 = unchunked last) and micro-batch */
    while (small < SEARCH_NCHUNKS && !(o->k >> small & 1))
        small++;
    if (small == SEARCH_NCHUNKS)
        small = 0;
    while (w->sp->microbatch && b < w->sp->microbatch)
        b *= 2;
    double least = INFINITY;
    for (int x = 0; x < EXEC_NKINDS; x++)
        for (int c = 0; c < RECOMPUTE_NKINDS; c++)
            for (int zero = 0; zero <= MEM_ZERO; zero += MEM_ZERO) {
                int lean = zero | MEM_ACT_INT8 | MEM_GRAD_FP8;
                unsigned with = 0; /* the subsets with this zero bit the space holds */
                for (int me = 0; me < SEARCH_NMEMS; me++)
                    with |= (unsigned)((me & MEM_ZERO) == zero) << me;
                if (!(o->x >> x & 1) || !(o->c >> c & 1) || (x == EXEC_STREAM && zero) || !(o->m & with))
                    continue;
                if (!(o->m >> lean & 1))
                    return 0; /* a subset without its lean sibling */
                search_core core = {.gw = (short)gw, .gh = (short)gh, .microbatch = b, .checkpoint = (unsigned char)c,
                                    .mem = (unsigned char)lean, .chunk = (unsigned char)small,
                                    .exec = (unsigned char)x,
                                    .seqpar = w->seqpar, .valid = 1};
                memcpy(core.dims, w->dims, sizeof core.dims);
                strategy s;
                model m;
                search_core_strategy(&core, PLACE_TILES, COLL_RING, &s);
                search_core_model(&core, w->m, &m);
                if (sim_spec(w->scratch, w->wf, &m, &s, NULL) != WT_OK)
                    return 0;
                if (w->scratch->mem.total < least) {
                    least = w->scratch->mem.total;
                    core.memory = least;
                    *at = core;
                }
            }
    return least == INFINITY ? 0 : least;
}

/* Every grid, micro-batch and option set of one 5-tuple. A grid none of
 * whose cores can fit is counted, not kept, and the least of those
 * footprints is kept for the error when nothing fits: on wse2 all but a few
 * thousand of 6 million cores (and with idle units allowed the 5-tuples are
 * every product up to the live units, about 40,000, each times 96 option
 * sets and its micro-batches). */
static void expand_dims(walk *w)
{
    const search_space *sp = w->sp;
    int tatp = w->dims[4];
    masks o = {mask_or_all(sp->execs, exec_mode_table()), mask_or_all(sp->checkpoints, recompute_table()),
               sp->mems ? sp->mems : ~0u, sp->chunks ? sp->chunks : ~0u};
    /* streaming needs a store and one stage, and keeps nothing for zero to shard */
    if (!w->wf->store_ports || w->dims[3] > 1)
        o.x &= ~(1u << EXEC_STREAM);
    w->seqpar = (unsigned char)strategy_seqpar_fits(w->m, w->dims[1], w->dims[2]);
    /* a grid wider than the mesh cannot be: TATP runs to hundreds of
     * thousands on a wafer, the mesh's width to hundreds */
    for (int gw = 1; gw <= tatp && gw <= w->wf->w; gw++) {
        int gh = tatp / gw;
        if (tatp % gw || gh > w->wf->h || (sp->grid_w && (gw != sp->grid_w || gh != sp->grid_h)))
            continue;
        /* a shard's grids: round robin, so that each has large and small ones */
        w->grid = w->grids++ % w->nshards == w->shard ? GRID_KEEP : GRID_OTHERS;
        if (w->progress && w->grids % 256 == 0) /* alive, not yet at level 1 */
            w->progress(w->progress_ud, 0);
        if (w->grid == GRID_KEEP) {
            search_core at;
            double least = grid_least(w, gw, gh, &o, &at);
            at.at = w->at; /* where the grid's cores start */
            w->grid = least > wafer_unit_capacity(w->wf) ? GRID_LEFT_OUT : GRID_KEEP;
            if (w->grid == GRID_LEFT_OUT && (!w->least.valid || least < w->least.memory))
                w->least = at;
        }
        expand_grid(w, gw, gh, &o);
        w->grid = GRID_KEEP;
    }
}

/* Tries value v for dimension dim (the d-th chosen) with `left` to fill. */
static void try_dim(walk *w, int d, int dim, int v, int left);

/* The order the dimensions are chosen in: TATP, TP, SP, PP, DP. */
static const int walk_order[5] = {4, 1, 2, 3, 0};

/* The value --fix gives dimension dim, or 0. */
static int dim_fixed(const search_space *sp, int dim)
{
    const int v[5] = {sp->dp, sp->tp, sp->sp, sp->pp, sp->tatp};
    return v[dim];
}

/* reach for level d (walk) from the next level's: x is reachable when a
 * value v the d-th dimension may take (its fixed one, or any the model
 * allows) divides it and the next levels can fill x / v. Allocated, NULL
 * when out of memory. */
static unsigned char *reach_level(const walk *w, int d, const unsigned char *after, int live)
{
    unsigned char *r = calloc((size_t)live + 1, 1);
    int dim = walk_order[d], fixed = dim_fixed(w->sp, dim);
    for (int v = 1; r && v <= live; v++)
        if ((!fixed || v == fixed) && dim_valid(w->m, dim, v))
            for (int y = 1; y <= live / v; y++)
                r[v * y] |= after[y];
    return r;
}

/* Chooses dimension d (TATP first, DP last) among the values it may take
 * (w->vals) that divide what is left of the product, in increasing order,
 * so that no level walks every number up to the product. A fixed
 * dimension tries its value only, the last one what is left. */
static void walk_dims(walk *w, int d, int left)
{
    if (!w->reach[d][left])
        return;
    if (d == 5) {
        expand_dims(w);
        return;
    }
    int dim = walk_order[d], fixed = dim_fixed(w->sp, dim);
    if (fixed || d == 4) {
        int v = fixed ? fixed : left;
        if (left % v == 0 && dim_valid(w->m, dim, v))
            try_dim(w, d, dim, v, left);
        return;
    }
    for (int i = 0; i < w->nvals[dim] && w->vals[dim][i] <= left && !w->oom; i++)
        if (left % w->vals[dim][i] == 0)
            try_dim(w, d, dim, w->vals[dim][i], left);
}

static void try_dim(walk *w, int d, int dim, int v, int left)
{
    w->dims[dim] = v;
    walk_dims(w, d + 1, left / v);
}

/* The values the model allows dimension dim (TP, SP or PP), ascending
 * (allocated, NULL when out of memory); *n gets the count. */
static int *model_values(const model *m, int dim, int *n)
{
    const int most[4] = {0, m->heads, m->seq, m->layers};
    int *v = malloc((size_t)most[dim] * sizeof *v);
    *n = 0;
    for (int x = 1; v && x <= most[dim]; x++)
        if (dim_valid(m, dim, x))
            v[(*n)++] = x;
    return v;
}

/* Each number's least prime factor up to n (lpf[0] and lpf[1] 0):
 * allocated, NULL when out of memory. */
static int *least_prime_factors(int n)
{
    int *lpf = calloc((size_t)n + 1, sizeof *lpf);
    for (int i = 2; lpf && i <= n; i++)
        if (!lpf[i]) /* a prime: the least factor of its multiples not marked yet */
            for (long long j = i; j <= n; j += i)
                if (!lpf[j])
                    lpf[j] = i;
    return lpf;
}

/* The divisors of n > 0 into div, ascending, from its prime factors (lpf,
 * least_prime_factors): with idle units allowed every product up to the
 * live units is walked, and trial division of each would cost their
 * square roots. Returns the count. */
static int divisors(int n, const int *lpf, int *div)
{
    int k = 1;
    div[0] = 1;
    while (n > 1) {
        int p = lpf[n], had = k;
        for (long long pk = p; n % p == 0; n /= p, pk *= p)
            for (int i = 0; i < had; i++)
                div[k++] = (int)(div[i] * pk);
    }
    for (int i = 1; i < k; i++) /* insertion: a few dozen, and nearly in order */
        for (int j = i; j > 0 && div[j - 1] > div[j]; j--) {
            int t = div[j];
            div[j] = div[j - 1];
            div[j - 1] = t;
        }
    return k;
}

int search_cores(const wafer *wf, const model *m, const search_space *sp, const search_opts *o,
                 search_cores_out *out, wt_err *e)
{
    int sharded = o && o->nshards > 1;
    walk w = {.wf = wf, .m = m, .sp = sp, .scratch = calloc(1, sizeof(sim_result)),
              .shard = sharded ? o->shard : 0, .nshards = sharded ? o->nshards : 1,
              .progress = o ? o->progress : NULL, .progress_ud = o ? o->progress_ud : NULL};
    int live = wafer_live_units(wf);
    w.oom = !w.scratch;
    int *lpf = sp->tatp ? NULL : least_prime_factors(live), *allowed[5] = {NULL};
    w.oom |= !sp->tatp && !lpf;
    for (int dim = 1; dim < 4; dim++) /* TP, SP, PP */
        w.oom |= !(w.vals[dim] = allowed[dim] = model_values(m, dim, &w.nvals[dim]));
    w.vals[4] = w.div;
    w.oom |= !(w.reach[5] = calloc((size_t)live + 1, 1));
    if (!w.oom)
        w.reach[5][1] = 1; /* the product filled */
    for (int d = 4; d >= 0 && !w.oom; d--)
        w.oom |= !(w.reach[d] = reach_level(&w, d, w.reach[d + 1], live));
    for (int units = sp->allow_idle ? 1 : live; units <= live && !w.oom; units++) {
        if (!w.reach[0][units])
            continue;
        w.nvals[4] = sp->tatp ? 0 : divisors(units, lpf, w.div);
        walk_dims(&w, 0, units);
    }
    for (int d = 0; d < 6; d++)
        free(w.reach[d]);
    free(lpf);
    for (int dim = 1; dim < 4; dim++)
        free(allowed[dim]);
    free(w.scratch);
    if (w.oom) {
        free(w.cores);
        return wt_oom(e, "search candidates");
    }
    *out = (search_cores_out){w.cores, w.n, w.at, w.skipped, w.least};
    return WT_OK;
}
