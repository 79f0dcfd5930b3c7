/* Placement: where every rank runs (engine/place.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "place.h"

/* A strategy with the given sizes, placement and TATP grid, as resolve leaves it. */
static strategy make(int dp, int tp, int sp, int pp, int gw, int gh, place_kind k)
{
    strategy s;
    strategy_defaults(&s);
    s.dp = dp, s.tp = tp, s.sp = sp, s.pp = pp;
    s.tatp_w = gw, s.tatp_h = gh, s.tatp = gw * gh;
    s.placement = k;
    return s;
}

static void check_plan(const wafer *wf, const strategy *s, plan *p)
{
    wt_err e;
    int rc = place_plan(p, wf, s, &e);
    if (rc != WT_OK)
        fail_msg("place_plan: %s", e.msg);
    /* every rank on its own live unit, and rank[] is the inverse */
    for (int r = 0; r < p->nranks; r++) {
        assert_false(wf->unit_dead[p->unit[r]]);
        assert_int_equal(p->rank[p->unit[r]], r);
    }
}

static void test_linear_is_row_major(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 5, 7, 1, 1, NULL), WT_OK);
    strategy s = make(35, 1, 1, 1, 1, 1, PLACE_LINEAR);
    plan p;
    check_plan(&wf, &s, &p);
    for (int r = 0; r < 35; r++)
        assert_int_equal(p.unit[r], r);
    place_free(&p);
    /* a dead unit is skipped: rank 7 moves to unit 8 */
    wafer_fail_unit(&wf, 2, 1, NULL);
    s = make(34, 1, 1, 1, 1, 1, PLACE_LINEAR);
    check_plan(&wf, &s, &p);
    assert_int_equal(p.unit[6], 6);
    assert_int_equal(p.unit[7], 8);
    place_free(&p);
    wafer_free(&wf);
}

static void test_snake_neighbours(void **state)
{
    (void)state;
    const int sizes[][2] = {{16, 16}, {5, 7}, {1, 9}, {8, 1}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        wafer wf;
        assert_int_equal(wafer_init(&wf, sizes[c][0], sizes[c][1], 1, 1, NULL), WT_OK);
        int n = sizes[c][0] * sizes[c][1];
        strategy s = make(n, 1, 1, 1, 1, 1, PLACE_SNAKE);
        plan p;
        check_plan(&wf, &s, &p);
        for (int r = 0; r + 1 < n; r++) {
            int a = p.unit[r], b = p.unit[r + 1];
            int d = abs(wafer_x(&wf, a) - wafer_x(&wf, b)) + abs(wafer_y(&wf, a) - wafer_y(&wf, b));
            assert_int_equal(d, 1);
        }
        place_free(&p);
        wafer_free(&wf);
    }
}

/* With tiles every TATP group is its gw x gh grid: member (gx, gy) sits at
 * (x0 + gx, y0 + gy) for the group's first unit (x0, y0). */
static void assert_tatp_rectangles(const wafer *wf, const plan *p)
{
    int T = p->tatp_w * p->tatp_h;
    for (int base = 0; base < p->nranks; base += T) {
        int u0 = p->unit[base];
        for (int t = 0; t < T; t++) {
            int u = p->unit[base + t];
            assert_int_equal(wafer_x(wf, u), wafer_x(wf, u0) + t % p->tatp_w);
            assert_int_equal(wafer_y(wf, u), wafer_y(wf, u0) + t / p->tatp_w);
        }
    }
}

static void test_tiles_tatp_rectangles(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 16, 16, 1, 1, NULL), WT_OK);
    const int cases[][6] = {/* dp tp sp pp gw gh */
                            {8, 1, 1, 1, 4, 4}, {16, 1, 1, 1, 4, 4}, {1, 1, 1, 1, 16, 16}, {8, 1, 1, 1, 4, 8},
                            {2, 2, 2, 2, 4, 2}, {4, 1, 8, 1, 8, 1}, {1, 1, 1, 4, 8, 8}, {3, 1, 1, 1, 5, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int *k = cases[c];
        strategy s = make(k[0], k[1], k[2], k[3], k[4], k[5], PLACE_TILES);
        plan p;
        check_plan(&wf, &s, &p);
        assert_true(p.tiled);
        assert_tatp_rectangles(&wf, &p);
        place_free(&p);
    }
    wafer_free(&wf);
}

/* Every group of dimension d is a compact rectangle: its members sit on a
 * tw x th grid with the strides of the inner dimensions. */
static void test_tiles_groups_are_grids(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 16, 16, 1, 1, NULL), WT_OK);
    strategy s = make(4, 2, 2, 2, 2, 2, PLACE_TILES);
    plan p;
    check_plan(&wf, &s, &p);
    int sx = 1, sy = 1;
    for (int d = 0; d < NDIM; d++) {
        for (int r = 0; r < p.nranks; r++) {
            int idx[NDIM];
            place_index_of(&p, r, idx);
            if (idx[d] != 0)
                continue;
            int u0 = p.unit[r];
            for (int i = 0; i < p.size[d]; i++) {
                idx[d] = i;
                int u = p.unit[place_rank_of(&p, idx)], ix, iy;
                place_tile_pos(&p, d, i, &ix, &iy);
                assert_int_equal(wafer_x(&wf, u) - wafer_x(&wf, u0), ix * sx);
                assert_int_equal(wafer_y(&wf, u) - wafer_y(&wf, u0), iy * sy);
            }
        }
        sx *= p.tw[d];
        sy *= p.th[d];
    }
    place_free(&p);
    wafer_free(&wf);
}

/* Pipeline stages run boustrophedon inside their tile: consecutive stages
 * are one stride apart. */
static void test_tiles_pp_snake(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 4, 4, 1, 1, NULL), WT_OK);
    strategy s = make(1, 1, 1, 16, 1, 1, PLACE_TILES);
    plan p;
    check_plan(&wf, &s, &p);
    for (int r = 0; r + 1 < 16; r++) {
        int a = p.unit[r], b = p.unit[r + 1];
        assert_int_equal(abs(wafer_x(&wf, a) - wafer_x(&wf, b)) + abs(wafer_y(&wf, a) - wafer_y(&wf, b)), 1);
    }
    place_free(&p);
    wafer_free(&wf);
}

static void test_tiles_avoid_dead_units(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 6, 4, 1, 1, NULL), WT_OK);
    wafer_fail_unit(&wf, 0, 0, NULL);
    strategy s = make(1, 1, 1, 1, 4, 4, PLACE_TILES);
    plan p;
    check_plan(&wf, &s, &p);
    assert_int_equal(p.ox, 1); /* the box moved right of the dead unit */
    assert_int_equal(p.oy, 0);
    place_free(&p);
    /* dead units in every possible box: a clear refusal */
    wafer_fail_unit(&wf, 5, 3, NULL);
    wafer_fail_unit(&wf, 2, 2, NULL);
    wt_err e;
    assert_int_equal(place_plan(&p, &wf, &s, &e), WT_EINPUT);
    assert_non_null(strstr(e.msg, "covers a dead unit"));
    wafer_free(&wf);
}

static void test_tiles_refuse_what_does_not_tile(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 16, 16, 1, 1, NULL), WT_OK);
    /* 17 x 15 = 255 ranks fit the units but no arrangement of rectangles does */
    strategy s = make(17, 1, 1, 1, 15, 1, PLACE_TILES);
    plan p;
    wt_err e;
    assert_int_equal(place_plan(&p, &wf, &s, &e), WT_EINPUT);
    assert_string_equal(e.msg, "tiles placement cannot arrange DP17,TATP15 as rectangles on the 16x16 mesh; "
                               "try --placement snake");
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_is_row_major),
        cmocka_unit_test(test_snake_neighbours),
        cmocka_unit_test(test_tiles_tatp_rectangles),
        cmocka_unit_test(test_tiles_groups_are_grids),
        cmocka_unit_test(test_tiles_pp_snake),
        cmocka_unit_test(test_tiles_avoid_dead_units),
        cmocka_unit_test(test_tiles_refuse_what_does_not_tile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
