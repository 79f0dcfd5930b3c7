/*
 * net_bw.h - each link's 1 / bandwidth (s per byte, 0 on an unusable link),
 * as the network models read it.
 *
 * A wafer has a handful of distinct link bandwidths (on-wafer links, the two
 * kinds of wafer-edge crossings, dead links), so the evaluator keeps a byte
 * per link, its class, and a small table of 1 / bandwidth by class: an
 * eighth of the memory of a double per link, which is what a large mesh
 * pays for in page faults. Custom flows (wt.route) and tests that
 * give every link a bandwidth of its own use an array of one double per
 * link instead (cls NULL). Both arrays are borrowed by whoever holds the
 * struct.
 */
#ifndef WT_NET_BW_H
#define WT_NET_BW_H

#include <stddef.h>

#include "err.h"
#include "wafer.h"

/* Classes of a wafer (net_bw_build): unusable, on-wafer, an E/W crossing,
 * an N/S crossing. */
enum { NET_BW_NCLASS = 4 };

typedef struct net_bw {
    const unsigned char *cls; /* a class per link, or NULL: inv is per link */
    const double *inv;        /* s per byte by class (or by link when cls is NULL) */
} net_bw;

/* 1 / bandwidth of link slot l, s per byte; 0 when unusable. */
static inline double net_bw_inv(const net_bw *b, size_t l)
{
    return b->cls ? b->inv[b->cls[l]] : b->inv[l];
}

/* A wafer's link classes: fills cls[wafer_nlinks] (the caller's) and
 * inv[NET_BW_NCLASS], each value as sim_link_inv_bw gives it, and b with
 * both. Also the figures the simulator keeps of the bandwidths: the links
 * with inv > 0 into *usable, the fastest link into *link_bw and the most a
 * unit can inject over its usable links into *inj_bw (bytes/s). */
void net_bw_build(net_bw *b, const wafer *wf, unsigned char *cls, double *inv, int *usable, double *link_bw,
                  double *inj_bw);

#endif
