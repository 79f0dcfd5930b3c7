/*
 * ui_flit.c - key f: the phase at the cursor of time, one occurrence at
 * flit level (flit_phase.h), in a thread of its own so that the screen
 * stays live (a 64x64 window takes up to a minute). The thread works on
 * copies of the result and its wafer. When it is done, the mesh area
 * shows the window's links twice, side by side (view_compare.c): their
 * utilisation at flit level, and the flits held in the buffers each feeds
 * on average, as a share of what those buffers hold (num_vcs x
 * vc_buf_size), where back-pressure shows as trees of full buffers behind
 * a hot link. Meshes beyond the flit limit run the window around the
 * cursor's unit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "qty.h"
#include "ui.h"

static void *flit_thread(void *arg)
{
    ui_flit *f = arg;
    f->rc = flit_phase_run(&f->r, f->phase, &f->opts, &f->out, &f->e);
    atomic_store(&f->done, 1);
    return NULL;
}

/* Frees what the replay holds (its thread joined). */
static void flit_clear(ui_flit *f)
{
    if (f->running) {
        atomic_store(&f->stop, 1);
        pthread_join(f->thread, NULL);
        f->running = 0;
        if (f->rc == WT_OK)
            flit_phase_free(&f->out);
    } else if (f->shown) {
        flit_phase_free(&f->out);
    } else {
        return;
    }
    f->shown = 0;
    sim_free(&f->r);
    wafer_free(&f->wf);
    free(f->util);
    free(f->buf);
    free(f->at);
    f->util = f->buf = NULL;
    f->at = NULL;
    view_blocks_free(&f->view.side[0].blocks);
    view_blocks_free(&f->view.side[1].blocks);
}

void ui_flit_end(ui *u)
{
    flit_clear(&u->flit);
}

/* The phase running at the cursor of time that moves bytes, or -1. */
static int phase_at_cursor(const ui *u)
{
    for (int i = 0; i < u->v.nrunning; i++)
        if (u->r->phases[u->v.running[i]].nterms > 0)
            return u->v.running[i];
    return -1;
}

/* A window corner around the cursor's unit on a mesh beyond the flit
 * limit, or -1 (the whole mesh, or the one flit_phase.h centres). */
static int corner(int cursor, int side)
{
    if (side <= FLIT_MAX_SIDE)
        return -1;
    int c = cursor - FLIT_MAX_SIDE / 2;
    return c < 0 ? 0 : c > side - FLIT_MAX_SIDE ? side - FLIT_MAX_SIDE : c;
}

static void begin(ui *u)
{
    ui_flit *f = &u->flit;
    if (!u->r) {
        ui_status(u, 1, "f: no step to replay (the last one failed)");
        return;
    }
    int phase = phase_at_cursor(u);
    if (phase < 0) {
        ui_status(u, 1, "f: no phase that moves bytes runs at the cursor of time ([ ] moves it to a phase start)");
        return;
    }
    wt_err e;
    if (wafer_copy(&f->wf, u->r->wf, &e) != WT_OK) {
        ui_status(u, 1, "f: %s", e.msg);
        return;
    }
    if (sim_copy(&f->r, u->r, &e) != WT_OK) {
        wafer_free(&f->wf);
        ui_status(u, 1, "f: %s", e.msg);
        return;
    }
    f->r.wf = &f->wf;
    f->phase = phase;
    int x0 = corner(u->v.cx, f->wf.w), y0 = corner(u->v.cy, f->wf.h);
    f->opts = (flit_phase_opts){0, x0 < 0 && y0 < 0 ? -1 : (x0 < 0 ? 0 : x0), y0 < 0 ? 0 : y0, &f->stop};
    atomic_store(&f->done, 0);
    atomic_store(&f->stop, 0);
    if (pthread_create(&f->thread, NULL, flit_thread, f) != 0) {
        sim_free(&f->r);
        wafer_free(&f->wf);
        ui_status(u, 1, "f: cannot start a thread");
        return;
    }
    f->running = 1;
    ui_status(u, 0, "flit level: running %s...   (f stops it)", f->r.phases[phase].name);
}

void ui_flit_key(ui *u, int key)
{
    (void)key;
    ui_flit *f = &u->flit;
    if (f->running) {
        flit_clear(f);
        ui_status(u, 0, "flit level: stopped");
    } else if (f->shown) {
        flit_clear(f);
        ui_status(u, 0, "flit level: off");
    } else {
        begin(u);
    }
}

/* The window's figures on the whole mesh's link slots: utilisation, and
 * mean buffer occupancy over the buffers' capacity; false out of memory. */
static int fill(ui_flit *f)
{
    const flit_phase_out *o = &f->out;
    size_t nl = wafer_nlinks(&f->wf), nw = (size_t)o->w * (size_t)o->h * WAFER_NDIR;
    f->util = calloc(nl, sizeof *f->util);
    f->buf = calloc(nl, sizeof *f->buf);
    f->at = malloc(nw * sizeof *f->at);
    if (!f->util || !f->buf || !f->at)
        return 0;
    double cap = (double)f->wf.router.num_vcs * f->wf.router.vc_buf_size;
    f->nat = 0;
    for (int y = 0; y < o->h; y++) /* row by row: the slots ascend */
        for (int x = 0; x < o->w; x++)
            for (int d = 0; d < WAFER_NDIR; d++) {
                size_t w = ((size_t)y * (size_t)o->w + (size_t)x) * WAFER_NDIR + (size_t)d;
                int l = wafer_unit(&f->wf, o->x0 + x, o->y0 + y) * WAFER_NDIR + d;
                f->util[l] = o->util[w];
                f->buf[l] = o->buffer_mean[w] / cap;
                f->at[f->nat++] = l;
            }
    return 1;
}

void ui_flit_poll(ui *u)
{
    ui_flit *f = &u->flit;
    if (!f->running || !atomic_load(&f->done))
        return;
    pthread_join(f->thread, NULL);
    f->running = 0;
    if (f->rc != WT_OK) {
        ui_status(u, 1, "f: %s", f->e.msg);
        sim_free(&f->r);
        wafer_free(&f->wf);
        return;
    }
    f->shown = 1;
    if (!fill(f)) {
        flit_clear(f);
        ui_status(u, 1, "f: out of memory for the flit level's figures");
        return;
    }
    const flit_phase_out *o = &f->out;
    char line[512], t[32];
    ui_print(u, out_flit_summary(line, sizeof line, &f->r, f->phase, o));
    snprintf(f->title[0], sizeof f->title[0], "links: %s, %s", f->r.phases[f->phase].name,
             qty_format(o->time_s, QTY_TIME, t, sizeof t));
    snprintf(f->title[1], sizeof f->title[1], "buffers: mean of %d flits",
             f->wf.router.num_vcs * f->wf.router.vc_buf_size);
    int part = o->w < f->wf.w || o->h < f->wf.h;
    ui_status(u, 0, "flit level: %s, window %d,%d %dx%d%s; f: off", f->r.phases[f->phase].name, o->x0, o->y0, o->w,
              o->h, part ? " (+ zooms in)" : "");
}

/* Points a half at the replay's result and one of its figures. */
static void show(view_state *s, const ui_flit *f, const double *val)
{
    s->r = &f->r;
    s->link_util = val;
    s->link_class = NULL;
    s->nonzero = f->at;
    s->nnonzero = f->nat;
    s->values_gen = 1; /* the figures of one replay never change */
    s->mesh_gen = 1;
    s->compute_now = -1;
    s->util_label = "one occurrence at flit level";
}

void ui_flit_view(ui *u)
{
    ui_flit *f = &u->flit;
    if (!f->shown)
        return;
    show(&f->view.side[0], f, f->util);
    show(&f->view.side[1], f, f->buf);
    f->view.title[0] = f->title[0];
    f->view.title[1] = f->title[1];
    f->view.one_result = 1;
    u->v.compare = &f->view;
}
