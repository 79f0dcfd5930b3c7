/*
 * calib.h - the flow model's factors learnt from the flit level
 * (docs/MODEL.md, "Calibration").
 *
 * Each pattern (a routed pass) belongs to one class by the shape of its
 * traffic; a class's factor multiplies the bandwidth part of its patterns'
 * time in every network model (sim_pattern_busy, the fluid model's work):
 * how much longer wormhole routers take than the busiest link's bound.
 * `wafertop calibrate` measures them and writes them to a file beside the
 * layout, which layout_load reads. Without one every factor is 1.
 */
#ifndef WT_CALIB_H
#define WT_CALIB_H

#include <stddef.h>

#include "err.h"

/* By the shape of a pattern's flows, which decides what routers lose on it:
 * neighbour: every flow one hop (rings on a grid, TATP's rows and columns);
 * lines: flows of several hops, mostly straight (rings folded on a line,
 * the outer rings of a hierarchical split along a row, rings in rank order
 * across rows, which turn at the rows' ends alone); turns: half the flows
 * or more turn a corner, so X and Y traffic cross in the routers
 * (transposes, the outer rings between subgroups, all-to-all); edges: the
 * busiest link is one between wafers, slower than the others, whose
 * back-pressure fills the routers behind it (whatever the shape); shift: a
 * pipeline's sends between stages, block to block both ways; store: the
 * parameter store's weights in and gradients out, from the mesh's edges. */
#define CALIB_CLASSES(X)                                                                                \
    X(neighbour, CALIB_NEIGHBOUR) X(lines, CALIB_LINES) X(turns, CALIB_TURNS) X(edges, CALIB_EDGES)      \
    X(shift, CALIB_SHIFT) X(store, CALIB_STORE)

#define CALIB_ENUM(name, id) id,
enum calib_class { CALIB_CLASSES(CALIB_ENUM) CALIB_NCLASS };
#undef CALIB_ENUM

/* A factor a calibration file may hold: the flit level is never faster than
 * the busiest link's bound, and a hundredfold slower is no mesh. */
#define CALIB_MIN 1.0
#define CALIB_MAX 100.0

typedef struct calib {
    double factor[CALIB_NCLASS]; /* each in [CALIB_MIN, CALIB_MAX] */
    char path[1100];             /* the file they came from, "" = none (all 1) */
} calib;

const char *calib_class_name(int cls);
/* The class of a pattern of group kind `kind` (coll.h), whose longest
 * path is max_hops links, half of whose flows or more turn when turns, and
 * whose busiest link is a slower one between wafers when edge. */
int calib_class_of(int kind, int max_hops, int turns, int edge);
void calib_default(calib *c);

/* The calibration file of the layout at layout_path: its name with
 * ".yaml" (or ".yml") replaced by ".calib.yaml", or that appended.
 * Returns -1 when it does not fit in n bytes. */
int calib_path_of(const char *layout_path, char *out, size_t n);

/* Reads the calibration file at path into c (which keeps the defaults for
 * classes the file leaves out) when it exists: a mapping with `layout:` (the
 * layout's name, checked against `layout`) and `factors:` (class: number).
 * No file is no error. Errors are "file:line:col: ..." (WT_EINPUT). */
int calib_load(const char *path, const char *layout, calib *c, wt_err *e);

#endif
