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

int tiles_classes_new(const wafer *wf, int tw, int th, const int *of, int nclasses, tiles_classes *tc)
{
    int nx, ny;
    tiles_size(wf, tw, th, &nx, &ny);
    size_t cap = 1024, n = 0, nt = (size_t)nx * (size_t)ny;
    tc->start = malloc((nt + 1) * sizeof *tc->start);
    tc->cls = malloc(cap * sizeof *tc->cls);
    tc->count = malloc(cap * sizeof *tc->count);
    /* the tile a class was last met in and its entry there */
    size_t *seen = malloc((size_t)nclasses * sizeof *seen), *at = malloc((size_t)nclasses * sizeof *at);
    int rc = tc->start && tc->cls && tc->count && seen && at ? 0 : -1;
    for (int c = 0; !rc && c < nclasses; c++)
        seen[c] = nt;
    for (size_t k = 0; !rc && k < nt; k++) {
        int x0 = (int)(k % (size_t)nx) * tw, y0 = (int)(k / (size_t)nx) * th;
        tc->start[k] = (int)n;
        for (int y = y0; !rc && y < y0 + th && y < wf->h; y++)
            for (int x = x0; !rc && x < x0 + tw && x < wf->w; x++) {
                unsigned m = wafer_usable_mask(wf, x, y);
                size_t l = (size_t)wafer_unit(wf, x, y) * WAFER_NDIR;
                for (int d = 0; d < WAFER_NDIR && !rc; d++) {
                    int c = m >> d & 1 ? of[l + (size_t)d] : 0;
                    if (!c)
                        continue;
                    if (seen[c] == k) {
                        tc->count[at[c]]++;
                    } else if (!(rc = classes_room(tc, n, &cap))) {
                        seen[c] = k;
                        at[c] = n;
                        tc->cls[n] = c;
                        tc->count[n++] = 1;
                    }
                }
            }
    }
    if (!rc)
        tc->start[nt] = (int)n;
    free(seen);
    free(at);
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
