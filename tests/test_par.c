/* engine/par.c: a walk split into parts runs each part exactly once, on at
 * most one thread per core, whatever the number of parts; the ranges of
 * par_range cover the items in order without a gap or an overlap; small
 * walks are not split. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <unistd.h>

#include <cmocka.h>

#include "par.h"

typedef struct runs {
    atomic_int count[PAR_MAX];
    int nparts;
} runs;

static void count_part(void *ctx, int part)
{
    runs *r = ctx;
    assert_true(part >= 0 && part < r->nparts);
    atomic_fetch_add(&r->count[part], 1);
}

static void test_every_part_once(void **state)
{
    (void)state;
    static const int sizes[] = {1, 2, 3, 8, PAR_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        runs r = {.nparts = sizes[i]};
        for (int p = 0; p < PAR_MAX; p++)
            atomic_init(&r.count[p], 0);
        par_run(r.nparts, count_part, &r);
        for (int p = 0; p < PAR_MAX; p++)
            assert_int_equal(atomic_load(&r.count[p]), p < r.nparts ? 1 : 0);
    }
}

static void test_ranges(void **state)
{
    (void)state;
    static const size_t ns[] = {0, 1, 7, 1000, 1000003};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int nparts = 1; nparts <= PAR_MAX; nparts++) {
            size_t at = 0;
            for (int p = 0; p < nparts; p++) {
                size_t first, end;
                par_range(ns[i], p, nparts, &first, &end);
                assert_int_equal(first, at);
                assert_true(end >= first && end - first <= ns[i] / (size_t)nparts + 1);
                at = end;
            }
            assert_int_equal(at, ns[i]);
        }
}

static void test_split_sizes(void **state)
{
    (void)state;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores > 1 ? (cores < PAR_THREADS ? (int)cores : PAR_THREADS) : 1;
    assert_int_equal(par_parts(1000), 1);
    assert_int_equal(par_chunks(1000), 1);
    assert_int_equal(par_parts(100000000), threads);
    assert_int_equal(par_chunks(100000000), threads > 1 ? (4 * threads < PAR_MAX ? 4 * threads : PAR_MAX) : 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_part_once),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_split_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
