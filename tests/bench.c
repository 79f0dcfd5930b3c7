/*
 * bench.c - the figures of docs/ARCHITECTURE.md ("Speed"), printed as machine-readable
 * lines "bench <name> <value> <unit> [key=value...] [target<T pass|FAIL]". The
 * mark is information for a person; bench never fails a build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <unistd.h>

#include "clock.h"
#include "flit.h"
#include "flit_traffic.h"
#include "flow.h"
#include "heap.h"
#include "layout.h"
#include "net.h"
#include "search.h"
#include "sim.h"

/* The mark of a figure against its target (lower is better). */
static const char *mark(double value, double target)
{
    return value < target ? "pass" : "FAIL";
}

/* The process's CPU time: an evaluation is one thread, and on a shared
 * machine its wall time measures the neighbours as much as itself. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times n evaluations with network model net (NULL: the default), reusing
 * one context (as the search and the screen do) or making one per call,
 * with each link's busiest window of window_s (as `eval` prints them) when
 * window_s > 0; returns the sorted durations in t[] (the process's CPU
 * time) and, when wall is not NULL, the sorted wall-clock ones in wall[]. */
static int time_evals(const wafer *wf, const net_model *net, const model *m, const strategy *s, int reuse,
                      double window_s, int n, double *t, double *wall)
{
    sim_ctx *c = NULL;
    wt_err e;
    if (reuse && sim_ctx_new(&c, wf, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return WT_EINTERNAL;
    }
    if (c)
        sim_ctx_set_net(c, net);
    for (int i = 0; i < n; i++) {
        sim_result r;
        double t0 = cpu_s(), w0 = wt_clock_s();
        int rc = reuse ? sim_eval_ctx(c, &r, m, s, &e) : sim_eval_net(&r, wf, net, m, s, &e);
        if (rc == WT_OK && window_s > 0 && (rc = sim_window_figures(&r, window_s, &e)) != WT_OK)
            sim_free(&r);
        t[i] = cpu_s() - t0;
        if (wall)
            wall[i] = wt_clock_s() - w0;
        if (rc != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            sim_ctx_free(c);
            return rc;
        }
        sim_free(&r);
    }
    sim_ctx_free(c);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    if (wall)
        qsort(wall, (size_t)n, sizeof *wall, cmp_double);
    return WT_OK;
}

/* Prints the median of 5 evaluations of s on wf (a fresh context each),
 * as name and name_windows: without and with each link's busiest window;
 * the wall clock (a large evaluation splits its links over the cores) with
 * the CPU time beside it as cpu=; target in seconds. */
static int bench_windows(const wafer *wf, const model *m, const strategy *s, const char *name, const char *text,
                         double target)
{
    enum { NB = 5 };
    double tb[NB], wb[NB];
    for (int windows = 0; windows <= 1; windows++) {
        if (time_evals(wf, NULL, m, s, 0, windows ? SIM_WINDOW_S : 0, NB, tb, wb) != WT_OK)
            return WT_EINTERNAL;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("bench %s%s %.1f ms median min=%.1f cpu=%.1f n=%d links=%zu peak_rss=%.0f MB strategy=%s target<%g %s\n",
               name, windows ? "_windows" : "", wb[NB / 2] * 1e3, wb[0] * 1e3, tb[NB / 2] * 1e3, NB,
               wafer_nlinks(wf), ru.ru_maxrss / 1024.0, text, target * 1e3, mark(wb[NB / 2], target));
    }
    return WT_OK;
}

/* The strategy layout L recommends (its `strategy:`, with its micro-batch)
 * for model m, as `eval --layout L` runs it, without and with the windows,
 * as eval_L_recommended. */
static int bench_recommended(const char *layout, const model *m)
{
    char path[64], name[64];
    wafer wf;
    wt_err e;
    snprintf(path, sizeof path, "layouts/%s.yaml", layout);
    snprintf(name, sizeof name, "eval_%s_recommended", layout);
    if (layout_load(path, &wf, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return WT_EINPUT;
    }
    strategy s;
    strategy_defaults(&s);
    model mr = *m;
    mr.microbatch = wf.strategy_microbatch ? wf.strategy_microbatch : mr.microbatch;
    int rc = strategy_spec(wf.strategy, &s, &e);
    if (rc != WT_OK)
        fprintf(stderr, "bench: %s\n", e.msg);
    else
        rc = bench_windows(&wf, &mr, &s, name, wf.strategy, 0.1);
    wafer_free(&wf);
    return rc;
}

static strategy parsed(const char *text)
{
    strategy s;
    strategy_defaults(&s);
    strategy_parse(text, &s, NULL);
    return s;
}

/* flow_run on n classes made of r's passes (cycled when r has fewer), all
 * at once (chain 0) or each after the one before; the median of many runs,
 * or a negative value on error. */
static double time_flow(const sim_result *r, int n, int chain, int *solves)
{
    enum { MAXC = 64, RUNS = 501 };
    flow_class c[MAXC];
    int pred[MAXC], k = 0;
    for (int i = 0; i < r->nphases && k < n; i++)
        for (int j = 0; j < r->phases[i].nterms && k < n; j++) {
            const sim_term *t = &r->phases[i].terms[j];
            const sim_pattern *p = &r->patterns[t->pattern];
            c[k] = (flow_class){.link = p->link, .load = p->load, .nnz = p->nnz, .work = t->coef,
                                .latency_s = t->steps * (r->wf->link_overhead + p->max_lat)};
            k++;
        }
    for (int i = k; i < n; i++)
        c[i] = c[i % k];
    for (int i = 0; i < n; i++) {
        pred[i] = i - 1;
        c[i].pred = chain && i > 0 ? &pred[i] : NULL;
        c[i].npred = chain && i > 0;
    }
    size_t nl = wafer_nlinks(r->wf);
    double *inv = malloc(nl * sizeof *inv);
    flow_ctx *fc = NULL;
    wt_err e;
    net_bw bw = {NULL, inv};
    if (!inv || flow_ctx_new(&fc, nl, &bw, &e) != WT_OK) {
        free(inv);
        return -1;
    }
    for (size_t l = 0; l < nl; l++)
        inv[l] = sim_link_inv_bw(r->wf, l);
    static double t[RUNS];
    flow_time times[MAXC];
    flow_run_opts o = {1e-3, SIM_HOT, 0};
    flow_run_out out = {0};
    for (int i = 0; i < RUNS; i++) {
        double t0 = wt_clock_s();
        int rc = flow_run(fc, c, n, &o, times, &out, &e);
        t[i] = wt_clock_s() - t0;
        if (rc != WT_OK) {
            t[RUNS / 2] = -1;
            break;
        }
    }
    *solves = out.solves;
    flow_ctx_free(fc);
    free(inv);
    if (t[RUNS / 2] < 0)
        return -1;
    qsort(t, RUNS, sizeof *t, cmp_double);
    return t[RUNS / 2];
}

/* The search as `wafertop search --layout L --model M` runs it (baselines
 * included), once: its time against target_s, its best and whether that
 * fits, in which exec mode. */
static int bench_search_at(const char *layout, const char *model_name, const char *name, double target_s, int jobs)
{
    char path[64];
    wafer wf;
    model m;
    wt_err e;
    snprintf(path, sizeof path, "layouts/%s.yaml", layout);
    if (layout_load(path, &wf, &e) != WT_OK || model_load(model_name, &m, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return WT_EINPUT;
    }
    search_opts o = {.top_k = 5, .jobs = jobs > 0 ? jobs : 1, .baselines = 1};
    search_result r;
    double t0 = wt_clock_s();
    int rc = search_run(&wf, &m, &o, &r, &e);
    double t = wt_clock_s() - t0;
    if (rc == WT_OK && !r.ntop)
        rc = wt_fail(&e, "%s", r.nofit);
    if (rc != WT_OK) {
        fprintf(stderr, "bench: %s: %s\n", name, e.msg);
        wafer_free(&wf);
        return rc;
    }
    char best[64];
    strategy_format(&r.top[0].s, best, sizeof best);
    printf("bench %s %.2f s jobs=%d candidates=%lld evaluated=%lld refused=%lld best=%s exec=%s step=%.6g fits=%s "
           "target<%g %s\n",
           name, t, o.jobs, r.candidates, r.evaluated, r.invalid, best, exec_mode_name(r.top[0].s.exec), r.top[0].step_time_s,
           r.top[0].mem.fits ? "yes" : "no", target_s, mark(t, target_s));
    search_free(&r);
    wafer_free(&wf);
    return WT_OK;
}

/* The flit level on BookSim2's batch of 1024 flits a unit in 16-flit
 * packets (one configuration, the defaults): the median CPU time of three
 * runs, the cycle the last packet arrives, and BookSim2's. */
static int bench_flit(int k, int pattern, long long booksim2, double target_s)
{
    flit_cfg c;
    flit_cfg_defaults(&c);
    flit_packet *p;
    int np;
    wt_err e;
    if (flit_traffic_batch(k, k, pattern, 64, 16, 1, &p, &np, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    double t[3];
    long long last = 0;
    for (int i = 0; i < 3; i++) {
        double t0 = cpu_s();
        if (flit_run(k, k, &c, p, np, 100000000, NULL, &e) != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            free(p);
            return 1;
        }
        t[i] = cpu_s() - t0;
    }
    for (int i = 0; i < np; i++)
        last = p[i].arrived > last ? p[i].arrived : last;
    free(p);
    qsort(t, 3, sizeof *t, cmp_double);
    double diff = 100.0 * (double)(last - booksim2) / (double)booksim2;
    printf("bench flit_%dx%d_%s_batch %.3f s cpu median n=3 packets=%d last_arrival=%lld booksim2=%lld diff=%+.2f%% "
           "target<%g %s, within 5%% %s\n",
           k, k, flit_pattern_name(pattern), t[1], np, last, booksim2, diff, target_s, mark(t[1], target_s),
           diff > -5 && diff < 5 ? "pass" : "FAIL");
    return 0;
}

int main(void)
{
    heap_keep_freed(); /* as the program does (tui/main.c) */
    wafer wf;
    wt_err e;
    if (layout_load("layouts/default.yaml", &wf, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    model m;
    model_preset("gpt3-6.7b", &m);
    strategy s = parsed("DP8,TATP16");
    enum { N = 2000 };
    static double t[N];
    /* the default model (fluid) warm and cold, the closed form warm, then
     * fluid warm with ZeRO (its gathers prefetched on the flow timeline) */
    static const char *const runs[] = {"", "_cold", "_bottleneck", "_zero"};
    for (int i = 0; i < 4; i++) {
        int reuse = i != 1;
        const net_model *net = i == 2 ? net_model_find("bottleneck") : NULL;
        strategy si = s;
        if (i == 3)
            si.mem = MEM_ZERO;
        if (time_evals(&wf, net, &m, &si, reuse, 0, N, t, NULL) != WT_OK)
            return 1;
        printf("bench eval_default_6.7b_DP8_TATP16%s %.1f us median p10=%.1f p90=%.1f n=%d target<100 %s\n", runs[i],
               t[N / 2] * 1e6, t[N / 10] * 1e6, t[N * 9 / 10] * 1e6, N, mark(t[N / 2], 100e-6));
    }

    /* The fluid model's core on the step's own passes: 20 classes one
     * after another (a step's shape) and all at once (the worst case). */
    sim_result fr;
    if (sim_eval(&fr, &wf, &m, &s, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    /* Every link's busiest 100 us window and hot time, on demand (the
     * screen's and the headless commands' cost, never the search's). */
    double *peak = malloc(2 * wafer_nlinks(&wf) * sizeof *peak);
    double wt[64];
    for (int i = 0; peak && i < 64; i++) {
        double t0 = wt_clock_s();
        if (sim_link_windows(&fr, SIM_WINDOW_S, SIM_HOT, peak, peak + wafer_nlinks(&wf), &e) != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            return 1;
        }
        wt[i] = wt_clock_s() - t0;
    }
    qsort(wt, 64, sizeof *wt, cmp_double);
    printf("bench windows_default_6.7b_DP8_TATP16 %.1f us median n=64 window=100us slots=%d layers=%d\n", wt[32] * 1e6,
           fr.slots, fr.stage_layers_max);
    /* Every link's busy fraction in a 100 us window at 64 places of the
     * step: what the screen computes once for each place its cursor shows. */
    for (int i = 0; peak && i < 64; i++) {
        double t0 = wt_clock_s();
        if (sim_link_window_util(&fr, fr.step_time_s * i / 64, SIM_WINDOW_S, peak, &e) != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            return 1;
        }
        wt[i] = wt_clock_s() - t0;
    }
    free(peak);
    qsort(wt, 64, sizeof *wt, cmp_double);
    printf("bench window_at_default_6.7b_DP8_TATP16 %.1f us median max=%.1f n=64 window=100us\n", wt[32] * 1e6,
           wt[63] * 1e6);
    for (int chain = 1; chain >= 0; chain--) {
        int solves = 0;
        double ft = time_flow(&fr, 20, chain, &solves);
        if (ft < 0) {
            fprintf(stderr, "bench: flow_run failed\n");
            return 1;
        }
        printf("bench flow_run_default_20_classes_%s %.1f us median solves=%d window=1ms target<100 %s\n",
               chain ? "chained" : "concurrent", ft * 1e6, solves, mark(ft, 100e-6));
    }
    sim_free(&fr);

    /* The two-level search, then the exhaustive one for the ratio. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double pruned_s = 0, pruned_best = 0;
    for (int exhaustive = 0; exhaustive <= 1; exhaustive++) {
        search_opts o = {.top_k = 5, .jobs = cores > 0 ? (int)cores : 1, .exhaustive = exhaustive};
        search_result r;
        if (search_run(&wf, &m, &o, &r, &e) != WT_OK || !r.ntop) {
            fprintf(stderr, "bench: %s\n", r.ntop ? e.msg : r.nofit);
            return 1;
        }
        char best[64];
        strategy_format(&r.top[0].s, best, sizeof best);
        printf("bench search_default_6.7b%s %.3f s%s jobs=%d candidates=%lld per_s=%.3g pruned_memory=%.4f "
               "pruned_bound=%.4f evaluated=%lld best=%s step=%.6g",
               exhaustive ? "_exhaustive" : "", r.elapsed_s, exhaustive ? "" : " target<1", o.jobs, r.candidates,
               r.candidates / r.elapsed_s, (double)r.pruned_memory / r.candidates,
               (double)r.pruned_bound / r.candidates, r.evaluated, best, r.top[0].step_time_s);
        if (exhaustive) /* the pruned search must find the same best */
            printf(" ratio=%.1fx same_best=%s\n", r.elapsed_s / pruned_s,
                   r.top[0].step_time_s == pruned_best ? "yes pass" : "no FAIL");
        else
            printf(" %s\n", mark(r.elapsed_s, 1));
        pruned_best = r.top[0].step_time_s;
        pruned_s = r.elapsed_s;
        search_free(&r);
    }
    wafer_free(&wf);
    if (bench_search_at("wse2", "gpt3-13b", "search_wse2_13b_stream", 10, (int)cores) != WT_OK ||
        bench_search_at("multiwafer-4x4", "gpt3-6.7b", "search_multiwafer-4x4_6.7b", 30, (int)cores) != WT_OK)
        return 1;

    /* A 1024 x 1024 mesh of default dies, every unit busy. */
    wafer big;
    if (wafer_init(&big, 1024, 1024, 1, 1, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    strategy bs = parsed("DP1024,TATP1024");
    if (bench_windows(&big, &m, &bs, "eval_1024x1024_DP1024_TATP1024", "DP1024,TATP1024", 0.15) != WT_OK)
        return 1;
    wafer_free(&big);

    /* wse3 and wse2 as `eval` computes them: the default strategy, each
     * link's busiest window included. */
    const char *wse[] = {"wse3", "wse2"};
    enum { NB = 5 };
    double tb[NB];
    for (int i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof path, "layouts/%s.yaml", wse[i]);
        if (layout_load(path, &big, &e) != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            return 1;
        }
        if (time_evals(&big, NULL, &m, &s, 0, SIM_WINDOW_S, NB, tb, NULL) != WT_OK)
            return 1;
        printf("bench eval_%s_6.7b_DP8_TATP16_windows %.1f ms median min=%.1f n=%d links=%zu target<100 %s\n", wse[i],
               tb[NB / 2] * 1e3, tb[0] * 1e3, NB, wafer_nlinks(&big), mark(tb[NB / 2], 0.1));
        wafer_free(&big);
    }

    /* Weight streaming on wse2, 13B: every rank's weights broadcast from
     * the edge ports, one fresh context per call, without and with the
     * windows. */
    static const char *const stream_opts[][2] = {
        {"exec", "stream"}, {"placement", "snake"}, {"checkpoint", "full"}, {"tp-seqpar", "off"}, {"chunk", "4KB"}};
    strategy ss = parsed("DP4,TP5,TATP42525");
    for (size_t i = 0; i < sizeof stream_opts / sizeof stream_opts[0]; i++)
        if (strategy_set_option(&ss, stream_opts[i][0], stream_opts[i][1], &e) != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            return 1;
        }
    model m13;
    model_preset("gpt3-13b", &m13);
    if (layout_load("layouts/wse2.yaml", &big, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    if (bench_windows(&big, &m13, &ss, "eval_wse2_13b_stream", "DP4,TP5,TATP42525", 0.2) != WT_OK)
        return 1;
    wafer_free(&big);

    /* The strategies wse2 and wse3 recommend (every core busy, streamed),
     * as `eval --layout L` runs them, without and with the windows. */
    for (int i = 1; i >= 0; i--)
        if (bench_recommended(wse[i], &m) != WT_OK)
            return 1;

    /* The flit level: the 16x16 transpose batch of docs/ARCHITECTURE.md,
     * and a bit-complement batch, where routers lose most to a flow model */
    if (bench_flit(16, FLIT_TRANSPOSE, 15419, 1) != WT_OK || bench_flit(8, FLIT_BITCOMP, 5747, 1) != WT_OK)
        return 1;
    return 0;
}
