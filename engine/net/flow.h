/*
 * flow.h - concurrent activities sharing links: max-min fair rates with
 * strict priority, and an event-driven run of them (docs/MODEL.md, "The
 * fluid model: max-min sharing").
 *
 * A class is anything that loads links as it progresses: one pass of a
 * collective with all its groups, a pipeline send, a gradient bucket; or
 * nothing at all (a compute block, a pure delay). Its load vector says how
 * many bytes cross each link per unit of its progress (for a routed pass,
 * sim_pattern's link/load: bytes per byte each member sends). Rates are in
 * those units: a class at rate r moves r * load[k] bytes/s over link[k], so
 * a class of work w alone on free links takes w * max_k(load[k] / bw(link[k]))
 * seconds, the closed form's coef * max_busy when work = coef.
 *
 * Rates (flow_solve). Classes are served by priority, highest first; a
 * priority level gets what the levels above left of each link. Within a
 * level, progressive filling: every unfrozen class's rate rises together;
 * a link is full when sum_c rate_c * load_c(l) = bw(l); a class freezes
 * when a link it loads is full or it reaches its max_rate; repeat until all
 * are frozen. That is the max-min fair allocation of the level in progress
 * units: two classes alone on one link progress at the same rate (they split
 * its bytes in proportion to their loads). Cost: O(iterations * nnz) per solve, nnz the loads of
 * the classes solved; a level takes at most one iteration per class (each
 * freezes one at least) and usually far fewer. Solves allocate nothing once
 * the context has seen as many classes.
 *
 * The class-level approximation: every flow of a class progresses at the
 * class's rate. Filling flow by flow instead lets a class's flows on idle
 * links run ahead of those on shared ones. One class alone is never slower
 * at the class level (its time is the lower bound max_l load_l / bw_l that
 * any flow-level schedule must meet); with several classes either can finish
 * a class first, tests/test_flow.c measures by how much.
 *
 * Runs (flow_run). A class starts at the latest of its start_s and the
 * finishes of its predecessors. It then holds bandwidth at its solved rate
 * until its work is done (bw_done_s), then holds nothing for latency_s
 * (its latency-bound steps' overheads and hop latencies): finish_s =
 * bw_done_s + latency_s, and only then do its successors start. Rates are
 * constant between events (a start, a work done, a finish) and solved again
 * at each; the solution depends only on the set of classes holding
 * bandwidth, so it is memoized by the shapes (loads, priority, cap)
 * of that set, so repeated layers reuse it for the run. A delay after a
 * predecessor is a class with no loads, no work and latency_s = the delay.
 * Cost: O(events * (nnz of the active classes)) plus a solve per distinct
 * active set; memory O(links + events + classes).
 *
 * Per link, from the piecewise-constant utilisation u_l(t) = sum_c r_c *
 * load_c(l) / bw(l) (zero outside the run), exactly, without sampling:
 *   busy_s  the integral of u_l;
 *   peak    max over t of the integral of u_l over [t, t + window_s] divided
 *           by window_s (attained with t or t + window_s at an event, which
 *           is all the sweep looks at); a run shorter than the window gives
 *           busy_s / window_s;
 *   hot_s   the time with u_l >= hot_frac.
 */
#ifndef WT_FLOW_H
#define WT_FLOW_H

#include <stddef.h>

#include "err.h"
#include "net_bw.h"

typedef struct flow_class {
    /* Links loaded, borrowed for the call: nnz link slots (each at most
     * once) and the bytes per unit of progress on each (>= 0). */
    const int *link;
    const double *load;
    int nnz;
    int prio;            /* higher is served first */
    double max_rate;     /* cap, progress units per s; 0 = none. A class with
                            no load and no cap runs at an infinite rate */
    /* Read by flow_run only: */
    double work;         /* progress units to complete (>= 0) */
    double start_s;      /* earliest start (>= 0) */
    double latency_s;    /* held after its work, no bandwidth used (>= 0) */
    const int *pred;     /* npred class indices it waits for, borrowed */
    int npred;
    /* The rate alone on free links without the cap when the caller knows
     * it (flow_free_rate of link, load, nnz), else 0: a class alone or
     * beside classes that load nothing then takes no walk of its loads
     * (nor a check of its link slots: a known rate is trusted). */
    double free_rate;
} flow_class;

/* When a class ran, s. */
typedef struct flow_time {
    double start_s, bw_done_s, finish_s;
} flow_time;

/* One loaded link's figures over a run. */
typedef struct flow_link_stat {
    int link;            /* link slot */
    double busy_s;       /* integral of the utilisation, s */
    double peak;         /* busiest window's busy fraction (0..1), 0 without a window */
    double hot_s;        /* time at utilisation >= hot_frac, 0 without a threshold */
} flow_link_stat;

typedef struct flow_run_opts {
    double window_s;     /* window of the peak; 0 = no peak */
    double hot_frac;     /* threshold of hot_s (e.g. 0.9); 0 = no hot time */
    int times_only;      /* 1: no per-link figures (out->nlinks 0), only the times */
} flow_run_opts;

typedef struct flow_run_out {
    double end_s;                 /* the last finish */
    int intervals;                /* stretches of constant rates */
    int solves, memo_hits;        /* rate solutions computed and reused */
    int nlinks;                   /* links any class loaded, in first-loaded order */
    const flow_link_stat *links;  /* owned by the context, valid until its next run */
} flow_run_out;

/* Scratch for solves and runs over links 0..nlinks-1, reused across calls
 * (one caller at a time). bw (net_bw.h: s per byte, 0 = unusable: a class
 * that loads such a link gets rate 0) is copied, its arrays borrowed and
 * read at every call, like sim_ctx's. */
typedef struct flow_ctx flow_ctx;

int flow_ctx_new(flow_ctx **out, size_t nlinks, const net_bw *bw, wt_err *e);

/* With keep 1, runs reuse the solutions of sets of loading classes solved
 * by earlier runs since the last flow_ctx_forget. Classes are matched by
 * their link and load pointers, priority and cap: the caller promises the
 * arrays behind the pointers do not change until it forgets. With keep 0
 * (a new context's), each run starts afresh. */
void flow_ctx_keep(flow_ctx *fc, int keep);
void flow_ctx_forget(flow_ctx *fc);

/* A class's busiest link alone: the largest load[k] * 1 / bandwidth (s
 * per unit of progress) and the first link slot with it (-1 without
 * links). */
typedef struct flow_busy {
    double s;
    int link;
} flow_busy;

/* The rate of a class of loads load[0..nnz) on links link[] alone on free
 * links (bw as the context's), without a cap: INFINITY when it loads
 * nothing, 0 when it loads an unusable link. What a solve finds for it.
 * Its busiest link into *busy, from the same walk. */
double flow_free_rate(const int *link, const double *load, int nnz, const net_bw *bw, flow_busy *busy);
/* The busiest link alone, as flow_free_rate gives it, from a walk that
 * does nothing else. */
flow_busy flow_busiest(const int *link, const double *load, int nnz, const net_bw *bw);
void flow_ctx_free(flow_ctx *fc);

/* The max-min fair rates, with priority and caps, of the n classes all
 * active at once, into rate[n] (progress units per s; INFINITY for a class
 * with no load and no cap). Returns WT_OK, WT_EINTERNAL on out of memory or
 * a link slot out of range. */
int flow_solve(flow_ctx *fc, const flow_class *cls, int n, double *rate, wt_err *e);

/* Runs the n classes to their finish, times into t[n] and the figures into
 * out (links owned by fc). Returns WT_OK; WT_EINPUT when a class can never
 * finish (it loads an unusable link, or waits on a cycle of predecessors)
 * or a field is out of range (negative work, start or latency; a bad
 * predecessor index); WT_EINTERNAL on out of memory. */
int flow_run(flow_ctx *fc, const flow_class *cls, int n, const flow_run_opts *o, flow_time *t, flow_run_out *out,
             wt_err *e);

#endif
