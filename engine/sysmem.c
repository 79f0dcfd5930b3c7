/*
 * sysmem.c - an evaluation's memory against what the process can have
 * (see sysmem.h).
 *
 * The figures per link and per unit are the arrays an evaluation with the
 * fluid model holds at once for every mesh (bytes per link slot):
 *   wafer.link_dead 1; sim_ctx bw_cls 1, marks 1; route_ctx cnt 4 (one
 *   int32 per slot of (w + 1) x (h + 1) units: about 4);
 *   flow_ctx ln 16 (rem, sum), util 8, slot 4, on 1, touched 4;
 *   sim_result link_bytes 8.
 * That is 48; per unit: wafer.unit_dead 1, route_ctx ok 1, the placement's
 * rank 4 and its list of dead units 4, 10 in all. Measured: a 2048 x 2048
 * mesh's `eval` runs under `ulimit -v` 850,000 KB and fails at 800,000; the
 * estimate is 847 MB. A wafer with faults adds the router's prefix sums and
 * search arrays (24 per unit), a strategy its patterns and windowed figures
 * (link_peak 8 and the link classes 4 per loaded link): this is the least an
 * evaluation takes.
 */
#include "sysmem.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "qty.h"

double sysmem_eval_bytes(const wafer *wf)
{
    return (double)wafer_nlinks(wf) * SYSMEM_LINK_BYTES + (double)wafer_nunits(wf) * SYSMEM_UNIT_BYTES;
}

/* Bytes the process maps now (/proc/self/statm's first field), 0 when
 * unknown. */
static double sysmem_mapped(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return (double)pages * (double)(page > 0 ? page : 4096);
}

/* Lowers *have to what the soft limit res leaves beyond mapped bytes. */
static void sysmem_rlimit(int res, double mapped, const char *name, double *have, const char **what)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
    double left = (double)rl.rlim_cur - mapped;
    if (left < 0)
        left = 0;
    if (left < *have) {
        *have = left;
        *what = name;
    }
}

double sysmem_limit(const char **what)
{
    const char *bound = "physical memory";
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    /* sysconf may not know: then the limits alone bound it */
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 1e300;
    double mapped = sysmem_mapped();
    sysmem_rlimit(RLIMIT_AS, mapped, "address-space limit, ulimit -v", &have, &bound);
    sysmem_rlimit(RLIMIT_DATA, mapped, "data limit, ulimit -d", &have, &bound);
    if (what)
        *what = bound;
    return have;
}

int sysmem_check(double need, const char *what, wt_err *e)
{
    const char *bound;
    double have = sysmem_limit(&bound);
    if (need <= have)
        return WT_OK;
    char n[32], h[32];
    return wt_fail(e, "%s needs %s of memory; this process can have %s (%s)", what,
                   qty_format(need, QTY_BYTES, n, sizeof n), qty_format(have, QTY_BYTES, h, sizeof h), bound);
}
