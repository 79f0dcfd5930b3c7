/* A wafer's link bandwidths as classes (engine/net/net_bw.h) against each
 * link's own, brute force, on one wafer and across wafers, healthy and
 * with dead units and links. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "layout.h"
#include "net_bw.h"
#include "sim.h"

/* Every link's value and the three figures, against sim_link_inv_bw and
 * wafer_link_bw link by link. */
static void check_wafer(const wafer *wf)
{
    size_t nl = wafer_nlinks(wf);
    unsigned char *cls = malloc(nl);
    assert_non_null(cls);
    double inv[NET_BW_NCLASS], link_bw, inj_bw;
    int usable;
    net_bw b;
    net_bw_build(&b, wf, cls, inv, &usable, &link_bw, &inj_bw);
    int n = 0, kinds[NET_BW_NCLASS] = {0};
    double fastest = 0, most = 0;
    for (size_t l = 0; l < nl; l++) {
        assert_true(net_bw_inv(&b, l) == sim_link_inv_bw(wf, l));
        kinds[cls[l]]++;
        n += sim_link_inv_bw(wf, l) > 0;
    }
    for (size_t u = 0; u < wafer_nunits(wf); u++) {
        double inject = 0;
        for (int d = 0; d < WAFER_NDIR; d++) {
            double bw = wafer_link_usable(wf, (int)u, d) ? wafer_link_bw(wf, (int)u, d) : 0;
            inject += bw;
            fastest = bw > fastest ? bw : fastest;
        }
        most = inject > most ? inject : most;
    }
    assert_int_equal(usable, n);
    assert_true(link_bw == fastest && inj_bw == most);
    /* across wafers, both kinds of crossing are there */
    int multi = wf->wafers_x > 1 && wf->wafers_y > 1;
    assert_true(kinds[0] > 0 && kinds[1] > 0 && (kinds[2] > 0) == multi && (kinds[3] > 0) == multi);
    free(cls);
}

static void test_classes_are_each_links_own(void **state)
{
    (void)state;
    const char *layouts[] = {"layouts/default.yaml", "layouts/multiwafer-4x4.yaml", "layouts/wsc-6x9.yaml"};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        wafer wf;
        assert_int_equal(layout_load(layouts[i], &wf, NULL), WT_OK);
        check_wafer(&wf);
        /* a dead unit on a wafer edge and a dead link (across the edge
         * when there is another wafer below) */
        int dir = wf.h > wf.wafer_h ? WAFER_S : WAFER_N;
        assert_int_equal(wafer_fail_unit(&wf, wf.wafer_w - 1, 1, NULL), WT_OK);
        assert_int_equal(wafer_fail_link(&wf, 2, wf.wafer_h - 1, dir, NULL), WT_OK);
        check_wafer(&wf);
        wafer_free(&wf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_are_each_links_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
