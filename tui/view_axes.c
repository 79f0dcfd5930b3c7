/*
 * view_axes.c - where the mesh is: x and y rulers with tick labels at an
 * interval that leaves room between them, the cursor's coordinates marked
 * on both, and the edges between the wafers of a multi-wafer layout drawn
 * across the mesh.
 */
#include <stdio.h>
#include <string.h>

#include "view.h"

#define VLINE 0x2502u   /* │ a wafer edge at zoom 1, on the link column */
#define VEIGHTH 0x258Fu /* ▏ a wafer edge at the left of a block */
#define HLINE 0x2500u   /* ─ */
#define CROSS 0x253Cu   /* ┼ */

/* A coordinate as a ruler shows it: in full below 10000, else in thousands. */
static int coord_text(int u, char *buf, size_t n)
{
    return u < 10000 ? snprintf(buf, n, "%d", u) : snprintf(buf, n, "%dk", u / 1000);
}

/* The smallest of 1, 2, 5, 10, 20, 50, ... units whose labels stand at
 * least room cells apart when a unit takes per_unit cells. */
static int tick_step(double per_unit, int room)
{
    static const int mantissa[3] = {1, 2, 5};
    for (int decade = 1; decade <= 100000000; decade *= 10)
        for (int i = 0; i < 3; i++)
            if (decade * mantissa[i] * per_unit >= room)
                return decade * mantissa[i];
    return 1000000000;
}

/* Cells one unit takes along an axis: pixels per unit over pixels per cell. */
static double unit_cells(const view_state *v, int pixels_per_cell)
{
    return (v->zoom > 1 ? 1.0 / v->zoom : v->scale + 1.0) / pixels_per_cell;
}

static void x_ruler(canvas *c, const view_state *v, view_rect a)
{
    const wafer *wf = v->r->wf;
    char text[16];
    int width = coord_text(wf->w - 1, text, sizeof text), step = tick_step(unit_cells(v, 1), width + 2);
    int free_col = 0;
    for (int u = 0; u < wf->w; u += step) {
        int col = view_unit_pixel(v, u) - v->ox, len = coord_text(u, text, sizeof text);
        if (col < free_col || col + len > a.w)
            continue;
        canvas_text(c, a.x + col, a.y, a.w - col, text, TC_TEXT, TC_BACKGROUND, 0);
        free_col = col + len + 1;
    }
    int col = view_unit_pixel(v, v->cx) - v->ox, len = coord_text(v->cx, text, sizeof text);
    col = col + len > a.w ? a.w - len : col;
    canvas_text(c, a.x + (col < 0 ? 0 : col), a.y, a.w, text, TC_ACCENT, TC_BACKGROUND, CA_REVERSE | CA_BOLD);
}

static void y_ruler(canvas *c, const view_state *v, view_rect a)
{
    const wafer *wf = v->r->wf;
    int per = v->mono ? 1 : 2, step = tick_step(unit_cells(v, per), 2), free_row = 0;
    char text[16];
    for (int u = 0; u < wf->h; u += step) {
        int row = (view_unit_pixel(v, u) - v->oy) / per;
        if (view_unit_pixel(v, u) < v->oy || row < free_row || row >= a.h)
            continue;
        int len = coord_text(u, text, sizeof text);
        canvas_text(c, a.x + a.w - 1 - len, a.y + row, len, text, TC_TEXT, TC_BACKGROUND, 0);
        free_row = row + 1;
    }
    int row = (view_unit_pixel(v, v->cy) - v->oy) / per, len = coord_text(v->cy, text, sizeof text);
    if (row >= 0 && row < a.h)
        canvas_text(c, a.x + a.w - 1 - len, a.y + row, len, text, TC_ACCENT, TC_BACKGROUND, CA_REVERSE | CA_BOLD);
}

/* One wafer edge across the mesh: the column or row of pixel p (vertical
 * or not) in accent over the colour of what it crosses, so that the links
 * across the edge keep their colour at zoom 1. */
static void wafer_edge(canvas *c, const view_state *v, view_rect a, int vertical, int p)
{
    int per = v->mono ? 1 : 2;
    if (vertical) {
        if (p < 0 || p >= a.w)
            return;
        for (int row = 0; row < a.h; row++) {
            const canvas_cell *cell = canvas_at(c, a.x + p, a.y + row);
            if (cell && cell->ch != ' ')
                canvas_put(c, a.x + p, a.y + row, v->zoom > 1 ? VEIGHTH : VLINE, TC_ACCENT,
                           v->mono ? TC_BACKGROUND : view_cell_shown(cell, 0), 0);
        }
        return;
    }
    int row = p / per;
    if (p < 0 || row >= a.h)
        return;
    for (int col = 0; col < a.w; col++) {
        const canvas_cell *cell = canvas_at(c, a.x + col, a.y + row);
        if (!cell || cell->ch == ' ')
            continue;
        uint32_t glyph = cell->ch == VLINE || cell->ch == VEIGHTH ? CROSS : HLINE;
        canvas_put(c, a.x + col, a.y + row, glyph, TC_ACCENT, v->mono ? TC_BACKGROUND : view_cell_shown(cell, p % per), 0);
    }
}

/* At zoom 1 an edge runs along the links between two wafers, the pixel
 * before the first unit of the next wafer; above, along the block that
 * holds that unit. */
static int edge_pixel(const view_state *v, int first_unit, int origin)
{
    return view_unit_pixel(v, first_unit) - (v->zoom > 1 ? 0 : 1) - origin;
}

void view_draw_rulers(canvas *c, const view_state *v, view_rect xaxis, view_rect yaxis, view_rect mesh)
{
    if (!v->r || v->zoom <= 0)
        return;
    const wafer *wf = v->r->wf;
    for (int k = 1; k < wf->wafers_x; k++)
        wafer_edge(c, v, mesh, 1, edge_pixel(v, k * wf->wafer_w, v->ox));
    for (int k = 1; k < wf->wafers_y; k++)
        wafer_edge(c, v, mesh, 0, edge_pixel(v, k * wf->wafer_h, v->oy));
    x_ruler(c, v, xaxis);
    y_ruler(c, v, yaxis);
}
