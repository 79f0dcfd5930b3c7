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

#include "layout.h"
#include "search.h"
#include "sim.h"

/* The mark of a figure against its target (lower is better). */
static const char *mark(double value, double target)
{
    return value < target ? "pass" : "FAIL";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times n evaluations, reusing one context (as the search and the screen
 * do) or making one per call; returns the sorted durations in t[]. */
static int time_evals(const wafer *wf, const model *m, const strategy *s, int reuse, int n, double *t)
{
    sim_ctx *c = NULL;
    wt_err e;
    if (reuse && sim_ctx_new(&c, wf, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return WT_EINTERNAL;
    }
    for (int i = 0; i < n; i++) {
        sim_result r;
        double t0 = now_s();
        int rc = reuse ? sim_eval_ctx(c, &r, m, s, &e) : sim_eval(&r, wf, m, s, &e);
        t[i] = now_s() - t0;
        if (rc != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
            sim_ctx_free(c);
            return rc;
        }
        sim_free(&r);
    }
    sim_ctx_free(c);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return WT_OK;
}

static strategy parsed(const char *text)
{
    strategy s;
    strategy_defaults(&s);
    strategy_parse(text, &s, NULL);
    return s;
}

int main(void)
{
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
    for (int reuse = 1; reuse >= 0; reuse--) {
        if (time_evals(&wf, &m, &s, reuse, N, t) != WT_OK)
            return 1;
        printf("bench eval_default_6.7b_DP8_TATP16%s %.1f us median p10=%.1f p90=%.1f n=%d target<100 %s\n",
               reuse ? "" : "_cold", t[N / 2] * 1e6, t[N / 10] * 1e6, t[N * 9 / 10] * 1e6, N,
               mark(t[N / 2], 100e-6));
    }

    /* The two-level search, then the exhaustive one for the ratio. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double pruned_s = 0, pruned_best = 0;
    for (int exhaustive = 0; exhaustive <= 1; exhaustive++) {
        search_opts o = {.top_k = 5, .jobs = cores > 0 ? (int)cores : 1, .exhaustive = exhaustive};
        search_result r;
        if (search_run(&wf, &m, &o, &r, &e) != WT_OK) {
            fprintf(stderr, "bench: %s\n", e.msg);
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

    /* A 1024 x 1024 mesh of default dies, every unit busy. */
    wafer big;
    if (wafer_init(&big, 1024, 1024, 1, 1, &e) != WT_OK) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    strategy bs = parsed("DP1024,TATP1024");
    enum { NB = 5 };
    double tb[NB];
    if (time_evals(&big, &m, &bs, 0, NB, tb) != WT_OK)
        return 1;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("bench eval_1024x1024_DP1024_TATP1024 %.1f ms median min=%.1f n=%d links=%zu peak_rss=%.0f MB "
           "target<250 %s\n",
           tb[NB / 2] * 1e3, tb[0] * 1e3, NB, wafer_nlinks(&big), ru.ru_maxrss / 1024.0, mark(tb[NB / 2], 0.25));
    wafer_free(&big);
    return 0;
}
