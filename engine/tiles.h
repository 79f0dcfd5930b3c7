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
 * val being 0 elsewhere, else every slot. Either way the sums are the same
 * to the bit (adding 0 changes nothing, the order of the rest is kept). */
void tiles_add(const wafer *wf, int tw, int th, const double *val, const int *at, size_t nat, double *sum,
               double *max);

#endif
