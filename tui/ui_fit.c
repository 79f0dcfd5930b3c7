/*
 * ui_fit.c - the strategy a new session opens on. When the user named none,
 * it is the layout's recommended one (or the default); when that does not
 * fit the model, the session opens on it all the same (or, when it cannot
 * run on the layout at all, on DP over every live unit) and a search in the
 * background (ui_search.c) switches to the best that fits: the first frame
 * never waits for a search. A strategy the user named stays, fitting or not.
 */
#include <stdio.h>
#include <stdlib.h>

#include "qty.h"
#include "ui.h"

int ui_fit_check(const wafer *wf, const model *m, strategy *s, const char *named, char *unfit, size_t n, wt_err *e)
{
    unfit[0] = '\0';
    char text[64];
    strategy_format(s, text, sizeof text);
    strategy check = *s;
    wt_err why;
    if (strategy_resolve(&check, m, wf, &why) != WT_OK) {
        if (named)
            return wt_fail(e, "%s: %s", named, why.msg);
        snprintf(unfit, n, "%s cannot run here (%s)", text, why.msg);
        strategy_defaults(s); /* DP over every live unit: no dimension given */
        check = *s;
        if (strategy_resolve(&check, m, wf, e) != WT_OK)
            return WT_EINPUT;
    }
    sim_result *spec = calloc(1, sizeof *spec);
    if (!spec)
        return wt_oom(e, "memory check");
    int rc = sim_spec(spec, wf, m, &check, e);
    if (rc == WT_OK && !spec->mem.fits && !unfit[0]) {
        char need[32], cap[32];
        snprintf(unfit, n, "%s does not fit %s (%s of %s a unit)", text, m->name,
                 qty_format(spec->mem.total, QTY_BYTES, need, sizeof need),
                 qty_format(spec->mem.capacity, QTY_BYTES, cap, sizeof cap));
    }
    free(spec);
    return rc;
}

void ui_fit_opened(ui *u, const char *unfit, int named)
{
    if (!unfit[0])
        return;
    if (named) {
        ui_status(u, 0, "%s: :search finds one that does", unfit);
        return;
    }
    wt_err e;
    ui_printf(u, "%s: a search in the background looks for one that fits", unfit);
    if (ui_search_begin(u, 0, NULL, unfit, &e) != WT_OK)
        ui_status(u, 1, "%s; no search for one that fits: %s", unfit, e.msg);
}
