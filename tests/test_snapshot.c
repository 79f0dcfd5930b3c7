/* The heatmap picture (tui/snapshot.h) against the model: every square of
 * the mesh (a unit's, a link's, a block's; live or dead) in the PNG it wrote (decoded with libpng) and in the SVG (its
 * <rect>s read back) has the theme's colour of the value the engine gives
 * that unit or link, on a scale to the highest of them, all computed here
 * from the result (not from the view's code); on a multi-wafer layout the
 * wafers' boundaries are drawn. Bad paths fail with one line naming who
 * asked, and leave no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout.h"
#include "snapshot.h"

typedef struct fixture {
    wafer wf;
    sim_result r;
    theme th;
    char dir[64];
    char path[128];
} fixture;

/* A result of strategy text on a layout file, and a scratch directory. */
static fixture *open_result(const char *layout, const char *text)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(layout_load(layout, &f->wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse(text, &s, NULL), WT_OK);
    s.placement = PLACE_LINEAR;
    assert_int_equal(sim_eval(&f->r, &f->wf, &m, &s, NULL), WT_OK);
    assert_int_equal(sim_window_figures(&f->r, SIM_WINDOW_S, NULL), WT_OK);
    theme_default(&f->th);
    snprintf(f->dir, sizeof f->dir, "/tmp/wt-snapshot-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    return f;
}

/* The `make run` scenario on the 16x16 mesh: its links are loaded unevenly. */
static int setup(void **state)
{
    *state = open_result("layouts/default.yaml", "DP8,TP32");
    return 0;
}

/* A dead unit and dead links. */
static int setup_faults(void **state)
{
    *state = open_result("tests/fixtures/layouts/faults.yaml", "DP8,TP16");
    return 0;
}

/* A mesh drawn in blocks of units, the first block dead. */
static int setup_blocks(void **state)
{
    *state = open_result("tests/fixtures/layouts/wide-blocks.yaml", "DP8,TP32");
    return 0;
}

/* 4x4 wafers of 16x16 units. */
static int setup_wafers(void **state)
{
    *state = open_result("layouts/multiwafer-4x4.yaml", "DP64,TATP64");
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove(f->path);
    rmdir(f->dir);
    sim_free(&f->r);
    wafer_free(&f->wf);
    free(f);
    return 0;
}

/* A link's figure as the test reads the model: the step average, or the
 * window's (util not NULL), 0 when the link is not usable. */
static double link_figure(const fixture *f, const double *util, int u, int dir)
{
    if (!wafer_link_usable(&f->wf, u, dir))
        return 0;
    size_t l = (size_t)u * WAFER_NDIR + (size_t)dir;
    return util ? util[l] : sim_link_util(&f->r, l);
}

/* The colour grid cell (gx, gy) must have at zoom 1 in the links view: a
 * unit is the theme's grid colour (dead: the dead colour), a link between
 * two units the gradient at its busier direction over the highest figure. */
static rgb expected(const fixture *f, const double *util, double max, int gx, int gy)
{
    const wafer *wf = &f->wf;
    int u = wafer_unit(wf, gx / 2, gy / 2);
    if (gx % 2 == 0 && gy % 2 == 0)
        return f->th.colour[wf->unit_dead[u] ? TC_DEAD : TC_GRID];
    int dir = gx % 2 ? WAFER_E : WAFER_S, back = gx % 2 ? WAFER_W : WAFER_N;
    int v = gx % 2 ? u + 1 : u + wf->w;
    if (!wafer_link_usable(wf, u, dir) && !wafer_link_usable(wf, v, back))
        return f->th.colour[TC_DEAD];
    double val = fmax(link_figure(f, util, u, dir), link_figure(f, util, v, back));
    return f->th.colour[theme_grad(val / max)];
}

static double highest(const fixture *f, const double *util)
{
    double max = 0;
    for (int u = 0; u < f->wf.w * f->wf.h; u++)
        for (int d = 0; d < WAFER_NDIR; d++)
            max = fmax(max, link_figure(f, util, u, d));
    return max;
}

/* Writes the picture of f's result as o shows it to f->dir/name (f->path);
 * returns where its mesh lies. */
static snap_geom write_picture(fixture *f, const char *name, snap_opts o)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    o.window_s = SIM_WINDOW_S;
    o.th = &f->th;
    snap_geom g;
    wt_err e;
    if (snap_result(&f->r, &o, f->path, "--out", &g, &e) != WT_OK)
        fail_msg("%s", e.msg);
    return g;
}

static uint8_t *read_png(const char *path, int *w, int *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        fail_msg("%s: %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(px);
    if (!png_image_finish_read(&img, NULL, px, 0, NULL))
        fail_msg("%s: %s", path, img.message);
    *w = (int)img.width;
    *h = (int)img.height;
    return px;
}

/* Every grid cell's middle pixel in the PNG at path. */
static void check_png(const fixture *f, const snap_geom *g, const double *util)
{
    assert_int_equal(g->zoom, 1);
    int w, h;
    uint8_t *px = read_png(f->path, &w, &h);
    double max = highest(f, util);
    assert_true(max > 0);
    int hot = 0;
    for (int gy = 0; gy < g->gh; gy++)
        for (int gx = 0; gx < g->gw; gx++) {
            if (gx % 2 && gy % 2)
                continue; /* between four units: the background */
            int x, y;
            snap_cell_pixel(g, gx, gy, &x, &y);
            assert_true(x >= 0 && x < w && y >= 0 && y < h);
            const uint8_t *p = px + 3 * ((size_t)y * (size_t)w + (size_t)x);
            rgb want = expected(f, util, max, gx, gy);
            if (p[0] != want.r || p[1] != want.g || p[2] != want.b)
                fail_msg("cell %d,%d: #%02x%02x%02x, want #%02x%02x%02x", gx, gy, p[0], p[1], p[2], want.r, want.g,
                         want.b);
            rgb top = f->th.colour[TC_GRAD0 + 100];
            hot += p[0] == top.r && p[1] == top.g && p[2] == top.b;
        }
    assert_true(hot > 0); /* the busiest link is at the top of the scale */
    free(px);
}

static void test_png_step_average(void **state)
{
    fixture *f = *state;
    snap_geom g = write_picture(f, "heat.png", (snap_opts){.mode = VIEW_LINKS, .average = 1});
    check_png(f, &g, NULL);
}

/* The window where the DP all-reduce first runs, as `:at dp.allreduce`
 * shows it: the links' figures from sim_link_window_util. */
static void test_png_window_at_phase(void **state)
{
    fixture *f = *state;
    int phase = sim_phase_find(&f->r, "dp.allreduce");
    assert_true(phase >= 0);
    double t = sim_phase_first(&f->r, phase);
    double *util = malloc(wafer_nlinks(&f->wf) * sizeof *util);
    assert_non_null(util);
    assert_int_equal(sim_link_window_util(&f->r, t, SIM_WINDOW_S, util, NULL), WT_OK);
    snap_geom g = write_picture(f, "window.PNG", (snap_opts){.mode = VIEW_LINKS, .t = t});
    check_png(f, &g, util);
    free(util);
}

/* The fill of the last <rect> that covers pixel (x, y), as "#rrggbb". */
static int svg_fill_at(const char *text, int x, int y, char fill[8])
{
    int found = 0;
    for (const char *p = text; (p = strstr(p, "<rect ")); p++) {
        int rx, ry, rw, rh;
        char c[8];
        if (sscanf(p, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%7[#0-9a-f]\"", &rx, &ry, &rw, &rh,
                   c) != 5)
            continue;
        if (x >= rx && x < rx + rw && y >= ry && y < ry + rh) {
            memcpy(fill, c, 8);
            found = 1;
        }
    }
    return found;
}

static void test_svg_step_average(void **state)
{
    fixture *f = *state;
    snap_geom g = write_picture(f, "heat.svg", (snap_opts){.mode = VIEW_LINKS, .average = 1});
    FILE *in = fopen(f->path, "r");
    assert_non_null(in);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    assert_true(n < sizeof text - 1);
    text[n] = '\0';
    assert_non_null(strstr(text, "<svg "));
    assert_non_null(strstr(text, "</svg>"));
    assert_non_null(strstr(text, "DP8,TP32"));
    double max = highest(f, NULL);
    for (int gy = 0; gy < g.gh; gy++)
        for (int gx = 0; gx < g.gw; gx++) {
            if (gx % 2 && gy % 2)
                continue;
            int x, y;
            char fill[8], want[8];
            snap_cell_pixel(&g, gx, gy, &x, &y);
            rgb c = expected(f, NULL, max, gx, gy);
            snprintf(want, sizeof want, "#%02x%02x%02x", c.r, c.g, c.b);
            assert_true(svg_fill_at(text, x, y, fill));
            if (strcmp(fill, want))
                fail_msg("cell %d,%d: %s, want %s", gx, gy, fill, want);
        }
}

/* The compute view: over the step a unit's square is the gradient at its
 * share of the step; at a phase, at what that phase computes. */
static void test_png_compute_view(void **state)
{
    fixture *f = *state;
    int ph = sim_phase_find(&f->r, "fwd.mlp.in");
    assert_true(ph >= 0);
    double at_phase = fmin(1, f->r.phases[ph].compute_s / f->r.phases[ph].time_s);
    for (int average = 1; average >= 0; average--) {
        snap_opts o = {.mode = VIEW_COMPUTE, .average = average, .t = sim_phase_first(&f->r, ph)};
        snap_geom g = write_picture(f, "compute.png", o);
        int w, h;
        uint8_t *px = read_png(f->path, &w, &h);
        for (int u = 0; u < f->wf.w * f->wf.h; u++) {
            int x, y;
            snap_cell_pixel(&g, 2 * wafer_x(&f->wf, u), 2 * wafer_y(&f->wf, u), &x, &y);
            const uint8_t *p = px + 3 * ((size_t)y * (size_t)w + (size_t)x);
            double util = average ? sim_unit_compute_util(&f->r, u) : sim_unit_stage(&f->r, u) >= 0 ? at_phase : 0;
            rgb want = f->th.colour[f->wf.unit_dead[u] ? TC_DEAD : theme_grad(util)];
            assert_true(p[0] == want.r && p[1] == want.g && p[2] == want.b);
        }
        free(px);
    }
}

/* A block's value as the test reads the model: the max of the links
 * leaving its live units (links view) or of their compute utilisation; -1
 * when none of its units is live. */
static double block_figure(const fixture *f, int zoom, int bx, int by, int links)
{
    double max = -1;
    for (int y = by * zoom; y < (by + 1) * zoom && y < f->wf.h; y++)
        for (int x = bx * zoom; x < (bx + 1) * zoom && x < f->wf.w; x++) {
            int u = wafer_unit(&f->wf, x, y);
            if (f->wf.unit_dead[u])
                continue;
            max = fmax(max, links ? 0 : sim_unit_compute_util(&f->r, u));
            for (int d = 0; links && d < WAFER_NDIR; d++)
                max = fmax(max, link_figure(f, NULL, u, d));
        }
    return max;
}

/* Above SNAP_DETAIL_MAX units a side, a square is a block of units: the
 * dead colour when all of them are dead, else the gradient at the max of
 * its links (their step average, over the highest block) or of its units'
 * compute utilisation. */
static void test_png_blocks(void **state)
{
    fixture *f = *state;
    for (int links = 1; links >= 0; links--) {
        snap_opts o = {.mode = links ? VIEW_LINKS : VIEW_COMPUTE, .average = 1};
        snap_geom g = write_picture(f, "blocks.png", o);
        assert_int_equal(g.zoom, 2);
        assert_true(g.gw == 125 && g.gh == 6);
        double max = 0;
        for (int by = 0; by < g.gh; by++)
            for (int bx = 0; bx < g.gw; bx++)
                max = fmax(max, block_figure(f, g.zoom, bx, by, links));
        int w, h;
        uint8_t *px = read_png(f->path, &w, &h);
        for (int by = 0; by < g.gh; by++)
            for (int bx = 0; bx < g.gw; bx++) {
                double val = block_figure(f, g.zoom, bx, by, links);
                rgb want = f->th.colour[val < 0 ? TC_DEAD : theme_grad(links ? val / max : val)];
                int x, y;
                snap_cell_pixel(&g, bx, by, &x, &y);
                const uint8_t *p = px + 3 * ((size_t)y * (size_t)w + (size_t)x);
                if (p[0] != want.r || p[1] != want.g || p[2] != want.b)
                    fail_msg("block %d,%d: #%02x%02x%02x, want #%02x%02x%02x", bx, by, p[0], p[1], p[2], want.r,
                             want.g, want.b);
            }
        assert_true(block_figure(f, g.zoom, 0, 0, links) < 0);
        free(px);
        remove(f->path);
    }
}

/* On a multi-wafer layout a line of the theme's accent runs along every
 * boundary between wafers, through the middle of the links that cross it. */
static void test_png_wafer_edges(void **state)
{
    fixture *f = *state;
    snap_geom g = write_picture(f, "wafers.png", (snap_opts){.mode = VIEW_LINKS, .average = 1});
    assert_int_equal(g.zoom, 1);
    assert_true(f->wf.wafers_x == 4 && f->wf.wafers_y == 4);
    int w, h, n = 0;
    uint8_t *px = read_png(f->path, &w, &h);
    rgb accent = f->th.colour[TC_ACCENT];
    for (int b = f->wf.wafer_w; b < f->wf.w; b += f->wf.wafer_w)
        for (int c = 0; c < g.gh; c++) {
            int x, y, x2, y2;
            snap_cell_pixel(&g, 2 * b - 1, c, &x, &y);   /* across the vertical boundary */
            snap_cell_pixel(&g, c, 2 * b - 1, &x2, &y2); /* across the horizontal one */
            const uint8_t *p = px + 3 * ((size_t)y * (size_t)w + (size_t)x);
            const uint8_t *q = px + 3 * ((size_t)y2 * (size_t)w + (size_t)x2);
            assert_true(p[0] == accent.r && p[1] == accent.g && p[2] == accent.b);
            assert_true(q[0] == accent.r && q[1] == accent.g && q[2] == accent.b);
            n++;
        }
    assert_int_equal(n, 3 * g.gh);
    free(px);
}

/* An unknown extension or a directory that cannot be written: one line
 * that names who asked, and no file. */
static void test_bad_paths(void **state)
{
    fixture *f = *state;
    snap_opts o = {.mode = VIEW_LINKS, .average = 1, .window_s = SIM_WINDOW_S, .th = &f->th};
    wt_err e;
    snprintf(f->path, sizeof f->path, "%s/heat.jpg", f->dir);
    assert_int_equal(snap_result(&f->r, &o, f->path, "--out", NULL, &e), WT_EINPUT);
    assert_true(!strncmp(e.msg, "--out: ", 7) && !strchr(e.msg, '\n'));
    assert_non_null(strstr(e.msg, ".png or .svg"));
    assert_int_equal(access(f->path, F_OK), -1);
    snprintf(f->path, sizeof f->path, "%s/no-such-dir/heat.png", f->dir);
    assert_int_equal(snap_result(&f->r, &o, f->path, "export", NULL, &e), WT_EINPUT);
    assert_true(!strncmp(e.msg, "export: cannot write beside ", 28) && !strchr(e.msg, '\n'));
    rmdir(f->dir); /* empty: nothing was left behind */
    assert_int_equal(access(f->dir, F_OK), -1);
    assert_non_null(mkdtemp(strcpy(f->dir, "/tmp/wt-snapshot-XXXXXX")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_png_step_average, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_window_at_phase, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_step_average, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_compute_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_wafer_edges, setup_wafers, teardown),
        cmocka_unit_test_setup_teardown(test_png_step_average, setup_faults, teardown),
        cmocka_unit_test_setup_teardown(test_png_blocks, setup_blocks, teardown),
        cmocka_unit_test_setup_teardown(test_bad_paths, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
