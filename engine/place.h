/*
 * place.h - where every rank runs (docs/MODEL.md section 5).
 *
 * Ranks nest innermost-first: TATP, TP, SP, PP, DP:
 *   rank = t + T * (tp + TP * (sp + SP * (pp + PP * dp)))
 * with the TATP index t = gy * tatp_w + gx for grid position (gx, gy).
 *
 *   linear  ranks in row-major order over the live units (the GPU-framework view)
 *   snake   ranks in boustrophedon order over the live units
 *   tiles   every dimension gets a tw x th tile, nested as a mixed radix in x
 *           and y (TATP gets exactly its grid), so each group is a compact
 *           rectangle; the whole box is shifted to avoid dead units.
 */
#ifndef WT_PLACE_H
#define WT_PLACE_H

#include "choice.h"
#include "err.h"
#include "strategy.h"
#include "wafer.h"

enum place_dim { DIM_TATP = 0, DIM_TP, DIM_SP, DIM_PP, DIM_DP, NDIM };

typedef struct plan {
    int nranks;
    int size[NDIM];     /* group size of each dimension (TATP = tatp_w * tatp_h) */
    int tatp_w, tatp_h;
    int *unit;          /* nranks entries: the unit of each rank, owned */
    int *rank;          /* wafer_nunits entries: the rank on each unit or -1, owned */
    /* tiles only: tile extents of each dimension, in group members */
    int tiled;
    int tw[NDIM], th[NDIM];
    int ox, oy;         /* top-left unit of the box */
} plan;

/* Places every rank of the resolved strategy s on wf. Errors say why the
 * placement cannot hold the strategy (tiles that do not fit, dead units). */
int place_plan(plan *p, const wafer *wf, const strategy *s, wt_err *e);
void place_free(plan *p);

/* The rank with the given index in every dimension, and back. */
int place_rank_of(const plan *p, const int idx[NDIM]);
void place_index_of(const plan *p, int rank, int idx[NDIM]);

/* Position of member i within a dimension's tile (tiles placement): PP tiles
 * run boustrophedon so consecutive stages are neighbours. */
void place_tile_pos(const plan *p, int dim, int i, int *ix, int *iy);

/* The placements by name (choice.h), one row per place_kind. */
choice_table place_kind_table(void);
const char *place_kind_name(place_kind k);

#endif
