/*
 * route.c - flows to link loads (contract in route.h).
 *
 * Every straight run of a path is a segment along one row (E or W links) or
 * one column (N or S links). A segment writes a start marker into the cell of
 * its first link and an end marker into the cell just past its last link;
 * one row-major pass then turns the markers into loads. W and N segments are
 * swept towards increasing x and y as well, so that one pass serves all four
 * directions: a W move from x0 down to x1 covers the W links of units
 * x1+1 .. x0, so it starts at x1+1 and ends at x0+1 (in a padding cell past
 * the mesh edge when x0 is the last column).
 *
 * A marker is a count of segments opened minus closed, and, only when the
 * flows of a call carry different bytes, a sum of bytes beside it: when
 * they all carry the same bytes (every pass of a collective, every stream)
 * a link's load is its count times those bytes, and the 4-byte counts are
 * all the pass reads and writes (a quarter of the memory a count and a sum
 * would take, which is what a large mesh pays for in page faults and cache
 * misses). The sums are allocated on the first call that needs them.
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

#include "hot.h"
#include "par.h"

/*
 * A running sum of the pass: s in bytes, n the segments opened minus
 * closed. Where the running n is zero no segment covers the link, the true
 * sum is exactly zero and the rounding residue of +b and -b is dropped, so
 * a link no flow crosses gets exactly nothing.
 */
typedef struct route_acc {
    double s;
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
    double inv_w;        /* 1.0 / w */
    int faulty;          /* some link between two existing units is unusable */
    int multi;           /* more than one wafer: crossings have their own latency */
    /* Markers, zero between calls: (h + 1) rows of pitch cells, unit (x, y)
     * direction d at y * pitch + x * 4 + d. The extra unit per row and the
     * extra row take the end markers of W and N moves that reach the mesh
     * edge, so the flow loop needs no edge test; the pass never reads them.
     * cnt holds the counts; sum, the bytes, is NULL until a call with
     * mixed bytes needs it. A count fits 32 bits: route_call takes fewer
     * than 2^30 flows, each adding 2 at most. */
    int32_t *cnt;
    double *sum;
    size_t pitch;        /* (w + 1) * 4 */
    route_acc *col;      /* 2 * w running N and S sums of the pass */
    int *wafer_col;      /* w: which wafer column each x lies in */
    int *wafer_row;      /* h: which wafer row each y lies in */
    /* Only when some unit or link is marked dead: */
    unsigned char *ok;   /* nunits: bit dir set when link (u, dir) is usable */
    /* Only when faulty: */
    int *bad_ew;         /* h rows of w + 1 pairs: unusable E, W links at x' < x */
    int *bad_ns;         /* w columns of h + 1 pairs: unusable N, S links at y' < y */
    int *dist;           /* nunits hops to the current BFS target; -1 between calls */
    int *queue;          /* nunits BFS queue; also the list of labelled units */
    route_pending *pend; /* grows by doubling, kept across calls */
    size_t npend, cap_pend;
    int mixed;           /* this call's flows carry different bytes: sum is kept */
    /* Rows holding markers of this call; lo > hi when none. */
    int row_lo, row_hi;
    int parts;           /* route_ctx_set_parts: 0 = par_parts */
};

void route_ctx_free(route_ctx *rc)
{
    if (!rc)
        return;
    free(rc->cnt);
    free(rc->sum);
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

const wafer *route_ctx_wafer(const route_ctx *rc)
{
    return rc->wf;
}

int route_ctx_clean(const route_ctx *rc)
{
    return !rc->faulty && !rc->multi;
}

void route_ctx_set_parts(route_ctx *rc, int n)
{
    rc->parts = n < 0 ? 0 : n > PAR_MAX ? PAR_MAX : n;
}

int route_ctx_parts(const route_ctx *rc, size_t work)
{
    return rc->parts ? rc->parts : par_parts(work);
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
    /* route_row_of is exact only within wafer_init's limits. */
    if (wf->w > 65536 || wafer_nunits(wf) > ((size_t)1 << 26)) {
        wt_fail(e, "route: a %dx%d mesh is larger than the router handles", wf->w, wf->h);
        return WT_EINTERNAL;
    }
    route_ctx *rc = calloc(1, sizeof *rc);
    if (!rc)
        return wt_oom(e, "route context");
    rc->wf = wf;
    rc->w = wf->w;
    rc->h = wf->h;
    rc->nunits = wafer_nunits(wf);
    rc->multi = wf->wafers_x > 1 || wf->wafers_y > 1;
    rc->row_lo = INT_MAX;
    rc->row_hi = -1;
    /* calloc: pages of rows no flow ever touches are never faulted in. */
    rc->pitch = ((size_t)rc->w + 1) * WAFER_NDIR;
    rc->inv_w = 1.0 / rc->w;
    rc->cnt = calloc(((size_t)rc->h + 1) * rc->pitch, sizeof *rc->cnt);
    rc->col = calloc((size_t)rc->w * 2, sizeof *rc->col);
    rc->wafer_col = malloc((size_t)rc->w * sizeof *rc->wafer_col);
    rc->wafer_row = malloc((size_t)rc->h * sizeof *rc->wafer_row);
    if (!rc->cnt || !rc->col || !rc->wafer_col || !rc->wafer_row) {
        route_ctx_free(rc);
        return wt_oom(e, "route context");
    }
    for (int x = 0; x < rc->w; x++)
        rc->wafer_col[x] = x / wf->wafer_w;
    for (int y = 0; y < rc->h; y++)
        rc->wafer_row[y] = y / wf->wafer_h;
    /* On a healthy mesh every link between two units is usable: no mask. */
    if (wafer_healthy(wf)) {
        *out = rc;
        return WT_OK;
    }

    /* A link is unusable between two existing units where the mask lacks
     * a direction whose neighbour exists. */
    rc->ok = malloc(rc->nunits);
    if (!rc->ok) {
        route_ctx_free(rc);
        return wt_oom(e, "route context");
    }
    for (int y = 0; y < rc->h; y++) {
        unsigned ns = (y > 0 ? 1u << WAFER_N : 0) | (y + 1 < rc->h ? 1u << WAFER_S : 0);
        for (int x = 0; x < rc->w; x++) {
            unsigned m = wafer_usable_mask(wf, x, y);
            unsigned all = ns | (x + 1 < rc->w ? 1u << WAFER_E : 0) | (x > 0 ? 1u << WAFER_W : 0);
            rc->faulty |= m != all;
            rc->ok[(size_t)y * (size_t)rc->w + (size_t)x] = (unsigned char)m;
        }
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

/* What the flow loop needs of the ctx, copied into locals: stores into the
 * cells could otherwise alias the ctx fields and force reloads. */
typedef struct route_geo {
    int32_t *cnt;
    double *sum;    /* NULL: the call's flows all carry the same bytes */
    size_t pitch;
    double inv_w;
    size_t lo, hi;  /* the cells this walk writes: all, or one part's rows (route_parts_stage) */
    /* A flow whose units both lie below ulo or both at uhi or above has no
     * marker in those rows: rows [ylo, yhi) give ulo = (ylo - 1) * w (an N
     * move ends one row below its start) and uhi = yhi * w. Units compare
     * without finding their rows. */
    int ulo, uhi;
} route_geo;

static route_geo route_geo_of(const route_ctx *rc)
{
    route_geo g = {rc->cnt, rc->mixed ? rc->sum : NULL, rc->pitch, rc->inv_w, 0, SIZE_MAX, INT_MIN, INT_MAX};
    return g;
}

/*
 * Adds the two markers of a straight move from a to b along a line: E or S
 * (dfwd) when a < b, covering a .. b-1 and ending at b; else W or N (dback),
 * covering b+1 .. a and ending at a+1 (in the padding past the mesh edge
 * when a is the last). base is the cell of position 0 in direction 0 and
 * step the cell distance between neighbours on the line.
 */
WT_HOT void route_seg(const route_geo *g, size_t base, size_t step, size_t dfwd, size_t dback,
                         int a, int b, double bytes, int32_t k)
{
    size_t s0, s1;
    if (a < b) {
        s0 = base + (size_t)a * step + dfwd;
        s1 = base + (size_t)b * step + dfwd;
    } else if (a > b) {
        s0 = base + (size_t)(b + 1) * step + dback;
        s1 = base + (size_t)(a + 1) * step + dback;
    } else {
        return;
    }
    if (g->hi != SIZE_MAX) { /* a part writes its own rows' markers alone */
        if (s0 - g->lo < g->hi - g->lo)
            g->cnt[s0] += k;
        if (s1 - g->lo < g->hi - g->lo)
            g->cnt[s1] -= k;
        return;
    }
    g->cnt[s0] += k;
    g->cnt[s1] -= k;
    if (g->sum) {
        g->sum[s0] += bytes;
        g->sum[s1] -= bytes;
    }
}

/* Loads the links from (xa, y) to (xb, y), E or W, with b bytes that count
 * as k flows. */
WT_HOT void route_seg_row(const route_geo *g, int y, int xa, int xb, double b, int32_t k)
{
    route_seg(g, (size_t)y * g->pitch, WAFER_NDIR, WAFER_E, WAFER_W, xa, xb, b, k);
}

/* Loads the links from (x, ya) to (x, yb), S or N. */
WT_HOT void route_seg_col(const route_geo *g, int x, int ya, int yb, double b, int32_t k)
{
    route_seg(g, (size_t)x * WAFER_NDIR, g->pitch, WAFER_S, WAFER_N, ya, yb, b, k);
}

/* Loads the dimension-order path from (x0, y0) to (x1, y1). */
WT_HOT void route_dor_add(const route_geo *g, int x0, int y0, int x1, int y1, int xfirst,
                             double b, int32_t k)
{
    if (xfirst) {
        route_seg_row(g, y0, x0, x1, b, k);
        route_seg_col(g, x1, y0, y1, b, k);
    } else {
        route_seg_col(g, x0, y0, y1, b, k);
        route_seg_row(g, y1, x0, x1, b, k);
    }
}

/*
 * The row of unit u without a division: u < 2^26 and w <= 2^16 (wafer_init
 * caps both), so (u + 0.5) / w is at least 2^-17 away from an integer while
 * the product below is off by at most 2^-26, and truncation is exact.
 */
WT_HOT int route_row_of(const route_geo *g, int u)
{
    return (int)(((double)u + 0.5) * g->inv_w);
}

/* Widens the rows the pass must cover to every marker of any path between
 * rows ya and yb: an N move ends one row below its start, which may be the
 * padding row. */
WT_HOT void route_rows(int *lo, int *hi, int ya, int yb)
{
    int a = ya < yb ? ya : yb, b = ya < yb ? yb : ya;
    if (a < *lo)
        *lo = a;
    if (b + 1 > *hi)
        *hi = b + 1;
}

/* Unusable links on the straight move from xa to xb along row y. */
WT_HOT int route_row_bad(const route_ctx *rc, int y, int xa, int xb)
{
    const int *p = rc->bad_ew + (size_t)y * (size_t)(rc->w + 1) * 2;
    if (xa < xb)
        return p[2 * xb] - p[2 * xa];
    if (xa > xb)
        return p[2 * (xa + 1) + 1] - p[2 * (xb + 1) + 1];
    return 0;
}

/* Unusable links on the straight move from ya to yb along column x. */
WT_HOT int route_col_bad(const route_ctx *rc, int x, int ya, int yb)
{
    const int *p = rc->bad_ns + (size_t)x * (size_t)(rc->h + 1) * 2;
    if (ya < yb)
        return p[2 * yb + 1] - p[2 * ya + 1];
    if (ya > yb)
        return p[2 * (ya + 1)] - p[2 * (yb + 1)];
    return 0;
}

WT_HOT int route_dor_bad(const route_ctx *rc, int x0, int y0, int x1, int y1, int xfirst)
{
    if (xfirst)
        return route_row_bad(rc, y0, x0, x1) || route_col_bad(rc, x1, y0, y1);
    return route_col_bad(rc, x0, y0, y1) || route_row_bad(rc, y1, x0, x1);
}

/* Rules 1 and 2 for one (half) flow on a faulty wafer, b bytes counting as
 * k (half) flows. Returns 0 when it took its own order, 1 when it took the
 * other one, 2 when it waits for a detour (which counts b > 0 as one), or
 * WT_EINTERNAL when the waiting list cannot grow. */
static int route_half(route_ctx *rc, size_t idx, int src, int dst, int x0, int y0, int x1, int y1,
                      int xfirst, double b, int32_t k)
{
    if (!route_dor_bad(rc, x0, y0, x1, y1, xfirst)) {
        route_geo g = route_geo_of(rc);
        route_dor_add(&g, x0, y0, x1, y1, xfirst, b, k);
        return 0;
    }
    if (!route_dor_bad(rc, x0, y0, x1, y1, !xfirst)) {
        route_geo g = route_geo_of(rc);
        route_dor_add(&g, x0, y0, x1, y1, !xfirst, b, k);
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

/* Folds one marker (count c, bytes m) into a running sum; returns the
 * number of (half) flows on the link. For the list and the counting path,
 * where a link no flow crosses must stay out. */
WT_HOT int64_t route_fold(route_acc *run, int32_t c, double m)
{
    if (c != 0 || m != 0.0) {
        run->s += m;
        run->n += c;
        if (run->n == 0)
            run->s = 0.0;
    }
    return run->n;
}

/* Where the pass puts the loads: a dense array, a list, or nowhere. */
typedef struct route_out {
    double *load;     /* dense, or NULL */
    route_sparse *sp; /* list, or NULL; neither = only clear the markers */
    double unit;      /* every (half) flow carried this, load = count * unit; 0 = summed */
    int oom;          /* the list could not grow: stop listing, keep clearing */
} route_out;

int route_sparse_reserve(route_sparse *sp, size_t more)
{
    size_t need = sp->n + more;
    if (need <= sp->cap)
        return 0;
    if (need < 2 * sp->cap)
        need = 2 * sp->cap;
    if (need < 256)
        need = 256;
    int *l = realloc(sp->link, need * sizeof *l);
    if (l)
        sp->link = l;
    double *d = l ? realloc(sp->load, need * sizeof *d) : NULL;
    if (!d)
        return -1;
    sp->load = d;
    sp->cap = need;
    return 0;
}

/* Appends one link to the list, growing it (rarely: callers reserve what
 * a pass usually loads), inlined into the pass; on failure marks o->oom. */
WT_HOT void route_append(route_out *o, size_t slot, double v)
{
    route_sparse *sp = o->sp;
    if (sp->n == sp->cap && route_sparse_reserve(sp, 1) < 0) {
        o->oom = 1;
        return;
    }
    sp->link[sp->n] = (int)slot;
    sp->load[sp->n++] = v;
}

/* Folds one marker into a running sum, without branches: in a busy mesh
 * whether a cell holds markers is a coin toss. Returns what the link adds. */
WT_HOT double route_fold_add(route_acc *run, int32_t c, double m)
{
    run->n += c;
    run->s = run->n ? run->s + m : 0.0;
    return run->n ? run->s : 0.0;
}

/* A row of the pass into a dense load array, summing bytes; the row's
 * cells are cleared by the caller in one go. */
static void route_drain_row(const int32_t *c, const double *m, double *load, size_t w, route_acc *col_n,
                            route_acc *col_s)
{
    route_acc run_e = {0, 0}, run_w = {0, 0};
    for (size_t x = 0; x < w; x++, c += WAFER_NDIR, m += WAFER_NDIR, load += WAFER_NDIR) {
        load[WAFER_E] += route_fold_add(&run_e, c[WAFER_E], m[WAFER_E]);
        load[WAFER_W] += route_fold_add(&run_w, c[WAFER_W], m[WAFER_W]);
        load[WAFER_N] += route_fold_add(col_n + x, c[WAFER_N], m[WAFER_N]);
        load[WAFER_S] += route_fold_add(col_s + x, c[WAFER_S], m[WAFER_S]);
    }
}

/* A row of the pass into a list when the call's bytes differ: only the
 * links with flows come out, with their summed bytes. */
static void route_emit_row(route_out *o, const int32_t *c, const double *m, size_t slot, size_t w,
                           route_acc *col_n, route_acc *col_s)
{
    route_acc run_e = {0, 0}, run_w = {0, 0};
    for (size_t x = 0; x < w && !o->oom; x++, c += WAFER_NDIR, m += WAFER_NDIR, slot += WAFER_NDIR) {
        if (route_fold(&run_e, c[WAFER_E], m[WAFER_E]))
            route_append(o, slot + WAFER_E, run_e.s);
        if (route_fold(&run_w, c[WAFER_W], m[WAFER_W]))
            route_append(o, slot + WAFER_W, run_w.s);
        if (route_fold(col_n + x, c[WAFER_N], m[WAFER_N]))
            route_append(o, slot + WAFER_N, col_n[x].s);
        if (route_fold(col_s + x, c[WAFER_S], m[WAFER_S]))
            route_append(o, slot + WAFER_S, col_s[x].s);
    }
}

/* A row of the pass into o when the call's bytes are all the same: only
 * counts to fold, the links with flows come out as count * o->unit. */
static void route_count_row(route_out *o, const int32_t *c, size_t slot, size_t w, route_acc *col_n,
                            route_acc *col_s)
{
    int64_t e = 0, wv = 0;
    for (size_t x = 0; x < w; x++, c += WAFER_NDIR, slot += WAFER_NDIR) {
        e += c[WAFER_E];
        wv += c[WAFER_W];
        int64_t n = col_n[x].n += c[WAFER_N], s = col_s[x].n += c[WAFER_S];
        if (!(e | wv | n | s))
            continue;
        if (o->load) {
            o->load[slot + WAFER_E] += (double)e * o->unit;
            o->load[slot + WAFER_W] += (double)wv * o->unit;
            o->load[slot + WAFER_N] += (double)n * o->unit;
            o->load[slot + WAFER_S] += (double)s * o->unit;
            continue;
        }
        if (o->oom)
            continue;
        if (e)
            route_append(o, slot + WAFER_E, (double)e * o->unit);
        if (wv)
            route_append(o, slot + WAFER_W, (double)wv * o->unit);
        if (n)
            route_append(o, slot + WAFER_N, (double)n * o->unit);
        if (s)
            route_append(o, slot + WAFER_S, (double)s * o->unit);
    }
}

/* The one pass from markers to loads over the rows this call touched, in
 * ascending link slot order; leaves every cell zero, padding included. */
static void route_drain(route_ctx *rc, route_out *o)
{
    if (rc->row_lo > rc->row_hi)
        return;
    size_t w = (size_t)rc->w;
    route_acc *col_n = rc->col, *col_s = rc->col + w;
    memset(rc->col, 0, 2 * w * sizeof *rc->col);
    for (int y = rc->row_lo; y <= rc->row_hi; y++) {
        int32_t *c = rc->cnt + (size_t)y * rc->pitch;
        double *m = rc->mixed ? rc->sum + (size_t)y * rc->pitch : NULL;
        size_t slot = (size_t)y * w * WAFER_NDIR;
        if (y < rc->h && o->load && m)
            route_drain_row(c, m, o->load + slot, w, col_n, col_s);
        else if (y < rc->h && m && o->sp)
            route_emit_row(o, c, m, slot, w, col_n, col_s);
        else if (y < rc->h && (o->load || o->sp))
            route_count_row(o, c, slot, w, col_n, col_s);
        memset(c, 0, rc->pitch * sizeof *c);
        if (m)
            memset(m, 0, rc->pitch * sizeof *m);
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

/* Adds the straight run from (xa, ya) to (xb, yb) of a detour. */
static void route_seg_any(route_ctx *rc, int xa, int ya, int xb, int yb, double b)
{
    int32_t k = b > 0;
    route_geo g = route_geo_of(rc);
    if (ya == yb)
        route_seg_row(&g, ya, xa, xb, b, k);
    else
        route_seg_col(&g, xa, ya, yb, b, k);
    route_rows(&rc->row_lo, &rc->row_hi, ya, yb);
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
            if (run_dir >= 0)
                route_seg_any(rc, rx, ry, x, y, p->bytes);
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
    if (run_dir >= 0)
        route_seg_any(rc, rx, ry, x, y, p->bytes);
    *cross = nc;
    return WT_OK;
}

WT_HOT double route_lat(const wafer *wf, int hops, int cross)
{
    return (double)(hops - cross) * wf->link_lat + (double)cross * wf->iw_lat;
}

/*
 * Rule 3 for every waiting (half) flow. One backward search per destination,
 * grown only until it has labelled the next source, so a short detour costs
 * the area around it rather than the whole mesh. *fail gets the smallest
 * flow index that has no route, or stays SIZE_MAX.
 */
static int route_detours(route_ctx *rc, route_stats *st, size_t *fail)
{
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
        if (rv != WT_OK)
            break;
        double lat = route_lat(rc->wf, hops, cross);
        if (hops > st->max_hops)
            st->max_hops = hops;
        if (lat > st->max_latency)
            st->max_latency = lat;
    }
    for (int j = 0; j < tail; j++)
        rc->dist[rc->queue[j]] = -1;
    return rv;
}

/* Longest path and, across wafers, largest latency of the dimension-order
 * paths so far; both orders of a flow are shortest and cross the same edges. */
typedef struct route_tally {
    int max_hops;
    double max_lat;
} route_tally;

/* The bytes the flows that load links carry: the first such flow's (0
 * when none does), and whether some other one carries different bytes. */
typedef struct route_bytes {
    double first;
    int mixed;
} route_bytes;

static route_bytes route_bytes_of(const route_flow *flows, size_t n)
{
    route_bytes rb = {0.0, 0};
    for (size_t i = 0; i < n; i++) {
        double b = flows[i].bytes;
        if (flows[i].src == flows[i].dst || b == 0)
            continue;
        if (rb.first == 0) {
            rb.first = b;
        } else if (b != rb.first) {
            rb.mixed = 1;
            break;
        }
    }
    return rb;
}

typedef struct route_bytes_job {
    const route_flow *flows;
    size_t n;
    int nparts;
    route_bytes part[PAR_MAX];
} route_bytes_job;

static void route_bytes_range(void *ctx, int k)
{
    route_bytes_job *j = ctx;
    size_t i0, i1;
    par_range(j->n, k, j->nparts, &i0, &i1);
    j->part[k] = route_bytes_of(j->flows + i0, i1 - i0);
}

/* The bytes every flow that loads links carries into *bytes (0 when none
 * does); returns 1 when they differ. While they are all the same, a link's
 * load is its flow count times those bytes, with no rounding to pile up,
 * and the pass needs no sums. A large call is checked on the cores at
 * once: it is one walk over every flow before the routing can start. */
static int route_mixed(const route_ctx *rc, const route_flow *flows, size_t n, double *bytes)
{
    route_bytes_job j = {flows, n, route_ctx_parts(rc, n), {{0.0, 0}}};
    par_run(j.nparts, route_bytes_range, &j);
    route_bytes all = {0.0, 0};
    for (int k = 0; k < j.nparts && !all.mixed; k++) {
        const route_bytes *p = &j.part[k];
        all.mixed = p->mixed || (all.first != 0 && p->first != 0 && p->first != all.first);
        all.first = all.first != 0 ? all.first : p->first;
    }
    *bytes = all.first;
    return all.mixed;
}

WT_HOT void route_tally_flow(const route_ctx *rc, route_tally *t, int x0, int y0, int x1,
                                int y1)
{
    int hops = abs(x1 - x0) + abs(y1 - y0);
    if (hops > t->max_hops)
        t->max_hops = hops;
    if (rc->multi) {
        int cross = abs(rc->wafer_col[x1] - rc->wafer_col[x0]) +
                    abs(rc->wafer_row[y1] - rc->wafer_row[y0]);
        double lat = route_lat(rc->wf, hops, cross);
        if (lat > t->max_lat)
            t->max_lat = lat;
    }
}

/* Checks a flow; a bad one is the caller's bug and fails the whole call.
 * The byte test also rejects NaN: one bad marker would spoil a whole row. */
WT_HOT int route_flow_bad(size_t nunits, int src, int dst, double b)
{
    return (unsigned)src >= nunits || (unsigned)dst >= nunits || !(b >= 0.0 && b <= DBL_MAX);
}

/* The whole call on a wafer without faults, where rule 1 always holds;
 * inlined once per mode so that the mode tests leave the loop. Returns the
 * index of the first bad flow, or n. */
WT_HOT size_t route_clean_mode(const route_ctx *rc, const route_geo *gp, const route_flow *flows, size_t n,
                               int xfirst, int balanced, route_tally *t, int *row_lo, int *row_hi)
{
    const route_geo g = *gp;
    const int w = rc->w, multi = rc->multi;
    const size_t nunits = rc->nunits;
    int lo = *row_lo, hi = *row_hi, max_hops = t->max_hops;
    route_tally tt = *t;
    size_t i;
    for (i = 0; i < n; i++) {
        const int src = flows[i].src, dst = flows[i].dst;
        const double b = flows[i].bytes;
        if (route_flow_bad(nunits, src, dst, b))
            break;
        /* a part leaves the flows whose markers all lie in other parts' rows */
        if (src == dst || (src > dst ? src : dst) < g.ulo || (src < dst ? src : dst) >= g.uhi)
            continue;
        int y0 = route_row_of(&g, src), x0 = src - y0 * w;
        int y1 = route_row_of(&g, dst), x1 = dst - y1 * w;
        int32_t k = b > 0; /* an empty flow covers no link */
        if (!balanced) {
            route_dor_add(&g, x0, y0, x1, y1, xfirst, b, k);
        } else if (x0 == x1 || y0 == y1) {
            /* A straight balanced flow has one path for both halves. */
            route_dor_add(&g, x0, y0, x1, y1, 1, b, 2 * k);
        } else {
            route_dor_add(&g, x0, y0, x1, y1, 1, 0.5 * b, k);
            route_dor_add(&g, x0, y0, x1, y1, 0, 0.5 * b, k);
        }
        route_rows(&lo, &hi, y0, y1);
        int hops = abs(x1 - x0) + abs(y1 - y0);
        max_hops = hops > max_hops ? hops : max_hops;
        if (multi)
            route_tally_flow(rc, &tt, x0, y0, x1, y1);
    }
    tt.max_hops = max_hops > tt.max_hops ? max_hops : tt.max_hops;
    *t = tt;
    *row_lo = lo;
    *row_hi = hi;
    return i;
}

WT_COLD size_t route_clean_xy(const route_ctx *rc, const route_geo *g, const route_flow *f, size_t n,
                              route_tally *t, int *lo, int *hi)
{
    return route_clean_mode(rc, g, f, n, 1, 0, t, lo, hi);
}

WT_COLD size_t route_clean_yx(const route_ctx *rc, const route_geo *g, const route_flow *f, size_t n,
                              route_tally *t, int *lo, int *hi)
{
    return route_clean_mode(rc, g, f, n, 0, 0, t, lo, hi);
}

WT_COLD size_t route_clean_bal(const route_ctx *rc, const route_geo *g, const route_flow *f, size_t n,
                               route_tally *t, int *lo, int *hi)
{
    return route_clean_mode(rc, g, f, n, 1, 1, t, lo, hi);
}

/* The flows' markers on a wafer without faults into the cells g writes;
 * the rows they touch widen [*lo, *hi]. */
static size_t route_clean(const route_ctx *rc, const route_geo *g, const route_flow *flows, size_t n,
                          route_mode mode, route_tally *t, int *lo, int *hi)
{
    if (mode == ROUTE_XY)
        return route_clean_xy(rc, g, flows, n, t, lo, hi);
    if (mode == ROUTE_YX)
        return route_clean_yx(rc, g, flows, n, t, lo, hi);
    return route_clean_bal(rc, g, flows, n, t, lo, hi);
}

/*
 * A large call on a wafer without faults, its flows carrying the same
 * bytes, split over the cores (route_ctx_parts): part k owns the rows of
 * cells par_first(h + 1, k, parts) onwards, and each stage runs on every
 * part at once:
 *   marks   every part walks the flows with a marker in its rows (the
 *           others are left after two rows are read) and writes only
 *           those markers (route_geo.lo/hi), so no two parts share a
 *           cell; then it sums its rows' N and S markers per column: the
 *           running column counts a part starts from are the sums of the
 *           parts above it;
 *   count   each part runs the one pass over its rows, counting the links
 *           it would list;
 *   write   and again, writing them at its offset in the list (the counts
 *           of the parts above) and clearing its cells.
 * The list is the one pass's, entry for entry: the same counts, each times
 * the same unit.
 */
typedef enum route_stage { STAGE_MARKS, STAGE_COUNT, STAGE_WRITE } route_stage;

typedef struct route_part {
    size_t done;          /* flows walked: n, or the first bad one */
    route_tally t;
    int lo, hi;           /* rows the flows touched */
    size_t count, at;     /* links it lists, and its first entry */
} route_part;

typedef struct route_parts_job {
    route_ctx *rc;
    const route_flow *flows;
    size_t n;
    route_mode mode;
    route_out *o;
    size_t n0;            /* the list's length before the call */
    int nparts;
    route_stage stage;
    int64_t *col;         /* nparts x 2w: N then S column counts of each part */
    route_part part[PAR_MAX];
} route_parts_job;

/* Lists link slot with count v when v is not zero; returns the list's new
 * length. */
WT_HOT size_t route_part_emit(int *link, double *load, size_t k, size_t slot, int64_t v, double unit)
{
    if (!v)
        return k;
    link[k] = (int)slot;
    load[k] = (double)v * unit;
    return k + 1;
}

/* One row of the pass from the running counts, as route_count_row; lists
 * its links from link/load on when link is not NULL; returns how many.
 * Whether a link carries anything is a coin toss in a busy mesh: counting
 * adds the tests up instead of branching on them. */
static size_t route_part_row(const int32_t *c, size_t slot, size_t w, int64_t *col_n, int64_t *col_s,
                             double unit, int *link, double *load)
{
    int64_t e = 0, wv = 0;
    size_t k = 0;
    for (size_t x = 0; x < w; x++, c += WAFER_NDIR, slot += WAFER_NDIR) {
        e += c[WAFER_E];
        wv += c[WAFER_W];
        int64_t n = col_n[x] += c[WAFER_N], s = col_s[x] += c[WAFER_S];
        if (!link) {
            k += (size_t)(e != 0) + (size_t)(wv != 0) + (size_t)(n != 0) + (size_t)(s != 0);
            continue;
        }
        k = route_part_emit(link, load, k, slot + WAFER_E, e, unit);
        k = route_part_emit(link, load, k, slot + WAFER_W, wv, unit);
        k = route_part_emit(link, load, k, slot + WAFER_N, n, unit);
        k = route_part_emit(link, load, k, slot + WAFER_S, s, unit);
    }
    return k;
}

static void route_parts_stage(void *ctx, int k)
{
    route_parts_job *j = ctx;
    route_ctx *rc = j->rc;
    route_part *p = &j->part[k];
    size_t w = (size_t)rc->w, rows = (size_t)rc->h + 1;
    int y0 = (int)par_first(rows, k, j->nparts), y1 = (int)par_first(rows, k + 1, j->nparts);
    int64_t *col_n = j->col + (size_t)k * 2 * w, *col_s = col_n + w;
    if (j->stage == STAGE_MARKS) {
        route_geo g = route_geo_of(rc);
        g.lo = (size_t)y0 * rc->pitch;
        g.hi = (size_t)y1 * rc->pitch;
        g.ulo = (y0 - 1) * rc->w;
        g.uhi = y1 * rc->w;
        p->t = (route_tally){0, 0.0};
        p->lo = INT_MAX;
        p->hi = -1;
        p->done = route_clean(rc, &g, j->flows, j->n, j->mode, &p->t, &p->lo, &p->hi);
    }
    /* the rows some flow touched, of this part's */
    y0 = y0 > p->lo ? y0 : p->lo;
    y1 = y1 < p->hi + 1 ? y1 : p->hi + 1;
    if (j->stage == STAGE_MARKS) {
        memset(col_n, 0, 2 * w * sizeof *col_n);
        for (int y = y0; y < y1; y++) {
            const int32_t *c = rc->cnt + (size_t)y * rc->pitch;
            for (size_t x = 0; x < w; x++) {
                col_n[x] += c[x * WAFER_NDIR + WAFER_N];
                col_s[x] += c[x * WAFER_NDIR + WAFER_S];
            }
        }
        return;
    }
    /* count, then write: both from the column counts above the part, which
     * the count leaves summed and the write needs afresh */
    int64_t *run = j->col + (size_t)j->nparts * 2 * w + (size_t)k * 2 * w;
    memcpy(run, col_n, 2 * w * sizeof *run);
    int write = j->stage == STAGE_WRITE, list = write && p->count > 0; /* else maybe no arrays yet */
    int *link = list ? j->o->sp->link + j->n0 + p->at : NULL;
    double *load = list ? j->o->sp->load + j->n0 + p->at : NULL;
    size_t count = 0;
    for (int y = y0; y < y1; y++) {
        int32_t *c = rc->cnt + (size_t)y * rc->pitch;
        if (y < rc->h)
            count += route_part_row(c, (size_t)y * w * WAFER_NDIR, w, run, run + w, j->o->unit,
                                    link ? link + count : NULL, load ? load + count : NULL);
        if (write)
            memset(c, 0, rc->pitch * sizeof *c);
    }
    p->count = count;
}

/* Marks the flows on every part at once; returns the flows walked (n, or
 * the first bad one, which every part stops at) with the rows they touched
 * in rc, as route_clean. Every flow has a marker in some part's rows, so
 * the parts' tallies and rows together are the flows'. */
static size_t route_parts_mark(route_parts_job *j, route_tally *t)
{
    j->stage = STAGE_MARKS;
    par_run(j->nparts, route_parts_stage, j);
    route_ctx *rc = j->rc;
    *t = j->part[0].t;
    rc->row_lo = j->part[0].lo;
    rc->row_hi = j->part[0].hi;
    for (int k = 1; k < j->nparts; k++) {
        const route_part *p = &j->part[k];
        t->max_hops = p->t.max_hops > t->max_hops ? p->t.max_hops : t->max_hops;
        t->max_lat = p->t.max_lat > t->max_lat ? p->t.max_lat : t->max_lat;
        rc->row_lo = p->lo < rc->row_lo ? p->lo : rc->row_lo;
        rc->row_hi = p->hi > rc->row_hi ? p->hi : rc->row_hi;
    }
    return j->part[0].done;
}

/* Lists the marked links into j->o->sp and clears the cells. */
static void route_parts_drain(route_parts_job *j)
{
    route_ctx *rc = j->rc;
    size_t w2 = 2 * (size_t)rc->w;
    for (size_t x = 0; x < w2; x++) {
        int64_t above = 0;
        for (int k = 0; k < j->nparts; k++) {
            int64_t *c = &j->col[(size_t)k * w2 + x], own = *c;
            *c = above;
            above += own;
        }
    }
    j->stage = STAGE_COUNT;
    par_run(j->nparts, route_parts_stage, j);
    size_t total = 0;
    for (int k = 0; k < j->nparts; k++) {
        j->part[k].at = total;
        total += j->part[k].count;
    }
    if (route_sparse_reserve(j->o->sp, total) < 0) {
        route_out none = {NULL, NULL, 0.0, 0};
        route_drain(rc, &none);
        j->o->oom = 1;
        return;
    }
    j->stage = STAGE_WRITE;
    par_run(j->nparts, route_parts_stage, j);
    j->o->sp->n += total;
    rc->row_lo = INT_MAX;
    rc->row_hi = -1;
}

/* The whole call on a faulty wafer: rules 1 and 2 here, rule 3 queued.
 * Returns the index of the first bad flow, or n; *oom on a failed queue. */
WT_COLD size_t route_faulty(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode,
                              route_tally *t, int *detoured, int *oom)
{
    const int wi = rc->w;
    size_t i;
    for (i = 0; i < n; i++) {
        const route_flow *f = &flows[i];
        if (route_flow_bad(rc->nunits, f->src, f->dst, f->bytes))
            break;
        if (f->src == f->dst)
            continue;
        int y0 = f->src / wi, x0 = f->src - y0 * wi;
        int y1 = f->dst / wi, x1 = f->dst - y1 * wi;
        int r0, r1 = 0;
        double b = f->bytes;
        int32_t k = b > 0; /* an empty flow covers no link */
        if (mode != ROUTE_BALANCED) {
            r0 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, mode == ROUTE_XY, b, k);
        } else if ((x0 == x1 || y0 == y1) && !route_dor_bad(rc, x0, y0, x1, y1, 1)) {
            r0 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, 1, b, 2 * k);
        } else {
            r0 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, 1, 0.5 * b, k);
            if (r0 >= 0)
                r1 = route_half(rc, i, f->src, f->dst, x0, y0, x1, y1, 0, 0.5 * b, k);
        }
        if (r0 < 0 || r1 < 0) {
            *oom = 1;
            return i;
        }
        *detoured += (r0 != 0) + (r1 != 0);
        /* Both halves queue for rule 3 or neither does. */
        if (r0 < 2) {
            route_rows(&rc->row_lo, &rc->row_hi, y0, y1);
            route_tally_flow(rc, t, x0, y0, x1, y1);
        }
    }
    return i;
}

/* Routes the flows into the cells and, when that worked, drains them into
 * o; on any error the cells are cleared and st is zero. */
static int route_call(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode,
                      route_out *o, route_stats *st, wt_err *e)
{
    memset(st, 0, sizeof *st);
    if ((int)mode < 0 || mode >= ROUTE_NMODES) {
        wt_fail(e, "route: unknown routing mode %d", (int)mode);
        return WT_EINTERNAL;
    }
    if (n >= (size_t)1 << 30) {
        wt_fail(e, "route: %zu flows in one call, more than the counts hold", n);
        return WT_EINTERNAL;
    }
    double bytes = 0;
    rc->mixed = route_mixed(rc, flows, n, &bytes);
    if (rc->mixed && !rc->sum) {
        rc->sum = calloc(((size_t)rc->h + 1) * rc->pitch, sizeof *rc->sum);
        if (!rc->sum) {
            rc->mixed = 0;
            return wt_oom(e, "route sums");
        }
    }
    route_tally t = {0, 0.0};
    int oom = 0, rv = WT_OK;
    size_t done;
    rc->npend = 0;
    route_parts_job pj = {.rc = rc, .flows = flows, .n = n, .mode = mode, .o = o, .n0 = o->sp ? o->sp->n : 0,
                          .nparts = !rc->faulty && !rc->mixed && o->sp ? route_ctx_parts(rc, 2 * n) : 1};
    /* each part's column counts twice over: where it starts, and running */
    if (pj.nparts > 1 && !(pj.col = malloc(4 * (size_t)pj.nparts * (size_t)rc->w * sizeof *pj.col)))
        pj.nparts = 1; /* no room to split: one walk */
    if (rc->faulty) {
        done = route_faulty(rc, flows, n, mode, &t, &st->detoured, &oom);
    } else if (pj.nparts > 1) {
        done = route_parts_mark(&pj, &t);
    } else {
        route_geo g = route_geo_of(rc);
        done = route_clean(rc, &g, flows, n, mode, &t, &rc->row_lo, &rc->row_hi);
    }
    st->max_hops = t.max_hops;
    st->max_latency = rc->multi ? t.max_lat : (double)t.max_hops * rc->wf->link_lat;

    if (oom) {
        rv = wt_oom(e, "route detour list");
    } else if (done < n) {
        const route_flow *f = &flows[done];
        wt_fail(e, "route: flow %zu from unit %d to %d with %g bytes is not in the %dx%d mesh", done,
                f->src, f->dst, f->bytes, rc->w, rc->h);
        rv = WT_EINTERNAL;
    } else if (rc->npend > 0) {
        size_t fail = SIZE_MAX;
        rv = route_detours(rc, st, &fail);
        if (rv != WT_OK) {
            wt_fail(e, "route: detour walk lost its way (bug)");
        } else if (fail != SIZE_MAX) {
            const route_flow *f = &flows[fail];
            int w = rc->w;
            rv = wt_fail(e, "no route from %d,%d to %d,%d", f->src % w, f->src / w, f->dst % w,
                         f->dst / w);
        }
    }
    if (rv != WT_OK) {
        route_out none = {NULL, NULL, 0.0, 0};
        route_drain(rc, &none);
        memset(st, 0, sizeof *st);
        free(pj.col);
        return rv;
    }
    if (!rc->mixed)
        o->unit = mode == ROUTE_BALANCED ? 0.5 * bytes : bytes;
    if (pj.nparts > 1)
        route_parts_drain(&pj);
    else
        route_drain(rc, o);
    free(pj.col);
    return WT_OK;
}

int route_flows(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode, double *load,
                route_stats *st, wt_err *e)
{
    route_stats scratch;
    if (!rc || (n > 0 && (!flows || !load))) {
        if (st)
            memset(st, 0, sizeof *st);
        wt_fail(e, "route: missing context, flows or load array");
        return WT_EINTERNAL;
    }
    route_out o = {load, NULL, 0.0, 0};
    return route_call(rc, flows, n, mode, &o, st ? st : &scratch, e);
}

int route_flows_sparse(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode,
                       route_sparse *out, route_stats *st, wt_err *e)
{
    route_stats scratch;
    if (!rc || !out || (n > 0 && !flows) || out->n > out->cap ||
        (out->cap > 0 && (!out->link || !out->load))) {
        if (st)
            memset(st, 0, sizeof *st);
        wt_fail(e, "route: missing context, flows or list");
        return WT_EINTERNAL;
    }
    size_t n0 = out->n;
    route_out o = {NULL, out, 0.0, 0};
    int rv = route_call(rc, flows, n, mode, &o, st ? st : &scratch, e);
    if (rv == WT_OK && o.oom) {
        out->n = n0;
        if (st)
            memset(st, 0, sizeof *st);
        return wt_oom(e, "route link list");
    }
    return rv;
}

static const choice route_modes[] = {
    [ROUTE_XY] = {"xy", 0},
    [ROUTE_YX] = {"yx", 0},
    [ROUTE_BALANCED] = {"balanced", 0},
};
_Static_assert(sizeof route_modes / sizeof route_modes[0] == ROUTE_NMODES, "one row per route_mode");

choice_table route_mode_table(void)
{
    return CHOICE_TABLE(route_modes);
}

int route_mode_parse(const char *s)
{
    return choice_find(route_mode_table(), s);
}

const char *route_mode_name(route_mode m)
{
    return choice_at(route_mode_table(), m)->name;
}
