/*
 * ui_setup.c - what the screen simulates against the scenario it was opened
 * with: a policy's start and stop (its actions undone unless `:keep` kept
 * them), `:reset`, the panel's line of changes, and the banner over the
 * mesh while steps fail, with a search for a strategy that fits.
 */
#include <stdio.h>
#include <string.h>

#include "qty.h"
#include "ui.h"

int ui_set_policy(ui *u, const char *name_or_path, wt_err *e)
{
    if (!*name_or_path || !strcmp(name_or_path, "off")) {
        if (!u->policy[0])
            ui_print(u, "no policy runs");
        ui_policy_stop(u, "off");
        return WT_OK;
    }
    char name[64];
    int rc = wtlua_load_policy(u->L, name_or_path, name, sizeof name, e);
    if (rc != WT_OK)
        return rc;
    ui_policy_stop(u, "another starts");
    if ((rc = session_policy_start(u->S, e)) != WT_OK)
        return rc;
    snprintf(u->policy, sizeof u->policy, "%s", name);
    snprintf(u->policy_src, sizeof u->policy_src, "%s", name_or_path);
    return WT_OK;
}

void ui_policy_stop(ui *u, const char *why)
{
    if (!u->policy[0])
        return;
    char undone[SESSION_LOG];
    session_changes(u->S, SESSION_SINCE_POLICY, undone, sizeof undone);
    wt_err e;
    if (session_policy_end(u->S, 0, &e) != WT_OK) {
        ui_printf(u, "policy %s stopped (%s); what it did stays: %s", u->policy, why, e.msg);
        session_policy_end(u->S, 1, &e);
    } else {
        ui_printf(u, "policy %s stopped (%s): %s%s", u->policy, why, undone[0] ? "undid " : "nothing to undo",
                  undone);
    }
    u->policy[0] = u->policy_src[0] = '\0';
    u->step_wanted = 1;
    ui_note_changes(u);
}

int ui_mark_opened(ui *u, wt_err *e)
{
    int rc = session_mark_opened(u->S, e);
    ui_note_changes(u);
    return rc;
}

int ui_reset(ui *u, wt_err *e)
{
    char policy[sizeof u->opened_policy];
    snprintf(policy, sizeof policy, "%s", u->opened_policy);
    ui_policy_stop(u, "reset");
    int rc = session_reset(u->S, e);
    if (rc == WT_OK && policy[0])
        rc = ui_set_policy(u, policy, e);
    if (rc != WT_OK)
        return rc;
    ui_search_forget(u);
    u->play.mesh++; /* the faults as opened show before the next step */
    ui_note_changes(u);
    ui_printf(u, "reset: the scenario as opened%s%s", u->policy[0] ? ", policy restarted: " : "", u->policy);
    return WT_OK;
}

void ui_note_changes(ui *u)
{
    u->nchanges = u->S ? session_changes(u->S, SESSION_SINCE_OPENED, u->changes, sizeof u->changes) : 0;
}

void ui_stalled(ui *u, const char *why)
{
    int again = !strcmp(u->stalled, why);
    snprintf(u->stalled, sizeof u->stalled, "%s", why);
    if (again || u->search.running || u->search.offered)
        return;
    char idle[] = "--allow-idle", *words[] = {idle};
    wt_err e;
    if (ui_search_begin(u, 1, words, NULL, &e) != WT_OK)
        ui_printf(u, "no search for a strategy that fits: %s", e.msg);
    else
        u->fit_search = 1;
}

const char *ui_banner(ui *u)
{
    if (!u->stalled[0])
        return NULL;
    const ui_search *s = &u->search;
    char fit[512], text[64], t[32];
    if (u->fit_search && s->running) {
        snprintf(fit, sizeof fit, "looking for a strategy that fits: %d%%", atomic_load(&s->permille) / 10);
    } else if (u->fit_search && s->offered) {
        const sim_result *top = &s->res.top[0];
        snprintf(fit, sizeof fit, "fits: %s, micro-batch %d, step %s (y applies it; :repair undoes the faults)",
                 strategy_format(&top->s, text, sizeof text), top->m.microbatch,
                 qty_format(top->step_time_s, QTY_TIME, t, sizeof t));
    } else if (u->fit_search && s->rc != WT_OK) {
        snprintf(fit, sizeof fit, "%.500s", s->e.msg);
    } else {
        snprintf(fit, sizeof fit, ":repair undoes the faults; :strategy or :search finds another");
    }
    snprintf(u->banner, sizeof u->banner, "not running: %.450s (%s)\n%.450s", u->stalled,
             u->r ? "the mesh shows the last step that ran" : "no step has run", fit);
    return u->banner;
}
