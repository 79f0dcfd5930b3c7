/* A step's traffic apart from its timing (engine/traffic.h, engine/net/net.h):
 * the flows of every routed pattern, walked hop by hop, give its loads; the
 * traffic does not depend on the network model; a second model plugged into
 * the table's interface times the same traffic, and the figures every model
 * shares follow its times. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_rel.h"
#include "eval_small.h"
#include "layout.h"
#include "net.h"
#include "sim_int.h"
#include "traffic.h"


/* Adds `bytes` to every link of the dimension-order path src -> dst. */
static void walk(const wafer *wf, int src, int dst, int xfirst, double bytes, double *load)
{
    int u = src, x1 = wafer_x(wf, dst), y1 = wafer_y(wf, dst);
    for (int leg = 0; leg < 2; leg++) {
        int along_x = (leg == 0) == (xfirst != 0);
        for (;;) {
            int x = wafer_x(wf, u), y = wafer_y(wf, u), d;
            if (along_x && x != x1)
                d = x < x1 ? WAFER_E : WAFER_W;
            else if (!along_x && y != y1)
                d = y < y1 ? WAFER_S : WAFER_N;
            else
                break;
            load[(size_t)u * WAFER_NDIR + (size_t)d] += bytes;
            u = wafer_neighbor(wf, u, d);
        }
    }
}

/* Every pattern of r: its flows walked hop by hop give exactly its loads. */
static void check_patterns(const sim_result *r)
{
    size_t nl = wafer_nlinks(r->wf);
    double *load = calloc(nl, sizeof *load);
    assert_non_null(load);
    assert_true(r->npatterns > 0);
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        route_flow *flows;
        size_t n;
        wt_err e;
        assert_int_equal(traffic_flows(r, p, &flows, &n, &e), WT_OK);
        assert_true(n > 0);
        memset(load, 0, nl * sizeof *load);
        for (size_t i = 0; i < n; i++) {
            assert_true(flows[i].src != flows[i].dst);
            if (pat->mode == ROUTE_BALANCED) {
                walk(r->wf, flows[i].src, flows[i].dst, 1, flows[i].bytes / 2, load);
                walk(r->wf, flows[i].src, flows[i].dst, 0, flows[i].bytes / 2, load);
            } else {
                walk(r->wf, flows[i].src, flows[i].dst, pat->mode == ROUTE_XY, flows[i].bytes, load);
            }
        }
        free(flows);
        for (int k = 0; k < pat->nnz; k++) {
            assert_rel(pat->load[k], load[pat->link[k]]);
            load[pat->link[k]] = 0;
        }
        for (size_t l = 0; l < nl; l++) /* and nothing else */
            assert_true(load[l] == 0);
    }
    free(load);
}

static void test_flows_give_loads(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    for (size_t i = 0; i < NSMALL_CASES; i++) {
        sim_result r;
        eval_with(c, &r, small_cases[i][0], small_cases[i][1], small_cases[i][2]);
        check_patterns(&r);
        sim_free(&r);
    }
    /* Weight streaming from ports on the east and west edges: the store's
     * patterns come by rows (route_rows_sparse), with and without dead
     * units. */
    wf.store_ports = 1u << WAFER_E | 1u << WAFER_W;
    wf.store_bw_in = wf.store_bw_out = 1e10;
    wf.store_lat = 1e-6;
    for (int dead = 0; dead <= 1; dead++) {
        if (dead) {
            sim_ctx_free(c);
            assert_int_equal(wafer_fail_unit(&wf, 7, 3, NULL), WT_OK);
            assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
        }
        sim_result r;
        eval_with(c, &r, dead ? "DP2,TATP16" : "DP4,TATP16", "exec", "stream");
        int stores = 0;
        for (int p = 0; p < r.npatterns; p++)
            stores += r.patterns[p].kind == CG_STORE;
        assert_int_equal(stores, 2);
        check_patterns(&r);
        sim_free(&r);
    }
    sim_ctx_free(c);
    wafer_free(&wf);
}

/* a and b hold the same patterns, to the bit, and the same step. */
static void expect_same_traffic(const sim_result *a, const sim_result *b)
{
    assert_int_equal(a->npatterns, b->npatterns);
    for (int p = 0; p < a->npatterns; p++) {
        const sim_pattern *x = &a->patterns[p], *y = &b->patterns[p];
        assert_int_equal(x->nnz, y->nnz);
        assert_memory_equal(x->link, y->link, (size_t)x->nnz * sizeof *x->link);
        assert_memory_equal(x->load, y->load, (size_t)x->nnz * sizeof *x->load);
        assert_int_equal(x->max_hops, y->max_hops);
        assert_true(x->max_lat == y->max_lat);
    }
    assert_true(a->step_time_s == b->step_time_s);
}

/* Routing split over 3 parts (route_ctx_set_parts: a pass's flows written
 * by ranges of groups, the calls and closed forms by rows) gives every case
 * the traffic of one walk, streamed weights included. */
static void test_split_same(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    wf.store_ports = 1u << WAFER_E | 1u << WAFER_W;
    wf.store_bw_in = wf.store_bw_out = 1e10;
    sim_ctx *one, *split;
    assert_int_equal(sim_ctx_new(&one, &wf, NULL), WT_OK);
    assert_int_equal(sim_ctx_new(&split, &wf, NULL), WT_OK);
    route_ctx_set_parts(split->rc, 3);
    for (size_t i = 0; i <= NSMALL_CASES; i++) {
        const char *const *k = i < NSMALL_CASES ? small_cases[i] : (const char *const[]){"DP4,TATP16", "exec", "stream"};
        sim_result a, b;
        eval_with(one, &a, k[0], k[1], k[2]);
        eval_with(split, &b, k[0], k[1], k[2]);
        expect_same_traffic(&a, &b);
        sim_free(&a);
        sim_free(&b);
    }
    sim_ctx_free(one);
    sim_ctx_free(split);
    wafer_free(&wf);
}

/* A second network model, as a test would write one: every pass as if all
 * its links were one (its total busy time, serialised), every occurrence of
 * every phase one after another in a single slot. */
static int serial_time_step(sim_ctx *c, sim_result *r, wt_err *e)
{
    (void)e;
    double t = 0;
    r->ntimeline = 0;
    r->dp_time_s = r->dp_exposed_s = r->optimizer_s = 0;
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        ph->comm_s = 0;
        for (int k = 0; k < ph->nterms; k++) {
            const sim_pattern *p = &r->patterns[ph->terms[k].pattern];
            for (int j = 0; j < p->nnz; j++)
                ph->comm_s += ph->terms[k].coef * p->load[j] * net_bw_inv(&c->bw, (size_t)p->link[j]);
        }
        ph->time_s = ph->compute_s + ph->comm_s;
        ph->send_bytes = ph->bw_ratio = 0;
        double d = ph->count * ph->time_s;
        if (ph->role == SIM_DP)
            r->dp_time_s = r->dp_exposed_s = d;
        if (ph->role == SIM_OPTIMIZER)
            r->optimizer_s = d;
        if (ph->scope == SIM_STEP || d <= 0)
            continue;
        r->timeline[r->ntimeline++] = (sim_slice){i, t, t + d};
        t += d;
    }
    r->slot_s = r->stage_time_s = t;
    r->slots = 1;
    double tail = t;
    for (int i = 0; i < r->nphases; i++) {
        double d = r->phases[i].role == SIM_DP ? r->dp_exposed_s : r->phases[i].role == SIM_OPTIMIZER ? r->optimizer_s : 0;
        if (d > 0) {
            r->timeline[r->ntimeline++] = (sim_slice){i, tail, tail + d};
            tail += d;
        }
    }
    for (int k = 0; k < r->s.pp; k++)
        r->stage_busy[k] = 0;
    r->step_time_s = tail;
    return WT_OK;
}

static double serial_passes_s(const sim_result *r, const sim_term *t, int n)
{
    (void)r;
    (void)t;
    return n;
}

/* NULL flows_time: these models only time steps, wt.route never sees them */
static const net_model serial = {{"serial", 0}, "every link's busy time, one after another", serial_passes_s,
                                 serial_time_step, NULL};

static void test_second_model(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    const char *strategies[] = {"DP8,TATP16", "DP4,TP4,SP2,PP2,TATP4", "TP8,DP32"};
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++) {
        sim_result a, b;
        sim_ctx_set_net(c, net_model_find("bottleneck"));
        eval_with(c, &a, strategies[i], NULL, NULL);
        assert_ptr_equal(a.net, net_model_find("bottleneck"));
        sim_ctx_set_net(c, &serial);
        eval_with(c, &b, strategies[i], NULL, NULL);
        assert_ptr_equal(b.net, &serial);
        /* the same traffic */
        assert_int_equal(a.npatterns, b.npatterns);
        for (int p = 0; p < a.npatterns; p++) {
            assert_int_equal(a.patterns[p].nnz, b.patterns[p].nnz);
            assert_memory_equal(a.patterns[p].link, b.patterns[p].link, (size_t)a.patterns[p].nnz * sizeof(int));
            assert_memory_equal(a.patterns[p].load, b.patterns[p].load, (size_t)a.patterns[p].nnz * sizeof(double));
        }
        for (int p = 0; p < a.nphases; p++) {
            assert_int_equal(a.phases[p].nterms, b.phases[p].nterms);
            assert_memory_equal(a.phases[p].terms, b.phases[p].terms, (size_t)a.phases[p].nterms * sizeof(sim_term));
            assert_rel(a.phases[p].compute_s, b.phases[p].compute_s);
        }
        for (size_t l = 0; l < wafer_nlinks(&wf); l++)
            assert_rel(a.link_bytes[l], b.link_bytes[l]);
        /* the serial model's own times, by hand, and what sim.c derives */
        double step = 0;
        for (int p = 0; p < b.nphases; p++) {
            const sim_phase *ph = &b.phases[p];
            double comm = 0;
            for (int k = 0; k < ph->nterms; k++) {
                const sim_pattern *pt = &b.patterns[ph->terms[k].pattern];
                for (int j = 0; j < pt->nnz; j++)
                    comm += ph->terms[k].coef * pt->load[j] / wafer_link_bw(&wf, pt->link[j] / 4, pt->link[j] % 4);
            }
            assert_rel(ph->time_s, ph->compute_s + comm);
            step += ph->count * ph->time_s;
        }
        assert_rel(b.step_time_s, step);
        assert_rel(b.mfu, b.model_flops_per_step / (step * b.units_live * wf.peak_flops));
        assert_rel(b.tokens_per_s, (double)b.m.batch * b.m.seq / step);
        double shares = 0;
        for (int p = 0; p < b.nphases; p++) {
            assert_rel(b.phases[p].share, b.phases[p].count * b.phases[p].time_s / step);
            shares += b.phases[p].share;
        }
        assert_rel(shares, 1);
        for (size_t l = 0; l < wafer_nlinks(&wf); l++)
            assert_rel(sim_link_util(&b, l), b.link_bytes[l] * sim_link_inv_bw(&wf, l) / step);
        sim_free(&a);
        sim_free(&b);
    }
    sim_ctx_free(c);
    wafer_free(&wf);
}

/* A model that fails: the evaluation fails with its message and keeps
 * nothing (the sanitizers' leak check holds the second half). */
static int failing_time_step(sim_ctx *c, sim_result *r, wt_err *e)
{
    (void)c;
    (void)r;
    return wt_fail(e, "the test model refuses");
}

static void test_model_error(void **state)
{
    (void)state;
    static const net_model failing = {{"failing", 0}, "refuses to time anything", serial_passes_s,
                                      failing_time_step, NULL};
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, NULL), WT_OK);
    sim_ctx_set_net(c, &failing);
    model m = small_model();
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse("DP8,TATP16", &s, NULL), WT_OK);
    sim_result r;
    wt_err e;
    assert_int_equal(sim_eval_ctx(c, &r, &m, &s, &e), WT_EINPUT);
    assert_string_equal(e.msg, "the test model refuses");
    sim_ctx_free(c);
    wafer_free(&wf);
}

/* The table names its models, and the default is the fluid model. */
static void test_model_table(void **state)
{
    (void)state;
    choice_table t = net_model_table();
    assert_true(t.n >= 1);
    assert_ptr_equal(net_model_default(), net_model_find("fluid"));
    assert_ptr_equal(net_model_find("FLUID"), net_model_default());
    assert_null(net_model_find("no-such-model"));
    for (int i = 0; i < t.n; i++) {
        const net_model *m = (const net_model *)choice_at(t, i);
        assert_ptr_equal(net_model_find(m->c.name), m);
        assert_non_null(m->passes_s);
        assert_non_null(m->time_step);
        assert_non_null(m->flows_time);
        assert_true(strlen(m->summary) > 0);
    }
}

/* Three flows on two links of 2 B/s, worked by hand: A (2 bytes) crosses
 * links 0 and 1, B (1 byte) link 0, C (1 byte) link 1; latencies 0.1, 0.05
 * and 0.05 s. fluid: 1 B/s each until B and C are done at 1 s, then A alone
 * at 2 B/s moves its last byte in 0.5 s. bottleneck: each link carries 3
 * bytes, 1.5 s, for everyone. */
static void test_flows_time(void **state)
{
    (void)state;
    const double inv_bw[2] = {0.5, 0.5};
    const int both[2] = {0, 1}, first = 0, second = 1;
    const double ones[2] = {1, 1};
    flow_class cls[3] = {
        {.link = both, .load = ones, .nnz = 2, .work = 2, .latency_s = 0.1},
        {.link = &first, .load = ones, .nnz = 1, .work = 1, .latency_s = 0.05},
        {.link = &second, .load = ones, .nnz = 1, .work = 1, .latency_s = 0.05},
    };
    flow_time t[3];
    double end;
    assert_int_equal(net_model_find("fluid")->flows_time(inv_bw, 2, cls, 3, t, &end, NULL), WT_OK);
    assert_rel(t[0].bw_done_s, 1.5);
    assert_rel(t[0].finish_s, 1.6);
    assert_rel(t[1].finish_s, 1.05);
    assert_rel(t[2].finish_s, 1.05);
    assert_rel(end, 1.6);
    assert_int_equal(net_model_find("bottleneck")->flows_time(inv_bw, 2, cls, 3, t, &end, NULL), WT_OK);
    assert_rel(t[0].finish_s, 1.6);
    assert_rel(t[1].bw_done_s, 1.5);
    assert_rel(t[1].finish_s, 1.55);
    assert_rel(end, 1.6);
    /* a start shifts a flow's closed form; the whole ends with the last */
    cls[1].start_s = 1;
    assert_int_equal(net_model_find("bottleneck")->flows_time(inv_bw, 2, cls, 3, t, &end, NULL), WT_OK);
    assert_rel(t[1].start_s, 1);
    assert_rel(t[1].finish_s, 2.55);
    assert_rel(end, 2.55);
    /* no flows: nothing to time, on a fresh context too */
    for (int i = 0; i < net_model_table().n; i++) {
        end = -1;
        assert_int_equal(net_model_at(i)->flows_time(inv_bw, 2, cls, 0, t, &end, NULL), WT_OK);
        assert_true(end == 0);
    }
    const double dead[2] = {0.5, 0};
    wt_err e;
    for (int i = 0; i < net_model_table().n; i++) {
        assert_int_equal(net_model_at(i)->flows_time(dead, 2, cls, 3, t, &end, &e), WT_EINPUT);
        assert_non_null(strstr(e.msg, "unusable link"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flows_give_loads),
        cmocka_unit_test(test_split_same),
        cmocka_unit_test(test_second_model),
        cmocka_unit_test(test_model_error),
        cmocka_unit_test(test_model_table),
        cmocka_unit_test(test_flows_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
