/*
 * flit.h - the mesh at flit level: input-queued wormhole routers with
 * virtual channels, credit flow control, dimension-order routing and
 * separable iSLIP allocators, cycle by cycle (docs/MODEL.md, "The flit
 * level").
 *
 * A w x h mesh of routers, one per unit, each with five ports: the four
 * mesh directions (wafer.h's E W N S) and a local port where the unit's
 * terminal injects and ejects. Every input port holds num_vcs buffers of
 * vc_buf_size flits. A packet's head flit reserves an output VC at each
 * router (VC allocation), then each of its flits in turn wins the switch
 * (switch allocation) when its output VC has a credit, one flit per input
 * and per output port and cycle; its tail frees the VC (with
 * wait_for_tail_credit, only once the tail's credit is back).
 *
 * Timing, in whole cycles: a head written into a buffer in cycle a bids for
 * a VC from cycle a + routing_delay; a VC granted in cycle g lets the flit
 * bid for the switch from g + vc_alloc_delay; a flit that wins the switch
 * in cycle s leaves its buffer in cycle s + sw_alloc_delay - 1 = d, crosses
 * the switch for st_final_delay cycles and the link for link_latency, and
 * is written into the next buffer the cycle after: d + st_final_delay +
 * link_latency + 1. Its credit crosses the link back the same way and is
 * usable upstream (a router or a terminal) from d + link_latency + 1 +
 * credit_delay. A terminal injects a flit in
 * cycle d (its link alone) and consumes a flit the cycle it is written. With the defaults (BookSim2's
 * mesh configuration) a head takes 4 cycles per router and a packet of one
 * flit that crosses R routers 4 R + 2 cycles.
 *
 * Allocation is iSLIP (round-robin grant and accept pointers, updated only
 * by first-iteration matches, alloc_iters iterations): VCs bid for free
 * output VCs of their route's port; ports bid for ports, each input port
 * represented towards an output by its ready VC next after its own
 * round-robin pointer.
 *
 * Routes are dimension order, X first or Y first per packet. XY alone or
 * YX alone cannot deadlock; a run that mixes them splits each port's VCs
 * in two classes (XY packets take the lower half, YX the upper), so that
 * neither class waits on the other (num_vcs >= 2).
 */
#ifndef WT_FLIT_H
#define WT_FLIT_H

#include <stdatomic.h>

#include "err.h"

/* The largest mesh side the program runs at flit level (a phase's window,
 * wt.route's layout): seconds of simulation at most. */
#define FLIT_MAX_SIDE 64

/* The most flits a packet may have. */
#define FLIT_MAX_PACKET 65535

/* The most virtual channels a port may have (a port's VCs are a bit mask). */
#define FLIT_MAX_VCS 32

/* The configuration's numeric fields with their ranges, one list for the
 * checks here and a layout's router: section (X(name, lowest, highest)). */
#define FLIT_CFG_FIELDS(X)                                                                                   \
    X(num_vcs, 1, FLIT_MAX_VCS)                                                                              \
    X(vc_buf_size, 1, 65536)                                                                                 \
    X(wait_for_tail_credit, 0, 1)                                                                            \
    X(alloc_iters, 1, 64)                                                                                    \
    X(credit_delay, 0, 1000)                                                                                 \
    X(routing_delay, 0, 1000)                                                                                \
    X(vc_alloc_delay, 1, 1000)                                                                               \
    X(sw_alloc_delay, 1, 1000)                                                                               \
    X(st_final_delay, 1, 1000)                                                                               \
    X(link_latency, 1, 1000)

/* A router's configuration: BookSim2's names, cycles and flits. */
typedef struct flit_cfg {
    int num_vcs;              /* per port, 1..FLIT_MAX_VCS */
    int vc_buf_size;          /* flits per VC buffer, >= 1 */
    int wait_for_tail_credit; /* 1: a VC is free once its tail's credit is back */
    int alloc_iters;          /* iSLIP iterations, >= 1 */
    int credit_delay;         /* cycles, >= 0 */
    int routing_delay;        /* cycles, >= 0 */
    int vc_alloc_delay;       /* cycles, >= 1 */
    int sw_alloc_delay;       /* cycles, >= 1 */
    int st_final_delay;       /* cycles, >= 1 */
    int link_latency;         /* cycles, >= 1 */
} flit_cfg;

/* BookSim2's mesh defaults: 16 VCs of 8 flits, tail credits, iSLIP with 2
 * iterations, credit delay 2, routing 0, allocations 1 each, switch 1,
 * links 1. */
void flit_cfg_defaults(flit_cfg *c);
/* WT_EINPUT naming the first field out of its range ("num_vcs 0: ..."). */
int flit_cfg_check(const flit_cfg *c, wt_err *e);

/* A packet: the caller fills src, dst (unit indices y * w + x), flits and
 * created; flit_run fills the rest. */
typedef struct flit_packet {
    int src, dst;
    int flits;          /* 1..FLIT_MAX_PACKET */
    int yx;             /* its route: 0 X first then Y (XY), 1 YX */
    long long created;  /* the cycle it enters its source's queue, >= 0 */
    long long injected; /* the cycle its head left the source; -1 if never */
    long long arrived;  /* the cycle its tail was written at dst; -1 if not */
    int hops;           /* routers its head crossed */
} flit_packet;

/* Per link slot (wafer.h: unit * WAFER_NDIR + direction), over the run. */
typedef struct flit_stats {
    long long cycles;   /* cycles run: the last arrival + 1, or the limit */
    long long *flits;   /* flits sent over the link */
    double *buffer_mean;/* flits held on average in the input buffers it feeds (a flit
                           counts from the cycle it is written to the one it wins the switch) */
    int *buffer_peak;   /* the most flits held there at once */
} flit_stats;

/* Runs packets p[0..np) on a w x h mesh until every one has arrived or
 * max_cycles have run (those then keep arrived = -1). A source injects its
 * packets in the order they were created (ties by index). st may be NULL;
 * else its arrays are allocated here (wafer link slots of a w x h mesh) and
 * freed with flit_stats_free. Memory O(routers x ports x VCs x buffer +
 * packets); time O(cycles x routers) plus O(1) per flit and hop, where
 * the cycles with nothing in flight are skipped (a packet created far
 * ahead costs nothing until then).
 * WT_EINPUT for a bad configuration, mesh or packet (which, and why), or
 * mixed routes with one VC; WT_EINTERNAL out of memory. */
int flit_run(int w, int h, const flit_cfg *c, flit_packet *p, int np, long long max_cycles, flit_stats *st,
             wt_err *e);
/* What a run may add to flit_run's. */
typedef struct flit_run_opts {
    /* Set from another thread (the screen's replay): the run gives up soon,
     * WT_EINPUT "stopped" and no statistics. NULL: never. */
    const atomic_int *stop;
    /* Per wafer link slot of the w x h mesh, the flits a link moves per
     * cycle, in (0, 1] (an inter-wafer link slower than the others): the
     * switch grants its output a flit once per 1 / rate cycles. NULL: 1. */
    const double *link_rate;
} flit_run_opts;

/* flit_run with o's additions (o may be NULL); a link rate out of (0, 1]
 * is WT_EINPUT. */
int flit_run_with(int w, int h, const flit_cfg *c, flit_packet *p, int np, long long max_cycles,
                  const flit_run_opts *o, flit_stats *st, wt_err *e);
void flit_stats_free(flit_stats *st);

/* Adds amount to load[l] for every link slot l (of a mesh w wide) that the
 * dimension-order route from unit src to unit dst crosses (X first unless
 * yx): the path flit_run's packets take. */
void flit_route_add(int w, int yx, int src, int dst, double amount, double *load);

#endif
