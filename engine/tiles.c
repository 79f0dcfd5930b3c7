/*
 * tiles.c - link figures by tile (contract in tiles.h).
 */
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
    if (at) {
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
