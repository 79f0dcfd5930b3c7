/* engine/net/flit.c: cycle counts worked out by hand on tiny meshes (one
 * packet alone, two packets through one output), every flit accounted for
 * against a hop-by-hop walk of dimension-order routes, no packet faster
 * than its zero-load latency, and BookSim2's figures on its own
 * configuration (8x8 mesh, the defaults): a transpose and a bit-complement
 * batch of 1024 flits a unit in 16-flit packets end at cycles 7191 and
 * 5747, uniform traffic of 1-flit packets at 0.05 a cycle has a mean
 * latency of 27.02 cycles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "dor_walk.h"
#include "flit.h"
#include "flit_traffic.h"
#include "rng.h"
#include "wafer.h"

/* Cycles a packet of `flits` flits takes alone over R routers: its link
 * in, then each router's routing, VC and switch allocation, switch and
 * link, then its body behind its head, one flit a cycle. */
static long long alone(const flit_cfg *c, int routers, int flits)
{
    int per_router = c->routing_delay + c->vc_alloc_delay + c->sw_alloc_delay + c->st_final_delay + c->link_latency;
    return c->link_latency + 1 + (long long)routers * per_router + flits - 1;
}

static void run_ok(int w, int h, const flit_cfg *c, flit_packet *p, int np, flit_stats *st)
{
    wt_err e;
    int rc = flit_run(w, h, c, p, np, 10000000, st, &e);
    if (rc != WT_OK)
        fail_msg("%s", e.msg);
}

static void test_one_packet_alone(void **state)
{
    (void)state;
    flit_cfg c;
    flit_cfg_defaults(&c);
    /* (0,0) -> (2,1) on 4x4: 3 hops, 4 routers: 4 * 4 + 2 = 18 cycles */
    flit_packet p = {.src = 0, .dst = 1 * 4 + 2, .flits = 1, .created = 5};
    run_ok(4, 4, &c, &p, 1, NULL);
    assert_int_equal(p.injected, 5);
    assert_int_equal(p.arrived, 5 + 18);
    assert_int_equal(p.hops, 4);
    assert_int_equal(alone(&c, 4, 1), 18);
    /* a 16-flit packet: the tail 15 cycles behind the head */
    p = (flit_packet){.src = 15, .dst = 0, .flits = 16, .created = 0};
    run_ok(4, 4, &c, &p, 1, NULL);
    assert_int_equal(p.arrived, 4 * 7 + 2 + 15);
    /* to itself: its own router alone */
    p = (flit_packet){.src = 6, .dst = 6, .flits = 1, .created = 0};
    run_ok(4, 4, &c, &p, 1, NULL);
    assert_int_equal(p.arrived, 6);
    assert_int_equal(p.hops, 1);
    /* every delay counts once per router, the link also on the way in */
    c.routing_delay = 1, c.vc_alloc_delay = 2, c.sw_alloc_delay = 2, c.st_final_delay = 2, c.link_latency = 3;
    p = (flit_packet){.src = 0, .dst = 3, .flits = 4, .created = 0};
    run_ok(4, 1, &c, &p, 1, NULL);
    assert_int_equal(p.arrived, 3 + 1 + 4 * 10 + 3);
    assert_int_equal(p.arrived, alone(&c, 4, 4));
}

static void test_two_packets_one_output(void **state)
{
    (void)state;
    flit_cfg c;
    flit_cfg_defaults(&c);
    /* 3x1: units 0 and 2 send 4 flits each to unit 1. Both heads reach
     * router 1 in cycle 6 and get ejection VCs (iSLIP's two iterations);
     * from cycle 7 its one output takes a flit a cycle, alternating: the
     * flit from the east (input port 0 in BookSim2's order) first. Alone
     * each tail would arrive in cycle 13. */
    flit_packet p[2] = {{.src = 0, .dst = 1, .flits = 4}, {.src = 2, .dst = 1, .flits = 4}};
    run_ok(3, 1, &c, p, 2, NULL);
    assert_int_equal(alone(&c, 2, 4), 13);
    assert_int_equal(p[1].arrived, 16); /* its flits leave in cycles 7, 9, 11, 13 */
    assert_int_equal(p[0].arrived, 17); /* 8, 10, 12, 14 */
    /* one VC: the second head waits for the first packet's tail credit */
    c.num_vcs = 1;
    run_ok(3, 1, &c, p, 2, NULL);
    assert_true(p[1].arrived == 13 || p[0].arrived == 13);
    long long second = p[1].arrived == 13 ? p[0].arrived : p[1].arrived;
    /* the first tail reaches its terminal in cycle 13, whose credit is back
     * at router 1 in 13 + 1 + 1 + 2 = 17: the other head takes the VC then,
     * wins the switch in 18, and its tail, 3 flits behind, leaves in 21 */
    assert_int_equal(second, 21 + 3);
}

static void test_pointers_and_credits(void **state)
{
    (void)state;
    flit_cfg c;
    flit_cfg_defaults(&c);
    /* 4x1: 8 flits 0 -> 1 and 4 flits 3 -> 1. The first packet's flits
     * reach router 1 in cycles 6..13 and leave it alone in 7..10, which
     * moves the output's grant pointer past its input port (W, 1); the
     * second's head arrives in 10 and bids from 11, where the pointer puts
     * its port (E, 0) first: from then on they alternate, E in 11, 13, 15,
     * 17 (its tail there + 3) and W in 12, 14, 16, then 18. */
    flit_packet p[2] = {{.src = 0, .dst = 1, .flits = 8}, {.src = 3, .dst = 1, .flits = 4}};
    run_ok(4, 1, &c, p, 2, NULL);
    assert_int_equal(p[1].arrived, 20);
    assert_int_equal(p[0].arrived, 21);
    /* buffers of 2 flits: a packet moves two flits per credit round trip,
     * 7 cycles from a flit's leaving the source (written 2 later, through
     * VC and switch allocation, its credit back 1 + 1 + credit_delay after):
     * the tail of 6 flits arrives 2 round trips and a cycle after the head */
    c.vc_buf_size = 2;
    flit_packet q = {.src = 0, .dst = 2, .flits = 6};
    run_ok(3, 1, &c, &q, 1, NULL);
    assert_int_equal(q.arrived, alone(&c, 3, 1) + 2 * 7 + 1);
    c.credit_delay = 0;
    run_ok(3, 1, &c, &q, 1, NULL);
    assert_int_equal(q.arrived, alone(&c, 3, 1) + 2 * 5 + 1);
    /* one VC a port, 2 flits 0 -> 3 and 1 -> 3 on 4x1: the second takes
     * router 1's east VC first (its head is there in 2) and its tail
     * leaves router 2 in 8; the credit is back at router 1 in 8 + 1 + 1 + 2,
     * when the first head gets the VC: it wins the switch in 13, reaches
     * routers 2 and 3 in 16 and 20, and its tail the terminal in 25 */
    flit_cfg_defaults(&c);
    c.num_vcs = 1;
    flit_packet r[2] = {{.src = 0, .dst = 3, .flits = 2}, {.src = 1, .dst = 3, .flits = 2}};
    run_ok(4, 1, &c, r, 2, NULL);
    assert_int_equal(r[1].arrived, alone(&c, 3, 2));
    assert_int_equal(r[0].arrived, 25);
}

/* Every packet arrives and every link carries the flits of the packets
 * whose routes cross it, XY, YX or both mixed (every third packet Y first:
 * two VC classes), with BookSim2's routers and with tight ones (2 VCs of 2
 * flits), where mixed routes without the classes could deadlock. */
static void test_links_hop_by_hop(void **state)
{
    (void)state;
    static const struct {
        int w, h, pattern, flits, yx; /* yx 2: mixed */
    } cases[] = {
        {5, 3, FLIT_UNIFORM, 1, 0}, {6, 6, FLIT_TRANSPOSE, 4, 0}, {6, 6, FLIT_TRANSPOSE, 4, 1},
        {7, 4, FLIT_BITCOMP, 3, 1}, {4, 5, FLIT_NEIGHBOR, 2, 0}, {8, 2, FLIT_TORNADO, 5, 1},
        {6, 5, FLIT_UNIFORM, 3, 2}, {6, 6, FLIT_TRANSPOSE, 4, 2}, {7, 7, FLIT_BITCOMP, 6, 2},
    };
    for (size_t k = 0; k < 2 * sizeof cases / sizeof cases[0]; k++) {
        int ci = (int)(k / 2), w = cases[ci].w, h = cases[ci].h, tight = k % 2;
        flit_cfg c;
        flit_cfg_defaults(&c);
        if (tight)
            c.num_vcs = 2, c.vc_buf_size = 2;
        flit_packet *p;
        int np;
        wt_err e;
        assert_int_equal(flit_traffic_batch(w, h, cases[ci].pattern, 6, cases[ci].flits, 3, &p, &np, &e), WT_OK);
        for (int j = 0; j < np; j++)
            p[j].yx = cases[ci].yx == 2 ? j % 3 == 0 : cases[ci].yx;
        flit_stats st;
        run_ok(w, h, &c, p, np, &st);
        double *want = calloc((size_t)w * h * WAFER_NDIR, sizeof *want);
        assert_non_null(want);
        for (int i = 0; i < np; i++) {
            int routers = dor_walk(w, p[i].src, p[i].dst, p[i].yx, p[i].flits, want);
            assert_true(p[i].arrived >= 0);
            assert_int_equal(p[i].hops, routers);
            /* never faster than alone, and the run ends with the last */
            assert_true(p[i].arrived - p[i].created >= alone(&c, routers, p[i].flits));
            assert_true(p[i].arrived < st.cycles);
        }
        for (size_t l = 0; l < (size_t)w * h * WAFER_NDIR; l++) {
            assert_true(st.flits[l] == want[l]);
            /* a link's buffers hold flits only where flits crossed it, at most all its VCs' */
            assert_true(st.buffer_peak[l] <= c.num_vcs * c.vc_buf_size);
            assert_true((st.buffer_peak[l] > 0) == (want[l] > 0));
            assert_true(st.buffer_mean[l] >= 0 && st.buffer_mean[l] <= st.buffer_peak[l]);
        }
        free(want);
        free(p);
        flit_stats_free(&st);
    }
}

/* Any router configuration in its ranges, small: random meshes, packets of
 * random sizes, routes (mixed when there are 2 VCs or more) and creation
 * times; every packet arrives, no faster than alone, and every link
 * carries the flits of the routes that cross it. */
static void test_random_routers(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    for (int k = 0; k < 60; k++) {
        flit_cfg c;
        flit_cfg_defaults(&c);
        c.num_vcs = 1 + (int)(rng_unit(&rng) * 4);
        c.vc_buf_size = 1 + (int)(rng_unit(&rng) * 3);
        c.wait_for_tail_credit = rng_unit(&rng) < 0.5;
        c.alloc_iters = 1 + (int)(rng_unit(&rng) * 3);
        c.credit_delay = (int)(rng_unit(&rng) * 4);
        c.routing_delay = (int)(rng_unit(&rng) * 3);
        c.vc_alloc_delay = 1 + (int)(rng_unit(&rng) * 3);
        c.sw_alloc_delay = 1 + (int)(rng_unit(&rng) * 3);
        c.st_final_delay = 1 + (int)(rng_unit(&rng) * 3);
        c.link_latency = 1 + (int)(rng_unit(&rng) * 3);
        int w = 1 + (int)(rng_unit(&rng) * 6), h = 1 + (int)(rng_unit(&rng) * 6), np = 1 + (int)(rng_unit(&rng) * 200);
        flit_packet p[200];
        for (int i = 0; i < np; i++)
            p[i] = (flit_packet){.src = (int)(rng_unit(&rng) * w * h),
                                 .dst = (int)(rng_unit(&rng) * w * h),
                                 .flits = 1 + (int)(rng_unit(&rng) * 6),
                                 .yx = c.num_vcs >= 2 && rng_unit(&rng) < 0.5,
                                 .created = (long long)(rng_unit(&rng) * 50)};
        flit_stats st;
        run_ok(w, h, &c, p, np, &st);
        double want[6 * 6 * WAFER_NDIR] = {0};
        for (int i = 0; i < np; i++) {
            int routers = dor_walk(w, p[i].src, p[i].dst, p[i].yx, p[i].flits, want);
            if (p[i].arrived < 0)
                fail_msg("config %d: packet %d never arrived", k, i);
            assert_true(p[i].arrived - p[i].created >= alone(&c, routers, p[i].flits));
        }
        for (int l = 0; l < w * h * WAFER_NDIR; l++) {
            assert_true(st.flits[l] == want[l]);
            assert_true(st.buffer_mean[l] <= st.buffer_peak[l] + 1e-12);
        }
        flit_stats_free(&st);
    }
    /* idle cycles are skipped: a packet created 2^35 cycles in arrives as
     * if alone, at once */
    flit_cfg c;
    flit_cfg_defaults(&c);
    flit_packet late[2] = {{.src = 0, .dst = 63 * 64 + 63, .flits = 2},
                           {.src = 5, .dst = 7, .flits = 1, .created = 1LL << 35}};
    flit_stats st;
    wt_err e;
    assert_int_equal(flit_run(64, 64, &c, late, 2, 1LL << 40, &st, &e), WT_OK);
    assert_int_equal(late[0].arrived, alone(&c, 127, 2));
    assert_int_equal(late[1].arrived, (1LL << 35) + alone(&c, 3, 1));
    assert_int_equal(st.cycles, late[1].arrived + 1);
    flit_stats_free(&st);
}

static void test_buffer_of_one_flit(void **state)
{
    (void)state;
    flit_cfg c;
    flit_cfg_defaults(&c);
    /* 0 -> 2 on 3x1: the flit waits a cycle (VC allocation) in each buffer
     * it enters; the run lasts until its arrival in cycle 2 + 3 * 4 */
    flit_packet p = {.src = 0, .dst = 2, .flits = 1};
    flit_stats st;
    run_ok(3, 1, &c, &p, 1, &st);
    assert_int_equal(st.cycles, 15);
    size_t into1 = 0 * WAFER_NDIR + WAFER_E, into2 = 1 * WAFER_NDIR + WAFER_E;
    assert_int_equal(st.buffer_peak[into1], 1);
    assert_int_equal(st.buffer_peak[into2], 1);
    assert_float_equal(st.buffer_mean[into1], 1.0 / 15, 1e-12);
    assert_int_equal(st.buffer_peak[1 * WAFER_NDIR + WAFER_W], 0);
    flit_stats_free(&st);
}

static long long batch_end(int k, int pattern)
{
    flit_cfg c;
    flit_cfg_defaults(&c);
    flit_packet *p;
    int np;
    wt_err e;
    assert_int_equal(flit_traffic_batch(k, k, pattern, 64, 16, 1, &p, &np, &e), WT_OK);
    run_ok(k, k, &c, p, np, NULL);
    long long last = 0;
    for (int i = 0; i < np; i++)
        last = p[i].arrived > last ? p[i].arrived : last;
    free(p);
    return last;
}

static void test_booksim2_batches(void **state)
{
    (void)state;
    /* within the 5 % the model promises (it is within 1 % today) */
    long long transpose = batch_end(8, FLIT_TRANSPOSE), bitcomp = batch_end(8, FLIT_BITCOMP);
    assert_true(transpose > 7191 * 0.95 && transpose < 7191 * 1.05);
    assert_true(bitcomp > 5747 * 0.95 && bitcomp < 5747 * 1.05);
}

static void test_booksim2_latency(void **state)
{
    (void)state;
    flit_cfg c;
    flit_cfg_defaults(&c);
    flit_packet *p;
    int np, n, arrived;
    wt_err e;
    double latency, hops;
    assert_int_equal(flit_traffic_rate(8, 8, FLIT_UNIFORM, 0.05, 1, 5000, 7, &p, &np, &e), WT_OK);
    run_ok(8, 8, &c, p, np, NULL);
    flit_latency(p, np, 1000, 4000, &n, &arrived, &latency, &hops);
    assert_true(n > 8000);
    assert_int_equal(arrived, n);
    assert_true(latency > 27.02 * 0.9 && latency < 27.02 * 1.1);
    assert_true(hops > 6.23 * 0.97 && hops < 6.23 * 1.03);
    free(p);
}

/* A link slower than a flit a cycle: its output takes a grant once per
 * 1 / rate cycles (fractions carried over while it stays busy), the flits
 * behind it wait, the others run as before; a stop from another thread
 * ends a run with "stopped". */
static void test_slow_link(void **state)
{
    (void)state;
    flit_cfg c;
    flit_cfg_defaults(&c);
    double rate[4 * 1 * WAFER_NDIR];
    for (int l = 0; l < 4 * WAFER_NDIR; l++)
        rate[l] = 1;
    flit_run_opts o = {NULL, rate};
    wt_err e;
    /* 0 -> 3 on 4x1, 16 flits: the head in 4 * 4 + 2 = 18 cycles, the tail 15 behind */
    flit_packet p = {.src = 0, .dst = 3, .flits = 16};
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &o, NULL, &e), WT_OK);
    assert_int_equal(p.arrived, 18 + 15);
    /* router 1's east link at half a flit a cycle: the head wins its switch
     * in cycle 7 (as with every link at full rate) and arrives 11 cycles later,
     * with a VC to win at routers 2 and 3; the body flits, a grant every 2
     * cycles, no longer queue behind it and take 9; the tail's grant is in
     * cycle 7 + 15 x 2 */
    rate[1 * WAFER_NDIR + WAFER_E] = 0.5;
    p = (flit_packet){.src = 0, .dst = 3, .flits = 16};
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &o, NULL, &e), WT_OK);
    assert_int_equal(p.arrived, 7 + 15 * 2 + 9);
    /* at 0.4: grants 0, 3, 5, 8, 10, ... 38 cycles after the head's */
    rate[1 * WAFER_NDIR + WAFER_E] = 0.4;
    p = (flit_packet){.src = 0, .dst = 3, .flits = 16};
    flit_stats st;
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &o, &st, &e), WT_OK);
    assert_int_equal(p.arrived, 7 + 38 + 9);
    assert_int_equal(st.flits[1 * WAFER_NDIR + WAFER_E], 16);
    flit_stats_free(&st);
    /* the other way is untouched */
    p = (flit_packet){.src = 3, .dst = 0, .flits = 16};
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &o, NULL, &e), WT_OK);
    assert_int_equal(p.arrived, 18 + 15);
    rate[2] = 0;
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &o, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "link slot 2: a rate of 0 flits a cycle (above 0, at most 1)");
    rate[2] = 1.5;
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &o, NULL, &e), WT_EINPUT);
    /* a stop already set: the run gives up at once */
    atomic_int stop = 1;
    flit_run_opts halt = {&stop, NULL};
    p = (flit_packet){.src = 0, .dst = 3, .flits = 16};
    assert_int_equal(flit_run_with(4, 1, &c, &p, 1, 1000, &halt, &st, &e), WT_EINPUT);
    assert_string_equal(e.msg, "stopped");
    assert_null(st.flits);
}

static void test_bad_input(void **state)
{
    (void)state;
    flit_cfg c;
    wt_err e;
    flit_packet p = {.src = 0, .dst = 3, .flits = 1};
    flit_cfg_defaults(&c);
    c.num_vcs = 0;
    assert_int_equal(flit_run(2, 2, &c, &p, 1, 100, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "num_vcs 0: must be 1 to 32");
    flit_cfg_defaults(&c);
    c.vc_buf_size = 0;
    assert_int_equal(flit_cfg_check(&c, &e), WT_EINPUT);
    assert_string_equal(e.msg, "vc_buf_size 0: must be 1 to 65536");
    flit_cfg_defaults(&c);
    p.dst = 4;
    assert_int_equal(flit_run(2, 2, &c, &p, 1, 100, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "packet 0: unit 0 -> 4 is off the mesh of 4 units");
    p = (flit_packet){.src = 0, .dst = 3, .flits = 0};
    assert_int_equal(flit_run(2, 2, &c, &p, 1, 100, NULL, &e), WT_EINPUT);
    p = (flit_packet){.src = 0, .dst = 3, .flits = FLIT_MAX_PACKET + 1};
    assert_int_equal(flit_run(2, 2, &c, &p, 1, 100, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "packet 0: 65536 flits (1 to 65535)");
    p = (flit_packet){.src = 0, .dst = 3, .flits = 1, .yx = 2};
    assert_int_equal(flit_run(2, 2, &c, &p, 1, 100, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "packet 0: route 2 (0 XY, 1 YX)");
    /* a mesh whose buffers the check would overflow multiplying */
    assert_int_equal(flit_run(431, 2132535966, &c, &p, 0, 100, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "a 431x2132535966 mesh: the flit level takes 1x1 up to a billion buffered flits");
    /* both routes need a VC class each */
    flit_packet two[2] = {{.src = 0, .dst = 3, .flits = 1}, {.src = 3, .dst = 0, .flits = 1, .yx = 1}};
    c.num_vcs = 1;
    assert_int_equal(flit_run(2, 2, &c, two, 2, 100, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "packets route both XY and YX: num_vcs must be 2 at least, a class each");
    flit_cfg_defaults(&c);
    assert_int_equal(flit_traffic_batch(3, 2, FLIT_TRANSPOSE, 1, 1, 1, &(flit_packet *){NULL}, &(int){0}, &e),
                     WT_EINPUT);
    assert_string_equal(e.msg, "transpose: the mesh must be square, not 3x2");
    /* a run cut short leaves the packets it did not finish unarrived */
    p = (flit_packet){.src = 0, .dst = 3, .flits = 1};
    assert_int_equal(flit_run(2, 2, &c, &p, 1, 5, NULL, &e), WT_OK);
    assert_int_equal(p.arrived, -1);
    assert_int_equal(p.injected, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_packet_alone),
        cmocka_unit_test(test_two_packets_one_output),
        cmocka_unit_test(test_pointers_and_credits),
        cmocka_unit_test(test_links_hop_by_hop),
        cmocka_unit_test(test_random_routers),
        cmocka_unit_test(test_buffer_of_one_flit),
        cmocka_unit_test(test_booksim2_batches),
        cmocka_unit_test(test_booksim2_latency),
        cmocka_unit_test(test_slow_link),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
