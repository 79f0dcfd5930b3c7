/*
 * test_layout.c - layouts through ydoc: the stock layouts and their numbers,
 * defaults, inter-wafer links, faults, and every error with its exact
 * file:line:col. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout.h"
#include "sim.h"
#include "strategy.h"
#include "wafer.h"
#include "ydoc.h"

#define FIX "tests/fixtures/layouts/"

/* Loads path or fails the test with the loader's message. */
static void load_ok(const char *path, wafer *wf)
{
    wt_err e = {{0}};
    int rc = layout_load(path, wf, &e);
    if (rc != WT_OK)
        fail_msg("%s: %s", path, e.msg);
}

/* Relative comparison for derived figures (totals over a wafer). */
static void assert_near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g within %g", got, want, rel);
}

static int link_dead(const wafer *wf, int x, int y, int dir)
{
    return wf->link_dead[(size_t)wafer_unit(wf, x, y) * WAFER_NDIR + (size_t)dir];
}

static int count_dead_links(const wafer *wf)
{
    int n = 0;
    for (size_t i = 0; i < wafer_nlinks(wf); i++)
        n += wf->link_dead[i] != 0;
    return n;
}

static void test_default(void **state)
{
    (void)state;
    wafer wf;
    load_ok("layouts/default.yaml", &wf);
    assert_string_equal(wf.name, "default");
    assert_int_equal(wf.w, 16);
    assert_int_equal(wf.h, 16);
    assert_int_equal(wf.wafer_w, 16);
    assert_int_equal(wf.wafer_h, 16);
    assert_int_equal(wf.wafers_x, 1);
    assert_int_equal(wf.wafers_y, 1);
    assert_true(wf.peak_flops == 362e12);
    assert_true(wf.sram_bytes == 440e6);
    assert_true(wf.dram_bytes == 0);
    assert_true(wf.dram_bw == 0);
    assert_true(wf.efficiency == 0.8);
    assert_true(wf.link_bw == 2e12);
    assert_true(wf.link_lat == 50e-9);
    assert_true(wf.link_overhead == 1e-6);
    assert_true(wf.chunk_overhead == 100e-9);
    assert_true(wf.iw_bw == 2e12 * 16);
    assert_true(wf.iw_lat == 50e-9);
    assert_int_equal(wafer_live_units(&wf), 256);
    assert_int_equal(count_dead_links(&wf), 0);
    wafer_free(&wf);
}

static void test_wse2(void **state)
{
    (void)state;
    wafer wf;
    load_ok("layouts/wse2.yaml", &wf);
    assert_string_equal(wf.name, "wse2");
    assert_int_equal(wf.w, 750);
    assert_int_equal(wf.h, 1134);
    assert_int_equal(wafer_nunits(&wf), 850500);
    assert_true(wafer_nunits(&wf) >= 850000);
    assert_true(wf.sram_bytes == 48e3);
    assert_true(wf.link_bw == 4.4e9); /* 4 bytes per cycle at 1.1 GHz */
    assert_true(wf.link_lat == 1e-9);
    assert_true(wf.peak_flops == 8.8e9);
    assert_near(wf.peak_flops * (double)wafer_nunits(&wf), 7.5e15, 0.01);
    assert_near(wf.sram_bytes * (double)wafer_nunits(&wf), 40e9, 0.025);
    assert_true(wf.dram_bytes == 0);
    wafer_free(&wf);
}

/* A store: its figures, and each unit's port the nearest unit on an edge
 * with ports (ties to the east). wse2 has one on its west and east edges. */
static void test_store(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "store-west.yaml", &wf);
    assert_true(wf.store_bytes == 2e12 && wf.store_bw_in == 3e9 && wf.store_bw_out == 2e9);
    assert_true(wf.store_lat == 1e-6);
    assert_int_equal(wf.store_ports, 1u << WAFER_W | 1u << WAFER_E);
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 1, 1)), wafer_unit(&wf, 0, 1));
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 3, 2)), wafer_unit(&wf, 4, 2));
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 2, 0)), wafer_unit(&wf, 4, 0));
    /* dead units are no ports: the nearest live one along the edge (south
     * first on a tie), else the other edge, else none */
    assert_int_equal(wafer_fail_unit(&wf, 0, 1, NULL), WT_OK);
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 1, 1)), wafer_unit(&wf, 0, 2));
    assert_int_equal(wafer_fail_unit(&wf, 0, 2, NULL), WT_OK);
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 1, 1)), wafer_unit(&wf, 0, 0));
    assert_int_equal(wafer_fail_unit(&wf, 0, 0, NULL), WT_OK);
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 1, 1)), wafer_unit(&wf, 4, 1));
    for (int y = 0; y < 3; y++)
        assert_int_equal(wafer_fail_unit(&wf, 4, y, NULL), WT_OK);
    assert_int_equal(wafer_store_port(&wf, wafer_unit(&wf, 1, 1)), -1);
    wafer_free(&wf);
    load_ok("layouts/default.yaml", &wf);
    assert_int_equal(wf.store_ports, 0);
    assert_int_equal(wafer_store_port(&wf, 5), -1);
    wafer_free(&wf);
    load_ok("layouts/wse2.yaml", &wf);
    assert_true(wf.store_bw_in == 150e9 && wf.store_bw_out == 150e9);
    assert_int_equal(wf.store_ports, 1u << WAFER_W | 1u << WAFER_E);
    wafer_free(&wf);
}

/* The routers of the flit level: what router: sets, BookSim2's defaults
 * for the rest and for layouts without the section. */
static void test_router(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "router.yaml", &wf);
    flit_cfg want;
    flit_cfg_defaults(&want);
    want.num_vcs = 4, want.vc_buf_size = 2, want.wait_for_tail_credit = 0, want.credit_delay = 1;
    want.link_latency = 2;
    assert_memory_equal(&wf.router, &want, sizeof want);
    assert_int_equal(wf.flit_bytes, 8);
    wafer_free(&wf);
    load_ok("layouts/default.yaml", &wf);
    flit_cfg_defaults(&want);
    assert_memory_equal(&wf.router, &want, sizeof want);
    assert_int_equal(wf.flit_bytes, WAFER_FLIT_BYTES);
    wafer_free(&wf);
    load_ok("layouts/wse2.yaml", &wf);
    assert_int_equal(wf.flit_bytes, 4); /* 32-bit fabric links */
    assert_memory_equal(&wf.router, &want, sizeof want);
    wafer_free(&wf);
}

/* A recommended strategy: kept as strategy_spec's text, which gives back
 * the strategy and its options. */
static void test_strategy(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "strategy-stream.yaml", &wf);
    assert_string_equal(wf.strategy, "DP2,TATP4;exec=stream;checkpoint=full;chunk=4KB");
    assert_int_equal(wf.strategy_microbatch, 2);
    strategy s;
    wt_err e;
    assert_int_equal(strategy_spec(wf.strategy, &s, &e), WT_OK);
    assert_int_equal(s.dp, 2);
    assert_int_equal(s.tatp, 4);
    assert_int_equal(s.exec, EXEC_STREAM);
    assert_int_equal(s.checkpoint, RECOMPUTE_FULL);
    assert_true(s.chunk == 4000);
    assert_int_equal(strategy_spec("DP2;exec", &s, &e), WT_EINPUT);
    assert_string_equal(e.msg, "strategy option 'exec': expected name=value");
    wafer_free(&wf);
    load_ok(FIX "store-west.yaml", &wf); /* none */
    assert_string_equal(wf.strategy, "");
    wafer_free(&wf);
}

static void test_wse3(void **state)
{
    (void)state;
    wafer wf;
    load_ok("layouts/wse3.yaml", &wf);
    assert_string_equal(wf.name, "wse3");
    assert_int_equal(wafer_nunits(&wf), 900000);
    assert_int_equal(wf.w, 750);
    assert_int_equal(wf.h, 1200);
    assert_true(wf.peak_flops == 138.9e9);
    assert_true(wf.sram_bytes == 48.9e3);
    assert_near(wf.peak_flops * 900000, 125e15, 0.001);
    assert_near(wf.sram_bytes * 900000, 44e9, 0.001);
    assert_true(wf.link_bw == 4.4e9);
    assert_true(wf.link_lat == 1e-9);
    wafer_free(&wf);
}

static void test_dojo_tile(void **state)
{
    (void)state;
    wafer wf;
    load_ok("layouts/dojo-tile.yaml", &wf);
    assert_string_equal(wf.name, "dojo-tile");
    assert_int_equal(wf.w, 5);
    assert_int_equal(wf.h, 5);
    assert_true(wf.peak_flops == 362e12);
    assert_true(wf.sram_bytes == 440e6);
    assert_near(wf.peak_flops * 25, 9e15, 0.01);
    assert_true(wf.sram_bytes * 25 == 11e9);
    assert_true(wf.link_bw == 2e12);
    assert_true(wf.link_lat == 50e-9);
    /* five DIPs of 32 GB and 800 GB/s on the west edge */
    assert_true(wf.store_bytes == 160e9 && wf.store_bw_in == 2e12 && wf.store_bw_out == 2e12);
    assert_int_equal(wf.store_ports, 1u << WAFER_W);
    wafer_free(&wf);
}

static void test_wsc_6x9(void **state)
{
    (void)state;
    wafer wf;
    load_ok("layouts/wsc-6x9.yaml", &wf);
    assert_string_equal(wf.name, "wsc-6x9");
    assert_int_equal(wf.w, 6);
    assert_int_equal(wf.h, 9);
    assert_int_equal(wafer_nunits(&wf), 54);
    assert_true(wf.dram_bytes == 64e9);
    assert_true(wf.dram_bw == 2e12);
    assert_true(wf.link_bw == 2e12);
    assert_true(wf.peak_flops == 500e12);
    assert_true(wf.sram_bytes == 128e6);
    assert_true(wafer_unit_capacity(&wf) == 128e6 + 64e9);
    wafer_free(&wf);
}

/* 4 x 4 wafers of 16 x 16: a crossing link gets 1/16 of its edge's 9 TB/s. */
static void test_multiwafer(void **state)
{
    (void)state;
    wafer wf;
    load_ok("layouts/multiwafer-4x4.yaml", &wf);
    assert_string_equal(wf.name, "multiwafer-4x4");
    assert_int_equal(wf.w, 64);
    assert_int_equal(wf.h, 64);
    assert_int_equal(wf.wafer_w, 16);
    assert_int_equal(wf.wafer_h, 16);
    assert_int_equal(wf.wafers_x, 4);
    assert_int_equal(wf.wafers_y, 4);
    assert_true(wf.iw_bw == 9e12);
    assert_true(wf.iw_lat == 1.5e-6);

    int u = wafer_unit(&wf, 15, 3);
    assert_true(wafer_link_crosses(&wf, u, WAFER_E));
    assert_true(wafer_link_bw(&wf, u, WAFER_E) == 9e12 / 16);
    assert_true(wafer_link_bw(&wf, u, WAFER_E) == 562.5e9);
    assert_true(wafer_link_lat(&wf, u, WAFER_E) == 1.5e-6);
    assert_true(wafer_link_bw(&wf, wafer_unit(&wf, 16, 3), WAFER_W) == 562.5e9);
    assert_true(wafer_link_bw(&wf, wafer_unit(&wf, 40, 47), WAFER_S) == 562.5e9);
    assert_true(wafer_link_bw(&wf, wafer_unit(&wf, 40, 48), WAFER_N) == 562.5e9);
    /* Inside a wafer: the on-wafer link. */
    assert_false(wafer_link_crosses(&wf, wafer_unit(&wf, 14, 3), WAFER_E));
    assert_true(wafer_link_bw(&wf, wafer_unit(&wf, 14, 3), WAFER_E) == 2e12);
    assert_true(wafer_link_lat(&wf, wafer_unit(&wf, 14, 3), WAFER_E) == 50e-9);
    assert_true(wafer_link_bw(&wf, wafer_unit(&wf, 15, 3), WAFER_W) == 2e12);
    wafer_free(&wf);
}

/* Only the required keys: the rest are the documented defaults. */
/* A value at either bound of its range is the hardware it says. */
static void test_range_bounds(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "range-bounds.yaml", &wf);
    assert_true(wf.peak_flops == 1e18);
    assert_true(wf.sram_bytes == 1e3);
    assert_true(wf.dram_bytes == 1e14);
    assert_true(wf.dram_bw == 1e15);
    assert_true(wf.efficiency == 0.01);
    assert_true(wf.link_bw == 1e6);
    assert_true(wf.link_lat == 1);
    assert_true(wf.link_overhead == 0);
    assert_true(wf.chunk_overhead == 1);
    assert_true(wf.iw_bw == 1e18);
    assert_true(wf.iw_lat == 0);
    assert_true(wf.store_bytes == 1e6);
    assert_true(wf.store_bw_in == 1e6);
    assert_true(wf.store_bw_out == 1e15);
    assert_true(wf.store_lat == 1);
    wafer_free(&wf);
}

static void test_defaults(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "minimal.yaml", &wf);
    assert_string_equal(wf.name, "t");
    assert_int_equal(wf.wafers_x, 1);
    assert_int_equal(wf.wafers_y, 1);
    assert_int_equal(wf.w, 16);
    assert_true(wf.efficiency == 0.8);
    assert_true(wf.dram_bytes == 0);
    assert_true(wf.dram_bw == 0);
    assert_true(wf.link_overhead == 1e-6);
    assert_true(wf.chunk_overhead == 100e-9);
    /* interwafer: as fast as the links it replaces */
    assert_true(wf.iw_bw == 2e12 * 16);
    assert_true(wf.iw_lat == 50e-9);
    assert_int_equal(wafer_live_units(&wf), 256);
    assert_int_equal(count_dead_links(&wf), 0);
    wafer_free(&wf);
}

static void test_faults(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "faults.yaml", &wf);
    assert_int_equal(wafer_live_units(&wf), 255);
    assert_true(wf.unit_dead[wafer_unit(&wf, 3, 4)]);
    /* A dead unit takes its links out of use without failing them. */
    assert_false(wafer_link_usable(&wf, wafer_unit(&wf, 2, 4), WAFER_E));
    assert_false(link_dead(&wf, 2, 4, WAFER_E));

    /* "5,6,E" fails the link both ways. */
    assert_true(link_dead(&wf, 5, 6, WAFER_E));
    assert_true(link_dead(&wf, 6, 6, WAFER_W));
    assert_false(wafer_link_usable(&wf, wafer_unit(&wf, 5, 6), WAFER_E));
    assert_false(wafer_link_usable(&wf, wafer_unit(&wf, 6, 6), WAFER_W));
    assert_true(wafer_link_usable(&wf, wafer_unit(&wf, 5, 6), WAFER_W));
    assert_true(wafer_link_usable(&wf, wafer_unit(&wf, 5, 6), WAFER_S));

    /* " 0 , 0 , s ": blanks and a lower-case direction are accepted. */
    assert_true(link_dead(&wf, 0, 0, WAFER_S));
    assert_true(link_dead(&wf, 0, 1, WAFER_N));
    assert_int_equal(count_dead_links(&wf), 4);
    wafer_free(&wf);
}

/* Keys in reverse order and faults that only fit the global mesh of both
 * wafers: values are collected first, the wafer is built last. */
static void test_any_key_order(void **state)
{
    (void)state;
    wafer wf;
    load_ok(FIX "order.yaml", &wf);
    assert_string_equal(wf.name, "reverse order");
    assert_int_equal(wf.w, 32);
    assert_int_equal(wf.h, 16);
    assert_int_equal(wf.wafers_x, 2);
    assert_int_equal(wf.wafers_y, 1);
    assert_true(wf.peak_flops == 1e15);
    assert_true(wf.sram_bytes == 1536000);
    assert_true(wf.dram_bytes == 16.0 * 1073741824.0);
    assert_true(wf.dram_bw == 1.5e12);
    assert_true(wf.efficiency == 1);
    assert_true(wf.link_bw == 100.0 * 1073741824.0);
    assert_true(wf.link_lat == 0);
    assert_true(wf.link_overhead == 0);
    assert_true(wf.chunk_overhead == 0);
    assert_true(wf.iw_lat == 2e-6);
    /* No interwafer bandwidth given: a crossing link is as fast as any. */
    assert_true(wf.iw_bw == wf.link_bw * 16);
    assert_true(wafer_link_bw(&wf, wafer_unit(&wf, 15, 0), WAFER_E) == wf.link_bw);
    assert_true(wf.unit_dead[wafer_unit(&wf, 31, 15)]);
    assert_true(link_dead(&wf, 16, 2, WAFER_W));
    assert_true(link_dead(&wf, 15, 2, WAFER_E));
    assert_true(wafer_link_crosses(&wf, wafer_unit(&wf, 16, 2), WAFER_W));
    wafer_free(&wf);
}

typedef struct bad_case {
    const char *file;
    const char *msg; /* the whole message, location included */
} bad_case;

static const bad_case bad_cases[] = {
    /* keys */
    {"bad-unknown-key.yaml",
     "3:1: unknown key 'meshh' (allowed: name, mesh, wafers, unit, link, interwafer, faults, store, strategy, router)"},
    {"bad-unknown-subkey.yaml",
     "6:3: unit: unknown key 'sramm' (allowed: compute, sram, dram, dram_bandwidth, efficiency)"},
    {"bad-missing-mesh.yaml", "1:1: missing required key 'mesh'"},
    {"bad-store-no-bandwidth.yaml", "6:3: store: missing required key 'bandwidth_in'"},
    {"bad-store-port.yaml", "9:10: store.ports: 'up' is not an edge of the mesh (east, west, north, south)"},
    {"bad-router-vcs.yaml", "6:12: router.num_vcs: expected a whole number from 1 to 32"},
    {"bad-router-buffers.yaml", "5:23: router.vc_buf_size: expected a whole number from 1 to 65536"},
    {"bad-router-key.yaml",
     "7:3: router: unknown key 'buffers' (allowed: num_vcs, vc_buf_size, wait_for_tail_credit, alloc_iters, "
     "credit_delay, routing_delay, vc_alloc_delay, sw_alloc_delay, st_final_delay, link_latency, flit_bytes)"},
    {"bad-strategy-option.yaml", "7:9: strategy.exec: exec 'streaming' is not one of resident, stream"},
    {"bad-strategy-microbatch.yaml", "7:15: strategy.microbatch: expected a whole number from 1 to 1048576"},
    {"bad-strategy-semicolon.yaml", "7:14: strategy.placement: must not contain ';' or '='"},
    {"bad-strategy-no-parallel.yaml", "6:3: strategy: missing key 'parallel' (e.g. parallel: DP8,TATP16)"},
    {"bad-strategy-parallel.yaml", "6:13: strategy.parallel: strategy 'DP3,XP5': unknown dimension 'XP' (expected DP, TP, SP, PP, TATP)"},
    {"bad-missing-bandwidth.yaml", "7:3: link: missing required key 'bandwidth'"},
    {"bad-missing-compute.yaml", "3:7: unit: missing required key 'compute'"},
    {"bad-duplicate.yaml", "9:1: duplicate key 'mesh' (first given on line 2)"},
    {"bad-duplicate-subkey.yaml", "9:3: link: duplicate key 'bandwidth' (first given on line 7)"},
    {"bad-key-not-scalar.yaml", "9:1: expected a key name, found a list"},
    {"bad-key-newline.yaml",
     "2:1: unknown key 'me sh' (allowed: name, mesh, wafers, unit, link, interwafer, faults, store, strategy, router)"},
    /* node types */
    {"bad-list-for-scalar.yaml", "5:9: unit.sram: expected a single value, found a list"},
    {"bad-map-for-scalar.yaml", "2:7: mesh: expected a single value, found a mapping"},
    {"bad-scalar-for-map.yaml", "3:7: unit: expected a mapping of keys, found a single value"},
    {"bad-missing-value.yaml", "5:8: unit.sram: expected a single value, found nothing"},
    /* units and numbers */
    {"bad-unit.yaml", "7:14: link.bandwidth: unknown unit 'Tb/s', did you mean 'TB/s'?"},
    {"bad-unit-bytes-for-bw.yaml", "7:14: link.bandwidth: unknown unit 'TB', did you mean 'TB/s'?"},
    {"bad-unit-kind.yaml",
     "8:12: link.latency: unknown unit 'MB', expected one of s, ms, us, \xc2\xb5s, ns"},
    {"bad-missing-unit.yaml",
     "5:9: unit.sram: missing unit, expected one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"},
    {"bad-not-number.yaml", "4:12: unit.compute: not a number"},
    {"bad-zero-sram.yaml", "5:9: unit.sram: must be from 1 KB to 1 TB"},
    {"bad-zero-compute.yaml", "4:12: unit.compute: must be from 1 GFLOPS to 1000 PFLOPS"},
    {"bad-negative-bw.yaml", "7:14: link.bandwidth: must be from 1 MB/s to 1000 TB/s"},
    {"bad-negative-latency.yaml", "8:12: link.latency: must be from 0 to 1 s"},
    {"bad-negative-dram.yaml", "6:9: unit.dram: must be from 0 to 100 TB"},
    {"bad-zero-iw.yaml", "9:25: interwafer.bandwidth: must be from 1 MB/s to 1000000 TB/s"},
    {"bad-efficiency.yaml", "6:15: unit.efficiency: must be from 0.01 to 1"},
    /* every number of the layout ranges' table, just outside its range */
    {"bad-absurd-bw.yaml", "10:14: link.bandwidth: must be from 1 MB/s to 1000 TB/s"},
    {"bad-overflow-bw.yaml", "10:14: link.bandwidth: number out of range"},
    {"bad-huge-compute.yaml", "4:12: unit.compute: must be from 1 GFLOPS to 1000 PFLOPS"},
    {"bad-tiny-sram.yaml", "5:9: unit.sram: must be from 1 KB to 1 TB"},
    {"bad-huge-dram.yaml", "6:9: unit.dram: must be from 0 to 100 TB"},
    {"bad-huge-dram-bw.yaml", "7:19: unit.dram_bandwidth: must be from 0 to 1000 TB/s"},
    {"bad-low-efficiency.yaml", "8:15: unit.efficiency: must be from 0.01 to 1"},
    {"bad-slow-latency.yaml", "11:12: link.latency: must be from 0 to 1 s"},
    {"bad-huge-overhead.yaml", "12:13: link.overhead: must be from 0 to 1 s"},
    {"bad-huge-chunk-overhead.yaml", "13:19: link.chunk_overhead: must be from 0 to 1 s"},
    {"bad-huge-iw-bw.yaml", "14:25: interwafer.bandwidth: must be from 1 MB/s to 1000000 TB/s"},
    {"bad-slow-iw-latency.yaml", "14:42: interwafer.latency: must be from 0 to 1 s"},
    {"bad-huge-store.yaml", "16:13: store.capacity: must be from 1 MB to 1000000 TB"},
    {"bad-slow-store-in.yaml", "17:17: store.bandwidth_in: must be from 1 MB/s to 1000 TB/s"},
    {"bad-huge-store-out.yaml", "18:18: store.bandwidth_out: must be from 1 MB/s to 1000 TB/s"},
    {"bad-slow-store-latency.yaml", "19:12: store.latency: must be from 0 to 1 s"},
    {"bad-efficiency-percent.yaml", "6:15: unit.efficiency: expected a plain number such as 0.8"},
    {"bad-name-long.yaml", "1:7: name: longer than 63 characters"},
    {"bad-name-empty.yaml", "1:7: name: must not be empty"},
    /* mesh */
    {"bad-mesh.yaml", "2:7: mesh: expected WxH with whole numbers, such as 16x16"},
    {"bad-mesh-zero.yaml", "2:7: mesh: each side must be from 1 to 65536"},
    {"bad-wafers.yaml", "3:9: wafers: expected WxH with whole numbers, such as 16x16"},
    {"bad-mesh-huge.yaml",
     "2:7: mesh: mesh of 65536 x 65536 units is larger than wafertop handles (64 Mi units)"},
    /* faults */
    {"bad-fault-off-mesh.yaml", "10:18: faults.units: unit 16,3 is outside the 16x16 mesh"},
    {"bad-fault-negative.yaml", "10:11: faults.units: unit -1,3 is outside the 16x16 mesh"},
    {"bad-fault-syntax.yaml", "10:11: faults.units: expected \"x,y\" such as \"3,4\", found '3;4'"},
    {"bad-fault-unquoted.yaml", "10:11: faults.units: expected \"x,y\" such as \"3,4\", found '3'"},
    {"bad-fault-not-list.yaml",
     "10:10: faults.units: expected a list such as [\"3,4\"], found a single value"},
    {"bad-fault-dir.yaml", "10:11: faults.links: unknown direction 'Q', expected E, W, N or S"},
    {"bad-fault-link-syntax.yaml",
     "10:11: faults.links: expected \"x,y,D\" such as \"3,4,E\" (D is E, W, N or S), found '3,4'"},
    {"bad-fault-link-leaves.yaml", "10:11: faults.links: link 15,4,E leaves the 16x16 mesh"},
    {"bad-fault-link-off-mesh.yaml",
     "10:11: faults.links: link 0,16,N starts outside the 16x16 mesh"},
    /* not a layout at all */
    {"bad-tab.yaml", "5:1: tab characters are not allowed in indentation, use spaces"},
    {"bad-tab-after-spaces.yaml", "8:3: tab characters are not allowed in indentation, use spaces"},
    {"bad-not-yaml.yaml",
     "3:5: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence at 2:7)"},
    {"bad-binary.yaml", "1:1: not a YAML text file: invalid leading UTF-8 octet"},
    {"bad-c-source.yaml", "1:1: expected a mapping of keys at the top level, found a single value"},
    {"bad-root-list.yaml", "1:1: expected a mapping of keys at the top level, found a list"},
    {"bad-empty.yaml", "1:1: empty file, expected a mapping of keys"},
    {"bad-comment-only.yaml", "1:1: empty file, expected a mapping of keys"},
    {"bad-two-documents.yaml", "10:1: a second YAML document; a file holds exactly one"},
};

/* Every bad fixture fails with WT_EINPUT, exactly its one-line message, and
 * leaves nothing allocated in the wafer. */
static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        char path[256], want[600];
        snprintf(path, sizeof path, FIX "%s", bad_cases[i].file);
        snprintf(want, sizeof want, "%s:%s", path, bad_cases[i].msg);
        wafer wf;
        wt_err e = {{0}};
        int rc = layout_load(path, &wf, &e);
        if (rc != WT_EINPUT)
            fail_msg("%s: returned %d (%s)", path, rc, e.msg);
        assert_string_equal(e.msg, want);
        assert_null(strchr(e.msg, '\n'));
        assert_null(wf.unit_dead);
        assert_null(wf.link_dead);
    }
}

static void test_missing_file(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    assert_int_equal(layout_load(FIX "no-such-layout.yaml", &wf, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "no-such-layout.yaml: cannot open: No such file or directory");
    assert_int_equal(layout_load("tests/fixtures", &wf, &e), WT_EINPUT);
    assert_string_equal(e.msg, "tests/fixtures: not a regular file (a directory); give a YAML file");
}

/* Writes text (len bytes) to a fresh file in dir named name; returns its path
 * in path. */
static void write_tmp(const char *dir, const char *name, const char *text, size_t len, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* "name: " then depth lists nested in one another: the root mapping is
 * level 1, so the deepest list is level depth + 1. */
static char *nested(int depth, size_t *len)
{
    *len = 6 + 2 * (size_t)depth + 1;
    char *s = malloc(*len + 1);
    assert_non_null(s);
    memcpy(s, "name: ", 6);
    memset(s + 6, '[', (size_t)depth);
    memset(s + 6 + depth, ']', (size_t)depth);
    s[*len - 1] = '\n';
    s[*len] = '\0';
    return s;
}

/* Input files: only regular files of at most 1 MiB, nesting at most
 * YDOC_MAX_DEPTH levels, each refused at once with one line naming it. */
static void test_input_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/wt-layout-XXXXXX", path[256], want[400];
    assert_non_null(mkdtemp(dir));
    wafer wf;
    wt_err e;

    /* The 100,000 levels (200 KB; over 30 s before): the 64th '['
     * is level 65, at column 6 + 64. */
    size_t len;
    char *deep = nested(100000, &len);
    write_tmp(dir, "deep.yaml", deep, len, path, sizeof path);
    free(deep);
    assert_int_equal(layout_load(path, &wf, &e), WT_EINPUT);
    snprintf(want, sizeof want, "%s:1:70: lists and mappings nested deeper than 64 levels", path);
    assert_string_equal(e.msg, want);
    /* 64 levels are read (and refused for what they are) */
    deep = nested(63, &len);
    write_tmp(dir, "deep63.yaml", deep, len, path, sizeof path);
    free(deep);
    assert_int_equal(layout_load(path, &wf, &e), WT_EINPUT);
    snprintf(want, sizeof want, "%s:1:7: name: expected a single value, found a list", path);
    assert_string_equal(e.msg, want);
    /* block nesting counts alike: line k + 1 opens level k + 1 */
    char block[8192] = "name:\n";
    for (int k = 1; k <= 70; k++)
        snprintf(block + strlen(block), sizeof block - strlen(block), "%*sa:\n", k, "");
    write_tmp(dir, "block.yaml", block, strlen(block), path, sizeof path);
    assert_int_equal(layout_load(path, &wf, &e), WT_EINPUT);
    snprintf(want, sizeof want, "%s:65:65: lists and mappings nested deeper than 64 levels", path);
    assert_string_equal(e.msg, want);

    /* 1 MiB + 1 byte of comments: refused by its size, before it is read */
    size_t big = ((size_t)1 << 20) + 1;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, '#', big);
    text[big - 1] = '\n';
    write_tmp(dir, "big.yaml", text, big, path, sizeof path);
    free(text);
    assert_int_equal(layout_load(path, &wf, &e), WT_EINPUT);
    snprintf(want, sizeof want,
             "%s: larger than 1 MiB (1048577 bytes); an input file holds at most 1048576 bytes", path);
    assert_string_equal(e.msg, want);

    /* a device would be read until memory runs out, a FIFO would block */
    assert_int_equal(layout_load("/dev/zero", &wf, &e), WT_EINPUT);
    assert_string_equal(e.msg, "/dev/zero: not a regular file (a character device); give a YAML file");
    snprintf(path, sizeof path, "%s/fifo.yaml", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(layout_load(path, &wf, &e), WT_EINPUT);
    snprintf(want, sizeof want, "%s: not a regular file (a FIFO); give a YAML file", path);
    assert_string_equal(e.msg, want);

    const char *names[] = {"deep.yaml", "deep63.yaml", "block.yaml", "big.yaml", "fifo.yaml"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* The generic helpers, on a file of assorted values. */
static yaml_node_t *value_of(ydoc *d, const char *key)
{
    yaml_node_t *root = ydoc_root(d);
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
        if (strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(&d->doc, p->value);
    }
    fail_msg("no key %s", key);
    return NULL;
}

static void test_ydoc_helpers(void **state)
{
    (void)state;
    ydoc d;
    wt_err e;
    assert_int_equal(ydoc_load(&d, FIX "ydoc-values.yaml", &e), WT_OK);

    long v = 0;
    assert_int_equal(ydoc_int(&d, value_of(&d, "n"), 0, 100, &v, &e), WT_OK);
    assert_int_equal(v, 42);
    assert_int_equal(ydoc_int(&d, value_of(&d, "neg"), -10, 10, &v, &e), WT_OK);
    assert_int_equal(v, -7);
    assert_int_equal(ydoc_int(&d, value_of(&d, "n"), 0, 41, &v, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:2:4: expected a whole number from 0 to 41");
    assert_int_equal(ydoc_int(&d, value_of(&d, "big"), 0, 100, &v, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:4:6: expected a whole number from 0 to 100");
    assert_int_equal(ydoc_int(&d, value_of(&d, "hex"), 0, 100, &v, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:9:6: expected a whole number from 0 to 100");
    assert_int_equal(ydoc_int(&d, value_of(&d, "list"), 0, 100, &v, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:6:7: expected a single value, found a list");

    const char *s = NULL;
    assert_int_equal(ydoc_scalar(&d, value_of(&d, "word"), &s, &e), WT_OK);
    assert_string_equal(s, "abc");
    assert_int_equal(ydoc_scalar(&d, value_of(&d, "map"), &s, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:7:6: expected a single value, found a mapping");
    assert_int_equal(ydoc_scalar(&d, value_of(&d, "empty"), &s, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:8:7: expected a single value, found nothing");

    yaml_node_item_t *b, *end;
    assert_int_equal(ydoc_seq(&d, value_of(&d, "list"), &b, &end, &e), WT_OK);
    assert_int_equal(end - b, 3);
    assert_string_equal(yaml_document_get_node(&d.doc, b[2])->data.scalar.value, "3");
    assert_int_equal(ydoc_seq(&d, value_of(&d, "word"), &b, &end, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:5:7: expected a list, found a single value");

    /* A key with no handler is allowed and skipped; messages keep ydoc_map's
     * wording without a key path. */
    static const ydoc_key loose[] = {{"n", NULL, 1}, {"neg", NULL, 0}, {"big", NULL, 0},
                                     {"word", NULL, 0}, {"list", NULL, 0}, {"map", NULL, 0},
                                     {"empty", NULL, 0}, {"hex", NULL, 0}, {NULL, NULL, 0}};
    assert_int_equal(ydoc_map(&d, ydoc_root(&d), loose, NULL, &e), WT_OK);
    static const ydoc_key strict[] = {{"n", NULL, 0}, {"want", NULL, 1}, {NULL, NULL, 0}};
    assert_int_equal(ydoc_map(&d, ydoc_root(&d), strict, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg,
                        FIX "ydoc-values.yaml:3:1: unknown key 'neg' (allowed: n, want)");
    assert_int_equal(ydoc_map(&d, value_of(&d, "list"), strict, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:6:7: expected a mapping of keys, found a list");
    static const ydoc_key want_b[] = {{"a", NULL, 0}, {"b", NULL, 1}, {NULL, NULL, 0}};
    assert_int_equal(ydoc_map_at(&d, value_of(&d, "map"), "map", want_b, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:7:6: map: missing required key 'b'");

    assert_int_equal(ydoc_fail(&d, value_of(&d, "word"), &e, "custom %d", 7), WT_EINPUT);
    assert_string_equal(e.msg, FIX "ydoc-values.yaml:5:7: custom 7");
    ydoc_free(&d);
    ydoc_free(&d); /* harmless twice */
    assert_null(ydoc_root(&d));
}

/* Every stock layout's recommended strategy, with the default model and the
 * micro-batch the layout names, and the figures its YAML comment quotes:
 * the memory of the fullest unit and, where the mesh is small enough to
 * evaluate here, the step time (3 significant digits, as quoted). */
typedef struct recommended {
    const char *name;
    double memory;              /* bytes */
    double step_s;              /* 0: not evaluated here (a wafer of cores takes tens of seconds) */
} recommended;

static const recommended stock[] = {
    {"default", 416e6, 1.75},
    {"dojo-tile", 438e6, 13.7},
    {"multiwafer-4x4", 330e6, 84.6e-3},
    {"wsc-6x9", 11.0e9, 4.34},
    {"wse2", 44.7e3, 0},
    {"wse3", 48.2e3, 0},
};

static const recommended *stock_entry(const char *name)
{
    for (size_t i = 0; i < sizeof stock / sizeof stock[0]; i++)
        if (!strcmp(stock[i].name, name))
            return &stock[i];
    return NULL;
}

/* The layout named path (a stock one) recommends a strategy that fits
 * gpt3-6.7b, with the figures of r. */
static void check_recommended(const char *path, const recommended *r)
{
    wafer wf;
    load_ok(path, &wf);
    assert_true(wf.strategy[0] != '\0');
    model m;
    strategy s;
    wt_err e;
    if (model_load("gpt3-6.7b", &m, &e) != WT_OK || strategy_of_layout(&wf, &s, &e) != WT_OK)
        fail_msg("%s: %s", path, e.msg);
    if (wf.strategy_microbatch)
        m.microbatch = wf.strategy_microbatch;
    sim_result spec;
    if (sim_spec(&spec, &wf, &m, &s, &e) != WT_OK)
        fail_msg("%s: %s", path, e.msg);
    if (!spec.mem.fits)
        fail_msg("%s: its strategy %s needs %.3g B a unit of %.3g", path, wf.strategy, spec.mem.total,
                 spec.mem.capacity);
    assert_near(spec.mem.total, r->memory, 0.005);
    if (r->step_s > 0) {
        sim_result res;
        if (sim_eval(&res, &wf, &m, &s, &e) != WT_OK)
            fail_msg("%s: %s", path, e.msg);
        assert_true(res.mem.fits);
        assert_near(res.step_time_s, r->step_s, 0.005);
        sim_free(&res);
    }
    wafer_free(&wf);
}

/* Each file of layouts/ has an entry in stock (a new layout needs a
 * recommended strategy that fits), and each entry a file. */
static void test_recommended_fit(void **state)
{
    (void)state;
    DIR *d = opendir("layouts");
    assert_non_null(d);
    size_t seen = 0;
    for (struct dirent *f; (f = readdir(d));) {
        size_t n = strlen(f->d_name);
        if (n < 6 || strcmp(f->d_name + n - 5, ".yaml"))
            continue;
        char name[256], path[512];
        snprintf(name, sizeof name, "%.*s", (int)(n - 5), f->d_name);
        snprintf(path, sizeof path, "layouts/%s", f->d_name);
        const recommended *r = stock_entry(name);
        if (!r)
            fail_msg("%s: no entry in test_layout.c's stock table", path);
        check_recommended(path, r);
        seen++;
    }
    closedir(d);
    assert_int_equal(seen, sizeof stock / sizeof stock[0]);
}

/* A wafer's copy holds its faults wherever they are: none, in the first
 * and last flags, across the copy's 4 KB blocks. */
static void test_wafer_copy(void **state)
{
    (void)state;
    wafer wf, copy;
    wt_err e;
    assert_int_equal(wafer_init(&wf, 100, 90, 1, 1, &e), WT_OK); /* 36,000 link flags: 9 blocks */
    for (int faults = 0; faults <= 1; faults++) {
        if (faults) {
            assert_int_equal(wafer_fail_link(&wf, 0, 0, WAFER_E, &e), WT_OK);
            assert_int_equal(wafer_fail_link(&wf, 99, 89, WAFER_W, &e), WT_OK); /* the last unit's */
            assert_int_equal(wafer_fail_link(&wf, 23, 10, WAFER_S, &e), WT_OK); /* slot 4095: a block's last flag */
            assert_int_equal(wafer_fail_unit(&wf, 40, 41, &e), WT_OK);
        }
        assert_int_equal(wafer_copy(&copy, &wf, &e), WT_OK);
        assert_memory_equal(copy.link_dead, wf.link_dead, wafer_nlinks(&wf));
        assert_memory_equal(copy.unit_dead, wf.unit_dead, wafer_nunits(&wf));
        assert_int_equal(copy.dead_units, faults);
        assert_int_equal(wafer_link_usable(&copy, wafer_unit(&copy, 99, 89), WAFER_W), !faults);
        wafer_free(&copy);
    }
    wafer_free(&wf);
}

/* The usable links of each unit as a mask (the healthy mesh's without a
 * flag read) are wafer_link_usable's: healthy, one failed link alone, one
 * dead unit alone. */
static void test_usable_mask(void **state)
{
    (void)state;
    for (int fault = 0; fault < 3; fault++) {
        wafer wf;
        wt_err e;
        assert_int_equal(wafer_init(&wf, 9, 7, 1, 1, &e), WT_OK);
        if (fault == 1)
            assert_int_equal(wafer_fail_link(&wf, 4, 3, WAFER_E, &e), WT_OK);
        if (fault == 2)
            assert_int_equal(wafer_fail_unit(&wf, 0, 6, &e), WT_OK);
        assert_int_equal(wf.dead_links + wf.dead_units, fault > 0);
        int unusable = 0;
        for (int y = 0; y < wf.h; y++)
            for (int x = 0; x < wf.w; x++)
                for (int d = 0; d < WAFER_NDIR; d++) {
                    int usable = wafer_link_usable(&wf, wafer_unit(&wf, x, y), d);
                    assert_int_equal(wafer_usable_mask(&wf, x, y) >> d & 1, usable);
                    unusable += !usable;
                }
        static const int by_fault[] = {0, 2, 4}; /* both ends of a link; a corner's two and its neighbours' */
        assert_int_equal(unusable, 2 * (9 + 7) + by_fault[fault]);
        wafer_free(&wf);
    }
}

/* Overrides over a file's numbers: the same ranges, derived values follow
 * (an unset interwafer bandwidth is the new link bandwidth's), errors name
 * the override. */
static void test_overrides(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    const char *set[] = {"link.bandwidth=1TB/s", "unit.sram=220 MB", "unit.efficiency=0.5"};
    assert_int_equal(layout_load_with("layouts/default.yaml", &(layout_opts){"--set", set, 3, 0}, &wf, &e), WT_OK);
    assert_true(wf.link_bw == 1e12 && wf.sram_bytes == 220e6 && wf.efficiency == 0.5);
    assert_true(wf.iw_bw == 1e12 * 16); /* one wafer of 16x16: its edge at the links' rate */
    assert_true(wf.peak_flops == 362e12); /* the file's */
    wafer_free(&wf);
    const char *bad[] = {"link.bandwidth=1"};
    assert_int_equal(layout_load_with("layouts/default.yaml", &(layout_opts){"--set", bad, 1, 0}, &wf, &e), WT_EINPUT);
    assert_true(strstr(e.msg, "--set link.bandwidth=1: missing unit") == e.msg);
    const char *range[] = {"unit.efficiency=2"};
    assert_int_equal(layout_load_with("layouts/default.yaml", &(layout_opts){"--set", range, 1, 0}, &wf, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--set unit.efficiency=2: must be from 0.01 to 1");
    const char *unknown[] = {"link.speed=1TB/s"};
    assert_int_equal(layout_load_with("layouts/default.yaml", &(layout_opts){"--set", unknown, 1, 0}, &wf, &e), WT_EINPUT);
    assert_true(strstr(e.msg, "--set link.speed=1TB/s: no layout field 'link.speed' (one of unit.compute,") == e.msg);
    const char *noval[] = {"unit.sram"};
    assert_int_equal(layout_load_with("layouts/default.yaml", &(layout_opts){"--set", noval, 1, 0}, &wf, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--set unit.sram: expected unit.sram=VALUE");
    assert_true(layout_field_known("store.bandwidth_in") && !layout_field_known("store") && !layout_field_known("seq"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_wse2),
        cmocka_unit_test(test_wse3),
        cmocka_unit_test(test_store),
        cmocka_unit_test(test_router),
        cmocka_unit_test(test_strategy),
        cmocka_unit_test(test_dojo_tile),
        cmocka_unit_test(test_wsc_6x9),
        cmocka_unit_test(test_multiwafer),
        cmocka_unit_test(test_recommended_fit),
        cmocka_unit_test(test_range_bounds),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_any_key_order),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_input_files),
        cmocka_unit_test(test_ydoc_helpers),
        cmocka_unit_test(test_wafer_copy),
        cmocka_unit_test(test_usable_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
