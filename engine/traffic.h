/*
 * traffic.h - the traffic of a step, with no notion of time.
 *
 * What moves in a step, between which units, in which phase, after what:
 *   - phases (sim_phase, filled by sim_spec): FLOPs and collectives over
 *     group kinds (coll.h), occurring `count` times per step;
 *   - passes (sim_phase.terms, filled here): each collective expanded by
 *     its algorithm into weighted passes; `auto` takes the algorithm whose
 *     passes the network model times shortest;
 *   - flows and loads (sim_result.patterns, filled here): every distinct
 *     pass (group kind, pass, routing, wave) routed once as flows of one
 *     byte from each member to its successor; a term scales its pattern by
 *     coef bytes.
 * The order ("after what"), which every network model keeps:
 *   - a phase's terms run one after another, a term's groups all at once
 *     (split into waves, one after another, when tuned so);
 *   - phases of scope SIM_LAYER, SIM_LAST and SIM_MB run in index order
 *     within a pipeline slot (one micro-batch's forward and backward on a
 *     stage); a step is (m + PP - 1) slots of the slowest stage;
 *   - the SIM_DP phase (gradient all-reduce) starts during the last slot's
 *     backward phases, whose traffic it overlaps (the phases' priority
 *     levels in r->tune say which goes first on shared links); the
 *     SIM_OPTIMIZER phase runs last.
 * Network models (net.h) turn this into time; nothing here reads a time
 * except `auto`'s comparison.
 */
#ifndef WT_TRAFFIC_H
#define WT_TRAFFIC_H

#include <stddef.h>

#include "net.h"
#include "route.h"
#include "sim.h"

/* Resolves the collectives of every phase of r (sim_spec'd and placed) into
 * terms and routes their patterns, with the tuning t (NULL for none); net
 * times the candidates of `auto`. On error r's patterns so far stay owned by
 * r (sim_free frees them). */
int traffic_build(sim_ctx *c, sim_result *r, const sim_tuning *t, const net_model *net, wt_err *e);

/* The flows of pattern p of r, as they were routed: one byte from every
 * member of every group of the pattern's wave to its successor in the pass
 * (and back, for two-way passes). *out is allocated (the caller frees it);
 * src == dst flows are left out. */
int traffic_flows(const sim_result *r, int p, route_flow **out, size_t *n, wt_err *e);

#endif
