/*
 * view_blocks.c - the mesh downsampled to zoom x zoom blocks, kept between
 * frames. On a wafer (850k units, 3.4M link slots) a block view reads every
 * link once; a frame that only moves the cursor, scrolls the output or
 * opens the help reads none. The blocks are computed again when the key
 * changes: what the values are (view_state.values_gen, the link array),
 * the zoom, the view, max or mean. One pass in memory order; a block adds
 * its values in the order block_value did (rows, units, directions), so
 * the figures are the same to the bit.
 */
#include <stdlib.h>

#include "view.h"

void view_blocks_free(view_blocks *b)
{
    free(b->val);
    b->val = NULL;
    b->gw = b->gh = 0;
}

/* Fills b for v (zoom > 1): per block its value, or VIEW_BLOCK_DEAD. Returns 0, or
 * -1 out of memory (b then empty). */
static int compute(view_blocks *b, const view_state *v)
{
    const wafer *wf = v->r->wf;
    int z = v->zoom, gw = (wf->w + z - 1) / z, gh = (wf->h + z - 1) / z;
    size_t nb = (size_t)gw * (size_t)gh;
    view_blocks_free(b);
    b->val = malloc(3 * nb * sizeof *b->val);
    if (!b->val)
        return -1;
    double *sum = b->val, *max = sum + nb, *n = max + nb; /* n < 0: no live unit yet */
    for (size_t k = 0; k < nb; k++)
        sum[k] = max[k] = 0, n[k] = -1;
    for (int y = 0; y < wf->h; y++) {
        size_t row = (size_t)(y / z) * (size_t)gw;
        for (int x = 0; x < wf->w; x++) {
            int u = y * wf->w + x;
            if (wf->unit_dead[u])
                continue;
            size_t k = row + (size_t)(x / z);
            n[k] = n[k] < 0 ? 0 : n[k];
            if (v->mode != VIEW_LINKS) {
                double val = view_unit_value(v, u);
                sum[k] += val;
                max[k] = val > max[k] ? val : max[k];
                n[k]++;
                continue;
            }
            unsigned m = wafer_usable_mask(wf, x, y);
            for (int d = 0; d < WAFER_NDIR; d++) {
                if (!(m >> d & 1))
                    continue;
                double val = v->link_util[(size_t)u * WAFER_NDIR + (size_t)d];
                sum[k] += val;
                max[k] = val > max[k] ? val : max[k];
                n[k]++;
            }
        }
    }
    for (size_t k = 0; k < nb; k++) /* the first third becomes the values */
        sum[k] = n[k] < 0 ? VIEW_BLOCK_DEAD : n[k] == 0 ? 0 : v->mean ? sum[k] / n[k] : max[k];
    b->gw = gw;
    b->gh = gh;
    return 0;
}

const double *view_blocks_get(view_blocks *b, const view_state *v)
{
    int fresh = b->val && v->values_gen != 0 && b->gen == v->values_gen && b->util == v->link_util &&
                b->zoom == v->zoom && b->mode == v->mode && b->mean == v->mean && b->r == v->r;
    if (fresh)
        return b->val;
    if (compute(b, v) != 0)
        return NULL;
    b->gen = v->values_gen;
    b->util = v->link_util;
    b->zoom = v->zoom;
    b->mode = v->mode;
    b->mean = v->mean;
    b->r = v->r;
    return b->val;
}
