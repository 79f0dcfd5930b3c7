/*
 * snapshot.c - the heatmap picture (snapshot.h). Top to bottom: the title
 * bar, the x coordinates, the mesh with the y coordinates on its left (and
 * the wafers' boundaries on a multi-wafer layout), the legend, the figures.
 * The squares' values and colours are the screen's (view_cell_value,
 * view_blocks_get, view_value_colour), the scale running to the highest
 * value in the whole mesh when the screen's does to the highest shown. A
 * row's run of squares of one colour is one rectangle.
 */
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qty.h"

#define SCALE 2                         /* the text's font scale */
#define CW (PIC_CHAR_W * SCALE)
#define CH (PIC_CHAR_H * SCALE)
#define MARGIN 16
#define MESH_SIDE 720                   /* the mesh's longer side, px, about */
#define BAR_W 256                       /* the legend's colour scale, px */
#define NFIGURES 5

const char *const snap_view_names[VIEW_NMODES] = {"links", "compute", "memory"};

static void geometry(const wafer *wf, snap_geom *g)
{
    int side = wf->w > wf->h ? wf->w : wf->h;
    if (side <= SNAP_DETAIL_MAX) {
        int period = MESH_SIDE / side; /* at least 3: a unit 2 px, a link 1 */
        g->zoom = 1;
        g->link = period / 3;
        g->unit = period - g->link;
    } else {
        g->zoom = (side + SNAP_BLOCKS_MAX - 1) / SNAP_BLOCKS_MAX;
        g->zoom = g->zoom < 2 ? 2 : g->zoom;
        g->unit = MESH_SIDE / ((side + g->zoom - 1) / g->zoom);
        g->link = 0;
    }
    view_grid_size(wf, g->zoom, &g->gw, &g->gh);
}

/* The first pixel of grid cell c along an axis (from the mesh's edge), and its size. */
static int cell_start(const snap_geom *g, int c)
{
    return g->zoom > 1 ? c * g->unit : c / 2 * (g->unit + g->link) + c % 2 * g->unit;
}

static int cell_size(const snap_geom *g, int c)
{
    return g->zoom > 1 || c % 2 == 0 ? g->unit : g->link;
}

void snap_cell_pixel(const snap_geom *g, int gx, int gy, int *px, int *py)
{
    *px = g->x0 + cell_start(g, gx) + cell_size(g, gx) / 2;
    *py = g->y0 + cell_start(g, gy) + cell_size(g, gy) / 2;
}

/* The middle of unit u along an axis, from the mesh's edge. */
static int unit_middle(const snap_geom *g, int u)
{
    return g->zoom > 1 ? (2 * u + 1) * g->unit / (2 * g->zoom) : cell_start(g, 2 * u) + g->unit / 2;
}

/* The values of the grid cells (VIEW_BLOCK_DEAD for a dead one) of v at
 * g's zoom, into a fresh array; *pv is v at that zoom, its scale running to
 * the highest value. NULL out of memory. */
static double *cell_values(const view_state *v, const snap_geom *g, view_state *pv)
{
    *pv = *v;
    pv->zoom = g->zoom;
    memset(&pv->blocks, 0, sizeof pv->blocks); /* a cache of our own: the screen's stays as it is */
    pv->values_gen = pv->mesh_gen = 0;
    size_t n = (size_t)g->gw * (size_t)g->gh;
    double *val = malloc(n * sizeof *val), max = 0;
    const double *blocks = g->zoom > 1 ? view_blocks_get(&pv->blocks, pv) : NULL;
    if (val && (g->zoom == 1 || blocks)) {
        for (int gy = 0; gy < g->gh; gy++)
            for (int gx = 0; gx < g->gw; gx++) {
                size_t k = (size_t)gy * (size_t)g->gw + (size_t)gx;
                int dead = 0;
                val[k] = blocks ? blocks[k] : view_cell_value(pv, gx, gy, &dead);
                val[k] = dead ? VIEW_BLOCK_DEAD : val[k];
                max = val[k] > max ? val[k] : max;
            }
        pv->util_max = v->mode == VIEW_LINKS && v->util_auto ? max : 1;
    } else {
        free(val);
        val = NULL;
    }
    view_blocks_free(&pv->blocks);
    return val;
}

static void draw_mesh(picture *p, const view_state *pv, const snap_geom *g, const double *val)
{
    for (int gy = 0; gy < g->gh; gy++) {
        const double *row = val + (size_t)gy * (size_t)g->gw;
        for (int gx = 0; gx < g->gw;) {
            uint8_t c = view_value_colour(pv, row[gx], row[gx] == VIEW_BLOCK_DEAD);
            int end = gx + 1;
            while (end < g->gw && view_value_colour(pv, row[end], row[end] == VIEW_BLOCK_DEAD) == c)
                end++;
            if (c != TC_BACKGROUND)
                pic_rect(p, g->x0 + cell_start(g, gx), g->y0 + cell_start(g, gy),
                         cell_start(g, end - 1) + cell_size(g, end - 1) - cell_start(g, gx), cell_size(g, gy),
                         pv->th->colour[c]);
            gx = end;
        }
    }
}

/* The pixel (from the mesh's edge) of the boundary between the wafers
 * before unit u and those from it along an axis: the middle of the links
 * that cross it, or the edge of the blocks it falls in. */
static int boundary(const snap_geom *g, int u)
{
    return g->zoom > 1 ? u * g->unit / g->zoom : cell_start(g, 2 * u - 1) + g->link / 2;
}

/* The wafers' boundaries on a multi-wafer layout, as lines across the mesh. */
static void draw_wafers(picture *p, const view_state *v, const snap_geom *g, int mesh_w, int mesh_h)
{
    const wafer *wf = v->r->wf;
    rgb c = v->th->colour[TC_ACCENT];
    for (int x = wf->wafer_w; x < wf->w; x += wf->wafer_w)
        pic_line(p, g->x0 + boundary(g, x), g->y0, g->x0 + boundary(g, x), g->y0 + mesh_h - 1, c);
    for (int y = wf->wafer_h; y < wf->h; y += wf->wafer_h)
        pic_line(p, g->x0, g->y0 + boundary(g, y), g->x0 + mesh_w - 1, g->y0 + boundary(g, y), c);
}

/* A step between coordinate labels (1, 2, 5, 10, 20, ...) that keeps them
 * apart, at ppu pixels per unit. */
static int tick_step(double ppu, int label_w)
{
    for (int step = 1;; step *= 10)
        for (int k = 0; k < 3; k++) {
            int s = step * (k == 0 ? 1 : k == 1 ? 2 : 5);
            if (s * ppu >= label_w + CW)
                return s;
        }
}

static void draw_axes(picture *p, const view_state *v, const snap_geom *g)
{
    const wafer *wf = v->r->wf;
    rgb text = v->th->colour[TC_TEXT], grid = v->th->colour[TC_GRID];
    char s[16];
    double ppu = g->zoom > 1 ? (double)g->unit / g->zoom : g->unit + g->link;
    snprintf(s, sizeof s, "%d", (wf->w > wf->h ? wf->w : wf->h) - 1);
    int step = tick_step(ppu, pic_text_width(s, SCALE));
    for (int x = 0; x < wf->w; x += step) {
        int px = g->x0 + unit_middle(g, x);
        snprintf(s, sizeof s, "%d", x);
        pic_text(p, px - pic_text_width(s, SCALE) / 2, g->y0 - CH - 6, SCALE, text, s);
        pic_line(p, px, g->y0 - 5, px, g->y0 - 2, grid);
    }
    for (int y = 0; y < wf->h; y += step) {
        int py = g->y0 + unit_middle(g, y);
        snprintf(s, sizeof s, "%d", y);
        pic_text(p, g->x0 - 8 - pic_text_width(s, SCALE), py - PIC_ASCENT * SCALE / 2, SCALE, text, s);
        pic_line(p, g->x0 - 5, py, g->x0 - 2, py, grid);
    }
}

/* What the links or units show, for the title. */
static void shown(const view_state *v, char *buf, size_t n)
{
    if (v->mode != VIEW_LINKS) {
        snprintf(buf, n, "%s", v->mode == VIEW_COMPUTE ? "compute utilisation" : "memory fill");
        return;
    }
    const char *label = v->util_label ? v->util_label : "step average";
    if (!v->link_class) { /* a figure per link: the step average (a window is read by class) */
        snprintf(buf, n, "links: %s", label);
        return;
    }
    char t[32];
    int at = snprintf(buf, n, "links: %s at %s", label, qty_format(v->t, QTY_TIME, t, sizeof t));
    for (int i = 0; i < v->nrunning && at > 0 && (size_t)at < n; i++)
        at += snprintf(buf + at, n - (size_t)at, "%s%s", i ? ", " : " (", v->r->phases[v->running[i]].name);
    if (v->nrunning && at > 0 && (size_t)at < n)
        snprintf(buf + at, n - (size_t)at, ")");
}

/* The legend's lines: what is coloured, the scale's top, what a square is. */
static void legend_text(const view_state *pv, const snap_geom *g, char what[96], char top[32], char square[128])
{
    static const char *const names[] = {"link utilisation", "compute utilisation", "memory fill"};
    snprintf(what, 96, "%s", names[pv->mode]);
    if (pv->mode == VIEW_LINKS && pv->util_auto)
        snprintf(top, 32, "%.1f%% (the highest)", 100 * pv->util_max);
    else
        snprintf(top, 32, "100%%");
    const char *of = pv->mode == VIEW_LINKS ? "links" : "units";
    if (g->zoom > 1)
        snprintf(square, 128, "a square: a block of %dx%d units, the %s of its %s", g->zoom, g->zoom,
                 pv->mean ? "mean" : "max", of);
    else if (pv->mode == VIEW_LINKS)
        snprintf(square, 128, "a square: a unit, or the link between two (its busier direction)");
    else
        snprintf(square, 128, "a square: a unit");
}

/* The figures, one a line. */
static void figures(const view_state *v, char fig[NFIGURES][128])
{
    const sim_result *r = v->r;
    char a[32], b[32], c[32];
    snprintf(fig[0], 128, "step %s  tokens/s %.3g  MFU %.1f%%  idle %.1f%%",
             qty_format(r->step_time_s, QTY_TIME, a, sizeof a), r->tokens_per_s, 100 * r->mfu,
             100 * r->idle_fraction);
    snprintf(fig[1], 128, "memory %s of %s a unit%s", qty_format(r->mem.total, QTY_BYTES, a, sizeof a),
             qty_format(r->mem.capacity, QTY_BYTES, b, sizeof b), r->mem.fits ? "" : " (does not fit)");
    snprintf(fig[2], 128, "links over the step: max %.1f%% mean %.1f%%", 100 * r->max_link_util,
             100 * r->mean_link_util);
    size_t top;
    if (r->link_peak && view_hottest(r->wf, r->link_peak, r->loaded, (size_t)r->nloaded, &top, 1) == 1) {
        int u = (int)(top / WAFER_NDIR);
        snprintf(fig[3], 128, "busiest link %d,%d %c: %.1f%% in its busiest %s window; %d links at >= %.0f%%",
                 wafer_x(r->wf, u), wafer_y(r->wf, u), wafer_dir_char((int)(top % WAFER_NDIR)),
                 100 * r->link_peak[top], qty_format(r->window_s, QTY_TIME, c, sizeof c), r->hot_links,
                 100 * SIM_HOT);
    } else {
        snprintf(fig[3], 128, "busiest link: none carries traffic");
    }
    snprintf(fig[4], 128, "bottleneck %s", r->nphases ? r->phases[r->bottleneck].name : "-");
}

/* A legend's sample of a colour (h pixels high, centred on the text) and
 * its label from x on a text row at y; returns where the next may go. */
static int swatch(picture *p, const view_state *v, int x, int y, rgb c, int h, const char *label)
{
    pic_rect(p, x, y + (PIC_ASCENT * SCALE - h) / 2, CH, h, c);
    pic_text(p, x + CH + CW, y, SCALE, v->th->colour[TC_TEXT], label);
    return x + CH + CW + pic_text_width(label, SCALE) + 2 * CW;
}

static int widest(int w, const char *s, int x)
{
    int need = x + pic_text_width(s, SCALE) + MARGIN;
    return need > w ? need : w;
}

int snap_draw(picture *p, const view_state *v, snap_geom *g, wt_err *e)
{
    const sim_result *r = v->r;
    const wafer *wf = r->wf;
    const rgb *th = v->th->colour;
    pic_init(p, 1, 1, th[TC_BACKGROUND]);
    geometry(wf, g);
    view_state pv;
    double *val = cell_values(v, g, &pv);
    if (!val)
        return wt_oom(e, "the picture's mesh");
    char title[320], strat[64], view[160], what[96], top[32], square[128], fig[NFIGURES][128], digits[16];
    shown(v, view, sizeof view);
    snprintf(title, sizeof title, "wafertop  %s %dx%d  %s  %s  %s", wf->name, wf->w, wf->h, r->m.name,
             strategy_format(&r->s, strat, sizeof strat), view);
    legend_text(&pv, g, what, top, square);
    figures(v, fig);
    /* the sizes, top to bottom */
    int title_h = CH + 16;
    snprintf(digits, sizeof digits, "%d", wf->h - 1);
    g->x0 = MARGIN + pic_text_width(digits, SCALE) + 8;
    g->y0 = title_h + MARGIN + CH + 6;
    int mesh_w = cell_start(g, g->gw - 1) + cell_size(g, g->gw - 1);
    int mesh_h = cell_start(g, g->gh - 1) + cell_size(g, g->gh - 1);
    int legend_y = g->y0 + mesh_h + MARGIN, bar_y = legend_y + CH + 6, square_y = bar_y + CH + 8;
    int fig_y = square_y + CH + MARGIN;
    int bar_x = MARGIN + pic_text_width("0% ", SCALE), top_x = bar_x + BAR_W + CW;
    int w = g->x0 + mesh_w + MARGIN, h = fig_y + NFIGURES * (CH + 4) + MARGIN;
    w = widest(w, title, MARGIN);
    w = widest(w, what, MARGIN);
    w = widest(w, square, MARGIN);
    for (int i = 0; i < NFIGURES; i++)
        w = widest(w, fig[i], MARGIN);
    /* then the picture, the title bar last: as wide as the legend's row may make it */
    p->h = h;
    draw_axes(p, v, g);
    draw_mesh(p, &pv, g, val);
    draw_wafers(p, v, g, mesh_w, mesh_h);
    free(val);
    pic_text(p, MARGIN, legend_y, SCALE, th[TC_TEXT], what);
    pic_text(p, MARGIN, bar_y, SCALE, th[TC_TEXT], "0%");
    for (int i = 0; i < BAR_W; i++)
        pic_rect(p, bar_x + i, bar_y - 1, 1, CH, th[theme_grad((double)i / (BAR_W - 1))]);
    pic_text(p, top_x, bar_y, SCALE, th[TC_TEXT], top);
    int x = swatch(p, v, top_x + pic_text_width(top, SCALE) + 2 * CW, bar_y, th[TC_DEAD], CH, "dead");
    if (v->mode == VIEW_LINKS && g->zoom == 1)
        x = swatch(p, v, x, bar_y, th[TC_GRID], CH, "unit");
    if (wf->wafers_x * wf->wafers_y > 1)
        x = swatch(p, v, x, bar_y, th[TC_ACCENT], 3, "wafer edge");
    pic_text(p, MARGIN, square_y, SCALE, th[TC_TEXT], square);
    for (int i = 0; i < NFIGURES; i++)
        pic_text(p, MARGIN, fig_y + i * (CH + 4), SCALE, i == 1 && !r->mem.fits ? th[TC_HOT] : th[TC_TEXT], fig[i]);
    p->w = x > w ? x : w;
    pic_rect(p, 0, 0, p->w, title_h, th[TC_ACCENT]);
    pic_text(p, MARGIN, 8, SCALE, th[TC_BACKGROUND], title);
    return p->oom ? wt_oom(e, "picture") : WT_OK;
}

int snap_write(const view_state *v, const char *path, const char *who, snap_geom *g, wt_err *e)
{
    int format;
    int rc = pic_format_of(path, who, &format, e); /* before the work */
    if (rc != WT_OK)
        return rc;
    picture p;
    snap_geom mine;
    if ((rc = snap_draw(&p, v, g ? g : &mine, e)) == WT_OK)
        rc = pic_write(&p, path, who, e);
    pic_free(&p);
    return rc;
}

/* The screen's window at o->t, by class of links as ui_play.c colours it,
 * into v; the classes and their values are the caller's to free. */
static int window_at(view_state *v, const snap_opts *o, sim_link_classes *classes, double **util, wt_err *e)
{
    const sim_result *r = v->r;
    int rc = sim_link_classes_new(r, classes, e);
    if (rc == WT_OK && !(*util = malloc((size_t)classes->n * sizeof **util)))
        rc = wt_oom(e, "the window's links");
    if (rc == WT_OK)
        rc = sim_class_window_util(r, classes, o->t, o->window_s, *util, e);
    v->link_class = classes->of;
    v->class_util = *util;
    v->nclasses = classes->n;
    v->nonzero = r->loaded;
    v->nnonzero = r->loaded ? (size_t)r->nloaded : 0;
    v->t = o->t;
    return rc;
}

int snap_result(const sim_result *r, const snap_opts *o, const char *path, const char *who, snap_geom *g,
                wt_err *e)
{
    view_state v;
    memset(&v, 0, sizeof v);
    v.r = r;
    v.th = o->th;
    v.mode = o->mode;
    v.util_auto = 1;
    v.link_peak = r->link_peak;
    v.window_s = o->window_s;
    v.compute_now = -1; /* the compute view: each unit's share of the step, or at --phase below */
    sim_link_classes classes = {0};
    double *util = NULL;
    int running[4], rc = WT_OK;
    char label[64], s[32];
    if (o->mode == VIEW_LINKS && o->average) {
        size_t nl = wafer_nlinks(r->wf);
        if (!(util = malloc(nl * sizeof *util)))
            rc = wt_oom(e, "the links' step average");
        for (size_t l = 0; util && l < nl; l++)
            util[l] = sim_link_util(r, l);
        v.link_util = util;
        v.util_label = "step average";
    } else if (o->mode == VIEW_LINKS) {
        rc = window_at(&v, o, &classes, &util, e);
        v.nrunning = sim_running_at(r, o->t, running, (int)(sizeof running / sizeof running[0]));
        v.running = running;
        snprintf(label, sizeof label, "%s window", qty_format(o->window_s, QTY_TIME, s, sizeof s));
        v.util_label = label;
    } else if (o->mode == VIEW_COMPUTE && !o->average) { /* what the phase at --phase computes */
        v.nrunning = sim_running_at(r, o->t, running, (int)(sizeof running / sizeof running[0]));
        v.running = running;
        v.compute_now = view_compute_now(r, running, v.nrunning);
        v.util_label = "the phase at the cursor";
    }
    if (rc == WT_OK)
        rc = snap_write(&v, path, who, g, e);
    free(util);
    sim_link_classes_free(&classes);
    return rc;
}
