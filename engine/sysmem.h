/*
 * sysmem.h - the memory an evaluation of a mesh allocates, and whether this
 * process can have it: checked before anything large is allocated, so a
 * mesh or a run too large for the machine is refused up front (WT_EINPUT,
 * exit 2) with both figures, rather than failing part way as out of memory.
 */
#ifndef WT_SYSMEM_H
#define WT_SYSMEM_H

#include "err.h"
#include "wafer.h"

/* Bytes an evaluation of wf allocates at least, whatever the strategy
 * (SYSMEM_LINK_BYTES per link slot, SYSMEM_UNIT_BYTES per unit; sysmem.c
 * lists the arrays). Pages of links no pattern loads are allocated but
 * never touched, so the resident memory is often far less; the address
 * space is not. */
#define SYSMEM_LINK_BYTES 48
#define SYSMEM_UNIT_BYTES 10
double sysmem_eval_bytes(const wafer *wf);

/* Bytes this process may still allocate: the machine's physical memory, or
 * less when an address-space or data limit (ulimit -v, ulimit -d) leaves
 * less beyond what the process maps already. *what (may be NULL) names the
 * bound: "physical memory", "address-space limit, ulimit -v", "data limit,
 * ulimit -d". */
double sysmem_limit(const char **what);

/* WT_OK when need bytes fit sysmem_limit, else WT_EINPUT with "WHAT needs
 * 16.8 GB of memory; this process can have 2.04 GB (address-space limit,
 * ulimit -v)". */
int sysmem_check(double need, const char *what, wt_err *e);

#endif
