/*
 * net_int.h - the functions behind the rows of net_models[] (not a public
 * API: callers go through the table).
 */
#ifndef WT_NET_INT_H
#define WT_NET_INT_H

#include "net.h"
#include "sim_int.h"

/* bottleneck.c */
double net_bottleneck_passes_s(const sim_result *r, const sim_term *t, int n);
int net_bottleneck_time_step(sim_ctx *c, sim_result *r, wt_err *e);
/* The closed form's phases, shared by the models that differ only in what
 * overlaps: every phase's comm_s, time_s, send_bytes and bw_ratio,
 * dp_time_s and optimizer_s. */
void net_closed_form_phases(sim_ctx *c, sim_result *r);
/* The stages from the phases' time_s, plus, when first_s is not NULL,
 * first_s[i] s more for the first occurrence of layer phase i in each of
 * a stage's blocks of layers (rep per micro-batch): stage_busy (compute
 * only) and stage_time_s. Returns the slowest stage. */
int net_stages(sim_result *r, const double *first_s);
/* Both: the closed form's phases and stages. */
int net_closed_form_stages(sim_ctx *c, sim_result *r);
/* The step from those and the exposed part of the DP all-reduce:
 * dp_exposed_s, the optimizer in stage_busy, step_time_s, the timeline. */
void net_finish_step(sim_result *r, int slowest, double dp_exposed_s);
int net_bottleneck_flows_time(const double *inv_bw, size_t nlinks, const flow_class *cls, int n, flow_time *t,
                              double *end_s, wt_err *e);

/* fluid.c */
int net_fluid_time_step(sim_ctx *c, sim_result *r, wt_err *e);
int net_fluid_flows_time(const double *inv_bw, size_t nlinks, const flow_class *cls, int n, flow_time *t,
                         double *end_s, wt_err *e);

#endif
