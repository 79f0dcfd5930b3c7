/*
 * sim_int.h - what the pieces of the simulator share (not a public API).
 *
 * sim_phases.c turns model and strategy into phase specs (names, FLOPs,
 * collectives); sim_pattern.c routes the passes those collectives use;
 * sim.c resolves collectives into passes, times the phases and fills the
 * figures.
 */
#ifndef WT_SIM_INT_H
#define WT_SIM_INT_H

#include "sim.h"

struct sim_ctx {
    const wafer *wf;
    route_ctx *rc;
    double *inv_bw;            /* wafer_nlinks: 1 / bandwidth, 0 on unusable links */
    double inj_bw;             /* largest bandwidth a unit can inject */
    double link_bw;            /* fastest usable link */
    double *scratch;           /* wafer_nlinks doubles, all zero between uses */
    int *next;                 /* cap_ranks entries */
    route_flow *flows;         /* 2 * cap_ranks entries */
    int cap_ranks;
    unsigned char *overlap;    /* npatterns^2 pairwise overlap marks of one figures pass */
    size_t cap_overlap;
};

/* Scratch of one evaluation. */
typedef struct sim_build {
    sim_result *r;
    sim_ctx *c;
    coll_groups groups[CG_NKIND];
    int built[CG_NKIND];
    int inner[CG_NKIND];       /* hierarchical inner size per kind, 0 = unknown, -1 = none */
    route_mode mode;           /* routing of the phase being resolved */
    int waves;                 /* its waves */
} sim_build;

/* Fills r->phases with names, scopes, FLOPs and collectives (no timing). */
void sim_phases_build(sim_result *r);

/* Layers of stage k: L / PP, the first L % PP stages one more. */
int sim_stage_layers(const sim_result *r, int k);
/* Occurrences of a phase per micro-batch on stage k (0 for step phases). */
double sim_per_mb(const sim_result *r, const sim_phase *ph, int k);
/* Memory total of a unit of every stage, into totals[PP]. */
void sim_stage_memory(const sim_result *r, double *totals);
/* Time a phase spends beyond its FLOPs: the optimizer's DRAM spill. */
double sim_fixed_s(const sim_result *r, const sim_phase *ph);

/* The routed pattern for (kind, pass, mode, wave), routed on first use:
 * returns WT_OK with *index its index in r->patterns, or -1 when the pass
 * does not exist for these groups (an uneven hierarchical split); or an
 * error code, and *index is then undefined. The answer and the error are
 * kept apart: an error is never read as "no such pass". */
int sim_pattern_get(sim_build *b, int kind, int pass, route_mode mode, int wave, int nwaves, int *index,
                    wt_err *e);

/* The groups of a kind, built on first use (NULL on out of memory). */
const coll_groups *sim_groups(sim_build *b, int kind, wt_err *e);

void sim_build_free(sim_build *b);

#endif
