/*
 * net_bw.c - a wafer's link classes (contract in net_bw.h).
 */
#include "net_bw.h"

#include <string.h>

/* What a unit's four links give, by the bits of its usable links (0-3)
 * and of those that cross a wafer edge (4-7): their classes, and the sum
 * of their bandwidths in direction order, so a unit costs a lookup. */
typedef struct unit_kind {
    unsigned char cls[WAFER_NDIR];
    unsigned seen;  /* bit c: some link is of class c */
    double inject;
    int usable;
} unit_kind;

static void kinds_build(unit_kind *k, const double *bw)
{
    for (unsigned m = 0; m < 256; m++) {
        k[m].seen = 0;
        k[m].inject = 0;
        k[m].usable = 0;
        for (int d = 0; d < WAFER_NDIR; d++) {
            unsigned char c = !((m >> d) & 1u)        ? 0
                              : !((m >> (4 + d)) & 1u) ? 1
                              : d == WAFER_E || d == WAFER_W ? 2
                                                           : 3;
            k[m].cls[d] = c;
            k[m].seen |= 1u << c;
            k[m].inject += bw[c];
            k[m].usable += bw[c] > 0;
        }
    }
}

/* Bits 4-7: the links of unit (x, y) that cross a wafer edge (only across
 * wafers: wafer_link_crosses divides). */
static unsigned crossing_bits(const wafer *wf, int multi, int x, int y)
{
    unsigned m = 0;
    for (int d = 0; multi && d < WAFER_NDIR; d++)
        m |= (unsigned)wafer_link_crosses(wf, wafer_unit(wf, x, y), d) << (4 + d);
    return m;
}

void net_bw_build(net_bw *b, const wafer *wf, unsigned char *cls, double *inv, int *usable, double *link_bw,
                  double *inj_bw)
{
    /* as wafer_link_bw gives each kind, 0 for an unusable link */
    const double bw[NET_BW_NCLASS] = {0, wf->link_bw, wf->iw_bw / wf->wafer_h, wf->iw_bw / wf->wafer_w};
    unit_kind kind[256];
    kinds_build(kind, bw);
    for (int k = 0; k < NET_BW_NCLASS; k++)
        inv[k] = bw[k] > 0 ? 1 / bw[k] : 0;
    double fastest = 0, most = 0;
    int multi = wf->wafers_x > 1 || wf->wafers_y > 1, n = 0;
    unsigned seen = 0; /* the classes some link has */
    for (int y = 0; y < wf->h; y++)
        for (int x = 0; x < wf->w; x++) {
            const unit_kind *k = &kind[wafer_usable_mask(wf, x, y) | crossing_bits(wf, multi, x, y)];
            memcpy(cls + (size_t)wafer_unit(wf, x, y) * WAFER_NDIR, k->cls, WAFER_NDIR);
            n += k->usable;
            most = k->inject > most ? k->inject : most;
            seen |= k->seen;
        }
    /* the fastest link there is */
    for (int k = 0; k < NET_BW_NCLASS; k++)
        if ((seen >> k) & 1u && bw[k] > fastest)
            fastest = bw[k];
    *usable = n;
    *link_bw = fastest;
    *inj_bw = most;
    b->cls = cls;
    b->inv = inv;
}
