/*
 * tiles.h - link figures by tile: the mesh cut into tw x th units (the
 * screen's blocks, Lua's r:link_groups). Tiles are row-major, nx =
 * ceil(W / tw) across; a tile holds the usable links leaving its units.
 * Counting reads the wafer once; the values are added from a list of the
 * only links that may be non-zero (a result's loaded links), so a frame or
 * a view costs O(loaded links + tiles), not O(links).
 */
#ifndef WT_TILES_H
#define WT_TILES_H

#include <stddef.h>

#include "wafer.h"

/* The tiles across and down. */
void tiles_size(const wafer *wf, int tw, int th, int *nx, int *ny);

/* Per tile: the usable links leaving its units into links[nx * ny], and
 * its live units into live[nx * ny] (live may be NULL). */
void tiles_count(const wafer *wf, int tw, int th, double *links, double *live);

/* Adds val[l] of every usable link l into its tile's sum and raises its
 * max (sum and max hold nx * ny values, zero to start with), link slot by
 * link slot in ascending order: with at (nat slots, ascending) only those,
 * val being 0 elsewhere (every slot when they are most of them), else
 * every slot. Either way the sums are the same to the bit (adding 0
 * changes nothing, the order of the rest is kept). */
void tiles_add(const wafer *wf, int tw, int th, const double *val, const int *at, size_t nat, double *sum,
               double *max);

/* Per tile, the classes of its usable links (sim_link_classes' of[], or
 * any numbering below nclasses) and how many links of each: tile k's are
 * cls[start[k] .. start[k + 1]), count[] beside them, class 0 left out (its
 * links are 0 in every figure). Filled by tiles_classes_new, freed by
 * tiles_classes_free. */
typedef struct tiles_classes {
    int *start; /* nx * ny + 1 */
    int *cls, *count;
} tiles_classes;

/* of[] may be non-zero at the nat listed slots alone (ascending), or
 * anywhere (listed NULL). O(listed links) when they are few, else O(links);
 * 0, or -1 out of memory (tc then empty). */
int tiles_classes_new(const wafer *wf, int tw, int th, const int *of, int nclasses, const int *listed, size_t nat,
                      tiles_classes *tc);
void tiles_classes_free(tiles_classes *tc);

/* As tiles_add, from val[c] of each class: a tile's sum is its classes'
 * values times their counts (the same as tiles_add's to rounding), its
 * max the same to the bit. O(the tiles' classes). */
void tiles_add_classes(const tiles_classes *tc, size_t ntiles, const double *val, double *sum, double *max);

#endif
