/* Timing over one link per class (engine/sim_int.h, sim_reps): the classes
 * are a partition of the loaded links by every pattern's loads and the
 * bandwidth, each pattern's list names each of its classes once, and a
 * step timed over those lists, and the result's classes joined from them,
 * are to the bit what the timing over every link and the classes made from
 * the links give, and so are the windows. A wafer takes this path on its own (SIM_CLASSES_MIN); an
 * 8x8 mesh is made to here. The classes come from their links' codes
 * (engine/sim_classes.c): held below smaller bounds, the other two paths
 * (codes numbered again, chains) give the same classes, on the small
 * cases and on wse3. */
#include <setjmp.h>
#include <stdarg.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval_small.h"
#include "layout.h"
#include "sim_int.h"

/* The bytes pattern p puts on link l (0 when it loads none there). */
static double load_at(const sim_pattern *p, int l)
{
    int k = sim_pattern_first(p, l);
    return k < p->nnz && p->link[k] == l ? p->load[k] : 0;
}

/* Every loaded link's class holds exactly its patterns' bytes and its
 * bandwidth; each pattern lists each class it loads once, at the class's
 * first link, ascending, and no other. */
static void check_partition(const sim_result *r)
{
    const sim_reps *s = r->reps;
    assert_non_null(s);
    for (int i = 0; i < r->nloaded; i++) {
        int l = r->loaded[i], f = s->cl.of[l];
        assert_true(f > 0 && f < s->cl.n);
        assert_true(s->cl.first[f] <= l);
        assert_true(s->cl.inv[f] == sim_link_inv_bw(r->wf, (size_t)l));
        int j = s->cstart[f];
        for (int p = 0; p < r->npatterns; p++) {
            double b = load_at(&r->patterns[p], l);
            if (j < s->cstart[f + 1] && s->cpat[j] == p) {
                assert_true(s->cload[j] == b);
                j++;
            } else {
                assert_true(b == 0);
            }
        }
        assert_int_equal(j, s->cstart[f + 1]);
    }
    for (int f = 1; f < s->cl.n; f++)
        assert_int_equal(s->cl.of[s->cl.first[f]], f);
    for (int p = 0; p < r->npatterns; p++) {
        int seen = 0;
        for (int k = s->pstart[p]; k < s->pstart[p + 1]; k++) {
            int l = s->plink[k];
            assert_true(k == s->pstart[p] || l > s->plink[k - 1]);
            assert_true(s->pload[k] == load_at(&r->patterns[p], l));
            assert_int_equal(s->cl.first[s->cl.of[l]], l);
        }
        for (int f = 1; f < s->cl.n; f++)
            for (int j = s->cstart[f]; j < s->cstart[f + 1]; j++)
                seen += s->cpat[j] == p;
        assert_int_equal(seen, s->pstart[p + 1] - s->pstart[p]);
    }
}

/* The figures a timing fills, compared to the bit. */
typedef struct timed {
    double step, mfu, max_util, mean_util, max_peak, phase_time[SIM_MAX_PHASES], phase_share[SIM_MAX_PHASES];
    int busiest[SIM_MAX_PHASES], hot_links;
} timed;

static timed timed_of(const sim_result *r)
{
    timed t = {r->step_time_s, r->mfu, r->max_link_util, r->mean_link_util, r->max_peak_util, {0}, {0}, {0},
               r->hot_links};
    for (int i = 0; i < r->nphases; i++) {
        t.phase_time[i] = r->phases[i].time_s;
        t.phase_share[i] = r->phases[i].share;
        t.busiest[i] = r->phases[i].busiest_link;
    }
    return t;
}

static void same_classes(const sim_result *r, const sim_link_classes *a, const sim_link_classes *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < r->nloaded; i++)
        assert_int_equal(a->of[r->loaded[i]], b->of[r->loaded[i]]);
    for (int f = 0; f < a->n; f++) {
        assert_int_equal(a->first[f], b->first[f]);
        assert_true(a->inv[f] == b->inv[f]);
        assert_int_equal(a->start[f + 1], b->start[f + 1]);
    }
    for (int k = 0; k < a->start[a->n]; k++)
        assert_true(a->load[k].phase == b->load[k].phase && a->load[k].term == b->load[k].term &&
                    a->load[k].load == b->load[k].load);
}

/* Options that make the timing overlap passes: ZeRO gathers beside their
 * layers, streamed passes beside their compute, and none (the DP buckets
 * beside the backward). */
static const char *const overlaps[][2] = {{NULL, NULL}, {"mem", "zero"}, {"chunk", "4KB"}};

/* fn(c, r, name, arg) for every small case with each of the overlaps'
 * options, r evaluated (and freed after) in a context c on the small
 * wafer with the windows of window_s (0: none), name the case's. */
static void each_case(double window_s, void (*fn)(sim_ctx *c, sim_result *r, const char *name, void *arg), void *arg)
{
    wafer wf;
    small_wafer(&wf);
    wt_err e;
    sim_ctx *c;
    assert_int_equal(sim_ctx_new(&c, &wf, &e), WT_OK);
    sim_ctx_set_window(c, window_s);
    for (size_t i = 0; i < NSMALL_CASES; i++)
        for (size_t o = 0; o < sizeof overlaps / sizeof overlaps[0]; o++) {
            const char *opt = overlaps[o][0] ? overlaps[o][0] : small_cases[i][1];
            const char *val = overlaps[o][0] ? overlaps[o][1] : small_cases[i][2];
            char name[128];
            snprintf(name, sizeof name, "%s %s=%s", small_cases[i][0], opt ? opt : "-", val ? val : "-");
            sim_result r;
            eval_with(c, &r, small_cases[i][0], opt, val);
            fn(c, &r, name, arg);
            sim_free(&r);
        }
    sim_ctx_free(c);
    wafer_free(&wf);
}

/* One case of test_classes_time_as_links; *overlapped counts the cases
 * whose classes join links. */
static void time_as_links(sim_ctx *c, sim_result *r, const char *name, void *overlapped)
{
    wt_err e;
    assert_null(r->reps); /* below SIM_CLASSES_MIN */
    timed links = timed_of(r);
    double *peak = malloc((size_t)r->nloaded * sizeof *peak);
    assert_non_null(peak);
    for (int k = 0; k < r->nloaded; k++)
        peak[k] = r->link_peak[r->loaded[k]];
    sim_link_classes by_links, by_reps;
    assert_int_equal(sim_link_classes_new(r, &by_links, &e), WT_OK);
    assert_int_equal(sim_result_reps(r, &c->bw, &e), WT_OK);
    check_partition(r);
    for (int p = 0; p < r->npatterns; p++) /* as a wafer's: the solves find them over the classes */
        r->patterns[p].free_rate = 0;
    assert_int_equal(sim_retime(c, r, 1, &e), WT_OK);
    timed classes = timed_of(r);
    if (memcmp(&links, &classes, sizeof links))
        fail_msg("%s: the timing over classes differs (step %.17g vs %.17g)", name, classes.step, links.step);
    for (int k = 0; k < r->nloaded; k++)
        assert_true(peak[k] == r->link_peak[r->loaded[k]]);
    free(peak);
    assert_int_equal(sim_link_classes_new(r, &by_reps, &e), WT_OK);
    same_classes(r, &by_links, &by_reps);
    *(int *)overlapped += r->reps->cl.n < r->nloaded; /* classes join links */
    sim_link_classes_free(&by_links);
    sim_link_classes_free(&by_reps);
}

static void test_classes_time_as_links(void **state)
{
    (void)state;
    int overlapped = 0;
    each_case(SIM_WINDOW_S, time_as_links, &overlapped); /* the windows too, as a session's */
    assert_true(overlapped > 0);
}

/* Two classings of r's links by every pattern, the same to the bit: the
 * classes, their numbers, first links, bandwidths, chains and each
 * pattern's list. */
static void same_reps(const sim_result *r, const sim_reps *a, const sim_reps *b)
{
    assert_int_equal(a->cl.n, b->cl.n);
    for (int i = 0; i < r->nloaded; i++)
        assert_int_equal(a->cl.of[r->loaded[i]], b->cl.of[r->loaded[i]]);
    for (int f = 0; f < a->cl.n; f++) {
        assert_int_equal(a->cl.first[f], b->cl.first[f]);
        assert_true(a->cl.inv[f] == b->cl.inv[f]);
        assert_int_equal(a->cstart[f + 1], b->cstart[f + 1]);
    }
    for (int k = 0; k < a->cstart[a->cl.n]; k++)
        assert_true(a->cpat[k] == b->cpat[k] && a->cload[k] == b->cload[k]);
    for (int p = 0; p <= r->npatterns; p++)
        assert_int_equal(a->pstart[p], b->pstart[p]);
    for (int k = 0; k < a->pstart[r->npatterns]; k++)
        assert_true(a->plink[k] == b->plink[k] && a->pload[k] == b->pload[k]);
}

/* One case of test_classes_past_their_codes; taken[path] counts the
 * classings by each path. */
static void past_codes(sim_ctx *c, sim_result *r, const char *name, void *taken)
{
    static const int bounds[] = {1, 7, 60, 1000, 100000};
    wt_err e;
    int path = -1;
    assert_int_equal(sim_result_reps_max(r, &c->bw, INT_MAX, &path, &e), WT_OK);
    if (path != 0) /* a small mesh's codes fit */
        fail_msg("%s: classed by path %d", name, path);
    sim_reps *codes = r->reps;
    r->reps = NULL;
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        assert_int_equal(sim_result_reps_max(r, &c->bw, bounds[b], &path, &e), WT_OK);
        check_partition(r);
        same_reps(r, codes, r->reps);
        ((int *)taken)[path]++;
    }
    sim_result_reps_free(r);
    r->reps = codes;
}

/* The classes' codes (sim_classes.c) held below smaller bounds: a range
 * whose codes would pass the bound numbers them again and goes on, or,
 * when even that does not fit, the links are classed by their chains;
 * both give exactly the classes the codes give (INT_MAX), and each path
 * is taken by some case. */
static void test_classes_past_their_codes(void **state)
{
    (void)state;
    int taken[3] = {0};
    each_case(0, past_codes, taken);
    assert_true(taken[1] > 0 && taken[2] > 0);
}

/* wse3's own strategy, every link loaded: its classes by codes, made in
 * ranges on the cores at once and joined, are exactly those of one walk of
 * the chains over all its links (codes held at 1). */
static void test_wafer_codes_as_chains(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    assert_int_equal(layout_load("layouts/wse3.yaml", &wf, &e), WT_OK);
    model m;
    model_preset("gpt3-6.7b", &m);
    m.microbatch = wf.strategy_microbatch;
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_spec(wf.strategy, &s, &e), WT_OK);
    sim_ctx *c;
    sim_result r;
    assert_int_equal(sim_ctx_new(&c, &wf, &e), WT_OK);
    assert_int_equal(sim_eval_ctx(c, &r, &m, &s, &e), WT_OK);
    assert_non_null(r.reps); /* a wafer's */
    int path = -1;
    assert_int_equal(sim_result_reps_max(&r, &c->bw, INT_MAX, &path, &e), WT_OK);
    assert_int_equal(path, 0);
    assert_int_equal(r.reps->cl.n, 825); /* 824 classes of 3,589,200 loaded links, and 0 */
    sim_reps *codes = r.reps;
    r.reps = NULL;
    assert_int_equal(sim_result_reps_max(&r, &c->bw, 1, &path, &e), WT_OK);
    assert_int_equal(path, 2);
    same_reps(&r, codes, r.reps);
    sim_result_reps_free(&r);
    r.reps = codes;
    sim_free(&r);
    sim_ctx_free(c);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_time_as_links),
        cmocka_unit_test(test_classes_past_their_codes),
        cmocka_unit_test(test_wafer_codes_as_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
