/*
 * fluid.c - the fluid network model (docs/MODEL.md section 9, "The fluid
 * model").
 *
 * Phases, stages and slots are timed as the closed form times them (one pass
 * alone takes exactly its closed-form time on a max-min timeline, so a slot
 * whose activities run one after another is the same under both). What
 * overlaps is run on a flow timeline (flow.h): the DP all-reduce's gradient
 * buckets beside the last micro-batch's backward on the slowest stage, and
 * each ZeRO gather (sim_prefetched) beside the layer before it.
 *
 * The backward is cut into FLUID_BUCKETS groups of its layers (fewer when
 * the stage has fewer layers); a group runs each backward phase, in index
 * order, for its share of the phase's occurrences: a compute block (a class
 * with no load, capped to the block's time), then the phase's passes one
 * after another (their load vectors, work coef x occurrences, latency-bound
 * steps after). With streaming a phase's passes run beside its compute
 * instead. A bucket of 1/G of the gradient (the DP phase's passes, a
 * bucket's full latency-bound steps each) starts when its group's backward
 * and the previous bucket are done. Every class takes its phase's priority
 * level (sim_tuning_priority: 0 unless tuned), so by default the backward
 * and the buckets share links max-min fairly, as a network without
 * priorities does. The exposed DP all-reduce is how much later the backward
 * and buckets end than the backward alone, both run on the timeline.
 *
 * Merging a group's layers into one block per phase keeps the classes few
 * (what repeats is run once, longer); the links the buckets find free over
 * a group are the same in total.
 *
 * A ZeRO gather needs nothing of the layer before, so it runs beside it.
 * The layers of a block are alike: one steady layer is run (its other
 * phases of the gather's role, and from the same start the gather), and
 * x, how much later both end than the layer alone, is what each layer but
 * the first of a block exposes; the first waits for the whole gather. The
 * gather's time_s becomes its mean over the slowest stage's occurrences.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "net_int.h"

#define FLUID_BUCKETS 4
/* A bucket waits for its group's ends (a streamed phase's compute and
 * passes) and the previous bucket. */
#define PRED_MAX 3

/* The model needs the classes' times, not the links' figures. */
static const flow_run_opts times_only = {0, 0, 1};

/* The classes of one run, and their predecessors. */
typedef struct plan_run {
    flow_class *cls;
    int *pred;
    double *alone_s;     /* each class's time alone: its closed form */
    flow_time *t;        /* the run's times */
    double *fin;         /* chain_end's finishes */
    int n, cap;
    const sim_result *r;
    const unsigned char *mark; /* per link slot: nonzero where the overlapping activity loads it */
    signed char *meets;  /* per pattern: whether it loads a marked link, -1 not known yet */
    double delay;        /* chain time gathered and not yet emitted, s */
} plan_run;

/* Room for cap classes of r's run beside the activity on the links marked
 * nonzero in mark. Returns WT_OK or an out-of-memory error; plan_free frees
 * it either way. */
static int plan_alloc(plan_run *p, const sim_result *r, const unsigned char *mark, int cap, wt_err *e)
{
    size_t n = (size_t)cap;
    *p = (plan_run){.cls = malloc(sizeof *p->cls * n), .pred = malloc(sizeof *p->pred * PRED_MAX * n),
                    .alone_s = malloc(sizeof *p->alone_s * n), .t = malloc(sizeof *p->t * n),
                    .fin = malloc(sizeof *p->fin * n), .cap = cap, .r = r, .mark = mark,
                    .meets = malloc((size_t)r->npatterns + 1)};
    if (!p->cls || !p->pred || !p->alone_s || !p->t || !p->fin || !p->meets)
        return wt_oom(e, "fluid timeline");
    memset(p->meets, -1, (size_t)r->npatterns);
    return WT_OK;
}

static void plan_free(plan_run *p)
{
    free(p->cls);
    free(p->pred);
    free(p->alone_s);
    free(p->t);
    free(p->fin);
    free(p->meets);
}

/* Sets mark[l] = value on every link phase ph's patterns are solved over
 * (sim_pattern_solved: a link per class on a wafer, which stands for all
 * of its class in meets_mark as in the solves). */
static void mark_phase(const sim_result *r, const sim_phase *ph, unsigned char *mark, unsigned char value)
{
    for (int k = 0; k < ph->nterms; k++) {
        const int *link;
        const double *load;
        int nnz;
        sim_pattern_solved(r, ph->terms[k].pattern, &link, &load, &nnz);
        for (int j = 0; j < nnz; j++)
            mark[link[j]] = value;
    }
}

/* Appends a class after the npred classes in after[] (of pattern q's loads
 * as the solves take them, or none when q < 0); returns its index. A
 * pattern's work is its bytes times its calibration factor: the links see
 * that much more work, the store (max_rate) no more. */
static int add(plan_run *p, int q, double work, double max_rate, double latency_s, int prio, const int *after,
               int npred)
{
    int i = p->n++;
    int *pr = p->pred + PRED_MAX * i;
    for (int k = 0; k < npred; k++)
        pr[k] = after[k];
    const sim_pattern *pat = q >= 0 ? &p->r->patterns[q] : NULL;
    p->cls[i] = (flow_class){NULL, NULL, 0, prio, max_rate, work, 0, latency_s, pr, npred, pat ? pat->free_rate : 0};
    if (pat)
        sim_pattern_solved(p->r, q, &p->cls[i].link, &p->cls[i].load, &p->cls[i].nnz);
    p->alone_s[i] = (pat ? work / pat->calib * sim_pattern_busy(pat) : max_rate > 0 ? work / max_rate : 0) + latency_s;
    return i;
}

/* A term's class: its pattern's loads, `share` of its bytes, `runs` times
 * its latency-bound steps; a store's pattern no faster than the store. */
static int add_term(plan_run *p, const sim_term *t, double share, double runs, int prio, const int *after,
                    int npred)
{
    const sim_pattern *pat = &p->r->patterns[t->pattern];
    double latency = runs * t->steps * (p->r->wf->link_overhead + pat->max_lat);
    return add(p, t->pattern, share * t->coef * pat->calib, pat->store_s > 0 ? pat->calib / pat->store_s : 0, latency,
               prio, after, npred);
}

/* 1 when term t loads a link the overlapping activity loads; each pattern
 * is walked once per run (the phases of a step share a few of them). */
static int meets_mark(const plan_run *p, const sim_term *t)
{
    signed char *m = &p->meets[t->pattern];
    if (*m < 0) {
        const int *link;
        const double *load;
        int nnz, k = 0;
        sim_pattern_solved(p->r, t->pattern, &link, &load, &nnz);
        while (k < nnz && !p->mark[link[k]])
            k++;
        *m = k < nnz;
    }
    return *m;
}

/* Emits the chain time gathered so far as one class after end[], with
 * no load: what shares no link with the overlapping activity runs as if alone, so one
 * delay stands for all of it (the run then has few events). */
static void flush(plan_run *p, int *end, int *nend)
{
    if (p->delay <= 0)
        return;
    end[0] = add(p, -1, 0, 0, p->delay, 0, end, *nend);
    *nend = 1;
    p->delay = 0;
}

/* `times` occurrences of phase ph after the classes in end[0..*nend): a
 * compute block, then its passes (beside it when streamed); leaves its last
 * classes in end. A phase that meets no marked link only adds to the
 * pending delay. */
static void add_phase(plan_run *p, const sim_phase *ph, double times, int *end, int *nend)
{
    const sim_result *r = p->r;
    int streamed = r->s.chunk > 0 && ph->compute_s > 0, meets = 0;
    double comm_s = 0;
    for (int t = 0; t < ph->nterms; t++) {
        comm_s += times * net_bottleneck_passes_s(r, &ph->terms[t], 1); /* alone: the closed form */
        meets |= meets_mark(p, &ph->terms[t]);
    }
    if (!meets) {
        double comp = times * ph->compute_s;
        p->delay += streamed ? fmax(comp, comm_s) : comp + comm_s;
        return;
    }
    flush(p, end, nend);
    int prio = sim_tuning_priority(&r->tune, ph->name);
    int start[2] = {end[0], end[1]}, nstart = *nend, last = -1;
    if (ph->compute_s > 0)
        last = add(p, -1, 1, 1 / (times * ph->compute_s), 0, prio, start, nstart);
    int comm = -1;
    for (int t = 0; t < ph->nterms; t++) {
        int prev = comm >= 0 ? comm : streamed || last < 0 ? -1 : last;
        comm = prev >= 0 ? add_term(p, &ph->terms[t], times, times, prio, &prev, 1)
                         : add_term(p, &ph->terms[t], times, times, prio, start, nstart);
    }
    *nend = 0;
    end[(*nend)++] = comm;
    if (streamed)
        end[(*nend)++] = last;
}

/* Group g of G of the slowest stage's backward, after the classes in
 * end[0..*nend); leaves the group's last classes in end. */
static void add_group(plan_run *p, int slowest, int g, int G, int *end, int *nend)
{
    const sim_result *r = p->r;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        if (ph->role != SIM_BACKWARD)
            continue;
        double per_mb = sim_per_mb(r, ph, slowest);
        double times = ph->scope == SIM_LAYER ? per_mb / G : g == 0 ? per_mb : 0;
        if (times > 0)
            add_phase(p, ph, times, end, nend);
    }
    flush(p, end, nend);
}

/* The end of the first n classes of p when no two that run at once share a
 * link (the backward alone: its one overlap is a streamed phase's compute,
 * which loads none, beside its passes): the longest path of their times
 * alone, which is what the flow timeline gives them, without running it.
 * Predecessors come before their classes, so one pass in order does. */
static double chain_end(const plan_run *p, int n, double *fin)
{
    double end = 0;
    for (int i = 0; i < n; i++) {
        double start = 0;
        for (int k = 0; k < p->cls[i].npred; k++)
            start = fmax(start, fin[p->cls[i].pred[k]]);
        fin[i] = start + p->alone_s[i];
        end = fmax(end, fin[i]);
    }
    return end;
}

/* The context's flow scratch, made on first use. */
static int flow_ctx_made(sim_ctx *c, wt_err *e)
{
    if (c->flow)
        return WT_OK;
    int rc = flow_ctx_new(&c->flow, wafer_nlinks(c->wf), &c->bw, e);
    /* the runs of one step share their solutions: its patterns stay while
     * it is timed, and net_fluid_time_step forgets them */
    if (rc == WT_OK)
        flow_ctx_keep(c->flow, 1);
    return rc;
}

/* How much later the last backward ends with the DP buckets beside it. */
static int dp_exposed(sim_ctx *c, sim_result *r, int slowest, double *exposed, wt_err *e)
{
    const sim_phase *dp = NULL;
    int nclasses = 0, layers = sim_stage_layers(r, slowest);
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        if (ph->role == SIM_DP)
            dp = ph;
        else if (ph->role == SIM_BACKWARD)
            nclasses += 2 + ph->nterms; /* a delay, a compute block, the passes */
    }
    *exposed = 0;
    if (!dp || !dp->nterms)
        return WT_OK;
    int G = layers < FLUID_BUCKETS ? (layers > 0 ? layers : 1) : FLUID_BUCKETS;
    nclasses = G * (nclasses + 1 + dp->nterms);
    int rc = flow_ctx_made(c, e);
    if (rc != WT_OK)
        return rc;
    /* the links the buckets load, marked in the context's marks (zero
     * again on the way out) */
    mark_phase(r, dp, c->marks, 1);
    plan_run p;
    int *group_end = malloc(sizeof *group_end * 2 * (size_t)G), *group_n = malloc(sizeof *group_n * (size_t)G);
    rc = plan_alloc(&p, r, c->marks, nclasses, e);
    if (rc == WT_OK && !(group_end && group_n))
        rc = wt_oom(e, "fluid timeline");
    int dp_prio = sim_tuning_priority(&r->tune, dp->name);
    int end[2] = {-1, -1}, nend = 0;
    for (int g = 0; g < G && rc == WT_OK; g++) {
        add_group(&p, slowest, g, G, end, &nend);
        group_n[g] = nend;
        group_end[2 * g] = end[0];
        group_end[2 * g + 1] = end[1];
    }
    int nbwd = p.n, bucket_end = -1;
    for (int g = 0; g < G && rc == WT_OK; g++) {
        for (int k = 0; k < dp->nterms; k++) {
            int after[PRED_MAX], n = 0;
            if (k > 0) {
                after[n++] = bucket_end;
            } else {
                for (int j = 0; j < group_n[g]; j++)
                    after[n++] = group_end[2 * g + j];
                if (bucket_end >= 0)
                    after[n++] = bucket_end;
            }
            bucket_end = add_term(&p, &dp->terms[k], 1.0 / G, 1, dp_prio, after, n); /* a bucket: every step */
        }
    }
    mark_phase(r, dp, c->marks, 0);
    flow_run_out out;
    if (rc == WT_OK)
        rc = flow_run(c->flow, p.cls, p.n, &times_only, p.t, &out, e);
    if (rc == WT_OK)
        *exposed = fmax(0, out.end_s - chain_end(&p, nbwd, p.fin));
    plan_free(&p);
    free(group_end);
    free(group_n);
    return rc;
}

/* How much later a steady layer of gather g's block (forward or backward)
 * ends with the next layer's gather beside it: the layer's other phases of
 * g's role, ph->rep / g->rep occurrences each in index order, and from the
 * same start g's passes (work coef, their latency-bound steps after), on
 * the flow timeline, less those phases alone. Into *x. */
static int gather_exposed(sim_ctx *c, sim_result *r, const sim_phase *g, double *x, wt_err *e)
{
    int n = 1 + g->nterms; /* the last delay, the gather's passes */
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        if (ph->role == g->role && ph->scope == SIM_LAYER && !sim_prefetched(ph))
            n += 2 + ph->nterms;
    }
    int rc = flow_ctx_made(c, e);
    if (rc != WT_OK)
        return rc;
    mark_phase(r, g, c->marks, 1);
    plan_run p;
    rc = plan_alloc(&p, r, c->marks, n, e);
    int end[2] = {-1, -1}, nend = 0;
    for (int i = 0; i < r->nphases && rc == WT_OK; i++) {
        const sim_phase *ph = &r->phases[i];
        if (ph->role == g->role && ph->scope == SIM_LAYER && !sim_prefetched(ph))
            add_phase(&p, ph, ph->rep / g->rep, end, &nend);
    }
    mark_phase(r, g, c->marks, 0);
    flow_run_out out;
    if (rc == WT_OK) {
        flush(&p, end, &nend);
        int nchain = p.n, prev = -1, prio = sim_tuning_priority(&r->tune, g->name);
        for (int k = 0; k < g->nterms; k++)
            prev = add_term(&p, &g->terms[k], 1, 1, prio, &prev, prev >= 0);
        rc = flow_run(c->flow, p.cls, p.n, &times_only, p.t, &out, e);
        if (rc == WT_OK)
            *x = fmax(0, out.end_s - chain_end(&p, nchain, p.fin));
    }
    plan_free(&p);
    return rc;
}

/* The closed-form time of one layer's phases of g's role beside one
 * gather g: what gather_exposed runs g beside, timed alone. */
static double chain_s(const sim_result *r, const sim_phase *g)
{
    double s = 0;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        if (ph->role == g->role && ph->scope == SIM_LAYER && !sim_prefetched(ph))
            s += ph->rep / g->rep * ph->time_s;
    }
    return s;
}

/* Times the prefetched gathers (sim_prefetched): each's time_s becomes x,
 * what a steady layer gets longer by, and first_s[i] the rest of its time
 * alone, which the first layer of a block waits for. With run 0, x is the
 * least the timeline can give without running it: the gather alone (never
 * faster beside anything) less the chain's closed form (never shorter than
 * the timeline's chain alone). With run 1, gather_exposed's, at most the
 * gather alone (the two can always run in turn). */
static int prefetch(sim_ctx *c, sim_result *r, int run, double *first_s, wt_err *e)
{
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *g = &r->phases[i];
        if (!sim_prefetched(g))
            continue;
        double x = fmax(0, g->comm_s - chain_s(r, g));
        int rc = run ? gather_exposed(c, r, g, &x, e) : WT_OK;
        if (rc != WT_OK)
            return rc;
        g->time_s = fmin(x, g->comm_s);
        first_s[i] = g->comm_s - g->time_s;
    }
    return WT_OK;
}

int net_fluid_time_step(sim_ctx *c, sim_result *r, wt_err *e)
{
    double first_s[SIM_MAX_PHASES] = {0};
    if (c->flow) /* the last step's patterns are gone */
        flow_ctx_forget(c->flow);
    net_closed_form_phases(c, r);
    int rc = prefetch(c, r, 0, first_s, e), slowest = net_stages(r, first_s);
    /* With the least the gathers can expose and without what the DP
     * all-reduce exposes the step is already longer than the cutoff: the
     * timeline cannot make it shorter. */
    double exposed = 0;
    double least = (r->micro_batches + r->s.pp - 1) * r->stage_time_s + r->optimizer_s;
    if (rc == WT_OK && least <= c->cutoff_s) {
        rc = sim_solve_prepare(c, r, e);
        if (rc == WT_OK)
            rc = prefetch(c, r, 1, first_s, e);
        slowest = net_stages(r, first_s);
        if (rc == WT_OK)
            rc = dp_exposed(c, r, slowest, &exposed, e);
    }
    if (rc != WT_OK)
        return rc;
    /* the first layers' waits spread over the slowest stage's occurrences,
     * so its slot's slices add up to its time */
    for (int i = 0; i < r->nphases; i++) {
        double per_mb = sim_per_mb(r, &r->phases[i], slowest);
        if (first_s[i] > 0 && per_mb > 0)
            r->phases[i].time_s += r->phases[i].rep * first_s[i] / per_mb;
    }
    net_finish_step(r, slowest, exposed);
    return WT_OK;
}

/* Custom flows share links max-min as they go: one run of the timeline. */
int net_fluid_flows_time(const double *inv_bw, size_t nlinks, const flow_class *cls, int n, flow_time *t,
                         double *end_s, wt_err *e)
{
    flow_ctx *fc;
    net_bw bw = {NULL, inv_bw};
    int rc = flow_ctx_new(&fc, nlinks, &bw, e);
    if (rc != WT_OK)
        return rc;
    flow_run_out out;
    rc = flow_run(fc, cls, n, &times_only, t, &out, e);
    if (rc == WT_OK)
        *end_s = out.end_s;
    flow_ctx_free(fc);
    return rc;
}
