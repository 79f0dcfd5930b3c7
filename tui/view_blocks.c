/*
 * view_blocks.c - the mesh downsampled to zoom x zoom blocks, kept between
 * frames. On a wafer (850k units, 3.4M link slots) a frame that only moves
 * the cursor, scrolls the output or opens the help reads nothing; one that
 * moves the cursor of time reads the loaded links alone (view_state.nonzero,
 * a few thousand for a strategy on a corner of the wafer), since every other
 * link is 0; the links and live units of each block are counted again only
 * when the mesh or the zoom changes. A block adds its values in slot order
 * (rows, units, directions), as block_value does, so the figures are the
 * same to the bit whichever way they were found.
 */
#include <stdlib.h>

#include "tiles.h"
#include "view.h"

void view_blocks_free(view_blocks *b)
{
    free(b->val);
    b->val = NULL;
    b->gw = b->gh = 0;
}

/* Counts the links and live units of v's blocks into a fresh b. Returns 0,
 * or -1 out of memory (b then empty). */
static int count(view_blocks *b, const view_state *v)
{
    const wafer *wf = v->r->wf;
    int gw, gh;
    tiles_size(wf, v->zoom, v->zoom, &gw, &gh);
    size_t nb = (size_t)gw * (size_t)gh;
    view_blocks_free(b);
    b->val = malloc(5 * nb * sizeof *b->val);
    if (!b->val)
        return -1;
    tiles_count(wf, v->zoom, v->zoom, b->val + 3 * nb, b->val + 4 * nb);
    b->gw = gw;
    b->gh = gh;
    b->r = v->r;
    b->mesh_gen = v->mesh_gen;
    b->zoom = v->zoom;
    return 0;
}

/* Fills b's values for v (b counted for v): per block its value, or
 * VIEW_BLOCK_DEAD. */
static void fill(view_blocks *b, const view_state *v)
{
    const wafer *wf = v->r->wf;
    int z = v->zoom;
    size_t nb = (size_t)b->gw * (size_t)b->gh;
    double *val = b->val, *sum = val + nb, *max = sum + nb, *links = max + nb, *live = links + nb;
    for (size_t k = 0; k < nb; k++)
        sum[k] = max[k] = 0;
    const double *n = links;
    if (v->mode == VIEW_LINKS) {
        tiles_add(wf, z, z, v->link_util, v->nonzero, v->nnonzero, sum, max);
    } else {
        n = live;
        for (int y = 0; y < wf->h; y++)
            for (int x = 0; x < wf->w; x++) {
                int u = wafer_unit(wf, x, y);
                if (wf->unit_dead[u])
                    continue;
                size_t k = (size_t)(y / z) * (size_t)b->gw + (size_t)(x / z);
                double value = view_unit_value(v, u);
                sum[k] += value;
                max[k] = value > max[k] ? value : max[k];
            }
    }
    for (size_t k = 0; k < nb; k++)
        val[k] = live[k] == 0 ? VIEW_BLOCK_DEAD : n[k] == 0 ? 0 : v->mean ? sum[k] / n[k] : max[k];
    b->gen = v->values_gen;
    b->util = v->link_util;
    b->mode = v->mode;
    b->mean = v->mean;
}

const double *view_blocks_get(view_blocks *b, const view_state *v)
{
    int counted = b->val && v->mesh_gen != 0 && b->mesh_gen == v->mesh_gen && b->r == v->r && b->zoom == v->zoom;
    if (counted && v->values_gen != 0 && b->gen == v->values_gen && b->util == v->link_util &&
        b->mode == v->mode && b->mean == v->mean)
        return b->val;
    if (!counted && count(b, v) != 0)
        return NULL;
    fill(b, v);
    return b->val;
}
