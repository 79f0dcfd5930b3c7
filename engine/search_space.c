/*
 * search_space.c - the candidates of the search: --fix and --only, and the
 * enumeration of cores (everything but placement and collective).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qty.h"
#include "search_int.h"

const double search_chunks[SEARCH_NCHUNKS] = {0, 64e3, 256e3, 1e6};

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

/* Index of word in names (case-insensitive), or -1. */
static int word_index(const char *const *names, int n, const char *word)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(names[i], word))
            return i;
    return -1;
}

/* A memory-switch subset written "zero+act_int8" or "none". */
static int mem_subset(const char *word)
{
    if (!strcasecmp(word, "none"))
        return 0;
    static const char *const names[] = {"zero", "act_int8", "grad_fp8"};
    char buf[64];
    if (strlen(word) >= sizeof buf)
        return -1;
    strcpy(buf, word);
    int set = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
        int i = word_index(names, 3, w);
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

static int only_pair(search_space *sp, const char *key, const char *value, const char *flag, wt_err *e)
{
    static const char *const places[] = {"linear", "snake", "tiles"};
    static const char *const colls[] = {"ring", "bidir", "2d", "hier"};
    static const char *const ckpts[] = {"none", "selective", "full"};
    unsigned mask = 0;
    char buf[128];
    if (strlen(value) >= sizeof buf)
        return wt_fail(e, "%s: %s value too long", flag, key);
    strcpy(buf, value);
    char *save = NULL;
    for (char *w = strtok_r(buf, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
        int i;
        if (!strcasecmp(key, "placement"))
            i = word_index(places, 3, w);
        else if (!strcasecmp(key, "collective"))
            i = word_index(colls, 4, w);
        else if (!strcasecmp(key, "checkpoint"))
            i = word_index(ckpts, 3, w);
        else if (!strcasecmp(key, "mem"))
            i = mem_subset(w);
        else if (!strcasecmp(key, "chunk"))
            i = chunk_index(w);
        else
            return wt_fail(e, "%s: unknown key '%s' (placement, collective, checkpoint, mem, chunk)", flag, key);
        if (i < 0)
            return wt_fail(e, "%s: %s=%s is not a choice of the search (%s)", flag, key, w,
                           !strcasecmp(key, "placement")    ? "linear|snake|tiles"
                           : !strcasecmp(key, "collective") ? "ring|bidir|2d|hier"
                           : !strcasecmp(key, "checkpoint") ? "none|selective|full"
                           : !strcasecmp(key, "mem")        ? "none, or zero+act_int8+grad_fp8 joined by +"
                                                            : "0|64KB|256KB|1MB");
        mask |= 1u << i;
    }
    unsigned *slot = !strcasecmp(key, "placement")    ? &sp->placements
                     : !strcasecmp(key, "collective") ? &sp->collectives
                     : !strcasecmp(key, "checkpoint") ? &sp->checkpoints
                     : !strcasecmp(key, "mem")        ? &sp->mems
                                                      : &sp->chunks;
    *slot = mask;
    return WT_OK;
}

int search_parse_only(const char *text, search_space *sp, wt_err *e)
{
    return each_pair(text, "--only", sp, only_pair, e);
}

static unsigned mask_or_all(unsigned mask, int n)
{
    return mask ? mask : (1u << n) - 1;
}

int search_variants(const search_space *sp, place_kind *pl, coll_algo *co, int max)
{
    unsigned pm = mask_or_all(sp->placements, 3), cm = mask_or_all(sp->collectives, 4);
    int n = 0;
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 4; c++)
            if ((pm >> p & 1) && (cm >> c & 1) && n < max) {
                pl[n] = (place_kind)p;
                co[n++] = (coll_algo)c;
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
    s->placement = pl;
    s->collective = co;
}

void search_core_model(const search_core *c, const model *m, model *out)
{
    *out = *m;
    out->microbatch = c->microbatch;
}

/* The dimensions being filled, and where the cores go. */
typedef struct walk {
    const wafer *wf;
    const model *m;
    const search_space *sp;
    search_core *cores;
    size_t n, cap;
    int dims[5];
    int oom;
} walk;

static void push_core(walk *w, const search_core *c)
{
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

/* The model's own constraints on the dimensions (strategy_resolve refuses
 * the rest), checked before any option multiplies them. */
static int dims_valid(const model *m, const int d[5])
{
    int dp = d[0], tp = d[1], sp = d[2], pp = d[3];
    return m->heads % tp == 0 && m->kv_heads % tp == 0 && m->ffn % tp == 0 && m->seq % sp == 0 &&
           (m->seq / sp) % tp == 0 && pp <= m->layers && m->batch % dp == 0;
}

/* Every grid, micro-batch and option set of one 5-tuple. */
static void expand_dims(walk *w)
{
    const search_space *sp = w->sp;
    const model *m = w->m;
    int tatp = w->dims[4];
    unsigned cm = mask_or_all(sp->checkpoints, 3), mm = mask_or_all(sp->mems, SEARCH_NMEMS),
             km = mask_or_all(sp->chunks, SEARCH_NCHUNKS);
    for (int gw = 1; gw <= tatp; gw++) {
        int gh = tatp / gw;
        if (tatp % gw || gw > w->wf->w || gh > w->wf->h || (sp->grid_w && (gw != sp->grid_w || gh != sp->grid_h)))
            continue;
        for (int b = 1; m->batch % (w->dims[0] * b) == 0; b *= 2) {
            if (sp->microbatch && b != sp->microbatch)
                continue;
            for (int c = 0; c < 3; c++)
                for (int me = 0; me < SEARCH_NMEMS; me++)
                    for (int k = 0; k < SEARCH_NCHUNKS; k++) {
                        if (!(cm >> c & 1) || !(mm >> me & 1) || !(km >> k & 1))
                            continue;
                        search_core core = {.gw = (short)gw, .gh = (short)gh, .microbatch = b};
                        memcpy(core.dims, w->dims, sizeof core.dims);
                        core.checkpoint = (unsigned char)c;
                        core.mem = (unsigned char)me;
                        core.chunk = (unsigned char)k;
                        push_core(w, &core);
                    }
        }
    }
}

/* Chooses dimension d (TATP first, DP last) among the divisors of what is
 * left of the product. */
static void walk_dims(walk *w, int d, int left)
{
    static const int order[5] = {4, 1, 2, 3, 0}; /* TATP, TP, SP, PP, DP */
    const int *fixed[] = {&w->sp->dp, &w->sp->tp, &w->sp->sp, &w->sp->pp, &w->sp->tatp};
    if (d == 5) {
        if (left == 1 && dims_valid(w->m, w->dims))
            expand_dims(w);
        return;
    }
    int dim = order[d];
    for (int v = 1; v <= left && !w->oom; v++) {
        if (left % v || (*fixed[dim] && v != *fixed[dim]))
            continue;
        w->dims[dim] = v;
        walk_dims(w, d + 1, left / v);
    }
}

int search_cores(const wafer *wf, const model *m, const search_space *sp, search_core **out, size_t *n, wt_err *e)
{
    walk w = {.wf = wf, .m = m, .sp = sp};
    int live = wafer_live_units(wf);
    for (int units = sp->allow_idle ? 1 : live; units <= live && !w.oom; units++)
        walk_dims(&w, 0, units);
    if (w.oom) {
        free(w.cores);
        return wt_oom(e, "search candidates");
    }
    *out = w.cores;
    *n = w.n;
    return WT_OK;
}
