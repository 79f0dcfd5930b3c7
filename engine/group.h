/*
 * group.h - which group loads what, in a result: the group of a kind that
 * holds a unit and the links its passes load, and what loads one link, by
 * phase and group, with bytes. The screen draws the first and prints the
 * second, so that a hot link can be traced to the groups behind it.
 *
 * Paths are the dimension-order paths of route.h (x first for xy, y first
 * for yx, half each for balanced) without detours: on a mesh with faults, a
 * flow that detours is not traced, and group_link_loads says how many bytes
 * it could not place (`untraced`).
 */
#ifndef WT_GROUP_H
#define WT_GROUP_H

#include <stddef.h>

#include "coll.h"
#include "err.h"
#include "sim.h"

/* Outlines beyond the collectives' groups (coll_kind): the TATP grid (its
 * rows' and columns' groups together), the units of the cursor's pipeline
 * stage, and the subgroup window hierarchical collectives split at. */
enum { GROUP_TATP = CG_NKIND, GROUP_STAGE, GROUP_SUBGROUP, GROUP_NKINDS };

/* "tatp.rows", ..., "pp", "store", then "tatp", "stage", "subgroup". */
const char *group_kind_name(int kind);

typedef struct group {
    int kind;      /* coll_kind or GROUP_* */
    int index;     /* the group's index among its kind's */
    int size;
    int *units;    /* size units, the members in ring order, owned */
    int *links;    /* nlinks link slots the group's passes in r load, ascending, owned */
    int nlinks;
} group;

/* The group of kind (coll_kind but CG_STORE, or GROUP_*) that holds unit
 * u's rank in r, with the links its passes load there (none when r has no
 * traffic of that kind; a stage and a subgroup window have none). WT_EINPUT
 * with a reason when u has no rank or the kind's groups have one member. */
int group_of_unit(const sim_result *r, int u, int kind, group *g, wt_err *e);
void group_free(group *g);

/* One phase's bytes over a link from one group (group -1: the parameter
 * store's traffic), per step. */
typedef struct group_load {
    int phase;
    int kind;      /* coll_kind */
    int group;
    double bytes;
} group_load;

/* What loads link slot l in r, largest first (ties by phase, then group);
 * at most max into out, *n the number found (may exceed max), *untraced the
 * bytes of paths that detour (see above). */
int group_link_loads(const sim_result *r, size_t l, group_load *out, int max, int *n, double *untraced,
                     wt_err *e);

#endif
