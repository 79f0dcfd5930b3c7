#include "place.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* How much each dimension's traffic weighs when tiles are chosen: TP and SP
 * talk every layer, DP once a step, PP only to the next stage. */
static const double tile_weight[NDIM] = {0, 8, 4, 1, 2};

int place_rank_of(const plan *p, const int idx[NDIM])
{
    int r = 0;
    for (int d = NDIM - 1; d >= 0; d--)
        r = r * p->size[d] + idx[d];
    return r;
}

void place_index_of(const plan *p, int rank, int idx[NDIM])
{
    for (int d = 0; d < NDIM; d++) {
        idx[d] = rank % p->size[d];
        rank /= p->size[d];
    }
}

void place_tile_pos(const plan *p, int dim, int i, int *ix, int *iy)
{
    int w = p->tw[dim];
    *iy = i / w;
    *ix = i % w;
    if (dim == DIM_PP && (*iy & 1))
        *ix = w - 1 - *ix;
}

/* A candidate tiling: extents per dimension and its cost. */
typedef struct tiling {
    int tw[NDIM], th[NDIM];
    double cost;
} tiling;

typedef struct tiling_search {
    const int *size;
    int max_w, max_h;
    tiling cur;
    tiling *found;
    int nfound, cap;
    int oom;
} tiling_search;

static double tiling_cost(const tiling *t)
{
    double cost = 0, sx = 1, sy = 1;
    for (int d = 0; d < NDIM; d++) {
        cost += tile_weight[d] * ((t->tw[d] - 1) * sx + (t->th[d] - 1) * sy);
        sx *= t->tw[d];
        sy *= t->th[d];
    }
    return cost;
}

/* Enumerates the divisor pairs of dimensions d.. that keep the box within the mesh. */
static void tiling_enumerate(tiling_search *ts, int d, long bw, long bh)
{
    if (ts->oom)
        return;
    if (d == NDIM) {
        if (ts->nfound == ts->cap) {
            int cap = ts->cap ? ts->cap * 2 : 16;
            tiling *grown = realloc(ts->found, (size_t)cap * sizeof *grown);
            if (!grown) {
                ts->oom = 1;
                return;
            }
            ts->found = grown;
            ts->cap = cap;
        }
        ts->cur.cost = tiling_cost(&ts->cur);
        ts->found[ts->nfound++] = ts->cur;
        return;
    }
    if (d == DIM_TATP) { /* fixed by the strategy */
        if (bw * ts->cur.tw[d] <= ts->max_w && bh * ts->cur.th[d] <= ts->max_h)
            tiling_enumerate(ts, d + 1, bw * ts->cur.tw[d], bh * ts->cur.th[d]);
        return;
    }
    int n = ts->size[d];
    for (int w = 1; w <= n; w++) {
        if (n % w || bw * w > ts->max_w || bh * (n / w) > ts->max_h)
            continue;
        ts->cur.tw[d] = w;
        ts->cur.th[d] = n / w;
        tiling_enumerate(ts, d + 1, bw * w, bh * (n / w));
    }
}

static int tiling_cmp(const void *a, const void *b)
{
    double ca = ((const tiling *)a)->cost, cb = ((const tiling *)b)->cost;
    return (ca > cb) - (ca < cb);
}

static int box_has_dead(const wafer *wf, const int *dead, int ndead, int ox, int oy, int bw, int bh)
{
    for (int i = 0; i < ndead; i++) {
        int x = wafer_x(wf, dead[i]) - ox, y = wafer_y(wf, dead[i]) - oy;
        if (x >= 0 && y >= 0 && x < bw && y < bh)
            return 1;
    }
    return 0;
}

/* Fills unit[] for a tiling whose box starts at (ox, oy): ranks are counted
 * like an odometer over the dimensions' indices, so each rank costs O(1). */
static int tiles_units(plan *p, const wafer *wf, wt_err *e)
{
    int total = 0, base[NDIM];
    for (int d = 0; d < NDIM; d++) {
        base[d] = total;
        total += p->size[d];
    }
    /* x then y offset per (d, index), then the unit offsets of the first
     * dimension's members from its first */
    int *off = malloc(sizeof *off * (2 * (size_t)total + (size_t)p->size[0]));
    if (!off)
        return wt_oom(e, "placement");
    int sx = 1, sy = 1;
    for (int d = 0; d < NDIM; d++) {
        for (int i = 0; i < p->size[d]; i++) {
            int ix, iy;
            place_tile_pos(p, d, i, &ix, &iy);
            off[2 * (base[d] + i)] = ix * sx;
            off[2 * (base[d] + i) + 1] = iy * sy;
        }
        sx *= p->tw[d];
        sy *= p->th[d];
    }
    /* The first dimension's members lie at the same unit offsets from its
     * first member in every run of them: the odometer turns the others. */
    int n0 = p->size[0], *du = off + 2 * total;
    for (int i = 0; i < n0; i++)
        du[i] = wafer_unit(wf, off[2 * i] - off[0], off[2 * i + 1] - off[1]);
    int idx[NDIM] = {0}, x = p->ox, y = p->oy;
    for (int r = 0; r < p->nranks; r += n0) {
        int u0 = wafer_unit(wf, x, y);
        for (int i = 0; i < n0; i++)
            p->unit[r + i] = u0 + du[i];
        for (int d = 1; d < NDIM; d++) {
            const int *o = off + 2 * (base[d] + idx[d]);
            x -= o[0];
            y -= o[1];
            idx[d] = idx[d] + 1 < p->size[d] ? idx[d] + 1 : 0;
            o = off + 2 * (base[d] + idx[d]);
            x += o[0];
            y += o[1];
            if (idx[d])
                break;
        }
    }
    free(off);
    return WT_OK;
}

static int place_tiles(plan *p, const wafer *wf, const strategy *s, wt_err *e)
{
    tiling_search ts = {.size = p->size, .max_w = wf->w, .max_h = wf->h};
    ts.cur.tw[DIM_TATP] = s->tatp_w;
    ts.cur.th[DIM_TATP] = s->tatp_h;
    tiling_enumerate(&ts, 0, 1, 1);
    if (ts.oom) {
        free(ts.found);
        return wt_oom(e, "tilings");
    }
    char name[64];
    strategy_format(s, name, sizeof name);
    if (!ts.nfound) {
        free(ts.found);
        return wt_fail(e, "tiles placement cannot arrange %s as rectangles on the %dx%d mesh; "
                          "try --placement snake", name, wf->w, wf->h);
    }
    qsort(ts.found, (size_t)ts.nfound, sizeof *ts.found, tiling_cmp);
    int ndead = 0, *dead = malloc(sizeof *dead * (wafer_nunits(wf) ? wafer_nunits(wf) : 1));
    if (!dead) {
        free(ts.found);
        return wt_oom(e, "dead units");
    }
    for (size_t u = 0; u < wafer_nunits(wf); u++)
        if (wf->unit_dead[u])
            dead[ndead++] = (int)u;
    int placed = 0;
    for (int t = 0; t < ts.nfound && !placed; t++) {
        int bw = 1, bh = 1;
        for (int d = 0; d < NDIM; d++) {
            bw *= ts.found[t].tw[d];
            bh *= ts.found[t].th[d];
        }
        for (int oy = 0; oy + bh <= wf->h && !placed; oy++) {
            for (int ox = 0; ox + bw <= wf->w && !placed; ox++) {
                if (box_has_dead(wf, dead, ndead, ox, oy, bw, bh))
                    continue;
                memcpy(p->tw, ts.found[t].tw, sizeof p->tw);
                memcpy(p->th, ts.found[t].th, sizeof p->th);
                p->ox = ox;
                p->oy = oy;
                placed = 1;
            }
        }
    }
    free(dead);
    free(ts.found);
    if (!placed)
        return wt_fail(e, "tiles placement: every arrangement of %s on the %dx%d mesh covers a dead unit; "
                          "try --placement snake", name, wf->w, wf->h);
    p->tiled = 1;
    return tiles_units(p, wf, e);
}

/* Rank r goes to the r-th live unit in row-major (or boustrophedon) order. */
static void place_sequential(plan *p, const wafer *wf, int snake)
{
    int r = 0;
    for (int y = 0; y < wf->h && r < p->nranks; y++) {
        for (int i = 0; i < wf->w && r < p->nranks; i++) {
            int x = (snake && (y & 1)) ? wf->w - 1 - i : i;
            int u = wafer_unit(wf, x, y);
            if (!wf->unit_dead[u])
                p->unit[r++] = u;
        }
    }
}

static int place_linear(plan *p, const wafer *wf, const strategy *s, wt_err *e)
{
    (void)s, (void)e;
    place_sequential(p, wf, 0);
    return WT_OK;
}

static int place_snake(plan *p, const wafer *wf, const strategy *s, wt_err *e)
{
    (void)s, (void)e;
    place_sequential(p, wf, 1);
    return WT_OK;
}

/* A placement: fills p->unit (allocated, nranks entries) and, for tiles,
 * p->tiled and the tile extents. */
typedef struct place_row {
    choice c;
    int (*place)(plan *p, const wafer *wf, const strategy *s, wt_err *e);
} place_row;

static const place_row placements[] = {
    [PLACE_LINEAR] = {{"linear", CHOICE_SEARCH}, place_linear},
    [PLACE_SNAKE] = {{"snake", CHOICE_SEARCH}, place_snake},
    [PLACE_TILES] = {{"tiles", CHOICE_SEARCH}, place_tiles},
};
_Static_assert(sizeof placements / sizeof placements[0] == PLACE_NKINDS, "one row per place_kind");

choice_table place_kind_table(void)
{
    return CHOICE_TABLE(placements);
}

const char *place_kind_name(place_kind k)
{
    return choice_at(place_kind_table(), k)->name;
}

int place_plan(plan *p, const wafer *wf, const strategy *s, wt_err *e)
{
    memset(p, 0, sizeof *p);
    p->size[DIM_TATP] = s->tatp;
    p->size[DIM_TP] = s->tp;
    p->size[DIM_SP] = s->sp;
    p->size[DIM_PP] = s->pp;
    p->size[DIM_DP] = s->dp;
    p->tatp_w = s->tatp_w;
    p->tatp_h = s->tatp_h;
    p->nranks = strategy_units(s);
    for (int d = 0; d < NDIM; d++)
        p->tw[d] = p->size[d], p->th[d] = 1;
    p->tw[DIM_TATP] = s->tatp_w;
    p->th[DIM_TATP] = s->tatp_h;
    if (p->nranks > wafer_live_units(wf))
        return wt_fail(e, "%d ranks do not fit %d live units", p->nranks, wafer_live_units(wf));
    p->unit = malloc(sizeof *p->unit * (size_t)p->nranks);
    p->rank = malloc(sizeof *p->rank * wafer_nunits(wf));
    if (!p->unit || !p->rank) {
        place_free(p);
        return wt_oom(e, "placement");
    }
    assert(s->placement >= 0 && s->placement < PLACE_NKINDS);
    int rc = placements[s->placement].place(p, wf, s, e);
    if (rc != WT_OK) {
        place_free(p);
        return rc;
    }
    for (size_t u = 0; u < wafer_nunits(wf); u++)
        p->rank[u] = -1;
    for (int r = 0; r < p->nranks; r++)
        p->rank[p->unit[r]] = r;
    return WT_OK;
}

void place_free(plan *p)
{
    free(p->unit);
    free(p->rank);
    p->unit = p->rank = NULL;
}
