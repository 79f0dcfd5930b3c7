/*
 * net.h - how long a step's traffic takes: one interface, one table of
 * network models.
 *
 * The engine builds a step's traffic (traffic.h: the phases, the passes each
 * runs in order, the flows of every pass and their routed link loads) with no
 * notion of time. A network model turns that traffic into time.
 *
 * What a model may read: the traffic (r->phases[] spec fields, terms, count;
 * r->patterns[]), each phase's compute_s (set before the call, already scaled
 * by sim_retime), the run-time tuning r->tune, the strategy and model (r->s,
 * r->m, r->micro_batches and the stage helpers of sim_int.h), the wafer's
 * constants (r->wf: overheads, latencies) and the context's per-link data
 * and scratch (c->bw, c->inj_bw, and c->marks, zero again on return). A
 * model may skip work that can only lengthen a step already longer than
 * c->cutoff_s (sim_ctx_set_cutoff), as long as the step it reports stays
 * above the cutoff.
 *
 * What a model must fill, and nothing else:
 *   per phase  comm_s, time_s, send_bytes, bw_ratio
 *   the step   stage_time_s, stage_busy[PP], dp_time_s, dp_exposed_s,
 *              optimizer_s, step_time_s
 *   timeline   slot_s, slots and the slices timeline[0..ntimeline)
 *              (at most SIM_MAX_PHASES + 2): first one pipeline slot, its
 *              slices within [0, slot_s], which repeats `slots` times; then
 *              the step's tail, its slices from slots * slot_s on (the
 *              exposed DP all-reduce, the optimizer). The slices add up to
 *              the step: slots * slot_s + tail = step_time_s.
 * sim.c derives the rest the same way for every model (link bytes and
 * utilisation, each phase's share of the step from the timeline and its
 * busiest link, MFU, tokens/s), so two models differ only in time.
 *
 * What a model must never do: report a step shorter than sim_bounds (sim.h)
 * assumes, that is compute at peak efficiency and each pass's bytes over
 * the fastest link, passes in turn but for a ZeRO gather beside its layer. The search prunes with those bounds whichever model
 * times its candidates, so a model beneath them would lose it its best.
 *
 * Models (net_models[] in net.c, the default first):
 *   fluid       the closed form below, with the DP all-reduce's gradient
 *               buckets run beside the last backward, and each ZeRO
 *               gather beside the layer before it, on a max-min fair
 *               flow timeline (flow.h, fluid.c). Custom flows: one
 *               flow_run.
 *   bottleneck  the closed form of docs/MODEL.md section 9: a pass takes its
 *               busiest link's load over that link's bandwidth plus its
 *               latency-bound steps; passes, phases and slots run one after
 *               another. Custom flows: each ends its busiest link's
 *               summed load over bandwidth after its start, plus its
 *               latency; priorities play no part.
 * A new model is a row of net_models[] and a file of its own here.
 */
#ifndef WT_NET_H
#define WT_NET_H

#include "choice.h"
#include "flow.h"
#include "sim.h"

typedef struct net_model {
    choice c;              /* its name (as --net will name it) and flags */
    const char *summary;   /* one line for help texts */
    /* Seconds the passes t[0..n) of one occurrence take alone, one after
     * another, on r's routed patterns: what `auto` compares between
     * algorithms. */
    double (*passes_s)(const sim_result *r, const sim_term *t, int n);
    /* Times every phase and the step of r (see above). c is the context
     * r's traffic was built in. Returns WT_OK, or an error with e filled
     * (a model that allocates may run out of memory). */
    int (*time_step)(sim_ctx *c, sim_result *r, wt_err *e);
    /* Times n custom flows (wt.route) given as classes without
     * predecessors over nlinks link slots, inv_bw[l] s per byte (0 on an
     * unusable link): each class's times into t[n], the time of them all
     * into *end_s. Returns WT_OK; WT_EINPUT when a class loads an unusable
     * link or a work, start or latency is negative or not finite;
     * WT_EINTERNAL on out of memory or a link slot out of range. */
    int (*flows_time)(const double *inv_bw, size_t nlinks, const flow_class *cls, int n, flow_time *t,
                      double *end_s, wt_err *e);
} net_model;

/* The models: rows of net_models[], read through the choice table. */
choice_table net_model_table(void);

/* The model a result is timed with unless told otherwise: the table's
 * first row. */
const net_model *net_model_default(void);
/* The model named name (any case), or NULL. */
const net_model *net_model_find(const char *name);
/* Row i of the table (0 <= i < net_model_table().n). */
const net_model *net_model_at(int i);

#endif
