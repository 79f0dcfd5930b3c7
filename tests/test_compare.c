/* The screen's comparison (tui/ui_compare.c, tui/view_compare.c): `:compare
 * S` on a live screen draws the session's result and S's side by side on
 * one colour scale, and with `d` the difference B - A per link on the
 * diverging ramp; every mesh cell is checked against values computed here
 * from the two results (sim_link_util of each, B evaluated here apart),
 * and the ramp against the theme's named colours. Bad strategies leave the
 * screen as it was. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "canvas.h"
#include "qty.h"
#include "theme.h"
#include "ui.h"
#include "view.h"

#define HALF 0x2580u /* ▀ */

/* The ramp runs from the accent (B lower) through the background (the
 * same) to hot (B higher), and theme_div picks its steps. */
static void test_diverging_ramp(void **state)
{
    (void)state;
    theme th;
    theme_default(&th);
    assert_memory_equal(&th.colour[TC_DIV0], &th.colour[TC_ACCENT], sizeof(rgb));
    assert_memory_equal(&th.colour[TC_DIV0 + TC_DIV_MID], &th.colour[TC_BACKGROUND], sizeof(rgb));
    assert_memory_equal(&th.colour[TC_DIV0 + 2 * TC_DIV_MID], &th.colour[TC_HOT], sizeof(rgb));
    /* halfway down: the accent's and the background's mean (0 .. 255 rounded) */
    rgb half = th.colour[TC_DIV0 + TC_DIV_MID / 2], acc = th.colour[TC_ACCENT], bg = th.colour[TC_BACKGROUND];
    assert_int_equal(half.r, (int)((acc.r + bg.r) / 2.0 + 0.5));
    assert_int_equal(half.b, (int)((acc.b + bg.b) / 2.0 + 0.5));
    assert_int_equal(theme_div(0), TC_DIV0 + TC_DIV_MID);
    assert_int_equal(theme_div(1), TC_DIV0 + 2 * TC_DIV_MID);
    assert_int_equal(theme_div(-1), TC_DIV0);
    assert_int_equal(theme_div(-0.5), TC_DIV0 + TC_DIV_MID - TC_DIV_MID / 2);
    assert_int_equal(theme_div(7), TC_DIV0 + 2 * TC_DIV_MID);
    assert_int_equal(theme_div(-0.04), TC_DIV0 + TC_DIV_MID);
    assert_true(TC_COUNT <= 256); /* a canvas colour is a byte */
}

/* A live screen on the 16x16 default layout, stepped once. */
static ui *live(void)
{
    char *words[] = {"--layout", "default", "--model", "gpt3-6.7b", "--strategy", "DP4,TATP64", "--checkpoint", "full",
                     "--mem", "zero,act_int8,grad_fp8"};
    ui *u = ui_new(".");
    assert_non_null(u);
    wt_err e;
    if (cli_parse((int)(sizeof words / sizeof words[0]), words, CLI_TUNE | CLI_UI, ".", &u->o, &e) != WT_OK ||
        ui_load(u, u->o.layout, u->o.model, 0, NULL, &e) != WT_OK)
        fail_msg("%s", e.msg);
    ui_load_themes(u, NULL);
    u->ncolours = 256;
    assert_int_equal(canvas_resize(&u->cv, 120, 40), 0);
    ui_step(u);
    assert_non_null(u->r);
    return u;
}

/* B as :compare evaluates it: on the session's mesh and model. */
static void eval_b(const ui *u, const char *text, place_kind pl, sim_result *r)
{
    strategy s = u->S->s;
    wt_err e;
    assert_int_equal(strategy_parse(text, &s, &e), WT_OK);
    s.placement = pl;
    assert_int_equal(strategy_resolve(&s, &u->S->m, &u->S->wf, &e), WT_OK);
    if (sim_eval_net(r, &u->S->wf, u->S->o.net, &u->S->m, &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
}

/* The value a zoom-1 grid cell shows of per-link values f: -1 a gap, -2 a
 * unit, else the busier direction's (fill: what a link no one loads holds). */
static double cell_value(const wafer *wf, double (*f)(const sim_result *a, const sim_result *b, size_t l),
                         const sim_result *a, const sim_result *b, int gx, int gy)
{
    int x = gx / 2, y = gy / 2, u = wafer_unit(wf, x, y);
    if (gx % 2 == 0 && gy % 2 == 0)
        return wf->unit_dead[u] ? -3 : -2;
    if (gx % 2 && gy % 2)
        return -1;
    int v = gx % 2 ? u + 1 : u + wf->w, d1 = gx % 2 ? WAFER_E : WAFER_S, d2 = gx % 2 ? WAFER_W : WAFER_N;
    if (!wafer_link_usable(wf, u, d1) && !wafer_link_usable(wf, v, d2))
        return -3;
    /* a dead direction shows 0 */
    double f1 = wafer_link_usable(wf, u, d1) ? f(a, b, (size_t)u * WAFER_NDIR + (size_t)d1) : 0;
    double f2 = wafer_link_usable(wf, v, d2) ? f(a, b, (size_t)v * WAFER_NDIR + (size_t)d2) : 0;
    return fmax(f1, f2);
}

static double util_a(const sim_result *a, const sim_result *b, size_t l)
{
    (void)b;
    return sim_link_util(a, l);
}

static double util_b(const sim_result *a, const sim_result *b, size_t l)
{
    (void)a;
    return sim_link_util(b, l);
}

/* The difference as the view holds it: (B - A + 1) / 2. */
static double util_diff(const sim_result *a, const sim_result *b, size_t l)
{
    return (sim_link_util(b, l) - sim_link_util(a, l) + 1) / 2;
}

typedef double (*cell_fn)(const sim_result *a, const sim_result *b, size_t l);

/* The largest of what the 31x31 grid cells of f show, by scale (the
 * size of a difference). */
static double top_of(const wafer *wf, cell_fn f, const sim_result *a, const sim_result *b, int diverging)
{
    double top = 0;
    for (int gy = 0; gy < 2 * wf->h - 1; gy++)
        for (int gx = 0; gx < 2 * wf->w - 1; gx++) {
            double val = cell_value(wf, f, a, b, gx, gy);
            if (val >= 0)
                top = fmax(top, diverging ? fabs(2 * val - 1) : val);
        }
    return top;
}

static int colour_of(double val, double top, int diverging)
{
    if (val == -3)
        return TC_DEAD;
    if (val == -2)
        return TC_GRID;
    if (val < 0)
        return TC_BACKGROUND;
    if (diverging)
        return theme_div(fmax(-1, fmin(1, (2 * val - 1) / top)));
    return theme_grad(top == 1 ? val : fmin(1, val / top));
}

/* The grid cell of pixel p at zoom 1 when a unit is scale pixels wide. */
static int grid_of(int p, int scale)
{
    return p / (scale + 1) * 2 + (p % (scale + 1) >= scale);
}

/* Every cell of a 16x16 mesh drawn at zoom 1, a unit scale x scale pixels,
 * from (x0, y0); counts the cells on each side of the diverging ramp. */
static void check_mesh(const canvas *c, int x0, int y0, int scale, cell_fn f, const sim_result *a,
                       const sim_result *b, double top, int diverging, int *cold, int *hot)
{
    const wafer *wf = a->wf;
    int pw = wf->w * scale + wf->w - 1, ph = wf->h * scale + wf->h - 1;
    for (int row = 0; row < (ph + 1) / 2; row++)
        for (int col = 0; col < pw; col++) {
            int gx = grid_of(col, scale);
            int up = colour_of(cell_value(wf, f, a, b, gx, grid_of(2 * row, scale)), top, diverging);
            int low = 2 * row + 1 < ph
                          ? colour_of(cell_value(wf, f, a, b, gx, grid_of(2 * row + 1, scale)), top, diverging)
                          : TC_BACKGROUND;
            const canvas_cell *k = canvas_at(c, x0 + col, y0 + row);
            if (!k || k->fg != up || k->bg != low)
                if (!(k && k->ch == 0x25C6u)) /* the cursor's diamond */
                    fail_msg("cell %d,%d: fg %d bg %d, expected fg %d bg %d", x0 + col, y0 + row, k ? k->fg : -1,
                             k ? k->bg : -1, up, low);
            if (k && k->ch == HALF) {
                *cold += up >= TC_DIV0 && up < TC_DIV0 + TC_DIV_MID;
                *hot += up > TC_DIV0 + TC_DIV_MID && up < TC_COUNT;
            }
        }
}

static void draw(ui *u)
{
    ui_sync_view(u);
    view_draw(&u->cv, &u->v);
}

static void test_compare_screen(void **state)
{
    (void)state;
    ui *u = live();
    ui_command(u, "compare DP8,TP32 --placement linear");
    assert_int_equal(u->status_error, 0);
    sim_result b;
    eval_b(u, "DP8,TP32", PLACE_LINEAR, &b);
    const sim_result *a = u->r;
    view_layout l;
    view_layout_for(u->cv.w, u->cv.h, 0, &l);
    int w0 = (l.mesh.w - 1) / 2, x1 = l.mesh.x + w0 + 1;
    int cold = 0, hot = 0;

    /* side by side on 0-100 % ('c'), then on one scale to the highest of both */
    u->play.fixed = 1;
    draw(u);
    assert_int_equal(u->v.zoom, 1);
    check_mesh(&u->cv, l.mesh.x, l.mesh.y, 1, util_a, a, &b, 1, 0, &cold, &hot);
    check_mesh(&u->cv, x1, l.mesh.y, 1, util_b, a, &b, 1, 0, &cold, &hot);
    u->play.fixed = 0;
    draw(u);
    double top = fmax(top_of(a->wf, util_a, a, &b, 0), top_of(a->wf, util_b, a, &b, 0));
    check_mesh(&u->cv, l.mesh.x, l.mesh.y, 1, util_a, a, &b, top, 0, &cold, &hot);
    check_mesh(&u->cv, x1, l.mesh.y, 1, util_b, a, &b, top, 0, &cold, &hot);
    char text[128];
    assert_true(canvas_find(&u->cv, "A vs B"));
    snprintf(text, sizeof text, "B DP8,TP32  ");
    assert_true(canvas_find(&u->cv, text));
    snprintf(text, sizeof text, "%.3f", b.step_time_s / a->step_time_s);
    assert_true(canvas_find(&u->cv, text));

    /* d: the difference, cold where B is lower, hot where higher */
    ui_compare_key(u, 'd');
    draw(u);
    top = top_of(a->wf, util_diff, a, &b, 1);
    assert_true(top > 0.01);
    cold = hot = 0;
    assert_int_equal(u->v.scale, 2); /* the whole mesh area: a unit 2x2 pixels */
    check_mesh(&u->cv, l.mesh.x, l.mesh.y, 2, util_diff, a, &b, top, 1, &cold, &hot);
    assert_true(cold > 10 && hot > 10);
    snprintf(text, sizeof text, "B - A link util -%.1f%% ", 100 * top);
    assert_true(canvas_find(&u->cv, text));
    snprintf(text, sizeof text, " +%.1f%%  ", 100 * top);
    assert_true(canvas_find(&u->cv, text));

    /* mono, on a taller screen (a cell a grid row): each cell's glyph by the
     * size of its difference, lower '=' '-', the same '·', higher '*' '#' */
    u->ncolours = 0;
    assert_int_equal(canvas_resize(&u->cv, 120, 50), 0);
    u->v.zoom = 0;
    draw(u);
    assert_int_equal(u->v.zoom, 1);
    assert_int_equal(u->v.scale, 1);
    view_layout_for(120, 50, 0, &l);
    static const uint32_t glyphs[5] = {'=', '-', 0x00B7, '*', '#'};
    int levels[5] = {0};
    for (int gy = 0; gy < 31; gy++)
        for (int gx = 0; gx < 31; gx++) {
            double val = cell_value(a->wf, util_diff, a, &b, gx, gy);
            const canvas_cell *k = canvas_at(&u->cv, l.mesh.x + gx, l.mesh.y + gy);
            if (k->ch == 0x25C6u) /* the cursor */
                continue;
            if (val < 0) {
                assert_int_equal(k->ch, val == -2 ? '+' : ' ');
                continue;
            }
            int level = (int)floor(fmax(-1, fmin(1, (2 * val - 1) / top)) * 2.5 + 2.5);
            level = level > 4 ? 4 : level;
            if (k->ch != glyphs[level])
                fail_msg("mono cell %d,%d: U+%04X, expected U+%04X", gx, gy, (unsigned)k->ch, (unsigned)glyphs[level]);
            levels[level]++;
        }
    assert_true(levels[0] + levels[1] > 0 && levels[3] + levels[4] > 0 && levels[2] > 0);
    u->ncolours = 256;
    assert_int_equal(canvas_resize(&u->cv, 120, 40), 0);
    view_layout_for(120, 40, 0, &l);
    u->v.zoom = 0;

    /* a strategy that cannot be placed: one line, the comparison stays */
    ui_command(u, "compare DP9,TP32");
    assert_int_equal(u->status_error, 1);
    assert_non_null(strstr(u->status, "compare: strategy DP9,TP32 needs 288 units"));
    draw(u);
    check_mesh(&u->cv, l.mesh.x, l.mesh.y, 2, util_diff, a, &b, top, 1, &cold, &hot);
    /* one that does not fit in memory is compared, and the status says so */
    ui_command(u, "compare DP8,TATP16");
    assert_int_equal(u->status_error, 1);
    assert_non_null(strstr(u->status, "DP8,TATP16 DOES NOT FIT"));
    draw(u);
    assert_true(canvas_find(&u->cv, "DOES NOT FIT"));
    /* off: the one mesh again */
    ui_command(u, "compare off");
    assert_string_equal(u->status, ""); /* no error shown */
    draw(u);
    assert_null(u->v.compare);
    assert_false(canvas_find(&u->cv, "A vs B"));
    ui_command(u, "compare off");
    assert_string_equal(u->status, "compare: none is shown");
    sim_free(&b);
    ui_free(u);
}

/* New faults evaluate B again on them (its loads go round the dead link);
 * a new session ends the comparison. */
static void test_compare_faults(void **state)
{
    (void)state;
    ui *u = live();
    ui_command(u, "compare DP8,TP32 --placement linear");
    draw(u);
    ui_command(u, "fail 7,7,E");
    assert_int_equal(u->status_error, 0);
    ui_step(u);
    u->play.fixed = 1;
    draw(u);
    sim_result b;
    eval_b(u, "DP8,TP32", PLACE_LINEAR, &b);
    view_layout l;
    view_layout_for(u->cv.w, u->cv.h, 0, &l);
    int cold = 0, hot = 0, x1 = l.mesh.x + (l.mesh.w - 1) / 2 + 1;
    assert_int_equal(canvas_at(&u->cv, x1 + 15, l.mesh.y + 7)->fg, TC_DEAD); /* the link east of 7,7 */
    check_mesh(&u->cv, l.mesh.x, l.mesh.y, 1, util_a, u->r, &b, 1, 0, &cold, &hot);
    check_mesh(&u->cv, x1, l.mesh.y, 1, util_b, u->r, &b, 1, 0, &cold, &hot);
    ui_command(u, "layout default");
    assert_int_equal(u->status_error, 0);
    assert_null(u->cmp);
    sim_free(&b);
    ui_free(u);
}

/* The flit level's figures per link slot, as the replay's halves show
 * them (set before check_mesh reads them). */
static const double *flit_vals;

static double flit_val(const sim_result *a, const sim_result *b, size_t l)
{
    (void)a;
    (void)b;
    return flit_vals[l];
}

/* f (tui/ui_flit.c): the phase at the cursor of time at flit level in a
 * thread, then its links' utilisation beside its buffers' mean occupancy
 * over their capacity, every cell as a run of the same phase here gives;
 * the panel keeps the session's figures; f again: the one mesh. */
static void test_flit_screen(void **state)
{
    (void)state;
    ui *u = live();
    ui_command(u, "at fwd.attn.qkv");
    draw(u);
    ui_flit_key(u, 'f');
    assert_true(u->flit.running);
    for (int i = 0; u->flit.running && i < 6000; i++) {
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        ui_flit_poll(u);
    }
    assert_true(u->flit.shown);
    const sim_result *a = u->r;
    int phase = sim_phase_find(a, "fwd.attn.qkv");
    flit_phase_out o;
    wt_err e;
    assert_int_equal(flit_phase_run(a, phase, NULL, &o, &e), WT_OK);
    size_t nl = wafer_nlinks(a->wf);
    double *util = calloc(nl, sizeof *util), *buf = calloc(nl, sizeof *buf);
    assert_true(util && buf && o.w == 16 && o.h == 16);
    for (size_t l = 0; l < nl; l++) { /* the window is the whole mesh: the same slots */
        util[l] = o.util[l];
        buf[l] = o.buffer_mean[l] / (a->wf->router.num_vcs * a->wf->router.vc_buf_size);
    }
    double most[2] = {0, 0};
    for (size_t k = 0; k < nl; k++)
        most[0] = fmax(most[0], util[k]), most[1] = fmax(most[1], buf[k]);
    if (!(most[0] > 0.5 && most[1] > 0.001)) /* both halves show something */
        fail_msg("the busiest link %g, the fullest buffers %g", most[0], most[1]);
    u->play.fixed = 1;
    draw(u);
    view_layout l;
    view_layout_for(u->cv.w, u->cv.h, 0, &l);
    int x1 = l.mesh.x + (l.mesh.w - 1) / 2 + 1, cold = 0, hot = 0;
    flit_vals = util;
    check_mesh(&u->cv, l.mesh.x, l.mesh.y, 1, flit_val, a, a, 1, 0, &cold, &hot);
    flit_vals = buf;
    check_mesh(&u->cv, x1, l.mesh.y, 1, flit_val, a, a, 1, 0, &cold, &hot);
    char text[96], t[32];
    snprintf(text, sizeof text, "links: fwd.attn.qkv, %s", qty_format(o.time_s, QTY_TIME, t, sizeof t));
    assert_true(canvas_find(&u->cv, text));
    assert_true(canvas_find(&u->cv, "buffers: mean of 128 flits"));
    assert_false(canvas_find(&u->cv, "A vs B")); /* the session's figures stay */
    assert_true(canvas_find(&u->cv, "flit level: fwd.attn.qkv, window 0,0 16x16; f: off"));
    ui_flit_key(u, 'f');
    draw(u);
    assert_null(u->v.compare);
    assert_false(canvas_find(&u->cv, "buffers: mean of"));
    /* a cursor where nothing moves: one line, nothing runs */
    ui_command(u, "at fwd.logits");
    draw(u);
    ui_flit_key(u, 'f');
    assert_false(u->flit.running);
    assert_int_equal(u->status_error, 1);
    assert_non_null(strstr(u->status, "f: no phase that moves bytes runs at the cursor of time"));
    flit_phase_free(&o);
    free(util);
    free(buf);
    ui_free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diverging_ramp),
        cmocka_unit_test(test_compare_screen),
        cmocka_unit_test(test_compare_faults),
        cmocka_unit_test(test_flit_screen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
