/*
 * net_bw.c - a wafer's link classes (contract in net_bw.h).
 */
#include "net_bw.h"

#include <string.h>

#include "par.h"

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

/* The classes of rows [y0, y1) of each part of the mesh (par.h), and what
 * they add to the figures: counts, a maximum and bits, the same whatever
 * the split. */
typedef struct bw_job {
    const wafer *wf;
    const unit_kind *kind;
    unsigned char *cls;
    int nparts, multi;
    int usable[PAR_MAX];
    double most[PAR_MAX];
    unsigned seen[PAR_MAX];
} bw_job;

static void bw_rows(void *ctx, int part)
{
    bw_job *j = ctx;
    const wafer *wf = j->wf;
    size_t y0, y1;
    par_range((size_t)wf->h, part, j->nparts, &y0, &y1);
    int n = 0;
    double most = 0;
    unsigned seen = 0;
    for (int y = (int)y0; y < (int)y1; y++)
        for (int x = 0; x < wf->w; x++) {
            const unit_kind *k = &j->kind[wafer_usable_mask(wf, x, y) | crossing_bits(wf, j->multi, x, y)];
            memcpy(j->cls + (size_t)wafer_unit(wf, x, y) * WAFER_NDIR, k->cls, WAFER_NDIR);
            n += k->usable;
            most = k->inject > most ? k->inject : most;
            seen |= k->seen;
        }
    j->usable[part] = n;
    j->most[part] = most;
    j->seen[part] = seen;
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
    bw_job j = {.wf = wf, .kind = kind, .cls = cls, .nparts = par_chunks(wafer_nlinks(wf)),
                .multi = wf->wafers_x > 1 || wf->wafers_y > 1};
    par_run(j.nparts, bw_rows, &j);
    double fastest = 0, most = 0;
    int n = 0;
    unsigned seen = 0; /* the classes some link has */
    for (int part = 0; part < j.nparts; part++) {
        n += j.usable[part];
        most = j.most[part] > most ? j.most[part] : most;
        seen |= j.seen[part];
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
