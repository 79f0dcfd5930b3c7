/*
 * view_mesh.c - the mesh heatmap and its legend.
 *
 * At zoom 1 the grid has a cell for every unit and every link between two
 * units: (2W-1) x (2H-1). Above, a cell is a block of zoom x zoom units
 * showing the max (or mean) of what it holds. Each terminal cell shows two
 * grid rows as a half block (upper = foreground of '▀', lower = background),
 * or one row as a glyph of density in mono.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define HALF_BLOCK 0x2580u /* ▀ */
#define DEAD_MARK 0x2715u  /* ✕ */
#define CURSOR_MARK 0x25C6u /* ◆ */

static const uint32_t density[5] = {0x00B7, 0x2591, 0x2592, 0x2593, 0x2588}; /* · ░ ▒ ▓ █ */

void view_grid_size(const wafer *wf, int zoom, int *gw, int *gh)
{
    if (zoom <= 1) {
        *gw = 2 * wf->w - 1;
        *gh = 2 * wf->h - 1;
    } else {
        *gw = (wf->w + zoom - 1) / zoom;
        *gh = (wf->h + zoom - 1) / zoom;
    }
}

int view_fit_zoom(const wafer *wf, int area_w, int area_h, int mono)
{
    int rows = mono ? area_h : 2 * area_h;
    if (area_w < 1 || rows < 1)
        return 1;
    if (2 * wf->w - 1 <= area_w && 2 * wf->h - 1 <= rows)
        return 1;
    int zx = (wf->w + area_w - 1) / area_w, zy = (wf->h + rows - 1) / rows;
    int z = zx > zy ? zx : zy;
    return z < 2 ? 2 : z;
}

double view_compute_now(const sim_result *r, const int *running, int n)
{
    double most = 0;
    for (int i = 0; i < n; i++) {
        const sim_phase *ph = &r->phases[running[i]];
        if (ph->time_s > 0 && ph->compute_s / ph->time_s > most)
            most = fmin(1, ph->compute_s / ph->time_s);
    }
    return most;
}

double view_unit_value(const view_state *v, int u)
{
    const sim_result *r = v->r;
    if (v->mode == VIEW_COMPUTE && v->compute_now >= 0)
        return sim_unit_stage(r, u) >= 0 ? v->compute_now : 0;
    if (v->mode == VIEW_COMPUTE)
        return sim_unit_compute_util(r, u);
    double cap = wafer_unit_capacity(r->wf);
    return cap > 0 ? fmin(1, sim_unit_memory(r, u) / cap) : 0;
}

static double link_value(const view_state *v, int u, int dir, int *dead)
{
    const wafer *wf = v->r->wf;
    if (!wafer_link_usable(wf, u, dir)) {
        *dead = 1;
        return 0;
    }
    return view_link_util(v, (size_t)u * WAFER_NDIR + (size_t)dir);
}

/* Zoom 1: a unit, a link between two units, or a gap. */
static double detail_value(const view_state *v, int gx, int gy, int *dead)
{
    const wafer *wf = v->r->wf;
    int x = gx / 2, y = gy / 2;
    if (gx % 2 == 0 && gy % 2 == 0) {
        int u = wafer_unit(wf, x, y);
        if (wf->unit_dead[u]) {
            *dead = 1;
            return 0;
        }
        return v->mode == VIEW_LINKS ? -2 : view_unit_value(v, u);
    }
    if (v->mode != VIEW_LINKS || (gx % 2 && gy % 2))
        return -1;
    if (gx % 2) { /* between (x, y) and (x + 1, y): the busier direction */
        int u = wafer_unit(wf, x, y), d1 = 0, d2 = 0;
        double a = link_value(v, u, WAFER_E, &d1), b = link_value(v, u + 1, WAFER_W, &d2);
        *dead = d1 && d2;
        return fmax(a, b);
    }
    int u = wafer_unit(wf, x, y), d1 = 0, d2 = 0;
    double a = link_value(v, u, WAFER_S, &d1), b = link_value(v, u + wf->w, WAFER_N, &d2);
    *dead = d1 && d2;
    return fmax(a, b);
}

/* A block of zoom x zoom units: the max or mean of their values (links
 * leaving them in the link view). */
static double block_value(const view_state *v, int bx, int by, int *dead)
{
    const wafer *wf = v->r->wf;
    int z = v->zoom, n = 0, live = 0;
    double sum = 0, max = 0;
    for (int y = by * z; y < (by + 1) * z && y < wf->h; y++) {
        for (int x = bx * z; x < (bx + 1) * z && x < wf->w; x++) {
            int u = wafer_unit(wf, x, y);
            if (wf->unit_dead[u])
                continue;
            live++;
            if (v->mode != VIEW_LINKS) {
                double val = view_unit_value(v, u);
                sum += val;
                max = val > max ? val : max;
                n++;
                continue;
            }
            for (int d = 0; d < WAFER_NDIR; d++) {
                if (!wafer_link_usable(wf, u, d))
                    continue;
                double val = view_link_util(v, (size_t)u * WAFER_NDIR + (size_t)d);
                sum += val;
                max = val > max ? val : max; /* not fmax: a libm call per link */
                n++;
            }
        }
    }
    *dead = live == 0;
    return n == 0 ? 0 : v->mean ? sum / n : max;
}

double view_cell_value(const view_state *v, int gx, int gy, int *dead)
{
    *dead = 0;
    return v->zoom <= 1 ? detail_value(v, gx, gy, dead) : block_value(v, gx, gy, dead);
}

/* A pixel's code: view_cell_value's value, DEAD for a dead cell, OFF past
 * the mesh's edge. */
#define PIX_DEAD (-3.0)
#define PIX_OFF (-4.0)

/* Where a value lies on the colour scale: a link's util over the scale's top
 * (the highest value shown, or 1), the units' values as they are. */
static double on_scale(const view_state *v, double val)
{
    if (v->diverging) /* the difference over the scale's top, -1 .. 1 */
        return v->util_max > 0 ? fmax(-1, fmin(1, (2 * val - 1) / v->util_max)) : 0;
    if (v->mode != VIEW_LINKS || v->util_max == 1)
        return val;
    return v->util_max > 0 ? fmin(1, val / v->util_max) : 0;
}

/* Where a pixel stands against the auto scale's top: a difference by its size. */
static double scale_value(const view_state *v, double val)
{
    return v->diverging ? fabs(2 * val - 1) : val;
}

/* The density glyph of a value in [0, 1]. */
static uint32_t density_glyph(double val)
{
    int level = (int)(val * 4 + 0.5);
    return density[level < 0 ? 0 : level > 4 ? 4 : level];
}

/* The colour of a pixel: background, a neutral unit, dead, or the gradient. */
static uint8_t pixel_colour(const view_state *v, double code)
{
    if (code == PIX_DEAD)
        return TC_DEAD;
    if (code == -2)
        return TC_GRID;
    if (code < 0)
        return TC_BACKGROUND;
    return v->diverging ? theme_div(on_scale(v, code)) : theme_grad(on_scale(v, code));
}

/* A difference in mono: lower '=' '-', about the same '·', higher '*' '#'
 * ('+' is a unit's). */
static uint32_t diverging_glyph(double d)
{
    static const uint32_t glyphs[5] = {'=', '-', 0x00B7, '*', '#'};
    int level = (int)floor(d * 2.5 + 2.5);
    return glyphs[level < 0 ? 0 : level > 4 ? 4 : level];
}

uint8_t view_value_colour(const view_state *v, double val, int dead)
{
    return pixel_colour(v, dead ? PIX_DEAD : val);
}

static uint32_t pixel_glyph(const view_state *v, double code)
{
    if (code == PIX_DEAD)
        return 'x';
    if (code == -2)
        return '+';
    if (code < 0)
        return ' ';
    return v->diverging ? diverging_glyph(on_scale(v, code)) : density_glyph(on_scale(v, code));
}

/* At zoom 1 a unit is scale x scale pixels and a link one pixel between two
 * units, so that a small mesh fills its area; above, a pixel is a block. */
static int fit_scale(const wafer *wf, int cols, int rows)
{
    int s = 1;
    while (wf->w * (s + 1) + wf->w - 1 <= cols && wf->h * (s + 1) + wf->h - 1 <= rows)
        s++;
    return s;
}

/* Pixels along an axis of n units. */
static int pixels(const view_state *v, int n)
{
    return v->zoom > 1 ? (n + v->zoom - 1) / v->zoom : n * v->scale + n - 1;
}

/* The grid cell (view_cell_value's coordinate) of pixel p along an axis. */
static int pixel_grid(const view_state *v, int p)
{
    if (v->zoom > 1)
        return p;
    int period = v->scale + 1;
    return p / period * 2 + (p % period >= v->scale);
}

int view_unit_pixel(const view_state *v, int u)
{
    return v->zoom > 1 ? u / v->zoom : u * (v->scale + 1);
}

static int pixel_unit(const view_state *v, int p)
{
    return v->zoom > 1 ? p * v->zoom : p / (v->scale + 1);
}

/* Keeps the viewport (in pixels) on the mesh and around the cursor. */
static void follow_cursor(view_state *v, int pw, int ph, int cols, int rows)
{
    int size = v->zoom > 1 ? 1 : v->scale;
    int px = view_unit_pixel(v, v->cx), py = view_unit_pixel(v, v->cy);
    if (px < v->ox)
        v->ox = px;
    if (px + size > v->ox + cols)
        v->ox = px + size - cols;
    if (py < v->oy)
        v->oy = py;
    if (py + size > v->oy + rows)
        v->oy = py + size - rows;
    int maxx = pw - cols > 0 ? pw - cols : 0, maxy = ph - rows > 0 ? ph - rows : 0;
    v->ox = v->ox < 0 ? 0 : v->ox > maxx ? maxx : v->ox;
    v->oy = v->oy < 0 ? 0 : v->oy > maxy ? maxy : v->oy;
}

/* Of text and background, the colour farther in luminance from c. */
static uint8_t contrast(const theme *th, uint8_t c)
{
    if (!th)
        return TC_TEXT;
    double l[3];
    const uint8_t ids[3] = {c, TC_TEXT, TC_BACKGROUND};
    for (int i = 0; i < 3; i++) {
        rgb k = th->colour[ids[i]];
        l[i] = 0.2126 * k.r + 0.7152 * k.g + 0.0722 * k.b;
    }
    return fabs(l[1] - l[0]) >= fabs(l[2] - l[0]) ? TC_TEXT : TC_BACKGROUND;
}

/* A diamond on the middle cell of the unit, in the colour that stands out
 * from what the cell showed (its upper pixel's): it shows on every theme. */
void view_draw_cursor(canvas *c, const view_state *v, view_rect a)
{
    int per = v->mono ? 1 : 2, size = v->zoom > 1 ? 1 : v->scale;
    int col = view_unit_pixel(v, v->cx) - v->ox + (size - 1) / 2;
    int row = (view_unit_pixel(v, v->cy) - v->oy + (size - 1) / 2) / per;
    const canvas_cell *cell = canvas_at(c, a.x + col, a.y + row);
    if (!cell || col < 0 || row < 0 || col >= a.w || row >= a.h)
        return;
    if (v->mono) {
        canvas_put(c, a.x + col, a.y + row, CURSOR_MARK, TC_TEXT, TC_BACKGROUND, CA_REVERSE | CA_BOLD);
        return;
    }
    uint8_t under = view_cell_shown(cell, 0);
    canvas_put(c, a.x + col, a.y + row, CURSOR_MARK, contrast(v->th, under), under, CA_BOLD);
}

void view_draw_mesh(canvas *c, view_state *v, view_rect a)
{
    const wafer *wf = v->r->wf;
    int per = v->mono ? 1 : 2;
    if (v->zoom <= 0)
        v->zoom = view_fit_zoom(wf, a.w, a.h, v->mono);
    v->scale = v->zoom > 1 ? 1 : fit_scale(wf, a.w, a.h * per);
    if (v->cx >= wf->w)
        v->cx = wf->w - 1;
    if (v->cy >= wf->h)
        v->cy = wf->h - 1;
    int pw = pixels(v, wf->w), ph = pixels(v, wf->h), rows = a.h * per;
    follow_cursor(v, pw, ph, a.w, rows);
    /* every pixel's value first: the auto scale runs to the highest shown */
    double *pix = a.w > 0 && a.h > 0 ? malloc((size_t)a.w * (size_t)rows * sizeof *pix) : NULL, max = 0;
    const double *blocks = v->zoom > 1 ? view_blocks_get(&v->blocks, v) : NULL;
    if (!pix || (v->zoom > 1 && !blocks)) {
        free(pix);
        return; /* out of memory (or no area): the mesh stays blank until a frame has it */
    }
    for (int y = 0; y < rows; y++) {
        int py = v->oy + y, gy = py < ph ? pixel_grid(v, py) : -1;
        for (int x = 0; x < a.w; x++) {
            int px = v->ox + x, dead = 0;
            double val = PIX_OFF;
            if (gy >= 0 && px < pw && blocks) {
                val = blocks[(size_t)gy * (size_t)v->blocks.gw + (size_t)pixel_grid(v, px)];
                dead = val == VIEW_BLOCK_DEAD;
            } else if (gy >= 0 && px < pw) {
                val = view_cell_value(v, pixel_grid(v, px), gy, &dead);
            }
            pix[(size_t)y * (size_t)a.w + (size_t)x] = dead ? PIX_DEAD : val;
            max = !dead && val >= 0 && scale_value(v, val) > max ? scale_value(v, val) : max;
        }
    }
    v->util_max = v->mode == VIEW_LINKS && v->util_auto ? fmax(max, v->util_top) : 1;
    for (int row = 0; row < a.h; row++)
        for (int col = 0; col < a.w; col++) {
            const double *p = &pix[(size_t)(row * per) * (size_t)a.w + (size_t)col];
            if (p[0] == PIX_OFF)
                continue;
            if (v->mono)
                canvas_put(c, a.x + col, a.y + row, pixel_glyph(v, p[0]), p[0] == PIX_DEAD ? TC_DEAD : TC_TEXT,
                           TC_BACKGROUND, 0);
            else
                canvas_put(c, a.x + col, a.y + row, HALF_BLOCK, pixel_colour(v, p[0]), pixel_colour(v, p[a.w]), 0);
        }
    free(pix);
}

int view_unit_at(const view_state *v, view_rect a, int sx, int sy, int *ux, int *uy)
{
    if (!v->r || v->zoom <= 0 || sx < a.x || sy < a.y || sx >= a.x + a.w || sy >= a.y + a.h)
        return 0;
    int px = v->ox + sx - a.x, py = v->oy + (sy - a.y) * (v->mono ? 1 : 2);
    /* past the mesh's last pixel (at zoom 1 the next unit's would be further) */
    if (px >= pixels(v, v->r->wf->w) || py >= pixels(v, v->r->wf->h))
        return 0;
    int x = pixel_unit(v, px), y = pixel_unit(v, py);
    *ux = x;
    *uy = y;
    return 1;
}

void view_draw_legend(canvas *c, const view_state *v, view_rect a)
{
    static const char *const what[] = {"link util", "compute util", "memory fill"};
    char top[32] = "100%", low[32] = "0%", pixel[48];
    if (v->mode == VIEW_LINKS && v->util_auto)
        snprintf(top, sizeof top, "%.1f%% max", 100 * v->util_max);
    if (v->diverging) { /* B lower at the left, higher at the right */
        snprintf(top, sizeof top, "+%.1f%%", 100 * v->util_max);
        snprintf(low, sizeof low, "-%.1f%%", 100 * v->util_max);
    }
    if (v->zoom > 1) /* what a pixel is: the bar gives way to it */
        snprintf(pixel, sizeof pixel, "pixel = %dx%d units (%s)", v->zoom, v->zoom, v->mean ? "mean" : "max");
    else
        snprintf(pixel, sizeof pixel, "unit = %dx%d pixels", v->scale, v->scale);
    int x = a.x + canvas_printf(c, a.x, a.y, a.w, TC_TEXT, TC_BACKGROUND, 0, "%s %s ",
                                v->diverging ? "B - A link util" : what[v->mode], low);
    int bar = a.w - (x - a.x) - (int)strlen(top) - (int)strlen(pixel) - 12; /* " TOP  xdead  PIXEL" */
    bar = bar > 40 ? 40 : bar;
    for (int i = 0; i < bar; i++) {
        double val = bar > 1 ? (double)i / (bar - 1) : 1, d = 2 * val - 1;
        if (v->mono)
            canvas_put(c, x + i, a.y, v->diverging ? diverging_glyph(d) : density_glyph(val), TC_TEXT, TC_BACKGROUND, 0);
        else
            canvas_put(c, x + i, a.y, ' ', TC_TEXT, v->diverging ? theme_div(d) : theme_grad(val), 0);
    }
    x += bar > 0 ? bar : 0;
    x += canvas_printf(c, x, a.y, a.x + a.w - x, TC_TEXT, TC_BACKGROUND, 0, " %s  ", top);
    canvas_put(c, x, a.y, v->mono ? 'x' : DEAD_MARK, TC_DEAD, TC_BACKGROUND, 0);
    x += 1 + canvas_text(c, x + 1, a.y, a.x + a.w - x - 1, "dead", TC_TEXT, TC_BACKGROUND, 0);
    canvas_text(c, x + 2, a.y, a.x + a.w - x - 2, pixel, TC_TEXT, TC_BACKGROUND, 0);
}
