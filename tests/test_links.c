/* The walks over every loaded link of a wafer (engine/sim_links.c, the
 * busiest links of the patterns in net/flow.c, the busiest windows in
 * sim_window.c, the link classes in net/net_bw.c): split into ranges of
 * links on the cores at once, they must give, to the bit, what one walk of
 * every link in slot order gives. Each figure is checked here against that
 * walk, written out plainly, on wse3 with its own strategy (every link
 * loaded, the links classed for the fluid model's timing) and on a
 * 512 x 512 mesh timed by the closed form (no classes: the bytes summed
 * from the patterns). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layout.h"
#include "net.h"
#include "par.h"
#include "sim_int.h"

/* The loaded links are the patterns' links, ascending, each once. */
static void check_loaded(const sim_result *r, size_t nl)
{
    unsigned char *mark = calloc(nl, 1);
    assert_non_null(mark);
    for (int p = 0; p < r->npatterns; p++)
        for (int k = 0; k < r->patterns[p].nnz; k++)
            mark[r->patterns[p].link[k]] = 1;
    int n = 0;
    for (size_t l = 0; l < nl; l++)
        if (mark[l]) {
            assert_true(n < r->nloaded);
            assert_int_equal(r->loaded[n++], (int)l);
        }
    assert_int_equal(n, r->nloaded);
    free(mark);
}

/* Each link's bytes summed over the patterns in their order, the mean
 * utilisation over the usable links summed in slot order, the largest. */
static void check_bytes(const sim_result *r, size_t nl)
{
    double *bytes = calloc(nl, sizeof *bytes);
    assert_non_null(bytes);
    for (int p = 0; p < r->npatterns; p++)
        for (int k = 0; k < r->patterns[p].nnz; k++)
            bytes[r->patterns[p].link[k]] += r->patterns[p].step_coef * r->patterns[p].load[k];
    double sum = 0, max = 0, per_step = 1 / r->step_time_s;
    int usable = 0;
    for (size_t l = 0; l < nl; l++) {
        assert_true(r->link_bytes[l] == bytes[l]);
        double inv = sim_link_inv_bw(r->wf, l);
        usable += inv > 0;
        double u = inv > 0 ? bytes[l] * inv * per_step : 0;
        sum += u;
        max = u > max ? u : max;
    }
    assert_true(usable > 0);
    assert_true(r->mean_link_util == sum / usable);
    assert_true(r->max_link_util == max);
    assert_true(max > 0);
    free(bytes);
}

/* Each pattern's busiest link: the first of the largest load / bandwidth. */
static void check_busiest(const sim_result *r)
{
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        double s = 0;
        int at = -1;
        for (int k = 0; k < pat->nnz; k++) {
            double b = pat->load[k] * sim_link_inv_bw(r->wf, (size_t)pat->link[k]);
            if (k == 0 || b > s) {
                s = b;
                at = pat->link[k];
            }
        }
        assert_true(pat->max_busy == s);
        assert_int_equal(pat->busiest, at);
    }
}

/* The busiest windows: a few links' own sweeps, and over every link the
 * count at or above SIM_HOT and the largest. */
static void check_windows(const sim_result *r, size_t nl)
{
    int hot = 0;
    double max = 0;
    for (size_t l = 0; l < nl; l++) {
        hot += r->link_peak[l] >= SIM_HOT;
        max = r->link_peak[l] > max ? r->link_peak[l] : max;
    }
    for (size_t l = 0, i = 0; l < nl; l++) { /* 0 at the links no pattern loads */
        int is_loaded = i < (size_t)r->nloaded && r->loaded[i] == (int)l;
        i += is_loaded;
        if (!is_loaded) {
            assert_true(r->link_peak[l] == 0);
            assert_true(!r->reps || r->reps->cl.of[l] == 0);
        }
    }
    assert_int_equal(r->hot_links, hot);
    assert_true(r->max_peak_util == max);
    assert_true(max > 0);
    wt_err e;
    for (int i = 0; i < r->nloaded; i += r->nloaded / 7 + 1) {
        double peak;
        assert_int_equal(sim_link_windows_at(r, SIM_WINDOW_S, 0, &r->loaded[i], 1, &peak, NULL, &e), WT_OK);
        assert_true(peak == r->link_peak[r->loaded[i]]);
    }
}

/* The slots part `part` of nparts zeroes of 16 (-1 elsewhere) are exactly
 * [lo, hi). */
static void check_zeroed(const sim_result *r, int part, int nparts, int lo, int hi)
{
    int a[16];
    memset(a, 0xff, sizeof a);
    sim_zero_slots(r, a, sizeof *a, part, nparts);
    for (int l = 0; l < 16; l++)
        assert_int_equal(a[l], l >= lo && l < hi ? 0 : -1);
}

/* With half the links loaded or more, the parts of a split of the loaded
 * links zero the slots from their first loaded link to the next part's,
 * the first from 0, the last to the end: each slot once, an empty part
 * none (but the first, before any link). With fewer, the array comes from
 * calloc and the parts leave it. */
static void test_zero_slots(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 2, 2, 1, 1, NULL), WT_OK);
    assert_int_equal(wafer_nlinks(&wf), 16);
    int loaded[] = {3, 4, 5, 7, 9, 10, 12, 15};
    sim_result r = {.wf = &wf, .loaded = loaded, .nloaded = 8};
    check_zeroed(&r, 0, 1, 0, 16);
    check_zeroed(&r, 0, 3, 0, 5);   /* loaded[0, 2) */
    check_zeroed(&r, 1, 3, 5, 10);  /* loaded[2, 5) */
    check_zeroed(&r, 2, 3, 10, 16); /* loaded[5, 8) */
    check_zeroed(&r, 0, 10, 0, 3);  /* empty */
    check_zeroed(&r, 1, 10, 3, 4);  /* loaded[0, 1) */
    check_zeroed(&r, 5, 10, 9, 9);  /* empty */
    check_zeroed(&r, 6, 10, 9, 10); /* loaded[4, 5) */
    check_zeroed(&r, 9, 10, 15, 16);
    r.nloaded = 7; /* 7 of 16: from calloc */
    check_zeroed(&r, 0, 1, 0, 0);
    int *a = sim_links_alloc(&r, sizeof *a);
    assert_non_null(a);
    for (int l = 0; l < 16; l++)
        assert_int_equal(a[l], 0);
    free(a);
    wafer_free(&wf);
}

static void check_eval(const wafer *wf, const char *net, const model *m, const char *text, int classed)
{
    strategy s;
    strategy_defaults(&s);
    wt_err e;
    assert_int_equal(strategy_spec(text, &s, &e), WT_OK);
    sim_result r;
    assert_int_equal(sim_eval_net(&r, wf, net_model_find(net), m, &s, &e), WT_OK);
    /* a refused window leaves no peaks, rather than an array never filled */
    assert_int_equal(sim_window_figures(&r, -1, &e), WT_EINPUT);
    assert_string_equal(e.msg, "window -1 s: must be a positive time");
    assert_null(r.link_peak);
    assert_int_equal(sim_window_figures(&r, SIM_WINDOW_S, &e), WT_OK);
    size_t nl = wafer_nlinks(wf);
    assert_true(sim_entries(&r) >= 2 * SIM_CLASSES_MIN); /* large enough to split (par.h) */
    assert_int_equal(r.reps != NULL, classed);
    check_loaded(&r, nl);
    check_bytes(&r, nl);
    check_busiest(&r);
    check_windows(&r, nl);
    sim_free(&r);
}

static void test_wse3_classed(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    model m;
    assert_int_equal(layout_load("layouts/wse3.yaml", &wf, &e), WT_OK);
    assert_int_equal(model_preset("gpt3-6.7b", &m), WT_OK);
    m.microbatch = wf.strategy_microbatch ? wf.strategy_microbatch : m.microbatch;
    check_eval(&wf, "fluid", &m, wf.strategy, 1);
    wafer_free(&wf);
}

static void test_mesh_by_patterns(void **state)
{
    (void)state;
    wafer wf;
    model m;
    assert_int_equal(wafer_init(&wf, 512, 512, 1, 1, NULL), WT_OK);
    assert_int_equal(model_preset("gpt3-6.7b", &m), WT_OK);
    check_eval(&wf, "bottleneck", &m, "DP512,TATP512", 0);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_slots),
        cmocka_unit_test(test_wse3_classed),
        cmocka_unit_test(test_mesh_by_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
