/* engine/flit_phase.c: a phase's passes at flit level move exactly the
 * bytes a hop-by-hop walk of their flows gives (scaled as documented), never
 * faster than their busiest links allow (balanced passes: half of each
 * flow each way); the window of a large mesh holds the busiest link;
 * failed units and phases without traffic are refused with one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "dor_walk.h"
#include "eval_small.h"
#include "flit_phase.h"
#include "traffic.h"

/* The bytes each link of an 8x8 wafer carries in phase p of r at flit
 * level, from the flows and the scaling rule of flit_phase.h. */
static void expected_bytes(const sim_result *r, int p, double *want)
{
    const sim_phase *ph = &r->phases[p];
    size_t nl = wafer_nlinks(r->wf);
    double *load = malloc(nl * sizeof *load);
    assert_non_null(load);
    memset(want, 0, nl * sizeof *want);
    for (int t = 0; t < ph->nterms; t++) {
        route_flow *f;
        size_t n;
        wt_err e;
        assert_int_equal(traffic_flows(r, ph->terms[t].pattern, &f, &n, &e), WT_OK);
        /* balanced: half of each flow X first, half Y first */
        route_mode mode = r->patterns[ph->terms[t].pattern].mode;
        int halves = mode == ROUTE_BALANCED ? 2 : 1;
        memset(load, 0, nl * sizeof *load);
        double busiest = 0;
        for (size_t i = 0; i < n; i++)
            for (int h = 0; h < halves; h++)
                dor_walk(8, f[i].src, f[i].dst, halves == 2 ? h : mode == ROUTE_YX,
                     f[i].bytes * ph->terms[t].coef / halves, load);
        for (size_t l = 0; l < nl; l++)
            busiest = fmax(busiest, load[l]);
        double fb = r->wf->flit_bytes, scale = fmax(1, busiest / (fb * FLIT_PHASE_LINK_FLITS));
        for (size_t i = 0; i < n; i++)
            for (int h = 0; h < halves; h++) {
                double flits = fmax(1, (double)llround(f[i].bytes * ph->terms[t].coef / halves / (scale * fb)));
                dor_walk(8, f[i].src, f[i].dst, halves == 2 ? h : mode == ROUTE_YX, flits * scale * fb, want);
            }
        free(f);
    }
    free(load);
}

static void test_bytes_and_bounds(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    size_t nl = wafer_nlinks(&wf);
    double *want = malloc(nl * sizeof *want);
    assert_non_null(want);
    int phases_run = 0;
    for (size_t k = 0; k < NSMALL_CASES; k++) {
        sim_result r;
        eval_with(c, &r, small_cases[k][0], small_cases[k][1], small_cases[k][2]);
        for (int p = 0; p < r.nphases; p++) {
            flit_phase_out o;
            wt_err e;
            int rc = flit_phase_run(&r, p, NULL, &o, &e);
            if (rc != WT_OK) {
                /* only a phase without traffic */
                assert_int_equal(rc, WT_EINPUT);
                if (!strstr(e.msg, "moves no bytes"))
                    fail_msg("%s %s: %s", small_cases[k][0], r.phases[p].name, e.msg);
                continue;
            }
            phases_run++;
            assert_true(o.x0 == 0 && o.y0 == 0 && o.w == 8 && o.h == 8);
            assert_int_equal(o.flows_out, 0);
            expected_bytes(&r, p, want);
            for (size_t l = 0; l < nl; l++) {
                if (fabs(o.bytes[l] - want[l]) > 1e-9 * fmax(1, want[l]))
                    fail_msg("%s %s link %zu: %.17g bytes, want %.17g", small_cases[k][0], r.phases[p].name, l,
                             o.bytes[l], want[l]);
                assert_true(o.util[l] >= 0 && o.util[l] <= 1 + 1e-12);
                assert_true(o.buffer_peak[l] <= wf.router.num_vcs * wf.router.vc_buf_size);
                assert_true(o.buffer_mean[l] >= 0 && o.buffer_mean[l] <= o.buffer_peak[l] + 1e-12);
            }
            /* no faster than each pass's busiest link, up to a flit's rounding */
            assert_true(o.time_s >= o.flow_s * (1 - 1.0 / 64));
            assert_true(o.scale >= 1 && o.cycles > 0);
            assert_true(o.time_s >= o.cycles * o.cycle_s * (1 - 1e-12));
            flit_phase_free(&o);
        }
        sim_free(&r);
    }
    assert_true(phases_run > 20);
    free(want);
    sim_ctx_free(c);
    wafer_free(&wf);
}

static void test_window_and_refusals(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 100, 70, 1, 1, NULL), WT_OK);
    wf.peak_flops = 1e14, wf.efficiency = 0.8, wf.link_bw = 1e11, wf.link_lat = 1e-8, wf.sram_bytes = 1e12;
    sim_result r;
    model m = small_model();
    strategy s;
    strategy_defaults(&s);
    wt_err e;
    assert_int_equal(strategy_parse("DP64,TATP100", &s, &e), WT_OK);
    assert_int_equal(strategy_set_option(&s, "placement", "snake", &e), WT_OK);
    if (sim_eval(&r, &wf, &m, &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
    int p = sim_phase_find(&r, "dp.allreduce");
    assert_true(p >= 0);
    flit_phase_out o;
    flit_phase_opts quick = {64, -1, -1, NULL}; /* few flits */
    assert_int_equal(flit_phase_run(&r, p, &quick, &o, &e), WT_OK);
    assert_true(o.w == 64 && o.h == 64);
    int bu = r.phases[p].busiest_link / WAFER_NDIR, bx = bu % 100, by = bu / 100;
    assert_true(bx >= o.x0 && bx < o.x0 + 64 && by >= o.y0 && by < o.y0 + 64);
    assert_true(o.x0 >= 0 && o.x0 + 64 <= 100 && o.y0 >= 0 && o.y0 + 64 <= 70);
    assert_true(o.flows > 0 && o.flows_out > 0);
    flit_phase_free(&o);
    int opt = sim_phase_find(&r, "optimizer");
    assert_int_equal(flit_phase_run(&r, opt, &quick, &o, &e), WT_EINPUT);
    assert_true(strstr(e.msg, "--net flit: optimizer moves no bytes between units of the window") == e.msg);
    /* a corner of one's own: the window from there, or an error when it leaves the mesh */
    flit_phase_opts corner = {64, 36, 6, NULL};
    assert_int_equal(flit_phase_run(&r, p, &corner, &o, &e), WT_OK);
    assert_true(o.x0 == 36 && o.y0 == 6 && o.w == 64 && o.h == 64);
    flit_phase_free(&o);
    corner.x0 = 37;
    assert_int_equal(flit_phase_run(&r, p, &corner, &o, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--flit-window 37,6: a 64x64 window from there leaves the 100x70 mesh");
    sim_free(&r);
    /* a failed unit inside the window */
    assert_int_equal(wafer_fail_unit(&wf, 40, 30, NULL), WT_OK);
    assert_int_equal(strategy_parse("DP64,TATP100", &s, &e), WT_OK);
    assert_int_equal(strategy_set_option(&s, "placement", "snake", &e), WT_OK);
    if (sim_eval(&r, &wf, &m, &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(flit_phase_run(&r, sim_phase_find(&r, "dp.allreduce"), &quick, &o, &e), WT_EINPUT);
    assert_true(strstr(e.msg, "--net flit: unit 40,30 of the window ") == e.msg);
    assert_non_null(strstr(e.msg, "has failed; the flit level routes whole meshes"));
    sim_free(&r);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_and_bounds),
        cmocka_unit_test(test_window_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
