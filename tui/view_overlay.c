/*
 * view_overlay.c - the group overlay: a ring on the cell of every member of
 * the group around the cursor and a dot on every link its passes load, in
 * the accent colour over the colour the cell showed, so that a hot link can
 * be followed to the group that loads it.
 */
#include "view.h"

#define MEMBER_MARK 0x25CBu /* ○ */
#define LINK_MARK 0x2022u   /* • */

uint8_t view_cell_shown(const canvas_cell *cell, int half)
{
    return half == 0 && cell->ch == 0x2580u ? cell->fg : cell->bg;
}

/* Marks pixel (px, py) of the mesh (viewport pixels) with glyph. */
static void mark(canvas *c, const view_state *v, view_rect a, int px, int py, uint32_t glyph)
{
    int per = v->mono ? 1 : 2, col = px - v->ox, row = (py - v->oy) / per;
    if (px < v->ox || py < v->oy || col >= a.w || row >= a.h)
        return;
    const canvas_cell *cell = canvas_at(c, a.x + col, a.y + row);
    if (!cell || cell->ch == ' ')
        return;
    uint8_t bg = v->mono ? TC_BACKGROUND : view_cell_shown(cell, (py - v->oy) % per);
    canvas_put(c, a.x + col, a.y + row, glyph, v->mono ? TC_TEXT : TC_ACCENT, bg, CA_BOLD);
}

/* The pixel of a unit's middle, or of the link slot leaving it towards dir
 * (dir < 0: the unit): at zoom 1 links have pixels of their own between
 * units; above, a link is shown on its unit's block. */
static void pixel_of(const view_state *v, int x, int y, int dir, int *px, int *py)
{
    int size = v->zoom > 1 ? 1 : v->scale, mid = (size - 1) / 2;
    *px = view_unit_pixel(v, x) + mid;
    *py = view_unit_pixel(v, y) + mid;
    if (v->zoom > 1 || dir < 0)
        return;
    if (dir == WAFER_E || dir == WAFER_W)
        *px = view_unit_pixel(v, x) + (dir == WAFER_E ? size : -1);
    else
        *py = view_unit_pixel(v, y) + (dir == WAFER_S ? size : -1);
}

void view_draw_group(canvas *c, const view_state *v, view_rect a)
{
    if (!v->r || v->zoom <= 0)
        return;
    const wafer *wf = v->r->wf;
    int px, py;
    for (int i = 0; i < v->ngroup_links; i++) {
        int u = v->group_links[i] / WAFER_NDIR;
        pixel_of(v, wafer_x(wf, u), wafer_y(wf, u), v->group_links[i] % WAFER_NDIR, &px, &py);
        mark(c, v, a, px, py, LINK_MARK);
    }
    for (int i = 0; i < v->ngroup_units; i++) {
        pixel_of(v, wafer_x(wf, v->group_units[i]), wafer_y(wf, v->group_units[i]), -1, &px, &py);
        mark(c, v, a, px, py, MEMBER_MARK);
    }
}
