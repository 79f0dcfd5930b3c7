/*
 * ui_play.c - the cursor of time and what the mesh is coloured by
 * (docs/MODEL.md, "What the screen colours"). The cursor plays the current
 * step in proportion to time, at a speed in step seconds per second of the
 * screen, and wraps at the step's end; the links show their busy fraction in
 * the window starting at the cursor (computed when the cursor or the result
 * has moved and the link view is shown, never twice for one place), or
 * their step average (computed when first shown for a result). The colour scale runs to the highest value shown
 * (view_mesh.c finds it), or 0-100 %. Steps come on their own clock (ui.c)
 * and keep the cursor's time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "qty.h"
#include "ui.h"

/* 1-2-5 from a microsecond to ten seconds of the step per second. */
static const double ui_play_speeds[] = {1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3,
                                        5e-3, 1e-2, 2e-2, 5e-2, 0.1,  0.2,  0.5,  1,    2,    5,    10};
static const int ui_play_nspeeds = (int)(sizeof ui_play_speeds / sizeof ui_play_speeds[0]);

/* The first speed of a session plays its first step in 10 to 25 s. */
#define UI_FIRST_PLAY_S 10

int ui_play_links(ui_play *p, size_t nlinks)
{
    memset(p, 0, sizeof *p);
    /* mapped afresh: pages a result never loads are never touched */
    p->nlinks = nlinks;
    p->avg.val = heap_map_sparse(nlinks * sizeof *p->avg.val);
    if (p->avg.val)
        return 0;
    ui_play_free(p);
    return -1;
}

void ui_play_free(ui_play *p)
{
    heap_unmap_sparse(p->avg.val, p->nlinks * sizeof *p->avg.val);
    free(p->avg.at);
    free(p->window);
    p->window = NULL;
    sim_link_classes_free(&p->own);
    p->classes = NULL;
    memset(&p->avg, 0, sizeof p->avg);
    p->nlinks = 0;
}

void ui_play_start(ui_play *p, ui_play *fresh)
{
    ui_play_free(p);
    p->avg = fresh->avg;
    p->nlinks = fresh->nlinks;
    p->gen++;
    p->mesh++;
    p->window_gen = -1;
    p->avg_gen = -1;
    p->norder = 0;
    p->t = 0;
    p->level = -1;
    memset(fresh, 0, sizeof *fresh);
}

/* Clears a's values for result r: at the slots it lists, then lists r's
 * loaded links (a's values may then be non-zero there alone); everywhere
 * when it was dense or r has no loaded links or memory is short (a is then
 * dense). */
static void links_clear(ui_links *a, size_t nlinks, const sim_result *r)
{
    if (a->dense)
        memset(a->val, 0, nlinks * sizeof *a->val);
    else
        for (size_t i = 0; i < a->nat; i++)
            a->val[a->at[i]] = 0;
    size_t n = r->loaded ? (size_t)r->nloaded : 0;
    int *at = r->loaded ? realloc(a->at, (n ? n : 1) * sizeof *at) : NULL;
    a->dense = !at;
    if (!at) {
        free(a->at);
        a->at = NULL;
        a->nat = 0;
        return;
    }
    memcpy(at, r->loaded, n * sizeof *at);
    a->at = at;
    a->nat = n;
}

/* The window the cursor's colours are over: --window, within the step. */
static double window_s(const ui *u)
{
    return fmin(u->o.window, u->r->step_time_s);
}

void ui_play_result(ui *u)
{
    ui_play *p = &u->play;
    const sim_result *r = u->r;
    p->gen++;
    p->shown++;
    p->mesh++;
    p->norder = 0;
    p->nhot = 0;
    if (!r)
        return;
    if (r->link_peak)
        p->nhot = view_hottest(r->wf, r->link_peak, r->loaded, (size_t)r->nloaded, p->hot, VIEW_HOT_ROWS);
    p->norder = sim_play_order(r, p->order, SIM_MAX_PHASES);
    if (p->t >= r->step_time_s)
        p->t = 0;
    if (p->level < 0) {
        p->level = 0;
        while (p->level + 1 < ui_play_nspeeds && ui_play_speeds[p->level + 1] * UI_FIRST_PLAY_S <= r->step_time_s)
            p->level++;
    }
}

int ui_play_tick(ui *u, double now)
{
    ui_play *p = &u->play;
    double dt = p->moved_at > 0 ? now - p->moved_at : 0; /* the first tick starts the clock */
    p->moved_at = now;
    if (!p->playing || !u->r || !(u->r->step_time_s > 0))
        return 0;
    p->t = fmod(p->t + dt * ui_play_speeds[p->level], u->r->step_time_s);
    return !p->average;
}

void ui_play_toggle(ui *u)
{
    ui_play *p = &u->play;
    p->playing = !p->playing;
    p->average = 0;
    char s[32];
    ui_status(u, 0, "time %s: %s/s", p->playing ? "plays" : "stopped",
              qty_format(ui_play_speeds[p->level < 0 ? 0 : p->level], QTY_TIME, s, sizeof s));
}

void ui_play_speed(ui *u, int faster)
{
    ui_play *p = &u->play;
    int s = (p->level < 0 ? 0 : p->level) + (faster ? 1 : -1);
    p->level = s < 0 ? 0 : s >= ui_play_nspeeds ? ui_play_nspeeds - 1 : s;
    char text[32];
    ui_status(u, 0, "time plays %s of the step per second",
              qty_format(ui_play_speeds[p->level], QTY_TIME, text, sizeof text));
}

void ui_play_jump(ui *u, int dir)
{
    ui_play *p = &u->play;
    const sim_result *r = u->r;
    if (!r)
        return;
    p->playing = 0;
    p->average = 0;
    double t = sim_start_near(r, p->t, dir);
    if (t < 0) /* past the last start or before the first: around the step */
        t = sim_start_near(r, dir > 0 ? -1 : r->step_time_s, dir);
    p->t = t < 0 ? 0 : t;
}

int ui_play_at(ui *u, const char *what, wt_err *e)
{
    const sim_result *r = u->r;
    if (!r)
        return wt_fail(e, "at: no step to play (the last one failed)");
    int phase = sim_phase_find(r, what);
    double t;
    char why[128], s[32];
    if (phase >= 0) {
        t = sim_phase_first(r, phase);
        if (t < 0)
            return wt_fail(e, "at: %s does not run in this step", what);
    } else if (qty_parse(what, QTY_TIME, &t, why, sizeof why) != 0) {
        return wt_fail(e, "at: '%s' is neither a phase nor a time (%s)", what, why);
    } else if (!(t >= 0 && t < r->step_time_s)) {
        return wt_fail(e, "at: %s is not within the step (%s)", what,
                       qty_format(r->step_time_s, QTY_TIME, s, sizeof s));
    }
    u->play.t = t;
    u->play.playing = 0;
    u->play.average = 0;
    return WT_OK;
}

/* The window at the cursor, unless it holds it already: a figure per
 * class of links (sim_link_classes: the result's, or made once for it), so a frame
 * costs the classes, not the links, even when the result loads them all.
 * Out of memory the links show 0. */
static void colour_window(ui *u)
{
    ui_play *p = &u->play;
    if (p->window_gen == p->gen && p->window_t == p->t)
        return;
    wt_err e;
    int rc = WT_OK;
    if (p->window_gen != p->gen || !p->window) { /* a new result, or the last one's classes failed */
        free(p->window);
        p->window = NULL;
        sim_link_classes_free(&p->own);
        p->classes = u->r->classes ? u->r->classes : &p->own;
        if (!u->r->classes)
            rc = sim_link_classes_new(u->r, &p->own, &e);
        if (rc == WT_OK && !(p->window = malloc((size_t)p->classes->n * sizeof *p->window)))
            rc = wt_oom(&e, "window at a time");
    }
    if (rc == WT_OK)
        rc = sim_class_window_util(u->r, p->classes, p->t, window_s(u), p->window, &e);
    if (rc != WT_OK) {
        ui_status(u, 1, "window at %g s: %s", p->t, e.msg);
        free(p->window);
        p->window = NULL;
        sim_link_classes_free(&p->own);
        p->classes = NULL;
    }
    p->window_gen = p->gen;
    p->window_t = p->t;
    p->shown++;
}

void ui_links_average(ui_links *a, size_t nlinks, const sim_result *r)
{
    links_clear(a, nlinks, r);
    for (size_t i = 0; i < (a->dense ? nlinks : a->nat); i++) {
        size_t l = a->dense ? i : (size_t)a->at[i];
        a->val[l] = sim_link_util(r, l);
    }
}

/* The step average, unless it holds it already: 3.4M links on a wafer, so
 * only when shown, and only the loaded ones. */
static void colour_average(ui *u)
{
    ui_play *p = &u->play;
    if (p->avg_gen == p->gen)
        return;
    ui_links_average(&p->avg, p->nlinks, u->r);
    p->avg_gen = p->gen;
    p->shown++;
}

/* Points v at the figure a. */
static void show_links(view_state *v, const ui_links *a)
{
    v->link_util = a->val;
    v->link_class = NULL;
    v->nonzero = a->dense ? NULL : a->at;
    v->nnonzero = a->nat;
}

/* Points v at the window's figures by class (none: every link 0), the
 * links of a class other than 0 being r's loaded links. */
static void show_classes(view_state *v, const ui_play *p, const sim_result *r)
{
    v->link_util = NULL;
    v->link_class = p->window ? p->classes->of : NULL;
    v->class_util = p->window;
    v->nclasses = p->window ? p->classes->n : 0;
    v->nonzero = r->loaded;
    v->nnonzero = r->loaded ? (size_t)r->nloaded : 0;
}

void ui_play_view(ui *u, int links)
{
    ui_play *p = &u->play;
    view_state *v = &u->v;
    const sim_result *r = u->r;
    v->play = p->order;
    v->nplay = p->norder;
    v->t = p->t;
    v->playing = p->playing;
    v->play_speed = ui_play_speeds[p->level < 0 ? 0 : p->level];
    v->window_s = window_s(u);
    v->link_peak = r->link_peak;
    v->hot = p->hot;
    v->nhot = p->nhot;
    v->nrunning = sim_running_at(r, p->t, p->running, UI_MAX_RUNNING);
    v->running = p->running;
    v->util_auto = !p->fixed;
    v->mesh_gen = p->mesh;
    double now = p->average ? -1 : view_compute_now(r, p->running, v->nrunning);
    if (now != p->compute_now) { /* the compute view's colours change */
        p->compute_now = now;
        p->shown++;
    }
    v->compute_now = now;
    if (p->average) {
        colour_average(u);
        show_links(v, &p->avg);
        v->util_label = "step average";
        v->values_gen = p->shown;
        return;
    }
    if (links)
        colour_window(u);
    v->values_gen = p->shown; /* after colour_window: a new window is a new key */
    char s[32];
    if (u->v.mode == VIEW_COMPUTE)
        snprintf(p->label, sizeof p->label, "the phase at the cursor");
    else
        snprintf(p->label, sizeof p->label, "%s window", qty_format(v->window_s, QTY_TIME, s, sizeof s));
    show_classes(v, p, r);
    v->util_label = p->label;
}
