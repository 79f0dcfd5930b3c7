/* engine/calib.c and calib_fit.c: a calibration file's path and its
 * errors; each pattern's class from its flows; a factor multiplies the
 * bandwidth time in both network models exactly as slower links would;
 * and with the factors calibrate measures, every phase of the stock
 * single-wafer layouts' strategies is within 10 % of the flit level
 * (docs/MODEL.md, "Calibration"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "calib_fit.h"
#include "coll.h"
#include "eval_small.h"
#include "flit_phase.h"
#include "layout.h"
#include "model.h"
#include "net.h"
#include "traffic.h"

static void test_path_of(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(calib_path_of("dir/wafer.yaml", out, sizeof out), 0);
    assert_string_equal(out, "dir/wafer.calib.yaml");
    assert_int_equal(calib_path_of("my.yml", out, sizeof out), 0);
    assert_string_equal(out, "my.calib.yaml");
    assert_int_equal(calib_path_of("noext", out, sizeof out), 0);
    assert_string_equal(out, "noext.calib.yaml");
    assert_int_equal(calib_path_of(".yaml", out, sizeof out), 0); /* no name left to strip it from */
    assert_string_equal(out, ".yaml.calib.yaml");
    assert_int_equal(calib_path_of("a.yaml", out, 12), -1);
}

/* Writes text to a fresh file; its path into path[64]. */
static void temp_file(char *path, const char *text)
{
    strcpy(path, "/tmp/wt_calib_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* calib_load of text for layout "default": its return, the message. */
static int load_text(const char *text, calib *c, wt_err *e, char *path)
{
    temp_file(path, text);
    calib_default(c);
    int rc = calib_load(path, "default", c, e);
    unlink(path);
    return rc;
}

static void test_load(void **state)
{
    (void)state;
    calib c;
    wt_err e;
    char path[64], want[160];
    calib_default(&c);
    assert_int_equal(calib_load("/nonexistent/x.calib.yaml", "default", &c, &e), WT_OK);
    assert_string_equal(c.path, "");
    assert_int_equal(load_text("layout: default\nfactors:\n  turns: 1.5\n  lines: 1\n", &c, &e, path), WT_OK);
    assert_string_equal(c.path, path);
    assert_true(c.factor[CALIB_TURNS] == 1.5 && c.factor[CALIB_LINES] == 1 && c.factor[CALIB_NEIGHBOUR] == 1);
    /* every refusal is one line at the node */
    assert_int_equal(load_text("layout: default\nfactors:\n  turns: 0.9\n", &c, &e, path), WT_EINPUT);
    snprintf(want, sizeof want, "%s:3:10: factors: turns: expected a number from 1 to 100, found '0.9'", path);
    assert_string_equal(e.msg, want);
    assert_string_equal(c.path, ""); /* nothing taken from a bad file */
    assert_int_equal(load_text("layout: default\nfactors:\n  rings: 1.1\n", &c, &e, path), WT_EINPUT);
    snprintf(want, sizeof want, "%s:3:3: factors: unknown key 'rings'", path);
    assert_true(strstr(e.msg, want) == e.msg);
    assert_int_equal(load_text("layout: wse2\nfactors:\n  turns: 1.1\n", &c, &e, path), WT_EINPUT);
    snprintf(want, sizeof want,
             "%s:1:9: layout: the calibration of layout 'wse2', not of 'default': run wafertop calibrate again", path);
    assert_string_equal(e.msg, want);
    assert_int_equal(load_text("layout: default\n", &c, &e, path), WT_EINPUT);
    assert_non_null(strstr(e.msg, "factors"));
    assert_int_equal(load_text("layout: default\nfactors:\n  store: fast\n", &c, &e, path), WT_EINPUT);
    assert_non_null(strstr(e.msg, "found 'fast'"));
}

/* Pattern p's class from its flows, walked here: a pipeline's shift and
 * the store by kind; a busiest link between wafers slower than the others
 * edges; half the flows or more going along x and y turns; else one of
 * several hops lines, else neighbour. */
static int class_of(const sim_result *r, int p)
{
    const sim_pattern *pat = &r->patterns[p];
    const wafer *wf = r->wf;
    if (pat->kind == CG_PP || pat->kind == CG_STORE)
        return pat->kind == CG_PP ? CALIB_SHIFT : CALIB_STORE;
    int u = pat->busiest / WAFER_NDIR, d = pat->busiest % WAFER_NDIR;
    if (pat->busiest >= 0 && wafer_link_crosses(wf, u, d) && wafer_link_bw(wf, u, d) < wf->link_bw)
        return CALIB_EDGES;
    route_flow *f;
    size_t n, turning = 0;
    wt_err e;
    assert_int_equal(traffic_flows(r, p, &f, &n, &e), WT_OK);
    int hops = 0;
    for (size_t i = 0; i < n; i++) {
        int dx = abs(f[i].src % wf->w - f[i].dst % wf->w), dy = abs(f[i].src / wf->w - f[i].dst / wf->w);
        turning += dx && dy;
        hops = dx + dy > hops ? dx + dy : hops;
    }
    free(f);
    return n > 0 && 2 * turning >= n ? CALIB_TURNS : hops > 1 ? CALIB_LINES : CALIB_NEIGHBOUR;
}

/* Each pattern's class by its flows (class_of), on one wafer: every class
 * but edges and the store's. */
static void test_classes(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    int seen[CALIB_NCLASS] = {0};
    for (size_t k = 0; k <= NSMALL_CASES; k++) {
        const char *const *sc = k < NSMALL_CASES ? small_cases[k] : NULL;
        sim_result r;
        if (sc) {
            eval_with(c, &r, sc[0], sc[1], sc[2]);
        } else { /* and the outer ring between 4x4 subgroups, whose flows turn */
            model m = small_model();
            strategy s;
            strategy_defaults(&s);
            wt_err e;
            assert_int_equal(strategy_spec("DP64;collective=hier;subgroup=4x4", &s, &e), WT_OK);
            assert_int_equal(sim_eval_ctx(c, &r, &m, &s, &e), WT_OK);
        }
        for (int p = 0; p < r.npatterns; p++) {
            const sim_pattern *pat = &r.patterns[p];
            int want = class_of(&r, p);
            if (pat->cls != want)
                fail_msg("%s: %s %s is %s, want %s", sc ? sc[0] : "DP64 hier", coll_kind_name(pat->kind),
                         coll_pass_name(pat->pass), calib_class_name(pat->cls), calib_class_name(want));
            assert_true(pat->calib == 1);
            seen[want]++;
        }
        sim_free(&r);
    }
    for (int k = 0; k < CALIB_STORE; k++)
        if (!seen[k] && k != CALIB_EDGES)
            fail_msg("no pattern of class %s", calib_class_name(k));
    sim_ctx_free(c);
    wafer_free(&wf);
}

/* A layout's recommended strategy for the default model, resolved: what
 * commands run on it without --strategy. */
static void layout_strategy(const wafer *wf, model *m, strategy *s)
{
    wt_err e;
    assert_int_equal(model_preset("gpt3-6.7b", m), WT_OK);
    m->microbatch = wf->strategy_microbatch ? wf->strategy_microbatch : m->microbatch;
    strategy_defaults(s);
    assert_int_equal(strategy_spec(wf->strategy, s, &e), WT_OK);
    assert_int_equal(strategy_resolve(s, m, wf, &e), WT_OK);
}

/* A factor of 2 on every class takes each model exactly as long as links
 * of half the bandwidth: the bandwidth part doubles, the latency does not. */
static void test_factor_is_bandwidth(void **state)
{
    (void)state;
    const char *nets[] = {"bottleneck", "fluid"};
    for (int k = 0; k < (int)NSMALL_CASES; k++)
        for (int n = 0; n < 2; n++) {
            wafer fast, slow;
            small_wafer(&fast);
            small_wafer(&slow);
            for (int c = 0; c < CALIB_NCLASS; c++)
                fast.calib.factor[c] = 2;
            slow.link_bw /= 2;
            slow.iw_bw /= 2;
            sim_ctx *cf, *cs;
            assert_int_equal(sim_ctx_new(&cf, &fast, NULL), WT_OK);
            assert_int_equal(sim_ctx_new(&cs, &slow, NULL), WT_OK);
            sim_ctx_set_net(cf, net_model_find(nets[n]));
            sim_ctx_set_net(cs, net_model_find(nets[n]));
            sim_result a, b;
            eval_with(cf, &a, small_cases[k][0], small_cases[k][1], small_cases[k][2]);
            eval_with(cs, &b, small_cases[k][0], small_cases[k][1], small_cases[k][2]);
            if (fabs(a.step_time_s - b.step_time_s) > 1e-9 * b.step_time_s)
                fail_msg("%s %s: step %.17g s with factor 2, %.17g s at half the bandwidth", nets[n],
                         small_cases[k][0], a.step_time_s, b.step_time_s);
            for (int i = 0; i < a.nphases; i++)
                assert_true(fabs(a.phases[i].comm_s - b.phases[i].comm_s) <= 1e-9 * b.phases[i].comm_s);
            sim_free(&a);
            sim_free(&b);
            sim_ctx_free(cf);
            sim_ctx_free(cs);
            wafer_free(&fast);
            wafer_free(&slow);
        }
    /* and the stock layouts' own: weight streaming (the store's rate stays), wafers */
    const char *stock[] = {"layouts/dojo-tile.yaml", "layouts/multiwafer-4x4.yaml"};
    for (int k = 0; k < 2; k++)
        for (int n = 0; n < 2; n++) {
            wafer fast, slow;
            wt_err e;
            model m;
            assert_int_equal(layout_load(stock[k], &fast, &e), WT_OK);
            assert_int_equal(layout_load(stock[k], &slow, &e), WT_OK);
            for (int c = 0; c < CALIB_NCLASS; c++)
                fast.calib.factor[c] = 2;
            slow.link_bw /= 2;
            slow.iw_bw /= 2;
            strategy s;
            layout_strategy(&fast, &m, &s);
            sim_result a, b;
            assert_int_equal(sim_eval_net(&a, &fast, net_model_find(nets[n]), &m, &s, &e), WT_OK);
            assert_int_equal(sim_eval_net(&b, &slow, net_model_find(nets[n]), &m, &s, &e), WT_OK);
            if (fabs(a.step_time_s - b.step_time_s) > 1e-9 * b.step_time_s)
                fail_msg("%s %s: step %.17g s with factor 2, %.17g s at half the bandwidth", nets[n], stock[k],
                         a.step_time_s, b.step_time_s);
            sim_free(&a);
            sim_free(&b);
            wafer_free(&fast);
            wafer_free(&slow);
        }
}

/* The phases of r with traffic, each once per distinct list of patterns
 * and coefficient ratios (those run alike at flit level). */
static int same_passes(const sim_phase *a, const sim_phase *b)
{
    if (a->nterms != b->nterms)
        return 0;
    for (int t = 0; t < a->nterms; t++)
        if (a->terms[t].pattern != b->terms[t].pattern ||
            fabs(a->terms[t].coef * b->terms[0].coef - b->terms[t].coef * a->terms[0].coef) >
                1e-12 * a->terms[t].coef * b->terms[0].coef)
            return 0;
    return 1;
}

/* Eval's bandwidth part of phase p (its patterns' calibrated busy times). */
static double eval_bw_s(const sim_result *r, int p)
{
    const sim_phase *ph = &r->phases[p];
    double s = 0;
    for (int t = 0; t < ph->nterms; t++) {
        const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
        s += ph->terms[t].coef * pat->calib * pat->max_busy;
    }
    return s;
}

/* The largest error of the phases of `before` (uncalibrated) and `after`
 * (the same step calibrated) against the flit level: eval's bandwidth part
 * over the flit level's time, less 1, into err[2]; the worst after's in
 * worst[n]. */
static void worst_errors(const sim_result *before, const sim_result *after, const char *layout, double err[2],
                         char *worst, size_t n)
{
    err[0] = err[1] = 0;
    for (int p = 0; p < after->nphases; p++) {
        const sim_phase *ph = &after->phases[p];
        int again = ph->nterms == 0;
        for (int q = 0; q < p && !again; q++)
            again = same_passes(&after->phases[q], ph);
        if (again)
            continue;
        double eval_s[2] = {eval_bw_s(before, p), eval_bw_s(after, p)};
        flit_phase_out o;
        wt_err e;
        if (flit_phase_run(after, p, NULL, &o, &e) != WT_OK)
            fail_msg("%s %s: %s", layout, ph->name, e.msg);
        /* the whole mesh: the flit level ran eval's flows */
        assert_int_equal(o.flows_out, 0);
        if (fabs(o.flow_s - eval_s[0]) > 1e-9 * eval_s[0] || fabs(o.calib_s - eval_s[1]) > 1e-9 * eval_s[1])
            fail_msg("%s %s: the flit level's bounds %.17g and %.17g s, eval's %.17g and %.17g s", layout, ph->name,
                     o.flow_s, o.calib_s, eval_s[0], eval_s[1]);
        for (int k = 0; k < 2; k++) {
            double x = fabs(eval_s[k] / o.time_s - 1);
            if (x > err[k] && k == 1)
                snprintf(worst, n, "%s %s: eval %.4g s, flit level %.4g s", layout, ph->name, eval_s[k], o.time_s);
            err[k] = x > err[k] ? x : err[k];
        }
        flit_phase_free(&o);
    }
}

static void test_stock_within_ten_percent(void **state)
{
    (void)state;
    /* and four wafers whose edges run a flit every 4 cycles */
    const char *layouts[] = {"layouts/default.yaml", "layouts/dojo-tile.yaml", "layouts/wsc-6x9.yaml",
                             "tests/fixtures/layouts/four-wafers.yaml"};
    for (int i = 0; i < 4; i++) {
        const char *path = layouts[i];
        char worst[160] = "";
        wafer wf;
        wt_err e;
        model m;
        assert_int_equal(layout_load(path, &wf, &e), WT_OK);
        assert_string_equal(wf.calib.path, ""); /* they come uncalibrated */
        strategy s;
        layout_strategy(&wf, &m, &s);
        sim_result before, after;
        assert_int_equal(sim_eval(&before, &wf, &m, &s, &e), WT_OK);
        int edges = 0;
        for (int p = 0; p < before.npatterns; p++) {
            assert_int_equal(before.patterns[p].cls, class_of(&before, p));
            edges += before.patterns[p].cls == CALIB_EDGES;
        }
        assert_int_equal(edges > 0, wf.wafers_x > 1); /* the four wafers' outer DP ring */
        calib_fit fit;
        assert_int_equal(calib_fit_run(&before, &fit, NULL, NULL, &e), WT_OK);
        assert_true(fit.nrows > 0);
        memcpy(wf.calib.factor, fit.factor, sizeof fit.factor);
        calib_fit_free(&fit);
        assert_int_equal(sim_eval(&after, &wf, &m, &s, &e), WT_OK);
        double err[2];
        worst_errors(&before, &after, layouts[i], err, worst, sizeof worst);
        if (!(err[1] < 0.10))
            fail_msg("calibrated, %s (%.1f %% off; %.1f %% before)", worst, 100 * err[1], 100 * err[0]);
        assert_true(err[1] <= err[0] + 1e-12);
        /* the default's DP all-reduce crosses in the routers: uncalibrated, 16 % off */
        if (i == 0)
            assert_true(err[0] > 0.10);
        sim_free(&before);
        sim_free(&after);
        wafer_free(&wf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_of),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_factor_is_bandwidth),
        cmocka_unit_test(test_stock_within_ten_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
