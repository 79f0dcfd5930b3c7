/*
 * route.c - flows to link loads (contract in route.h).
 *
 * Every straight run of a path is a segment along one row (E or W links) or
 * one column (N or S links). A segment writes a start marker into the cell of
 * its first link and an end marker into the cell just past its last link;
 * one row-major pass then turns the markers into loads. W and N segments are
 * swept towards increasing x and y as well, so that one pass serves all four
 * directions: a W segment from x0 down to x1 covers the W links of units
 * x1+1 .. x0, so it starts at x1+1 and ends at x0+1 (no end marker when that
 * is past the mesh edge).
 *
 * Faults are read once, in route_ctx_new: a usable-direction mask per unit,
 * prefix counts of unusable links along rows and columns (an O(1) check of a
 * straight segment), and the buffers of the rule-3 breadth-first search.
 */
#include "route.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A running sum of bytes. A link's load is the difference of running sums
 * that can be far larger than the load itself, so the bytes carry a
 * compensation term (the rounding error of every addition) and n counts the
 * segments that are open: when n drops to zero the true sum is exactly zero
 * and the rounding residue is dropped, so a link no flow crosses reads 0.
 */
typedef struct route_acc {
    double s, c;
    int64_t n;
} route_acc;

/* A flow (or half flow) waiting for a rule-3 detour. */
typedef struct route_pending {
    size_t idx; /* index into the caller's flows, for the error message */
    int src, dst;
    int xfirst; /* tie-break order: 1 = E W N S, 0 = N S E W */
    double bytes;
} route_pending;

struct route_ctx {
    const wafer *wf; /* borrowed; geometry and faults as of route_ctx_new */
    int w, h;
    size_t nunits;
    int faulty;          /* some link between two existing units is unusable */
    route_acc *cell;     /* nlinks markers by link slot; all zero between calls */
    route_acc *col;      /* 2 * w running N and S sums of the pass */
    int *wafer_col;      /* w: which wafer column each x lies in */
    int *wafer_row;      /* h: which wafer row each y lies in */
    unsigned char *ok;   /* nunits: bit dir set when link (u, dir) is usable */
    /* Only when faulty: */
    int *bad_ew;         /* h rows of w + 1 pairs: unusable E, W links at x' < x */
    int *bad_ns;         /* w columns of h + 1 pairs: unusable N, S links at y' < y */
    int *dist;           /* nunits hops to the current BFS target; -1 between calls */
    int *queue;          /* nunits BFS queue; also the list of labelled units */
    route_pending *pend; /* grows by doubling, kept across calls */
    size_t npend, cap_pend;
    int row_lo, row_hi;  /* rows holding markers of this call; lo > hi when none */
};

void route_ctx_free(route_ctx *rc)
{
    if (!rc)
        return;
    free(rc->cell);
    free(rc->col);
    free(rc->wafer_col);
    free(rc->wafer_row);
    free(rc->ok);
    free(rc->bad_ew);
    free(rc->bad_ns);
    free(rc->dist);
    free(rc->queue);
    free(rc->pend);
    free(rc);
}

/* Prefix counts of unusable links, so that a straight segment is checked by
 * two subtractions whatever its length. */
static void route_build_prefix(route_ctx *rc)
{
    int w = rc->w, h = rc->h;
    for (int y = 0; y < h; y++) {
        int *p = rc->bad_ew + (size_t)y * (size_t)(w + 1) * 2;
        p[0] = p[1] = 0;
        for (int x = 0; x < w; x++) {
            unsigned m = rc->ok[(size_t)y * (size_t)w + (size_t)x];
            p[2 * x + 2] = p[2 * x] + !(m & (1u << WAFER_E));
            p[2 * x + 3] = p[2 * x + 1] + !(m & (1u << WAFER_W));
        }
    }
    for (int x = 0; x < w; x++) {
        int *p = rc->bad_ns + (size_t)x * (size_t)(h + 1) * 2;
        p[0] = p[1] = 0;
        for (int y = 0; y < h; y++) {
            unsigned m = rc->ok[(size_t)y * (size_t)w + (size_t)x];
            p[2 * y + 2] = p[2 * y] + !(m & (1u << WAFER_N));
            p[2 * y + 3] = p[2 * y + 1] + !(m & (1u << WAFER_S));
        }
    }
}

int route_ctx_new(route_ctx **out, const wafer *wf, wt_err *e)
{
    *out = NULL;
    if (!wf || wf->w <= 0 || wf->h <= 0 || !wf->unit_dead || !wf->link_dead) {
        wt_fail(e, "route: wafer is not initialised");
        return WT_EINTERNAL;
    }
    route_ctx *rc = calloc(1, sizeof *rc);
    if (!rc)
        return wt_oom(e, "route context");
    rc->wf = wf;
    rc->w = wf->w;
    rc->h = wf->h;
    rc->nunits = wafer_nunits(wf);
    rc->row_lo = INT_MAX;
    rc->row_hi = -1;
    /* calloc: pages of rows no flow ever touches are never faulted in. */
    rc->cell = calloc(wafer_nlinks(wf), sizeof *rc->cell);
    rc->col = calloc((size_t)rc->w * 2, sizeof *rc->col);
    rc->wafer_col = malloc((size_t)rc->w * sizeof *rc->wafer_col);
    rc->wafer_row = malloc((size_t)rc->h * sizeof *rc->wafer_row);
    rc->ok = malloc(rc->nunits);
    if (!rc->cell || !rc->col || !rc->wafer_col || !rc->wafer_row || !rc->ok) {
        route_ctx_free(rc);
        return wt_oom(e, "route context");
    }
    for (int x = 0; x < rc->w; x++)
        rc->wafer_col[x] = x / wf->wafer_w;
    for (int y = 0; y < rc->h; y++)
        rc->wafer_row[y] = y / wf->wafer_h;

    for (size_t u = 0; u < rc->nunits; u++) {
        unsigned m = 0;
        for (int d = 0; d < WAFER_NDIR; d++) {
            if (wafer_link_usable(wf, (int)u, d))
                m |= 1u << d;
            else if (wafer_neighbor(wf, (int)u, d) >= 0)
                rc->faulty = 1;
        }
        rc->ok[u] = (unsigned char)m;
    }
    if (!rc->faulty) {
        *out = rc;
        return WT_OK;
    }

    rc->bad_ew = malloc((size_t)rc->h * (size_t)(rc->w + 1) * 2 * sizeof *rc->bad_ew);
    rc->bad_ns = malloc((size_t)rc->w * (size_t)(rc->h + 1) * 2 * sizeof *rc->bad_ns);
    rc->dist = malloc(rc->nunits * sizeof *rc->dist);
    rc->queue = malloc(rc->nunits * sizeof *rc->queue);
    if (!rc->bad_ew || !rc->bad_ns || !rc->dist || !rc->queue) {
        route_ctx_free(rc);
        return wt_oom(e, "route context");
    }
    route_build_prefix(rc);
    for (size_t u = 0; u < rc->nunits; u++)
        rc->dist[u] = -1;
    *out = rc;
    return WT_OK;
}

/* Adds b to a with its rounding error kept in a->c (Knuth's two-sum). */
static inline void route_acc_add(route_acc *a, double b, int64_t dn)
{
    double t = a->s + b;
    double bv = t - a->s;
    a->c += (a->s - (t - bv)) + (b - bv);
    a->s = t;
    a->n += dn;
}

static inline void route_touch(route_ctx *rc, int lo, int hi)
{
    if (lo < rc->row_lo)
        rc->row_lo = lo;
    if (hi > rc->row_hi)
        rc->row_hi = hi;
}

static inline void route_mark(route_ctx *rc, size_t unit, int dir, double b, int64_t dn)
{
    route_acc_add(&rc->cell[unit * WAFER_NDIR + (size_t)dir], b, dn);
}

/* Loads the links from (xa, y) to (xb, y), E or W. */
static inline void route_seg_row(route_ctx *rc, int y, int xa, int xb, double b)
{
    size_t row = (size_t)y * (size_t)rc->w;
    if (xa < xb) {
        route_mark(rc, row + (size_t)xa, WAFER_E, b, 1);
        route_mark(rc, row + (size_t)xb, WAFER_E, -b, -1);
    } else if (xa > xb) {
        route_mark(rc, row + (size_t)xb + 1, WAFER_W, b, 1);
        if (xa + 1 < rc->w)
            route_mark(rc, row + (size_t)xa + 1, WAFER_W, -b, -1);
    } else {
        return;
    }
    route_touch(rc, y, y);
}

/* Loads the links from (x, ya) to (x, yb), S or N. */
static inline void route_seg_col(route_ctx *rc, int x, int ya, int yb, double b)
{
    size_t w = (size_t)rc->w;
    if (ya < yb) {
        route_mark(rc, (size_t)ya * w + (size_t)x, WAFER_S, b, 1);
        route_mark(rc, (size_t)yb * w + (size_t)x, WAFER_S, -b, -1);
        route_touch(rc, ya, yb);
    } else if (ya > yb) {
        route_mark(rc, (size_t)(yb + 1) * w + (size_t)x, WAFER_N, b, 1);
        if (ya + 1 < rc->h) {
            route_mark(rc, (size_t)(ya + 1) * w + (size_t)x, WAFER_N, -b, -1);
            route_touch(rc, yb + 1, ya + 1);
        } else {
            route_touch(rc, yb + 1, rc->h - 1);
        }
    }
}

/* Unusable links on the straight move from xa to xb along row y. */
static inline int route_row_bad(const route_ctx *rc, int y, int xa, int xb)
{
    const int *p = rc->bad_ew + (size_t)y * (size_t)(rc->w + 1) * 2;
    if (xa < xb)
        return p[2 * xb] - p[2 * xa];
    if (xa > xb)
        return p[2 * (xa + 1) + 1] - p[2 * (xb + 1) + 1];
    return 0;
}

/* Unusable links on the straight move from ya to yb along column x. */
static inline int route_col_bad(const route_ctx *rc, int x, int ya, int yb)
{
    const int *p = rc->bad_ns + (size_t)x * (size_t)(rc->h + 1) * 2;
    if (ya < yb)
        return p[2 * yb + 1] - p[2 * ya + 1];
    if (ya > yb)
        return p[2 * (ya + 1)] - p[2 * (yb + 1)];
    return 0;
}

static inline int route_dor_bad(const route_ctx *rc, int x0, int y0, int x1, int y1, int xfirst)
{
    if (xfirst)
        return route_row_bad(rc, y0, x0, x1) || route_col_bad(rc, x1, y0, y1);
    return route_col_bad(rc, x0, y0, y1) || route_row_bad(rc, y1, x0, x1);
}

static inline void route_dor_add(route_ctx *rc, int x0, int y0, int x1, int y1, int xfirst, double b)
{
    if (xfirst) {
        route_seg_row(rc, y0, x0, x1, b);
        route_seg_col(rc, x1, y0, y1, b);
    } else {
        route_seg_col(rc, x0, y0, y1, b);
        route_seg_row(rc, y1, x0, x1, b);
    }
}

/* Rules 1 and 2 for one (half) flow. Returns 0 when it took its own order, 1
 * when it took the other one, 2 when it waits for a detour, or WT_EINTERNAL
 * when the waiting list cannot grow. */
static int route_half(route_ctx *rc, size_t idx, int src, int dst, int x0, int y0, int x1, int y1,
                      int xfirst, double b)
{
    if (!rc->faulty || !route_dor_bad(rc, x0, y0, x1, y1, xfirst)) {
        route_dor_add(rc, x0, y0, x1, y1, xfirst, b);
        return 0;
    }
    if (!route_dor_bad(rc, x0, y0, x1, y1, !xfirst)) {
        route_dor_add(rc, x0, y0, x1, y1, !xfirst, b);
        return 1;
    }
    if (rc->npend == rc->cap_pend) {
        size_t cap = rc->cap_pend ? rc->cap_pend * 2 : 64;
        route_pending *p = realloc(rc->pend, cap * sizeof *p);
        if (!p)
            return WT_EINTERNAL;
        rc->pend = p;
        rc->cap_pend = cap;
    }
    rc->pend[rc->npend++] = (route_pending){idx, src, dst, xfirst, b};
    return 2;
}

/* Folds one marker cell into a running sum and, when out is given, adds the
 * running sum to the link's load. Leaves the cell zero. */
static inline void route_sweep(route_acc *run, route_acc *cell, double *out)
{
    if (cell->n != 0 || cell->s != 0.0 || cell->c != 0.0) {
        route_acc_add(run, cell->s, cell->n);
        run->c += cell->c;
        cell->s = cell->c = 0.0;
        cell->n = 0;
        if (run->n == 0)
            run->s = run->c = 0.0;
    }
    if (run->n != 0 && out)
        *out += run->s + run->c;
}

/* The one pass from markers to loads over the rows this call touched; with
 * load NULL it only clears the markers (after an error). */
static void route_drain(route_ctx *rc, double *load)
{
    if (rc->row_lo > rc->row_hi)
        return;
    size_t w = (size_t)rc->w;
    route_acc *col_n = rc->col, *col_s = rc->col + w;
    memset(rc->col, 0, 2 * w * sizeof *rc->col);
    for (int y = rc->row_lo; y <= rc->row_hi; y++) {
        route_acc run_e = {0, 0, 0}, run_w = {0, 0, 0};
        for (size_t x = 0; x < w; x++) {
            size_t l = ((size_t)y * w + x) * WAFER_NDIR;
            route_acc *c = rc->cell + l;
            double *o = load ? load + l : NULL;
            route_sweep(&run_e, c + WAFER_E, o ? o + WAFER_E : NULL);
            route_sweep(&run_w, c + WAFER_W, o ? o + WAFER_W : NULL);
            route_sweep(col_n + x, c + WAFER_N, o ? o + WAFER_N : NULL);
            route_sweep(col_s + x, c + WAFER_S, o ? o + WAFER_S : NULL);
        }
    }
    rc->row_lo = INT_MAX;
    rc->row_hi = -1;
}

/* Waiting flows grouped by destination, so that one search serves them all;
 * the rest of the key only makes the order independent of qsort. */
static int route_pending_cmp(const void *a, const void *b)
{
    const route_pending *p = a, *q = b;
    if (p->dst != q->dst)
        return p->dst < q->dst ? -1 : 1;
    if (p->idx != q->idx)
        return p->idx < q->idx ? -1 : 1;
    return q->xfirst - p->xfirst;
}

/* Labels the units that reach v over one usable link with dist[v] + 1. The
 * search runs backwards from the destination, so it follows the link from
 * each neighbour u into v, which is (u, opposite of the way from v to u). */
static void route_bfs_expand(route_ctx *rc, int v, int *tail)
{
    int w = rc->w, x = v % w, y = v / w, dv = rc->dist[v] + 1;
    const int nb[4] = {x + 1 < w ? v + 1 : -1, x > 0 ? v - 1 : -1, y > 0 ? v - w : -1,
                       y + 1 < rc->h ? v + w : -1};
    for (int d = 0; d < WAFER_NDIR; d++) {
        int u = nb[d];
        if (u >= 0 && rc->dist[u] < 0 && (rc->ok[u] & (1u << wafer_dir_opposite(d)))) {
            rc->dist[u] = dv;
            rc->queue[(*tail)++] = u;
        }
    }
}

/*
 * Walks a rule-3 detour from p->src down the distances, taking at each unit
 * the first direction in the flow's order whose neighbour is one hop closer,
 * and adds it as straight segments. Every unit with a distance below
 * dist[src] is already labelled, which is all the walk looks at.
 */
static int route_walk(route_ctx *rc, const route_pending *p, int *hops, int *cross)
{
    static const int order_x[4] = {WAFER_E, WAFER_W, WAFER_N, WAFER_S};
    static const int order_y[4] = {WAFER_N, WAFER_S, WAFER_E, WAFER_W};
    const int *order = p->xfirst ? order_x : order_y;
    int w = rc->w;
    const int step[4] = {1, -1, -w, w};
    int u = p->src, x = u % w, y = u / w, k = rc->dist[u];
    int run_dir = -1, rx = x, ry = y, nc = 0;
    *hops = k;
    while (k > 0) {
        int d = -1;
        for (int j = 0; j < 4; j++) {
            int dj = order[j];
            if ((rc->ok[u] & (1u << dj)) && rc->dist[u + step[dj]] == k - 1) {
                d = dj;
                break;
            }
        }
        if (d < 0)
            return WT_EINTERNAL;
        if (d != run_dir) {
            if (run_dir == WAFER_E || run_dir == WAFER_W)
                route_seg_row(rc, y, rx, x, p->bytes);
            else if (run_dir >= 0)
                route_seg_col(rc, x, ry, y, p->bytes);
            run_dir = d;
            rx = x;
            ry = y;
        }
        int nx = x + (d == WAFER_E) - (d == WAFER_W);
        int ny = y + (d == WAFER_S) - (d == WAFER_N);
        nc += rc->wafer_col[nx] != rc->wafer_col[x] || rc->wafer_row[ny] != rc->wafer_row[y];
        u += step[d];
        x = nx;
        y = ny;
        k--;
    }
    if (run_dir == WAFER_E || run_dir == WAFER_W)
        route_seg_row(rc, y, rx, x, p->bytes);
    else if (run_dir >= 0)
        route_seg_col(rc, x, ry, y, p->bytes);
    *cross = nc;
    return WT_OK;
}

static inline void route_note(route_stats *st, int hops, int cross, double lat_link, double lat_iw)
{
    double lat = (double)(hops - cross) * lat_link + (double)cross * lat_iw;
    if (hops > st->max_hops)
        st->max_hops = hops;
    if (lat > st->max_latency)
        st->max_latency = lat;
}

/*
 * Rule 3 for every waiting (half) flow. One backward search per destination,
 * grown only until it has labelled the next source, so a short detour costs
 * the area around it rather than the whole mesh. *fail gets the smallest
 * flow index that has no route, or stays SIZE_MAX.
 */
static int route_detours(route_ctx *rc, route_stats *st, size_t *fail)
{
    const wafer *wf = rc->wf;
    int rv = WT_OK, head = 0, tail = 0, target = -1;
    qsort(rc->pend, rc->npend, sizeof *rc->pend, route_pending_cmp);
    for (size_t i = 0; i < rc->npend && rv == WT_OK; i++) {
        const route_pending *p = &rc->pend[i];
        if (p->dst != target) {
            for (int j = 0; j < tail; j++)
                rc->dist[rc->queue[j]] = -1;
            target = p->dst;
            rc->dist[target] = 0;
            rc->queue[0] = target;
            head = 0;
            tail = 1;
        }
        while (rc->dist[p->src] < 0 && head < tail)
            route_bfs_expand(rc, rc->queue[head++], &tail);
        if (rc->dist[p->src] < 0) {
            if (p->idx < *fail)
                *fail = p->idx;
            continue;
        }
        int hops, cross;
        rv = route_walk(rc, p, &hops, &cross);
        if (rv == WT_OK)
            route_note(st, hops, cross, wf->link_lat, wf->iw_lat);
    }
    for (int j = 0; j < tail; j++)
        rc->dist[rc->queue[j]] = -1;
    return rv;
}

int route_flows(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode, double *load,
                route_stats *st, wt_err *e)
{
    route_stats scratch;
    if (!st)
        st = &scratch;
    memset(st, 0, sizeof *st);
    if (!rc || (n > 0 && (!flows || !load))) {
        wt_fail(e, "route: missing context, flows or load array");
        return WT_EINTERNAL;
    }
    if (mode != ROUTE_XY && mode != ROUTE_YX && mode != ROUTE_BALANCED) {
        wt_fail(e, "route: unknown routing mode %d", (int)mode);
        return WT_EINTERNAL;
    }
    const wafer *wf = rc->wf;
    const double lat_link = wf->link_lat, lat_iw = wf->iw_lat;
    const int w = rc->w;
    const int *wcol = rc->wafer_col, *wrow = rc->wafer_row;
    int rv = WT_OK;
    rc->npend = 0;

    for (size_t i = 0; i < n; i++) {
        const route_flow *f = &flows[i];
        if ((unsigned)f->src >= rc->nunits || (unsigned)f->dst >= rc->nunits) {
            wt_fail(e, "route: flow %zu goes from unit %d to unit %d, outside the %dx%d mesh", i,
                    f->src, f->dst, w, rc->h);
            rv = WT_EINTERNAL;
            break;
        }
        /* Also rejects NaN: one bad marker would spoil a whole row. */
        if (!(f->bytes >= 0.0 && f->bytes <= DBL_MAX)) {
            wt_fail(e, "route: flow %zu carries %g bytes", i, f->bytes);
            rv = WT_EINTERNAL;
            break;
        }
        if (f->src == f->dst)
            continue;
        int x0 = f->src % w, y0 = f->src / w, x1 = f->dst % w, y1 = f->dst / w;
        int r0, r1 = 0;
        if (mode == ROUTE_BALANCED) {
            double half = 0.5 * f->bytes;
            r0 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, 1, half);
            if (r0 >= 0)
                r1 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, 0, half);
        } else {
            r0 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, mode == ROUTE_XY, f->bytes);
        }
        if (r0 < 0 || r1 < 0) {
            rv = wt_oom(e, "route detour list");
            break;
        }
        st->detoured += (r0 != 0) + (r1 != 0);
        /* Both dimension orders are shortest and cross the same wafer edges. */
        if (r0 < 2 || (mode == ROUTE_BALANCED && r1 < 2)) {
            int hops = abs(x1 - x0) + abs(y1 - y0);
            int cross = abs(wcol[x1] - wcol[x0]) + abs(wrow[y1] - wrow[y0]);
            route_note(st, hops, cross, lat_link, lat_iw);
        }
    }

    if (rv == WT_OK && rc->npend > 0) {
        size_t fail = SIZE_MAX;
        rv = route_detours(rc, st, &fail);
        if (rv != WT_OK) {
            wt_fail(e, "route: detour walk lost its way (bug)");
        } else if (fail != SIZE_MAX) {
            const route_flow *f = &flows[fail];
            rv = wt_fail(e, "no route from %d,%d to %d,%d", f->src % w, f->src / w, f->dst % w,
                         f->dst / w);
        }
    }
    if (rv != WT_OK) {
        route_drain(rc, NULL);
        memset(st, 0, sizeof *st);
        return rv;
    }
    route_drain(rc, load);
    return WT_OK;
}

int route_mode_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "xy") == 0)
        return ROUTE_XY;
    if (strcmp(s, "yx") == 0)
        return ROUTE_YX;
    if (strcmp(s, "balanced") == 0)
        return ROUTE_BALANCED;
    return -1;
}

const char *route_mode_name(route_mode m)
{
    switch (m) {
    case ROUTE_XY: return "xy";
    case ROUTE_YX: return "yx";
    case ROUTE_BALANCED: return "balanced";
    }
    return "unknown";
}
