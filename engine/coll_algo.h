/*
 * coll_algo.h - the collective algorithms: their enum and their table
 * (coll_algo.c), one row each. A new algorithm is a value here before
 * COLL_NALGOS, its row and functions in coll_algo.c, its tests and its docs
 * (docs/MODEL.md section 16).
 */
#ifndef WT_COLL_ALGO_H
#define WT_COLL_ALGO_H

#include "choice.h"

/* The algorithms, then COLL_AUTO: not an algorithm but the chooser of the
 * cheapest algorithm flagged for it, for each collective. */
typedef enum coll_algo { COLL_RING = 0, COLL_BIDIR, COLL_2D, COLL_HIER, COLL_NALGOS, COLL_AUTO = COLL_NALGOS } coll_algo;

/* The algorithms by name (choice.h, coll_algo.c): COLL_NALGOS rows, each
 * flagged CHOICE_AUTO and/or CHOICE_SEARCH, then `auto` (CHOICE_CHOOSER). */
choice_table coll_algo_table(void);
const char *coll_algo_name(coll_algo a);
/* One line on what a does, for the help; auto's is to be followed by the
 * names of the rows it considers. */
const char *coll_algo_about(coll_algo a);
/* What the search's lower bound needs of algorithm a (not auto): over how
 * many partners a member's bytes may be split (sim_bounds divides the ring's
 * total by it), and the fewest latency-bound steps of op on p members. */
int coll_algo_partners(coll_algo a);
int coll_algo_min_steps(coll_algo a, int op, int p);

#endif
