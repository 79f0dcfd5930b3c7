/*
 * route_line.c - the loads of two busy patterns in closed form, without
 * their flows (contract in route.h).
 *
 * On one wafer without faults every flow takes its dimension-order path
 * (rule 1), and a flow along one row or column has the same path in every
 * mode: a balanced one is two halves of half the bytes on that one path.
 * So a link's load is the number of flows over it, and it is the same
 * double route_flows_sparse lists (count x 1.0, or 2 x count x 0.5).
 *
 * Lines (route_lines_sparse): every line sends the same flows between its
 * positions, so one difference array over len positions gives each
 * position's forward (E or S) and backward (W or N) count for every line,
 * and the list is those counts laid out in slot order: along rows, line by
 * line in unit order; along columns, a band of lines that start on the
 * same row, row by row across the band.
 *
 * Rows (route_rows_sparse): every flow runs within its row between a unit
 * and the column its row's port is on, so each row is one difference array
 * of w + 1 cells per direction, swept once, and rows come out in order.
 */
#include "route.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Room for more entries in out (at least doubling), so that the loops
 * that list links need no test; -1 when memory runs out. */
static int reserve(route_sparse *out, size_t more)
{
    size_t need = out->n + more;
    if (need <= out->cap)
        return 0;
    if (need < 2 * out->cap)
        need = 2 * out->cap;
    int *l = realloc(out->link, need * sizeof *l);
    if (l)
        out->link = l;
    double *d = l ? realloc(out->load, need * sizeof *d) : NULL;
    if (!d)
        return -1;
    out->load = d;
    out->cap = need;
    return 0;
}

static void push(route_sparse *out, size_t slot, int64_t count)
{
    out->link[out->n] = (int)slot;
    out->load[out->n++] = (double)count;
}

/* Stats of a call whose longest path is hops links, on one wafer. */
static void stats_of(route_stats *st, const wafer *wf, int hops)
{
    st->max_hops = hops;
    st->max_latency = (double)hops * wf->link_lat;
    st->detoured = 0;
}

/* Adds one flow from position a to b of a line into the difference arrays
 * (fwd covers a .. b-1, back b+1 .. a); returns its hops. */
static int line_flow(int64_t *dfwd, int64_t *dback, int a, int b)
{
    if (a < b) {
        dfwd[a]++;
        dfwd[b]--;
    } else if (a > b) {
        dback[b + 1]++;
        dback[a + 1]--;
    }
    return abs(b - a);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts the origins and checks that the lines lie in the mesh and share no
 * unit, and that lines along columns come in bands: lines starting on rows
 * less than len apart start on the same row. */
static int lines_fit(const wafer *wf, const route_lines *L)
{
    int w = wf->w, h = wf->h, n = L->nlines, len = L->len;
    int sorted = 1;
    for (int i = 0; i < n; i++) {
        int o = L->origin[i];
        if (o < 0 || o >= w * h || (L->column ? o / w + len > h : o % w + len > w))
            return 0;
        sorted &= i == 0 || L->origin[i - 1] < o;
    }
    if (!sorted)
        qsort(L->origin, (size_t)n, sizeof *L->origin, cmp_int);
    for (int i = 1; i < n; i++) {
        int a = L->origin[i - 1], b = L->origin[i];
        if (L->column ? (b / w != a / w && b / w < a / w + len) || a == b : b < a + len)
            return 0;
    }
    return 1;
}

int route_lines_sparse(route_ctx *rc, const route_lines *L, route_sparse *out, route_stats *st, int *covered,
                       wt_err *e)
{
    const wafer *wf = route_ctx_wafer(rc);
    *covered = 0;
    if (!route_ctx_clean(rc) || L->len < 1 || L->nlines < 0 || !lines_fit(wf, L))
        return WT_OK;
    int len = L->len, hops = 0;
    for (int p = 0; p < len; p++)
        if (L->to[p] < 0 || L->to[p] >= len) {
            wt_fail(e, "route: line position %d sends to %d of %d", p, L->to[p], len);
            return WT_EINTERNAL;
        }
    int64_t *d = calloc(2 * ((size_t)len + 1), sizeof *d);
    if (!d)
        return wt_oom(e, "route lines");
    int64_t *dfwd = d, *dback = d + len + 1;
    for (int p = 0; p < len; p++) {
        int h = line_flow(dfwd, dback, p, L->to[p]);
        if (L->two_way)
            line_flow(dfwd, dback, L->to[p], p);
        hops = h > hops ? h : hops;
    }
    /* The counts in place of the differences, and how many are not 0. */
    size_t per_line = 0;
    for (int64_t p = 0, f = 0, b = 0; p < len; p++) {
        dfwd[p] = f += dfwd[p];
        dback[p] = b += dback[p];
        per_line += (dfwd[p] != 0) + (dback[p] != 0);
    }
    if (reserve(out, per_line * (size_t)L->nlines) < 0) {
        free(d);
        return wt_oom(e, "route link list");
    }
    size_t w = (size_t)wf->w;
    const int *o = L->origin;
    if (!L->column) {
        for (int i = 0; i < L->nlines; i++)
            for (int p = 0; p < len; p++) {
                size_t slot = ((size_t)o[i] + (size_t)p) * WAFER_NDIR;
                if (dfwd[p])
                    push(out, slot + WAFER_E, dfwd[p]);
                if (dback[p])
                    push(out, slot + WAFER_W, dback[p]);
            }
    }
    for (int i = 0, j; L->column && i < L->nlines; i = j) {
        for (j = i; j < L->nlines && o[j] / wf->w == o[i] / wf->w; j++)
            ;
        for (int p = 0; p < len; p++)
            for (int k = i; k < j; k++) {
                size_t slot = ((size_t)o[k] + (size_t)p * w) * WAFER_NDIR;
                if (dback[p])
                    push(out, slot + WAFER_N, dback[p]);
                if (dfwd[p])
                    push(out, slot + WAFER_S, dfwd[p]);
            }
    }
    free(d);
    stats_of(st, wf, L->nlines > 0 ? hops : 0);
    *covered = 1;
    return WT_OK;
}

int route_rows_sparse(route_ctx *rc, const int *on, const int *port_x, int back, route_sparse *out,
                      route_stats *st, int *covered, wt_err *e)
{
    const wafer *wf = route_ctx_wafer(rc);
    int w = wf->w, hops = 0;
    *covered = 0;
    if (!route_ctx_clean(rc))
        return WT_OK;
    for (int x = 0; x < w; x++)
        if (port_x[x] < 0 || port_x[x] >= w) {
            wt_fail(e, "route: column %d's port is at column %d of %d", x, port_x[x], w);
            return WT_EINTERNAL;
        }
    int32_t *d = calloc(2 * ((size_t)w + 1), sizeof *d);
    if (!d)
        return wt_oom(e, "route rows");
    int32_t *de = d, *dw = d + w + 1;
    size_t n0 = out->n;
    for (int y = 0; y < wf->h; y++) {
        const int *row = on + (size_t)y * (size_t)w;
        int any = 0;
        for (int x = 0; x < w; x++) {
            if (row[x] < 0 || port_x[x] == x)
                continue;
            int a = back ? port_x[x] : x, b = back ? x : port_x[x];
            int h = abs(b - a);
            hops = h > hops ? h : hops;
            any = 1;
            if (a < b) {
                de[a]++;
                de[b]--;
            } else {
                dw[b + 1]++;
                dw[a + 1]--;
            }
        }
        if (!any)
            continue;
        if (reserve(out, 2 * (size_t)w) < 0) {
            out->n = n0;
            free(d);
            return wt_oom(e, "route link list");
        }
        size_t slot = (size_t)y * (size_t)w * WAFER_NDIR;
        int64_t ce = 0, cw = 0;
        for (int x = 0; x < w; x++, slot += WAFER_NDIR) {
            ce += de[x];
            cw += dw[x];
            if (ce)
                push(out, slot + WAFER_E, ce);
            if (cw)
                push(out, slot + WAFER_W, cw);
        }
        memset(d, 0, 2 * ((size_t)w + 1) * sizeof *d);
    }
    free(d);
    stats_of(st, wf, hops);
    *covered = 1;
    return WT_OK;
}
