/*
 * search_routed.c - bounds a candidate by a routed sibling's links.
 *
 * Candidates that differ only in checkpointing, memory switches, chunk and
 * micro-batch (one signature: dimensions, grid, exec mode, placement and
 * collective) place the same ranks and split every collective into the same
 * passes, so they route the same patterns; only each term's coefficient
 * changes, and linearly with its op's bytes M (coll_expand). One routed
 * evaluation R of a signature thus gives, per phase, the seconds its
 * passes take at their busiest links, C = sum over the op's terms of
 * coef x max_busy = sum_j kappa_j M_j with unknown kappa_j >= 0 per op j. A
 * sibling S's phase of the same name and ops needs sum_j kappa_j M'_j, which
 * is at least C x min_j (M'_j / M_j): the least any kappa consistent with R
 * gives. The network models never run a pass faster than its busiest link
 * alone, so this is a lower bound on S's phase wherever the first-link bound
 * of sim_bounds is weaker (large meshes, where groups share links).
 * Store transfers and latency are left out: sim_bounds counts them itself.
 */
#include <string.h>

#include "search_int.h"

void search_routed_take(search_routed *p, const sim_result *r)
{
    p->nphases = r->nphases;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        search_routed_phase *q = &p->phase[i];
        memcpy(q->name, ph->name, sizeof q->name);
        q->nops = ph->nops;
        memcpy(q->ops, ph->ops, sizeof q->ops);
        q->busy_s = 0;
        for (int t = 0; t < ph->nterms; t++) {
            const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
            if (pat->kind != CG_STORE)
                q->busy_s += ph->terms[t].coef * pat->max_busy;
        }
    }
}

/* The phase of p with the name and ops (kinds and collectives) of ph, or NULL. */
static const search_routed_phase *same_phase(const search_routed *p, const sim_phase *ph)
{
    for (int i = 0; i < p->nphases; i++) {
        const search_routed_phase *q = &p->phase[i];
        if (strcmp(q->name, ph->name))
            continue;
        if (q->nops != ph->nops)
            return NULL;
        for (int j = 0; j < ph->nops; j++)
            if (q->ops[j].kind != ph->ops[j].kind || q->ops[j].op != ph->ops[j].op)
                return NULL;
        return q;
    }
    return NULL;
}

void search_routed_bounds(const search_routed *p, const sim_result *spec, double *routed)
{
    for (int i = 0; i < spec->nphases; i++) {
        const sim_phase *ph = &spec->phases[i];
        const search_routed_phase *q = same_phase(p, ph);
        routed[i] = 0;
        if (!q || q->busy_s <= 0)
            continue;
        double least = -1; /* min over ops with bytes of M' / M */
        for (int j = 0; j < ph->nops; j++) {
            if (ph->ops[j].kind == CG_STORE || q->ops[j].bytes <= 0)
                continue; /* no kappa of its own in C */
            double ratio = ph->ops[j].bytes / q->ops[j].bytes;
            if (least < 0 || ratio < least)
                least = ratio;
        }
        routed[i] = least > 0 ? q->busy_s * least : 0;
    }
}
