/*
 * ui.c - `wafertop ui` (and `wafertop` alone): the live screen. One loop:
 * take a step when one is due, move the cursor of time along the step,
 * draw a frame when something changed, wait for a key or the next tick.
 * `--bench-frames N` draws frames into a canvas without a terminal and
 * prints their timings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cmd.h"
#include "scenario.h"
#include "term.h"
#include "ui.h"

#define BENCH_W 120
#define BENCH_H 40

/* Colours the current result and draws the frame into the canvas. */
static void draw(ui *u, int w, int h)
{
    if ((u->cv.w != w || u->cv.h != h) && canvas_resize(&u->cv, w, h) != 0)
        return; /* out of memory: keep the last frame */
    ui_sync_view(u);
    ui_group_view(u);
    view_draw(&u->cv, &u->v);
}

static void frame(ui *u)
{
    int w, h;
    term_size(&w, &h);
    draw(u, w, h);
    term_show(&u->cv);
}

/* Frames while the cursor of time plays: at most this often, and at most
 * half the time spent drawing (a large mesh draws slowly). */
#define UI_FRAME_S 0.04

/* Steps and the cursor of time; returns 1 when the screen changed. */
static int tick(ui *u, double now)
{
    int changed = ui_play_tick(u, now);
    if (u->S && (u->step_wanted || (!u->paused && now >= u->next_step_at))) {
        ui_step(u);
        u->next_step_at = now + 1 / ui_speeds[u->speed_level];
        return 1;
    }
    return changed;
}

/* `/x,y`: the cursor to a unit. */
static void find_unit(ui *u, const char *text)
{
    int x, y, dir;
    char bad;
    if (!u->r || wafer_parse_fault(text, &x, &y, &dir, &bad) != 0 || dir >= 0) {
        ui_status(u, 1, "find: '%s' is not x,y", text);
        return;
    }
    if (x < 0 || y < 0 || x >= u->r->wf->w || y >= u->r->wf->h) {
        ui_status(u, 1, "find: %d,%d is off the %dx%d mesh", x, y, u->r->wf->w, u->r->wf->h);
        return;
    }
    u->v.cx = x;
    u->v.cy = y;
    ui_inspect(u);
}

static void handle(ui *u, const key_event *ev)
{
    if (u->cmd.active) {
        if (cmdline_key(&u->cmd, ev->key) == CMDLINE_DONE)
            ui_command(u, u->cmd.line);
        else if (ev->key == TK_TAB && u->cmd.hint[0] &&
                 strlen(u->cmd.line) + strlen(u->cmd.hint) + 5 > (size_t)u->cv.w)
        { /* the status line cuts it: the pane has it all, at its end */
            ui_printf(u, "Tab: %s", u->cmd.hint);
            u->v.output_top = -1;
        }
    } else if (u->find.active) {
        if (cmdline_key(&u->find, ev->key) == CMDLINE_DONE)
            find_unit(u, u->find.line);
    } else {
        ui_key(u, ev);
    }
}

/* Runs the screen until q, :quit or a signal; returns the exit status. */
static int run_screen(ui *u, wt_err *e)
{
    int rc = term_open(&u->ncolours, e);
    if (rc != WT_OK)
        return cmd_exit(rc, e);
    term_set_theme(&u->themes[u->theme]);
    int dirty = 1, status = 0;
    double frame_s = 0;
    while (!u->quit) {
        double now = wt_clock_s();
        dirty |= tick(u, now);
        if (u->search.running) {
            ui_search_poll(u);
            dirty = 1;
        }
        if (u->flit.running) {
            ui_flit_poll(u);
            dirty = 1;
        }
        int theme = u->theme;
        if (dirty) {
            frame(u);
            frame_s = wt_clock_s() - now;
        }
        dirty = 0;
        double next = u->paused ? now + 0.25 : u->next_step_at;
        if (u->play.playing)
            next = fmin(next, now + fmax(UI_FRAME_S, 2 * frame_s));
        int wait = (int)((next - wt_clock_s()) * 1000);
        wait = wait < 5 ? 5 : wait > 250 ? 250 : wait;
        if ((u->search.running || u->flit.running) && wait > 100)
            wait = 100;
        key_event ev;
        term_read(wait, &ev);
        if (ev.key == TK_SIGNAL) {
            status = 128 + term_signal();
            break;
        }
        if (ev.key == TK_TIMEOUT)
            continue;
        handle(u, &ev);
        if (u->theme != theme)
            term_set_theme(&u->themes[u->theme]);
        dirty = 1;
    }
    term_close();
    return status;
}

/* Sorts the n frame times t and prints their median, p90 and max against
 * target_ms as one `bench NAME` line. */
static void bench_print(const ui *u, const char *name, double *t, int n, double target_ms)
{
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    printf("bench %s %s %dx%d %.3f ms median p90=%.3f max=%.3f n=%d target<%g %s\n", name, u->layout, BENCH_W,
           BENCH_H, 1e3 * t[n / 2], 1e3 * t[n * 9 / 10], 1e3 * t[n - 1], n, target_ms,
           1e3 * t[n / 2] < target_ms ? "pass" : "FAIL");
}

/* What happens before a benchmarked frame: the cursor of time moved along
 * the step by 1/n of it (a new window every frame), nothing (what a key
 * that changes nothing shown pays), the key ] (the next phase start), or
 * the command `:units` (a Lua command on a copy of the result). */
typedef void (*bench_act)(ui *u, int n);

static void act_time(ui *u, int n)
{
    u->play.t = u->r ? fmod(u->play.t + u->r->step_time_s / n, u->r->step_time_s) : 0;
}

static void act_none(ui *u, int n)
{
    (void)u;
    (void)n;
}

static void act_jump(ui *u, int n)
{
    (void)n;
    key_event ev = {']', 0, 0};
    ui_key(u, &ev);
}

static void act_units(ui *u, int n)
{
    (void)n;
    ui_command(u, "units --top 5");
}

/* n frames after act each, into a canvas the size of a common terminal
 * (t: room for n timings), printed as one `bench NAME` line. */
static void bench_run(ui *u, const char *name, bench_act act, double *t, int n, double target_ms)
{
    for (int i = 0; i < n; i++) {
        double t0 = wt_clock_s();
        act(u, n);
        draw(u, BENCH_W, BENCH_H);
        t[i] = wt_clock_s() - t0;
    }
    bench_print(u, name, t, n, target_ms);
}

/* Draws a first frame, then n frames of each kind of bench_act, and prints
 * the timings. The first frame counts from start (the program's) and says
 * what it spent loading the scenario (until loaded), in the evaluation and
 * drawing. */
static int bench_frames(ui *u, int n, double start, double loaded)
{
    u->ncolours = 256;
    ui_step(u);
    double stepped = wt_clock_s();
    draw(u, BENCH_W, BENCH_H);
    double drawn = wt_clock_s(), first = drawn - start;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return 1;
    printf("bench ui_first_frame %s %.2f ms load=%.2f eval=%.2f draw=%.2f target<100 %s\n", u->layout, 1e3 * first,
           1e3 * (loaded - start), 1e3 * (stepped - loaded), 1e3 * (drawn - stepped), first < 0.1 ? "pass" : "FAIL");
    bench_run(u, "ui_frame", act_time, t, n, 5);
    bench_run(u, "ui_redraw", act_none, t, n, 50);
    bench_run(u, "ui_key_jump", act_jump, t, n, 50);
    bench_run(u, "ui_cmd_units", act_units, t, n < 10 ? n : 10, 300);
    free(t);
    return 0;
}

int cmd_ui(int argc, char **argv, const char *root)
{
    double start = wt_clock_s();
    wt_err e;
    int nargs;
    char **args;
    scenario_file *sf = calloc(1, sizeof *sf);
    ui *u = ui_new(root);
    if (!sf || !u) {
        free(sf);
        free(u);
        return cmd_exit(wt_oom(&e, "screen"), &e);
    }
    int rc = scenario_expand(argc, argv, sf, &nargs, &args, &e);
    if (rc == WT_OK)
        rc = cli_parse(nargs, args ? args : argv, CLI_TUNE | CLI_UI, root, &u->o, &e);
    if (rc == WT_OK && u->o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop ui [scenario options] [--policy NAME|FILE] [--theme NAME] [--scenario FILE]\n"
               "Opens the live screen: the mesh heatmap, the figures, the phase timeline; ? lists the keys.\n\n"
               "%s%s%s%s",
               cli_ui_help(), cli_scenario_help(help, sizeof help), cli_tune_help(), cli_lua_help());
        unsigned kinds = CLI_SCRIPTS(WTLUA_COMMAND) | CLI_SCRIPTS(WTLUA_POLICY) | CLI_SCRIPTS(WTLUA_STRATEGY);
        rc = cli_print_scripts(stdout, NULL, &u->o.lua, kinds, &e);
        goto out;
    }
    if (rc == WT_OK) {
        ui_load_themes(u, u->o.theme);
        rc = ui_load(u, u->o.layout, u->o.model, 0, NULL, &e);
    }
    for (int i = 0; rc == WT_OK && i < u->o.nfail; i++) /* run-time faults: :repair undoes them */
        rc = ui_fail(u, "--fail", u->o.fail[i], &e);
    if (rc == WT_OK && sf->has_tuning)
        rc = scenario_apply_tuning(sf, u->S, &e);
    if (rc == WT_OK) /* what :reset returns to */
        rc = ui_mark_opened(u, &e);
    if (rc == WT_OK && u->o.policy && (rc = ui_set_policy(u, u->o.policy, &e)) != WT_OK) {
        wt_err why = e;
        rc = wt_fail(&e, "--policy: %s", why.msg);
    }
    snprintf(u->opened_policy, sizeof u->opened_policy, "%s", u->policy_src);
    if (rc != WT_OK)
        goto out;
    ui_printf(u, "wafertop: %s on %s; press ? for the keys, : for commands", u->model, u->layout);
    if (u->o.bench_frames) {
        int status = bench_frames(u, u->o.bench_frames, start, wt_clock_s());
        free(args);
        free(sf);
        ui_free(u);
        return status;
    }
    int status = run_screen(u, &e);
    free(args);
    free(sf);
    ui_free(u);
    return status;
out:
    free(args);
    free(sf);
    ui_free(u);
    return cmd_exit(rc, &e);
}
