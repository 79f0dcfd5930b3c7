/*
 * tiles.c - link figures by tile (contract in tiles.h).
 */
#include <stdlib.h>

#include "par.h"
#include "tiles.h"

void tiles_size(const wafer *wf, int tw, int th, int *nx, int *ny)
{
    *nx = (wf->w + tw - 1) / tw;
    *ny = (wf->h + th - 1) / th;
}

void tiles_count(const wafer *wf, int tw, int th, double *links, double *live)
{
    int nx, ny;
    tiles_size(wf, tw, th, &nx, &ny);
    for (size_t k = 0; k < (size_t)nx * (size_t)ny; k++) {
        links[k] = 0;
        if (live)
            live[k] = 0;
    }
    for (int y = 0; y < wf->h; y++) {
        size_t row = (size_t)(y / th) * (size_t)nx;
        for (int x0 = 0, kx = 0; x0 < wf->w; x0 += tw, kx++) { /* a tile's stretch of the row: no division per unit */
            int n = 0, alive = 0;
            for (int x = x0; x < x0 + tw && x < wf->w; x++) {
                unsigned m = wafer_usable_mask(wf, x, y); /* 0 for a dead unit */
                n += (int)((m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1));
                alive += !wf->unit_dead[wafer_unit(wf, x, y)];
            }
            links[row + (size_t)kx] += n;
            if (live)
                live[row + (size_t)kx] += alive;
        }
    }
}

/* Adds v into tile k. */
static void add(double *sum, double *max, size_t k, double v)
{
    sum[k] += v;
    max[k] = v > max[k] ? v : max[k]; /* not fmax: a libm call per link */
}

void tiles_add(const wafer *wf, int tw, int th, const double *val, const int *at, size_t nat, double *sum,
               double *max)
{
    int nx, ny;
    tiles_size(wf, tw, th, &nx, &ny);
    /* most links listed (a strategy over the whole wafer): walking the mesh
     * row by row costs no division per link, and adds the same values in
     * the same order */
    if (at && nat < wafer_nlinks(wf) / 2) {
        for (size_t i = 0; i < nat; i++) {
            int u = at[i] / WAFER_NDIR, d = at[i] % WAFER_NDIR;
            if (wafer_link_usable(wf, u, d))
                add(sum, max, (size_t)(wafer_y(wf, u) / th) * (size_t)nx + (size_t)(wafer_x(wf, u) / tw), val[at[i]]);
        }
        return;
    }
    for (int y = 0; y < wf->h; y++) {
        size_t row = (size_t)(y / th) * (size_t)nx;
        for (int x = 0; x < wf->w; x++) {
            unsigned m = wafer_usable_mask(wf, x, y);
            size_t l = (size_t)wafer_unit(wf, x, y) * WAFER_NDIR;
            for (int d = 0; d < WAFER_NDIR; d++)
                if (m >> d & 1)
                    add(sum, max, row + (size_t)(x / tw), val[l + (size_t)d]);
        }
    }
}

void tiles_classes_free(tiles_classes *tc)
{
    free(tc->start);
    free(tc->cls);
    free(tc->count);
    tc->start = tc->cls = tc->count = NULL;
}

/* One range of tiles' classes, built by one part (par.h): entries cls[]
 * and count[] (n of cap), each tile's first entry in the caller's start[]
 * counted from this range's first; met[c] the links of class c in the
 * current tile so far (zero between tiles). */
typedef struct classes_part {
    int *cls, *count;
    size_t n, cap;
    int *met;
    int failed;
} classes_part;

/* Room for one more entry in a; -1 out of memory. */
static int classes_room(classes_part *a)
{
    if (a->n < a->cap)
        return 0;
    size_t cap = a->cap ? 2 * a->cap : 1024;
    int *cls = realloc(a->cls, cap * sizeof *cls);
    if (cls)
        a->cls = cls;
    int *count = realloc(a->count, cap * sizeof *count);
    if (count)
        a->count = count;
    if (!cls || !count)
        return -1;
    a->cap = cap;
    return 0;
}

/* Counts one link of class c (0: none) in the current tile, a new entry
 * when c is first met there; -1 out of memory. */
static inline int classes_offer(classes_part *a, int c)
{
    if (!c || a->met[c]++)
        return 0;
    if (classes_room(a))
        return -1;
    a->cls[a->n++] = c;
    return 0;
}

/* The counts of the current tile's entries, from its first, and met[]
 * zero again. */
static void classes_close(classes_part *a, size_t first)
{
    for (size_t i = first; i < a->n; i++) {
        a->count[i] = a->met[a->cls[i]];
        a->met[a->cls[i]] = 0;
    }
}

/* The listed link slots (nat, ascending) by tile, each tile's ascending,
 * into by[nat], tile k's from first[k] (nt + 1 of them); -1 out of memory. */
static int links_by_tile(const wafer *wf, int tw, int th, const int *listed, size_t nat, int *by, int *first)
{
    int nx, ny;
    tiles_size(wf, tw, th, &nx, &ny);
    size_t nt = (size_t)nx * (size_t)ny;
    size_t *tile = malloc((nat ? nat : 1) * sizeof *tile);
    if (!tile)
        return -1;
    for (size_t k = 0; k <= nt; k++)
        first[k] = 0;
    for (size_t i = 0; i < nat; i++) {
        int u = listed[i] / WAFER_NDIR;
        tile[i] = (size_t)(wafer_y(wf, u) / th) * (size_t)nx + (size_t)(wafer_x(wf, u) / tw);
        first[tile[i] + 1]++;
    }
    for (size_t k = 0; k < nt; k++)
        first[k + 1] += first[k];
    for (size_t i = 0; i < nat; i++) /* stable: each tile's slots stay ascending */
        by[first[tile[i]]++] = listed[i];
    for (size_t k = nt; k > 0; k--)
        first[k] = first[k - 1];
    first[0] = 0;
    free(tile);
    return 0;
}

/* tiles_classes_new's work, split by ranges of tiles over the cores: each
 * part classes its tiles in the order one walk would, so the joined
 * entries are the same whatever the split. */
typedef struct classes_job {
    const wafer *wf;
    int tw, th, nx, nparts, nclasses;
    size_t nt;
    const int *of;
    const int *by, *first; /* the listed links by tile, or NULL: every link */
    int *start;            /* nt + 1: each tile's first entry, within its part until joined */
    classes_part part[PAR_MAX];
} classes_job;

/* Classes the usable links of tile k into a. */
static int tile_classes(const classes_job *j, classes_part *a, size_t k)
{
    const wafer *wf = j->wf;
    const int *of = j->of;
    for (int i = j->by ? j->first[k] : 0; j->by && i < j->first[k + 1]; i++) {
        int u = j->by[i] / WAFER_NDIR, d = j->by[i] % WAFER_NDIR;
        if (classes_offer(a, wafer_link_usable(wf, u, d) ? of[j->by[i]] : 0))
            return -1;
    }
    int x0 = (int)(k % (size_t)j->nx) * j->tw, y0 = (int)(k / (size_t)j->nx) * j->th;
    for (int y = y0; !j->by && y < y0 + j->th && y < wf->h; y++)
        for (int x = x0; x < x0 + j->tw && x < wf->w; x++) {
            unsigned m = wafer_usable_mask(wf, x, y);
            size_t l = (size_t)wafer_unit(wf, x, y) * WAFER_NDIR;
            for (int d = 0; d < WAFER_NDIR; d++)
                if (classes_offer(a, m >> d & 1 ? of[l + (size_t)d] : 0))
                    return -1;
        }
    return 0;
}

static void classes_range(void *ctx, int part)
{
    classes_job *j = ctx;
    classes_part *a = &j->part[part];
    size_t k0 = par_first(j->nt, part, j->nparts), k1 = par_first(j->nt, part + 1, j->nparts);
    a->met = calloc(j->nclasses > 0 ? (size_t)j->nclasses : 1, sizeof *a->met);
    a->failed = !a->met;
    for (size_t k = k0; k < k1 && !a->failed; k++) {
        j->start[k] = (int)a->n;
        a->failed = tile_classes(j, a, k) != 0;
        classes_close(a, (size_t)j->start[k]);
    }
}

/* The parts' entries one after another into tc; -1 out of memory. */
static int classes_join(classes_job *j, tiles_classes *tc)
{
    size_t n = 0;
    for (int p = 0; p < j->nparts; p++)
        n += j->part[p].n;
    tc->cls = malloc((n ? n : 1) * sizeof *tc->cls);
    tc->count = malloc((n ? n : 1) * sizeof *tc->count);
    if (!tc->cls || !tc->count)
        return -1;
    size_t base = 0;
    for (int p = 0; p < j->nparts; p++) {
        const classes_part *a = &j->part[p];
        for (size_t k = par_first(j->nt, p, j->nparts); k < par_first(j->nt, p + 1, j->nparts); k++)
            j->start[k] += (int)base;
        for (size_t i = 0; i < a->n; i++) {
            tc->cls[base + i] = a->cls[i];
            tc->count[base + i] = a->count[i];
        }
        base += a->n;
    }
    j->start[j->nt] = (int)n;
    return 0;
}

int tiles_classes_new(const wafer *wf, int tw, int th, const int *of, int nclasses, const int *listed, size_t nat,
                      tiles_classes *tc)
{
    int nx, ny;
    tiles_size(wf, tw, th, &nx, &ny);
    size_t nt = (size_t)nx * (size_t)ny;
    /* few links listed (a strategy on a corner of a wafer): read those
     * alone, by tile; else walk each tile's units */
    int sparse = listed && nat < wafer_nlinks(wf) / 2;
    int *by = sparse ? malloc((nat ? nat : 1) * sizeof *by) : NULL;
    int *first = sparse ? malloc((nt + 1) * sizeof *first) : NULL;
    classes_job j = {.wf = wf, .tw = tw, .th = th, .nx = nx, .nt = nt, .nclasses = nclasses, .of = of,
                     .nparts = par_parts(sparse ? nat : wafer_nlinks(wf))};
    tc->cls = tc->count = NULL;
    j.start = tc->start = malloc((nt + 1) * sizeof *tc->start);
    int rc = tc->start && (!sparse || (by && first)) ? 0 : -1;
    if (!rc && sparse)
        rc = links_by_tile(wf, tw, th, listed, nat, by, first);
    j.by = by;
    j.first = first;
    if (!rc)
        par_run(j.nparts, classes_range, &j);
    for (int p = 0; p < j.nparts && !rc; p++)
        rc = j.part[p].failed ? -1 : 0;
    if (!rc)
        rc = classes_join(&j, tc);
    for (int p = 0; p < j.nparts; p++) {
        free(j.part[p].cls);
        free(j.part[p].count);
        free(j.part[p].met);
    }
    free(by);
    free(first);
    if (rc)
        tiles_classes_free(tc);
    return rc;
}

void tiles_add_classes(const tiles_classes *tc, size_t ntiles, const double *val, double *sum, double *max)
{
    for (size_t k = 0; k < ntiles; k++)
        for (int j = tc->start[k]; j < tc->start[k + 1]; j++) {
            double v = val[tc->cls[j]];
            sum[k] += tc->count[j] * v;
            max[k] = v > max[k] ? v : max[k];
        }
}
