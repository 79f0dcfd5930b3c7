/*
 * bottleneck.c - the closed-form network model (docs/MODEL.md section 9).
 *
 * A pass of one occurrence takes coef * (its busiest link's load over that
 * link's bandwidth, or the store's time when slower: sim_pattern_busy) plus steps * (per-step overhead + its longest path's
 * latency); a phase's passes run one after another:
 *   T_comm = sum over passes of coef * max_l(load_l / bw_l) + steps * (overhead + latency)
 *   T      = T_comp + T_comm, or with streaming in n chunks
 *            max(T_comp, T_comm) + min(T_comp, T_comm) / n + n * chunk_overhead
 * A slot (one micro-batch's forward and backward on the slowest stage) runs
 * its phases in order; the step is (m + PP - 1) slots, then the part of the
 * DP all-reduce the last backward could not hide, then the optimizer.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net_int.h"

double net_bottleneck_passes_s(const sim_result *r, const sim_term *t, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        const sim_pattern *p = &r->patterns[t[i].pattern];
        s += t[i].coef * sim_pattern_busy(p) + t[i].steps * (r->wf->link_overhead + p->max_lat);
    }
    return s;
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

/* One occurrence of a phase: its communication, time and ratio to the
 * injection bound. */
static void time_phase(const sim_result *r, sim_phase *ph, double inj_bw)
{
    double bw_part = 0, lat_part = 0, send = 0;
    for (int i = 0; i < ph->nterms; i++) {
        const sim_pattern *p = &r->patterns[ph->terms[i].pattern];
        bw_part += ph->terms[i].coef * sim_pattern_busy(p);
        lat_part += ph->terms[i].steps * (r->wf->link_overhead + p->max_lat);
        send += ph->terms[i].coef * p->send_factor;
    }
    ph->comm_s = bw_part + lat_part;
    ph->send_bytes = send;
    ph->time_s = phase_time(r, ph);
    ph->bw_ratio = send > 0 && inj_bw > 0 ? bw_part / (send / inj_bw) : 0;
}

/* Sets mark[l] = value on every link a backward phase loads. */
static void mark_backward(const sim_result *r, unsigned char *mark, unsigned char value)
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
    unsigned char *mark = c->marks; /* zero between uses */
    mark_backward(r, mark, 1);
    double shared = 0, all = 0;
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].role == SIM_DP)
            for (int t = 0; t < r->phases[i].nterms; t++) {
                const sim_term *term = &r->phases[i].terms[t];
                const sim_pattern *p = &r->patterns[term->pattern];
                for (int k = 0; k < p->nnz; k++) {
                    double busy = term->coef * p->calib * p->load[k] * net_bw_inv(&c->bw, (size_t)p->link[k]);
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
    r->slot_stage = slowest;
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

void net_closed_form_phases(sim_ctx *c, sim_result *r)
{
    r->dp_time_s = r->optimizer_s = 0;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        time_phase(r, ph, c->inj_bw);
        if (ph->role == SIM_DP)
            r->dp_time_s = ph->time_s;
        if (ph->role == SIM_OPTIMIZER)
            r->optimizer_s = ph->time_s;
    }
}

int net_stages(sim_result *r, const double *first_s)
{
    int pp = r->s.pp, slowest = 0;
    double stage_max = 0;
    for (int k = 0; k < pp; k++) {
        double t = 0, busy = 0;
        int blocks = sim_stage_layers(r, k) > 0;
        for (int i = 0; i < r->nphases; i++) {
            const sim_phase *ph = &r->phases[i];
            double per_mb = sim_per_mb(r, ph, k);
            t += per_mb * ph->time_s + (first_s && ph->scope == SIM_LAYER ? blocks * ph->rep * first_s[i] : 0);
            busy += per_mb * ph->compute_s;
        }
        r->stage_busy[k] = busy * r->micro_batches;
        if (t > stage_max) {
            stage_max = t;
            slowest = k;
        }
    }
    r->stage_time_s = stage_max;
    return slowest;
}

int net_closed_form_stages(sim_ctx *c, sim_result *r)
{
    net_closed_form_phases(c, r);
    return net_stages(r, NULL);
}

void net_finish_step(sim_result *r, int slowest, double dp_exposed_s)
{
    r->dp_exposed_s = dp_exposed_s;
    for (int k = 0; k < r->s.pp; k++)
        r->stage_busy[k] += r->optimizer_s;
    r->step_time_s = (r->micro_batches + r->s.pp - 1) * r->stage_time_s + r->dp_exposed_s + r->optimizer_s;
    fill_timeline(r, slowest);
}

int net_bottleneck_time_step(sim_ctx *c, sim_result *r, wt_err *e)
{
    (void)e; /* the closed form allocates nothing */
    int slowest = net_closed_form_stages(c, r);
    /* The DP buckets go out during the last micro-batch's backward on the
     * slowest stage (B, of which Bm communicates). DP first (its level above every backward
     * phase's): they overlap all of B, but delay the backward where they
     * share its links. Otherwise the backward first: only its
     * communication-free time carries them. A closed form has no fair
     * sharing, so equal levels take the backward first too. */
    double B = 0, Bm = 0;
    int dp_level = 0, bwd_level = INT_MIN;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        int level = sim_tuning_priority(&r->tune, ph->name);
        if (ph->role == SIM_DP)
            dp_level = level;
        if (ph->role == SIM_BACKWARD) {
            double per_mb = sim_per_mb(r, ph, slowest); /* the slowest stage's, as fluid */
            B += per_mb * ph->time_s;
            Bm += per_mb * fmin(ph->comm_s, ph->time_s);
            bwd_level = level > bwd_level ? level : bwd_level;
        }
    }
    double exposed = dp_level > bwd_level ? fmax(0, r->dp_time_s - B) + fmin(r->dp_time_s, Bm) * dp_overlap(r, c)
                                          : fmax(0, r->dp_time_s - (B - Bm));
    net_finish_step(r, slowest, exposed);
    return WT_OK;
}

/* The closed form has no notion of flows sharing a link over time, so each
 * flow is charged every byte its busiest link carries, from everyone:
 * bw_done = start + max over its links of the summed busy time. The whole is
 * the busiest link's summed busy time plus the longest latency, as for a
 * pass, or a later finish when starts push one past it. */
int net_bottleneck_flows_time(const double *inv_bw, size_t nlinks, const flow_class *cls, int n, flow_time *t,
                              double *end_s, wt_err *e)
{
    double *busy = calloc(nlinks ? nlinks : 1, sizeof *busy);
    if (!busy)
        return wt_oom(e, "custom flows");
    int rc = WT_OK;
    for (int c = 0; c < n && rc == WT_OK; c++) {
        const flow_class *k = &cls[c];
        if (!(k->work >= 0 && k->start_s >= 0 && k->latency_s >= 0) || !isfinite(k->work) ||
            !isfinite(k->start_s) || !isfinite(k->latency_s))
            rc = wt_fail(e, "flow class %d: work, start and latency must be finite and >= 0", c);
        for (int i = 0; i < k->nnz && rc == WT_OK; i++) {
            int l = k->link[i];
            if (l < 0 || (size_t)l >= nlinks) {
                wt_fail(e, "flow class %d loads link slot %d, outside 0..%zu", c, l, nlinks);
                rc = WT_EINTERNAL;
            } else if (k->load[i] > 0 && k->work > 0 && inv_bw[l] <= 0) {
                rc = wt_fail(e, "flow class %d makes no progress: it loads an unusable link", c);
            } else {
                busy[l] += k->work * k->load[i] * inv_bw[l];
            }
        }
    }
    double max_busy = 0, max_lat = 0, last = 0;
    for (int c = 0; c < n && rc == WT_OK; c++) {
        const flow_class *k = &cls[c];
        double b = 0;
        for (int i = 0; i < k->nnz; i++)
            if (k->load[i] > 0 && k->work > 0)
                b = fmax(b, busy[k->link[i]]);
        t[c].start_s = k->start_s;
        t[c].bw_done_s = k->start_s + b;
        t[c].finish_s = t[c].bw_done_s + k->latency_s;
        max_busy = fmax(max_busy, b);
        max_lat = fmax(max_lat, k->latency_s);
        last = fmax(last, t[c].finish_s);
    }
    free(busy);
    if (rc == WT_OK)
        *end_s = fmax(max_busy + max_lat, last);
    return rc;
}
