/*
 * view_compare.c - two results on one mesh (`:compare`): side by side in
 * the mesh area, each half with its title line (the strategy and its step
 * time) where the x ruler was, on one colour scale; or, with `d`, one mesh
 * of the difference B - A per link on the diverging scale. The panel's
 * figures become both sets with the ratios B/A (out_compare.c's rows).
 */
#include <math.h>
#include <stdio.h>

#include "out.h"
#include "qty.h"
#include "view.h"

/* s takes what the user moves and chooses on the main view. */
static void take(view_state *s, const view_state *v)
{
    s->th = v->th;
    s->mono = v->mono;
    s->mode = s->diverging ? VIEW_LINKS : v->mode;
    s->zoom = v->zoom;
    s->mean = v->mean;
    s->util_auto = v->util_auto;
    s->cx = v->cx;
    s->cy = v->cy;
    s->ox = v->ox;
    s->oy = v->oy;
}

/* v keeps where s's drawing put the viewport, for the keys and the mouse. */
static void give(view_state *v, const view_state *s)
{
    v->zoom = s->zoom;
    v->scale = s->scale;
    v->ox = s->ox;
    v->oy = s->oy;
    v->util_max = s->util_max;
}

/* The halves' titles: the holder's, or "A DP8,TATP16  3.01 s". */
static void half_title(canvas *c, const view_state *s, view_rect a, char side, const char *title)
{
    char text[64], t[32];
    canvas_fill(c, a.x, a.y, a.w, 1, ' ', TC_TEXT, TC_BACKGROUND);
    if (title)
        canvas_text(c, a.x, a.y, a.w, title, TC_ACCENT, TC_BACKGROUND, CA_BOLD);
    else
        canvas_printf(c, a.x, a.y, a.w, TC_ACCENT, TC_BACKGROUND, CA_BOLD, "%c %s  %s", side,
                      strategy_format(&s->r->s, text, sizeof text),
                      qty_format(s->r->step_time_s, QTY_TIME, t, sizeof t));
}

static void draw_diff(canvas *c, view_state *v, view_state *d, const view_layout *l)
{
    take(d, v);
    d->util_top = 0;
    view_draw_mesh(c, d, l->mesh);
    view_draw_rulers(c, d, l->xaxis, l->yaxis, l->mesh);
    view_draw_cursor(c, d, l->mesh);
    view_draw_legend(c, d, l->legend);
    give(v, d);
}

void view_draw_compare(canvas *c, view_state *v, const view_layout *l)
{
    view_compare *k = v->compare;
    if (k->show_diff) {
        draw_diff(c, v, &k->diff, l);
        return;
    }
    int w0 = (l->mesh.w - 1) / 2;
    view_rect half[2] = {{l->mesh.x, l->mesh.y, w0, l->mesh.h},
                         {l->mesh.x + w0 + 1, l->mesh.y, l->mesh.w - w0 - 1, l->mesh.h}};
    double top = 0;
    for (int pass = 0; pass < 2; pass++) { /* the second on the scale of both */
        for (int i = 0; i < 2; i++) {
            take(&k->side[i], v);
            if (k->one_result) /* its halves are two figures of the links */
                k->side[i].mode = VIEW_LINKS;
            k->side[i].util_top = top;
            view_draw_mesh(c, &k->side[i], half[i]);
            top = fmax(top, k->side[i].util_max);
            give(v, &k->side[i]); /* B at A's zoom and viewport, a column narrower or not */
        }
        if (v->mode != VIEW_LINKS || !v->util_auto)
            break;
    }
    for (int i = 0; i < 2; i++) { /* the y ruler at the left, wafer edges on both */
        view_rect none = {half[i].x, l->xaxis.y, 0, 0}, yaxis = i ? none : l->yaxis;
        view_draw_rulers(c, &k->side[i], none, yaxis, half[i]);
        view_draw_cursor(c, &k->side[i], half[i]);
        half_title(c, &k->side[i], (view_rect){half[i].x, l->xaxis.y, half[i].w, 1}, i ? 'B' : 'A', k->title[i]);
    }
    view_draw_legend(c, &k->side[0], l->legend);
}

int view_compare_figures(canvas *c, const view_state *v, view_rect a, int y)
{
    const view_compare *k = v->compare;
    const sim_result *ra = k->side[0].r, *rb = k->side[1].r;
    int label = 11, ratio = 6, col = (a.w - 1 - label - ratio) / 2;
    char sa[96], sb[96];
    canvas_fill(c, a.x, y, a.w, 1, 0x2500u, TC_GRID, TC_BACKGROUND);
    canvas_text(c, a.x + 1, y++, a.w - 2, " A vs B (d: the difference) ", TC_ACCENT, TC_BACKGROUND, CA_BOLD);
    canvas_printf(c, a.x, y++, a.w - 1, TC_TEXT, TC_BACKGROUND, CA_BOLD, "%-*s%-*s%-*s%s", label, "", col, "A", col,
                  "B", "B/A");
    for (int i = 0; i < out_compare_nrows(); i++) {
        double q = out_compare_ratio(i, ra, rb);
        int n = canvas_printf(c, a.x, y, a.w - 1, TC_TEXT, TC_BACKGROUND, 0, "%-*.*s%-*.*s%-*.*s", label, label - 1,
                              out_compare_label(i), col, col - 1, out_compare_value(i, ra, sa, sizeof sa), col,
                              col - 1, out_compare_value(i, rb, sb, sizeof sb));
        if (!isnan(q))
            canvas_printf(c, a.x + n, y, a.w - 1 - n, TC_TEXT, TC_BACKGROUND, 0, "%.3f", q);
        y++;
    }
    return y;
}
