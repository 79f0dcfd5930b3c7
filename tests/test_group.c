/* Which group loads what (engine/group.h): on 8x8 meshes, for every link
 * and every phase, the groups' loads add up to the phase's bytes on the link
 * (sim_phase_link_bytes), over rings, 2-D and hierarchical splits, pipeline
 * shifts, yx and balanced routing, linear placement, the store's streams and
 * a faulty mesh; a group's links are exactly those its loads name, and its
 * members are its kind's group around the unit, in ring order. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll.h"
#include "eval_small.h"
#include "group.h"
#include "place.h"
#include "sim.h"

/* eval_with on a fresh context of wf. */
static void eval_on(const wafer *wf, sim_result *r, const char *text, const char *opt, const char *value)
{
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, wf, NULL), WT_OK);
    eval_with(c, r, text, opt, value);
    sim_ctx_free(c);
}

enum { MAXL = 4096 };

/* Every link of r: the loads group_link_loads lists add up, phase by phase,
 * to the phase's bytes on it; nothing is untraced on a healthy mesh, and on
 * a faulty one the traced and untraced bytes add up to the total. Returns
 * how many (link, group) entries it saw. */
static int check_sums(const sim_result *r, const char *what)
{
    size_t nl = wafer_nlinks(r->wf);
    double *bytes = malloc((size_t)r->nphases * nl * sizeof *bytes);
    assert_non_null(bytes);
    for (int ph = 0; ph < r->nphases; ph++)
        sim_phase_link_bytes(r, ph, bytes + (size_t)ph * nl);
    static group_load loads[MAXL];
    int entries = 0;
    for (size_t l = 0; l < nl; l++) {
        int n;
        double untraced, want = 0, got = 0;
        wt_err e;
        if (group_link_loads(r, l, loads, MAXL, &n, &untraced, &e) != WT_OK)
            fail_msg("%s: link %zu: %s", what, l, e.msg);
        assert_true(n <= MAXL);
        entries += n;
        for (int ph = 0; ph < r->nphases; ph++) {
            double sum = 0, phase_bytes = bytes[(size_t)ph * nl + l];
            for (int i = 0; i < n; i++)
                sum += loads[i].phase == ph ? loads[i].bytes : 0;
            want += phase_bytes;
            got += sum;
            if (r->wf->dead_units == 0 && fabs(sum - phase_bytes) > 1e-9 * fmax(1, phase_bytes))
                fail_msg("%s: link %zu phase %s: groups %.17g, phase %.17g", what, l, r->phases[ph].name, sum,
                         phase_bytes);
        }
        if (fabs(got + untraced - want) > 1e-9 * fmax(1, want))
            fail_msg("%s: link %zu: traced %.17g + untraced %.17g != %.17g", what, l, got, untraced, want);
        if (r->wf->dead_units == 0)
            assert_true(untraced == 0);
        for (int i = 1; i < n; i++) /* largest first */
            assert_true(loads[i].bytes <= loads[i - 1].bytes);
        for (int i = 0; i < n; i++)
            assert_true(loads[i].bytes > 0 && (loads[i].kind == CG_STORE) == (loads[i].group < 0));
    }
    free(bytes);
    return entries;
}

/* The group around unit u of each kind with traffic: its members are the
 * coll_groups group holding u, and its links are exactly the links where
 * group_link_loads names it. */
static void check_groups(const sim_result *r, int u, const char *what)
{
    static group_load loads[MAXL];
    for (int kind = 0; kind < CG_STORE; kind++) {
        group g;
        wt_err e;
        if (group_of_unit(r, u, kind, &g, &e) != WT_OK)
            continue; /* one member, or no rank */
        int has_u = 0;
        for (int i = 0; i < g.size; i++)
            has_u |= g.units[i] == u;
        if (!has_u)
            fail_msg("%s: %s group %d does not hold unit %d", what, coll_kind_name(kind), g.index, u);
        int k = 0;
        for (size_t l = 0; l < wafer_nlinks(r->wf); l++) {
            int n, named = 0;
            double untraced;
            assert_int_equal(group_link_loads(r, l, loads, MAXL, &n, &untraced, &e), WT_OK);
            for (int i = 0; i < n; i++)
                named |= loads[i].kind == kind && loads[i].group == g.index;
            int listed = k < g.nlinks && (size_t)g.links[k] == l;
            k += listed;
            if (named != listed)
                fail_msg("%s: %s group %d, link %zu: loads name it %d, its links list it %d", what,
                         coll_kind_name(kind), g.index, l, named, listed);
        }
        assert_int_equal(k, g.nlinks);
        group_free(&g);
    }
}

static void test_loads_add_up(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    for (size_t i = 0; i < NSMALL_CASES; i++) {
        sim_result r;
        eval_on(&wf, &r, small_cases[i][0], small_cases[i][1], small_cases[i][2]);
        assert_true(check_sums(&r, small_cases[i][0]) > 0);
        check_groups(&r, wafer_unit(&wf, 3, 5), small_cases[i][0]);
        sim_free(&r);
    }
    /* the store's streams, and a dead unit that sends paths around it */
    wf.store_ports = 1u << WAFER_E | 1u << WAFER_W;
    wf.store_bw_in = wf.store_bw_out = 1e10;
    wf.store_lat = 1e-6;
    sim_result r;
    eval_on(&wf, &r, "DP4,TATP16", "exec", "stream");
    check_sums(&r, "stream");
    sim_free(&r);
    assert_int_equal(wafer_fail_unit(&wf, 4, 4, NULL), WT_OK);
    eval_on(&wf, &r, "TP8,DP4", "placement", "linear");
    check_sums(&r, "a dead unit");
    check_groups(&r, wafer_unit(&wf, 3, 5), "a dead unit");
    sim_free(&r);
    wafer_free(&wf);
}

/* A hand-checked case: TP4 on linear placement, one row of 4 units per
 * group. Of the TP groups, group 0 (units 0-3 of row 0) alone loads the
 * link 1,0,E. */
static void test_by_hand(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    sim_result r;
    eval_on(&wf, &r, "TP4,DP16", "placement", "linear");
    group g;
    wt_err e;
    assert_int_equal(group_of_unit(&r, wafer_unit(&wf, 2, 0), CG_TP, &g, &e), WT_OK);
    assert_int_equal(g.index, 0);
    assert_int_equal(g.size, 4);
    for (int i = 0; i < 4; i++) /* the folded ring on a line: 0, 2, 3, 1 by member */
        assert_true(g.units[i] >= 0 && g.units[i] < 4);
    group_load loads[16];
    int n;
    double untraced;
    size_t l = (size_t)wafer_unit(&wf, 1, 0) * WAFER_NDIR + WAFER_E;
    assert_int_equal(group_link_loads(&r, l, loads, 16, &n, &untraced, &e), WT_OK);
    int tp = 0;
    for (int i = 0; i < n && i < 16; i++) /* the DP rings (members 4 apart) cross it too */
        if (loads[i].kind == CG_TP) {
            assert_int_equal(loads[i].group, 0);
            tp++;
        }
    assert_true(tp > 0);
    /* the group's links stay on row 0, within x 0..3 */
    for (int i = 0; i < g.nlinks; i++) {
        int u = g.links[i] / WAFER_NDIR;
        assert_int_equal(wafer_y(&wf, u), 0);
        assert_true(wafer_x(&wf, u) <= 3);
    }
    group_free(&g);
    /* no group for a kind of one member */
    assert_int_equal(group_of_unit(&r, 0, CG_TATP_ROW, &g, &e), WT_EINPUT);
    sim_free(&r);
    wafer_free(&wf);
}

/* The outlines, against the plan's indices: DP2,PP2,TATP16 on tiles, so
 * the TATP grid around a unit is the 16 ranks that differ only in their
 * TATP index, and loads the links of its rows' and columns' groups; the
 * stage is every rank of the unit's PP index; the subgroup window is the
 * 8x8 window of ranked units. */
static void test_outlines(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf);
    sim_result r;
    eval_on(&wf, &r, "DP2,PP2,TATP16", NULL, NULL);
    int u = wafer_unit(&wf, 5, 6), rank = r.plan.rank[u], mine[NDIM], idx[NDIM];
    place_index_of(&r.plan, rank, mine);
    wt_err e;
    group g;
    assert_int_equal(group_of_unit(&r, u, GROUP_TATP, &g, &e), WT_OK);
    assert_int_equal(g.size, 16);
    for (int i = 0; i < g.size; i++) {
        place_index_of(&r.plan, r.plan.rank[g.units[i]], idx);
        for (int d = DIM_TP; d < NDIM; d++)
            assert_int_equal(idx[d], mine[d]);
    }
    /* its links: exactly those of its members' row and column groups */
    char *want = calloc(wafer_nlinks(&wf), 1);
    assert_non_null(want);
    for (int i = 0; i < g.size; i++)
        for (int kind = CG_TATP_ROW; kind <= CG_TATP_COL; kind++) {
            group line;
            if (group_of_unit(&r, g.units[i], kind, &line, &e) != WT_OK)
                continue;
            for (int k = 0; k < line.nlinks; k++)
                want[line.links[k]] = 1;
            group_free(&line);
        }
    int nwant = 0;
    for (size_t l = 0; l < wafer_nlinks(&wf); l++)
        nwant += want[l];
    assert_int_equal(g.nlinks, nwant);
    assert_true(nwant > 0);
    for (int k = 0; k < g.nlinks; k++)
        assert_true(want[g.links[k]]);
    free(want);
    assert_string_equal(group_kind_name(GROUP_TATP), "tatp");
    group_free(&g);
    /* the stage: 32 of the 64 ranks, every one of u's PP index */
    assert_int_equal(group_of_unit(&r, u, GROUP_STAGE, &g, &e), WT_OK);
    assert_int_equal(g.size, 32);
    assert_int_equal(g.index, mine[DIM_PP]);
    for (int i = 0; i < g.size; i++) {
        place_index_of(&r.plan, r.plan.rank[g.units[i]], idx);
        assert_int_equal(idx[DIM_PP], mine[DIM_PP]);
    }
    assert_int_equal(g.nlinks, 0);
    group_free(&g);
    /* the subgroup window: 8x8 at 0,0 holds the whole mesh */
    assert_int_equal(group_of_unit(&r, u, GROUP_SUBGROUP, &g, &e), WT_OK);
    assert_int_equal(g.size, 64);
    group_free(&g);
    sim_free(&r);
    /* one stage: no stage to outline */
    eval_on(&wf, &r, "DP4,TATP16", NULL, NULL);
    assert_int_equal(group_of_unit(&r, u, GROUP_STAGE, &g, &e), WT_EINPUT);
    assert_string_equal(e.msg, "there is one pipeline stage");
    sim_free(&r);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loads_add_up),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_outlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
