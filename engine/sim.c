#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"


static double terms_cost(const sim_result *r, const sim_term *t, int n)
{
    double c = 0;
    for (int i = 0; i < n; i++) {
        const sim_pattern *p = &r->patterns[t[i].pattern];
        c += t[i].coef * p->max_busy + t[i].steps * (r->wf->link_overhead + p->max_lat);
    }
    return c;
}

/* Turns collective op into routed terms with algorithm a; returns the count
 * or a negative error. Falls back to a ring when a's passes do not exist. */
static int expand_op(sim_build *b, const sim_op *op, coll_algo a, sim_term *out, wt_err *e)
{
    sim_result *r = b->r;
    route_mode mode = r->s.routing;
    if (op->op < 0) { /* pipeline shift: activations forward, gradients back */
        int pat = sim_pattern_get(b, CG_PP, PASS_SHIFT, mode, e);
        if (pat < 0)
            return pat;
        out[0] = (sim_term){pat, op->bytes, 1};
        return 1;
    }
    const coll_groups *g = sim_groups(b, op->kind, e);
    if (!g)
        return WT_EINTERNAL;
    if (a == COLL_HIER && !b->inner[op->kind]) {
        int pat = sim_pattern_get(b, op->kind, PASS_INNER, mode, e);
        if (pat < -1)
            return pat;
    }
    coll_term ct[COLL_MAX_TERMS];
    int n = coll_expand(g, a, op->op, op->bytes, b->inner[op->kind], ct);
    for (int i = 0; i < n; i++) {
        int pat = sim_pattern_get(b, op->kind, ct[i].pass, mode, e);
        if (pat == -1)
            return expand_op(b, op, COLL_RING, out, e);
        if (pat < 0)
            return pat;
        out[i] = (sim_term){pat, ct[i].coef, ct[i].steps};
    }
    return n;
}

/* The algorithm for op: hierarchical by wafer for groups spanning wafers,
 * the cheapest alone for auto, else the strategy's. */
static int resolve_op(sim_build *b, sim_phase *ph, const sim_op *op, wt_err *e)
{
    sim_result *r = b->r;
    coll_algo a = r->s.collective;
    if (op->op >= 0) {
        const coll_groups *g = sim_groups(b, op->kind, e);
        if (!g)
            return WT_EINTERNAL;
        if (g->wafers)
            a = COLL_HIER;
    }
    sim_term best[COLL_MAX_TERMS];
    int nbest;
    if (a == COLL_AUTO && op->op >= 0) {
        double best_cost = INFINITY;
        nbest = 0;
        for (coll_algo c = COLL_RING; c < COLL_AUTO; c++) {
            sim_term t[COLL_MAX_TERMS];
            int n = expand_op(b, op, c, t, e);
            if (n < 0)
                return n;
            double cost = terms_cost(r, t, n);
            if (cost < best_cost) {
                best_cost = cost;
                memcpy(best, t, sizeof t);
                nbest = n;
            }
        }
    } else {
        nbest = expand_op(b, op, a, best, e);
        if (nbest < 0)
            return nbest;
    }
    for (int i = 0; i < nbest; i++)
        ph->terms[ph->nterms++] = best[i];
    return WT_OK;
}

static double phase_count(const sim_result *r, const sim_phase *ph, int layers)
{
    switch (ph->scope) {
    case SIM_LAYER: return (double)r->micro_batches * layers * ph->rep;
    case SIM_LAST:
    case SIM_MB: return r->micro_batches;
    default: return 1;
    }
}

/* Time of one occurrence of a phase, and its figures. */
static void time_phase(sim_result *r, sim_phase *ph, double inj_bw, double fixed_s)
{
    const wafer *wf = r->wf;
    double bw_part = 0, lat_part = 0, send = 0;
    for (int i = 0; i < ph->nterms; i++) {
        const sim_pattern *p = &r->patterns[ph->terms[i].pattern];
        bw_part += ph->terms[i].coef * p->max_busy;
        lat_part += ph->terms[i].steps * (wf->link_overhead + p->max_lat);
        send += ph->terms[i].coef * p->send_factor;
    }
    ph->compute_s = ph->flops / (wf->peak_flops * wf->efficiency) + fixed_s;
    ph->comm_s = bw_part + lat_part;
    ph->send_bytes = send;
    double hi = fmax(ph->compute_s, ph->comm_s), lo = fmin(ph->compute_s, ph->comm_s);
    if (r->s.chunk > 0 && lo > 0) {
        double n = fmax(1, ceil(send / r->s.chunk));
        ph->time_s = hi + lo / n + n * wf->chunk_overhead;
    } else {
        ph->time_s = ph->compute_s + ph->comm_s;
    }
    ph->bw_ratio = send > 0 && inj_bw > 0 ? bw_part / (send / inj_bw) : 0;
}

/* 1 when two patterns load no common link (their link lists are sorted). */
static int patterns_disjoint(const sim_pattern *a, const sim_pattern *b)
{
    int i = 0, j = 0;
    while (i < a->nnz && j < b->nnz) {
        if (a->link[i] == b->link[j])
            return 0;
        if (a->link[i] < b->link[j])
            i++;
        else
            j++;
    }
    return 1;
}

/* Pairwise overlap of patterns, computed on first need: 0 unknown, 1
 * disjoint, 2 overlapping. */
typedef unsigned char overlap_cache[SIM_MAX_PATTERNS][SIM_MAX_PATTERNS];

/* Busiest link of a phase (its terms summed link by link) over its time.
 * Terms on patterns that share no link peak separately; otherwise the sum is
 * gathered in the context's scratch over the patterns' links only, and the
 * scratch is zeroed again on the way out. */
static double phase_max_util(const sim_result *r, const sim_phase *ph, const sim_ctx *c, overlap_cache ov)
{
    if (!ph->nterms || ph->time_s <= 0)
        return 0;
    int pat[SIM_MAX_TERMS], n = 0;
    double coef[SIM_MAX_TERMS];
    for (int i = 0; i < ph->nterms; i++) {
        int k = 0;
        while (k < n && pat[k] != ph->terms[i].pattern)
            k++;
        if (k == n) {
            pat[n] = ph->terms[i].pattern;
            coef[n++] = 0;
        }
        coef[k] += ph->terms[i].coef;
    }
    int disjoint = 1;
    for (int a = 0; a < n && disjoint; a++) {
        for (int b = a + 1; b < n && disjoint; b++) {
            unsigned char *o = &ov[pat[a]][pat[b]];
            if (!*o)
                *o = patterns_disjoint(&r->patterns[pat[a]], &r->patterns[pat[b]]) ? 1 : 2;
            disjoint = *o == 1;
        }
    }
    double best = 0;
    if (disjoint) {
        for (int k = 0; k < n; k++)
            best = fmax(best, coef[k] * r->patterns[pat[k]].max_busy);
        return best / ph->time_s;
    }
    double *scratch = c->scratch;
    for (int k = 0; k < n; k++) {
        const sim_pattern *p = &r->patterns[pat[k]];
        for (int i = 0; i < p->nnz; i++)
            scratch[p->link[i]] += coef[k] * p->load[i];
    }
    for (int k = 0; k < n; k++) {
        const sim_pattern *p = &r->patterns[pat[k]];
        for (int i = 0; i < p->nnz; i++) {
            int l = p->link[i];
            double busy = scratch[l] * c->inv_bw[l];
            if (busy > best) /* not fmax: a libm call per link */
                best = busy;
            scratch[l] = 0;
        }
    }
    return best / ph->time_s;
}

int sim_ctx_new(sim_ctx **out, const wafer *wf, wt_err *e)
{
    sim_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return wt_oom(e, "simulation context");
    c->wf = wf;
    size_t nl = wafer_nlinks(wf);
    c->inv_bw = malloc(nl * sizeof *c->inv_bw);
    c->scratch = calloc(nl, sizeof *c->scratch);
    if (!c->inv_bw || !c->scratch) {
        sim_ctx_free(c);
        return wt_oom(e, "simulation context");
    }
    for (int y = 0; y < wf->h; y++) {
        for (int x = 0; x < wf->w; x++) {
            int u = wafer_unit(wf, x, y);
            unsigned ok = wafer_usable_mask(wf, x, y);
            double inject = 0;
            for (int d = 0; d < WAFER_NDIR; d++) {
                double bw = (ok >> d) & 1u ? wafer_link_bw(wf, u, d) : 0;
                c->inv_bw[(size_t)u * WAFER_NDIR + (size_t)d] = bw > 0 ? 1 / bw : 0;
                inject += bw;
                if (bw > c->link_bw)
                    c->link_bw = bw;
            }
            if (inject > c->inj_bw)
                c->inj_bw = inject;
        }
    }
    int rc = route_ctx_new(&c->rc, wf, e);
    if (rc != WT_OK) {
        sim_ctx_free(c);
        return rc;
    }
    *out = c;
    return WT_OK;
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
    free(c->inv_bw);
    free(c->scratch);
    free(c->next);
    free(c->flows);
    free(c);
}

/* Grows the per-rank buffers of the context to n ranks. */
static int ctx_reserve(sim_ctx *c, int n, wt_err *e)
{
    if (n <= c->cap_ranks)
        return WT_OK;
    int *next = realloc(c->next, sizeof *next * (size_t)n);
    if (next)
        c->next = next;
    route_flow *flows = realloc(c->flows, sizeof *flows * 2 * (size_t)n);
    if (flows)
        c->flows = flows;
    if (!next || !flows)
        return wt_oom(e, "simulation scratch");
    c->cap_ranks = n;
    return WT_OK;
}

/* Step time, utilisation and the other figures of DESIGN.md section 6. */
static void fill_figures(sim_result *r, const sim_ctx *c)
{
    const strategy *s = &r->s;
    const wafer *wf = r->wf;
    int pp = s->pp, L_max = r->stage_layers_max;
    double stage_max = 0;
    for (int k = 0; k < pp; k++) {
        double t = 0, busy = 0;
        for (int i = 0; i < r->nphases; i++) {
            const sim_phase *ph = &r->phases[i];
            double per_mb = sim_per_mb(r, ph, k);
            t += per_mb * ph->time_s;
            busy += per_mb * ph->compute_s;
        }
        r->stage_busy[k] = busy * r->micro_batches;
        stage_max = fmax(stage_max, t);
    }
    r->stage_time_s = stage_max;
    /* DP buckets go out while the last micro-batch's backward computes: only
     * the part that does not fit in its communication-free time is exposed. */
    double window = 0;
    r->dp_time_s = r->optimizer_s = 0;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        ph->count = phase_count(r, ph, L_max);
        if (ph->role == SIM_BACKWARD)
            window += (ph->count / r->micro_batches) * fmax(0, ph->time_s - ph->comm_s);
        if (ph->role == SIM_DP)
            r->dp_time_s = ph->time_s;
        if (ph->role == SIM_OPTIMIZER)
            r->optimizer_s = ph->time_s;
    }
    r->dp_exposed_s = fmax(0, r->dp_time_s - window);
    for (int k = 0; k < pp; k++)
        r->stage_busy[k] += r->optimizer_s;
    r->step_time_s = (r->micro_batches + pp - 1) * stage_max + r->dp_exposed_s + r->optimizer_s;

    double step = r->step_time_s, peak_all = (double)r->units_live * wf->peak_flops;
    r->tokens_per_s = (double)r->m.batch * r->m.seq / step;
    r->mfu = r->model_flops_per_step / (step * peak_all);
    r->hfu = r->flops_per_step / (step * peak_all);
    double busy_all = 0;
    for (int k = 0; k < pp; k++)
        busy_all += r->stage_busy[k] * (r->plan.nranks / pp);
    r->idle_fraction = 1 - busy_all / (step * r->units_live);

    double worst = -1;
    overlap_cache ov;
    memset(ov, 0, sizeof ov);
    r->bottleneck = 0;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        ph->max_link_util = phase_max_util(r, ph, c, ov);
        double share = ph->count * (ph->role == SIM_DP ? r->dp_exposed_s : ph->time_s);
        if (share > worst) {
            worst = share;
            r->bottleneck = i;
        }
        for (int t = 0; t < ph->nterms; t++)
            r->patterns[ph->terms[t].pattern].step_coef += ph->terms[t].coef * ph->count;
    }
    size_t nl = wafer_nlinks(wf);
    memset(r->link_bytes, 0, nl * sizeof *r->link_bytes);
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        for (int k = 0; k < pat->nnz; k++)
            r->link_bytes[pat->link[k]] += pat->step_coef * pat->load[k];
    }
    double sum = 0;
    int usable = 0;
    r->max_link_util = 0;
    r->hot_links = 0;
    double per_step = 1 / r->step_time_s;
    for (size_t l = 0; l < nl; l++) {
        if (c->inv_bw[l] <= 0)
            continue;
        double u = r->link_bytes[l] * c->inv_bw[l] * per_step;
        usable++;
        sum += u;
        if (u > r->max_link_util)
            r->max_link_util = u;
        r->hot_links += u >= SIM_HOT;
    }
    r->mean_link_util = usable ? sum / usable : 0;
}

int sim_eval_ctx(sim_ctx *c, sim_result *r, const model *m, const strategy *s, wt_err *e)
{
    const wafer *wf = c->wf;
    memset(r, 0, sizeof *r);
    int rc = sim_spec(r, wf, m, s, e);
    if (rc != WT_OK)
        return rc;
    rc = place_plan(&r->plan, wf, &r->s, e);
    if (rc != WT_OK)
        return rc;
    size_t nl = wafer_nlinks(wf);
    r->link_bytes = calloc(nl, sizeof *r->link_bytes);
    r->stage_mem = calloc((size_t)r->s.pp, sizeof *r->stage_mem);
    r->stage_busy = calloc((size_t)r->s.pp, sizeof *r->stage_busy);
    if (!r->link_bytes || !r->stage_mem || !r->stage_busy || ctx_reserve(c, r->plan.nranks, e)) {
        sim_free(r);
        return wt_oom(e, "result");
    }
    sim_stage_memory(r, r->stage_mem);

    sim_build b = {.r = r, .c = c};
    for (int i = 0; i < r->nphases && rc == WT_OK; i++) {
        sim_phase *ph = &r->phases[i];
        for (int j = 0; j < ph->nops && rc == WT_OK; j++)
            rc = resolve_op(&b, ph, &ph->ops[j], e);
        time_phase(r, ph, c->inj_bw, sim_fixed_s(r, ph));
    }
    sim_build_free(&b);
    if (rc != WT_OK) {
        sim_free(r);
        return rc;
    }
    fill_figures(r, c);
    return WT_OK;
}

int sim_eval(sim_result *r, const wafer *wf, const model *m, const strategy *s, wt_err *e)
{
    sim_ctx *c;
    int rc = sim_ctx_new(&c, wf, e);
    if (rc != WT_OK)
        return rc;
    rc = sim_eval_ctx(c, r, m, s, e);
    sim_ctx_free(c);
    return rc;
}

void sim_free(sim_result *r)
{
    for (int p = 0; p < r->npatterns; p++) {
        free(r->patterns[p].link);
        free(r->patterns[p].load);
    }
    r->npatterns = 0;
    free(r->link_bytes);
    free(r->stage_mem);
    free(r->stage_busy);
    place_free(&r->plan);
    r->link_bytes = r->stage_mem = r->stage_busy = NULL;
}

double sim_link_util(const sim_result *r, size_t l)
{
    if (r->step_time_s <= 0)
        return 0;
    return r->link_bytes[l] * sim_link_inv_bw(r->wf, l) / r->step_time_s;
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

int sim_unit_stage(const sim_result *r, int u)
{
    int rank = r->plan.rank[u];
    if (rank < 0)
        return -1;
    int idx[NDIM];
    place_index_of(&r->plan, rank, idx);
    return idx[DIM_PP];
}
