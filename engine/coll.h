/*
 * coll.h - collectives as passes over groups (docs/MODEL.md sections 5-6).
 *
 * A group kind is a family of same-shaped groups that communicate together
 * (all TATP rows, all TP groups, ...). A pass is one round in which every
 * member of every group sends the same number of bytes to its successor
 * (next[]): a ring, a reversed ring, the rows or columns of a 2-D split, the
 * inner or outer rings of a hierarchical split, or a pipeline shift. Every
 * algorithm is a weighted sum of passes, so a pass is routed once per
 * evaluation and scaled by each collective's bytes.
 *
 * Ring order: with tiles, a Hamiltonian cycle on the group's grid when one
 * side is even (every hop between grid neighbours), the folded ring
 * 0,2,4,...,5,3,1 on a line, a boustrophedon on odd x odd grids; with linear
 * and snake placement, the rank order.
 */
#ifndef WT_COLL_H
#define WT_COLL_H

#include "choice.h"
#include "err.h"
#include "place.h"
#include "strategy.h"
#include "wafer.h"

/* CG_STORE is not a group: its ops move weights between the parameter
 * store and every rank (stream.h); traffic.c routes them apart. */
enum coll_kind { CG_TATP_ROW = 0, CG_TATP_COL, CG_TP, CG_SP, CG_DP, CG_PP, CG_STORE, CG_NKIND };
enum coll_op { OP_ALLREDUCE = 0, OP_ALLGATHER, OP_REDUCESCATTER };
/* PASS_BIDIR sends along the ring both ways and PASS_SHIFT from each
 * pipeline stage to both of its neighbours (forward activations, backward
 * gradients): coll_pass_next gives the forward successor and the pass is
 * routed in both directions with the same bytes. */
/* PASS_STORE_IN and PASS_STORE_OUT are the store's (CG_STORE): weights from
 * the ports to the ranks, gradients back. */
enum coll_pass { PASS_RING = 0, PASS_BIDIR, PASS_ROWS, PASS_COLS, PASS_INNER, PASS_OUTER, PASS_SHIFT,
                 PASS_STORE_IN, PASS_STORE_OUT, NPASS };

/* The groups of one kind. Member order is rank order (for CG_DP, which is
 * the DP x SP gradient group, m = sp + SP * dp). */
typedef struct coll_groups {
    int kind;
    int ngroups, size;
    int *unit;       /* ngroups * size: unit of member m of group g, owned */
    int gw, gh;      /* the group's grid: tiles layout, or a near-square split of rank order */
    int *cell;       /* gw * gh: member at grid cell (cx + cy * gw), owned */
    int *ring;       /* size: ring order (member indices), owned */
    int tiled;       /* 1: the grid is the real layout, rings follow it */
    int wafers;      /* 1 when some group spans more than one wafer */
    int step;        /* coll_groups_step's answer, found while the units are gathered */
} coll_groups;

int coll_groups_build(coll_groups *g, int kind, const plan *p, const wafer *wf, wt_err *e);
/* The members of each group of one kind, without building them. */
int coll_groups_size(int kind, const plan *p);
void coll_groups_free(coll_groups *g);

/* The step s when member m of every group is on unit unit[0] + m * s
 * (any constant step: route_lines takes one below the mesh width as a
 * row, a multiple of it as a column), else 0; 0 for groups of one. */
int coll_groups_step(const coll_groups *g);

/* Fills next[ngroups * size] (member index each member sends to; itself when
 * it sends nothing) for a pass and returns 0. PASS_INNER/PASS_OUTER split
 * each group by subgroup (sub_w x sub_h aligned windows, or wafers when the
 * groups span wafers) and return the inner size q > 1, or -1 when the split
 * is uneven or trivial (then hierarchical falls back to a ring). Every pass
 * returns -2 when memory runs out. */
int coll_pass_next(const coll_groups *g, int pass, const wafer *wf, int sub_w, int sub_h, int *next);

/* One weighted pass of a collective: each member sends coef bytes per byte
 * of the collective's size, in `steps` latency-bound steps. */
typedef struct coll_term {
    int pass;
    double coef;
    int steps;
} coll_term;

#define COLL_MAX_TERMS 3

/* The passes of collective op over M bytes (the full tensor each member
 * holds before an all-reduce or reduce-scatter, or after an all-gather) with
 * algorithm a (not COLL_AUTO). `inner` is the subgroup size for COLL_HIER.
 * Returns the number of terms. */
int coll_expand(const coll_groups *g, coll_algo a, int op, double M, int inner, coll_term *out);

/* Bytes one member sends in op over M bytes on p members with a ring:
 * 2(p-1)/p M for all-reduce, (p-1)/p M otherwise. */
double coll_ring_bytes(int op, int p, double M);

const char *coll_kind_name(int kind);
const char *coll_pass_name(int pass);
/* 1 when a pass is routed in both directions (PASS_BIDIR, PASS_SHIFT). */
int coll_pass_two_way(int pass);

#endif
