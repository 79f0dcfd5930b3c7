/*
 * flow_int.h - what the files of the flow module share (not a public API).
 */
#ifndef WT_FLOW_INT_H
#define WT_FLOW_INT_H

#include "flow.h"

/* A link is full when what is left of it is within this fraction of its
 * bandwidth. */
#define FLOW_EPS 1e-12

/* The rates of two classes a and b (a the first by index) that load links,
 * alone in one priority level with no other class loading: what flow.c's
 * filling gives, operation for operation, from walks of their two sorted
 * lists side by side instead of a bandwidth left and a sum per link (which
 * a large mesh pays for in memory). Into *ra and *rb; returns 0, or -1
 * when a list is not strictly ascending or names a link outside
 * 0..nlinks-1 (the caller then fills as ever). */
int flow_pair_solve(const net_bw *bw, size_t nlinks, const flow_class *a, const flow_class *b, double *ra,
                    double *rb);

#endif
