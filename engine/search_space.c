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
    int counting;              /* push_core counts into skipped instead of keeping */
    long long skipped;         /* cores of grids that cannot fit (search_cores) */
    search_core least;         /* the least footprint of those; valid = 0 when none */
    sim_result *scratch;       /* for their memory */
    int div[WALK_MAX_DIVISORS];/* the divisors of the product walked, ascending */
    int ndiv;
} walk;

static void push_core(walk *w, const search_core *c)
{
    if (w->counting) {
        w->skipped++;
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
    w->cores[w->n++] = *c;
}

/* The model's own constraints on dimension dim = v (strategy_resolve
 * refuses the rest), checked as each is chosen so that no product is
 * walked past a value that cannot be. */
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

/* The largest value dimension dim may take with `left` to fill. */
static int dim_cap(const model *m, int dim, int left)
{
    const int cap[5] = {m->batch, m->heads, m->seq, m->layers, left};
    return cap[dim] < left ? cap[dim] : left;
}

/* tp-seqpar for a 5-tuple: on where TP divides the sequence shard (it
 * shards the activations), off where it cannot be on. */
static unsigned char core_seqpar(const model *m, const int dims[5])
{
    return (unsigned char)((m->seq / dims[2]) % dims[1] == 0);
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
                        core.seqpar = core_seqpar(w->m, w->dims);
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
                                    .exec = (unsigned char)x, .seqpar = core_seqpar(w->m, w->dims), .valid = 1};
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

/* Every grid, micro-batch and option set of one 5-tuple. With idle units
 * allowed the 5-tuples are every product up to the live units (about 40,000
 * on wse2, each times 96 option sets and its micro-batches): a grid none of
 * whose cores can fit is counted, not kept, and the least of those
 * footprints is kept for the error when nothing fits. */
static void expand_dims(walk *w)
{
    const search_space *sp = w->sp;
    int tatp = w->dims[4];
    masks o = {mask_or_all(sp->execs, exec_mode_table()), mask_or_all(sp->checkpoints, recompute_table()),
               sp->mems ? sp->mems : ~0u, sp->chunks ? sp->chunks : ~0u};
    /* streaming needs a store and one stage, and keeps nothing for zero to shard */
    if (!w->wf->store_ports || w->dims[3] > 1)
        o.x &= ~(1u << EXEC_STREAM);
    /* a grid wider than the mesh cannot be: TATP runs to hundreds of
     * thousands on a wafer, the mesh's width to hundreds */
    for (int gw = 1; gw <= tatp && gw <= w->wf->w; gw++) {
        int gh = tatp / gw;
        if (tatp % gw || gh > w->wf->h || (sp->grid_w && (gw != sp->grid_w || gh != sp->grid_h)))
            continue;
        search_core at;
        double least = sp->allow_idle ? grid_least(w, gw, gh, &o, &at) : 0;
        w->counting = least > wafer_unit_capacity(w->wf);
        if (w->counting && (!w->least.valid || least < w->least.memory))
            w->least = at;
        expand_grid(w, gw, gh, &o);
        w->counting = 0;
    }
}

/* Tries value v for dimension dim (the d-th chosen) with `left` to fill. */
static void try_dim(walk *w, int d, int dim, int v, int left);

/* Chooses dimension d (TATP first, DP last) among the divisors of what is
 * left of the product, in increasing order: those of the product's own
 * (w->div) that divide it, so that no level walks its values one by one,
 * and none above what the model allows it (dim_cap). A fixed dimension
 * tries its value only, the last one what is left. */
static void walk_dims(walk *w, int d, int left)
{
    static const int order[5] = {4, 1, 2, 3, 0}; /* TATP, TP, SP, PP, DP */
    const int *fixed[] = {&w->sp->dp, &w->sp->tp, &w->sp->sp, &w->sp->pp, &w->sp->tatp};
    if (d == 5) {
        if (left == 1)
            expand_dims(w);
        return;
    }
    int dim = order[d];
    if (*fixed[dim] || d == 4) {
        int v = *fixed[dim] ? *fixed[dim] : left;
        if (left % v == 0 && dim_valid(w->m, dim, v))
            try_dim(w, d, dim, v, left);
        return;
    }
    int cap = dim_cap(w->m, dim, left);
    for (int i = 0; i < w->ndiv && w->div[i] <= cap && !w->oom; i++)
        if (left % w->div[i] == 0 && dim_valid(w->m, dim, w->div[i]))
            try_dim(w, d, dim, w->div[i], left);
}

static void try_dim(walk *w, int d, int dim, int v, int left)
{
    w->dims[dim] = v;
    walk_dims(w, d + 1, left / v);
}

/* The divisors of n > 0 into div, ascending: those up to its square root,
 * then their cofactors. Returns the count. */
static int divisors(int n, int *div)
{
    int k = 0, root = 0;
    for (int v = 1; (long long)v * v <= n; v++)
        if (n % v == 0)
            div[k++] = root = v;
    for (int i = k - 1 - ((long long)root * root == n); i >= 0; i--)
        div[k++] = n / div[i];
    return k;
}

int search_cores(const wafer *wf, const model *m, const search_space *sp, search_cores_out *out, wt_err *e)
{
    walk w = {.wf = wf, .m = m, .sp = sp, .scratch = calloc(1, sizeof(sim_result))};
    int live = wafer_live_units(wf);
    w.oom = !w.scratch;
    int any_free = !sp->tatp || !sp->tp || !sp->sp || !sp->pp; /* DP is what is left */
    for (int units = sp->allow_idle ? 1 : live; units <= live && !w.oom; units++) {
        w.ndiv = any_free ? divisors(units, w.div) : 0;
        walk_dims(&w, 0, units);
    }
    free(w.scratch);
    if (w.oom) {
        free(w.cores);
        return wt_oom(e, "search candidates");
    }
    *out = (search_cores_out){w.cores, w.n, w.skipped, w.least};
    return WT_OK;
}
