/* The simulator: a step timed by hand on a tiny line, invariants on many
 * scenarios, orderings on the stock layouts (engine/sim.h). */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_rel.h"
#include "dram.h"
#include "layout.h"
#include "net.h"
#include "report.h"
#include "sim.h"
#include "sim_int.h"


/* A tiny GPT: L=2, h=64, a=4, f=256, V=128, s=16, B=8, b=1 (12h^2 = 49152 per layer). */
static model tiny_model(void)
{
    model m = {"tiny", 2, 64, 4, 4, 256, MODEL_GELU, 128, 1, 16, 8, 1};
    return m;
}

/* A w x h mesh with round numbers: 1 TFLOP/s at 0.5 efficiency, 1 GB/s links,
 * 10 ns per hop, 1 us per collective step, 100 ns per chunk. */
static void round_wafer(wafer *wf, int w, int h)
{
    assert_int_equal(wafer_init(wf, w, h, 1, 1, NULL), WT_OK);
    wf->peak_flops = 1e12;
    wf->efficiency = 0.5;
    wf->link_bw = 1e9;
    wf->link_lat = 1e-8;
    wf->link_overhead = 1e-6;
    wf->chunk_overhead = 1e-7;
    wf->sram_bytes = 1e9;
}

/* The network model eval_ok() times with: NULL for the default. */
static const net_model *eval_net;

static void eval_ok(sim_result *r, const wafer *wf, const model *m, const char *text, void (*opt)(strategy *))
{
    strategy s;
    strategy_defaults(&s);
    wt_err e;
    if (strategy_parse(text, &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
    if (opt)
        opt(&s);
    if (sim_eval_net(r, wf, eval_net, m, &s, &e) != WT_OK)
        fail_msg("sim_eval %s: %s", text, e.msg);
}

static const sim_phase *phase(const sim_result *r, const char *name)
{
    int i = sim_phase_find(r, name);
    if (i < 0)
        fail_msg("no phase %s", name);
    return &r->phases[i];
}

/* DP4 on a 4x1 line, by hand, and its links' windows: the closed form,
 * then what the fluid model's buckets change. */
static void test_dp_line_by_hand(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 1);
    model m = tiny_model();
    sim_result r;
    eval_net = net_model_find("bottleneck");
    eval_ok(&r, &wf, &m, "DP4", NULL);
    eval_net = NULL;
    double peak = 1e12 * 0.5;

    /* Parameters per unit: 2 layers x (49152 + 4h) + V*h + final 2h = 107136. */
    double P = 2 * (49152 + 256) + 128 * 64 + 128;
    assert_rel(r.mem.params, 2 * P);
    assert_rel(r.mem.grads, 2 * P);
    assert_rel(r.mem.optimizer, 12 * P);
    /* Activations: sbh(34 + 5as/h) = 1024 * 39 per layer, 2 layers, 1 in flight. */
    assert_rel(r.mem.activations_per_layer, 1024.0 * 39);
    assert_rel(r.mem.activations, 2 * 1024.0 * 39);
    assert_rel(r.mem.total, 16 * P + 2 * 1024.0 * 39);
    assert_int_equal(r.micro_batches, 2);

    /* QKV: 2 n k m = 2 * 16 * 64 * 192 FLOPs, no communication. */
    const sim_phase *qkv = phase(&r, "fwd.attn.qkv");
    assert_rel(qkv->compute_s, 2.0 * 16 * 64 * 192 / peak);
    assert_rel(qkv->comm_s, 0);
    assert_rel(qkv->count, 2 * 2); /* 2 layers x 2 micro-batches */

    /* The folded ring 0,2,3,1 on the line: 0->2 and 2->3 go east, 3->1 and
     * 1->0 west; each of the six links carries one share, paths are <= 2 hops.
     * All-reduce of M = 2P bytes: each unit sends 2(3/4)M in 6 steps. */
    const sim_phase *dp = phase(&r, "dp.allreduce");
    double sent = 2 * 0.75 * 2 * P;
    double t_dp = sent / 1e9 + 6 * (1e-6 + 2 * 1e-8);
    assert_rel(dp->comm_s, t_dp);
    assert_rel(dp->send_bytes, sent);
    for (int x = 0; x < 4; x++) {
        int u = wafer_unit(&wf, x, 0);
        assert_rel(r.link_bytes[(size_t)u * 4 + WAFER_E], x < 3 ? sent : 0);
        assert_rel(r.link_bytes[(size_t)u * 4 + WAFER_W], x > 0 ? sent : 0);
    }

    /* One micro-batch: 3 x (2 layers + logits) forward FLOPs. */
    double layer = 2.0 * 16 * 49152 + 4.0 * 16 * 16 * 64, logits = 2.0 * 16 * 64 * 128;
    double mb = 3 * (2 * layer + logits) / peak;
    assert_rel(r.stage_time_s, mb);
    /* DP buckets hide behind the last backward's compute (2/3 of it). */
    double window = 2 * (2 * layer + logits) / peak;
    assert_rel(r.dp_exposed_s, t_dp - window);
    double opt = 12 * P / peak;
    assert_rel(r.optimizer_s, opt);
    double step = 2 * mb + (t_dp - window) + opt;
    assert_rel(r.step_time_s, step);
    assert_rel(r.tokens_per_s, 8.0 * 16 / step);
    assert_rel(r.mfu, 8 * 3 * (2 * layer + logits) / (step * 4 * 1e12));
    assert_rel(r.max_link_util, sent / 1e9 / step);
    assert_rel(r.mean_link_util, sent / 1e9 / step);
    assert_int_equal(r.hot_links, 0); /* until sim_window_figures fills it */

    /* Windows: the all-reduce runs at u = (sent / bw) / t_dp on each of its
     * six links for t_dp (its hidden part over the end of the last
     * backward, which loads nothing, then the exposed part), nothing else
     * does; a window inside it sees u, the whole step the average; u >= 0.9,
     * so the links are hot for t_dp. */
    double u = sent / 1e9 / t_dp;
    size_t nl = wafer_nlinks(&wf);
    double pk[16], hot[16];
    assert_true(nl <= 16);
    wt_err e;
    assert_int_equal(sim_link_windows(&r, 50e-6, 0.9, pk, hot, &e), WT_OK);
    for (size_t l = 0; l < nl; l++) {
        int loaded = r.link_bytes[l] > 0;
        assert_rel(pk[l], loaded ? u : 0);
        assert_rel(hot[l], loaded ? t_dp : 0);
    }
    assert_int_equal(sim_link_windows(&r, r.step_time_s, 0.9, pk, hot, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_rel(pk[l], sim_link_util(&r, l));
    /* longer than the step: the step */
    assert_int_equal(sim_link_windows(&r, 10, 0.9, pk, hot, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_rel(pk[l], sim_link_util(&r, l));
    assert_int_equal(sim_window_figures(&r, 50e-6, &e), WT_OK);
    assert_int_equal(r.hot_links, 6);
    assert_rel(r.max_peak_util, u);
    /* played in time: a window of 50 us inside the hidden all-reduce sees
     * u, one half before it (the backward loads nothing) u / 2, the first
     * forward nothing, the whole step the average; and what runs there */
    double hidden = window, from = 2 * mb - hidden, util[16];
    assert_int_equal(sim_link_window_util(&r, from + 1e-6, 50e-6, util, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_rel(util[l], r.link_bytes[l] > 0 ? u : 0);
    assert_int_equal(sim_link_window_util(&r, from - 25e-6, 50e-6, util, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_rel(util[l], r.link_bytes[l] > 0 ? u / 2 : 0);
    assert_int_equal(sim_link_window_util(&r, 0, 1e-7, util, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_true(util[l] == 0);
    assert_int_equal(sim_link_window_util(&r, -5, 2 * step, util, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_rel(util[l], sim_link_util(&r, l));
    /* a window past the end is moved inside: the optimizer's end */
    assert_int_equal(sim_link_window_util(&r, step, opt / 2, util, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_true(util[l] == 0);
    int running[4], dpi = sim_phase_find(&r, "dp.allreduce");
    assert_int_equal(sim_running_at(&r, from + 1e-6, running, 4), 2);
    assert_int_equal(running[1], dpi);
    assert_int_equal(r.phases[running[0]].role, SIM_BACKWARD);
    assert_int_equal(sim_running_at(&r, from - 1e-6, running, 4), 1);
    assert_int_equal(sim_running_at(&r, 2 * mb + 1e-9, running, 4), 1);
    assert_int_equal(running[0], dpi); /* the exposed part */
    assert_int_equal(sim_running_at(&r, step - 1e-9, running, 4), 1);
    assert_string_equal(r.phases[running[0]].name, "optimizer");
    assert_int_equal(sim_running_at(&r, step, running, 4), 0);
    assert_int_equal(sim_running_at(&r, 0, running, 4), 1);
    assert_string_equal(r.phases[running[0]].name, "fwd.attn.qkv");
    /* the hidden all-reduce starts at from; the optimizer at step - opt */
    assert_rel(sim_start_near(&r, from - 1e-9, 1), from);
    assert_rel(sim_phase_first(&r, dpi), from);
    assert_rel(sim_phase_first(&r, sim_phase_find(&r, "optimizer")), step - opt);
    assert_true(sim_phase_first(&r, sim_phase_find(&r, "fwd.attn.qkv")) == 0);
    assert_true(sim_phase_first(&r, -1) == -1);
    assert_rel(sim_start_near(&r, step - 1e-9, -1), step - opt);
    assert_true(sim_start_near(&r, step - 1e-9, 1) == -1);
    assert_true(sim_start_near(&r, 0, -1) == -1);
    assert_true(sim_start_near(&r, -1, 1) == 0);
    assert_int_equal(sim_link_window_util(&r, 0, 0, util, &e), WT_EINPUT);
    assert_int_equal(sim_link_window_util(&r, NAN, 1, util, &e), WT_EINPUT);
    assert_int_equal(sim_link_windows(&r, 0, 0.9, pk, hot, &e), WT_EINPUT);
    assert_int_equal(sim_link_windows(&r, -1, 0.9, pk, hot, &e), WT_EINPUT);
    assert_int_equal(sim_link_windows(&r, NAN, 0.9, pk, hot, &e), WT_EINPUT);
    assert_int_equal(sim_link_windows(&r, INFINITY, 0.9, pk, hot, &e), WT_EINPUT);
    sim_free(&r);

    /* fluid: the backward's 2 layers make G = 2 buckets of half the
     * gradient, each paying the ring's 6 latency-bound steps. Bucket 1
     * starts after the first group (a layer's backward and the logits'),
     * beside the second (compute only: no shared link); bucket 2 follows
     * bucket 1, which ends after the backward. */
    eval_ok(&r, &wf, &m, "DP4", NULL);
    assert_ptr_equal(r.net, net_model_find("fluid"));
    double g0 = 2 * (layer + logits) / peak, bucket = sent / 2 / 1e9 + 6 * (1e-6 + 2 * 1e-8);
    assert_true(g0 + bucket > window);
    assert_rel(r.dp_exposed_s, g0 + 2 * bucket - window);
    assert_rel(r.step_time_s, 2 * mb + (g0 + 2 * bucket - window) + opt);
    sim_free(&r);
    wafer_free(&wf);
}


/* The utilisation of link l during one occurrence of phase p, from
 * sim_phase_link_bytes (a step's bytes over its count). */
static double phase_u(const sim_result *r, int p, size_t l, double *buf)
{
    const sim_phase *ph = &r->phases[p];
    if (ph->time_s <= 0 || ph->count <= 0)
        return 0;
    sim_phase_link_bytes(r, p, buf);
    return buf[l] / ph->count * sim_link_inv_bw(r->wf, l) / ph->time_s;
}

/* A stretch of the brute-force utilisation. */
typedef struct bf_run {
    double t0, t1, u;
    int phase;
} bf_run;

/* Adds u over [from, to) to the runs out[0..n) (which end at to or
 * before), splitting the one from falls in and capping at 1; returns the
 * new count. From the end back: what is laid over is recent. */
static int bf_overlay(bf_run *out, int n, int max, double from, double to, double u, int cap)
{
    from = fmax(0, from);
    for (int i = n - 1; i >= 0 && out[i].t1 > from; i--) {
        if (out[i].t0 >= to)
            continue;
        if (out[i].t0 < from) { /* split at the overlay's start */
            assert_true(n < max);
            memmove(&out[i + 1], &out[i], (size_t)(n - i) * sizeof *out);
            n++;
            out[i].t1 = out[i + 1].t0 = from;
            out[i + 1].u = cap ? fmin(1, out[i + 1].u + u) : out[i + 1].u + u;
            break;
        }
        out[i].u = cap ? fmin(1, out[i].u + u) : out[i].u + u;
    }
    return n;
}

/* Link l's utilisation over the whole step built without sim_window.c's
 * compression: every slot played occurrence by occurrence, layer by layer
 * (forward layer phases, the slot's other phases, backward layer phases),
 * the rep occurrences of a ZeRO gather the fluid model prefetched laid at
 * their utilisation alone over the time they take alone, ending with them
 * (over what ran before, capped at 1), then the timeline's tail; the DP
 * all-reduce's hidden part added over the end of the last slot, capped at 1.
 * Returns the number of runs in out. Without cap, nothing is capped. */
static int bf_runs(const sim_result *r, size_t l, bf_run *out, int max, int cap)
{
    double *buf = malloc(wafer_nlinks(r->wf) * sizeof *buf);
    assert_non_null(buf);
    int layers = sim_stage_layers(r, r->slot_stage), n = 0, dp = -1;
    double t = 0, udp = 0;
    for (int p = 0; p < r->nphases; p++)
        if (r->phases[p].role == SIM_DP) {
            dp = p;
            udp = phase_u(r, p, l, buf);
        }
    for (int j = 0; j < r->slots; j++)
        for (int block = 0; block < 3; block++)
            for (int layer = 0; layer < (block == 1 ? 1 : layers); layer++)
                for (int p = 0; p < r->nphases; p++) {
                    const sim_phase *ph = &r->phases[p];
                    int in = ph->scope == SIM_LAYER ? (ph->role == SIM_BACKWARD ? 2 : 0)
                             : ph->scope == SIM_STEP ? -1 : 1;
                    if (in != block)
                        continue;
                    double times = in == 1 ? sim_per_mb(r, ph, r->slot_stage) : ph->rep;
                    double u = phase_u(r, p, l, buf);
                    int thin = ph->comm_s > ph->time_s; /* a prefetched gather */
                    for (int k = 0; k < (int)times; k++) {
                        assert_true(n < max);
                        out[n++] = (bf_run){t, t + ph->time_s, thin ? 0 : u, p};
                        t += ph->time_s;
                    }
                    if (thin) /* the run's occurrences, one after another alone */
                        n = bf_overlay(out, n, max, t - (int)times * ph->comm_s, t, u * ph->time_s / ph->comm_s, cap);
                }
    double pipe = t, hidden = dp >= 0 ? r->dp_time_s - r->dp_exposed_s : 0;
    if (hidden > 0)
        n = bf_overlay(out, n, max, pipe - hidden, pipe, udp, cap);
    for (int i = 0; i < r->ntimeline; i++)
        if (r->timeline[i].end_s > r->slot_s) {
            assert_true(n < max);
            double off = pipe - r->slots * r->slot_s;
            out[n++] = (bf_run){r->timeline[i].start_s + off, r->timeline[i].end_s + off,
                                r->timeline[i].phase == dp ? udp : 0, r->timeline[i].phase};
        }
    free(buf);
    return n;
}

/* The runs' busy fraction over [a, a + w]. */
static double bf_window(const bf_run *runs, int n, double a, double w)
{
    double in = 0;
    for (int i = 0; i < n; i++)
        in += runs[i].u * fmax(0, fmin(runs[i].t1, a + w) - fmax(runs[i].t0, a));
    return in / w;
}

/* The windows against the brute force on every link of r: sim_link_windows'
 * peak over windows at 1001 positions (the exact one is above by at most
 * the grid step over the window), the hot time exactly, peak >= util; and
 * the step played in time, sim_link_window_util at 97 of them. Where a
 * prefetched gather lies over the phases before it, the step played in
 * time caps the window's average, not each instant: it lies between the
 * brute force capped and not capped; and the hot time of the slots and
 * layers the sweep does not hold counts the gather and those phases apart
 * (within 5 %). */
static void check_windows_brute(const sim_result *r, double w)
{
    enum { PLACES = 97 };
    size_t nl = wafer_nlinks(r->wf);
    double *peak = malloc(nl * sizeof *peak), *hot = malloc(nl * sizeof *hot);
    double *util = malloc(PLACES * nl * sizeof *util);
    bf_run *runs = malloc(20000 * sizeof *runs), *raw = malloc(20000 * sizeof *raw);
    assert_true(peak && hot && util && runs && raw);
    int stretched = 0;
    for (int p = 0; p < r->nphases; p++)
        stretched |= r->phases[p].comm_s > r->phases[p].time_s;
    wt_err e;
    assert_int_equal(sim_link_windows(r, w, 0.9, peak, hot, &e), WT_OK);
    double T = r->step_time_s, W = fmin(w, T), at[PLACES];
    for (int k = 0; k < PLACES; k++) {
        at[k] = k * (T - W) / (PLACES - 1);
        assert_int_equal(sim_link_window_util(r, at[k], w, util + k * nl, &e), WT_OK);
    }
    for (size_t l = 0; l < nl; l++) {
        int n = bf_runs(r, l, runs, 20000, 1), nraw = bf_runs(r, l, raw, 20000, 0);
        double hot_bf = 0, best = 0, grid = (T - W) / 1000;
        for (int i = 0; i < n; i++)
            hot_bf += runs[i].u >= 0.9 ? runs[i].t1 - runs[i].t0 : 0;
        for (int k = 0; k <= 1000; k++)
            best = fmax(best, bf_window(runs, n, k * grid, W));
        best = fmax(best, sim_link_util(r, l));
        assert_true(peak[l] >= sim_link_util(r, l));
        assert_true(peak[l] >= best - 1e-9);
        assert_true(peak[l] <= best + 2 * grid / W + 1e-9);
        if (stretched)
            assert_true(fabs(hot[l] - hot_bf) <= 0.05 * hot_bf);
        else
            assert_rel(hot[l], hot_bf);
        for (int k = 0; k < PLACES; k++) {
            double want = bf_window(runs, n, at[k], W), most = bf_window(raw, nraw, at[k], W);
            double got = util[k * nl + l];
            if (stretched ? !(got >= want - 1e-9 && got <= fmin(1, most) + 1e-9) : fabs(got - want) > 1e-9)
                fail_msg("link %zu, window %g s at %g s: %.12g, brute force %.12g", l, W, at[k], util[k * nl + l],
                         want);
        }
    }
    free(peak);
    free(hot);
    free(util);
    free(runs);
    free(raw);
}

/* What runs when, against the brute force: the phases running in the
 * middle of every run, where each phase first runs, and the phase starts
 * walked forward then back one by one (a run starts where the phase changes, and where the hidden DP
 * all-reduce begins). */
static void check_running_brute(const sim_result *r)
{
    bf_run *runs = malloc(20000 * sizeof *runs);
    double *starts = malloc(20000 * sizeof *starts);
    assert_true(runs && starts);
    int n = bf_runs(r, 0, runs, 20000, 1), ns = 0, running[4], dp = sim_phase_find(r, "dp.allreduce");
    double hidden = dp >= 0 ? r->dp_time_s - r->dp_exposed_s : 0, from = r->slots * r->slot_s - hidden;
    for (int i = 0; i < n; i++) {
        double mid = (runs[i].t0 + runs[i].t1) / 2;
        int got = sim_running_at(r, mid, running, 4);
        assert_true(got >= 1 && running[0] == runs[i].phase);
        assert_int_equal(got, 1 + (hidden > 0 && mid > from && mid < r->slots * r->slot_s));
        if (i == 0 || runs[i].phase != runs[i - 1].phase || (hidden > 0 && fabs(runs[i].t0 - from) < 1e-12 * r->step_time_s))
            starts[ns++] = runs[i].t0;
    }
    for (int p = 0; p < r->nphases; p++) {
        int i = 0;
        while (i < n && runs[i].phase != p)
            i++;
        double first = p == dp && hidden > 0 ? from : i < n ? runs[i].t0 : -1;
        assert_true(fabs(sim_phase_first(r, p) - first) <= 1e-12 * r->step_time_s);
    }
    double t = -1;
    for (int i = 0; i < ns; i++) {
        t = sim_start_near(r, t, 1);
        if (fabs(t - starts[i]) > 1e-12 * r->step_time_s)
            fail_msg("start %d of %d: %.15g, brute force %.15g", i, ns, t, starts[i]);
    }
    assert_true(sim_start_near(r, t, 1) == -1);
    for (int i = ns - 2; i >= 0; i--) {
        t = sim_start_near(r, t, -1);
        assert_true(fabs(t - starts[i]) <= 1e-12 * r->step_time_s);
    }
    assert_true(sim_start_near(r, t, -1) == -1);
    free(runs);
    free(starts);
}

static void zero_full(strategy *s)
{
    s->checkpoint = RECOMPUTE_FULL;
    s->mem |= MEM_ZERO;
}

/* The windows against the brute force on small steps with layer phases,
 * pipeline stages, recompute and ZeRO gathers, over windows from a
 * microsecond to longer than the step; with 2 layers and with 14 (whose
 * blocks sim_window.c squeezes for short windows). */
static void test_windows_brute_force(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 2);
    model m = tiny_model();
    const struct {
        const char *text;
        void (*opt)(strategy *);
        int layers;
    } cases[] = {{"DP8", NULL, 2},         {"DP2,TP4", NULL, 2}, {"DP2,TP2,PP2", NULL, 2}, {"DP4,TP2", zero_full, 2},
                 {"DP2,TP4", NULL, 14},    {"DP2,TP2,PP2", NULL, 14}, {"DP4,TP2", zero_full, 14}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_result r;
        m.layers = cases[i].layers;
        eval_ok(&r, &wf, &m, cases[i].text, cases[i].opt);
        double ws[] = {1e-6, r.slot_s / 40, r.slot_s / 3, 2.5 * r.slot_s, r.step_time_s / 2, 2 * r.step_time_s};
        for (size_t k = 0; k < sizeof ws / sizeof ws[0]; k++)
            check_windows_brute(&r, ws[k]);
        check_running_brute(&r);
        sim_free(&r);
    }
    wafer_free(&wf);
}

static void check_invariants(const sim_result *r);

/* The same DP4 line under the fluid model: the backward of the last
 * micro-batch in two groups (logits and layer 2, then layer 1), the
 * gradient in two buckets, each after its group and the bucket before it,
 * each with the ring's six latency-bound steps. The last bucket starts when
 * the first ends (it outlasts the second group), so the exposed all-reduce
 * is group 0, then both buckets, less the backward alone. */
static void test_fluid_dp_line_by_hand(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 1);
    model m = tiny_model();
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    sim_ctx_set_net(c, net_model_find("fluid"));
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse("DP4", &s, NULL), WT_OK);
    sim_result r;
    assert_int_equal(sim_eval_ctx(c, &r, &m, &s, NULL), WT_OK);
    double peak = 1e12 * 0.5, P = 2 * (49152 + 256) + 128 * 64 + 128;
    double layer = 2.0 * 16 * 49152 + 4.0 * 16 * 16 * 64, logits = 2.0 * 16 * 64 * 128;
    double sent = 2 * 0.75 * 2 * P, steps = 6 * (1e-6 + 2 * 1e-8);
    double group0 = 2 * (logits + layer) / peak, alone = 2 * (logits + 2 * layer) / peak;
    double bucket = sent / 1e9 / 2 + steps;
    assert_true(group0 + bucket > alone); /* the case the comment describes */
    assert_rel(r.dp_exposed_s, group0 + 2 * bucket - alone);
    double mb = 3 * (2 * layer + logits) / peak, opt = 12 * P / peak;
    assert_rel(r.step_time_s, 2 * mb + r.dp_exposed_s + opt);
    size_t nl = wafer_nlinks(&wf), loaded = 0;
    for (size_t l = 0; l < nl; l++)
        loaded += r.link_bytes[l] > 0;
    assert_int_equal(r.above_cutoff, 0);
    assert_int_equal(loaded, 6); /* the ring's links: 3 each way */
    double step = r.step_time_s;
    sim_free(&r);
    /* a step the context's cutoff stops is not finished: marked, its link
     * bytes (made after the timing) there and 0 at every link */
    sim_ctx_set_cutoff(c, step / 2);
    assert_int_equal(sim_eval_ctx(c, &r, &m, &s, NULL), WT_OK);
    assert_int_equal(r.above_cutoff, 1);
    assert_true(r.step_time_s > step / 2);
    assert_non_null(r.link_bytes);
    for (size_t l = 0; l < nl; l++)
        assert_true(r.link_bytes[l] == 0);
    sim_free(&r);
    sim_ctx_free(c);
    wafer_free(&wf);
}

/* Exposed DP under the fluid model with priority levels t on SP2 over a
 * 2x1 line (evaluated in r, freed by the caller). */
static double fluid_sp2_exposed(const wafer *wf, const model *m, const sim_tuning *t, sim_result *r)
{
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, wf, NULL), WT_OK);
    sim_ctx_set_net(c, net_model_find("fluid"));
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse("SP2", &s, NULL), WT_OK);
    assert_int_equal(sim_eval_tuned(c, r, m, &s, t, NULL), WT_OK);
    sim_ctx_free(c);
    return r->dp_exposed_s;
}

/* Priority levels on the fluid step, by hand. SP2 on a 2x1 line: the SP
 * reduce-scatter of bwd.attn.core and the DP all-reduce load the same two
 * links, one byte per byte each; no latencies. Two layers: two backward
 * groups and two buckets of bb each. Bucket 0 starts with group 1, alone
 * for group 1's compute before its SP pass (a = mlp.out, mlp.in,
 * attn.proj and attn.core), then meets the pass (p) with rem = bb - a
 * left; group 1 ends with attn.qkv's compute (d2). Bucket 1 waits for
 * group 1 and bucket 0.
 *   - backward first: the bucket waits out the pass; group 1 ends on time
 *     and bucket 1 starts at max(a + rem + p, a + p + d2): exposed =
 *     max(rem, d2) + bb - d2.
 *   - equal levels (the default): both progress at half their speed alone
 *     until bucket 0 ends after 2 rem, having cost the pass rem; group 1
 *     ends rem late, then bucket 1: exposed = rem + bb. DP first costs the
 *     pass the same rem. */
static void test_fluid_priority_by_hand(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 2, 1);
    wf.peak_flops = 1e13;
    wf.link_lat = wf.link_overhead = 0;
    model m = {"tiny", 2, 64, 4, 4, 256, MODEL_GELU, 128, 1, 1024, 8, 1};
    sim_result r;
    double fair = fluid_sp2_exposed(&wf, &m, NULL, &r);
    const sim_phase *dp = phase(&r, "dp.allreduce"), *core = phase(&r, "bwd.attn.core");
    assert_int_equal(dp->nterms, 1);
    assert_int_equal(core->nterms, 1);
    double bb = dp->comm_s / 2, p = core->comm_s, d2 = phase(&r, "bwd.attn.qkv")->compute_s;
    double a = phase(&r, "bwd.mlp.out")->compute_s + phase(&r, "bwd.mlp.in")->compute_s +
               phase(&r, "bwd.attn.proj")->compute_s + core->compute_s;
    double rem = bb - a;
    assert_true(rem > d2 && rem < p); /* the case the comment describes */
    assert_rel(fair, rem + bb);
    sim_free(&r);
    const struct {
        const char *phase[2];
        int level[2];
        double want;
    } cases[] = {
        {{"dp.allreduce", NULL}, {-1, 0}, fmax(rem, d2) + bb - d2},            /* backward first */
        {{"bwd.attn.core", NULL}, {1, 0}, fmax(rem, d2) + bb - d2},            /* the same, the other way */
        {{"dp.allreduce", "bwd.attn.core"}, {2, 1}, rem + bb},                 /* DP first */
        {{"dp.allreduce", "bwd.attn.core"}, {1, 1}, rem + bb},                 /* a tie shares */
        {{"dp.allreduce", "bwd.mlp.in"}, {-1, 5}, fmax(rem, d2) + bb - d2},   /* a phase with no traffic */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_tuning t = {0};
        for (int k = 0; k < 2 && cases[i].phase[k]; k++) {
            t.phase[t.nphases] = (sim_phase_tune){"", -1, 1, cases[i].level[k]};
            snprintf(t.phase[t.nphases++].phase, sizeof t.phase[0].phase, "%s", cases[i].phase[k]);
        }
        assert_rel(fluid_sp2_exposed(&wf, &m, &t, &r), cases[i].want);
        sim_free(&r);
    }
    wafer_free(&wf);
}

static void zero_only(strategy *s) { s->mem = MEM_ZERO; }

/* text with ZeRO on wf under the model named net, into r (freed by the
 * caller), with priority levels t. */
static void eval_zero(sim_result *r, const wafer *wf, const model *m, const char *text, const char *net,
                      const sim_tuning *t)
{
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, wf, NULL), WT_OK);
    sim_ctx_set_net(c, net_model_find(net));
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse(text, &s, NULL), WT_OK);
    zero_only(&s);
    assert_int_equal(sim_eval_tuned(c, r, m, &s, t, NULL), WT_OK);
    sim_ctx_free(c);
}

/* ZeRO gathers prefetched beside a long layer, by hand. DP2 on a 2x1 line
 * at 1e10 FLOP/s: a layer's phases load no link and its forward (328 us)
 * outlasts the gather of the next layer's 2 x 49408 weight bytes, half
 * sent each way over the 1 GB/s link, no latencies: Tg = 49.408 us. Of the
 * two layers of each block only the first waits: each gather's time is
 * Tg / 2, the slot Tg shorter per block than the closed form's, which is
 * as before. */
static void test_fluid_prefetch_hidden_by_hand(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 2, 1);
    wf.peak_flops = 1e10;
    wf.link_lat = wf.link_overhead = 0;
    model m = tiny_model();
    sim_result f, b;
    eval_zero(&f, &wf, &m, "DP2", "fluid", NULL);
    eval_zero(&b, &wf, &m, "DP2", "bottleneck", NULL);
    double Tg = 49408 / 1e9, layer = (2.0 * 16 * 49152 + 4.0 * 16 * 16 * 64) / 0.5e10;
    const char *gathers[] = {"fwd.zero.gather", "bwd.zero.gather"};
    for (int k = 0; k < 2; k++) {
        assert_rel(phase(&b, gathers[k])->comm_s, Tg);
        assert_rel(phase(&b, gathers[k])->time_s, Tg);
        assert_rel(phase(&f, gathers[k])->comm_s, Tg);
        assert_rel(phase(&f, gathers[k])->time_s, Tg / 2);
        assert_rel(phase(&f, gathers[k])->share, f.slots * 2 * (Tg / 2) / f.step_time_s);
    }
    assert_true(layer > Tg); /* the case the comment describes */
    double logits = 3 * 2.0 * 16 * 64 * 128 / 0.5e10;
    assert_rel(b.stage_time_s, 2 * (layer + Tg) + 2 * (2 * layer + Tg) + logits);
    assert_rel(f.stage_time_s, 2 * layer + Tg + 2 * 2 * layer + Tg + logits);
    check_invariants(&f);
    check_invariants(&b);
    sim_free(&f);
    sim_free(&b);
    wafer_free(&wf);
}

/* ZeRO gathers sharing a link with the layer's passes, by hand. SP2 on a
 * 2x1 line: the gather (over DP x SP, the same two units) and the SP pass
 * of the attention core load the same two links, one byte per byte each;
 * no latencies. The next layer's gather Tg starts with the layer: alone
 * through the computes before the core's pass (a: qkv and core forward;
 * mlp.out, mlp.in, proj and core backward), then rem = Tg - a beside the
 * pass p, both at half speed: the gather ends after 2 rem, having cost the
 * pass rem, and the layer ends rem late: x = rem. With the gather a level
 * below the pass it waits the pass out and ends rem after it, that is
 * rem - d after the layer alone (d: the computes after the pass). */
static void test_fluid_prefetch_shared_by_hand(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 2, 1);
    wf.peak_flops = 1e13;
    wf.link_lat = wf.link_overhead = 0;
    model m = {"tiny", 2, 64, 4, 4, 256, MODEL_GELU, 128, 1, 512, 8, 1};
    sim_result f, b;
    eval_zero(&f, &wf, &m, "SP2", "fluid", NULL);
    eval_zero(&b, &wf, &m, "SP2", "bottleneck", NULL);
    double Tg = 49408 / 1e9;
    const sim_phase *core[2] = {phase(&b, "fwd.attn.core"), phase(&b, "bwd.attn.core")};
    double a[2] = {phase(&b, "fwd.attn.qkv")->compute_s + core[0]->compute_s,
                   phase(&b, "bwd.mlp.out")->compute_s + phase(&b, "bwd.mlp.in")->compute_s +
                       phase(&b, "bwd.attn.proj")->compute_s + core[1]->compute_s};
    double d[2] = {phase(&b, "fwd.attn.proj")->compute_s + phase(&b, "fwd.mlp.in")->compute_s +
                       phase(&b, "fwd.mlp.out")->compute_s,
                   phase(&b, "bwd.attn.qkv")->compute_s};
    const char *gathers[] = {"fwd.zero.gather", "bwd.zero.gather"};
    double saved = 0;
    for (int k = 0; k < 2; k++) {
        double rem = Tg - a[k];
        assert_true(rem > d[k] && rem < core[k]->comm_s); /* the case the comment describes */
        assert_rel(phase(&b, gathers[k])->time_s, Tg);
        assert_rel(phase(&f, gathers[k])->time_s, (Tg + rem) / 2);
        saved += Tg - rem;
    }
    assert_rel(f.stage_time_s, b.stage_time_s - saved);
    check_invariants(&f);
    sim_free(&f);
    sim_free(&b);
    sim_tuning t = {0};
    for (int k = 0; k < 2; k++) {
        t.phase[t.nphases] = (sim_phase_tune){"", -1, 1, -1};
        snprintf(t.phase[t.nphases++].phase, sizeof t.phase[0].phase, "%s", gathers[k]);
    }
    eval_zero(&f, &wf, &m, "SP2", "fluid", &t);
    for (int k = 0; k < 2; k++)
        assert_rel(phase(&f, gathers[k])->time_s, (Tg + Tg - a[k] - d[k]) / 2);
    sim_free(&f);
    wafer_free(&wf);
}

/* Without a DP all-reduce nothing overlaps: the fluid model is the closed
 * form to the last bit. With one, it exposes at least the last bucket. */
static void test_fluid_is_closed_form_without_dp(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    const char *strategies[] = {"DP1,TATP256", "DP1,TP8,TATP32", "DP1,PP4,TATP64", "DP8,TATP16", "DP16,TP4,PP4",
                                "DP2,TP8,PP8"};
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++) {
        strategy s;
        strategy_defaults(&s);
        assert_int_equal(strategy_parse(strategies[i], &s, NULL), WT_OK);
        s.checkpoint = RECOMPUTE_FULL;
        sim_result a, b;
        sim_ctx_set_net(c, net_model_find("bottleneck"));
        if (sim_eval_ctx(c, &a, &m, &s, NULL) != WT_OK)
            fail_msg("%s", strategies[i]);
        sim_ctx_set_net(c, net_model_find("fluid"));
        assert_int_equal(sim_eval_ctx(c, &b, &m, &s, NULL), WT_OK);
        check_invariants(&b);
        double rest = (b.micro_batches + b.s.pp - 1) * b.stage_time_s + b.optimizer_s;
        assert_rel(b.stage_time_s, a.stage_time_s);
        if (s.dp == 1) {
            assert_true(b.step_time_s == a.step_time_s);
        } else { /* the last bucket, at least; at most every bucket after the backward */
            const sim_phase *dp = phase(&b, "dp.allreduce");
            double buckets = dp->comm_s;
            for (int t = 0; t < dp->nterms; t++)
                buckets += 3 * dp->terms[t].steps * (wf.link_overhead + b.patterns[dp->terms[t].pattern].max_lat);
            assert_true(b.dp_exposed_s > 0);
            assert_true(b.dp_exposed_s <= buckets * (1 + 1e-12));
            assert_rel(b.step_time_s, rest + b.dp_exposed_s);
        }
        sim_free(&a);
        sim_free(&b);
    }
    sim_ctx_free(c);
    wafer_free(&wf);
}

static void linear(strategy *s) { s->placement = PLACE_LINEAR; }

/* Megatron TP on a line with linear placement: the ring closes across the
 * line, so the west links carry the closing hop; two all-reduces of 2nh
 * bytes forward (projection and MLP out) per layer, seqpar off. */
static void seqpar_off_linear(strategy *s)
{
    s->placement = PLACE_LINEAR;
    s->tp_seqpar = 0;
}

static void test_tp_line_by_hand(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 1);
    model m = tiny_model();
    sim_result r;
    eval_ok(&r, &wf, &m, "TP4", seqpar_off_linear);
    const sim_phase *proj = phase(&r, "fwd.attn.proj");
    double M = 2.0 * 16 * 64, sent = 2 * 0.75 * M;
    /* rank order 0->1->2->3 east, 3->0 back west over 3 hops, 6 steps */
    assert_rel(proj->comm_s, sent / 1e9 + 6 * (1e-6 + 3 * 1e-8));
    assert_rel(proj->compute_s, 2.0 * 16 * 64 * 64 / 4 / 0.5e12);
    /* backward all-reduces after QKV and MLP-in; none in fwd.attn.qkv */
    assert_rel(phase(&r, "fwd.attn.qkv")->comm_s, 0);
    assert_rel(phase(&r, "bwd.attn.qkv")->comm_s, proj->comm_s);
    /* each link carries the same: 4 all-reduces per layer, 2 layers, 8 micro-batches */
    double per_link = sent * 4 * 2 * 8;
    for (int x = 0; x < 3; x++) {
        assert_rel(r.link_bytes[(size_t)x * 4 + WAFER_E], per_link);
        assert_rel(r.link_bytes[(size_t)(x + 1) * 4 + WAFER_W], per_link);
    }
    /* played in time: the first projection runs after QKV and the
     * attention core; a window inside it sees each ring link at its busy
     * time over the phase's; a window of 1 us from 0.5 us before its end
     * sees 0.5 us of it, the MLP-in (no traffic) and the rest in the
     * MLP-out (busy over its own time); the whole step the average */
    const sim_phase *in = phase(&r, "fwd.mlp.in"), *out = phase(&r, "fwd.mlp.out");
    double at = phase(&r, "fwd.attn.qkv")->time_s + phase(&r, "fwd.attn.core")->time_s, end = at + proj->time_s;
    double u = sent / 1e9 / proj->time_s, u_out = sent / 1e9 / out->time_s;
    assert_rel(sim_start_near(&r, at * (1 - 1e-9), 1), at);
    assert_rel(sim_start_near(&r, at, 1), end);
    assert_rel(sim_start_near(&r, end, -1), at);
    double util[16];
    wt_err e;
    int running[4];
    assert_int_equal(sim_running_at(&r, at + 1e-6, running, 4), 1);
    assert_string_equal(r.phases[running[0]].name, "fwd.attn.proj");
    assert_int_equal(sim_link_window_util(&r, at + 1e-6, 2e-6, util, &e), WT_OK);
    for (size_t l = 0; l < wafer_nlinks(&wf); l++)
        assert_rel(util[l], r.link_bytes[l] > 0 ? u : 0);
    assert_rel(in->comm_s, 0);
    assert_true(in->time_s < 0.5e-6);
    assert_int_equal(sim_link_window_util(&r, end - 0.5e-6, 1e-6, util, &e), WT_OK);
    for (size_t l = 0; l < wafer_nlinks(&wf); l++)
        assert_rel(util[l], r.link_bytes[l] > 0 ? 0.5 * u + (0.5e-6 - in->time_s) / 1e-6 * u_out : 0);
    assert_int_equal(sim_link_window_util(&r, 0, r.step_time_s, util, &e), WT_OK);
    for (size_t l = 0; l < wafer_nlinks(&wf); l++)
        assert_rel(util[l], sim_link_util(&r, l));
    sim_free(&r);
    wafer_free(&wf);
}

/* Each phase's busiest link, brute force over its bytes of one occurrence
 * (one: wafer_nlinks of scratch). */
static void check_busiest(const sim_result *r, double *one)
{
    size_t nl = wafer_nlinks(r->wf);
    for (int p = 0; p < r->nphases; p++) {
        const sim_phase *ph = &r->phases[p];
        sim_phase_link_bytes(r, p, one);
        double most = 0;
        for (size_t l = 0; l < nl; l++)
            most = fmax(most, one[l] / ph->count * sim_link_inv_bw(r->wf, l));
        if (most == 0) {
            assert_int_equal(ph->busiest_link, -1);
            continue;
        }
        double at = one[ph->busiest_link] / ph->count * sim_link_inv_bw(r->wf, (size_t)ph->busiest_link);
        assert_true(at >= most * (1 - 1e-9));
        /* of equals, the first a walk of the phase's patterns meets (each
         * pattern's links in slot order, in the order of its terms) */
        int first = -1;
        for (int t = 0; t < ph->nterms && first < 0; t++) {
            const sim_pattern *pt = &r->patterns[ph->terms[t].pattern];
            for (int k = 0; k < pt->nnz && first < 0; k++)
                if (one[pt->link[k]] / ph->count * sim_link_inv_bw(r->wf, (size_t)pt->link[k]) == most)
                    first = pt->link[k];
        }
        assert_int_equal(ph->busiest_link, first);
        double held = fmax(ph->time_s, ph->comm_s); /* a prefetched gather holds its links that long */
        assert_true(fabs(ph->max_link_util - most / held) <= 1e-9 * fmax(1, ph->max_link_util));
    }
}

/* Properties every evaluation keeps, over strategies and options. */
static void check_invariants(const sim_result *r)
{
    size_t nl = wafer_nlinks(r->wf);
    /* the busiest window never below the step's average, nor above 1 */
    double *peak = malloc(2 * nl * sizeof *peak);
    wt_err e;
    assert_int_equal(sim_link_windows(r, SIM_WINDOW_S, SIM_HOT, peak, peak + nl, &e), WT_OK);
    for (size_t l = 0; l < nl; l++)
        assert_true(peak[l] >= sim_link_util(r, l) && peak[l] <= 1 + 1e-9 &&
                    peak[nl + l] <= r->step_time_s);
    free(peak);
    double *sum = calloc(nl, sizeof *sum), *one = malloc(nl * sizeof *one);
    for (int p = 0; p < r->nphases; p++) {
        sim_phase_link_bytes(r, p, one);
        for (size_t l = 0; l < nl; l++)
            sum[l] += one[l];
        assert_true(r->phases[p].max_link_util <= 1 + 1e-9);
        /* a prefetched gather's time is the part the layer before did not hide */
        double alone = sim_prefetched(&r->phases[p]) ? r->phases[p].compute_s : r->phases[p].comm_s;
        assert_true(r->phases[p].time_s >= fmax(r->phases[p].compute_s, alone) - 1e-15);
    }
    /* the step's utilisation, mean and largest, brute force over every link */
    double all = 0, top = 0;
    int usable = 0;
    for (size_t l = 0; l < nl; l++)
        if (sim_link_inv_bw(r->wf, l) > 0) {
            usable++;
            all += sim_link_util(r, l);
            top = fmax(top, sim_link_util(r, l));
        }
    assert_rel(r->mean_link_util, all / usable);
    assert_rel(r->max_link_util, top);
    for (size_t l = 0; l < nl; l++) {
        assert_true(fabs(sum[l] - r->link_bytes[l]) <= 1e-6 * fmax(1, r->link_bytes[l]));
        assert_true(sim_link_util(r, l) <= 1 + 1e-9);
        if (sim_link_inv_bw(r->wf, l) == 0)
            assert_true(r->link_bytes[l] == 0);
    }
    /* the shares add up to the step: a slot phase holds (m + PP - 1) slots of
     * its time on the slowest stage, the DP all-reduce its exposed part. The
     * slot's phases add up to the slowest stage's time (a prefetched
     * gather's time_s is its mean there, so other stages are not summed). */
    int slowest = r->slot_stage;
    double slot = 0;
    for (int p = 0; p < r->nphases; p++)
        slot += sim_per_mb(r, &r->phases[p], slowest) * r->phases[p].time_s;
    assert_rel(slot, r->stage_time_s);
    double shares = 0;
    int slots = r->micro_batches + r->s.pp - 1, largest = 0;
    for (int p = 0; p < r->nphases; p++) {
        const sim_phase *ph = &r->phases[p];
        shares += ph->share;
        /* a share is a slice's end less its start on the step's clock:
         * good to a few ulps of the step, not of the slice */
        double want = ph->role == SIM_DP          ? r->dp_exposed_s / r->step_time_s
                      : ph->role == SIM_OPTIMIZER ? r->optimizer_s / r->step_time_s
                                                  : slots * sim_per_mb(r, ph, slowest) * ph->time_s / r->step_time_s;
        if (fabs(ph->share - want) > 1e-9 * want + 1e-13)
            fail_msg("phase %s: share %.17g, expected %.17g", ph->name, ph->share, want);
        if (ph->share > r->phases[largest].share * (1 + 1e-9))
            largest = p;
    }
    assert_rel(shares, 1);
    assert_int_equal(r->bottleneck, largest); /* the largest, the first of equals */
    check_busiest(r, one);
    free(sum);
    free(one);
    assert_true(r->idle_fraction >= -1e-12 && r->idle_fraction < 1);
    assert_true(r->mfu > 0 && r->mfu <= r->hfu + 1e-15 && r->hfu <= 1);
    if (r->s.pp == 1) { /* step = every phase once per its count, DP only where exposed */
        double t = 0;
        for (int p = 0; p < r->nphases; p++)
            if (r->phases[p].scope != SIM_STEP)
                t += r->phases[p].count * r->phases[p].time_s;
        assert_rel(r->step_time_s, t + r->dp_exposed_s + r->optimizer_s);
    }
}

/* Besides every collective of the table (with the default options). */
static const char *const option_sets[][3] = {
    {"placement", "tiles", NULL},       {"placement", "linear", NULL},   {"placement", "snake", NULL},
    {"routing", "yx", NULL},            {"routing", "balanced", NULL},   {"checkpoint", "selective", NULL},
    {"checkpoint", "full", NULL},       {"chunk", "256KB", NULL},        {"mem", "zero,act_int8,grad_fp8", NULL},
    {"grad-compress", "1bit", NULL},    {"tp-seqpar", "off", NULL},
};
#define NOPTION_SETS (sizeof option_sets / sizeof option_sets[0])

static void test_invariants(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    const char *strategies[] = {"DP8,TATP16", "TP16", "TATP32", "DP4,TP4,SP2,PP2,TATP4", "TATP4x8,PP4",
                                "DP2,TP8,PP8", "SP8,TATP16", "DP16,TP2,PP8"};
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++) {
        for (size_t o = 0; o < NOPTION_SETS + (size_t)coll_algo_table().n; o++) {
            const char *name = o < NOPTION_SETS ? option_sets[o][0] : "collective";
            const char *value = o < NOPTION_SETS ? option_sets[o][1] : coll_algo_name((coll_algo)(o - NOPTION_SETS));
            strategy s;
            strategy_defaults(&s);
            wt_err e;
            assert_int_equal(strategy_parse(strategies[i], &s, &e), WT_OK);
            assert_int_equal(strategy_set_option(&s, name, value, &e), WT_OK);
            sim_result r;
            if (sim_eval(&r, &wf, &m, &s, &e) != WT_OK)
                fail_msg("%s --%s %s: %s", strategies[i], name, value, e.msg);
            check_invariants(&r);
            sim_free(&r);
        }
    }
    wafer_free(&wf);
}

/* The step of text on wf with collective algorithm a (and 2x2 subgroups, so
 * that hier splits a 4x4 group). */
static double step_with(const wafer *wf, const model *m, const char *text, coll_algo a)
{
    strategy s;
    strategy_defaults(&s);
    wt_err e;
    assert_int_equal(strategy_parse(text, &s, &e), WT_OK);
    s.collective = a;
    s.sub_w = s.sub_h = 2;
    sim_result r;
    if (sim_eval(&r, wf, m, &s, &e) != WT_OK)
        fail_msg("sim_eval %s --collective %s: %s", text, coll_algo_name(a), e.msg);
    double t = r.step_time_s;
    sim_free(&r);
    return t;
}

/* auto takes, for each collective alone, the cheapest of the rows flagged
 * CHOICE_AUTO. DP16 on a 4x4 mesh has one collective, the gradient
 * all-reduce, so its step with auto is the least of the steps each of those
 * rows gives. When bandwidth dominates, that is a row splitting its bytes
 * over the most partners (bidir: 0.21 ms to a ring's 0.41); when the
 * per-step overhead does, a row with the fewest steps (2d and hier: 12 to a
 * ring's 30). With several collectives, auto is no slower than any row. */
static void test_auto_is_the_cheapest_row(void **state)
{
    (void)state;
    const double overheads[2] = {1e-9, 1e-3}; /* s per collective step */
    model m = tiny_model();
    m.batch = 16;
    for (int c = 0; c < 2; c++) {
        wafer wf;
        round_wafer(&wf, 4, 4);
        wf.link_overhead = overheads[c];
        double best = INFINITY;
        int at = -1, most_partners = 0, fewest_steps = INT_MAX;
        for (int a = 0; a < COLL_NALGOS; a++) {
            if (!(choice_at(coll_algo_table(), a)->flags & CHOICE_AUTO))
                continue;
            double t = step_with(&wf, &m, "DP16", (coll_algo)a);
            print_message("overhead %g: %-5s %.9g s\n", overheads[c], coll_algo_name((coll_algo)a), t);
            if (t < best) {
                best = t;
                at = a;
            }
            if (coll_algo_partners((coll_algo)a) > most_partners)
                most_partners = coll_algo_partners((coll_algo)a);
            if (coll_algo_min_steps((coll_algo)a, OP_ALLREDUCE, 16) < fewest_steps)
                fewest_steps = coll_algo_min_steps((coll_algo)a, OP_ALLREDUCE, 16);
        }
        if (c == 0)
            assert_int_equal(coll_algo_partners((coll_algo)at), most_partners);
        else
            assert_int_equal(coll_algo_min_steps((coll_algo)at, OP_ALLREDUCE, 16), fewest_steps);
        assert_rel(step_with(&wf, &m, "DP16", COLL_AUTO), best);
        double mixed = step_with(&wf, &m, "DP4,TATP4", COLL_AUTO);
        for (int a = 0; a < COLL_NALGOS; a++)
            if (choice_at(coll_algo_table(), a)->flags & CHOICE_AUTO)
                assert_true(mixed <= step_with(&wf, &m, "DP4,TATP4", (coll_algo)a) * (1 + 1e-12));
        wafer_free(&wf);
    }
}

/* The ordering: TATP on tiles keeps links cooler than Megatron TP
 * placed row by row. */
static void test_tatp_cooler_than_tp(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    sim_result tatp, tp;
    eval_ok(&tatp, &wf, &m, "TATP16", NULL);
    eval_ok(&tp, &wf, &m, "TP16", linear);
    assert_true(tatp.max_link_util < tp.max_link_util);
    assert_true(tatp.step_time_s < tp.step_time_s);
    /* TATP shards every activation over its grid; so does TP with sequence
     * parallelism, so memory is no worse */
    assert_true(tatp.mem.total <= tp.mem.total);
    sim_free(&tatp);
    sim_free(&tp);
    wafer_free(&wf);
}

/* Recompute repeats forward phases; model FLOPs never count it. */
static void full_ckpt(strategy *s) { s->checkpoint = RECOMPUTE_FULL; }
static void sel_ckpt(strategy *s) { s->checkpoint = RECOMPUTE_SELECTIVE; }

static void test_recompute_counts(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 4);
    model m = tiny_model();
    sim_result none, full, sel;
    eval_ok(&none, &wf, &m, "TATP16", NULL);
    eval_ok(&full, &wf, &m, "TATP16", full_ckpt);
    eval_ok(&sel, &wf, &m, "TATP16", sel_ckpt);
    assert_rel(phase(&full, "fwd.attn.qkv")->count, 2 * phase(&none, "fwd.attn.qkv")->count);
    assert_rel(phase(&sel, "fwd.attn.qkv")->count, phase(&none, "fwd.attn.qkv")->count);
    assert_rel(phase(&sel, "fwd.attn.core")->count, 2 * phase(&none, "fwd.attn.core")->count);
    assert_rel(full.model_flops_per_step, none.flops_per_step);
    assert_true(full.hfu > full.mfu);
    assert_true(full.mem.activations < sel.mem.activations && sel.mem.activations < none.mem.activations);
    sim_free(&none);
    sim_free(&full);
    sim_free(&sel);
    wafer_free(&wf);
}

/* Streaming: each phase overlaps in n = ceil(bytes / chunk) chunks. */
static void chunk_4k(strategy *s) { s->chunk = 4096; }

static void test_streaming_formula(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 4);
    model m = tiny_model();
    sim_result r;
    eval_ok(&r, &wf, &m, "TATP16", chunk_4k);
    int checked = 0;
    for (int p = 0; p < r.nphases; p++) {
        const sim_phase *ph = &r.phases[p];
        if (ph->compute_s <= 0 || ph->comm_s <= 0)
            continue;
        double n = fmax(1, ceil(ph->send_bytes / 4096));
        double hi = fmax(ph->compute_s, ph->comm_s), lo = fmin(ph->compute_s, ph->comm_s);
        assert_rel(ph->time_s, hi + lo / n + n * 1e-7);
        checked++;
    }
    assert_true(checked >= 8);
    sim_free(&r);
    wafer_free(&wf);
}

/* exec stream, ranks in order along the line. */
static void stream_linear(strategy *s)
{
    s->placement = PLACE_LINEAR;
    s->exec = EXEC_STREAM;
}

/* Per layer P = 12 h^2 + 4h = 49152 + 256 = 49408 parameters; the head
 * V h = 8192; the model 2P + Vh + 2h = 107136. */
#define P_LAYER 49408.0
#define P_HEAD 8192.0

/* Memory: DP4 keeps no resident weights. TP x TATP = 1, so a unit holds
 * 2 shards of max(P, Vh) = P at 2 bytes and one gradient shard of 2
 * bytes; no optimizer; the store 16 bytes per parameter. */
static void check_stream_memory(const sim_result *r)
{
    assert_rel(r->mem.params, 2 * 2 * P_LAYER); /* 197632 */
    assert_rel(r->mem.grads, 2 * P_LAYER);      /* 98816 */
    assert_true(r->mem.optimizer == 0);
    assert_rel(r->mem.store, 16 * 107136.0);    /* 1714176 */
    assert_true(r->mem.fits);
    assert_rel(r->optimizer_s, 0);
}

/* Links: every unit's port is unit 0 (x = 0). Weights in: flows 0->1, 0->2,
 * 0->3, so the east links 0->1, 1->2, 2->3 carry 3, 2, 1 shards of every
 * transfer; gradients out the west links 1->0, 2->1, 3->2 the same.
 * Per step, B / DP = 2 micro-batches each stream 2 layers forward and
 * backward (each weights in; backward also gradients out) and the head
 * (in forward; in and out backward), shards of 2 bytes per parameter:
 *   in  = 2 x (2 layers x 2 passes x 2P + 2 x 2Vh) = 2 x (395264 + 32768) = 856064
 *   out = 2 x (2 layers x 2P + 2Vh)               = 2 x (197632 + 16384) = 428032
 * The link next to the port: 3 x 856064 = 2568192 east, 3 x 428032 =
 * 1284096 west. */
static void check_stream_links(const sim_result *r)
{
    const double in = 2 * (2 * 2 * 2 * P_LAYER + 2 * 2 * P_HEAD), out = 2 * (2 * 2 * P_LAYER + 2 * P_HEAD);
    assert_rel(in, 856064);
    assert_rel(out, 428032);
    for (int x = 0; x < 4; x++) {
        int u = wafer_unit(r->wf, x, 0);
        assert_rel(r->link_bytes[(size_t)u * 4 + WAFER_E], (3 - x) * in);
        assert_rel(r->link_bytes[(size_t)u * 4 + WAFER_W], (x > 0 ? 4 - x : 0) * out);
    }
    assert_rel(r->max_link_util, 3 * in / 1e9 / r->step_time_s);
}

/* One store transfer: coef x max(busiest link per byte, store per byte) +
 * overhead + store latency + the longest path's latency (3 hops), with
 * coef = 2P bytes. The busiest link carries 3 bytes per byte of coef:
 * 3 / 1e9 = 3 ns. At 1 GB/s the store takes 1 ns: the mesh bounds; at
 * 0.2 GB/s it takes 5 ns: the store bounds. fwd.stream is one weights-in
 * transfer, bwd.stream two (in and out), alone on the links; 2 layers x 2
 * micro-batches of each. */
static void check_stream_times(const sim_result *r, double per_byte)
{
    double lat = 1e-6 + 1e-6 + 3 * 1e-8;
    double one = 2 * P_LAYER * per_byte + lat;
    assert_rel(phase(r, "fwd.stream")->comm_s, one);
    assert_rel(phase(r, "bwd.stream")->comm_s, 2 * one);
    assert_rel(phase(r, "fwd.stream")->count, 2 * 2);
    assert_true(r->dp_time_s == 0); /* no all-reduce: the store sums the gradients */
}

/* Top-level report field name of r. */
static report_value top_field(const sim_result *r, const char *name)
{
    report_value v;
    for (int i = 0; i < report_nfields(REPORT_TOP); i++)
        if (!strcmp(report_field_name(REPORT_TOP, i), name)) {
            report_get(r, REPORT_TOP, i, 0, &v);
            return v;
        }
    fail_msg("no report field %s", name);
    return v;
}

/* The report: the store moves in 856064 and out 428032 bytes a step (see
 * check_stream_links), at bw bytes/s alone; the busiest links take
 * 3 x as many bytes at 1 GB/s, so the store bounds when 1 / bw > 3 / 1e9. */
static void check_stream_report(const sim_result *r, double bw)
{
    assert_rel(top_field(r, "stream_in_s").num, 856064 / bw);
    assert_rel(top_field(r, "stream_out_s").num, 428032 / bw);
    assert_string_equal(top_field(r, "stream_bound").str, bw < 1e9 / 3 ? "store" : "mesh");
}

/* Weight streaming (docs/MODEL.md "Weight streaming") by hand: DP4 on a
 * 4x1 line whose store (1 GB, 1 us, bw bytes/s each way) enters along the
 * west edge, in both network models, bound by the mesh then the store. */
static void test_stream_line_by_hand(void **state)
{
    (void)state;
    static const char *const nets[] = {"bottleneck", "fluid"};
    static const double bws[] = {1e9, 2e8}, per_byte[] = {3e-9, 5e-9};
    model m = tiny_model();
    for (int n = 0; n < 2; n++)
        for (int b = 0; b < 2; b++) {
            wafer wf;
            round_wafer(&wf, 4, 1);
            wf.store_bytes = 1e9;
            wf.store_bw_in = wf.store_bw_out = bws[b];
            wf.store_lat = 1e-6;
            wf.store_ports = 1u << WAFER_W;
            sim_result r;
            eval_net = net_model_find(nets[n]);
            eval_ok(&r, &wf, &m, "DP4", stream_linear);
            eval_net = NULL;
            check_stream_memory(&r);
            check_stream_links(&r);
            check_stream_times(&r, per_byte[b]);
            check_stream_report(&r, bws[b]);
            sim_free(&r);
            wafer_free(&wf);
        }
}

/* DP4 on the 4x1 line of test_dp_line_by_hand with sram bytes of SRAM and
 * 1 GB of DRAM at bw bytes/s, timed by the closed form. */
static void eval_dram(sim_result *r, wafer *wf, double sram, double bw)
{
    round_wafer(wf, 4, 1);
    wf->sram_bytes = sram;
    wf->dram_bytes = 1e9;
    wf->dram_bw = bw;
    model m = tiny_model();
    eval_net = net_model_find("bottleneck");
    eval_ok(r, wf, &m, "DP4", NULL);
    eval_net = NULL;
}

/* The step of test_dp_line_by_hand, where everything is in SRAM. */
#define P_UNIT 107136.0
#define LAYER_FLOPS 1638400.0  /* 2 x 16 x 49152 + 4 x 16 x 16 x 64 */
#define LOGITS_FLOPS 262144.0  /* 2 x 16 x 64 x 128 */
#define PEAK 0.5e12
#define T_DP (2 * 0.75 * 2 * P_UNIT / 1e9 + 6 * (1e-6 + 2 * 1e-8))

/* Where memory lives and what DRAM costs (docs/MODEL.md, "DRAM traffic"),
 * by hand. A unit holds 2P params, 2P grads, 12P optimizer states and
 * 2 x 39936 activation bytes (P = 107136), no buffers. With SRAM for half
 * the params, the other half and everything after them live in DRAM.
 * Per layer: forward reads half its 2 x 49408 weight bytes and writes its
 * 39936 activation bytes: 89344 B; backward reads both and reads and
 * writes its 2 x 49408 gradient bytes: 49408 + 197632 + 39936 = 286976 B.
 * At 40 GB/s the forward takes 2.2336 us of DRAM under 3.2768 us of
 * FLOPs (hidden), the backward 7.1744 us over 6.5536 us (DRAM-bound).
 * fwd.logits reads half the head (8192 B, 0.2048 us under 0.524288 us),
 * bwd.logits also its gradients (40960 B, 1.024 us under 1.048576 us).
 * The optimizer reads and writes 0.5 x 2P + 2P + 12P = 1607040 B:
 * 80.352 us over 2.571264 us of FLOPs. */
static void test_dram_line_by_hand(void **state)
{
    (void)state;
    wafer wf;
    sim_result r;
    eval_dram(&r, &wf, P_UNIT, 4e10);
    assert_rel(r.mem.sram, P_UNIT);
    assert_rel(r.mem.dram_params, P_UNIT);
    assert_rel(r.mem.dram_grads, 2 * P_UNIT);
    assert_rel(r.mem.dram_optimizer, 12 * P_UNIT);
    assert_rel(r.mem.dram_activations, 2 * 39936.0);
    assert_true(r.mem.dram_buffers == 0);
    assert_rel(r.mem.dram, r.mem.total - P_UNIT);

    const double fwd = 89344 / 4e10, bwd = 286976 / 4e10, opt = 2 * 1607040 / 4e10;
    /* each phase carries its FLOPs' share of its block's bytes */
    const sim_phase *qkv = phase(&r, "fwd.attn.qkv"), *bqkv = phase(&r, "bwd.attn.qkv");
    assert_rel(dram_phase_s(&r, qkv), 393216 / LAYER_FLOPS * fwd); /* 2 x 16 x 64 x 192 FLOPs */
    assert_rel(qkv->compute_s, 393216 / PEAK);
    assert_rel(dram_phase_s(&r, bqkv), 786432 / (2 * LAYER_FLOPS) * bwd);
    assert_rel(bqkv->compute_s, 786432 / (2 * LAYER_FLOPS) * bwd);
    assert_rel(phase(&r, "fwd.logits")->compute_s, LOGITS_FLOPS / PEAK);
    assert_rel(dram_phase_s(&r, phase(&r, "bwd.logits")), 40960 / 4e10);
    assert_rel(r.optimizer_s, opt);

    /* a micro-batch: 2 layers forward at their FLOPs, backward at DRAM */
    double mb = 2 * LAYER_FLOPS / PEAK + 3 * LOGITS_FLOPS / PEAK + 2 * bwd;
    assert_rel(r.stage_time_s, mb);
    double window = 2 * bwd + 2 * LOGITS_FLOPS / PEAK; /* the backward the DP hides behind */
    assert_rel(r.dp_exposed_s, T_DP - window);
    assert_rel(r.step_time_s, 2 * mb + T_DP - window + opt);
    /* per step, counts 4 (layers) and 2 (logits) */
    assert_rel(top_field(&r, "dram_s").num, 4 * fwd + 4 * bwd + 2 * 8192 / 4e10 + 2 * 40960 / 4e10 + opt);
    assert_rel(top_field(&r, "dram_stall_s").num, 4 * (bwd - 2 * LAYER_FLOPS / PEAK) + opt - 12 * P_UNIT / PEAK);
    sim_free(&r);
    wafer_free(&wf);
}

/* What fits in SRAM costs nothing: with DRAM beside a large SRAM, or with
 * no DRAM bandwidth, the step is test_dp_line_by_hand's. */
static void test_dram_unused(void **state)
{
    (void)state;
    static const double sram[] = {1e9, 1e3}, bw[] = {4e10, 0};
    for (int i = 0; i < 2; i++) {
        wafer wf;
        sim_result r;
        eval_dram(&r, &wf, sram[i], bw[i]);
        assert_rel(r.mem.dram, i ? r.mem.total - 1e3 : 0);
        double mb = 3 * (2 * LAYER_FLOPS + LOGITS_FLOPS) / PEAK, window = 2 * (2 * LAYER_FLOPS + LOGITS_FLOPS) / PEAK;
        assert_rel(r.step_time_s, 2 * mb + T_DP - window + 12 * P_UNIT / PEAK);
        assert_true(top_field(&r, "dram_s").num == 0);
        sim_free(&r);
        wafer_free(&wf);
    }
}

/* With all of it in DRAM at 1 GB/s, DRAM bounds every phase with FLOPs:
 * forward 2 x 49408 + 39936 = 138752 B per layer, backward
 * 98816 + 197632 + 39936 = 336384 B, fwd.logits 16384 B, bwd.logits
 * 16384 + 32768 = 49152 B, the optimizer 2 x 16P. */
static void test_dram_bound(void **state)
{
    (void)state;
    wafer wf;
    sim_result r;
    eval_dram(&r, &wf, 0, 1e9);
    assert_rel(r.mem.dram, r.mem.total);
    double mb = (2 * 138752 + 16384 + 49152 + 2 * 336384) / 1e9;
    assert_rel(r.stage_time_s, mb);
    assert_rel(r.optimizer_s, 2 * 16 * P_UNIT / 1e9);
    assert_rel(phase(&r, "fwd.mlp.in")->compute_s, 2.0 * 16 * 64 * 256 / LAYER_FLOPS * 138752 / 1e9);
    double window = (2 * 336384 + 49152) / 1e9;
    assert_rel(r.step_time_s, 2 * mb + fmax(0, T_DP - window) + 2 * 16 * P_UNIT / 1e9);
    sim_free(&r);
    wafer_free(&wf);
}

/* A DP group spread over wafers goes hierarchical by wafer: inside each
 * wafer, then across. */
static void test_multiwafer_dp_is_hierarchical(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/multiwafer-4x4.yaml", &wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    sim_result r;
    eval_ok(&r, &wf, &m, "DP64,TATP64", NULL);
    const sim_phase *dp = phase(&r, "dp.allreduce");
    assert_int_equal(dp->nterms, 2);
    assert_int_equal(r.patterns[dp->terms[0].pattern].pass, PASS_INNER);
    assert_int_equal(r.patterns[dp->terms[1].pattern].pass, PASS_OUTER);
    /* 4 members per wafer, 16 wafers: 2(3/4)M inside, 2(15/16)M/4 across */
    double M = dp->ops[0].bytes;
    assert_rel(dp->terms[0].coef, 2 * 0.75 * M);
    assert_rel(dp->terms[1].coef, 2 * 15.0 / 16 * M / 4);
    /* crossing a wafer edge costs the inter-wafer latency */
    assert_true(r.patterns[dp->terms[1].pattern].max_lat >= wf.iw_lat);
    check_invariants(&r);
    sim_free(&r);
    wafer_free(&wf);
}

/* A dead link carries nothing and its traffic detours; the figures move. */
static void test_dead_link_detours(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 1);
    model m = tiny_model();
    sim_result healthy, hurt;
    eval_ok(&healthy, &wf, &m, "DP2", linear);
    wafer_fail_link(&wf, 0, 0, WAFER_E, NULL);
    wt_err e;
    strategy s;
    strategy_defaults(&s);
    strategy_parse("DP2", &s, NULL);
    s.placement = PLACE_LINEAR;
    /* on a line, cutting the only link between 0 and 1 leaves no route */
    assert_int_equal(sim_eval(&hurt, &wf, &m, &s, &e), WT_EINPUT);
    assert_non_null(strstr(e.msg, "no route from 0,0 to 1,0"));
    sim_free(&healthy);
    wafer_free(&wf);

    round_wafer(&wf, 2, 2);
    eval_ok(&healthy, &wf, &m, "DP2", linear);
    wafer_fail_link(&wf, 0, 0, WAFER_E, NULL);
    eval_ok(&hurt, &wf, &m, "DP2", linear);
    assert_rel(hurt.link_bytes[0 * 4 + WAFER_E], 0);
    assert_true(hurt.link_bytes[0 * 4 + WAFER_S] > 0); /* 0,0 -> 0,1 -> 1,1 -> 1,0 */
    assert_true(phase(&hurt, "dp.allreduce")->comm_s > phase(&healthy, "dp.allreduce")->comm_s);
    check_invariants(&hurt);
    sim_free(&healthy);
    sim_free(&hurt);
    wafer_free(&wf);
}

/* A copy holds every link's bytes and busiest window as the result does,
 * the links no pattern loads included (it copies the loaded ones alone),
 * on a healthy wafer and on one with a dead unit and link. */
static void test_copy_every_link(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    for (int hurt = 0; hurt <= 1; hurt++) {
        if (hurt) {
            assert_int_equal(wafer_fail_unit(&wf, 3, 3, NULL), WT_OK);
            assert_int_equal(wafer_fail_link(&wf, 2, 5, WAFER_E, NULL), WT_OK);
        }
        sim_result r, copy;
        eval_ok(&r, &wf, &m, "DP8,TATP16", NULL);
        assert_int_equal(sim_window_figures(&r, SIM_WINDOW_S, NULL), WT_OK);
        assert_int_equal(sim_copy(&copy, &r, NULL), WT_OK);
        size_t nl = wafer_nlinks(&wf), nonzero = 0;
        for (size_t l = 0; l < nl; l++) {
            assert_true(copy.link_bytes[l] == r.link_bytes[l] && copy.link_peak[l] == r.link_peak[l]);
            nonzero += r.link_bytes[l] > 0;
        }
        assert_true(nonzero > 0 && nonzero < nl);
        assert_int_equal(copy.nloaded, r.nloaded);
        assert_memory_equal(copy.loaded, r.loaded, (size_t)r.nloaded * sizeof *r.loaded);
        sim_free(&copy);
        sim_free(&r);
    }
    wafer_free(&wf);
}

/* 1 when pattern p loads link l, its load then in *load. */
static int pattern_load(const sim_pattern *p, int l, double *load)
{
    int k = sim_pattern_first(p, l);
    if (k == p->nnz || p->link[k] != l)
        return 0;
    *load = p->load[k];
    return 1;
}

/* A wafer whose links are all loaded, by wse3's own strategy (streamed:
 * its tensor and store passes share links), classed in ranges side by
 * side: every link of a class carries the loads of the class's first link
 * from each timed pattern, and its bandwidth, two classes never the same;
 * and each phase's busiest link, found over the classes, is the brute
 * force's. */
static void test_classes_on_a_wafer(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/wse3.yaml", &wf, NULL), WT_OK);
    model m;
    model_preset("gpt3-6.7b", &m);
    m.microbatch = wf.strategy_microbatch;
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_spec(wf.strategy, &s, NULL), WT_OK);
    sim_result r;
    assert_int_equal(sim_eval(&r, &wf, &m, &s, NULL), WT_OK);
    const sim_link_classes *c = r.classes;
    assert_non_null(c); /* made for the busiest links of the overlapping passes */
    size_t nl = wafer_nlinks(&wf);
    double *one = malloc(nl * sizeof *one);
    check_busiest(&r, one);
    free(one);
    int *size = calloc((size_t)c->n, sizeof *size), *count = malloc((size_t)c->n * sizeof *count);
    for (int i = 0; i < r.nloaded; i++) { /* ascending: a class's first link is the first met */
        int l = r.loaded[i], k = c->of[l];
        assert_true(k >= 0 && k < c->n);
        if (k && !size[k]++)
            assert_int_equal(c->first[k], l);
        if (k)
            assert_true(c->inv[k] == sim_link_inv_bw(&wf, (size_t)l));
    }
    int timed[64] = {0};
    assert_true(r.npatterns <= 64);
    for (int i = 0; i < r.nphases; i++)
        for (int t = 0; t < r.phases[i].nterms && r.phases[i].time_s > 0; t++)
            timed[r.phases[i].terms[t].pattern] = 1;
    for (int p = 0; p < r.npatterns; p++) {
        const sim_pattern *pt = &r.patterns[p];
        memset(count, 0, (size_t)c->n * sizeof *count);
        for (int j = 0; j < pt->nnz && timed[p]; j++) {
            int k = c->of[pt->link[j]];
            double at = -1;
            assert_true(k > 0);
            count[k]++;
            assert_true(pattern_load(pt, c->first[k], &at) && at == pt->load[j]);
        }
        for (int k = 1; k < c->n; k++) /* on all of a class's links or none */
            assert_true(count[k] == 0 || count[k] == size[k]);
    }
    for (int a = 1; a < c->n; a++)
        for (int b = a + 1; b < c->n; b++) {
            int same = c->inv[a] == c->inv[b];
            for (int p = 0; p < r.npatterns && same; p++) {
                double la = 0, lb = 0;
                same = !timed[p] || (pattern_load(&r.patterns[p], c->first[a], &la) ==
                                         pattern_load(&r.patterns[p], c->first[b], &lb) &&
                                     la == lb);
            }
            assert_false(same);
        }
    free(size);
    free(count);
    sim_free(&r);
    wafer_free(&wf);
}

/* Bad strategies are refused by sim_eval with the strategy's reason. */
static void test_refusals(void **state)
{
    (void)state;
    wafer wf;
    round_wafer(&wf, 4, 4);
    model m = tiny_model();
    strategy s;
    strategy_defaults(&s);
    strategy_parse("TP8", &s, NULL);
    sim_result r;
    wt_err e;
    assert_int_equal(sim_eval(&r, &wf, &m, &s, &e), WT_EINPUT);
    assert_string_equal(e.msg, "strategy TP8: TP 8 must divide the model's 4 heads and 4 kv_heads");
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dp_line_by_hand),
        cmocka_unit_test(test_windows_brute_force),
        cmocka_unit_test(test_fluid_dp_line_by_hand),
        cmocka_unit_test(test_fluid_priority_by_hand),
        cmocka_unit_test(test_fluid_prefetch_hidden_by_hand),
        cmocka_unit_test(test_fluid_prefetch_shared_by_hand),
        cmocka_unit_test(test_fluid_is_closed_form_without_dp),
        cmocka_unit_test(test_tp_line_by_hand),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_auto_is_the_cheapest_row),
        cmocka_unit_test(test_tatp_cooler_than_tp),
        cmocka_unit_test(test_recompute_counts),
        cmocka_unit_test(test_streaming_formula),
        cmocka_unit_test(test_stream_line_by_hand),
        cmocka_unit_test(test_dram_line_by_hand),
        cmocka_unit_test(test_dram_unused),
        cmocka_unit_test(test_dram_bound),
        cmocka_unit_test(test_multiwafer_dp_is_hierarchical),
        cmocka_unit_test(test_dead_link_detours),
        cmocka_unit_test(test_copy_every_link),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_classes_on_a_wafer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
