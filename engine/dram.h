/*
 * dram.h - what a unit's DRAM moves in each phase and how long it takes
 * (docs/MODEL.md, "DRAM traffic").
 *
 * What lives in DRAM is mem_place's split of the fullest unit (mem.h),
 * used for every stage. A layer's forward reads its weights in DRAM (twice
 * under full recompute) and writes its activations in DRAM; its backward
 * reads both and reads and writes its gradients in DRAM; the logits do the
 * same with the head's weights; the optimizer reads and writes the
 * parameters, gradients and optimizer states in DRAM. Within a block (a
 * layer's forward or backward, a logits phase, the optimizer) the traffic
 * is prefetched and written behind, so each phase carries its FLOPs' share
 * of the block's bytes and takes max(its FLOPs' time, its DRAM time).
 */
#ifndef WT_DRAM_H
#define WT_DRAM_H

#include "sim.h"

/* Seconds one occurrence of ph moves its share of DRAM bytes at the
 * unit's DRAM bandwidth; 0 without DRAM bandwidth and for phases without
 * FLOPs. ph is one of r's phases (after sim_spec). */
double dram_phase_s(const sim_result *r, const sim_phase *ph);

/* Seconds one occurrence of ph takes beyond its FLOPs' time waiting for
 * DRAM: max(0, dram_phase_s - FLOPs / (peak x efficiency)). */
double dram_stall_s(const sim_result *r, const sim_phase *ph);

/* Seconds per step, count times dram_phase_s (stall 0) or dram_stall_s
 * (stall 1) summed over the phases. */
double dram_step_s(const sim_result *r, int stall);

#endif
