/* Collectives: groups, ring orders, passes and algorithm formulas (engine/coll.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll.h"

typedef struct fixture {
    wafer wf;
    plan p;
    coll_groups g;
} fixture;

/* Places dp x tp x sp x pp x (gw x gh) on a w x h mesh and builds the groups of kind. */
static void setup(fixture *f, int w, int h, const int dims[6], place_kind k, int kind)
{
    assert_int_equal(wafer_init(&f->wf, w, h, 1, 1, NULL), WT_OK);
    strategy s;
    strategy_defaults(&s);
    s.dp = dims[0], s.tp = dims[1], s.sp = dims[2], s.pp = dims[3];
    s.tatp_w = dims[4], s.tatp_h = dims[5], s.tatp = dims[4] * dims[5];
    s.placement = k;
    wt_err e;
    if (place_plan(&f->p, &f->wf, &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(coll_groups_build(&f->g, kind, &f->p, &f->wf, &e), WT_OK);
}

static void teardown(fixture *f)
{
    coll_groups_free(&f->g);
    place_free(&f->p);
    wafer_free(&f->wf);
}

static int hops(const wafer *wf, int a, int b)
{
    return abs(wafer_x(wf, a) - wafer_x(wf, b)) + abs(wafer_y(wf, a) - wafer_y(wf, b));
}

/* next[] of every group is one cycle through all members. */
static void assert_one_cycle(const coll_groups *g, const int *next)
{
    for (int grp = 0; grp < g->ngroups; grp++) {
        const int *nx = next + grp * g->size;
        int m = 0, len = 0;
        do {
            m = nx[m];
            len++;
        } while (m != 0 && len <= g->size);
        assert_int_equal(len, g->size);
    }
}

static void test_ring_bytes(void **state)
{
    (void)state;
    /* ring all-reduce: each unit sends 2(p-1)/p M; gather and scatter half */
    assert_float_equal(coll_ring_bytes(OP_ALLREDUCE, 8, 1000), 2.0 * 7 / 8 * 1000, 1e-9);
    assert_float_equal(coll_ring_bytes(OP_ALLGATHER, 8, 1000), 7.0 / 8 * 1000, 1e-9);
    assert_float_equal(coll_ring_bytes(OP_REDUCESCATTER, 5, 1000), 4.0 / 5 * 1000, 1e-9);
    assert_float_equal(coll_ring_bytes(OP_ALLREDUCE, 1, 1000), 0, 0);
}

/* A 4x4 DP group on tiles: a Hamiltonian cycle, every hop 1. */
static void test_hamiltonian_4x4(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {16, 1, 1, 1, 1, 1};
    setup(&f, 4, 4, dims, PLACE_TILES, CG_DP);
    assert_int_equal(f.g.gw, 4);
    assert_int_equal(f.g.gh, 4);
    int next[16];
    assert_int_equal(coll_pass_next(&f.g, PASS_RING, &f.wf, 8, 8, next), 0);
    assert_one_cycle(&f.g, next);
    for (int m = 0; m < 16; m++)
        assert_int_equal(hops(&f.wf, f.g.unit[m], f.g.unit[next[m]]), 1);
    teardown(&f);
}

/* Rectangles with one even side also close with hops of 1: 3x2, 2x5, 6x3. */
static void test_hamiltonian_even_sides(void **state)
{
    (void)state;
    const int shapes[][2] = {{3, 2}, {2, 5}, {6, 3}, {2, 2}};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        fixture f;
        int w = shapes[c][0], h = shapes[c][1];
        const int dims[6] = {w * h, 1, 1, 1, 1, 1};
        setup(&f, w, h, dims, PLACE_TILES, CG_DP);
        int *next = malloc(sizeof *next * (size_t)(w * h));
        coll_pass_next(&f.g, PASS_RING, &f.wf, 8, 8, next);
        assert_one_cycle(&f.g, next);
        for (int m = 0; m < w * h; m++)
            assert_int_equal(hops(&f.wf, f.g.unit[m], f.g.unit[next[m]]), 1);
        free(next);
        teardown(&f);
    }
}

/* A 1x8 line: the folded ring 0,2,4,6,7,5,3,1, every hop <= 2. */
static void test_folded_line(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {8, 1, 1, 1, 1, 1};
    setup(&f, 1, 8, dims, PLACE_TILES, CG_DP);
    const int expect[8] = {0, 2, 4, 6, 7, 5, 3, 1};
    for (int i = 0; i < 8; i++)
        assert_int_equal(f.g.ring[i], expect[i]);
    int next[8];
    coll_pass_next(&f.g, PASS_RING, &f.wf, 8, 8, next);
    assert_one_cycle(&f.g, next);
    for (int m = 0; m < 8; m++)
        assert_in_range(hops(&f.wf, f.g.unit[m], f.g.unit[next[m]]), 1, 2);
    teardown(&f);
}

/* Linear placement follows rank order, as a GPU framework would: the ring
 * of a row-long TP group closes with a hop back across the row. */
static void test_linear_ring_is_rank_order(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {1, 16, 1, 1, 1, 1};
    setup(&f, 16, 4, dims, PLACE_LINEAR, CG_TP);
    int next[16];
    coll_pass_next(&f.g, PASS_RING, &f.wf, 8, 8, next);
    for (int m = 0; m < 16; m++)
        assert_int_equal(next[m], (m + 1) % 16);
    assert_int_equal(hops(&f.wf, f.g.unit[15], f.g.unit[0]), 15);
    teardown(&f);
}

/* TATP rows and columns are the grid's lines. */
static void test_tatp_rows_and_cols(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {2, 1, 1, 1, 4, 2};
    setup(&f, 8, 4, dims, PLACE_TILES, CG_TATP_ROW);
    assert_int_equal(f.g.size, 4);
    assert_int_equal(f.g.ngroups, 4); /* 2 rows x 2 replicas */
    for (int grp = 0; grp < f.g.ngroups; grp++)
        for (int m = 1; m < 4; m++)
            assert_int_equal(f.g.unit[grp * 4 + m], f.g.unit[grp * 4] + m);
    assert_int_equal(coll_groups_step(&f.g), 1);
    coll_groups_free(&f.g);
    wt_err e;
    assert_int_equal(coll_groups_build(&f.g, CG_TATP_COL, &f.p, &f.wf, &e), WT_OK);
    assert_int_equal(f.g.size, 2);
    assert_int_equal(f.g.ngroups, 8);
    for (int grp = 0; grp < f.g.ngroups; grp++)
        assert_int_equal(f.g.unit[grp * 2 + 1], f.g.unit[grp * 2] + 8);
    assert_int_equal(coll_groups_step(&f.g), 8); /* along a column of the 8-wide mesh */
    teardown(&f);
}

/* A plan large enough to gather its groups on the cores at once (par.h):
 * DP2 x TATP512x512 tiles on a 1024 x 512 mesh. The TATP rows are 1024
 * groups of 512 units one step apart, and together they hold every unit
 * once; the DP pairs are the two tiles' same cells, 512 units apart. */
static void test_groups_gathered_in_parts(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {2, 1, 1, 1, 512, 512};
    setup(&f, 1024, 512, dims, PLACE_TILES, CG_TATP_ROW);
    assert_int_equal(f.g.ngroups, 1024);
    assert_int_equal(coll_groups_step(&f.g), 1);
    size_t nunits = wafer_nunits(&f.wf);
    unsigned char *seen = calloc(nunits, 1);
    assert_non_null(seen);
    for (int grp = 0; grp < f.g.ngroups; grp++)
        for (int m = 0; m < 512; m++) {
            int u = f.g.unit[grp * 512 + m];
            assert_int_equal(u, f.g.unit[grp * 512] + m);
            assert_int_equal(seen[u]++, 0);
        }
    free(seen);
    coll_groups_free(&f.g);
    wt_err e;
    assert_int_equal(coll_groups_build(&f.g, CG_DP, &f.p, &f.wf, &e), WT_OK);
    assert_int_equal(f.g.ngroups, 512 * 512);
    assert_int_equal(coll_groups_step(&f.g), 512);
    teardown(&f);
}

/* The step of line groups (1 along a row), and 0 once a group turns: a
 * snake's second row runs back, units 7 6 5 4 after 0 1 2 3. */
static void test_groups_step(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {2, 4, 1, 1, 1, 1};
    setup(&f, 4, 2, dims, PLACE_LINEAR, CG_TP);
    assert_int_equal(coll_groups_step(&f.g), 1);
    teardown(&f);
    const int one[6] = {1, 8, 1, 1, 1, 1};
    setup(&f, 4, 2, one, PLACE_SNAKE, CG_TP);
    const int units[8] = {0, 1, 2, 3, 7, 6, 5, 4};
    for (int m = 0; m < 8; m++)
        assert_int_equal(f.g.unit[m], units[m]);
    assert_int_equal(coll_groups_step(&f.g), 0);
    teardown(&f);
    /* the second group alone breaks the step: DP2 x TP4 snaked, the TP
     * group of rank 4 runs 7 6 5 4 */
    setup(&f, 4, 2, dims, PLACE_SNAKE, CG_TP);
    assert_int_equal(f.g.unit[4], 7);
    assert_int_equal(coll_groups_step(&f.g), 0);
    teardown(&f);
}

/* Hierarchical split of a 16x16 DP group into 8x8 subgroups: inner rings
 * stay inside a window, outer rings join one member of each window. */
static void test_hier_subgroups(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {256, 1, 1, 1, 1, 1};
    setup(&f, 16, 16, dims, PLACE_TILES, CG_DP);
    int *next = malloc(sizeof *next * 256);
    assert_int_equal(coll_pass_next(&f.g, PASS_INNER, &f.wf, 8, 8, next), 64);
    for (int m = 0; m < 256; m++) {
        int a = f.g.unit[m], b = f.g.unit[next[m]], k = m, len = 0;
        do { /* each inner ring has the 64 members of one window */
            k = next[k];
            len++;
        } while (k != m && len <= 64);
        assert_int_equal(len, 64);
        assert_int_equal(wafer_x(&f.wf, a) / 8, wafer_x(&f.wf, b) / 8);
        assert_int_equal(wafer_y(&f.wf, a) / 8, wafer_y(&f.wf, b) / 8);
    }
    assert_int_equal(coll_pass_next(&f.g, PASS_OUTER, &f.wf, 8, 8, next), 64);
    for (int m = 0; m < 256; m++) {
        /* an outer ring of 4 windows: four steps come back */
        int k = m;
        for (int i = 0; i < 4; i++)
            k = next[k];
        assert_int_equal(k, m);
        assert_int_not_equal(next[m], m);
    }
    /* 6x6 windows do not split 16x16 evenly: no hierarchical pass */
    assert_int_equal(coll_pass_next(&f.g, PASS_INNER, &f.wf, 6, 6, next), -1);
    /* 1x1 windows: every member a subgroup of its own, as trivial as one
     * window over the whole group */
    assert_int_equal(coll_pass_next(&f.g, PASS_INNER, &f.wf, 1, 1, next), -1);
    assert_int_equal(coll_pass_next(&f.g, PASS_OUTER, &f.wf, 1, 1, next), -1);
    assert_int_equal(coll_pass_next(&f.g, PASS_INNER, &f.wf, 16, 16, next), -1);
    free(next);
    teardown(&f);
}

static void test_expand_formulas(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {16, 1, 1, 1, 1, 1};
    setup(&f, 4, 4, dims, PLACE_TILES, CG_DP);
    coll_term t[COLL_MAX_TERMS];
    const double M = 1e6;
    assert_int_equal(coll_expand(&f.g, COLL_RING, OP_ALLREDUCE, M, 0, t), 1);
    assert_int_equal(t[0].pass, PASS_RING);
    assert_float_equal(t[0].coef, 2.0 * 15 / 16 * M, 1e-6);
    assert_int_equal(t[0].steps, 30);
    /* bidir: half the data on each of two counter-rotating rings */
    assert_int_equal(coll_expand(&f.g, COLL_BIDIR, OP_ALLREDUCE, M, 0, t), 1);
    assert_int_equal(t[0].pass, PASS_BIDIR);
    assert_float_equal(t[0].coef, 15.0 / 16 * M, 1e-6);
    assert_int_equal(t[0].steps, 30);
    /* 2d on 4x4: rows carry 2(4-1)/4 M (scatter and gather), columns 2(4-1)/4 M/4 */
    assert_int_equal(coll_expand(&f.g, COLL_2D, OP_ALLREDUCE, M, 0, t), 2);
    assert_int_equal(t[0].pass, PASS_ROWS);
    assert_float_equal(t[0].coef, 2.0 * 3 / 4 * M, 1e-6);
    assert_int_equal(t[1].pass, PASS_COLS);
    assert_float_equal(t[1].coef, 2.0 * 3 / 4 * M / 4, 1e-6);
    assert_int_equal(t[0].steps + t[1].steps, 12);
    /* all-gather on 2d: (4-1)/4 M along rows, (4-1)/4 M/4 along columns */
    assert_int_equal(coll_expand(&f.g, COLL_2D, OP_ALLGATHER, M, 0, t), 2);
    assert_float_equal(t[0].coef + 4 * t[1].coef, 3.0 / 4 * M + 3.0 / 4 * M, 1e-6);
    /* hier with inner 8 of 16: inner 2(7/8) M, outer 2(1/2) M/8 */
    assert_int_equal(coll_expand(&f.g, COLL_HIER, OP_ALLREDUCE, M, 8, t), 2);
    assert_int_equal(t[0].pass, PASS_INNER);
    assert_float_equal(t[0].coef, 2.0 * 7 / 8 * M, 1e-6);
    assert_int_equal(t[1].pass, PASS_OUTER);
    assert_float_equal(t[1].coef, 2.0 * 1 / 2 * M / 8, 1e-6);
    /* hier without a usable split is a ring */
    assert_int_equal(coll_expand(&f.g, COLL_HIER, OP_ALLREDUCE, M, 0, t), 1);
    assert_int_equal(t[0].pass, PASS_RING);
    teardown(&f);
}

/* The table: the algorithms, then auto, the only chooser. */
static void test_algorithm_rows(void **state)
{
    (void)state;
    choice_table t = coll_algo_table();
    assert_int_equal(t.n, COLL_NALGOS + 1);
    for (int a = 0; a < COLL_NALGOS; a++) {
        assert_false(choice_at(t, a)->flags & CHOICE_CHOOSER);
        assert_true(coll_algo_about((coll_algo)a)[0]);
        assert_true(coll_algo_partners((coll_algo)a) >= 1);
    }
    assert_string_equal(coll_algo_name(COLL_AUTO), "auto");
    assert_true(choice_at(t, COLL_AUTO)->flags & CHOICE_CHOOSER);
    assert_int_equal(choice_find(t, "auto"), COLL_AUTO);
    /* today's rows, by hand: bidir splits over two partners; ring and bidir
     * take a ring's steps, 2d and hier the fewest of a two-level split */
    assert_int_equal(coll_algo_partners(COLL_BIDIR), 2);
    assert_int_equal(coll_algo_partners(COLL_RING), 1);
    assert_int_equal(coll_algo_min_steps(COLL_RING, OP_ALLREDUCE, 16), 30);
    assert_int_equal(coll_algo_min_steps(COLL_BIDIR, OP_ALLGATHER, 16), 15);
    assert_int_equal(coll_algo_min_steps(COLL_2D, OP_ALLREDUCE, 16), 12);    /* 4 x 4: 2*3 + 2*3 */
    assert_int_equal(coll_algo_min_steps(COLL_HIER, OP_ALLGATHER, 12), 5);   /* 3 x 4: 2 + 3 */
    assert_int_equal(coll_algo_min_steps(COLL_HIER, OP_ALLREDUCE, 7), 12);   /* prime: a ring */
    assert_int_equal(coll_algo_min_steps(COLL_2D, OP_ALLREDUCE, 1), 0);
}

/* Every algorithm row, on groups of several shapes, for every op and
 * subgroup: its expansion takes at least its fewest steps, and its members
 * send at least the ring's total over its partners (what sim_bounds
 * assumes of it). */
static void test_rows_keep_their_bound(void **state)
{
    (void)state;
    static const struct {
        int w, h, dims[6];
        place_kind k;
    } groups[] = {
        {4, 4, {16, 1, 1, 1, 1, 1}, PLACE_TILES},
        {8, 1, {8, 1, 1, 1, 1, 1}, PLACE_TILES},
        {4, 3, {12, 1, 1, 1, 1, 1}, PLACE_LINEAR},
        {6, 2, {2, 6, 1, 1, 1, 1}, PLACE_SNAKE},
    };
    const double M = 1e6;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        fixture f;
        setup(&f, groups[i].w, groups[i].h, groups[i].dims, groups[i].k, groups[i].dims[1] > 1 ? CG_TP : CG_DP);
        int p = f.g.size;
        for (int a = 0; a < COLL_NALGOS; a++)
            for (int op = OP_ALLREDUCE; op <= OP_REDUCESCATTER; op++)
                for (int inner = 1; inner <= p; inner++) {
                    if (p % inner) /* hier's inner size always divides the group */
                        continue;
                    coll_term t[COLL_MAX_TERMS];
                    int n = coll_expand(&f.g, (coll_algo)a, op, M, inner, t), steps = 0;
                    double sent = 0;
                    assert_true(n >= 1 && n <= COLL_MAX_TERMS);
                    for (int k = 0; k < n; k++) {
                        steps += t[k].steps;
                        sent += t[k].coef;
                    }
                    if (steps < coll_algo_min_steps((coll_algo)a, op, p))
                        fail_msg("%s on %d: %d steps, fewer than %d", coll_algo_name((coll_algo)a), p, steps,
                                 coll_algo_min_steps((coll_algo)a, op, p));
                    assert_true(sent * coll_algo_partners((coll_algo)a) >=
                                coll_ring_bytes(op, p, M) * (1 - 1e-12));
                }
        teardown(&f);
    }
}

/* The pipeline shift sends from each stage to the next. */
static void test_pipeline_shift(void **state)
{
    (void)state;
    fixture f;
    const int dims[6] = {2, 1, 1, 4, 1, 1};
    setup(&f, 4, 2, dims, PLACE_TILES, CG_PP);
    int next[8];
    assert_int_equal(coll_pass_next(&f.g, PASS_SHIFT, &f.wf, 8, 8, next), 0);
    for (int grp = 0; grp < 2; grp++) {
        for (int m = 0; m < 4; m++)
            assert_int_equal(next[grp * 4 + m], m < 3 ? m + 1 : m);
        for (int m = 0; m < 3; m++) /* snake: consecutive stages are neighbours */
            assert_int_equal(hops(&f.wf, f.g.unit[grp * 4 + m], f.g.unit[grp * 4 + m + 1]), 1);
    }
    assert_true(coll_pass_two_way(PASS_SHIFT));
    assert_false(coll_pass_two_way(PASS_RING));
    teardown(&f);
}

/* Groups that cross a wafer edge are flagged, and split by wafer. */
static void test_wafer_spanning_groups(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(wafer_init(&f.wf, 4, 4, 2, 1, NULL), WT_OK);
    strategy s;
    strategy_defaults(&s);
    s.dp = 2, s.tatp_w = 4, s.tatp_h = 4, s.tatp = 16;
    wt_err e;
    assert_int_equal(place_plan(&f.p, &f.wf, &s, &e), WT_OK);
    assert_int_equal(coll_groups_build(&f.g, CG_DP, &f.p, &f.wf, &e), WT_OK);
    assert_true(f.g.wafers);
    int next[32];
    /* one member on each wafer: the inner split is trivial, so no hier pass */
    assert_int_equal(coll_pass_next(&f.g, PASS_INNER, &f.wf, 8, 8, next), -1);
    coll_groups_free(&f.g);
    assert_int_equal(coll_groups_build(&f.g, CG_TATP_ROW, &f.p, &f.wf, &e), WT_OK);
    assert_false(f.g.wafers);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_bytes),
        cmocka_unit_test(test_hamiltonian_4x4),
        cmocka_unit_test(test_hamiltonian_even_sides),
        cmocka_unit_test(test_folded_line),
        cmocka_unit_test(test_linear_ring_is_rank_order),
        cmocka_unit_test(test_tatp_rows_and_cols),
        cmocka_unit_test(test_groups_step),
        cmocka_unit_test(test_groups_gathered_in_parts),
        cmocka_unit_test(test_hier_subgroups),
        cmocka_unit_test(test_expand_formulas),
        cmocka_unit_test(test_algorithm_rows),
        cmocka_unit_test(test_rows_keep_their_bound),
        cmocka_unit_test(test_pipeline_shift),
        cmocka_unit_test(test_wafer_spanning_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
