/*
 * view_blocks.c - the mesh downsampled to zoom x zoom blocks, kept between
 * frames. On a wafer (850k units, 3.4M link slots) a frame that only moves
 * the cursor, scrolls the output or opens the help reads nothing. One that
 * moves the cursor of time reads the link classes alone (view_state.
 * link_class: links loaded alike have one figure): each block keeps its
 * classes and how many links of each, counted once per result and zoom,
 * so a frame costs O(the blocks' classes) even when every link of the
 * wafer is loaded; a block's max is then the same to the bit as adding its
 * links one by one (block_value), its mean the same to rounding (a sum of
 * counts times values). Figures per link (the step average) are read from
 * the links that may be non-zero alone (view_state.nonzero), in slot order
 * (rows, units, directions), as block_value adds them: the same to the
 * bit. The links and live units of each block are counted again only when
 * the mesh or the zoom changes.
 */
#include <stdlib.h>

#include "tiles.h"
#include "view.h"

void view_blocks_free(view_blocks *b)
{
    free(b->val);
    b->val = NULL;
    b->gw = b->gh = 0;
    tiles_classes_free(&b->classes);
    b->of = NULL;
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
    if (v->mode == VIEW_LINKS && v->link_class) {
        tiles_add_classes(&b->classes, nb, v->class_util, sum, max);
    } else if (v->mode == VIEW_LINKS && v->link_util) {
        tiles_add(wf, z, z, v->link_util, v->nonzero, v->nnonzero, sum, max);
    } else if (v->mode != VIEW_LINKS) {
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
    b->util = v->link_util ? v->link_util : v->class_util;
    b->mode = v->mode;
    b->mean = v->mean;
}

const double *view_blocks_get(view_blocks *b, const view_state *v)
{
    int counted = b->val && v->mesh_gen != 0 && b->mesh_gen == v->mesh_gen && b->r == v->r && b->zoom == v->zoom;
    const double *util = v->link_util ? v->link_util : v->class_util;
    if (counted && v->values_gen != 0 && b->gen == v->values_gen && b->util == util && b->mode == v->mode &&
        b->mean == v->mean && (!v->link_class || b->of == v->link_class))
        return b->val;
    if (!counted && count(b, v) != 0)
        return NULL;
    if (v->link_class && b->of != v->link_class) { /* the blocks' classes, once per result and zoom */
        tiles_classes_free(&b->classes);
        b->of = NULL;
        if (tiles_classes_new(v->r->wf, v->zoom, v->zoom, v->link_class, v->nclasses, v->nonzero, v->nnonzero,
                              &b->classes) != 0)
            return NULL;
        b->of = v->link_class;
    }
    fill(b, v);
    return b->val;
}
