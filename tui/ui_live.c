/*
 * ui_live.c - the live session behind the screen: loading a scenario,
 * stepping it with the policy acting between steps, and what the next
 * frame shows of it (the colours are ui_play.c's). Also the output pane and
 * the status line.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qty.h"
#include "term.h"
#include "ui.h"

const double ui_speeds[] = {0.25, 0.5, 1, 2, 5, 10, 20};
const int ui_nspeeds = (int)(sizeof ui_speeds / sizeof ui_speeds[0]);

void ui_print(ui *u, const char *text)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        if (u->nout == VIEW_OUTPUT) {
            free(u->out[0]);
            memmove(u->out, u->out + 1, (VIEW_OUTPUT - 1) * sizeof *u->out);
            u->nout--;
            if (u->v.output_top > 0) /* the pane keeps showing the same lines */
                u->v.output_top--;
        }
        char *line = malloc(n + 1);
        if (!line)
            return; /* the pane loses a line; nothing else depends on it */
        memcpy(line, text, n);
        line[n] = '\0';
        u->out[u->nout++] = line;
        u->out_total++;
        text += n + (text[n] == '\n');
    }
}

void ui_show_from(ui *u, long start)
{
    long lines = u->out_total - start;
    int first = lines > u->nout ? 0 : u->nout - (int)lines; /* or the oldest the pane still holds */
    view_layout l;
    view_layout_for(u->cv.w, u->cv.h, u->v.output_tall, &l);
    u->v.noutput = u->nout; /* the frame syncs the rest */
    for (int i = 0; i < u->nout; i++)
        u->v.output[i] = u->out[i];
    u->v.output_top = first < view_output_end(&u->v, l.output) ? first : -1;
}

void ui_printf(ui *u, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ui_print(u, buf);
}

void ui_status(ui *u, int error, const char *fmt, ...)
{
    char full[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(full, sizeof full, fmt, ap);
    va_end(ap);
    snprintf(u->status, sizeof u->status, "%.*s", (int)strcspn(full, "\n"), full);
    u->status_error = error;
    if (error) /* in full where it stays: the status line shows its first line, cut to the width */
        ui_print(u, full);
}

void ui_lua_out(void *ud, const char *s, size_t n)
{
    ui *u = ud;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(u->partial);
        if (s[i] == '\n' || len + 1 == sizeof u->partial) {
            ui_print(u, len ? u->partial : " ");
            u->partial[0] = '\0';
            if (s[i] == '\n')
                continue;
            len = 0;
        }
        u->partial[len] = s[i];
        u->partial[len + 1] = '\0';
    }
}

ui *ui_new(const char *root)
{
    ui *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->root = root;
    u->speed_level = 1;
    u->v.output_top = -1;
    u->play.level = -1;
    u->play.playing = 1;
    u->play.window_gen = -1;
    u->play.avg_gen = -1;
    u->play.shown = 1;
    u->play.mesh = 1;
    u->group.kind = u->group.unit = -1;
    cmdline_init(&u->cmd, ':', ui_complete_words, u);
    cmdline_init(&u->find, '/', NULL, NULL);
    return u;
}

void ui_free(ui *u)
{
    ui_search_end(u);
    ui_free_session(u);
    for (int i = 0; i < u->nout; i++)
        free(u->out[i]);
    canvas_free(&u->cv);
    view_blocks_free(&u->v.blocks);
    free(u);
}

void ui_free_session(ui *u)
{
    ui_compare_end(u); /* its result borrows the session's wafer */
    ui_flit_end(u);
    wtlua_free(u->L); /* before the session: Lua's results borrow its wafer */
    u->L = NULL;
    if (u->S) {
        session_free(u->S);
        free(u->S);
        u->S = NULL;
    }
    u->r = NULL;
    ui_play_free(&u->play);
    ui_group_free(u); /* its units belong to the session's wafer */
}

int ui_load(ui *u, const char *layout_arg, const char *model_arg, int argc, char **argv, wt_err *e)
{
    /* the names may be u's own buffers, which this overwrites */
    char layout[sizeof u->layout], model_name[sizeof u->model];
    snprintf(layout, sizeof layout, "%s", layout_arg);
    snprintf(model_name, sizeof model_name, "%s", model_arg);
    cli_opts o = u->o;
    o.layout = layout;
    o.model = model_name;
    o.nfail = 0; /* --fail faults are the session's, not the layout's (cmd_ui) */
    o.lua.out = ui_lua_out;
    o.lua.out_ud = u;
    o.lua.interrupt = term_stop_flag(); /* Ctrl-C stops a running policy or command */
    const char *named = argc > 0 ? "strategy" : !u->S && o.strategy_given ? "--strategy" : NULL;
    if (u->S && !argc) /* :layout, :model: the layout's own strategy (ui_fit.c), as at a start without one */
        o.strategy_given = o.nopts = 0;
    wtlua *L = NULL;
    wafer wf;
    model m;
    strategy s;
    session *S = calloc(1, sizeof *S);
    int rc = S ? wtlua_new(&L, &o.lua, e) : wt_oom(e, "session");
    if (rc == WT_OK)
        rc = cli_load_hardware(&o, u->root, &wf, &m, e);
    if (rc != WT_OK)
        goto fail;
    if (argc > 0) /* a new strategy, with its options */
        rc = ui_parse_strategy(u, L, argc, argv, &wf, &m, &s, e);
    else /* the startup's, or the layout's */
        rc = cli_load_strategy(&o, &L, &wf, &m, &s, e);
    char unfit[200];
    if (rc == WT_OK)
        rc = ui_fit_check(&wf, &m, &s, named, unfit, sizeof unfit, e);
    session_opts so = {(uint64_t)u->o.seed, u->o.jitter, u->o.straggler, u->o.net, u->o.window};
    if (rc == WT_OK)
        rc = session_new(S, &wf, &m, &s, &so, e);
    wafer_free(&wf);
    if (rc != WT_OK)
        goto fail;
    ui_play fresh;
    if (ui_play_links(&fresh, wafer_nlinks(&S->wf)) != 0) {
        session_free(S);
        rc = wt_oom(e, "link colours");
        goto fail;
    }
    char policy[1024];
    snprintf(policy, sizeof policy, "%s", u->policy_src);
    ui_free_session(u);
    u->policy[0] = u->policy_src[0] = u->stalled[0] = '\0'; /* restarted on the new session */
    u->L = L;
    u->S = S;
    ui_play_start(&u->play, &fresh);
    u->v.nhistory = 0;
    snprintf(u->layout, sizeof u->layout, "%s", layout);
    snprintf(u->model, sizeof u->model, "%s", model_name);
    u->step_wanted = 1;
    if (u->v.cx >= S->wf.w || u->v.cy >= S->wf.h)
        u->v.cx = u->v.cy = 0;
    u->v.zoom = u->v.ox = u->v.oy = 0; /* the new mesh fits the window */
    ui_search_forget(u);
    ui_fit_opened(u, unfit, named != NULL);
    wt_err why;
    if (policy[0] && ui_set_policy(u, policy, &why) != WT_OK)
        ui_status(u, 1, "policy %s not restarted: %s", policy, why.msg);
    snprintf(u->opened_policy, sizeof u->opened_policy, "%s", u->policy_src);
    ui_note_changes(u);
    return WT_OK;
fail:
    wtlua_free(L);
    free(S);
    return rc;
}

int ui_fail(ui *u, const char *who, const char *text, wt_err *e)
{
    int x, y, dir;
    char bad;
    int rc = wafer_parse_fault(text, &x, &y, &dir, &bad);
    if (rc == -2)
        return wt_fail(e, "%s: '%c' is not a direction (N E S W)", who, bad);
    if (rc != 0)
        return wt_fail(e, "%s: '%s' is not x,y or x,y,DIR (DIR one of N E S W)", who, text);
    wt_err why;
    rc = dir < 0 ? session_fail_unit(u->S, x, y, &why) : session_fail_link(u->S, x, y, dir, &why);
    if (rc != WT_OK)
        return wt_fail(e, "%s: %s", who, why.msg);
    u->play.shown++; /* the dead units and links show before the next step */
    u->play.mesh++;
    ui_search_forget(u);
    return WT_OK;
}

int ui_parse_strategy(ui *u, wtlua *L, int argc, char **argv, const wafer *wf, const model *m, strategy *s,
                      wt_err *e)
{
    /* the words as the command line's --strategy S [--option V ...] */
    char *words[40];
    if (argc > 38)
        return wt_fail(e, "strategy: too many words");
    words[0] = "--strategy";
    for (int i = 0; i < argc; i++)
        words[i + 1] = argv[i];
    cli_opts o;
    int rc = cli_parse(argc + 1, words, 0, u->root, &o, e);
    if (rc != WT_OK)
        return rc;
    return cli_load_strategy(&o, &L, wf, m, s, e);
}

void ui_step(ui *u)
{
    session *S = u->S;
    const sim_result *r;
    wt_err e;
    u->step_wanted = 0;
    if (session_step(S, &r, &e) != WT_OK) {
        u->paused = 1;
        ui_status(u, 1, "step failed (paused): %s", e.msg);
        ui_stalled(u, e.msg);
    } else {
        u->stalled[0] = '\0';
        if (u->v.nhistory == VIEW_HISTORY) {
            memmove(u->v.history, u->v.history + 1, (VIEW_HISTORY - 1) * sizeof *u->v.history);
            u->v.nhistory--;
        }
        u->v.history[u->v.nhistory++] = r->step_time_s;
        session_set_actor(S, SESSION_POLICY);
        int rc = u->policy[0] ? wtlua_policy_step(u->L, u->policy, S, r, UI_MAX_HOT, &e) : WT_OK;
        session_set_actor(S, SESSION_USER);
        if (rc != WT_OK) {
            ui_status(u, 1, "policy %s stopped: %s", u->policy, e.msg);
            ui_policy_stop(u, e.msg);
        }
        char log[SESSION_LOG];
        if (*session_take_log(S, log, sizeof log))
            ui_printf(u, "step %d: %s", S->steps, log);
    }
    /* the last step that succeeded (a fault the policy made shows at the next step) */
    u->r = S->evaluated ? &S->res : NULL;
    ui_play_result(u);
    ui_note_changes(u);
}

void ui_sync_view(ui *u)
{
    view_state *v = &u->v;
    v->r = u->r;
    v->th = &u->themes[u->theme];
    v->mono = !u->ncolours || v->th->mono;
    v->steps = u->S ? u->S->steps : 0;
    v->paused = u->paused;
    v->speed = ui_speeds[u->speed_level];
    v->policy = u->policy[0] ? u->policy : NULL;
    v->changes = u->changes;
    v->nchanges = u->nchanges;
    v->banner = ui_banner(u);
    v->noutput = u->nout;
    for (int i = 0; i < u->nout; i++)
        v->output[i] = u->out[i];
    v->status = u->status[0] ? u->status : NULL;
    v->status_error = u->status_error;
    cmdline *c = u->cmd.active ? &u->cmd : u->find.active ? &u->find : NULL;
    v->cmdline = c ? c->line : NULL;
    v->cmdprompt = c ? c->prompt : 0;
    v->cmdcursor = c ? c->cursor : 0;
    v->cmdhint = c && c->hint[0] ? c->hint : NULL;
    ui_compare_view(u);
    ui_flit_view(u);
    if (!u->r) {
        v->link_util = NULL;
        v->link_class = NULL;
        return;
    }
    ui_play_view(u, v->mode == VIEW_LINKS);
}

void ui_inspect(ui *u)
{
    const sim_result *r = u->r;
    if (!r) {
        ui_status(u, 1, "nothing to inspect: the last step failed");
        return;
    }
    ui_play_view(u, 1);
    const wafer *wf = r->wf;
    int x = u->v.cx, y = u->v.cy;
    if (x < 0 || y < 0 || x >= wf->w || y >= wf->h) {
        ui_status(u, 1, "the cursor %d,%d is off the %dx%d mesh", x, y, wf->w, wf->h);
        return;
    }
    int unit = wafer_unit(wf, x, y), stage = sim_unit_stage(r, unit);
    long start = u->out_total;
    char s1[32], s2[32];
    if (wf->unit_dead[unit])
        ui_printf(u, "unit %d,%d: dead", x, y);
    else if (stage < 0)
        ui_printf(u, "unit %d,%d: idle (no rank)", x, y);
    else
        ui_printf(u, "unit %d,%d: rank %d, stage %d, compute %.1f%% of the step, memory %s of %s", x, y,
                  sim_unit_rank(r, unit), stage, 100 * sim_unit_compute_util(r, unit),
                  qty_format(sim_unit_memory(r, unit), QTY_BYTES, s1, sizeof s1),
                  qty_format(wafer_unit_capacity(wf), QTY_BYTES, s2, sizeof s2));
    char line[512];
    int n = snprintf(line, sizeof line, "  links out:");
    for (int d = 0; d < WAFER_NDIR && n < (int)sizeof line; d++) {
        size_t l = (size_t)unit * WAFER_NDIR + (size_t)d;
        if (wafer_neighbor(wf, unit, d) < 0)
            continue;
        if (!wafer_link_usable(wf, unit, d))
            n += snprintf(line + n, sizeof line - (size_t)n, "  %c dead", wafer_dir_char(d));
        else
            n += snprintf(line + n, sizeof line - (size_t)n, "  %c %.1f%% avg %.1f%% (%s)", wafer_dir_char(d),
                          100 * view_link_util(&u->v, l), 100 * sim_link_util(r, l),
                          qty_format(r->link_bytes[l], QTY_BYTES, s1, sizeof s1));
    }
    ui_print(u, line);
    if (stage >= 0)
        ui_group_inspect(u, unit);
    ui_show_from(u, start);
}
