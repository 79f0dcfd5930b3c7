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
 * positions, stride mesh positions apart along a row or a column. Mesh
 * lines (rows or columns) whose lines start at the same places carry the
 * same counts, so one difference array over a mesh line per run of such
 * mesh lines (a class) gives each position's forward (E or S) and backward
 * (W or N) count, the flows of lines that interleave or coincide added.
 * The list is those
 * counts laid out in slot order: along rows, each row its class's counts;
 * along columns, each row the counts at that row of every column carrying
 * lines, column by column.
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

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/*
 * The lines of a call by the mesh lines (rows or columns) they lie on:
 * mesh line k holds offsets at[k] .. at[k + 1] - 1 of off, the positions
 * of its lines' origins along it, ascending; cls[k] is its class (-1 with
 * no lines): a run of mesh lines with lines, each with the same offsets as
 * the one before, is one class, rep[c] its first. Each class has
 * the counts of its lines' flows at every position of a mesh line:
 * fwd (E or S) and back (W or N), with nz[c] the positions where either
 * is nonzero; mult[c] mesh lines are of class c.
 */
typedef struct lines_job {
    const route_lines *L;
    int w, h, ncls;
    int *at, *off, *cls;     /* mesh lines: w or h + 1, nlines, w or h */
    int *rep, *mult;         /* each class's first mesh line, and count */
    double *fwd, *back;      /* ncls x M (the length of a mesh line) */
    int *nz;                 /* ncls x M along columns (0 or 1 per direction, summed), ncls along rows */
    size_t *row_at;          /* h + 1: counts, then each row's first entry */
    route_sparse *out;       /* NULL in the counting walk */
    size_t n0;
    int nparts;
} lines_job;

/* Adds one flow from position a to b of a mesh line into the difference
 * arrays (fwd covers a .. b-1, back b+1 .. a). */
static void line_flow(int64_t *dfwd, int64_t *dback, int a, int b)
{
    if (a < b) {
        dfwd[a]++;
        dfwd[b]--;
    } else if (a > b) {
        dback[b + 1]++;
        dback[a + 1]--;
    }
}

/* Class c's counts from the lines of its first mesh line: one difference
 * array per direction over the mesh line (d, 2 (len + 1) cells, zero). */
static void lines_counts(lines_job *j, int c, int64_t *d)
{
    const route_lines *L = j->L;
    int len = L->column ? j->h : j->w, s = L->stride, k = j->rep[c];
    int64_t *dfwd = d, *dback = d + len + 1;
    for (int i = j->at[k]; i < j->at[k + 1]; i++)
        for (int p = 0; p < L->len; p++) {
            int a = j->off[i] + p * s, b = j->off[i] + L->to[p] * s;
            line_flow(dfwd, dback, a, b);
            if (L->two_way)
                line_flow(dfwd, dback, b, a);
        }
    double *fwd = j->fwd + (size_t)c * (size_t)len, *back = j->back + (size_t)c * (size_t)len;
    int nz = 0;
    for (int64_t q = 0, f = 0, b = 0; q < len; q++) {
        f += dfwd[q];
        b += dback[q];
        fwd[q] = (double)f;
        back[q] = (double)b;
        if (L->column)
            j->nz[(size_t)c * (size_t)len + (size_t)q] = (f != 0) + (b != 0);
        else
            nz += (f != 0) + (b != 0);
    }
    if (!L->column)
        j->nz[c] = nz;
}

/* Row y's entries, written at its offset when the list is there; returns
 * their number. Along rows: its class's counts, E before W. Along
 * columns: each column's N then S count at y, by column. */
static size_t lines_row(const lines_job *j, int y)
{
    const route_lines *L = j->L;
    int w = j->w;
    size_t n = 0;
    int *link = j->out ? j->out->link + j->n0 + j->row_at[y] : NULL;
    double *load = j->out ? j->out->load + j->n0 + j->row_at[y] : NULL;
    if (!L->column) {
        int c = j->cls[y];
        if (c < 0 || !link)
            return c < 0 ? 0 : (size_t)j->nz[c];
        const double *fwd = j->fwd + (size_t)c * (size_t)w, *back = j->back + (size_t)c * (size_t)w;
        size_t base = (size_t)y * (size_t)w * WAFER_NDIR;
        for (int x = 0; x < w; x++) {
            size_t slot = base + (size_t)x * WAFER_NDIR;
            if (fwd[x] != 0) {
                link[n] = (int)(slot + WAFER_E);
                load[n++] = fwd[x];
            }
            if (back[x] != 0) {
                link[n] = (int)(slot + WAFER_W);
                load[n++] = back[x];
            }
        }
        return n;
    }
    if (!link) {
        for (int c = 0; c < j->ncls; c++)
            n += (size_t)j->mult[c] * (size_t)j->nz[(size_t)c * (size_t)j->h + (size_t)y];
        return n;
    }
    size_t base = (size_t)y * (size_t)w * WAFER_NDIR;
    for (int x = 0; x < w; x++) {
        int c = j->cls[x];
        if (c < 0)
            continue;
        size_t at = (size_t)c * (size_t)j->h + (size_t)y, slot = base + (size_t)x * WAFER_NDIR;
        if (j->back[at] != 0) {
            link[n] = (int)(slot + WAFER_N);
            load[n++] = j->back[at];
        }
        if (j->fwd[at] != 0) {
            link[n] = (int)(slot + WAFER_S);
            load[n++] = j->fwd[at];
        }
    }
    return n;
}

static void lines_range(void *ctx, int part)
{
    lines_job *j = ctx;
    size_t y0, y1;
    par_range((size_t)j->h, part, j->nparts, &y0, &y1);
    for (size_t y = y0; y < y1; y++) {
        size_t n = lines_row(j, (int)y);
        if (!j->out)
            j->row_at[y + 1] = n;
    }
}

/* The mesh lines' offsets (sorted origins: along rows each row's run;
 * along columns counted into columns in row order) and their classes.
 * Returns 0 when a line leaves the mesh. */
static int lines_classes(lines_job *j)
{
    const route_lines *L = j->L;
    int w = j->w, h = j->h, K = L->column ? w : h, M = L->column ? h : w, span = (L->len - 1) * L->stride;
    for (int i = 0; i < L->nlines; i++) {
        int o = L->origin[i];
        if (o < 0 || o >= w * h || (L->column ? o / w : o % w) + span >= M)
            return 0;
        j->at[(L->column ? o % w : o / w) + 1]++;
    }
    for (int k = 0; k < K; k++)
        j->at[k + 1] += j->at[k];
    for (int i = 0; i < L->nlines; i++) {
        int o = L->origin[i], k = L->column ? o % w : o / w;
        j->off[j->at[k]++] = L->column ? o / w : o % w;
    }
    for (int k = K; k > 0; k--)
        j->at[k] = j->at[k - 1];
    j->at[0] = 0;
    for (int k = 0; k < K; k++) { /* each mesh line's offsets ascending */
        int *o = j->off + j->at[k], n = j->at[k + 1] - j->at[k], sorted = 1;
        for (int i = 1; i < n; i++)
            sorted &= o[i - 1] <= o[i];
        if (!sorted)
            qsort(o, (size_t)n, sizeof *o, cmp_int);
    }
    int last = -1; /* the mesh line with lines before k */
    j->ncls = 0;
    for (int k = 0; k < K; k++) {
        int n = j->at[k + 1] - j->at[k], c;
        j->cls[k] = -1;
        if (n == 0)
            continue;
        if (last >= 0 && j->at[last + 1] - j->at[last] == n &&
            !memcmp(j->off + j->at[last], j->off + j->at[k], (size_t)n * sizeof *j->off)) {
            c = j->cls[last];
        } else {
            c = j->ncls++;
            j->rep[c] = k;
            j->mult[c] = 0;
        }
        j->cls[k] = c;
        j->mult[c]++;
        last = k;
    }
    return 1;
}

int route_lines_sparse(route_ctx *rc, const route_lines *L, route_sparse *out, route_stats *st, int *covered,
                       wt_err *e)
{
    const wafer *wf = route_ctx_wafer(rc);
    *covered = 0;
    int len = L->len, hops = 0, w = wf->w, h = wf->h, mesh_line = L->column ? h : w;
    /* a line longer than a mesh line leaves the mesh (and its span would
     * not fit an int) */
    if (!route_ctx_clean(rc) || len < 1 || L->nlines < 0 || L->stride < 1 ||
        (len > 1 && L->stride > (mesh_line - 1) / (len - 1)))
        return WT_OK;
    for (int p = 0; p < len; p++) {
        if (L->to[p] < 0 || L->to[p] >= len) {
            wt_fail(e, "route: line position %d sends to %d of %d", p, L->to[p], len);
            return WT_EINTERNAL;
        }
        int d = abs(L->to[p] - p) * L->stride;
        hops = d > hops ? d : hops;
    }
    /* one block of ints: at, off, cls, rep, mult; then the counts */
    size_t K = (size_t)(L->column ? w : h), M = (size_t)(L->column ? h : w), nl = (size_t)L->nlines;
    int *ints = calloc(K + 1 + nl + 3 * K, sizeof *ints);
    size_t *row_at = malloc(sizeof *row_at * ((size_t)h + 1));
    lines_job j = {L, w, h, 0, ints, ints + K + 1, ints + K + 1 + nl, ints + 2 * K + 1 + nl,
                   ints + 3 * K + 1 + nl, NULL, NULL, NULL, row_at, NULL, 0, 1};
    int64_t *d = NULL;
    int rv = WT_OK;
    if (!ints || !row_at) {
        rv = wt_oom(e, "route lines");
        goto done;
    }
    if (!lines_classes(&j))
        goto done;
    size_t cells = (size_t)j.ncls * M;
    j.fwd = malloc(sizeof *j.fwd * (2 * cells + 1));
    j.nz = malloc(sizeof *j.nz * (L->column ? cells + 1 : (size_t)j.ncls + 1));
    d = malloc(sizeof *d * 2 * (M + 1));
    if (!j.fwd || !j.nz || !d) {
        rv = wt_oom(e, "route lines");
        goto done;
    }
    j.back = j.fwd + cells;
    for (int c = 0; c < j.ncls; c++) {
        memset(d, 0, sizeof *d * 2 * (M + 1));
        lines_counts(&j, c, d);
    }
    j.nparts = route_ctx_parts(rc, nl * (size_t)len);
    row_at[0] = 0;
    par_run(j.nparts, lines_range, &j);
    for (int y = 0; y < h; y++)
        row_at[y + 1] += row_at[y];
    if (route_sparse_reserve(out, row_at[h]) < 0) {
        rv = wt_oom(e, "route link list");
        goto done;
    }
    j.out = out;
    j.n0 = out->n;
    if (row_at[h] > 0) /* else the list may have no arrays yet */
        par_run(j.nparts, lines_range, &j);
    out->n += row_at[h];
    stats_of(st, wf, L->nlines > 0 ? hops : 0);
    *covered = 1;
done:
    free(ints);
    free(row_at);
    free(j.fwd);
    free(j.nz);
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
