/*
 * sim.c - an evaluation: spec, placement, traffic, a network model's times,
 * then the figures every model shares (contract in sim.h).
 */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dram.h"
#include "flow.h"
#include "net.h"
#include "sim_int.h"
#include "traffic.h"


/* The compute time of a phase, scaled as sim_retime asks. */
static double phase_compute(const sim_result *r, const sim_phase *ph)
{
    return (ph->flops / (r->wf->peak_flops * r->wf->efficiency) + dram_stall_s(r, ph)) * r->compute_scale;
}

int sim_ctx_new(sim_ctx **out, const wafer *wf, wt_err *e)
{
    sim_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return wt_oom(e, "simulation context");
    c->wf = wf;
    size_t nl = wafer_nlinks(wf);
    c->bw_cls = malloc(nl);
    c->marks = calloc(nl, sizeof *c->marks);
    if (!c->bw_cls || !c->marks) {
        sim_ctx_free(c);
        return wt_oom(e, "simulation context");
    }
    net_bw_build(&c->bw, wf, c->bw_cls, c->bw_inv, &c->usable, &c->link_bw, &c->inj_bw);
    c->net = net_model_default();
    c->cutoff_s = INFINITY;
    int rc = route_ctx_new(&c->rc, wf, e);
    if (rc != WT_OK) {
        sim_ctx_free(c);
        return rc;
    }
    *out = c;
    return WT_OK;
}

void sim_ctx_set_net(sim_ctx *c, const net_model *net)
{
    c->net = net ? net : net_model_default();
}

void sim_ctx_set_cutoff(sim_ctx *c, double cutoff_s)
{
    c->cutoff_s = cutoff_s;
}

void sim_ctx_set_window(sim_ctx *c, double window_s)
{
    c->window_s = window_s;
}

double sim_ctx_link_bw(const sim_ctx *c)
{
    return c->link_bw;
}

void sim_ctx_free(sim_ctx *c)
{
    if (!c)
        return;
    route_ctx_free(c->rc);
    free(c->bw_cls);
    free(c->marks);
    free(c->next);
    free(c->origin);
    free(c->flows);
    free(c->overlap);
    flow_ctx_free(c->flow);
    free(c);
}

int sim_ctx_reserve(sim_ctx *c, int n, wt_err *e)
{
    if (n <= c->cap_ranks)
        return WT_OK;
    int *next = realloc(c->next, sizeof *next * (size_t)n);
    if (next)
        c->next = next;
    int *origin = realloc(c->origin, sizeof *origin * (size_t)n);
    if (origin)
        c->origin = origin;
    route_flow *flows = realloc(c->flows, sizeof *flows * 2 * (size_t)n);
    if (flows)
        c->flows = flows;
    if (!next || !origin || !flows)
        return wt_oom(e, "simulation scratch");
    c->cap_ranks = n;
    return WT_OK;
}

/* The context's overlap marks for n patterns, all unknown; NULL when they
 * cannot be had (the pairs are then compared every time). */
static unsigned char *overlap_marks(sim_ctx *c, int n)
{
    if (n > 0 && (size_t)n > SIZE_MAX / (size_t)n)
        return NULL;
    size_t need = (size_t)n * (size_t)n;
    if (need > c->cap_overlap) {
        unsigned char *grown = realloc(c->overlap, need);
        if (!grown)
            return NULL;
        c->overlap = grown;
        c->cap_overlap = need;
    }
    if (need)
        memset(c->overlap, 0, need);
    return c->overlap;
}

/* Each phase's share of the step from the timeline (a slot's slices repeat
 * for every slot), and the bottleneck: the phase with the largest share. */
static void phase_shares(sim_result *r)
{
    for (int i = 0; i < r->nphases; i++)
        r->phases[i].share = 0;
    for (int i = 0; i < r->ntimeline; i++) {
        const sim_slice *sl = &r->timeline[i];
        int in_slot = sl->end_s <= r->slot_s; /* the tail starts after all the slots */
        r->phases[sl->phase].share += (sl->end_s - sl->start_s) * (in_slot ? r->slots : 1) / r->step_time_s;
    }
    /* the first of phases as long as each other (slices sum with rounding) */
    r->bottleneck = 0;
    for (int i = 1; i < r->nphases; i++)
        if (r->phases[i].share > r->phases[r->bottleneck].share * (1 + 1e-9))
            r->bottleneck = i;
}

int sim_solve_prepare(sim_ctx *c, sim_result *r, wt_err *e)
{
    if (r->reps || sim_entries(r) < SIM_CLASSES_MIN)
        return WT_OK; /* the link figures list the loaded links when they need them */
    int rc = r->loaded ? WT_OK : sim_list_loaded(r, c->marks, e);
    return rc == WT_OK ? sim_result_reps(r, &c->bw, e) : rc;
}

/* Link bytes and utilisation over the step at r's loaded links, and each
 * phase's busiest link; WT_EINTERNAL out of memory. */
static int link_figures(sim_result *r, sim_ctx *c, wt_err *e)
{
    int rc = r->loaded ? WT_OK : sim_list_loaded(r, c->marks, e);
    if (rc != WT_OK)
        return rc;
    /* made after the list: on a wafer loaded nearly whole it comes
     * uncleared, and the walk that fills it clears it on the cores */
    if (!r->link_bytes && !(r->link_bytes = sim_links_alloc(r, sizeof *r->link_bytes)))
        return wt_oom(e, "link bytes");
    for (int p = 0; p < r->npatterns; p++)
        r->patterns[p].step_coef = 0;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        for (int t = 0; t < ph->nterms; t++)
            r->patterns[ph->terms[t].pattern].step_coef += ph->terms[t].coef * ph->count;
    }
    rc = sim_step_links(r, &c->bw, c->usable, e);
    return rc == WT_OK ? sim_busiest_links(r, c, overlap_marks(c, r->npatterns), e) : rc;
}

/* Times r's traffic with the context's network model and fills every
 * figure that follows from the times. */
static int time_and_figures(sim_result *r, sim_ctx *c, wt_err *e)
{
    const wafer *wf = r->wf;
    for (int i = 0; i < r->nphases; i++)
        r->phases[i].compute_s = phase_compute(r, &r->phases[i]);
    r->net = c->net;
    r->above_cutoff = 0;
    sim_result_classes_free(r); /* they class by the phases that take time */
    int rc = c->net->time_step(c, r, e);
    if (rc != WT_OK)
        return rc;
    if (r->step_time_s > c->cutoff_s) { /* its link bytes stay 0 */
        r->above_cutoff = 1;
        if (!r->link_bytes && !(r->link_bytes = calloc(wafer_nlinks(wf), sizeof *r->link_bytes)))
            return wt_oom(e, "link bytes");
        return WT_OK;
    }
    double step = r->step_time_s, peak_all = (double)r->units_live * wf->peak_flops;
    r->tokens_per_s = (double)r->m.batch * r->m.seq / step;
    r->mfu = r->model_flops_per_step / (step * peak_all);
    r->hfu = r->flops_per_step / (step * peak_all);
    double busy_all = 0;
    for (int k = 0; k < r->s.pp; k++)
        busy_all += r->stage_busy[k] * (r->plan.nranks / r->s.pp);
    r->idle_fraction = 1 - busy_all / (step * r->units_live);
    phase_shares(r);
    rc = link_figures(r, c, e);
    if (rc != WT_OK)
        return rc;
    r->window_s = r->max_peak_util = 0;
    r->hot_links = 0;
    return c->window_s > 0 ? sim_window_figures(r, c->window_s, e) : WT_OK;
}

int sim_retime(sim_ctx *c, sim_result *r, double factor, wt_err *e)
{
    r->compute_scale = factor;
    return time_and_figures(r, c, e);
}

int sim_phase_at(const sim_result *r, double t)
{
    double pipe = r->slots * r->slot_s;
    if (t < 0)
        return -1;
    if (t < pipe && r->slot_s > 0)
        t = fmod(t, r->slot_s);
    for (int i = 0; i < r->ntimeline; i++)
        if (t >= r->timeline[i].start_s && t < r->timeline[i].end_s)
            return r->timeline[i].phase;
    return -1;
}

int sim_eval_ctx(sim_ctx *c, sim_result *r, const model *m, const strategy *s, wt_err *e)
{
    return sim_eval_tuned(c, r, m, s, NULL, e);
}

int sim_eval_tuned(sim_ctx *c, sim_result *r, const model *m, const strategy *s, const sim_tuning *t, wt_err *e)
{
    const wafer *wf = c->wf;
    memset(r, 0, sizeof *r);
    r->compute_scale = 1;
    if (t)
        r->tune = *t;
    int rc = sim_spec(r, wf, m, s, e);
    if (rc != WT_OK)
        return rc;
    rc = place_plan(&r->plan, wf, &r->s, e);
    if (rc != WT_OK)
        return rc;
    r->stage_mem = calloc((size_t)r->s.pp, sizeof *r->stage_mem);
    r->stage_busy = calloc((size_t)r->s.pp, sizeof *r->stage_busy);
    if (!r->stage_mem || !r->stage_busy) {
        sim_free(r);
        return wt_oom(e, "result");
    }
    sim_stage_memory(r, r->stage_mem);
    rc = traffic_build(c, r, t, c->net, e);
    if (rc != WT_OK) {
        sim_free(r);
        return rc;
    }
    rc = time_and_figures(r, c, e);
    if (rc != WT_OK)
        sim_free(r);
    return rc;
}

int sim_eval_net(sim_result *r, const wafer *wf, const net_model *net, const model *m, const strategy *s,
                 wt_err *e)
{
    sim_ctx *c;
    int rc = sim_ctx_new(&c, wf, e);
    if (rc != WT_OK)
        return rc;
    sim_ctx_set_net(c, net);
    rc = sim_eval_ctx(c, r, m, s, e);
    sim_ctx_free(c);
    return rc;
}

int sim_eval(sim_result *r, const wafer *wf, const model *m, const strategy *s, wt_err *e)
{
    return sim_eval_net(r, wf, NULL, m, s, e);
}

/* A copy of n bytes at src, or NULL (also when src is NULL). */
static void *dup(const void *src, size_t n, int *oom)
{
    if (!src)
        return NULL;
    void *p = malloc(n ? n : 1);
    if (!p) {
        *oom = 1;
        return NULL;
    }
    memcpy(p, src, n);
    return p;
}

/* A copy of a per-link array of src that is 0 but at the patterns' links,
 * or NULL (also when a is NULL): calloc and those links alone, so a copy
 * on a wafer touches the pages of the loaded links only. */
static double *dup_loaded(const sim_result *src, const double *a, int *oom)
{
    if (!a)
        return NULL;
    double *p = calloc(wafer_nlinks(src->wf), sizeof *p);
    if (!p) {
        *oom = 1;
        return NULL;
    }
    for (int q = 0; q < src->npatterns; q++)
        for (int k = 0; k < src->patterns[q].nnz; k++)
            p[src->patterns[q].link[k]] = a[src->patterns[q].link[k]];
    return p;
}

int sim_copy(sim_result *dst, const sim_result *src, wt_err *e)
{
    *dst = *src;
    int oom = 0;
    size_t nu = wafer_nunits(src->wf), pp = (size_t)src->s.pp;
    dst->plan.unit = dup(src->plan.unit, (size_t)src->plan.nranks * sizeof *src->plan.unit, &oom);
    dst->plan.rank = dup(src->plan.rank, nu * sizeof *src->plan.rank, &oom);
    dst->link_bytes = dup_loaded(src, src->link_bytes, &oom);
    dst->link_peak = dup_loaded(src, src->link_peak, &oom);
    dst->loaded = dup(src->loaded, (size_t)src->nloaded * sizeof *src->loaded, &oom);
    dst->classes = NULL;
    dst->reps = NULL;
    dst->stage_mem = dup(src->stage_mem, pp * sizeof *src->stage_mem, &oom);
    dst->stage_busy = dup(src->stage_busy, pp * sizeof *src->stage_busy, &oom);
    dst->patterns = dup(src->patterns, (size_t)src->npatterns * sizeof *src->patterns, &oom);
    dst->cap_patterns = dst->patterns ? src->npatterns : 0;
    if (!dst->patterns)
        dst->npatterns = 0;
    for (int p = 0; p < dst->npatterns; p++) {
        size_t nnz = (size_t)src->patterns[p].nnz;
        dst->patterns[p].link = dup(src->patterns[p].link, nnz * sizeof *src->patterns[p].link, &oom);
        dst->patterns[p].load = dup(src->patterns[p].load, nnz * sizeof *src->patterns[p].load, &oom);
    }
    if (oom) {
        sim_free(dst);
        return wt_oom(e, "result copy");
    }
    return WT_OK;
}

void sim_free(sim_result *r)
{
    for (int p = 0; p < r->npatterns; p++) {
        free(r->patterns[p].link);
        free(r->patterns[p].load);
    }
    free(r->patterns);
    r->patterns = NULL;
    r->npatterns = r->cap_patterns = 0;
    free(r->link_bytes);
    free(r->link_peak);
    free(r->loaded);
    r->loaded = NULL;
    r->nloaded = 0;
    sim_result_classes_free(r);
    sim_result_reps_free(r);
    free(r->stage_mem);
    free(r->stage_busy);
    place_free(&r->plan);
    r->link_bytes = r->link_peak = r->stage_mem = r->stage_busy = NULL;
}

double sim_link_util(const sim_result *r, size_t l)
{
    if (r->step_time_s <= 0)
        return 0;
    return r->link_bytes[l] * sim_link_inv_bw(r->wf, l) / r->step_time_s;
}

const sim_phase_tune *sim_tuning_find(const sim_tuning *t, const char *name)
{
    for (int i = 0; t && i < t->nphases; i++)
        if (!strcmp(t->phase[i].phase, name))
            return &t->phase[i];
    return NULL;
}

int sim_tuning_priority(const sim_tuning *t, const char *name)
{
    const sim_phase_tune *pt = sim_tuning_find(t, name);
    return pt ? pt->priority : 0;
}

int sim_phase_find(const sim_result *r, const char *name)
{
    for (int i = 0; i < r->nphases; i++)
        if (!strcmp(r->phases[i].name, name))
            return i;
    return -1;
}

void sim_phase_link_bytes(const sim_result *r, int phase, double *out)
{
    const sim_phase *ph = &r->phases[phase];
    size_t nl = wafer_nlinks(r->wf);
    memset(out, 0, nl * sizeof *out);
    for (int t = 0; t < ph->nterms; t++) {
        const sim_pattern *p = &r->patterns[ph->terms[t].pattern];
        double c = ph->terms[t].coef * ph->count;
        for (int k = 0; k < p->nnz; k++)
            out[p->link[k]] += c * p->load[k];
    }
}

double sim_unit_compute_util(const sim_result *r, int u)
{
    int stage = sim_unit_stage(r, u);
    return stage >= 0 && r->step_time_s > 0 ? r->stage_busy[stage] / r->step_time_s : 0;
}

double sim_unit_memory(const sim_result *r, int u)
{
    int stage = sim_unit_stage(r, u);
    return stage >= 0 ? r->stage_mem[stage] : 0;
}

int sim_unit_rank(const sim_result *r, int u)
{
    return r->plan.rank[u];
}

int sim_play_order(const sim_result *r, int *out, int max)
{
    unsigned char seen[SIM_MAX_PHASES] = {0};
    int n = 0;
    for (int i = 0; i < r->ntimeline && n < max; i++)
        if (!seen[r->timeline[i].phase]++)
            out[n++] = r->timeline[i].phase;
    for (int p = 0; p < r->nphases && n < max; p++)
        if (!seen[p] && r->phases[p].comm_s > 0)
            out[n++] = p;
    return n;
}

int sim_unit_stage(const sim_result *r, int u)
{
    int rank = r->plan.rank[u];
    if (rank < 0)
        return -1;
    int idx[NDIM];
    place_index_of(&r->plan, rank, idx);
    return idx[DIM_PP];
}
