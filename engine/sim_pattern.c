/*
 * sim_pattern.c - routes each pass once per evaluation: the link loads of
 * every member sending one byte to its successor, to be scaled by the bytes
 * of each collective that uses the pass.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

const coll_groups *sim_groups(sim_build *b, int kind, wt_err *e)
{
    if (!b->built[kind]) {
        if (coll_groups_build(&b->groups[kind], kind, &b->r->plan, b->r->wf, e) != WT_OK)
            return NULL;
        b->built[kind] = 1;
    }
    return &b->groups[kind];
}

static int find_pattern(const sim_result *r, int kind, int pass, route_mode mode)
{
    for (int i = 0; i < r->npatterns; i++) {
        const sim_pattern *p = &r->patterns[i];
        if (p->kind == kind && p->pass == pass && p->mode == mode)
            return i;
    }
    return -1;
}

/* Moves the nonzero loads of the context's scratch into p (and zeroes it). */
static int take_loads(sim_ctx *c, sim_pattern *p, wt_err *e)
{
    size_t nl = wafer_nlinks(c->wf), nnz = 0;
    for (size_t l = 0; l < nl; l++)
        nnz += c->scratch[l] != 0;
    p->link = malloc((nnz ? nnz : 1) * sizeof *p->link);
    p->load = malloc((nnz ? nnz : 1) * sizeof *p->load);
    if (!p->link || !p->load) {
        free(p->link);
        free(p->load);
        memset(c->scratch, 0, nl * sizeof *c->scratch);
        return wt_oom(e, "pattern loads");
    }
    double max_busy = 0;
    int k = 0;
    for (size_t l = 0; l < nl; l++) {
        if (c->scratch[l] == 0)
            continue;
        p->link[k] = (int)l;
        p->load[k++] = (float)c->scratch[l];
        double busy = c->scratch[l] * c->inv_bw[l];
        if (busy > max_busy)
            max_busy = busy;
        c->scratch[l] = 0;
    }
    p->nnz = k;
    p->max_busy = max_busy;
    return WT_OK;
}

int sim_pattern_get(sim_build *b, int kind, int pass, route_mode mode, wt_err *e)
{
    sim_result *r = b->r;
    sim_ctx *c = b->c;
    int found = find_pattern(r, kind, pass, mode);
    if (found >= 0)
        return found;
    const coll_groups *g = sim_groups(b, kind, e);
    if (!g)
        return WT_EINTERNAL;
    int q = coll_pass_next(g, pass, r->wf, r->s.sub_w, r->s.sub_h, c->next);
    if (q == -2)
        return wt_oom(e, "pass");
    if (pass == PASS_INNER || pass == PASS_OUTER) {
        b->inner[kind] = q;
        if (q < 0)
            return -1;
    }
    if (r->npatterns == SIM_MAX_PATTERNS) {
        wt_fail(e, "internal: more than %d communication patterns", SIM_MAX_PATTERNS);
        return WT_EINTERNAL;
    }
    size_t nf = 0;
    int two_way = coll_pass_two_way(pass);
    for (int grp = 0; grp < g->ngroups; grp++) {
        const int *unit = g->unit + (size_t)grp * g->size;
        const int *next = c->next + (size_t)grp * g->size;
        for (int m = 0; m < g->size; m++) {
            if (next[m] == m)
                continue;
            c->flows[nf++] = (route_flow){unit[m], unit[next[m]], 1.0};
            if (two_way)
                c->flows[nf++] = (route_flow){unit[next[m]], unit[m], 1.0};
        }
    }
    route_stats st;
    int rc = route_flows(c->rc, c->flows, nf, mode, c->scratch, &st, e);
    if (rc != WT_OK) {
        memset(c->scratch, 0, wafer_nlinks(r->wf) * sizeof *c->scratch);
        return rc;
    }
    sim_pattern *p = &r->patterns[r->npatterns];
    memset(p, 0, sizeof *p);
    if ((rc = take_loads(c, p, e)) != WT_OK)
        return rc;
    p->kind = kind;
    p->pass = pass;
    p->mode = mode;
    p->max_hops = st.max_hops;
    p->max_lat = st.max_latency;
    p->send_factor = two_way ? 2 : 1;
    return r->npatterns++;
}

void sim_build_free(sim_build *b)
{
    for (int k = 0; k < CG_NKIND; k++)
        if (b->built[k])
            coll_groups_free(&b->groups[k]);
}
