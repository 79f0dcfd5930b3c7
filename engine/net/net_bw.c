/*
 * net_bw.c - a wafer's link classes (contract in net_bw.h).
 */
#include "net_bw.h"

/* The class of usable link (u, dir): an edge crossing only across wafers
 * (wafer_link_crosses divides; one wafer has none). */
static unsigned char link_class(const wafer *wf, int multi, int u, int dir)
{
    if (!multi || !wafer_link_crosses(wf, u, dir))
        return 1;
    return dir == WAFER_E || dir == WAFER_W ? 2 : 3;
}

void net_bw_build(net_bw *b, const wafer *wf, unsigned char *cls, double *inv, int *usable, double *link_bw,
                  double *inj_bw)
{
    /* as wafer_link_bw gives each kind, 0 for an unusable link */
    const double bw[NET_BW_NCLASS] = {0, wf->link_bw, wf->iw_bw / wf->wafer_h, wf->iw_bw / wf->wafer_w};
    for (int k = 0; k < NET_BW_NCLASS; k++)
        inv[k] = bw[k] > 0 ? 1 / bw[k] : 0;
    int multi = wf->wafers_x > 1 || wf->wafers_y > 1;
    /* locals: the class bytes written below may alias anything */
    int n = 0;
    double fastest = 0, most = 0;
    for (int y = 0; y < wf->h; y++) {
        for (int x = 0; x < wf->w; x++) {
            int u = wafer_unit(wf, x, y);
            unsigned ok = wafer_usable_mask(wf, x, y);
            unsigned char *c = cls + (size_t)u * WAFER_NDIR;
            double inject = 0;
            for (int d = 0; d < WAFER_NDIR; d++) {
                c[d] = (ok >> d) & 1u ? link_class(wf, multi, u, d) : 0;
                inject += bw[c[d]];
                n += bw[c[d]] > 0;
                if (bw[c[d]] > fastest)
                    fastest = bw[c[d]];
            }
            if (inject > most)
                most = inject;
        }
    }
    *usable = n;
    *link_bw = fastest;
    *inj_bw = most;
    b->cls = cls;
    b->inv = inv;
}
