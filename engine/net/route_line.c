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
 * of w + 1 cells per direction, swept once, and rows come out in order; a
 * row with the same units on as the row swept before it has the same
 * counts, one row down.
 *
 * Both write their lists on the cores at once on a wafer (route_ctx_parts),
 * each part a range of the list at an offset known before it writes, so
 * the list is the same whatever the split.
 */
#include "route.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

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

/* One nonzero count of a line: the slot it loads, relative to the slot of
 * the line's origin, and the flows over it. */
typedef struct line_entry {
    size_t off;
    double load;
} line_entry;

/*
 * A line pattern's list, written in runs that split over the cores: a run
 * is some lines times some of a line's entries, at an offset known before
 * any is written (every line has the same entries). Along rows a run is one
 * line, all its entries; along columns, one band of lines at one position,
 * its entries on each line of the band in turn.
 */
typedef struct lines_job {
    const route_lines *L;
    const line_entry *ent;    /* per_line, in slot order within a line */
    const size_t *before;     /* columns: entries of a line before position p, len + 1 */
    const int *band;          /* columns: first line of each band, nbands + 1 */
    size_t per_line, n0, nruns;
    route_sparse *out;
    int nparts;
} lines_job;

static void lines_range(void *ctx, int part)
{
    const lines_job *j = ctx;
    const route_lines *L = j->L;
    size_t r0 = par_first(j->nruns, part, j->nparts), r1 = par_first(j->nruns, part + 1, j->nparts);
    for (size_t r = r0; r < r1; r++) {
        size_t first = r, last = r + 1, e0 = 0, e1 = j->per_line, at = r * j->per_line;
        if (L->column) {
            size_t b = r / (size_t)L->len, p = r % (size_t)L->len;
            first = (size_t)j->band[b];
            last = (size_t)j->band[b + 1];
            e0 = j->before[p];
            e1 = j->before[p + 1];
            at = first * j->per_line + e0 * (last - first);
        }
        int *link = j->out->link + j->n0 + at;
        double *load = j->out->load + j->n0 + at;
        for (size_t k = first; k < last; k++) {
            size_t base = (size_t)L->origin[k] * WAFER_NDIR;
            for (size_t i = e0; i < e1; i++) {
                *link++ = (int)(base + j->ent[i].off);
                *load++ = j->ent[i].load;
            }
        }
    }
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
    /* one block: the differences, a line's entries, where each position's
     * start, and along columns where each band starts */
    size_t n = (size_t)len + 1, bands = L->column ? (size_t)L->nlines + 1 : 1;
    _Static_assert(sizeof(line_entry) % sizeof(int64_t) == 0 && sizeof(size_t) <= sizeof(int64_t), "aligned parts");
    int64_t *d = calloc(2 * n + 4 * n + n + bands, sizeof *d);
    if (!d)
        return wt_oom(e, "route lines");
    int64_t *dfwd = d, *dback = d + n;
    line_entry *ent = (line_entry *)(d + 2 * n);
    size_t *before = (size_t *)(d + 6 * n);
    int *band = (int *)(d + 7 * n);
    int rv = WT_OK;
    for (int p = 0; p < len; p++) {
        int h = line_flow(dfwd, dback, p, L->to[p]);
        if (L->two_way)
            line_flow(dfwd, dback, L->to[p], p);
        hops = h > hops ? h : hops;
    }
    /* The counts from the differences, as a line's entries in slot order:
     * E before W along a row, N before S along a column. */
    size_t per_line = 0, step = L->column ? (size_t)wf->w * WAFER_NDIR : WAFER_NDIR;
    int lo = L->column ? WAFER_N : WAFER_E, hi = L->column ? WAFER_S : WAFER_W;
    for (int64_t p = 0, f = 0, b = 0; p < len; p++) {
        f += dfwd[p];
        b += dback[p];
        int64_t c_lo = L->column ? b : f, c_hi = L->column ? f : b;
        before[p] = per_line;
        if (c_lo)
            ent[per_line++] = (line_entry){(size_t)p * step + (size_t)lo, (double)c_lo};
        if (c_hi)
            ent[per_line++] = (line_entry){(size_t)p * step + (size_t)hi, (double)c_hi};
    }
    before[len] = per_line;
    size_t nbands = 0, total = per_line * (size_t)L->nlines;
    for (int i = 0; L->column && i < L->nlines; i++)
        if (i == 0 || L->origin[i] / wf->w != L->origin[i - 1] / wf->w)
            band[nbands++] = i;
    band[nbands] = L->nlines;
    if (route_sparse_reserve(out, total) < 0) {
        rv = wt_oom(e, "route link list");
        goto done;
    }
    lines_job j = {L, ent, before, band, per_line, out->n, L->column ? nbands * (size_t)len : (size_t)L->nlines,
                   out, route_ctx_parts(rc, total)};
    if (total > 0) /* else the list may have no arrays yet */
        par_run(j.nparts, lines_range, &j);
    out->n += total;
    stats_of(st, wf, L->nlines > 0 ? hops : 0);
    *covered = 1;
done:
    free(d);
    return rv;
}

/*
 * The store's rows, split over the cores by ranges of rows, in two walks:
 * the first counts each row's entries (row_at[y + 1]), the second, once
 * they are summed into offsets, writes each row's at its offset, so the
 * parts write one list in row order without waiting for each other.
 */
typedef struct rows_job {
    const int *on, *port_x;
    int w, h, back, nparts;
    int32_t *cells;          /* nparts x 2 (w + 1) difference cells, zero between rows */
    size_t *row_at;          /* h + 1: counts, then each row's first entry */
    route_sparse *out;       /* NULL in the counting walk */
    size_t n0;
    int hops[PAR_MAX];       /* longest path of each part */
} rows_job;

/* Row y's flows into the difference arrays de and dw; 0 when it has none. */
static int row_diff(rows_job *j, int y, int32_t *de, int32_t *dw, int *hops)
{
    const int *row = j->on + (size_t)y * (size_t)j->w, *port_x = j->port_x;
    int any = 0, most = *hops, w = j->w, back = j->back;
    for (int x = 0; x < w; x++) {
        int px = port_x[x];
        if (row[x] < 0 || px == x)
            continue;
        int a = back ? px : x, b = back ? x : px;
        int h = abs(b - a);
        most = h > most ? h : most;
        any = 1;
        if (a < b) {
            de[a]++;
            de[b]--;
        } else {
            dw[b + 1]++;
            dw[a + 1]--;
        }
    }
    *hops = most;
    return any;
}

/* 1 when rows a and b have the same units on: the same flows, shifted. */
static int rows_alike(const rows_job *j, int a, int b)
{
    const int *ra = j->on + (size_t)a * (size_t)j->w, *rb = j->on + (size_t)b * (size_t)j->w;
    int differ = 0;
    for (int x = 0; x < j->w; x++)
        differ |= (ra[x] < 0) != (rb[x] < 0);
    return !differ;
}

/* Row y's entries as those of row prev, alike and listed before it by the
 * same part: the same counts on the links (y - prev) rows down. */
static void rows_copy(rows_job *j, int prev, int y)
{
    if (!j->out) {
        j->row_at[y + 1] = j->row_at[prev + 1];
        return;
    }
    size_t from = j->n0 + j->row_at[prev], to = j->n0 + j->row_at[y], n = j->row_at[prev + 1] - j->row_at[prev];
    if (n == 0) /* nothing listed: the list may have no arrays yet */
        return;
    int shift = (y - prev) * j->w * WAFER_NDIR;
    const int *link = j->out->link + from;
    int *dst = j->out->link + to;
    for (size_t i = 0; i < n; i++)
        dst[i] = link[i] + shift;
    memcpy(j->out->load + to, j->out->load + from, n * sizeof *j->out->load);
}

static void rows_range(void *ctx, int part)
{
    rows_job *j = ctx;
    size_t w = (size_t)j->w;
    int32_t *de = j->cells + (size_t)part * 2 * (w + 1), *dw = de + w + 1;
    int y0 = (int)par_first((size_t)j->h, part, j->nparts), y1 = (int)par_first((size_t)j->h, part + 1, j->nparts);
    int hops = 0, prev = -1; /* the last row this part swept */
    for (int y = y0; y < y1; y++) {
        /* a busy wafer's rows are mostly alike: one sweep serves them */
        if (prev >= 0 && rows_alike(j, prev, y)) {
            rows_copy(j, prev, y);
            continue;
        }
        prev = y;
        if (!row_diff(j, y, de, dw, &hops)) {
            if (!j->out)
                j->row_at[y + 1] = 0;
            continue;
        }
        int64_t ce = 0, cw = 0;
        if (!j->out) {
            size_t n = 0;
            for (size_t x = 0; x < w; x++) {
                ce += de[x];
                cw += dw[x];
                n += (ce != 0) + (cw != 0);
            }
            j->row_at[y + 1] = n;
        } else {
            size_t at = j->n0 + j->row_at[y], slot = (size_t)y * w * WAFER_NDIR;
            int *link = j->out->link + at;
            double *load = j->out->load + at;
            for (size_t x = 0; x < w; x++, slot += WAFER_NDIR) {
                ce += de[x];
                cw += dw[x];
                if (ce) {
                    *link++ = (int)(slot + WAFER_E);
                    *load++ = (double)ce;
                }
                if (cw) {
                    *link++ = (int)(slot + WAFER_W);
                    *load++ = (double)cw;
                }
            }
        }
        memset(de, 0, 2 * (w + 1) * sizeof *de);
    }
    j->hops[part] = hops;
}

int route_rows_sparse(route_ctx *rc, const int *on, const int *port_x, int back, route_sparse *out,
                      route_stats *st, int *covered, wt_err *e)
{
    const wafer *wf = route_ctx_wafer(rc);
    int w = wf->w, h = wf->h;
    *covered = 0;
    if (!route_ctx_clean(rc))
        return WT_OK;
    for (int x = 0; x < w; x++)
        if (port_x[x] < 0 || port_x[x] >= w) {
            wt_fail(e, "route: column %d's port is at column %d of %d", x, port_x[x], w);
            return WT_EINTERNAL;
        }
    rows_job j = {.on = on, .port_x = port_x, .w = w, .h = h, .back = back, .n0 = out->n,
                  .nparts = route_ctx_parts(rc, wafer_nlinks(wf) / 2)};
    j.cells = calloc((size_t)j.nparts * 2 * ((size_t)w + 1), sizeof *j.cells);
    j.row_at = malloc(((size_t)h + 1) * sizeof *j.row_at);
    int rv = WT_OK;
    if (!j.cells || !j.row_at) {
        rv = wt_oom(e, "route rows");
        goto done;
    }
    par_run(j.nparts, rows_range, &j);
    j.row_at[0] = 0;
    for (int y = 0; y < h; y++)
        j.row_at[y + 1] += j.row_at[y];
    if (route_sparse_reserve(out, j.row_at[h]) < 0) {
        rv = wt_oom(e, "route link list");
        goto done;
    }
    j.out = out;
    par_run(j.nparts, rows_range, &j);
    out->n += j.row_at[h];
    int hops = 0;
    for (int k = 0; k < j.nparts; k++)
        hops = j.hops[k] > hops ? j.hops[k] : hops;
    stats_of(st, wf, hops);
    *covered = 1;
done:
    free(j.cells);
    free(j.row_at);
    return rv;
}
