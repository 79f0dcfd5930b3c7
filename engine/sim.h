/*
 * sim.h - one training step of a strategy on a wafer.
 *
 * (wafer, model, strategy) -> plan -> traffic -> time -> result:
 *   sim_spec       the phases of a step: FLOPs and collectives per phase,
 *                  counts, memory (sim_spec.c, sim_phases.c)
 *   place_plan     where every rank runs (place.h)
 *   traffic_build  collectives -> weighted passes -> routed link loads,
 *                  and the order they run in (traffic.h)
 *   a net model    the traffic timed: phase times, the step, the timeline
 *                  (net/net.h; today the closed form "bottleneck")
 *   sim.c          what every model shares: compute times, link bytes and
 *                  utilisation, each phase's share and busiest link, MFU.
 * Every formula, and the source it reproduces, is in docs/MODEL.md.
 */
#ifndef WT_SIM_H
#define WT_SIM_H

#include <stddef.h>

#include "coll.h"
#include "mem.h"
#include "model.h"
#include "place.h"
#include "route.h"
#include "strategy.h"
#include "wafer.h"

/* How often a phase runs. */
enum sim_scope {
    SIM_LAYER = 0, /* once per layer of a stage per micro-batch (times rep) */
    SIM_LAST,      /* once per micro-batch on the last stage (the logits) */
    SIM_MB,        /* once per micro-batch (pipeline transfers) */
    SIM_STEP       /* once per step (gradient all-reduce, optimizer) */
};

/* A collective of a phase before it is resolved into passes. */
typedef struct sim_op {
    int kind;      /* enum coll_kind */
    int op;        /* enum coll_op, or -1 for the pipeline shift */
    double bytes;  /* the collective's size M (see coll_expand) */
} sim_op;

/* A resolved pass: pattern index into the result, bytes per byte of the
 * pattern, latency-bound steps. */
typedef struct sim_term {
    int pattern;
    double coef;
    int steps;
} sim_term;

#define SIM_MAX_OPS 6
#define SIM_MAX_WAVES 4
#define SIM_MAX_TERMS (12 * SIM_MAX_WAVES)
#define SIM_MAX_PHASES 24

/* What a phase is, where the timing treats it apart. */
enum sim_role { SIM_FORWARD = 0, SIM_BACKWARD, SIM_DP, SIM_OPTIMIZER };

/* A phase: what traffic.c and sim_spec fill (the spec, its passes) and
 * what the network model and sim.c fill (the figures). */
typedef struct sim_phase {
    char name[24];
    int scope;            /* enum sim_scope */
    int role;             /* enum sim_role */
    double rep;           /* repeats per layer (SIM_LAYER) or 1 */
    double flops;         /* per unit and occurrence */
    int nops;
    sim_op ops[SIM_MAX_OPS];
    int nterms;
    sim_term terms[SIM_MAX_TERMS];
    double count;         /* occurrences per step: layer phases on the stage with the most
                             layers (the first), logits and pp.p2p once per micro-batch
                             (the logits on the last stage), step phases once */
    /* figures, per occurrence unless said */
    double compute_s, comm_s, time_s;
    double send_bytes;    /* bytes each unit sends */
    double max_link_util; /* busiest link's busy time / time_s */
    double bw_ratio;      /* bandwidth part of comm_s / injection lower bound */
    double share;         /* of the step's time this phase holds on the timeline (0..1;
                             the DP all-reduce: its exposed part) */
    int busiest_link;     /* link slot of the largest load / bandwidth, -1 without traffic */
} sim_phase;

/* A pass routed over the mesh, stored sparsely: only the links it loads.
 * With waves, only the groups g with g % nwaves == wave. */
typedef struct sim_pattern {
    int kind, pass;
    route_mode mode;
    int wave, nwaves;
    int nnz;              /* links with a load */
    int *link;            /* nnz link slots, ascending, owned */
    double *load;         /* nnz loads: bytes per byte of coef, owned */
    double max_busy;      /* max over links of load / bandwidth, s per byte */
    int cls;              /* its class (calib.h enum calib_class) */
    double calib;         /* the wafer's factor for it: its bandwidth part is calib x max_busy
                             in every network model */
    int busiest;          /* the first link slot with max_busy, -1 without links */
    double free_rate;     /* flow_free_rate of its loads (flow.h): bytes of coef per s alone */
    double store_s;       /* the store's patterns: its time per byte of coef, s; else 0 */
    double max_lat;       /* largest path latency, s */
    int max_hops;
    double send_factor;   /* links each member sends on (2 for bidir and shift) */
    double step_coef;     /* sum of coef * count over the step (for link totals) */
} sim_pattern;

/* Seconds per byte of coef a pattern takes alone: its busiest link's
 * (calibrated), or the store's when slower. */
static inline double sim_pattern_busy(const sim_pattern *p)
{
    double links = p->calib * p->max_busy;
    return links > p->store_s ? links : p->store_s;
}

/* Run-time tuning a policy applies on top of a strategy (docs/MODEL.md,
 * "Sessions and tuning"): per phase, a routing other than the strategy's, a
 * number of waves (the phase's groups split into waves that run one after
 * another: a lower peak load, a longer phase) and a priority level (where
 * phases overlap on links, a higher level is served first; equal levels
 * share max-min fairly). */
typedef struct sim_phase_tune {
    char phase[24];
    int routing;              /* route_mode, or -1 for the strategy's */
    int waves;                /* 1..SIM_MAX_WAVES */
    int priority;             /* level, 0 by default; higher first */
} sim_phase_tune;

typedef struct sim_tuning {
    int nphases;
    sim_phase_tune phase[SIM_MAX_PHASES];
} sim_tuning;

/* The tuning of the phase named name in t, or NULL (t may be NULL). */
const sim_phase_tune *sim_tuning_find(const sim_tuning *t, const char *name);
/* The priority level of the phase named name: its tuning's, or 0. */
int sim_tuning_priority(const sim_tuning *t, const char *name);

/* One stretch of the step's timeline: a phase (index) from start_s to end_s. */
typedef struct sim_slice {
    int phase;
    double start_s, end_s;
} sim_slice;

struct net_model;

typedef struct sim_result {
    const wafer *wf;           /* borrowed: must outlive the result */
    const struct net_model *net; /* the network model that timed it (net.h) */
    model m;
    strategy s;                /* resolved */
    plan plan;

    int units_total, units_live, units_used, units_idle;
    int micro_batches;         /* m = B / (DP * b) */
    int stage_layers_max;      /* layers on the slowest stage */
    double params, flops_per_step, model_flops_per_step;
    double step_time_s, tokens_per_s, mfu, hfu, idle_fraction;
    double stage_time_s;       /* forward + backward of one micro-batch, slowest stage */
    double dp_time_s, dp_exposed_s, optimizer_s;
    double max_link_util, mean_link_util; /* over the step (busy time / step time) */
    /* The windowed figures (sim_window_figures; 0 until filled): the window
     * they use (the step's when the one asked for is longer), the links
     * whose busiest window is at or above SIM_HOT, the busiest window of
     * all links. */
    double window_s;
    int hot_links;
    double max_peak_util;
    double *link_peak;         /* wafer_nlinks: each link's busiest window (peak_util), owned;
                                  NULL until sim_window_figures fills it */
    int *loaded;               /* the link slots some pattern loads, ascending, nloaded of them,
                                  owned; listed when the timeline or the link figures first need it */
    int nloaded;
    struct sim_link_classes *classes; /* the loaded links by class, owned; made when the busiest
                                  links of a wafer or the windows need them, NULL until then
                                  and in a copy */
    struct sim_reps *reps;     /* on a wafer, the links by class of every pattern's loads,
                                  which the timing solves over (sim_int.h); owned, NULL
                                  below SIM_CLASSES_MIN and in a copy */
    int bottleneck;            /* phase index */
    mem_usage mem;             /* the fullest unit */
    double *stage_mem;         /* PP entries: memory total of a unit of each stage */
    double *stage_busy;        /* PP entries: compute seconds per step of a unit of each stage */

    int nphases;
    sim_phase phases[SIM_MAX_PHASES];
    int npatterns;
    sim_pattern *patterns;     /* npatterns routed passes, owned (grown as passes are routed) */
    int cap_patterns;
    double *link_bytes;        /* wafer_nlinks: bytes over the whole step, owned */

    sim_tuning tune;           /* what the evaluation applied */
    double compute_scale;      /* compute times scaled by sim_retime (1 = as modelled) */
    /* The timeline: one pipeline slot (a micro-batch's forward and backward
     * on the slowest stage, phases in order), repeated (m + PP - 1) times,
     * then the exposed DP all-reduce and the optimizer (the last slices). */
    int ntimeline;
    sim_slice timeline[SIM_MAX_PHASES + 2];
    double slot_s;             /* one slot */
    int slots;                 /* m + PP - 1 */
    int slot_stage;            /* the stage whose slot it is (the slowest) */
    /* 1 when the evaluation stopped at a step longer than the context's
     * cutoff (sim_ctx_set_cutoff): step_time_s is then a lower bound of the
     * step, and no figure after it is filled. */
    int above_cutoff;
} sim_result;

#define SIM_HOT 0.90
/* The window link monitors sample over by default, s (docs/MODEL.md,
 * "Windows"). */
#define SIM_WINDOW_S 100e-6

/* What evaluations on one wafer share (router tables, link bandwidths,
 * scratch). Rebuild it when the wafer's faults change. Not thread-safe: one
 * context per thread. */
typedef struct sim_ctx sim_ctx;

int sim_ctx_new(sim_ctx **out, const wafer *wf, wt_err *e);
void sim_ctx_free(sim_ctx *c);
/* The network model evaluations in c are timed with (net.h); NULL, and
 * every context until set, means net_model_default(). */
void sim_ctx_set_net(sim_ctx *c, const struct net_model *net);

/* Evaluations and retimes in c fill the windowed figures with window_s
 * (sim_window_figures), or leave them 0 with 0, the default: they cost far
 * more than the rest of an evaluation, and the search never reads them. */
void sim_ctx_set_window(sim_ctx *c, double window_s);

/* Evaluations in c stop as soon as the step is known to be longer than
 * cutoff_s (r->above_cutoff): what a search needs of a candidate that cannot
 * enter its list. INFINITY, the default, finishes every evaluation. */
void sim_ctx_set_cutoff(sim_ctx *c, double cutoff_s);

/* Evaluates s (resolved here against m and the wafer) into r. r->wf borrows
 * the context's wafer, which must outlive r; r owns everything else. */
int sim_eval_ctx(sim_ctx *c, sim_result *r, const model *m, const strategy *s, wt_err *e);
/* The first half of an evaluation, without placing or routing anything:
 * resolves s, fills the phases (FLOPs and collectives, no times), the counts
 * and r->mem (the fullest unit), and nothing else. Allocates nothing, so r
 * may be reused without sim_free. */
int sim_spec(sim_result *r, const wafer *wf, const model *m, const strategy *s, wt_err *e);

/* Lower bounds on the step time of a sim_spec'd r run with each collective
 * algorithm (out[a] for every a < COLL_NALGOS; any placement),
 * never above what sim_eval_ctx gives: compute at peak efficiency, the bytes
 * each unit must send to a partner over the fastest link (link_bw, bytes/s:
 * sim_ctx_link_bw), the fewest latency-bound steps the algorithm needs,
 * streaming as the engine does it, the optimizer, and no exposed DP
 * all-reduce (docs/MODEL.md, "Search"). */
void sim_bounds(const sim_result *r, double link_bw, double out[COLL_NALGOS]);
/* The same bound for algorithm a when each phase i's passes are known to
 * take at least routed[i] seconds at the bandwidth of their busiest links
 * (store transfers and latency left out: search_routed_bounds measures it
 * on a routed sibling of the same placement and algorithm). */
double sim_bound_routed(const sim_result *r, double link_bw, const double *routed, coll_algo a);
/* The bandwidth of the fastest usable link of the context's wafer. */
double sim_ctx_link_bw(const sim_ctx *c);

/* The same with run-time tuning (NULL for none). */
int sim_eval_tuned(sim_ctx *c, sim_result *r, const model *m, const strategy *s, const sim_tuning *t, wt_err *e);

/* Scales every phase's compute time to factor x the modelled one (jitter,
 * stragglers) and times the step again, without routing anything. c must
 * be the context r was evaluated with. On error r's figures are half
 * updated: evaluate again before reading them. */
int sim_retime(sim_ctx *c, sim_result *r, double factor, wt_err *e);

/* The phase playing at time t of the step (0 <= t < step_time_s), from the
 * timeline; -1 past the end. */
int sim_phase_at(const sim_result *r, double t);

/* A deep copy of src into dst (which must not hold a result); dst borrows
 * the same wafer. */
int sim_copy(sim_result *dst, const sim_result *src, wt_err *e);

/* The same with a context made and freed for this one call: timed with net
 * (NULL: the default model), or, for sim_eval, with the default model. */
int sim_eval_net(sim_result *r, const wafer *wf, const struct net_model *net, const model *m, const strategy *s,
                 wt_err *e);
int sim_eval(sim_result *r, const wafer *wf, const model *m, const strategy *s, wt_err *e);
void sim_free(sim_result *r);

/* 1 / bandwidth of link slot l, s per byte; 0 when the link is unusable. */
static inline double sim_link_inv_bw(const wafer *wf, size_t l)
{
    int u = (int)(l / WAFER_NDIR), d = (int)(l % WAFER_NDIR);
    return wafer_link_usable(wf, u, d) ? 1 / wafer_link_bw(wf, u, d) : 0;
}

/* Utilisation over the step of link slot l (busy time / step time). */
double sim_link_util(const sim_result *r, size_t l);
/* Each link's busiest window and hot time (docs/MODEL.md, "Windows"), into
 * peak[wafer_nlinks] (the largest busy fraction over any window of
 * window_s in the step, 0..1, never below sim_link_util) and
 * hot_s[wafer_nlinks] (seconds of the step at utilisation >= hot_frac; 0
 * everywhere when hot_frac is 0, and hot_s may then be NULL). A window longer than the step is taken as
 * the step (callers say so). Memory O(links + patterns' loads), freed
 * before returning; time O(links) to clear the arrays, then O(sum over
 * loaded links of the layers x the phases they carry x (window / slot +
 * 2)). WT_EINPUT for a window that is not a positive finite time,
 * WT_EINTERNAL out of memory. */
int sim_link_windows(const sim_result *r, double window_s, double hot_frac, double *peak, double *hot_s, wt_err *e);
/* The same for the n link slots links[] alone, the i-th's into peak[i] and
 * hot_s[i]: what a view of a few links needs (O(loaded links), not
 * O(links) but for an untouched scratch array). */
int sim_link_windows_at(const sim_result *r, double window_s, double hot_frac, const int *links, int n,
                        double *peak, double *hot_s, wt_err *e);
/* The step played in time (docs/MODEL.md, "Windows" and "What the screen
 * colours"): each link's busy fraction over the window [t0, t0 + window_s]
 * of the step, the integral of the u(t) above over the window over its
 * length, into util[wafer_nlinks] (0..1). A window past either end of the
 * step is moved inside it, one longer than the step is the step. Time
 * O(links + the loads of the phases the window meets); memory O(links),
 * taken and freed only when it meets the DP all-reduce's hidden part.
 * WT_EINPUT for a window that is not a positive finite time or a t0 that is
 * not finite, WT_EINTERNAL out of memory. */
int sim_link_window_util(const sim_result *r, double t0, double window_s, double *util, wt_err *e);
/* The links of a result by their loads: links with the same bytes from
 * every timed phase's patterns and the same bandwidth (the groups of a
 * collective are alike) have the same figure in every window, so a screen
 * computes a window per class, not per link. of[l] is link slot l's class,
 * 0 for the links no timed phase loads (0 in every window), the others
 * 1..n-1. Owned by the caller, freed with sim_link_classes_free; it reads
 * the result it was made for, which must outlive it. */
typedef struct sim_link_classes {
    int *of;                    /* wafer_nlinks; owned unless of_borrowed */
    int of_borrowed;            /* 1: of is the result's (its classes of every pattern
                                   are these, sim_int.h sim_reps), not freed here */
    int n;
    int *start;                 /* n + 1: class c's loads are load[start[c] .. start[c + 1]) */
    struct sim_class_load *load;
    double *inv;                /* n: a class's 1 / bandwidth, s/B */
    int *first;                 /* n: a class's lowest link slot (-1 for class 0) */
} sim_link_classes;
/* WT_EINTERNAL out of memory or for a result without its link figures (c
 * then empty). Time O(loads of the patterns), split over the cores on a
 * wafer (par.h), memory O(links). */
int sim_link_classes_new(const sim_result *r, sim_link_classes *c, wt_err *e);
void sim_link_classes_free(sim_link_classes *c);
/* sim_link_window_util by class: util[c] (c->n of them) is, to the bit,
 * what sim_link_window_util gives every link of class c. O(phases + the
 * classes' loads); its errors. */
int sim_class_window_util(const sim_result *r, const sim_link_classes *c, double t0, double window_s, double *util,
                          wt_err *e);
/* The phases running at time t of the step as the windows lay them out (a
 * slot's phases layer by layer, the DP all-reduce's hidden part over the end
 * of the last backward, then the tail), into out (at most max, the slot's
 * phase first); returns how many, 0 outside the step. */
int sim_running_at(const sim_result *r, double t, int *out, int max);
/* The nearest time after t (dir > 0) or before it (dir < 0) at which a phase
 * starts running (as sim_running_at lays them out), or -1 when none does. */
double sim_start_near(const sim_result *r, double t, int dir);
/* The first time phase runs in the step (as sim_running_at lays it out;
 * the DP all-reduce where its hidden part begins), or -1 when it never
 * does. */
double sim_phase_first(const sim_result *r, int phase);
/* Fills r's windowed figures (window_s, link_peak, hot_links,
 * max_peak_util) with window_s; the errors of sim_link_windows, after
 * which link_peak is NULL. */
int sim_window_figures(sim_result *r, double window_s, wt_err *e);
/* Phase index by name, or -1. */
int sim_phase_find(const sim_result *r, const char *name);
/* Bytes one phase moves over each link during the whole step (count times
 * one occurrence), into out[wafer_nlinks]. */
void sim_phase_link_bytes(const sim_result *r, int phase, double *out);
/* Stage of unit u, or -1 when idle. */
int sim_unit_stage(const sim_result *r, int u);
/* Unit u's share of the step spent computing, and the bytes of memory it
 * holds; 0 for an idle or dead unit. */
double sim_unit_compute_util(const sim_result *r, int u);
double sim_unit_memory(const sim_result *r, int u);
/* Rank of unit u, or -1 when idle or dead. */
int sim_unit_rank(const sim_result *r, int u);
/* The phases as a step plays them: those of the timeline in its order, then
 * any phase with traffic but no time of its own on it (a DP all-reduce the
 * backward hides), each once; returns how many went into out (at most max). */
int sim_play_order(const sim_result *r, int *out, int max);

#endif
