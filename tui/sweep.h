/*
 * sweep.h - a design-space sweep file (`wafertop sweep FILE.yaml`):
 *
 *   run: eval                  # or search: what each point runs
 *   scenario:                  # every point's flags, as on the command line
 *     layout: default
 *     model: gpt3-6.7b
 *     set: [link.latency=100ns]  # a list: the flag repeated
 *   axes:                      # the points are their product; the first
 *     link.bandwidth: [1TB/s, 2TB/s, 4TB/s]   # varies slowest. A key with a
 *     seq: {from: 1024, to: 8192, times: 2}   # dot is a layout field
 *     unit.sram: {from: 110MB, to: 440MB, step: 110MB}   # (--set key=value)
 *
 * A range's from and to share their unit; `times` multiplies, `step` adds,
 * up to `to` included. Errors are file:line:col.
 */
#ifndef WT_SWEEP_H
#define WT_SWEEP_H

#include "err.h"

#define SWEEP_MAX_AXES 8
#define SWEEP_MAX_VALUES 1024
#define SWEEP_MAX_BASE 64
#define SWEEP_MAX_POINTS 1000000

typedef struct sweep_axis {
    char key[48];
    int nvalues;
    char **values;     /* owned */
} sweep_axis;

typedef struct sweep {
    int search;        /* run: search, else eval */
    int nbase;
    char *base[SWEEP_MAX_BASE]; /* "--flag", "value", ... owned */
    int naxes;
    sweep_axis axes[SWEEP_MAX_AXES];
    long npoints;
} sweep;

int sweep_load(const char *path, sweep *s, wt_err *e);
void sweep_free(sweep *s);

/* Point i's value of axis k (the last axis varies fastest). */
const char *sweep_value(const sweep *s, long i, int k);

/* Point i's flags, the scenario's then the axes', into argv (at most n
 * words; the axes' words are allocated here, freed with sweep_argv_free).
 * Returns the count, or -1 out of memory. */
int sweep_argv(const sweep *s, long i, char **argv, int n);
void sweep_argv_free(const sweep *s, char **argv, int argc);

#endif
