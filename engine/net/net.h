/*
 * net.h - how long a step's traffic takes: one interface, one table of
 * network models.
 *
 * The engine builds a step's traffic (traffic.h: the phases, the passes each
 * runs in order, the flows of every pass and their routed link loads) with no
 * notion of time. A network model turns that traffic into time. Every model
 * fills, in the result it is handed, exactly:
 *   per phase  comm_s, time_s, send_bytes, bw_ratio (compute_s is set before
 *              it is called, already scaled by sim_retime)
 *   the step   stage_time_s, stage_busy[PP], dp_time_s, dp_exposed_s,
 *              optimizer_s, step_time_s, and the timeline (timeline[],
 *              ntimeline, slot_s, slots)
 * and reads nothing but the traffic, the compute times and r->tune. What is
 * derived from those (link bytes and utilisation, each phase's share of the
 * step and busiest link, MFU, tokens/s) sim.c fills the same way for every
 * model, so two models differ only in time.
 *
 * Models (net_models[]):
 *   bottleneck  the closed form of docs/MODEL.md: a pass takes its busiest
 *               link's load over that link's bandwidth plus its latency-bound
 *               steps; passes, phases and slots run one after another.
 * A new model is a row of net_models[] (net.c) and a file of its own here.
 */
#ifndef WT_NET_H
#define WT_NET_H

#include "choice.h"
#include "sim.h"

typedef struct net_model {
    choice c;              /* its name (as --net will name it) and flags */
    const char *summary;   /* one line for help texts */
    /* Seconds the passes t[0..n) of one occurrence take alone, one after
     * another, on r's routed patterns: what `auto` compares between
     * algorithms. */
    double (*passes_s)(const sim_result *r, const sim_term *t, int n);
    /* Times every phase and the step of r (see above). c is the context
     * r's traffic was built in. */
    void (*time_step)(sim_ctx *c, sim_result *r);
} net_model;

/* The models: rows of net_models[], read through the choice table. */
choice_table net_model_table(void);

/* The model a result is timed with unless told otherwise. */
const net_model *net_model_default(void);
/* The model named name (any case), or NULL. */
const net_model *net_model_find(const char *name);

#endif
