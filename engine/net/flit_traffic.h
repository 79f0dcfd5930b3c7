/*
 * flit_traffic.h - synthetic traffic for the flit level: BookSim2's
 * patterns on a w x h mesh (unit y * w + x at column x, row y), in batches
 * or at a rate, and the figures those runs are compared by.
 */
#ifndef WT_FLIT_TRAFFIC_H
#define WT_FLIT_TRAFFIC_H

#include <stdint.h>

#include "err.h"
#include "flit.h"

/* Where unit (x, y) sends:
 *   uniform    any unit, itself included, equally likely
 *   transpose  (y, x) (square meshes)
 *   bitcomp    (w-1-x, h-1-y)
 *   neighbor   ((x+1) mod w, (y+1) mod h): a ring in each dimension
 *   tornado    ((x + ceil(w/2) - 1) mod w, likewise y)
 */
enum flit_pattern { FLIT_UNIFORM = 0, FLIT_TRANSPOSE, FLIT_BITCOMP, FLIT_NEIGHBOR, FLIT_TORNADO, FLIT_NPATTERNS };

const char *flit_pattern_name(int pattern);
/* The pattern called name, or -1. */
int flit_pattern_find(const char *name);
/* The names, comma-separated, for messages. */
const char *flit_pattern_names(void);

/* Batch: every unit creates `packets` packets of `flits` flits for the
 * pattern's destinations, one a cycle from cycle 0 (BookSim2's batch mode
 * at injection rate 1). Rate: every unit creates a packet with probability
 * `rate` each cycle of [0, cycles) (Bernoulli). uniform draws from a
 * generator seeded with seed (non-zero). *out is allocated here (free it);
 * WT_EINPUT for a pattern the mesh cannot take (transpose of a non-square
 * mesh) or a count out of range (at most 2^31 cycles x units at a rate),
 * WT_EINTERNAL out of memory. */
int flit_traffic_batch(int w, int h, int pattern, int packets, int flits, uint64_t seed, flit_packet **out,
                       int *np, wt_err *e);
int flit_traffic_rate(int w, int h, int pattern, double rate, int flits, long long cycles, uint64_t seed,
                      flit_packet **out, int *np, wt_err *e);

/* Over the packets created in [from, to): how many (*n), how many of those
 * arrived (*arrived), their mean latency (tail written at dst - created,
 * cycles) and mean routers crossed, over the ones that arrived. */
void flit_latency(const flit_packet *p, int np, long long from, long long to, int *n, int *arrived, double *latency,
                  double *hops);

#endif
