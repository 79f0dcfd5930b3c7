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

/* Turns collective op into routed terms with algorithm a, each pass once
 * per wave (the waves run one after another); returns the count or a
 * negative error. Falls back to a ring when a's passes do not exist. */
static int expand_op(sim_build *b, const sim_op *op, coll_algo a, sim_term *out, wt_err *e)
{
    coll_term ct[COLL_MAX_TERMS];
    int n, kind = op->op < 0 ? CG_PP : op->kind;
    const coll_groups *g = sim_groups(b, kind, e);
    if (!g)
        return WT_EINTERNAL;
    /* a wave needs a group of its own; more waves than groups change nothing */
    int waves = b->waves < g->ngroups ? b->waves : g->ngroups;
    if (op->op < 0) { /* pipeline shift: activations forward, gradients back */
        ct[0] = (coll_term){PASS_SHIFT, op->bytes, 1};
        n = 1;
    } else {
        if (a == COLL_HIER && !b->inner[op->kind]) {
            int pat = sim_pattern_get(b, op->kind, PASS_INNER, b->mode, 0, 1, e);
            if (pat < -1)
                return pat;
        }
        n = coll_expand(g, a, op->op, op->bytes, b->inner[op->kind], ct);
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        for (int w = 0; w < waves; w++) {
            int pat = sim_pattern_get(b, kind, ct[i].pass, b->mode, w, waves, e);
            if (pat == -1)
                return expand_op(b, op, COLL_RING, out, e);
            if (pat < 0)
                return pat;
            out[k++] = (sim_term){pat, ct[i].coef, ct[i].steps};
        }
    }
    return k;
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
    sim_term best[COLL_MAX_TERMS * SIM_MAX_WAVES];
    int nbest;
    if (a == COLL_AUTO && op->op >= 0) {
        double best_cost = INFINITY;
        nbest = 0;
        for (int c = 0; c < COLL_NALGOS; c++) {
            if (!(choice_at(coll_algo_table(), c)->flags & CHOICE_AUTO))
                continue;
            sim_term t[COLL_MAX_TERMS * SIM_MAX_WAVES];
            int n = expand_op(b, op, (coll_algo)c, t, e);
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
    if (ph->nterms + nbest > SIM_MAX_TERMS) {
        wt_fail(e, "phase %s: too many passes (%d waves)", ph->name, b->waves);
        return WT_EINPUT;
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

/* A phase's time from its compute and communication: one after the other,
 * or overlapped in chunks when streaming. */
static double phase_time(const sim_result *r, const sim_phase *ph)
{
    double hi = fmax(ph->compute_s, ph->comm_s), lo = fmin(ph->compute_s, ph->comm_s);
    if (r->s.chunk > 0 && lo > 0) {
        double n = fmax(1, ceil(ph->send_bytes / r->s.chunk));
        return hi + lo / n + n * r->wf->chunk_overhead;
    }
    return ph->compute_s + ph->comm_s;
}

/* The compute time of a phase, scaled as sim_retime asks. */
static double phase_compute(const sim_result *r, const sim_phase *ph)
{
    return (ph->flops / (r->wf->peak_flops * r->wf->efficiency) + sim_fixed_s(r, ph)) * r->compute_scale;
}

/* Time of one occurrence of a phase, and its figures. */
static void time_phase(sim_result *r, sim_phase *ph, double inj_bw)
{
    const wafer *wf = r->wf;
    double bw_part = 0, lat_part = 0, send = 0;
    for (int i = 0; i < ph->nterms; i++) {
        const sim_pattern *p = &r->patterns[ph->terms[i].pattern];
        bw_part += ph->terms[i].coef * p->max_busy;
        lat_part += ph->terms[i].steps * (wf->link_overhead + p->max_lat);
        send += ph->terms[i].coef * p->send_factor;
    }
    ph->compute_s = phase_compute(r, ph);
    ph->comm_s = bw_part + lat_part;
    ph->send_bytes = send;
    ph->time_s = phase_time(r, ph);
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
/* Sets mark[l] = value on every link a backward phase loads. */
static void mark_backward(const sim_result *r, double *mark, double value)
{
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].role == SIM_BACKWARD)
            for (int t = 0; t < r->phases[i].nterms; t++) {
                const sim_pattern *p = &r->patterns[r->phases[i].terms[t].pattern];
                for (int k = 0; k < p->nnz; k++)
                    mark[p->link[k]] = value;
            }
}

/* The share of the DP all-reduce's busiest link that backward traffic also
 * uses: how much of it delays the backward when DP goes first. */
static double dp_overlap(const sim_result *r, const sim_ctx *c)
{
    double *mark = c->scratch; /* zero between uses */
    mark_backward(r, mark, 1);
    double shared = 0, all = 0;
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].role == SIM_DP)
            for (int t = 0; t < r->phases[i].nterms; t++) {
                const sim_term *term = &r->phases[i].terms[t];
                const sim_pattern *p = &r->patterns[term->pattern];
                for (int k = 0; k < p->nnz; k++) {
                    double busy = term->coef * p->load[k] * c->inv_bw[p->link[k]];
                    all = fmax(all, busy);
                    if (mark[p->link[k]])
                        shared = fmax(shared, busy);
                }
            }
    mark_backward(r, mark, 0);
    return all > 0 ? shared / all : 0;
}

/* One pipeline slot of the slowest stage, then the step's tail. */
static void fill_timeline(sim_result *r, int slowest)
{
    double t = 0;
    int n = 0;
    for (int i = 0; i < r->nphases; i++) {
        double d = sim_per_mb(r, &r->phases[i], slowest) * r->phases[i].time_s;
        if (d > 0) {
            r->timeline[n++] = (sim_slice){i, t, t + d};
            t += d;
        }
    }
    r->slot_s = t;
    r->slots = r->micro_batches + r->s.pp - 1;
    double tail = r->slots * t;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        double d = ph->role == SIM_DP ? r->dp_exposed_s : ph->role == SIM_OPTIMIZER ? r->optimizer_s : 0;
        if (d > 0) {
            r->timeline[n++] = (sim_slice){i, tail, tail + d};
            tail += d;
        }
    }
    r->ntimeline = n;
}

/* Stage times, the exposed DP all-reduce, the step and its figures. */
static void time_step(sim_result *r, double overlap)
{
    const strategy *s = &r->s;
    const wafer *wf = r->wf;
    int pp = s->pp, L_max = r->stage_layers_max, slowest = 0;
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
        if (t > stage_max) {
            stage_max = t;
            slowest = k;
        }
    }
    r->stage_time_s = stage_max;
    /* The DP buckets go out during the last micro-batch's backward (B, of
     * which Bm communicates). Backward first (the default): only its
     * communication-free time carries them; DP first: they overlap all of
     * B, but delay the backward where they share its links. */
    double B = 0, Bm = 0;
    r->dp_time_s = r->optimizer_s = 0;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        ph->count = phase_count(r, ph, L_max);
        if (ph->role == SIM_BACKWARD) {
            B += (ph->count / r->micro_batches) * ph->time_s;
            Bm += (ph->count / r->micro_batches) * fmin(ph->comm_s, ph->time_s);
        }
        if (ph->role == SIM_DP)
            r->dp_time_s = ph->time_s;
        if (ph->role == SIM_OPTIMIZER)
            r->optimizer_s = ph->time_s;
    }
    if (r->tune.dp_priority)
        r->dp_exposed_s = fmax(0, r->dp_time_s - B) + fmin(r->dp_time_s, Bm) * overlap;
    else
        r->dp_exposed_s = fmax(0, r->dp_time_s - (B - Bm));
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
    fill_timeline(r, slowest);
}

/* Link bytes and utilisation over the step, phase peaks, the bottleneck. */
static void link_figures(sim_result *r, const sim_ctx *c)
{
    double worst = -1;
    overlap_cache ov;
    memset(ov, 0, sizeof ov);
    r->bottleneck = 0;
    for (int p = 0; p < r->npatterns; p++)
        r->patterns[p].step_coef = 0;
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
    size_t nl = wafer_nlinks(r->wf);
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

static void fill_figures(sim_result *r, const sim_ctx *c)
{
    time_step(r, r->tune.dp_priority ? dp_overlap(r, c) : 0);
    link_figures(r, c);
}

void sim_retime(sim_ctx *c, sim_result *r, double factor)
{
    r->compute_scale = factor;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        ph->compute_s = phase_compute(r, ph);
        ph->time_s = phase_time(r, ph);
    }
    fill_figures(r, c);
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

/* The tuning of phase ph, or NULL. */
static const sim_phase_tune *phase_tuning(const sim_tuning *t, const sim_phase *ph)
{
    for (int i = 0; t && i < t->nphases; i++)
        if (!strcmp(t->phase[i].phase, ph->name))
            return &t->phase[i];
    return NULL;
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
        const sim_phase_tune *pt = phase_tuning(t, ph);
        b.mode = pt && pt->routing >= 0 ? (route_mode)pt->routing : r->s.routing;
        b.waves = pt && pt->waves > 1 ? (pt->waves < SIM_MAX_WAVES ? pt->waves : SIM_MAX_WAVES) : 1;
        for (int j = 0; j < ph->nops && rc == WT_OK; j++)
            rc = resolve_op(&b, ph, &ph->ops[j], e);
        time_phase(r, ph, c->inj_bw);
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

int sim_copy(sim_result *dst, const sim_result *src, wt_err *e)
{
    *dst = *src;
    int oom = 0;
    size_t nu = wafer_nunits(src->wf), pp = (size_t)src->s.pp;
    dst->plan.unit = dup(src->plan.unit, (size_t)src->plan.nranks * sizeof *src->plan.unit, &oom);
    dst->plan.rank = dup(src->plan.rank, nu * sizeof *src->plan.rank, &oom);
    dst->link_bytes = dup(src->link_bytes, wafer_nlinks(src->wf) * sizeof *src->link_bytes, &oom);
    dst->stage_mem = dup(src->stage_mem, pp * sizeof *src->stage_mem, &oom);
    dst->stage_busy = dup(src->stage_busy, pp * sizeof *src->stage_busy, &oom);
    for (int p = 0; p < src->npatterns; p++) {
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
