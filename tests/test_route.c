/*
 * test_route.c - route_flows against hand-computed loads and against a
 * brute-force reference that walks every flow hop by hop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "par.h"
#include "route.h"
#include "wafer.h"

/* ---- brute-force reference: one link at a time, no shared code ---- */

static int ref_step(const wafer *wf, int u, int dir)
{
    return wafer_neighbor(wf, u, dir);
}

/* Fills hops[] (link slots) with the dimension-order path; returns its length. */
static int ref_dor_path(const wafer *wf, int src, int dst, int xfirst, size_t *hops)
{
    int u = src, n = 0;
    int x1 = wafer_x(wf, dst), y1 = wafer_y(wf, dst);
    for (int phase = 0; phase < 2; phase++) {
        int along_x = (phase == 0) == (xfirst != 0);
        for (;;) {
            int x = wafer_x(wf, u), y = wafer_y(wf, u), d;
            if (along_x) {
                if (x == x1)
                    break;
                d = x < x1 ? WAFER_E : WAFER_W;
            } else {
                if (y == y1)
                    break;
                d = y < y1 ? WAFER_S : WAFER_N;
            }
            hops[n++] = (size_t)u * 4 + (size_t)d;
            u = ref_step(wf, u, d);
        }
    }
    return n;
}

static int ref_path_ok(const wafer *wf, const size_t *hops, int n)
{
    for (int i = 0; i < n; i++)
        if (!wafer_link_usable(wf, (int)(hops[i] / 4), (int)(hops[i] % 4)))
            return 0;
    return 1;
}

/* Full BFS from dst over usable links, run backwards; then the tie-broken
 * walk from src. Returns the path length or -1 when dst is out of reach. */
static int ref_bfs_path(const wafer *wf, int src, int dst, int xfirst, size_t *hops)
{
    size_t nu = wafer_nunits(wf);
    int *dist = malloc(nu * sizeof *dist), *q = malloc(nu * sizeof *q);
    assert_non_null(dist);
    assert_non_null(q);
    for (size_t i = 0; i < nu; i++)
        dist[i] = -1;
    int head = 0, tail = 0;
    dist[dst] = 0;
    q[tail++] = dst;
    while (head < tail) {
        int v = q[head++];
        for (size_t u = 0; u < nu; u++) {
            if (dist[u] >= 0)
                continue;
            for (int d = 0; d < 4; d++) {
                if (wafer_neighbor(wf, (int)u, d) == v && wafer_link_usable(wf, (int)u, d)) {
                    dist[u] = dist[v] + 1;
                    q[tail++] = (int)u;
                    break;
                }
            }
        }
    }
    int n = -1;
    if (dist[src] >= 0) {
        static const int ox[4] = {WAFER_E, WAFER_W, WAFER_N, WAFER_S};
        static const int oy[4] = {WAFER_N, WAFER_S, WAFER_E, WAFER_W};
        const int *order = xfirst ? ox : oy;
        int u = src;
        n = 0;
        while (u != dst) {
            int j;
            for (j = 0; j < 4; j++) {
                int d = order[j], v = wafer_neighbor(wf, u, d);
                if (v >= 0 && wafer_link_usable(wf, u, d) && dist[v] == dist[u] - 1) {
                    hops[n++] = (size_t)u * 4 + (size_t)d;
                    u = v;
                    break;
                }
            }
            assert_true(j < 4);
        }
    }
    free(dist);
    free(q);
    return n;
}

/* Routes one (half) flow by rules 1-4 and adds its bytes link by link. */
static int ref_half(const wafer *wf, int src, int dst, int xfirst, double b, double *load,
                    route_stats *st)
{
    size_t *hops = malloc(wafer_nunits(wf) * sizeof *hops);
    assert_non_null(hops);
    int n = ref_dor_path(wf, src, dst, xfirst, hops);
    int detour = 0;
    if (!ref_path_ok(wf, hops, n)) {
        detour = 1;
        n = ref_dor_path(wf, src, dst, !xfirst, hops);
        if (!ref_path_ok(wf, hops, n))
            n = ref_bfs_path(wf, src, dst, xfirst, hops);
    }
    if (n < 0) {
        free(hops);
        return -1;
    }
    double lat = 0;
    for (int i = 0; i < n; i++) {
        load[hops[i]] += b;
        lat += wafer_link_lat(wf, (int)(hops[i] / 4), (int)(hops[i] % 4));
    }
    if (n > st->max_hops)
        st->max_hops = n;
    if (lat > st->max_latency)
        st->max_latency = lat;
    st->detoured += detour;
    free(hops);
    return 0;
}

static int ref_route(const wafer *wf, const route_flow *f, size_t n, route_mode mode, double *load,
                     route_stats *st)
{
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < n; i++) {
        if (f[i].src == f[i].dst)
            continue;
        int rv;
        if (mode == ROUTE_BALANCED) {
            rv = ref_half(wf, f[i].src, f[i].dst, 1, f[i].bytes / 2, load, st);
            if (rv == 0)
                rv = ref_half(wf, f[i].src, f[i].dst, 0, f[i].bytes / 2, load, st);
        } else {
            rv = ref_half(wf, f[i].src, f[i].dst, mode == ROUTE_XY, f[i].bytes, load, st);
        }
        if (rv < 0)
            return -1;
    }
    return 0;
}

/* ---- helpers ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    /* splitmix64: small, seeded, the same on every platform. */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rng_int(int n)
{
    return (int)(rng_next() % (uint64_t)n);
}

static double rng_unit(void)
{
    return (double)(rng_next() >> 11) / 9007199254740992.0;
}

/* What most tests stand on: a mesh (or a grid of wafers), a ctx bound to it,
 * two arrays of one double per link slot (the router's loads and the
 * reference's), and the last call's stats and error. */
typedef struct fixture {
    wafer wf;
    route_ctx *rc;          /* NULL until renew_ctx */
    double *load, *ref;     /* nl doubles each, zeroed at open */
    size_t nl;
    route_stats st;
    wt_err e;
} fixture;

static void open_wafers(fixture *fx, int w, int h, int wafers_x, int wafers_y)
{
    memset(fx, 0, sizeof *fx);
    assert_int_equal(wafer_init(&fx->wf, w, h, wafers_x, wafers_y, &fx->e), WT_OK);
    fx->nl = wafer_nlinks(&fx->wf);
    fx->load = calloc(fx->nl, sizeof *fx->load);
    fx->ref = calloc(fx->nl, sizeof *fx->ref);
    assert_non_null(fx->load);
    assert_non_null(fx->ref);
}

static void open_mesh(fixture *fx, int w, int h)
{
    open_wafers(fx, w, h, 1, 1);
}

static void close_mesh(fixture *fx)
{
    route_ctx_free(fx->rc);
    free(fx->load);
    free(fx->ref);
    wafer_free(&fx->wf);
}

/* The parts every ctx renew_ctx makes splits its calls into
 * (route_ctx_set_parts): 0, par_parts' choice, is one part on the small
 * meshes here; test_split_parts runs the tests again with more. */
static int split_parts;

/* Builds the ctx afresh: once the faults are set, and again when they change. */
static void renew_ctx(fixture *fx)
{
    route_ctx_free(fx->rc);
    fx->rc = NULL;
    assert_int_equal(route_ctx_new(&fx->rc, &fx->wf, &fx->e), WT_OK);
    route_ctx_set_parts(fx->rc, split_parts);
}

/* Adds to the loads with the ctx as it is. */
static int route_add(fixture *fx, const route_flow *f, size_t n, route_mode m)
{
    return route_flows(fx->rc, f, n, m, fx->load, &fx->st, &fx->e);
}

/* The same into zeroed loads. */
static int route_zeroed(fixture *fx, const route_flow *f, size_t n, route_mode m)
{
    memset(fx->load, 0, fx->nl * sizeof *fx->load);
    return route_add(fx, f, n, m);
}

/* A first call: a fresh ctx, zeroed loads. */
static int route_fresh(fixture *fx, const route_flow *f, size_t n, route_mode m)
{
    renew_ctx(fx);
    return route_zeroed(fx, f, n, m);
}

static int unit(const fixture *fx, int x, int y)
{
    return wafer_unit(&fx->wf, x, y);
}

static route_flow flow(const fixture *fx, int x0, int y0, int x1, int y1, double bytes)
{
    route_flow f = {unit(fx, x0, y0), unit(fx, x1, y1), bytes};
    return f;
}

static size_t slot(const fixture *fx, int x, int y, int dir)
{
    return (size_t)unit(fx, x, y) * 4 + (size_t)dir;
}

/* Only the listed slots carry load, each exactly its value. */
static void expect_loads(const fixture *fx, const size_t *slots, const double *vals, int n)
{
    for (size_t l = 0; l < fx->nl; l++) {
        double want = 0;
        for (int i = 0; i < n; i++)
            if (slots[i] == l)
                want += vals[i];
        if (fx->load[l] != want)
            fail_msg("slot %zu (unit %zu dir %c): load %.17g, want %.17g", l, l / 4,
                     wafer_dir_char((int)(l % 4)), fx->load[l], want);
    }
}

/* A first call that succeeds and loads only the listed slots. */
static void route_expect(fixture *fx, const route_flow *f, size_t n, route_mode m, const size_t *slots,
                         const double *vals, int k)
{
    assert_int_equal(route_fresh(fx, f, n, m), WT_OK);
    expect_loads(fx, slots, vals, k);
}

/* ---- hand-computed cases ---- */

static void test_xy_single(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 4);
    route_flow f = flow(&fx, 1, 1, 3, 2, 1000.0);
    size_t s[] = {slot(&fx, 1, 1, WAFER_E), slot(&fx, 2, 1, WAFER_E), slot(&fx, 3, 1, WAFER_S)};
    double v[] = {1000, 1000, 1000};
    route_expect(&fx, &f, 1, ROUTE_XY, s, v, 3);
    assert_int_equal(fx.st.max_hops, 3);
    assert_int_equal(fx.st.detoured, 0);
    assert_true(fx.st.max_latency == 3 * fx.wf.link_lat);
    close_mesh(&fx);
}

static void test_yx_single(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 4);
    route_flow f = flow(&fx, 1, 1, 3, 2, 1000.0);
    size_t s[] = {slot(&fx, 1, 1, WAFER_S), slot(&fx, 1, 2, WAFER_E), slot(&fx, 2, 2, WAFER_E)};
    double v[] = {1000, 1000, 1000};
    route_expect(&fx, &f, 1, ROUTE_YX, s, v, 3);
    assert_int_equal(fx.st.max_hops, 3);
    close_mesh(&fx);
}

/* W and N moves, and a flow that ends at the mesh edge (no end marker). */
static void test_west_north_to_edge(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 4);
    route_flow f = flow(&fx, 4, 3, 0, 0, 7.0);
    size_t s[] = {slot(&fx, 4, 3, WAFER_W), slot(&fx, 3, 3, WAFER_W), slot(&fx, 2, 3, WAFER_W),
                  slot(&fx, 1, 3, WAFER_W), slot(&fx, 0, 3, WAFER_N), slot(&fx, 0, 2, WAFER_N),
                  slot(&fx, 0, 1, WAFER_N)};
    double v[] = {7, 7, 7, 7, 7, 7, 7};
    route_expect(&fx, &f, 1, ROUTE_XY, s, v, 7);
    assert_int_equal(fx.st.max_hops, 7);
    close_mesh(&fx);
}

static void test_balanced_halves(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 4);
    route_flow f = flow(&fx, 1, 1, 3, 2, 1000.0);
    size_t s[] = {slot(&fx, 1, 1, WAFER_E), slot(&fx, 2, 1, WAFER_E), slot(&fx, 3, 1, WAFER_S),
                  slot(&fx, 1, 1, WAFER_S), slot(&fx, 1, 2, WAFER_E), slot(&fx, 2, 2, WAFER_E)};
    double v[] = {500, 500, 500, 500, 500, 500};
    route_expect(&fx, &f, 1, ROUTE_BALANCED, s, v, 6);
    assert_int_equal(fx.st.max_hops, 3);
    assert_int_equal(fx.st.detoured, 0);
    close_mesh(&fx);
}

static void test_src_is_dst(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 4);
    route_flow f = flow(&fx, 2, 2, 2, 2, 1000.0);
    for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++) {
        route_expect(&fx, &f, 1, (route_mode)m, NULL, NULL, 0);
        assert_int_equal(fx.st.max_hops, 0);
        assert_true(fx.st.max_latency == 0);
        assert_int_equal(fx.st.detoured, 0);
    }
    close_mesh(&fx);
}

static void test_dead_link_takes_other_order(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 4);
    assert_int_equal(wafer_fail_link(&fx.wf, 2, 1, WAFER_E, &fx.e), WT_OK);
    route_flow f = flow(&fx, 1, 1, 3, 2, 1000.0);
    size_t s[] = {slot(&fx, 1, 1, WAFER_S), slot(&fx, 1, 2, WAFER_E), slot(&fx, 2, 2, WAFER_E)};
    double v[] = {1000, 1000, 1000};
    route_expect(&fx, &f, 1, ROUTE_XY, s, v, 3);
    assert_int_equal(fx.st.detoured, 1);
    assert_int_equal(fx.st.max_hops, 3);

    /* Balanced: only the x-first half moves over. */
    double v2[] = {1000, 1000, 1000};
    route_expect(&fx, &f, 1, ROUTE_BALANCED, s, v2, 3);
    assert_int_equal(fx.st.detoured, 1);
    close_mesh(&fx);
}

/*
 * 4x3 mesh, flow (0,1) -> (2,1) with link (1,1)E dead: both orders are the
 * same blocked straight path. Distances to (2,1): (0,1) 4, (1,1) 3, (0,0) 3,
 * (1,0) 2, (2,0) 1, (3,0) 2. x-first (E W N S) from (0,1): E to (1,1) [3],
 * N to (1,0) [2], E to (2,0) [1], S to (2,1). y-first (N S E W): N to (0,0),
 * E to (1,0), E to (2,0), S to (2,1).
 */
static void test_detour_by_hand(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 4, 3);
    assert_int_equal(wafer_fail_link(&fx.wf, 1, 1, WAFER_E, &fx.e), WT_OK);
    route_flow f = flow(&fx, 0, 1, 2, 1, 10.0);

    size_t sx[] = {slot(&fx, 0, 1, WAFER_E), slot(&fx, 1, 1, WAFER_N), slot(&fx, 1, 0, WAFER_E),
                   slot(&fx, 2, 0, WAFER_S)};
    double v[] = {10, 10, 10, 10};
    route_expect(&fx, &f, 1, ROUTE_XY, sx, v, 4);
    assert_int_equal(fx.st.max_hops, 4);
    assert_int_equal(fx.st.detoured, 1);
    assert_true(fx.st.max_latency == 4 * fx.wf.link_lat);

    size_t sy[] = {slot(&fx, 0, 1, WAFER_N), slot(&fx, 0, 0, WAFER_E), slot(&fx, 1, 0, WAFER_E),
                   slot(&fx, 2, 0, WAFER_S)};
    route_expect(&fx, &f, 1, ROUTE_YX, sy, v, 4);
    assert_int_equal(fx.st.max_hops, 4);
    assert_int_equal(fx.st.detoured, 1);

    /* Balanced: each half its own tie-break, both counted. */
    size_t sb[] = {sx[0], sx[1], sx[2], sx[3], sy[0], sy[1], sy[2], sy[3]};
    double vb[] = {5, 5, 5, 5, 5, 5, 5, 5};
    route_expect(&fx, &f, 1, ROUTE_BALANCED, sb, vb, 8);
    assert_int_equal(fx.st.detoured, 2);
    close_mesh(&fx);
}

static void test_cut_off(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 3, 3);
    assert_int_equal(wafer_fail_link(&fx.wf, 0, 0, WAFER_E, &fx.e), WT_OK);
    assert_int_equal(wafer_fail_link(&fx.wf, 0, 0, WAFER_S, &fx.e), WT_OK);
    route_flow f[] = {flow(&fx, 0, 1, 2, 1, 5.0), flow(&fx, 2, 2, 0, 0, 5.0), flow(&fx, 0, 0, 1, 1, 5.0)};
    renew_ctx(&fx);
    fx.load[3] = 42.0;
    memset(&fx.e, 0, sizeof fx.e);
    assert_int_equal(route_add(&fx, f, 3, ROUTE_XY), WT_EINPUT);
    assert_string_equal(fx.e.msg, "no route from 2,2 to 0,0");
    /* The failed call leaves load alone and the ctx reusable. */
    for (size_t l = 0; l < fx.nl; l++)
        assert_true(fx.load[l] == (l == 3 ? 42.0 : 0.0));
    fx.load[3] = 0;
    assert_int_equal(route_add(&fx, f, 1, ROUTE_XY), WT_OK);
    size_t s[] = {slot(&fx, 0, 1, WAFER_E), slot(&fx, 1, 1, WAFER_E)};
    double v[] = {5, 5};
    expect_loads(&fx, s, v, 2);

    /* A dead destination unit is cut off too. */
    assert_int_equal(wafer_fail_unit(&fx.wf, 2, 1, &fx.e), WT_OK);
    renew_ctx(&fx);
    assert_int_equal(route_add(&fx, f, 1, ROUTE_BALANCED), WT_EINPUT);
    assert_string_equal(fx.e.msg, "no route from 0,1 to 2,1");
    close_mesh(&fx);
}

static void test_bad_flows(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 3, 3);
    renew_ctx(&fx);
    assert_int_equal(fx.nl, 36);
    route_flow out = {0, 9, 1.0}, neg = {0, 1, -1.0}, nan = {0, 1, 0.0};
    nan.bytes = nan.bytes / nan.bytes;
    assert_int_equal(route_add(&fx, &out, 1, ROUTE_XY), WT_EINTERNAL);
    assert_int_equal(route_add(&fx, &neg, 1, ROUTE_XY), WT_EINTERNAL);
    assert_int_equal(route_add(&fx, &nan, 1, ROUTE_XY), WT_EINTERNAL);
    assert_int_equal(route_add(&fx, NULL, 0, ROUTE_XY), WT_OK);
    assert_int_equal(route_add(&fx, &neg, 1, (route_mode)7), WT_EINTERNAL);
    for (size_t l = 0; l < fx.nl; l++)
        assert_true(fx.load[l] == 0);
    close_mesh(&fx);
}

/* 2 x 1 wafers of 4 x 4: the E link of x = 3 crosses the wafer edge. */
static void test_multiwafer_latency(void **state)
{
    (void)state;
    fixture fx;
    open_wafers(&fx, 4, 4, 2, 1);
    fx.wf.iw_lat = 1.5e-6;
    route_flow f[] = {flow(&fx, 1, 1, 6, 2, 1.0), flow(&fx, 0, 0, 3, 3, 1.0)};
    for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++) {
        assert_int_equal(route_fresh(&fx, f, 2, (route_mode)m), WT_OK);
        assert_int_equal(fx.st.max_hops, 6);
        assert_float_equal(fx.st.max_latency, 5 * 50e-9 + 1.5e-6, 1e-18);
    }
    /* Latency, not hops, picks the maximum: 6 hops on one wafer is less. */
    assert_int_equal(route_fresh(&fx, f + 1, 1, ROUTE_XY), WT_OK);
    assert_float_equal(fx.st.max_latency, 6 * 50e-9, 1e-18);
    close_mesh(&fx);
}

static void test_mode_names(void **state)
{
    (void)state;
    assert_int_equal(route_mode_parse("xy"), ROUTE_XY);
    assert_int_equal(route_mode_parse("yx"), ROUTE_YX);
    assert_int_equal(route_mode_parse("balanced"), ROUTE_BALANCED);
    assert_int_equal(route_mode_parse("XYZ"), -1);
    assert_int_equal(route_mode_parse(""), -1);
    assert_int_equal(route_mode_parse(NULL), -1);
    for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++)
        assert_int_equal(route_mode_parse(route_mode_name((route_mode)m)), m);
}

/* ---- random flows against the reference ---- */

enum { FAULT_NONE, FAULT_LINKS, FAULT_UNITS, FAULT_BOTH };

static void inject(wafer *wf, int kind)
{
    wt_err e;
    if (kind == FAULT_LINKS || kind == FAULT_BOTH) {
        int n = (wf->w * wf->h) / 6;
        for (int i = 0; i < n; i++) {
            int x = rng_int(wf->w), y = rng_int(wf->h), d = rng_int(4);
            if (wafer_neighbor(wf, wafer_unit(wf, x, y), d) >= 0)
                assert_int_equal(wafer_fail_link(wf, x, y, d, &e), WT_OK);
        }
    }
    if (kind == FAULT_UNITS || kind == FAULT_BOTH) {
        int n = (wf->w * wf->h) / 12;
        for (int i = 0; i < n; i++)
            assert_int_equal(wafer_fail_unit(wf, rng_int(wf->w), rng_int(wf->h), &e), WT_OK);
    }
}

/* A grid of wafers with faults of the given kind drawn from seed. */
static void open_faulty(fixture *fx, int w, int h, int wafers_x, int wafers_y, int faults, uint64_t seed)
{
    rng_state = seed;
    open_wafers(fx, w, h, wafers_x, wafers_y);
    inject(&fx->wf, faults);
}

/* Random flows the reference can route, some with src == dst or 0 bytes;
 * with same > 0 every flow carries that many bytes (the router's exact
 * counting path, which the simulator's one-byte passes take). */
static size_t random_flows(const wafer *wf, route_flow *f, size_t want, double same)
{
    int nu = (int)wafer_nunits(wf);
    double *scratch = calloc(wafer_nlinks(wf), sizeof *scratch);
    assert_non_null(scratch);
    size_t n = 0;
    for (size_t tries = 0; n < want && tries < want * 20; tries++) {
        route_flow c = {rng_int(nu), rng_int(nu), 0.0};
        int r = rng_int(20);
        if (r == 0)
            c.dst = c.src;
        /* Bytes over three decades with full mantissas: loads are not exact
         * sums, and small ones share rows with big ones. */
        c.bytes = same > 0 ? same : r == 1 ? 0.0 : (1.0 + rng_unit()) * (double)(1ull << rng_int(10));
        route_stats st;
        if (ref_route(wf, &c, 1, ROUTE_XY, scratch, &st) == 0 &&
            ref_route(wf, &c, 1, ROUTE_YX, scratch, &st) == 0)
            f[n++] = c;
    }
    free(scratch);
    return n;
}

static double rel_err(double got, double want)
{
    double d = got - want;
    if (d < 0)
        d = -d;
    return d / (want < 0 ? -want : want);
}

/* The router's loads against the reference's: exact zeros where the
 * reference has none, else 1e-9 relative. */
static void compare(const fixture *fx)
{
    const double *got = fx->load, *want = fx->ref;
    for (size_t l = 0; l < fx->nl; l++) {
        if (want[l] == 0) {
            if (got[l] != 0)
                fail_msg("slot %zu: load %.17g, want exactly 0", l, got[l]);
        } else if (rel_err(got[l], want[l]) > 1e-9) {
            fail_msg("slot %zu: load %.17g, want %.17g", l, got[l], want[l]);
        }
    }
}

/* Both loads zeroed, then the reference (which must find every route) and
 * the router on the fixture's ctx; returns the router's result. */
static int route_vs_ref(fixture *fx, const route_flow *f, size_t n, route_mode m, route_stats *sw)
{
    memset(fx->ref, 0, fx->nl * sizeof *fx->ref);
    memset(fx->load, 0, fx->nl * sizeof *fx->load);
    assert_int_equal(ref_route(&fx->wf, f, n, m, fx->ref, sw), 0);
    return route_add(fx, f, n, m);
}

/* The router's stats match the reference's. */
static void expect_stats(const route_stats *sg, const route_stats *sw)
{
    assert_int_equal(sg->max_hops, sw->max_hops);
    assert_int_equal(sg->detoured, sw->detoured);
    assert_true(rel_err(sg->max_latency, sw->max_latency) < 1e-12);
}

/* route_flows_sparse lists every link the dense call loaded, once, in
 * ascending order, with the same bytes. */
static void assert_sparse_matches(const wafer *wf, route_ctx *rc, const route_flow *f, size_t n, route_mode m,
                                  const double *dense)
{
    route_sparse sp = {0};
    route_stats st;
    wt_err e;
    assert_int_equal(route_flows_sparse(rc, f, n, m, &sp, &st, &e), WT_OK);
    size_t nonzero = 0, listed_nonzero = 0;
    for (size_t l = 0; l < wafer_nlinks(wf); l++)
        nonzero += dense[l] != 0;
    for (size_t i = 0; i < sp.n; i++) {
        if (i > 0)
            assert_true(sp.link[i] > sp.link[i - 1]);
        assert_true(sp.load[i] == dense[sp.link[i]]);
        listed_nonzero += sp.load[i] != 0;
    }
    assert_int_equal(listed_nonzero, nonzero);
    free(sp.link);
    free(sp.load);
}

/* nflows random flows: dense runs load every link many times over, sparse
 * ones leave gaps where rounding residue would show instead of a zero. */
static void check_random_bytes(int w, int h, int faults, uint64_t seed, size_t nflows, double same)
{
    fixture fx;
    open_faulty(&fx, w, h, 1, 1, faults, seed);
    route_flow *f = malloc(nflows * sizeof *f);
    assert_non_null(f);
    size_t n = random_flows(&fx.wf, f, nflows, same);
    assert_true(n > nflows / 2);

    renew_ctx(&fx);
    for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++) {
        route_stats sw;
        if (route_vs_ref(&fx, f, n, (route_mode)m, &sw) != WT_OK)
            fail_msg("%dx%d faults %d mode %s: %s", w, h, faults, route_mode_name((route_mode)m), fx.e.msg);
        compare(&fx);
        assert_sparse_matches(&fx.wf, fx.rc, f, n, (route_mode)m, fx.load);
        expect_stats(&fx.st, &sw);
        if (faults != FAULT_NONE && nflows > 100)
            assert_true(fx.st.detoured > 0);

        /* A second call adds on top, and in small batches gives the same. */
        for (size_t i = 0; i < n; i += 97) {
            size_t k = n - i < 97 ? n - i : 97;
            assert_int_equal(route_add(&fx, f + i, k, (route_mode)m), WT_OK);
        }
        for (size_t l = 0; l < fx.nl; l++)
            fx.ref[l] *= 2;
        compare(&fx);
    }
    free(f);
    close_mesh(&fx);
}
static void check_random(int w, int h, int faults, uint64_t seed, size_t nflows)
{
    check_random_bytes(w, h, faults, seed, nflows, 0);
}

/* Flows of equal bytes: the router counts segments instead of summing bytes. */
static void test_random_uniform(void **state)
{
    (void)state;
    for (int k = FAULT_NONE; k <= FAULT_BOTH; k++) {
        check_random_bytes(5, 7, k, 300 + (uint64_t)k, 3000, 1.0);
        check_random_bytes(8, 8, k, 400 + (uint64_t)k, 2000, 0.375);
        check_random_bytes(31, 3, k, 410 + (uint64_t)k, 500, 3e9);
    }
}

static void test_random_5x7(void **state)
{
    (void)state;
    for (int k = FAULT_NONE; k <= FAULT_BOTH; k++)
        for (uint64_t s = 1; s <= 3; s++)
            check_random(5, 7, k, 1000 * s + (uint64_t)k, 3000);
}

static void test_random_8x8(void **state)
{
    (void)state;
    for (int k = FAULT_NONE; k <= FAULT_BOTH; k++)
        for (uint64_t s = 1; s <= 3; s++)
            check_random(8, 8, k, 7000 * s + (uint64_t)k, 3000);
}

/* Long rows and columns with many dead links: detours far from straight. */
static void test_random_wide(void **state)
{
    (void)state;
    check_random(31, 3, FAULT_BOTH, 99, 3000);
    check_random(2, 29, FAULT_LINKS, 100, 3000);
    check_random(1, 9, FAULT_NONE, 101, 300);
}

static void test_random_sparse(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 40; s++) {
        check_random(5, 7, (int)(s % 4), 500 + s, 12);
        check_random(8, 8, (int)(s % 4), 600 + s, 25);
        check_random(40, 2, (int)(s % 4), 700 + s, 20);
    }
}

/*
 * A tiny flow that shares a row with a huge one: its load is the difference
 * of running sums near 1e15, where a double's step is 0.125. route.h
 * promises a few ulps of the bytes in the run, not of the tiny load; links
 * past all flows must still read exactly zero, whatever the residue.
 */
static void test_precision(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 12, 12);
    const double big = 1e15 + 0.375, tiny = 0.1, ulps = 4 * 2.220446049250313e-16 * big;
    route_flow f[] = {flow(&fx, 0, 0, 6, 0, big),
                      flow(&fx, 2, 0, 9, 0, tiny),
                      flow(&fx, 1, 0, 5, 0, 3 * tiny),
                      flow(&fx, 3, 11, 3, 5, big),
                      flow(&fx, 3, 7, 3, 1, tiny / 3),
                      flow(&fx, 3, 11, 3, 9, tiny),
                      flow(&fx, 10, 0, 11, 0, tiny / 7)};
    size_t n = sizeof f / sizeof f[0];
    assert_int_equal(route_fresh(&fx, f, n, ROUTE_XY), WT_OK);
    for (int x = 6; x < 9; x++)
        assert_float_equal(fx.load[slot(&fx, x, 0, WAFER_E)], tiny, ulps);
    for (int y = 2; y < 6; y++)
        assert_float_equal(fx.load[slot(&fx, 3, y, WAFER_N)], tiny / 3, ulps);
    assert_true(fx.load[slot(&fx, 9, 0, WAFER_E)] == 0);
    /* Once every flow of a run has ended its residue is gone for good. */
    assert_true(fx.load[slot(&fx, 10, 0, WAFER_E)] == tiny / 7);
    assert_true(fx.load[slot(&fx, 3, 1, WAFER_N)] == 0);
    close_mesh(&fx);
}

/* Equal bytes take the counting path: a link's load is its number of
 * (half) flows times the bytes, rounded once, even for bytes like 0.1 that
 * no sum of doubles keeps exact. */
static void test_uniform_exact(void **state)
{
    (void)state;
    for (int k = FAULT_NONE; k <= FAULT_BOTH; k++) {
        fixture fx;
        open_faulty(&fx, 9, 6, 1, 1, k, 900 + (uint64_t)k);
        route_flow f[600];
        size_t n = random_flows(&fx.wf, f, 600, 1.0);
        renew_ctx(&fx);
        double *count = fx.ref, *got = fx.load;
        for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++) {
            route_stats st;
            memset(count, 0, fx.nl * sizeof *count);
            assert_int_equal(ref_route(&fx.wf, f, n, (route_mode)m, count, &st), 0);
            for (size_t i = 0; i < n; i++)
                f[i].bytes = 0.1;
            assert_int_equal(route_zeroed(&fx, f, n, (route_mode)m), WT_OK);
            for (size_t i = 0; i < n; i++)
                f[i].bytes = 1.0;
            for (size_t l = 0; l < fx.nl; l++)
                if (got[l] != count[l] * 0.1)
                    fail_msg("mode %d slot %zu: load %.17g, want %.17g", m, l, got[l], count[l] * 0.1);
        }
        close_mesh(&fx);
    }
}

/* Markers never outlive a call: a flow whose end marker lies one row past
 * the path, then calls whose rows reach that marker. */
static void test_calls_independent(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 5, 5);
    renew_ctx(&fx);
    assert_int_equal(fx.nl, 100);
    struct {
        int x0, y0, x1, y1;
        size_t want;
    } c[] = {
        {3, 2, 3, 0, 0}, {3, 4, 3, 3, 0}, {0, 3, 4, 3, 0}, {4, 1, 2, 1, 0}, {1, 4, 1, 2, 0},
    };
    c[0].want = slot(&fx, 3, 2, WAFER_N);
    c[1].want = slot(&fx, 3, 4, WAFER_N);
    c[2].want = slot(&fx, 0, 3, WAFER_E);
    c[3].want = slot(&fx, 4, 1, WAFER_W);
    c[4].want = slot(&fx, 1, 4, WAFER_N);
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
            route_flow f = flow(&fx, c[i].x0, c[i].y0, c[i].x1, c[i].y1, 3.0);
            assert_int_equal(route_zeroed(&fx, &f, 1, ROUTE_XY), WT_OK);
            assert_true(fx.load[c[i].want] == 3.0);
            double total = 0;
            for (size_t l = 0; l < fx.nl; l++)
                total += fx.load[l] < 0 ? -fx.load[l] : fx.load[l];
            assert_true(total == 3.0 * fx.st.max_hops);
        }
    }
    /* Two N moves in one call: the first widens the rows to exactly the
     * second's last row, whose end marker lies one row further down; a
     * later call across that row must not see it. */
    route_flow two[] = {flow(&fx, 1, 1, 1, 0, 2.0), flow(&fx, 3, 2, 3, 1, 2.0)};
    assert_int_equal(route_zeroed(&fx, two, 2, ROUTE_XY), WT_OK);
    route_flow after = flow(&fx, 3, 4, 3, 2, 5.0);
    assert_int_equal(route_zeroed(&fx, &after, 1, ROUTE_XY), WT_OK);
    for (size_t l = 0; l < fx.nl; l++) {
        int want = l == slot(&fx, 3, 4, WAFER_N) || l == slot(&fx, 3, 3, WAFER_N);
        assert_true(fx.load[l] == (want ? 5.0 : 0.0));
    }
    close_mesh(&fx);
}

/* The list form appends after what the caller already holds, and leaves it
 * alone when the call fails. */
static void test_sparse_append(void **state)
{
    (void)state;
    fixture fx;
    open_mesh(&fx, 4, 3);
    renew_ctx(&fx);
    route_sparse sp = {0};
    route_flow f[] = {flow(&fx, 2, 0, 0, 1, 4.0), flow(&fx, 1, 0, 0, 0, 1.0)};
    assert_int_equal(route_flows_sparse(fx.rc, f, 2, ROUTE_XY, &sp, &fx.st, &fx.e), WT_OK);
    /* W of (1,0): 5; W of (2,0): 4; S of (0,0): 4, in slot order. */
    assert_int_equal(sp.n, 3);
    assert_int_equal(sp.link[0], (int)slot(&fx, 0, 0, WAFER_S));
    assert_true(sp.load[0] == 4.0);
    assert_int_equal(sp.link[1], (int)slot(&fx, 1, 0, WAFER_W));
    assert_true(sp.load[1] == 5.0);
    assert_int_equal(sp.link[2], (int)slot(&fx, 2, 0, WAFER_W));
    assert_true(sp.load[2] == 4.0);
    assert_int_equal(fx.st.max_hops, 3);

    route_flow g = flow(&fx, 3, 2, 3, 1, 2.0);
    assert_int_equal(route_flows_sparse(fx.rc, &g, 1, ROUTE_YX, &sp, &fx.st, &fx.e), WT_OK);
    assert_int_equal(sp.n, 4);
    assert_int_equal(sp.link[3], (int)slot(&fx, 3, 2, WAFER_N));
    assert_true(sp.load[3] == 2.0);

    route_flow bad = {0, 12, 1.0};
    assert_int_equal(route_flows_sparse(fx.rc, &bad, 1, ROUTE_XY, &sp, &fx.st, &fx.e), WT_EINTERNAL);
    assert_int_equal(sp.n, 4);
    free(sp.link);
    free(sp.load);
    close_mesh(&fx);
}

/* 3 x 2 wafers of 3 x 4 units with faults: detours and other-order paths
 * cross wafer edges too, and the latency must follow every crossing. */
static void test_random_multiwafer(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        fixture fx;
        open_faulty(&fx, 3, 4, 3, 2, (int)(seed % 4), 1300 + seed);
        fx.wf.iw_lat = seed % 2 ? 1.5e-6 : 1e-9; /* slower and faster than a hop */
        route_flow f[400];
        size_t n = random_flows(&fx.wf, f, 400, 0);
        renew_ctx(&fx);
        for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++) {
            route_stats sw;
            assert_int_equal(route_vs_ref(&fx, f, n, (route_mode)m, &sw), WT_OK);
            compare(&fx);
            expect_stats(&fx.st, &sw);
            /* One flow at a time: each path's own latency, not just the max. */
            for (size_t i = 0; i < n; i += 7) {
                assert_int_equal(ref_route(&fx.wf, f + i, 1, (route_mode)m, fx.ref, &sw), 0);
                assert_int_equal(route_add(&fx, f + i, 1, (route_mode)m), WT_OK);
                assert_int_equal(fx.st.max_hops, sw.max_hops);
                if (sw.max_latency == 0)
                    assert_true(fx.st.max_latency == 0);
                else
                    assert_true(rel_err(fx.st.max_latency, sw.max_latency) < 1e-12);
            }
        }
        close_mesh(&fx);
    }
}

/* ---- closed forms (route_line.c) against the reference ---- */

/* A closed form's list against the reference in every mode (the flows it
 * stands for, hop by hop) and against route_flows_sparse: the same links,
 * the same doubles, the same stats. */
static void expect_closed(fixture *fx, const route_sparse *sp, const route_stats *st, const route_flow *f, size_t n)
{
    for (int m = ROUTE_XY; m <= ROUTE_BALANCED; m++) {
        route_stats sw, sr;
        memset(fx->ref, 0, fx->nl * sizeof *fx->ref);
        assert_int_equal(ref_route(&fx->wf, f, n, (route_mode)m, fx->ref, &sw), 0);
        size_t nonzero = 0;
        for (size_t l = 0; l < fx->nl; l++)
            nonzero += fx->ref[l] != 0;
        assert_int_equal(sp->n, nonzero);
        for (size_t i = 0; i < sp->n; i++) {
            if (i > 0)
                assert_true(sp->link[i] > sp->link[i - 1]);
            assert_true(sp->load[i] == fx->ref[sp->link[i]]);
        }
        /* no flows at all: no latency, which rel_err cannot weigh */
        assert_true(sw.max_latency == 0 ? st->max_latency == 0 : rel_err(st->max_latency, sw.max_latency) < 1e-12);
        assert_int_equal(st->max_hops, sw.max_hops);
        assert_int_equal(st->detoured, sw.detoured);
        route_sparse rs = {0};
        assert_int_equal(route_flows_sparse(fx->rc, f, n, (route_mode)m, &rs, &sr, &fx->e), WT_OK);
        assert_int_equal(rs.n, sp->n);
        assert_memory_equal(rs.link, sp->link, sp->n * sizeof *sp->link);
        assert_memory_equal(rs.load, sp->load, sp->n * sizeof *sp->load);
        assert_int_equal(sr.max_hops, st->max_hops);
        assert_true(sr.max_latency == st->max_latency);
        free(rs.link);
        free(rs.load);
    }
}

/* A closed form that did not apply: no error, nothing listed. */
static void expect_uncovered(int rv, const int *covered, const route_sparse *sp)
{
    assert_int_equal(rv, WT_OK);
    assert_int_equal(*covered, 0);
    assert_int_equal(sp->n, 0);
}

/* Random lines of len units stride apart on a w x h mesh, in shuffled
 * order: from every place a line fits, some (rows of the mesh alike in
 * runs, so that classes of several rows or columns form), some twice.
 * Returns how many. */
static int random_lines(int w, int h, int len, int stride, int column, int *origin)
{
    int n = 0, span = (len - 1) * stride, K = column ? w : h, M = column ? h : w;
    int *keep = malloc(sizeof *keep * (size_t)M);
    assert_non_null(keep);
    for (int k = 0; k < K; k++) {
        if (k == 0 || rng_int(3) == 0) /* a new set of places for this mesh line and the next ones */
            for (int q = 0; q < M; q++)
                keep[q] = q + span < M && rng_int(3) == 0 ? 1 + (rng_int(5) == 0) : 0;
        for (int q = 0; q < M; q++)
            for (int t = 0; t < keep[q]; t++)
                origin[n++] = column ? q * w + k : k * w + q;
    }
    free(keep);
    for (int i = n - 1; i > 0; i--) {
        int j = rng_int(i + 1), t = origin[i];
        origin[i] = origin[j];
        origin[j] = t;
    }
    return n;
}

static void check_lines(int w, int h, uint64_t seed)
{
    fixture fx;
    rng_state = seed;
    open_mesh(&fx, w, h);
    renew_ctx(&fx);
    int column = rng_int(2), span = column ? h : w, len = 1 + rng_int(span);
    int stride = 1 + (len > 1 ? rng_int((span - 1) / (len - 1)) : rng_int(3));
    int *origin = malloc(sizeof *origin * (size_t)(2 * w * h + 1)), *to = malloc(sizeof *to * (size_t)len);
    route_flow *f = malloc(sizeof *f * (4 * (size_t)(w * h) * (size_t)len + 1));
    assert_true(origin && to && f);
    for (int p = 0; p < len; p++)
        to[p] = rng_int(4) == 0 ? p : rng_int(len);
    int two_way = rng_int(2), nl = random_lines(w, h, len, stride, column, origin), step = (column ? w : 1) * stride;
    size_t n = 0;
    for (int i = 0; i < nl; i++)
        for (int p = 0; p < len; p++) {
            if (to[p] == p)
                continue;
            int a = origin[i] + p * step, b = origin[i] + to[p] * step;
            f[n++] = (route_flow){a, b, 1.0};
            if (two_way)
                f[n++] = (route_flow){b, a, 1.0};
        }
    route_lines L = {origin, nl, len, column, to, two_way, stride};
    route_sparse sp = {0};
    route_stats st;
    int covered;
    assert_int_equal(route_lines_sparse(fx.rc, &L, &sp, &st, &covered, &fx.e), WT_OK);
    if (!covered)
        fail_msg("%dx%d seed %llu: %d lines of %d, stride %d, not covered", w, h, (unsigned long long)seed, nl, len,
                 stride);
    expect_closed(&fx, &sp, &st, f, n);
    /* appended after what the list holds: the same entries after it */
    route_sparse twice = {0};
    assert_int_equal(route_lines_sparse(fx.rc, &L, &twice, &st, &covered, &fx.e), WT_OK);
    size_t n1 = twice.n;
    assert_int_equal(route_lines_sparse(fx.rc, &L, &twice, &st, &covered, &fx.e), WT_OK);
    assert_int_equal(twice.n, 2 * n1);
    assert_int_equal(n1, sp.n);
    assert_true(n1 == 0 || (!memcmp(twice.link + n1, sp.link, n1 * sizeof *sp.link) &&
                            !memcmp(twice.load + n1, sp.load, n1 * sizeof *sp.load)));
    free(twice.link);
    free(twice.load);
    free(sp.link);
    free(sp.load);

    /* A line off the mesh, or a fault: not covered, nothing listed. */
    if (nl > 0) {
        int o = origin[0], far = column ? (h - 1) * w + o % w : (o / w) * w + w - 1;
        origin[nl] = far;
        route_lines off = {origin, nl + 1, len, column, to, two_way, stride};
        sp = (route_sparse){0};
        if (len > 1)
            expect_uncovered(route_lines_sparse(fx.rc, &off, &sp, &st, &covered, &fx.e), &covered, &sp);
        /* an origin before or past the mesh; a stride as long as the int */
        int outside[2] = {-1, w * h};
        for (int k = 0; k < 2; k++) {
            origin[nl] = outside[k];
            expect_uncovered(route_lines_sparse(fx.rc, &off, &sp, &st, &covered, &fx.e), &covered, &sp);
        }
        route_lines huge = {origin, nl, len > 1 ? len : 2, column, to, two_way, 1 << 30};
        int to2[2] = {1, 0};
        if (len == 1)
            huge.to = to2;
        expect_uncovered(route_lines_sparse(fx.rc, &huge, &sp, &st, &covered, &fx.e), &covered, &sp);
    }
    if (w > 1) {
        wt_err e;
        assert_int_equal(wafer_fail_link(&fx.wf, rng_int(w - 1), rng_int(h), WAFER_E, &e), WT_OK);
        renew_ctx(&fx);
        expect_uncovered(route_lines_sparse(fx.rc, &L, &sp, &st, &covered, &fx.e), &covered, &sp);
    }
    free(origin);
    free(to);
    free(f);
    close_mesh(&fx);
}

/* Lines along rows and columns, of every length and stride, interleaved
 * and twice, on meshes of several shapes: the loads of the flows they
 * stand for. */
static void test_lines_closed_form(void **state)
{
    (void)state;
    static const int shapes[][2] = {{5, 7}, {8, 3}, {1, 6}, {6, 1}, {9, 9}, {12, 4}, {2, 2}, {16, 12}, {3, 20}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (uint64_t s = 1; s <= 40; s++)
            check_lines(shapes[i][0], shapes[i][1], 100 * i + s);
}

static void check_rows(int w, int h, uint64_t seed)
{
    fixture fx;
    rng_state = seed;
    open_mesh(&fx, w, h);
    renew_ctx(&fx);
    int nu = w * h, *on = malloc(sizeof *on * (size_t)nu), *port_x = malloc(sizeof *port_x * (size_t)w);
    route_flow *f = malloc(sizeof *f * (size_t)nu);
    assert_true(on && port_x && f);
    /* ports at either edge, as a store's, or anywhere */
    for (int x = 0; x < w; x++)
        port_x[x] = seed % 2 ? (x < w / 2 ? 0 : w - 1) : rng_int(w);
    for (int back = 0; back <= 1; back++) {
        size_t n = 0;
        for (int u = 0; u < nu; u++) {
            /* every other row has the units of the row above on: rows alike */
            int alike = u >= w && (u / w) % 2 == (int)(seed % 2);
            on[u] = (alike ? on[u - w] >= 0 : rng_int(4) != 0) ? u : -1;
            int port = wafer_unit(&fx.wf, port_x[u % w], u / w);
            if (on[u] >= 0 && port != u)
                f[n++] = back ? (route_flow){port, u, 1.0} : (route_flow){u, port, 1.0};
        }
        route_sparse sp = {0};
        route_stats st;
        int covered;
        assert_int_equal(route_rows_sparse(fx.rc, on, port_x, back, &sp, &st, &covered, &fx.e), WT_OK);
        assert_int_equal(covered, 1);
        expect_closed(&fx, &sp, &st, f, n);
        free(sp.link);
        free(sp.load);
    }
    wt_err e;
    if (h > 1) {
        assert_int_equal(wafer_fail_unit(&fx.wf, rng_int(w), rng_int(h), &e), WT_OK);
        renew_ctx(&fx);
        route_sparse sp = {0};
        route_stats st;
        int covered;
        expect_uncovered(route_rows_sparse(fx.rc, on, port_x, 0, &sp, &st, &covered, &fx.e), &covered, &sp);
    }
    free(on);
    free(port_x);
    free(f);
    close_mesh(&fx);
}

/* Row flows to and from a column per x (the store's ports). */
static void test_rows_closed_form(void **state)
{
    (void)state;
    static const int shapes[][2] = {{5, 7}, {8, 3}, {1, 6}, {6, 1}, {9, 9}, {13, 2}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (uint64_t s = 1; s <= 10; s++)
            check_rows(shapes[i][0], shapes[i][1], 200 * i + s);
}

/* Several wafers: the latency of crossings is the router's to tell. */
static void test_closed_form_multiwafer(void **state)
{
    (void)state;
    fixture fx;
    open_wafers(&fx, 4, 4, 2, 1);
    renew_ctx(&fx);
    int origin[1] = {0}, to[8] = {1, 2, 3, 4, 5, 6, 7, 0}, on[32], port_x[8] = {0};
    for (int u = 0; u < 32; u++)
        on[u] = u;
    route_lines L = {origin, 1, 8, 0, to, 0, 1};
    route_sparse sp = {0};
    route_stats st;
    int covered = 1;
    expect_uncovered(route_lines_sparse(fx.rc, &L, &sp, &st, &covered, &fx.e), &covered, &sp);
    covered = 1;
    expect_uncovered(route_rows_sparse(fx.rc, on, port_x, 0, &sp, &st, &covered, &fx.e), &covered, &sp);
    close_mesh(&fx);
}

/* A bad flow after good ones in a split call: the error, the list as it
 * was, and clean cells for the next call (its list is the loads alone). */
static void check_split_bad_flow(void)
{
    fixture fx;
    open_mesh(&fx, 7, 9);
    renew_ctx(&fx);
    route_flow f[] = {flow(&fx, 0, 0, 6, 8, 2.0), flow(&fx, 6, 8, 0, 0, 2.0), {0, 63, 2.0},
                      flow(&fx, 3, 2, 3, 7, 2.0)};
    route_sparse sp = {0};
    assert_int_equal(route_flows_sparse(fx.rc, f, 4, ROUTE_XY, &sp, &fx.st, &fx.e), WT_EINTERNAL);
    assert_int_equal(sp.n, 0);
    assert_int_equal(route_flows_sparse(fx.rc, &f[3], 1, ROUTE_XY, &sp, &fx.st, &fx.e), WT_OK);
    assert_int_equal(sp.n, 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(sp.link[i], (int)slot(&fx, 3, 2 + i, WAFER_S));
        assert_true(sp.load[i] == 2.0);
    }
    free(sp.link);
    free(sp.load);
    close_mesh(&fx);
}

/* Bytes that differ only in a later part of the split check: two flows
 * to an empty ring first (they load nothing, so they set no bytes), then
 * eight of 2 bytes and one of 5 over the E link of (0,0). Read as all
 * alike, the link would carry 9 x 2; it carries 8 x 2 + 5 = 21. */
static void check_split_mixed_late(void)
{
    fixture fx;
    open_mesh(&fx, 3, 2);
    route_flow f[11];
    f[0] = flow(&fx, 2, 1, 2, 1, 7.0);
    f[1] = flow(&fx, 1, 1, 1, 1, 3.0);
    for (int i = 2; i < 10; i++)
        f[i] = flow(&fx, 0, 0, 1, 0, 2.0);
    f[10] = flow(&fx, 0, 0, 1, 0, 5.0);
    size_t s[] = {slot(&fx, 0, 0, WAFER_E)};
    double v[] = {21};
    route_expect(&fx, f, 11, ROUTE_XY, s, v, 1);
    /* the same with the 5 bytes first: a part's own bytes differ from
     * the first part's */
    f[2] = f[10];
    f[10] = flow(&fx, 0, 0, 1, 0, 2.0);
    route_expect(&fx, f, 11, ROUTE_XY, s, v, 1);
    close_mesh(&fx);
}

/* Calls split over 2, 5 and 8 parts (more parts than rows on the thin
 * meshes): the lists, doubles and stats of one walk, checked by the same
 * tests against the hop-by-hop reference and the dense call (one walk). */
static void test_split_parts(void **state)
{
    for (int parts = 2; parts <= PAR_MAX; parts += 3) {
        split_parts = parts;
        test_random_uniform(state);
        test_uniform_exact(state);
        test_sparse_append(state);
        test_lines_closed_form(state);
        test_rows_closed_form(state);
        check_split_bad_flow();
        check_split_mixed_late();
    }
    split_parts = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xy_single),
        cmocka_unit_test(test_yx_single),
        cmocka_unit_test(test_west_north_to_edge),
        cmocka_unit_test(test_balanced_halves),
        cmocka_unit_test(test_src_is_dst),
        cmocka_unit_test(test_dead_link_takes_other_order),
        cmocka_unit_test(test_detour_by_hand),
        cmocka_unit_test(test_cut_off),
        cmocka_unit_test(test_bad_flows),
        cmocka_unit_test(test_multiwafer_latency),
        cmocka_unit_test(test_mode_names),
        cmocka_unit_test(test_random_5x7),
        cmocka_unit_test(test_random_8x8),
        cmocka_unit_test(test_random_wide),
        cmocka_unit_test(test_random_sparse),
        cmocka_unit_test(test_random_uniform),
        cmocka_unit_test(test_precision),
        cmocka_unit_test(test_uniform_exact),
        cmocka_unit_test(test_calls_independent),
        cmocka_unit_test(test_sparse_append),
        cmocka_unit_test(test_random_multiwafer),
        cmocka_unit_test(test_lines_closed_form),
        cmocka_unit_test(test_rows_closed_form),
        cmocka_unit_test(test_closed_form_multiwafer),
        cmocka_unit_test(test_split_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
