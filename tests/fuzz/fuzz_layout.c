/*
 * fuzz_layout.c - the layout loader (engine/layout.c): any bytes as a layout
 * file. Refused: one line starting with the file's path (file:line:col).
 * Accepted: a wafer whose figures are finite (every evaluation divides by
 * them), positive where a unit cannot work without them, whose recommended
 * strategy (strategy:) reads and whose live units are counted, as every
 * command does next.
 */
#include <math.h>

#include "fuzz.h"
#include "layout.h"
#include "strategy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    wafer wf;
    wt_err e = {{0}};
    if (layout_load(path, &wf, &e) != WT_OK) {
        fuzz_check_err(&e, path);
        return 0;
    }
    const double positive[] = {wf.peak_flops, wf.efficiency, wf.sram_bytes, wf.link_bw, wf.iw_bw};
    const double at_least_0[] = {wf.dram_bytes, wf.dram_bw, wf.link_lat, wf.link_overhead, wf.chunk_overhead,
                                 wf.iw_lat, wf.store_bytes, wf.store_bw_in, wf.store_bw_out, wf.store_lat};
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
        if (!(positive[i] > 0 && isfinite(positive[i])))
            fuzz_die("layout %s: figure %zu of unit and links is %g", wf.name, i, positive[i]);
    for (size_t i = 0; i < sizeof at_least_0 / sizeof at_least_0[0]; i++)
        if (!(at_least_0[i] >= 0 && isfinite(at_least_0[i])))
            fuzz_die("layout %s: figure %zu of memory, latencies and store is %g", wf.name, i, at_least_0[i]);
    if (wf.efficiency > 1)
        fuzz_die("layout %s: efficiency %g", wf.name, wf.efficiency);
    int live = wafer_live_units(&wf);
    if (live < 0 || live > wf.w * wf.h)
        fuzz_die("%d live units on a %d x %d mesh", live, wf.w, wf.h);
    strategy s;
    e.msg[0] = '\0';
    if (strategy_of_layout(&wf, &s, &e) != WT_OK)
        fuzz_check_err(&e, "layout ");
    wafer_free(&wf);
    return 0;
}
