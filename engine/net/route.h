/*
 * route.h - flows to link loads.
 *
 * A flow moves bytes from unit src to unit dst. Routing is dimension order:
 * ROUTE_XY goes along x first (E or W on the source row), then along y (N or
 * S on the destination column); ROUTE_YX the other way round; ROUTE_BALANCED
 * sends half the bytes each way. Around faults (docs/MODEL.md, "Routing"):
 *   1. the flow takes its own dimension order when every link on that path is
 *      usable (wafer_link_usable);
 *   2. else the other dimension order when that path is usable;
 *   3. else a shortest path over usable links: from each unit on the way, the
 *      first direction, in the order E, W, N, S for an x-first flow and
 *      N, S, E, W for a y-first flow, that brings it one hop closer to dst;
 *   4. else there is no route: an error naming both units.
 * A balanced flow is two half flows, one x-first and one y-first, each
 * following these rules.
 *
 * Clean dimension-order paths cost O(1) each through difference arrays along
 * rows and columns, and checking a path for faults is O(1) through prefix
 * counts; only detoured flows (rule 3) are walked hop by hop. A call costs
 * O(flows + links).
 *
 * Also (route.c): the ctx borrows wf, which must outlive it; faults are read
 * by route_ctx_new, link_lat and iw_lat at every call. A ctx is scratch for
 * one caller at a time. On any error load[] (or the list's length) is left
 * as it was. A link no flow crosses gets exactly nothing. A loaded link is a
 * running sum of +bytes and -bytes markers along its row or column, so its
 * rounding error is a few ulps of the bytes running through that row or
 * column; when every flow with bytes carries the same bytes, it is exactly
 * its number of (half) flows times those bytes, rounded once. A flow naming
 * a unit outside the mesh, or with bytes negative or not finite, is
 * WT_EINTERNAL (a caller's bug). Rule 3 uses one backward search per
 * distinct destination, grown only as far as its sources need.
 */
#ifndef WT_ROUTE_H
#define WT_ROUTE_H

#include <stddef.h>

#include "choice.h"
#include "err.h"
#include "wafer.h"

/* One row each in route.c's table of modes, ROUTE_NMODES of them. */
typedef enum route_mode { ROUTE_XY = 0, ROUTE_YX = 1, ROUTE_BALANCED = 2, ROUTE_NMODES } route_mode;

typedef struct route_flow {
    int src, dst;   /* unit indices */
    double bytes;
} route_flow;

/* What a call learned about the paths it routed. */
typedef struct route_stats {
    int max_hops;          /* longest path taken, in links */
    double max_latency;    /* largest sum of link latencies on a path, s */
    int detoured;          /* flows (or half flows) that needed rule 2 or 3 */
} route_stats;

/* Scratch space bound to one wafer: difference arrays, prefix counts of
 * unusable links, BFS buffers. Build it after the faults are set and rebuild
 * it (route_ctx_free + route_ctx_new) when they change. */
typedef struct route_ctx route_ctx;

int route_ctx_new(route_ctx **out, const wafer *wf, wt_err *e);
void route_ctx_free(route_ctx *rc);

/* Adds the bytes of n flows to load[], one double per directed link slot
 * (wafer_nlinks, index u * 4 + dir), and fills st (which it resets first).
 * Flows with src == dst add nothing. Returns WT_OK, WT_EINPUT with
 * "no route from x,y to x,y" when faults cut a flow off, or WT_EINTERNAL. */
int route_flows(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode, double *load,
                route_stats *st, wt_err *e);

/* Loads as a list: link slots in ascending order and the bytes on each. */
typedef struct route_sparse {
    int *link;
    double *load;
    size_t n, cap;     /* entries used and allocated */
} route_sparse;

/* Room in sp for more entries (its arrays grown at least twofold, so that
 * appending one at a time costs O(1) each); -1 out of memory, sp as it was. */
int route_sparse_reserve(route_sparse *sp, size_t more);

/* Like route_flows, but appends each link this call loads, once, in
 * ascending slot order, to out (growing its arrays; the caller frees
 * out->link and out->load). Cheaper than a dense array on large meshes where
 * a call loads few of the links. */
int route_flows_sparse(route_ctx *rc, const route_flow *flows, size_t n, route_mode mode, route_sparse *out,
                       route_stats *st, wt_err *e);

/* The wafer rc routes on; 1 when it is one wafer without faults, where
 * every flow takes its dimension-order path (the closed forms below). */
const wafer *route_ctx_wafer(const route_ctx *rc);
int route_ctx_clean(const route_ctx *rc);

/* A call that lists work link entries or more splits over the cores
 * (par.h), the list the same to the bit whatever the split:
 * route_ctx_parts gives the parts, par_parts(work) unless
 * route_ctx_set_parts forced a number (n > 0, at most PAR_MAX: tests run
 * the split on small meshes; 0 goes back to par_parts). */
void route_ctx_set_parts(route_ctx *rc, int n);
int route_ctx_parts(const route_ctx *rc, size_t work);

/*
 * Closed forms (route_line.c) for the two patterns that load every link of
 * a busy wafer, listed without their flows in O(lines x len + units): the
 * same list, the same doubles and the same stats as route_flows_sparse on
 * the flows they stand for, in any mode (all their flows are straight).
 * Each sets *covered to 1 when it applies, else to 0 and appends nothing
 * (then route the flows): a faulty mesh, several wafers, a line off the
 * mesh.
 */
/* nlines lines of len units in a row (column = 0: origin + p * stride is
 * position p) or a column (origin + p * stride * w). Every line sends one
 * byte from position p to position to[p] (nothing when to[p] == p), and
 * back when two_way. Lines may interleave or coincide: their flows add. */
typedef struct route_lines {
    const int *origin; /* nlines: the unit of each line's position 0 */
    int nlines, len;
    int column;
    const int *to;   /* len positions */
    int two_way;
    int stride;      /* mesh positions from one member to the next, >= 1 */
} route_lines;

int route_lines_sparse(route_ctx *rc, const route_lines *L, route_sparse *out, route_stats *st, int *covered,
                       wt_err *e);

/* Every unit u = (x, y) with on[u] >= 0 (wafer_nunits entries) sends one
 * byte to unit (port_x[x], y) of its own row, or receives one from it when
 * back; nothing when port_x[x] == x. */
int route_rows_sparse(route_ctx *rc, const int *on, const int *port_x, int back, route_sparse *out,
                      route_stats *st, int *covered, wt_err *e);

/* The modes by name (choice.h): "xy", "yx", "balanced". */
choice_table route_mode_table(void);
/* name (case-insensitive) -> route_mode, or -1 for anything else. */
int route_mode_parse(const char *s);
const char *route_mode_name(route_mode m);

#endif
