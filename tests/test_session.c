/* Sessions (engine/session.h) and run-time tuning (waves, routing,
 * subgroups, DP priority), faults and repair, seeded variation, timelines,
 * the network model every step is timed with. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layout.h"
#include "net.h"
#include "session.h"

static model small(void)
{
    model m = {"small", 4, 1024, 16, 16, 4096, MODEL_GELU, 1000, 1, 512, 256, 1};
    return m;
}

static void default_wafer(wafer *wf)
{
    assert_int_equal(layout_load("layouts/default.yaml", wf, NULL), WT_OK);
}

static strategy parsed(const char *text, place_kind pl)
{
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse(text, &s, NULL), WT_OK);
    s.placement = pl;
    return s;
}

/* A session of text on placement pl over the layout at path (NULL: default). */
/* The network model start() opens sessions with: NULL for the default. */
static const net_model *start_net;

static void start(session *S, wafer *wf, const char *path, const model *m, const char *text, place_kind pl)
{
    if (path)
        assert_int_equal(layout_load(path, wf, NULL), WT_OK);
    else
        default_wafer(wf);
    strategy s = parsed(text, pl);
    session_opts o = {0};
    o.net = start_net;
    assert_int_equal(session_new(S, wf, m, &s, &o, NULL), WT_OK);
}

static const sim_result *step(session *S)
{
    const sim_result *r;
    wt_err e;
    if (session_step(S, &r, &e) != WT_OK)
        fail_msg("session_step: %s", e.msg);
    return r;
}

/* The busiest link of a phase in one occurrence, bytes. */
static double phase_peak(const sim_result *r, const char *name)
{
    int p = sim_phase_find(r, name);
    assert_true(p >= 0);
    size_t nl = wafer_nlinks(r->wf);
    double *b = malloc(nl * sizeof *b), peak = 0;
    sim_phase_link_bytes(r, p, b);
    for (size_t l = 0; l < nl; l++)
        peak = fmax(peak, b[l] / r->phases[p].count);
    free(b);
    return peak;
}

/* Waves: each wave routes every other group, so the phase's total bytes stay,
 * its per-wave peak drops, and its communication is the waves' sum. TP
 * groups of 12 placed row by row straddle rows and share links. */
static void test_waves(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = {"tp12", 4, 768, 12, 12, 3072, MODEL_GELU, 1000, 1, 384, 84, 1};
    start(&S, &wf, NULL, &m, "TP12", PLACE_LINEAR);
    const char *name = "fwd.attn.proj";
    const sim_result *r = step(&S);
    int p = sim_phase_find(r, name);
    double comm1 = r->phases[p].comm_s, time1 = r->phases[p].time_s, peak1 = phase_peak(r, name);
    double total1 = 0;
    for (size_t l = 0; l < wafer_nlinks(&wf); l++)
        total1 += r->link_bytes[l];
    assert_int_equal(session_delay(&S, name, 2, NULL), WT_OK);
    r = step(&S);
    const sim_phase *ph = &r->phases[p];
    /* two waves of the same passes, one after the other */
    assert_int_equal(ph->nterms % 2, 0);
    double sum = 0, wave_peak = 0;
    for (int t = 0; t < ph->nterms; t++) {
        const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
        assert_int_equal(pat->nwaves, 2);
        sum += ph->terms[t].coef * pat->max_busy + ph->terms[t].steps * (wf.link_overhead + pat->max_lat);
        for (int k = 0; k < pat->nnz; k++)
            wave_peak = fmax(wave_peak, ph->terms[t].coef * pat->load[k]);
    }
    assert_true(fabs(ph->comm_s - sum) <= 1e-12 * sum);
    assert_true(ph->comm_s > comm1 && ph->time_s > time1);
    assert_true(wave_peak < peak1);
    double total2 = 0;
    for (size_t l = 0; l < wafer_nlinks(&wf); l++)
        total2 += r->link_bytes[l];
    assert_true(fabs(total2 - total1) <= 1e-9 * total1); /* the same bytes, later */
    wt_err e;
    assert_int_equal(session_delay(&S, name, 9, &e), WT_EINPUT);
    assert_int_equal(session_delay(&S, "nope", 2, &e), WT_EINPUT);
    assert_non_null(strstr(e.msg, "no phase 'nope'"));
    session_free(&S);
    wafer_free(&wf);
}

/* The heaviest load on a link that crosses between 8x8 windows. */
static double crossing_peak(const sim_result *r, const char *name)
{
    int p = sim_phase_find(r, name);
    size_t nl = wafer_nlinks(r->wf);
    double *b = malloc(nl * sizeof *b), peak = 0;
    sim_phase_link_bytes(r, p, b);
    for (size_t l = 0; l < nl; l++) {
        int u = (int)(l / 4), v = wafer_neighbor(r->wf, u, (int)(l % 4));
        if (v >= 0 && (wafer_x(r->wf, u) / 8 != wafer_x(r->wf, v) / 8 || wafer_y(r->wf, u) / 8 != wafer_y(r->wf, v) / 8))
            peak = fmax(peak, b[l]);
    }
    free(b);
    return peak;
}

/* A 16x16 DP group in rank order: 8x8 subgroups take the traffic off the
 * long links between the quadrants, and the step gets faster. */
static void test_subgroups(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = small();
    start(&S, &wf, NULL, &m, "DP256", PLACE_LINEAR);
    const sim_result *r = step(&S);
    double crossing = crossing_peak(r, "dp.allreduce"), t0 = r->step_time_s;
    assert_int_equal(session_set_subgroup(&S, 8, 8, NULL), WT_OK);
    r = step(&S);
    /* only the outer ring, M/64 of the traffic, crosses now */
    assert_true(crossing_peak(r, "dp.allreduce") < crossing / 10);
    assert_true(r->step_time_s < 0.5 * t0);
    int p = sim_phase_find(r, "dp.allreduce");
    assert_int_equal(r->patterns[r->phases[p].terms[0].pattern].pass, PASS_INNER);
    /* a subgroup as large as an int is the whole mesh (its window
     * arithmetic once overflowed) */
    assert_int_equal(session_set_subgroup(&S, 16, 16, NULL), WT_OK);
    double whole = step(&S)->step_time_s;
    assert_int_equal(session_set_subgroup(&S, INT_MAX, INT_MAX, NULL), WT_OK);
    assert_true(step(&S)->step_time_s == whole);
    session_free(&S);
    wafer_free(&wf);
}

/* Routing per phase, and back. */
static void test_routing(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = small();
    start(&S, &wf, NULL, &m, "DP64,TATP4", PLACE_LINEAR);
    step(&S);
    assert_int_equal(session_set_routing(&S, "dp.allreduce", ROUTE_YX, NULL), WT_OK);
    const sim_result *r = step(&S);
    int p = sim_phase_find(r, "dp.allreduce"), q = sim_phase_find(r, "fwd.attn.qkv");
    assert_int_equal(r->patterns[r->phases[p].terms[0].pattern].mode, ROUTE_YX);
    assert_int_equal(r->patterns[r->phases[q].terms[0].pattern].mode, ROUTE_XY);
    assert_int_equal(session_set_routing(&S, NULL, ROUTE_BALANCED, NULL), WT_OK);
    r = step(&S);
    assert_int_equal(r->patterns[r->phases[p].terms[0].pattern].mode, ROUTE_BALANCED);
    char log[SESSION_LOG];
    assert_string_equal(session_take_log(&S, log, sizeof log), "routing dp.allreduce yx; routing all balanced");
    assert_string_equal(session_take_log(&S, log, sizeof log), "");
    session_free(&S);
    wafer_free(&wf);
}

/* Tuning names a phase of the setup the next step runs: not one of the last
 * step's after a strategy change, and no typo before the first step or after
 * a fault (each once took a tuning slot for good, and the slots ran out). */
static void test_tuning_names(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = small();
    start(&S, &wf, NULL, &m, "DP64,TATP4", PLACE_LINEAR);
    wt_err e;
    for (int i = 0; i < SIM_MAX_PHASES; i++)
        assert_int_equal(session_delay(&S, "typo", 2, &e), WT_EINPUT);
    assert_non_null(strstr(e.msg, "no phase 'typo' (phases: fwd.attn.qkv,"));
    step(&S);
    strategy piped = parsed("DP8,PP4,TATP4", PLACE_LINEAR);
    assert_int_equal(session_set_strategy(&S, &piped, NULL), WT_OK);
    assert_int_equal(session_delay(&S, "pp.p2p", 2, NULL), WT_OK);
    assert_int_equal(session_fail_unit(&S, 0, 0, NULL), WT_OK);
    assert_int_equal(session_set_routing(&S, "typo", ROUTE_YX, &e), WT_EINPUT);
    assert_int_equal(session_set_routing(&S, "dp.allreduce", ROUTE_YX, NULL), WT_OK);
    assert_int_equal(S.tune.nphases, 2);
    const sim_result *r = step(&S);
    assert_int_equal(r->patterns[r->phases[sim_phase_find(r, "dp.allreduce")].terms[0].pattern].mode, ROUTE_YX);
    session_free(&S);
    wafer_free(&wf);
}

/* A dead unit: placements that skip it remap; tiles that need every unit
 * say why not; repair restores the original figures exactly. */
static void test_faults_and_repair(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = small();
    start(&S, &wf, NULL, &m, "DP64,TATP4", PLACE_TILES);
    strategy s = parsed("DP64,TATP4", PLACE_TILES);
    const sim_result *r = step(&S);
    double t0 = r->step_time_s;
    size_t nl = wafer_nlinks(&wf);
    double *bytes0 = malloc(nl * sizeof *bytes0);
    memcpy(bytes0, r->link_bytes, nl * sizeof *bytes0);
    wt_err e;
    assert_int_equal(session_fail_unit(&S, 5, 5, NULL), WT_OK);
    assert_int_equal(session_step(&S, &r, &e), WT_EINPUT); /* 256 ranks, 255 live units */
    assert_non_null(strstr(e.msg, "needs 256 units but the layout has 255 live units"));
    strategy fewer = parsed("DP32,TATP4", PLACE_LINEAR);
    assert_int_equal(session_set_strategy(&S, &fewer, NULL), WT_OK);
    r = step(&S);
    assert_int_equal(r->plan.rank[wafer_unit(&wf, 5, 5)], -1); /* moved off the dead unit */
    assert_int_equal(session_fail_link(&S, 0, 0, WAFER_E, NULL), WT_OK);
    r = step(&S);
    assert_true(r->link_bytes[0 * 4 + WAFER_E] == 0);
    assert_int_equal(session_set_strategy(&S, &s, NULL), WT_EINPUT); /* still 255 live */
    assert_int_equal(session_repair(&S, NULL), WT_OK);
    assert_int_equal(session_set_strategy(&S, &s, NULL), WT_OK);
    r = step(&S);
    assert_true(r->step_time_s == t0);
    assert_memory_equal(r->link_bytes, bytes0, nl * sizeof *bytes0);
    char log[SESSION_LOG];
    assert_string_equal(session_take_log(&S, log, sizeof log),
                        "fail unit 5,5; strategy DP32,TATP4; fail link 0,0,E; repair; strategy DP64,TATP4");
    free(bytes0);
    session_free(&S);
    wafer_free(&wf);
}

/* The step time of a fresh session of the setup now (the brute-force
 * reference: what `wafertop eval` gives for the same flags). */
static double fresh_step(const session *S)
{
    session F;
    session_opts o = {0};
    o.net = start_net;
    assert_int_equal(session_new(&F, &S->wf, &S->m, &S->s, &o, NULL), WT_OK);
    for (int i = 0; i < S->tune.nphases; i++) {
        const sim_phase_tune *p = &S->tune.phase[i];
        if (p->waves > 1)
            assert_int_equal(session_delay(&F, p->phase, p->waves, NULL), WT_OK);
        if (p->priority)
            assert_int_equal(session_set_priority(&F, p->phase, p->priority, NULL), WT_OK);
    }
    double t = step(&F)->step_time_s;
    session_free(&F);
    return t;
}

/* A policy's actions (a delay, a fault, a subgroup) undone when it ends,
 * the user's actions meanwhile kept; the changes since opening listed. */
static void test_policy_undo(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = {"tp12", 4, 768, 12, 12, 3072, MODEL_GELU, 1000, 1, 384, 84, 1};
    start(&S, &wf, NULL, &m, "TP12", PLACE_LINEAR);
    double t0 = step(&S)->step_time_s;
    char text[SESSION_LOG];
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 0);
    assert_string_equal(text, "");

    assert_int_equal(session_policy_start(&S, NULL), WT_OK);
    session_set_actor(&S, SESSION_POLICY);
    assert_int_equal(session_delay(&S, "fwd.attn.proj", 2, NULL), WT_OK);
    assert_int_equal(session_fail_link(&S, 3, 3, WAFER_E, NULL), WT_OK);
    session_set_actor(&S, SESSION_USER);
    assert_int_equal(session_fail_unit(&S, 15, 15, NULL), WT_OK); /* the user's: stays */
    double t1 = step(&S)->step_time_s;
    assert_true(t1 > t0); /* two waves take longer */
    assert_int_equal(session_changes(&S, SESSION_SINCE_POLICY, text, sizeof text), 2);
    assert_string_equal(text, "delay fwd.attn.proj 2 waves; fault 3,3,E");
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 3);
    assert_string_equal(text, "delay fwd.attn.proj 2 waves; fault 3,3,E; fault 15,15");

    assert_int_equal(session_policy_end(&S, 0, NULL), WT_OK);
    assert_false(S.marked);
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 1);
    assert_string_equal(text, "fault 15,15");
    assert_true(step(&S)->step_time_s == fresh_step(&S));
    assert_int_equal(S.wf.link_dead[(size_t)wafer_unit(&wf, 3, 3) * WAFER_NDIR + WAFER_E], 0);
    assert_int_equal(S.wf.unit_dead[wafer_unit(&wf, 15, 15)], 1);
    assert_null(sim_tuning_find(&S.tune, "fwd.attn.proj"));
    session_free(&S);
    wafer_free(&wf);
}

/* :keep: the policy's actions so far stay when it ends, later ones go;
 * then reset: back to the setup as opened, its step the fresh one's. */
static void test_keep_and_reset(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = {"tp12", 4, 768, 12, 12, 3072, MODEL_GELU, 1000, 1, 384, 84, 1};
    start(&S, &wf, NULL, &m, "TP12", PLACE_LINEAR);
    assert_int_equal(session_delay(&S, "fwd.attn.qkv", 2, NULL), WT_OK); /* the opening tuning */
    assert_int_equal(session_fail_unit(&S, 0, 15, NULL), WT_OK);
    assert_int_equal(session_mark_opened(&S, NULL), WT_OK);
    double t0 = step(&S)->step_time_s;
    assert_true(t0 == fresh_step(&S));

    assert_int_equal(session_policy_start(&S, NULL), WT_OK);
    session_set_actor(&S, SESSION_POLICY);
    assert_int_equal(session_set_priority(&S, "fwd.attn.proj", 3, NULL), WT_OK);
    assert_int_equal(session_policy_keep(&S, NULL), WT_OK);
    assert_int_equal(session_set_subgroup(&S, 4, 4, NULL), WT_OK);
    session_set_actor(&S, SESSION_USER);
    char text[SESSION_LOG];
    assert_int_equal(session_changes(&S, SESSION_SINCE_POLICY, text, sizeof text), 2);
    assert_string_equal(text, "collective hier; subgroup 4x4");
    assert_int_equal(session_policy_end(&S, 0, NULL), WT_OK);
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 1);
    assert_string_equal(text, "priority fwd.attn.proj 3");
    wt_err e;
    assert_int_equal(session_policy_keep(&S, &e), WT_EINPUT);
    assert_string_equal(e.msg, "keep: no policy is running");

    assert_int_equal(session_repair(&S, NULL), WT_OK);
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 2);
    assert_string_equal(text, "priority fwd.attn.proj 3; repaired 0,15");
    assert_int_equal(session_reset(&S, NULL), WT_OK);
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 0);
    assert_true(step(&S)->step_time_s == t0);
    assert_int_equal(S.wf.unit_dead[wafer_unit(&wf, 0, 15)], 1);
    assert_int_equal(sim_tuning_find(&S.tune, "fwd.attn.qkv")->waves, 2);
    session_free(&S);
    wafer_free(&wf);
}

/* A new strategy from the user drops the old one's tuning and takes the
 * micro-batch given (0: the opening one); a policy's mark follows it. */
static void test_switch(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = small();
    start(&S, &wf, NULL, &m, "DP64,TATP4", PLACE_TILES);
    assert_int_equal(session_policy_start(&S, NULL), WT_OK);
    session_set_actor(&S, SESSION_POLICY);
    assert_int_equal(session_delay(&S, "fwd.attn.qkv", 2, NULL), WT_OK);
    session_set_actor(&S, SESSION_USER);
    strategy s = parsed("DP32,TATP8", PLACE_TILES);
    assert_int_equal(session_switch(&S, &s, 2, NULL), WT_OK);
    char text[SESSION_LOG];
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 2);
    assert_string_equal(text, "micro-batch 2; strategy DP32,TATP8");
    assert_int_equal(session_changes(&S, SESSION_SINCE_POLICY, text, sizeof text), 0);
    assert_int_equal(session_policy_end(&S, 0, NULL), WT_OK); /* the user's switch stays */
    assert_int_equal(S.m.microbatch, 2);
    assert_int_equal(S.tune.nphases, 0);
    assert_true(step(&S)->step_time_s == fresh_step(&S));
    strategy back = parsed("DP64,TATP4", PLACE_TILES);
    assert_int_equal(session_switch(&S, &back, 0, NULL), WT_OK);
    assert_int_equal(session_changes(&S, SESSION_SINCE_OPENED, text, sizeof text), 0);
    assert_int_equal(S.m.microbatch, 1);
    wt_err e;
    strategy big = parsed("DP512", PLACE_TILES);
    assert_int_equal(session_switch(&S, &big, 0, &e), WT_EINPUT);
    assert_int_equal(S.s.dp, 64);
    session_free(&S);
    wafer_free(&wf);
}

/* Jitter and stragglers: the same seed gives the same steps; the step moves
 * with the slowest unit; no variation gives the model's time. */
static void test_variation(void **state)
{
    (void)state;
    wafer wf;
    default_wafer(&wf);
    model m = small();
    strategy s = parsed("DP64,TATP4", PLACE_TILES);
    double t[2][6];
    for (int run = 0; run < 2; run++) {
        session S;
        session_opts o = {.seed = 42, .jitter = 0.1, .straggler = 0.002};
        assert_int_equal(session_new(&S, &wf, &m, &s, &o, NULL), WT_OK);
        for (int i = 0; i < 6; i++)
            t[run][i] = step(&S)->step_time_s;
        session_free(&S);
    }
    assert_memory_equal(t[0], t[1], sizeof t[0]);
    session S;
    session_opts still = {0};
    assert_int_equal(session_new(&S, &wf, &m, &s, &still, NULL), WT_OK);
    const sim_result *r = step(&S);
    double base = r->step_time_s;
    assert_true(r->compute_scale == 1);
    for (int i = 0; i < 6; i++) /* slower, never more than 2 x 1.1 of the compute */
        assert_true(t[0][i] > base && t[0][i] < 2.2 * base);
    /* the timeline covers the step: slots of phases, then the tail */
    assert_true(fabs(r->slots * r->slot_s + r->dp_exposed_s + r->optimizer_s - r->step_time_s) <=
                1e-12 * r->step_time_s);
    assert_int_equal(sim_phase_at(r, 0), r->timeline[0].phase);
    assert_int_equal(sim_phase_at(r, r->step_time_s * (1 - 1e-9)), r->timeline[r->ntimeline - 1].phase);
    assert_int_equal(sim_phase_at(r, r->step_time_s * 1.01), -1);
    session_free(&S);
    wt_err e;
    session_opts bad[] = {{.jitter = 1.5}, {.jitter = NAN}, {.straggler = NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(session_new(&S, &wf, &m, &s, &bad[i], &e), WT_EINPUT);
    wafer_free(&wf);
}

/* Levels per phase: DP first helps when the DP all-reduce and the backward
 * use other links (under the closed form, the default model here); levels
 * clear one by one or all at once; a phase the setup lacks is refused. */
static void test_priority(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = {"wide", 8, 2048, 16, 16, 8192, MODEL_GELU, 1000, 1, 32, 16, 1};
    start_net = net_model_find("bottleneck"); /* the closed form's DP-first overlap */
    start(&S, &wf, "tests/fixtures/layouts/column.yaml", &m, "DP16,TATP4x1", PLACE_TILES);
    start_net = NULL;
    const sim_result *r = step(&S);
    double t0 = r->step_time_s, exposed0 = r->dp_exposed_s;
    assert_true(exposed0 > 0);
    assert_int_equal(session_set_priority(&S, "dp.allreduce", 1, NULL), WT_OK);
    r = step(&S);
    double t1 = r->step_time_s;
    assert_true(t1 < t0 && r->dp_exposed_s < exposed0);
    /* DP first only while its level is above every backward phase's */
    assert_int_equal(session_set_priority(&S, "bwd.mlp.in", 1, NULL), WT_OK);
    assert_true(step(&S)->step_time_s == t0);
    assert_int_equal(session_set_priority(&S, "bwd.mlp.in", -3, NULL), WT_OK);
    assert_true(step(&S)->step_time_s == t1);
    wt_err e;
    assert_int_equal(session_set_priority(&S, "fwd.nosuch", 1, &e), WT_EINPUT);
    assert_non_null(strstr(e.msg, "no phase 'fwd.nosuch' (phases: "));
    assert_int_equal(session_set_priority(&S, "dp.allreduce", 0, NULL), WT_OK);
    assert_true(step(&S)->step_time_s == t0);
    assert_int_equal(session_set_priority(&S, "dp.allreduce", 2, NULL), WT_OK);
    assert_int_equal(session_set_priority(&S, NULL, 0, NULL), WT_OK);
    assert_int_equal(sim_tuning_priority(&S.tune, "dp.allreduce"), 0);
    assert_int_equal(sim_tuning_priority(&S.tune, "bwd.mlp.in"), 0);
    assert_true(step(&S)->step_time_s == t0);
    session_free(&S);
    wafer_free(&wf);
}

/* A dead link between two wafers: traffic detours, DP stays hierarchical. */
static void test_dead_interwafer_link(void **state)
{
    (void)state;
    wafer wf;
    session S;
    model m = small();
    start(&S, &wf, "layouts/multiwafer-4x4.yaml", &m, "DP64,TATP64", PLACE_TILES);
    double t0 = step(&S)->step_time_s;
    assert_true(wafer_link_crosses(&S.wf, wafer_unit(&S.wf, 15, 3), WAFER_E));
    assert_int_equal(session_fail_link(&S, 15, 3, WAFER_E, NULL), WT_OK);
    const sim_result *r = step(&S);
    size_t l = (size_t)wafer_unit(&S.wf, 15, 3) * 4;
    assert_true(r->link_bytes[l + WAFER_E] == 0 && r->link_bytes[l + 4 + WAFER_W] == 0);
    assert_true(r->step_time_s >= t0);
    int p = sim_phase_find(r, "dp.allreduce");
    assert_int_equal(r->patterns[r->phases[p].terms[0].pattern].pass, PASS_INNER);
    session_free(&S);
    wafer_free(&wf);
}

/* The session's network model times every step, also once a fault has
 * rebuilt the context; none given is the default. */
static void test_net_model(void **state)
{
    (void)state;
    net_model twin = *net_model_default(); /* the same timing under a name of its own */
    twin.c.name = "twin";
    model m = small();
    wafer wf;
    default_wafer(&wf);
    strategy s = parsed("DP16,TP16", PLACE_LINEAR);
    session_opts o = {.net = &twin};
    session S;
    assert_int_equal(session_new(&S, &wf, &m, &s, &o, NULL), WT_OK);
    assert_ptr_equal(step(&S)->net, &twin);
    assert_int_equal(session_fail_link(&S, 3, 4, WAFER_E, NULL), WT_OK);
    assert_ptr_equal(step(&S)->net, &twin);
    assert_int_equal(session_repair(&S, NULL), WT_OK);
    assert_ptr_equal(step(&S)->net, &twin);
    session_free(&S);
    o.net = NULL;
    assert_int_equal(session_new(&S, &wf, &m, &s, &o, NULL), WT_OK);
    assert_ptr_equal(step(&S)->net, net_model_default());
    session_free(&S);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waves),         cmocka_unit_test(test_subgroups),
        cmocka_unit_test(test_routing),       cmocka_unit_test(test_tuning_names),
        cmocka_unit_test(test_faults_and_repair), cmocka_unit_test(test_policy_undo),
        cmocka_unit_test(test_keep_and_reset),    cmocka_unit_test(test_switch),
        cmocka_unit_test(test_variation),     cmocka_unit_test(test_priority),
        cmocka_unit_test(test_dead_interwafer_link),
        cmocka_unit_test(test_net_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
