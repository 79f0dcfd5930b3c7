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

#endif
