/*
 * stream.h - weight streaming's traffic: what moves between the layout's
 * parameter store and the units (docs/MODEL.md, "Weight streaming").
 *
 * The store's I/O reaches the mesh at the units of the edges the layout
 * names (wafer_store_port: a unit's nearest). Weights in: every placed
 * rank receives its shard from its port unit; gradients out: every rank
 * sends its gradient shard to its port unit. Each is one pattern of flows
 * (one byte per rank, routed as every pass is), so the links near the
 * ports carry the shards of every unit behind them. The store sends each
 * byte of a layer once (the I/O fans it out to the ports) and takes each
 * reduced gradient byte once: one occurrence moves tp * tatp shards through
 * the store.
 */
#ifndef WT_STREAM_H
#define WT_STREAM_H

#include <stddef.h>

#include "sim.h"

/* The flows of the store pattern of direction out (0: weights in, 1:
 * gradients out) for r's placed ranks into flows (room for nranks); flows
 * of a rank on its own port unit are left out. Returns their number. */
size_t stream_flows(const sim_result *r, int out, route_flow *flows);

/* 1 when every unit's port is the unit of its own row at column
 * port_x[x] (w entries, filled): no dead units and ports on the east or
 * west edge only; then stream_flows are row flows (route_rows_sparse). */
int stream_port_columns(const sim_result *r, int *port_x);

/* Seconds the store takes per byte of a unit's shard in direction out:
 * the tp * tatp distinct shards over the store's bandwidth that way. */
double stream_store_s(const sim_result *r, int out);

/* Seconds per step the store's transfers of direction out take at the
 * store's bandwidth alone (*store) and at their busiest links alone
 * (*mesh); both 0 without streaming. */
void stream_step_s(const sim_result *r, int out, double *store, double *mesh);

/* What bounds the step's store transfers: "store" when the store's
 * bandwidth takes at least as long as the busiest links, "mesh" otherwise,
 * "" without streaming. Static text. */
const char *stream_bound(const sim_result *r);

#endif
