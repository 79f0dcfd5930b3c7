/* Figures by tile (engine/tiles.h) against a walk of each tile's links one
 * by one, with dead units and links and tiles cut by the mesh's edge: the
 * usable links and live units of each tile; on a mesh large enough to split
 * over the cores, the link classes of each tile, in first-met order, and
 * their counts, with every link listed or a few. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tiles.h"

enum { NCLASSES = 40 };

/* Tile k's entries the plain way: its usable links in slot order within
 * each unit, units row by row, class 0 and unlisted links left out. */
static void expect_tile(const wafer *wf, int z, const int *of, const unsigned char *listed, const tiles_classes *tc,
                        size_t k)
{
    int nx, ny, cls[NCLASSES], count[NCLASSES], n = 0;
    tiles_size(wf, z, z, &nx, &ny);
    int x0 = (int)(k % (size_t)nx) * z, y0 = (int)(k / (size_t)nx) * z;
    for (int y = y0; y < y0 + z && y < wf->h; y++)
        for (int x = x0; x < x0 + z && x < wf->w; x++)
            for (int d = 0; d < WAFER_NDIR; d++) {
                int u = wafer_unit(wf, x, y);
                size_t l = (size_t)u * WAFER_NDIR + (size_t)d;
                if (!wafer_link_usable(wf, u, d) || !of[l] || (listed && !listed[l]))
                    continue;
                int i = 0;
                while (i < n && cls[i] != of[l])
                    i++;
                if (i == n) {
                    cls[n] = of[l];
                    count[n++] = 0;
                }
                count[i]++;
            }
    assert_int_equal(tc->start[k + 1] - tc->start[k], n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(tc->cls[tc->start[k] + i], cls[i]);
        assert_int_equal(tc->count[tc->start[k] + i], count[i]);
    }
}

static void test_tiles_classes_split(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    assert_int_equal(wafer_init(&wf, 470, 450, 1, 1, &e), WT_OK); /* 846,000 links: split on 2 cores */
    assert_int_equal(wafer_fail_unit(&wf, 17, 40, &e), WT_OK);
    assert_int_equal(wafer_fail_link(&wf, 200, 100, WAFER_E, &e), WT_OK);
    size_t nl = wafer_nlinks(&wf);
    int *of = calloc(nl, sizeof *of), *listed = malloc(nl * sizeof *listed);
    unsigned char *is_listed = calloc(nl, 1);
    assert_non_null(of);
    assert_non_null(listed);
    assert_non_null(is_listed);
    unsigned seed = 12345;
    size_t nlisted = 0;
    for (size_t l = 0; l < nl; l++) {
        seed = seed * 1103515245u + 12345u;
        of[l] = l % 7 == 0 ? 0 : (int)((l / 5 + (seed >> 16) % 3) % NCLASSES); /* runs, noise, zeros */
        if (l % 25 < 12) { /* 48 %: fewer than half, still split */
            listed[nlisted++] = (int)l;
            is_listed[l] = 1;
        }
    }
    for (int z = 7; z <= 64; z *= 3) {
        int nx, ny;
        tiles_size(&wf, z, z, &nx, &ny);
        for (int few = 0; few <= 1; few++) {
            tiles_classes tc;
            int *every = calloc(nl, sizeof *every);
            assert_non_null(every);
            for (size_t l = 0; l < nl; l++) /* the few listed: of[] is 0 elsewhere, as the contract asks */
                every[l] = few && !is_listed[l] ? 0 : of[l];
            assert_int_equal(tiles_classes_new(&wf, z, z, every, NCLASSES, few ? listed : NULL, nlisted, &tc), 0);
            assert_int_equal(tc.start[0], 0);
            for (size_t k = 0; k < (size_t)nx * (size_t)ny; k++)
                expect_tile(&wf, z, every, few ? is_listed : NULL, &tc, k);
            tiles_classes_free(&tc);
            free(every);
        }
    }
    free(of);
    free(listed);
    free(is_listed);
    wafer_free(&wf);
}

static void test_tiles_count(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    assert_int_equal(wafer_init(&wf, 50, 31, 1, 1, &e), WT_OK);
    assert_int_equal(wafer_fail_unit(&wf, 6, 6, &e), WT_OK);
    assert_int_equal(wafer_fail_unit(&wf, 49, 30, &e), WT_OK);
    assert_int_equal(wafer_fail_link(&wf, 13, 7, WAFER_N, &e), WT_OK);
    for (int z = 1; z <= 64; z = 2 * z + 1) {
        int nx, ny;
        tiles_size(&wf, z, z, &nx, &ny);
        size_t nt = (size_t)nx * (size_t)ny;
        double *links = malloc(nt * sizeof *links), *live = malloc(nt * sizeof *live);
        assert_non_null(links);
        assert_non_null(live);
        tiles_count(&wf, z, z, links, live);
        for (size_t k = 0; k < nt; k++) {
            int x0 = (int)(k % (size_t)nx) * z, y0 = (int)(k / (size_t)nx) * z, n = 0, alive = 0;
            for (int y = y0; y < y0 + z && y < wf.h; y++)
                for (int x = x0; x < x0 + z && x < wf.w; x++) {
                    int u = wafer_unit(&wf, x, y);
                    alive += !wf.unit_dead[u];
                    for (int d = 0; d < WAFER_NDIR; d++)
                        n += wafer_link_usable(&wf, u, d);
                }
            assert_true(links[k] == n);
            assert_true(live[k] == alive);
        }
        free(links);
        free(live);
    }
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiles_count),
        cmocka_unit_test(test_tiles_classes_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
