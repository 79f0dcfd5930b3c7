/*
 * fluid.c - the fluid network model (docs/MODEL.md section 9, "The fluid
 * model").
 *
 * Phases, stages and slots are timed as the closed form times them (one pass
 * alone takes exactly its closed-form time on a max-min timeline, so a slot
 * whose activities run one after another is the same under both). What
 * overlaps is run on a flow timeline (flow.h): the DP all-reduce's gradient
 * buckets beside the last micro-batch's backward on the slowest stage.
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
 */
#include <math.h>
#include <stdlib.h>

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
    int n, cap;
    const sim_result *r;
    const double *dp_mark; /* per link slot: nonzero where the buckets load it */
    double delay;        /* backward time gathered and not yet emitted, s */
} plan_run;

/* Appends a class after the npred classes in after[]; returns its index. */
static int add(plan_run *p, const sim_pattern *pat, double work, double max_rate, double latency_s, int prio,
               const int *after, int npred)
{
    int i = p->n++;
    int *pr = p->pred + PRED_MAX * i;
    for (int k = 0; k < npred; k++)
        pr[k] = after[k];
    p->cls[i] = (flow_class){pat ? pat->link : NULL, pat ? pat->load : NULL, pat ? pat->nnz : 0, prio, max_rate,
                             work, 0, latency_s, pr, npred};
    p->alone_s[i] = (pat ? work * pat->max_busy : max_rate > 0 ? work / max_rate : 0) + latency_s;
    return i;
}

/* A term's class: its pattern's loads, `share` of its bytes, `runs` times
 * its latency-bound steps. */
static int add_term(plan_run *p, const sim_term *t, double share, double runs, int prio, const int *after,
                    int npred)
{
    const sim_pattern *pat = &p->r->patterns[t->pattern];
    double latency = runs * t->steps * (p->r->wf->link_overhead + pat->max_lat);
    return add(p, pat, share * t->coef, 0, latency, prio, after, npred);
}

/* 1 when term t loads a link the buckets load. */
static int meets_buckets(const plan_run *p, const sim_term *t)
{
    const sim_pattern *pat = &p->r->patterns[t->pattern];
    for (int k = 0; k < pat->nnz; k++)
        if (p->dp_mark[pat->link[k]])
            return 1;
    return 0;
}

/* Emits the backward time gathered so far as one class after end[], with
 * no load: what shares no link with the buckets runs as if alone, so one
 * delay stands for all of it (the run then has few events). */
static void flush(plan_run *p, int *end, int *nend)
{
    if (p->delay <= 0)
        return;
    end[0] = add(p, NULL, 0, 0, p->delay, 0, end, *nend);
    *nend = 1;
    p->delay = 0;
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
        if (times <= 0)
            continue;
        int streamed = r->s.chunk > 0 && ph->compute_s > 0, meets = 0;
        double comm_s = 0;
        for (int t = 0; t < ph->nterms; t++) {
            comm_s += times * net_bottleneck_passes_s(r, &ph->terms[t], 1); /* alone: the closed form */
            meets |= meets_buckets(p, &ph->terms[t]);
        }
        if (!meets) {
            double comp = times * ph->compute_s;
            p->delay += streamed ? fmax(comp, comm_s) : comp + comm_s;
            continue;
        }
        flush(p, end, nend);
        int prio = sim_tuning_priority(&r->tune, ph->name);
        int start[2] = {end[0], end[1]}, nstart = *nend, last = -1;
        if (ph->compute_s > 0)
            last = add(p, NULL, 1, 1 / (times * ph->compute_s), 0, prio, start, nstart);
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
    if (!c->flow) {
        int rc = flow_ctx_new(&c->flow, wafer_nlinks(c->wf), c->inv_bw, e);
        if (rc != WT_OK)
            return rc;
    }
    plan_run p = {.cls = malloc(sizeof *p.cls * (size_t)nclasses),
                  .pred = malloc(sizeof *p.pred * PRED_MAX * (size_t)nclasses),
                  .alone_s = malloc(sizeof *p.alone_s * (size_t)nclasses), .cap = nclasses, .r = r};
    flow_time *t = malloc(sizeof *t * (size_t)nclasses);
    double *fin = malloc(sizeof *fin * (size_t)nclasses);
    int *group_end = malloc(sizeof *group_end * 2 * (size_t)G), *group_n = malloc(sizeof *group_n * (size_t)G);
    int rc = p.cls && p.pred && p.alone_s && t && fin && group_end && group_n ? WT_OK
                                                                                : wt_oom(e, "fluid timeline");
    /* the links the buckets load, marked in the context's scratch (zero
     * again on the way out) */
    double *mark = c->scratch;
    for (int k = 0; k < dp->nterms; k++) {
        const sim_pattern *pat = &r->patterns[dp->terms[k].pattern];
        for (int j = 0; j < pat->nnz; j++)
            mark[pat->link[j]] = 1;
    }
    p.dp_mark = mark;
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
    for (int k = 0; k < dp->nterms; k++) {
        const sim_pattern *pat = &r->patterns[dp->terms[k].pattern];
        for (int j = 0; j < pat->nnz; j++)
            mark[pat->link[j]] = 0;
    }
    flow_run_out out;
    if (rc == WT_OK) {
        rc = flow_run(c->flow, p.cls, p.n, &times_only, t, &out, e);
    }
    if (rc == WT_OK)
        *exposed = fmax(0, out.end_s - chain_end(&p, nbwd, fin));
    free(p.cls);
    free(p.pred);
    free(p.alone_s);
    free(t);
    free(fin);
    free(group_end);
    free(group_n);
    return rc;
}

int net_fluid_time_step(sim_ctx *c, sim_result *r, wt_err *e)
{
    int slowest = net_closed_form_stages(c, r);
    /* Without what the DP all-reduce exposes the step is already longer
     * than the cutoff: the timeline cannot make it shorter. */
    double exposed = 0;
    double least = (r->micro_batches + r->s.pp - 1) * r->stage_time_s + r->optimizer_s;
    int rc = least > c->cutoff_s ? WT_OK : dp_exposed(c, r, slowest, &exposed, e);
    if (rc != WT_OK)
        return rc;
    net_finish_step(r, slowest, exposed);
    return WT_OK;
}

/* Custom flows share links max-min as they go: one run of the timeline. */
int net_fluid_flows_time(const double *inv_bw, size_t nlinks, const flow_class *cls, int n, flow_time *t,
                         double *end_s, wt_err *e)
{
    flow_ctx *fc;
    int rc = flow_ctx_new(&fc, nlinks, inv_bw, e);
    if (rc != WT_OK)
        return rc;
    flow_run_out out;
    rc = flow_run(fc, cls, n, &times_only, t, &out, e);
    if (rc == WT_OK)
        *end_s = out.end_s;
    flow_ctx_free(fc);
    return rc;
}
