/*
 * tiles.c - link figures by tile (contract in tiles.h).
 */
#include <stdlib.h>

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
        for (int x = 0; x < wf->w; x++) {
            if (wf->unit_dead[wafer_unit(wf, x, y)])
                continue;
            size_t k = row + (size_t)(x / tw);
            unsigned m = wafer_usable_mask(wf, x, y);
            links[k] += (m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1);
            if (live)
                live[k]++;
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

/* Room for n entries in tc (cap of them now). */
static int classes_room(tiles_classes *tc, size_t n, size_t *cap)
{
    if (n < *cap)
        return 0;
    int *cls = realloc(tc->cls, 2 * *cap * sizeof *cls);
    if (cls)
        tc->cls = cls;
    int *count = realloc(tc->count, 2 * *cap * sizeof *count);
    if (count)
        tc->count = count;
    if (!cls || !count)
        return -1;
    *cap *= 2;
    return 0;
}

/* Building tc: the tile a class was last met in and its entry there. */
typedef struct classes_acc {
    tiles_classes *tc;
    size_t n, cap;
    size_t *seen, *at;
} classes_acc;

/* Counts one link of class c (0: none) in tile k; -1 out of memory. */
static int classes_offer(classes_acc *a, size_t k, int c)
{
    if (!c)
        return 0;
    if (a->seen[c] == k) {
        a->tc->count[a->at[c]]++;
        return 0;
    }
    if (classes_room(a->tc, a->n, &a->cap))
        return -1;
    a->seen[c] = k;
    a->at[c] = a->n;
    a->tc->cls[a->n] = c;
    a->tc->count[a->n++] = 1;
    return 0;
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
    classes_acc a = {.tc = tc, .cap = 1024};
    tc->start = malloc((nt + 1) * sizeof *tc->start);
    tc->cls = malloc(a.cap * sizeof *tc->cls);
    tc->count = malloc(a.cap * sizeof *tc->count);
    a.seen = malloc((size_t)nclasses * sizeof *a.seen);
    a.at = malloc((size_t)nclasses * sizeof *a.at);
    int rc = tc->start && tc->cls && tc->count && a.seen && a.at && (!sparse || (by && first)) ? 0 : -1;
    if (!rc && sparse)
        rc = links_by_tile(wf, tw, th, listed, nat, by, first);
    for (int c = 0; !rc && c < nclasses; c++)
        a.seen[c] = nt;
    for (size_t k = 0; !rc && k < nt; k++) {
        tc->start[k] = (int)a.n;
        for (int i = sparse ? first[k] : 0; sparse && !rc && i < first[k + 1]; i++) {
            int u = by[i] / WAFER_NDIR, d = by[i] % WAFER_NDIR;
            rc = classes_offer(&a, k, wafer_link_usable(wf, u, d) ? of[by[i]] : 0);
        }
        int x0 = (int)(k % (size_t)nx) * tw, y0 = (int)(k / (size_t)nx) * th;
        for (int y = y0; !sparse && !rc && y < y0 + th && y < wf->h; y++)
            for (int x = x0; !rc && x < x0 + tw && x < wf->w; x++) {
                unsigned m = wafer_usable_mask(wf, x, y);
                size_t l = (size_t)wafer_unit(wf, x, y) * WAFER_NDIR;
                for (int d = 0; d < WAFER_NDIR && !rc; d++)
                    rc = classes_offer(&a, k, m >> d & 1 ? of[l + (size_t)d] : 0);
            }
    }
    if (!rc)
        tc->start[nt] = (int)a.n;
    free(a.seen);
    free(a.at);
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
