/*
 * layout.h - wafer layouts from YAML files (the hardware of a scenario).
 *
 *   name: default
 *   mesh: 16x16              # units per wafer, W x H (required)
 *   wafers: 1x1              # grid of wafers (optional, default 1x1)
 *   unit: {compute: 362 TFLOPS, sram: 440 MB, dram: 0 GB, dram_bandwidth: 0 TB/s, efficiency: 0.8}
 *   link: {bandwidth: 2 TB/s, latency: 50 ns, overhead: 1 us, chunk_overhead: 100 ns}
 *   interwafer: {bandwidth: 9 TB/s, latency: 1.5 us}   # per wafer edge, shared by its links
 *   faults: {units: ["3,4"], links: ["3,4,E"]}
 *   store: {capacity: 2400 TB, bandwidth_in: 150 GB/s, bandwidth_out: 150 GB/s,
 *           latency: 1 us, ports: west,east}   # off-wafer parameter store
 *   strategy: {parallel: DP4,TATP16, exec: stream, checkpoint: full, microbatch: 8}
 *                            # the recommended strategy, options named as flags
 *
 * Required: name, mesh, unit.compute, unit.sram, link.bandwidth, link.latency.
 * Defaults: wafers 1x1, dram 0, dram_bandwidth 0, efficiency 0.8, overhead
 * 1 us, chunk_overhead 100 ns, interwafer = as fast as the links it replaces
 * (bandwidth = link bandwidth x edge length, latency = link latency), no faults,
 * no store (a store needs capacity, bandwidth_in, bandwidth_out and ports,
 * edges of the mesh; its latency defaults to 0), no recommended strategy
 * (commands then default to DP8,TATP16).
 * Every number must be finite and within its row of the ranges' table in
 * layout.c (docs/MODEL.md, "Layout ranges").
 * Every error is one line "file:line:col: message".
 */
#ifndef WT_LAYOUT_H
#define WT_LAYOUT_H

#include "err.h"
#include "wafer.h"

/* Parses the layout file at path into out (initialised by this call; the
 * caller frees with wafer_free on success). */
int layout_load(const char *path, wafer *out, wt_err *e);
/* What a load may add: overrides "key=value" of the layout's numbers over
 * the file's (unit.compute, unit.sram, link.bandwidth, interwafer.latency,
 * store.bandwidth_in, ...: the keys the file nests, joined by a dot), in
 * the same ranges, an override's error one line "WHO key=value: why"; and
 * whether to leave the calibration file beside the layout unread (the
 * factors all 1: what `calibrate` measures from). */
typedef struct layout_opts {
    const char *who;
    const char *const *set;
    int nset;
    int no_calib;
} layout_opts;

/* layout_load as o says (NULL: as layout_load). */
int layout_load_with(const char *path, const layout_opts *o, wafer *out, wt_err *e);
/* 1 when key is a field layout_opts.set may override. */
int layout_field_known(const char *key);

#endif
