/* dor_walk.h - the tests' own dimension-order route (after cmocka.h): a
 * packet's path walked by hand, one hop at a time, independent of the
 * engine's routers. */
#ifndef WT_TEST_DOR_WALK_H
#define WT_TEST_DOR_WALK_H

#include "wafer.h"

/* Adds amount to load[unit * WAFER_NDIR + dir] for every link the route
 * from unit a to unit b of a w-wide mesh crosses (X first, or Y first when
 * yx) and returns the routers it passes, both ends included. */
static inline int dor_walk(int w, int a, int b, int yx, double amount, double *load)
{
    int routers = 1;
    for (;;) {
        int x = a % w, y = a / w, bx = b % w, by = b / w;
        int hx = bx > x ? WAFER_E : bx < x ? WAFER_W : -1, hy = by > y ? WAFER_S : by < y ? WAFER_N : -1;
        int d = yx ? (hy >= 0 ? hy : hx) : (hx >= 0 ? hx : hy);
        if (d < 0)
            return routers;
        load[(size_t)a * WAFER_NDIR + (size_t)d] += amount;
        a += d == WAFER_E ? 1 : d == WAFER_W ? -1 : d == WAFER_S ? w : -w;
        routers++;
    }
}

#endif
