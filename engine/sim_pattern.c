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

static int find_pattern(const sim_result *r, int kind, int pass, route_mode mode, int wave, int nwaves)
{
    for (int i = 0; i < r->npatterns; i++) {
        const sim_pattern *p = &r->patterns[i];
        if (p->kind == kind && p->pass == pass && p->mode == mode && p->wave == wave && p->nwaves == nwaves)
            return i;
    }
    return -1;
}

/* Room for one more pattern in r. */
static int reserve_pattern(sim_result *r, wt_err *e)
{
    if (r->npatterns < r->cap_patterns)
        return WT_OK;
    int cap = r->cap_patterns ? 2 * r->cap_patterns : 16;
    sim_pattern *grown = realloc(r->patterns, sizeof *grown * (size_t)cap);
    if (!grown)
        return wt_oom(e, "patterns");
    r->patterns = grown;
    r->cap_patterns = cap;
    return WT_OK;
}

int sim_pattern_get(sim_build *b, int kind, int pass, route_mode mode, int wave, int nwaves, int *index,
                    wt_err *e)
{
    sim_result *r = b->r;
    sim_ctx *c = b->c;
    *index = find_pattern(r, kind, pass, mode, wave, nwaves);
    if (*index >= 0)
        return WT_OK;
    const coll_groups *g = sim_groups(b, kind, e);
    if (!g)
        return WT_EINTERNAL;
    int q = coll_pass_next(g, pass, r->wf, r->s.sub_w, r->s.sub_h, c->next);
    if (q == -2)
        return wt_oom(e, "pass");
    if (pass == PASS_INNER || pass == PASS_OUTER) {
        b->inner[kind] = q;
        if (q < 0)
            return WT_OK; /* no such pass: *index is -1 */
    }
    int rc = reserve_pattern(r, e);
    if (rc != WT_OK)
        return rc;
    size_t nf = 0;
    int two_way = coll_pass_two_way(pass);
    for (int grp = wave; grp < g->ngroups; grp += nwaves) {
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
    /* Rings and shifts load about one or two links per flow: reserve that
     * much so the list rarely grows. */
    route_sparse sp = {0};
    sp.cap = 2 * nf + 64;
    sp.link = malloc(sp.cap * sizeof *sp.link);
    sp.load = malloc(sp.cap * sizeof *sp.load);
    if (!sp.link || !sp.load) {
        free(sp.link);
        free(sp.load);
        return wt_oom(e, "pattern loads");
    }
    rc = route_flows_sparse(c->rc, c->flows, nf, mode, &sp, &st, e);
    if (rc != WT_OK) {
        free(sp.link);
        free(sp.load);
        return rc;
    }
    sim_pattern *p = &r->patterns[r->npatterns];
    memset(p, 0, sizeof *p);
    p->link = sp.link;
    p->load = sp.load;
    p->nnz = (int)sp.n;
    for (int k = 0; k < p->nnz; k++) {
        double busy = p->load[k] * c->inv_bw[p->link[k]];
        if (busy > p->max_busy)
            p->max_busy = busy;
    }
    p->kind = kind;
    p->pass = pass;
    p->mode = mode;
    p->wave = wave;
    p->nwaves = nwaves;
    p->max_hops = st.max_hops;
    p->max_lat = st.max_latency;
    p->send_factor = two_way ? 2 : 1;
    *index = r->npatterns++;
    return WT_OK;
}

void sim_build_free(sim_build *b)
{
    for (int k = 0; k < CG_NKIND; k++)
        if (b->built[k])
            coll_groups_free(&b->groups[k]);
}
