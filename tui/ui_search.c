/*
 * ui_search.c - `:search` in a thread of its own, so that the screen stays
 * live: the thread works on its own copies of the wafer and the model, the
 * screen reads its progress, and when it is done the best waits for `y`.
 * A search for a session that opened on a strategy that does not fit
 * (ui_fit.c) applies its best itself, unless the strategy changed meanwhile.
 */
#include <stdio.h>
#include <string.h>

#include "ui.h"

static void progress(void *ud, double done)
{
    ui_search *s = ud;
    atomic_store(&s->permille, (int)(done * 1000));
}

static void *search_thread(void *arg)
{
    ui_search *s = arg;
    s->rc = search_run(&s->wf, &s->m, &s->o, &s->res, &s->e);
    atomic_store(&s->done, 1);
    return NULL;
}

/* Forgets a search: joins its thread, frees what it holds. */
static void search_clear(ui_search *s)
{
    if (s->running) {
        atomic_store(&s->stop, 1);
        pthread_join(s->thread, NULL);
        s->running = 0;
        if (s->rc == WT_OK)
            search_free(&s->res);
        wafer_free(&s->wf);
    } else if (s->offered) {
        search_free(&s->res);
        wafer_free(&s->wf);
    }
    s->offered = 0;
}

/* 1 when a and b are the same point with the same options. */
static int same_strategy(const strategy *a, const strategy *b)
{
    char ta[64], tb[64];
    return !strcmp(strategy_format(a, ta, sizeof ta), strategy_format(b, tb, sizeof tb)) &&
           a->placement == b->placement && a->collective == b->collective && a->routing == b->routing &&
           a->checkpoint == b->checkpoint && a->mem == b->mem && a->grad == b->grad && a->chunk == b->chunk &&
           a->sub_w == b->sub_w && a->sub_h == b->sub_h && a->tp_seqpar == b->tp_seqpar && a->exec == b->exec;
}

int ui_search_begin(ui *u, int argc, char **argv, const char *unfit, wt_err *e)
{
    ui_search *s = &u->search;
    if (s->running) /* before touching the options the thread reads */
        return wt_fail(e, "search: one is running (search stop ends it)");
    cli_opts o;
    search_opts so;
    int rc = cli_parse(argc, argv, CLI_SEARCH | CLI_NO_SCENARIO, u->root, &o, e);
    if (rc == WT_OK)
        rc = cli_search_opts(&o, &so, e);
    if (rc != WT_OK)
        return rc;
    so.baselines = 0;
    so.net = u->S->o.net; /* the session's, as --net named it on the command line */
    if (!o.jobs) /* leave a core to the screen */
        so.jobs = so.jobs > 2 ? so.jobs - 1 : 1;
    search_clear(s);
    s->o = so;
    u->fit_search = 0; /* the fault banner's search sets it after this */
    snprintf(s->unfit, sizeof s->unfit, "%s", unfit ? unfit : "");
    s->from = u->S->s;
    rc = wafer_copy(&s->wf, &u->S->wf, e);
    if (rc != WT_OK)
        return rc;
    s->m = u->S->m;
    s->o.progress = progress;
    s->o.progress_ud = s;
    s->o.stop = &s->stop;
    atomic_store(&s->done, 0);
    atomic_store(&s->stop, 0);
    atomic_store(&s->permille, 0);
    if (pthread_create(&s->thread, NULL, search_thread, s) != 0) {
        wafer_free(&s->wf);
        return wt_fail(e, "search: cannot start a thread");
    }
    s->running = 1;
    if (s->unfit[0])
        ui_status(u, 0, "%s: searching for one that fits...", s->unfit);
    else
        ui_status(u, 0, "searching...");
    return WT_OK;
}

void ui_search_poll(ui *u)
{
    ui_search *s = &u->search;
    if (!s->running)
        return;
    if (!atomic_load(&s->done)) {
        ui_status(u, 0, "%s%ssearching%s %d%%   (:search stop ends it)", s->unfit, s->unfit[0] ? ": " : "",
                  s->unfit[0] ? " for one that fits" : "", atomic_load(&s->permille) / 10);
        return;
    }
    pthread_join(s->thread, NULL);
    s->running = 0;
    if (s->rc != WT_OK) {
        ui_status(u, 1, "%s", s->e.msg);
        wafer_free(&s->wf);
        return;
    }
    if (!s->res.ntop) {
        ui_printf(u, "search: nothing fits %s on %s: %s", s->m.name, s->wf.name, s->res.nofit);
        ui_status(u, 1, "nothing fits %s on %s: %s", s->m.name, s->wf.name, s->res.nofit);
        wafer_free(&s->wf);
        return;
    }
    s->offered = 1;
    const search_result *r = &s->res;
    char text[64];
    ui_printf(u, "search: %lld candidates, %lld evaluated in %.2f s; the best:", r->candidates, r->evaluated,
              r->elapsed_s);
    for (int i = 0; i < r->ntop; i++) {
        const sim_result *t = &r->top[i];
        char mem[64];
        ui_printf(u, "  %d. %-22s %-6s %-5s %-9s %-22s step %.4g s  MFU %.1f%%", i + 1,
                  strategy_format(&t->s, text, sizeof text), place_kind_name(t->s.placement),
                  coll_algo_name(t->s.collective), recompute_name(t->s.checkpoint),
                  mem_switches_format(t->s.mem, mem, sizeof mem), t->step_time_s, 100 * t->mfu);
    }
    double now = u->r ? u->r->step_time_s : 0, best = r->top[0].step_time_s;
    strategy_format(&r->top[0].s, text, sizeof text);
    if (s->unfit[0] && same_strategy(&s->from, &u->S->s)) {
        char unfit[sizeof s->unfit];
        snprintf(unfit, sizeof unfit, "%s", s->unfit);
        ui_search_apply(u); /* frees r */
        ui_status(u, 0, "switched to %s, the best that fits (step %.4g s), found by a search: %s", text, best, unfit);
        return;
    }
    char gain[64] = "";
    if (now > 0)
        snprintf(gain, sizeof gain, " (now %.4g s: %.2fx)", now, now / best);
    char done[256];
    snprintf(done, sizeof done, "search done: %s, step %.4g s%s   y applies it", text, best, gain);
    ui_status(u, 0, "%s", done);
    ui_print(u, done);
}

void ui_search_apply(ui *u)
{
    ui_search *s = &u->search;
    if (!s->offered) {
        ui_status(u, 1, "no search result to apply (:search finds one)");
        return;
    }
    /* The micro-batch size is part of what the search chose: the session
     * takes it with the strategy (and drops the old one's tuning). */
    wt_err e;
    const sim_result *top = &s->res.top[0];
    if (session_switch(u->S, &top->s, top->m.microbatch, &e) != WT_OK) {
        ui_status(u, 1, "%s", e.msg);
        return;
    }
    char text[64];
    ui_printf(u, "applied the search's best: %s, micro-batch %d", strategy_format(&top->s, text, sizeof text),
              top->m.microbatch);
    ui_status(u, 0, "applied %s", text);
    search_clear(s);
    u->step_wanted = 1;
}

void ui_search_end(ui *u)
{
    search_clear(&u->search);
}

void ui_search_forget(ui *u)
{
    if (!u->search.running && !u->search.offered)
        return;
    search_clear(&u->search);
    ui_print(u, "search dropped: the scenario it ran on changed");
}
