/* The screen's drawing parts without a terminal (tui/canvas.h, tui/theme.h,
 * tui/view.h): canvas text, theme files and colour mapping, the mesh
 * heatmap of real results (glyphs, colours, half-block pairing, blocks,
 * faults), the legend, the whole frame and mouse hits; the live screen's
 * frames, drawn from what it keeps between frames, against frames drawn
 * from scratch. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "canvas.h"
#include "net.h"
#include "par.h"
#include "rng.h"
#include "theme.h"
#include "ui.h"
#include "view.h"

#define HALF 0x2580u /* ▀ */

/* A cell's glyph and colours, with a message that names the cell. */
static void check_cell(const canvas *c, int x, int y, uint32_t ch, int fg, int bg)
{
    const canvas_cell *k = canvas_at(c, x, y);
    if (!k)
        fail_msg("cell %d,%d is off the %dx%d canvas", x, y, c->w, c->h);
    if (k->ch != ch || k->fg != fg || k->bg != bg)
        fail_msg("cell %d,%d: U+%04X fg %d bg %d, expected U+%04X fg %d bg %d", x, y, (unsigned)k->ch, k->fg, k->bg,
                 (unsigned)ch, fg, bg);
}

static void new_canvas(canvas *c, int w, int h)
{
    memset(c, 0, sizeof *c);
    assert_int_equal(canvas_resize(c, w, h), 0);
    canvas_clear(c, TC_TEXT, TC_BACKGROUND);
}

/* s of a preset or a model file evaluated on wf with a placement. */
/* The network model eval() times with: NULL for the default. */
static const net_model *eval_net;

static void eval(sim_result *r, const wafer *wf, const char *model_name, const char *text, place_kind pl)
{
    model m;
    strategy s;
    wt_err e;
    if (model_load(model_name, &m, &e) != WT_OK)
        fail_msg("%s", e.msg);
    strategy_defaults(&s);
    if (strategy_parse(text, &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
    s.placement = pl;
    if (sim_eval_net(r, wf, eval_net, &m, &s, &e) != WT_OK)
        fail_msg("sim_eval %s: %s", text, e.msg);
}

static size_t slot(const wafer *wf, int x, int y, int dir)
{
    return (size_t)wafer_unit(wf, x, y) * WAFER_NDIR + (size_t)dir;
}

/* ---- canvas ------------------------------------------------------------ */

static void test_canvas_text(void **state)
{
    (void)state;
    canvas c;
    new_canvas(&c, 10, 3);
    char row[64];

    /* UTF-8 of 1, 2 and 3 bytes is one cell per code point */
    assert_int_equal(canvas_text(&c, 0, 0, 10, "a\xc3\xa9\xe2\x96\x80z", TC_HOT, TC_GRID, CA_BOLD), 4);
    check_cell(&c, 0, 0, 'a', TC_HOT, TC_GRID);
    check_cell(&c, 1, 0, 0xE9, TC_HOT, TC_GRID);
    check_cell(&c, 2, 0, HALF, TC_HOT, TC_GRID);
    check_cell(&c, 3, 0, 'z', TC_HOT, TC_GRID);
    assert_int_equal(canvas_at(&c, 3, 0)->attr, CA_BOLD);
    check_cell(&c, 4, 0, ' ', TC_TEXT, TC_BACKGROUND);
    assert_string_equal(canvas_row(&c, 0, row, sizeof row), "a\xc3\xa9\xe2\x96\x80z      ");

    /* maxw clips; a bad byte is '?', a tab a blank, other controls vanish */
    assert_int_equal(canvas_text(&c, 0, 1, 3, "abcdef", TC_TEXT, TC_BACKGROUND, 0), 3);
    assert_string_equal(canvas_row(&c, 1, row, sizeof row), "abc       ");
    assert_int_equal(canvas_text(&c, 0, 1, 10, "x\xff\ty\x01z", TC_TEXT, TC_BACKGROUND, 0), 5);
    assert_string_equal(canvas_row(&c, 1, row, sizeof row), "x? yz     ");
    /* a truncated lead byte at the end of the string is one '?' */
    assert_int_equal(canvas_text(&c, 0, 1, 10, "ab\xe2\x96", TC_TEXT, TC_BACKGROUND, 0), 4);
    assert_string_equal(canvas_row(&c, 1, row, sizeof row), "ab??z     ");

    /* the canvas edge clips without wrapping to the next row */
    canvas_text(&c, 8, 1, 10, "XYZ", TC_TEXT, TC_BACKGROUND, 0);
    assert_string_equal(canvas_row(&c, 1, row, sizeof row), "ab??z   XY");
    assert_string_equal(canvas_row(&c, 2, row, sizeof row), "          ");
    assert_null(canvas_at(&c, 10, 1));
    assert_null(canvas_at(&c, -1, 0));
    canvas_text(&c, -2, 2, 10, "12345", TC_TEXT, TC_BACKGROUND, 0);
    assert_string_equal(canvas_row(&c, 2, row, sizeof row), "345       ");
    canvas_text(&c, 0, 3, 10, "off", TC_TEXT, TC_BACKGROUND, 0);
    canvas_text(&c, 0, -1, 10, "off", TC_TEXT, TC_BACKGROUND, 0);
    assert_false(canvas_find(&c, "off"));

    /* printf, fill and attr */
    assert_int_equal(canvas_printf(&c, 4, 2, 6, TC_ACCENT, TC_BACKGROUND, 0, "%d%%", 42), 3);
    assert_string_equal(canvas_row(&c, 2, row, sizeof row), "345 42%   ");
    canvas_fill(&c, 8, 0, 5, 5, '#', TC_DEAD, TC_HOT);
    check_cell(&c, 9, 2, '#', TC_DEAD, TC_HOT);
    check_cell(&c, 7, 2, ' ', TC_TEXT, TC_BACKGROUND);
    canvas_attr(&c, 1, 2, 2, 1, CA_REVERSE);
    assert_int_equal(canvas_at(&c, 0, 2)->attr, 0);
    assert_int_equal(canvas_at(&c, 1, 2)->attr, CA_REVERSE);
    assert_int_equal(canvas_at(&c, 2, 2)->attr, CA_REVERSE);
    assert_int_equal(canvas_at(&c, 3, 2)->attr, 0);

    /* find across rows, never across a row break */
    assert_true(canvas_find(&c, "\xc3\xa9\xe2\x96\x80z"));
    assert_true(canvas_find(&c, "42%"));
    assert_false(canvas_find(&c, "##345"));
    assert_false(canvas_find(&c, "a\xc3\xa9z"));

    /* a short buffer keeps a prefix of the row, never a glyph further on */
    assert_string_equal(canvas_row(&c, 0, row, 5), "a\xc3\xa9");
    assert_string_equal(canvas_row(&c, 0, row, 7), "a\xc3\xa9\xe2\x96\x80");
    assert_string_equal(canvas_row(&c, 5, row, sizeof row), "");

    /* resize clears */
    assert_int_equal(canvas_resize(&c, 4, 2), 0);
    assert_int_equal(c.w, 4);
    assert_int_equal(c.h, 2);
    assert_string_equal(canvas_row(&c, 0, row, sizeof row), "    ");
    canvas_free(&c);
    assert_null(c.cells);
}

/* ---- themes ------------------------------------------------------------ */

static void check_rgb(rgb c, int r, int g, int b)
{
    if (c.r != r || c.g != g || c.b != b)
        fail_msg("colour %d,%d,%d, expected %d,%d,%d", c.r, c.g, c.b, r, g, b);
}

static void test_theme_default(void **state)
{
    (void)state;
    theme def, file;
    wt_err e;
    theme_default(&def);
    assert_string_equal(def.name, "default");
    assert_int_equal(def.mono, 0);
    check_rgb(def.colour[TC_BACKGROUND], 0, 0, 0);
    check_rgb(def.colour[TC_TEXT], 0xd0, 0xd0, 0xd0);
    check_rgb(def.colour[TC_DEAD], 0x80, 0x80, 0x80);
    check_rgb(def.colour[TC_GRID], 0x4e, 0x4e, 0x4e);
    /* six stops over 101 steps: stop k at step 20k, halfway at 20k + 10 */
    check_rgb(def.colour[TC_GRAD0], 0x00, 0x5f, 0x87);
    check_rgb(def.colour[TC_GRAD0 + 10], 0, (0x5f + 0x87) / 2, (0x87 + 0xaf) / 2);
    check_rgb(def.colour[TC_GRAD0 + 20], 0x00, 0x87, 0xaf);
    check_rgb(def.colour[TC_GRAD0 + 60], 0xff, 0xd7, 0x00);
    check_rgb(def.colour[TC_GRAD0 + 100], 0xd7, 0x00, 0x00);
    /* theme_grad rounds to the nearest percent and clamps */
    assert_int_equal(theme_grad(0), TC_GRAD0);
    assert_int_equal(theme_grad(0.004), TC_GRAD0);
    assert_int_equal(theme_grad(0.005), TC_GRAD0 + 1);
    assert_int_equal(theme_grad(0.97), TC_GRAD0 + 97);
    assert_int_equal(theme_grad(1.5), TC_GRAD0 + 100);
    assert_int_equal(theme_grad(-0.3), TC_GRAD0);

    if (theme_load("themes/default.yaml", &file, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_memory_equal(&file, &def, sizeof def);
}

/* Every file of themes/ parses and names itself after the file. */
static void test_theme_files(void **state)
{
    (void)state;
    DIR *d = opendir("themes");
    assert_non_null(d);
    struct dirent *de;
    int n = 0, seen = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
            continue;
        char path[512], name[256];
        snprintf(path, sizeof path, "themes/%s", de->d_name);
        snprintf(name, sizeof name, "%.*s", (int)(len - 5), de->d_name);
        theme t;
        wt_err e;
        if (theme_load(path, &t, &e) != WT_OK)
            fail_msg("%s", e.msg);
        assert_string_equal(t.name, name);
        assert_int_equal(t.mono, !strcmp(name, "mono"));
        n++;
        static const char *const stock[] = {"default", "light", "mono", "viridis"};
        for (int i = 0; i < 4; i++)
            if (!strcmp(name, stock[i]))
                seen |= 1 << i;
    }
    closedir(d);
    assert_true(n >= 4);
    assert_int_equal(seen, 15);

    theme t;
    assert_int_equal(theme_load("themes/viridis.yaml", &t, NULL), WT_OK);
    check_rgb(t.colour[TC_GRAD0], 0x44, 0x01, 0x54);
    check_rgb(t.colour[TC_GRAD0 + 100], 0xfd, 0xe7, 0x25);
    /* step 50 of ten stops is halfway from #26828e to #1f9e89 */
    check_rgb(t.colour[TC_GRAD0 + 50], 35, 144, 140);
    check_rgb(t.colour[TC_HOT], 0xfd, 0xe7, 0x25);
    assert_int_equal(theme_load("themes/mono.yaml", &t, NULL), WT_OK);
    check_rgb(t.colour[TC_GRAD0 + 50], 128, 128, 128);
    check_rgb(t.colour[TC_TEXT], 0xd0, 0xd0, 0xd0); /* not given: the default's */
    assert_int_equal(theme_load("themes/light.yaml", &t, NULL), WT_OK);
    check_rgb(t.colour[TC_BACKGROUND], 0xff, 0xff, 0xff);
    check_rgb(t.colour[TC_GRAD0 + 100], 0x7f, 0x00, 0x00);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* Each bad file fails with "path:line:col: message" and leaves the default. */
static void test_theme_errors(void **state)
{
    (void)state;
    static const struct {
        const char *file, *text;
        int line, col;
        const char *msg;
    } bad[] = {
        {"unknown.yaml", "name: x\ngradient: [\"#000000\", \"#ffffff\"]\ncolour: \"#ffffff\"\n", 3, 1,
         "unknown key 'colour'"},
        {"colour.yaml", "name: x\ngradient: [\"#000000\", \"#12345g\"]\n", 2, 23, "'#12345g' is not a colour"},
        {"short.yaml", "name: x\ngradient: [\"#000000\", \"#12345\"]\n", 2, 23, "'#12345' is not a colour"},
        {"sign.yaml", "name: x\ngradient: [\"#000000\", \"#-10000\"]\n", 2, 23, "'#-10000' is not a colour"},
        {"blank.yaml", "name: x\ngradient: [\"#000000\", \"# 1 2 3\"]\n", 2, 23, "'# 1 2 3' is not a colour"},
        {"named.yaml", "name: x\ngradient: [\"#000000\", \"#ffffff\"]\ndead: red\n", 3, 7, "'red' is not a colour"},
        {"onestop.yaml", "name: x\ngradient: [\"#000000\"]\n", 2, 11, "a gradient has 2 to 16 stops, not 1"},
        {"mono.yaml", "name: x\ngradient: [\"#000000\", \"#ffffff\"]\nmono: yes\n", 3, 7,
         "mono must be true or false"},
        {"list.yaml", "- a\n- b\n", 1, 1, "expected a mapping of keys at the top level, found a list"},
        {"missing.yaml", "name: x\n", 1, 1, "missing required key 'gradient'"},
    };
    char dir[] = "/tmp/wt_test_canvas_XXXXXX";
    assert_non_null(mkdtemp(dir));
    theme def;
    theme_default(&def);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256], where[300];
        snprintf(path, sizeof path, "%s/%s", dir, bad[i].file);
        write_file(path, bad[i].text);
        theme t;
        wt_err e;
        assert_int_equal(theme_load("themes/viridis.yaml", &t, NULL), WT_OK);
        if (theme_load(path, &t, &e) != WT_EINPUT)
            fail_msg("%s: loaded", bad[i].file);
        snprintf(where, sizeof where, "%s:%d:%d: ", path, bad[i].line, bad[i].col);
        if (strncmp(e.msg, where, strlen(where)) || !strstr(e.msg, bad[i].msg))
            fail_msg("%s: got \"%s\", expected \"%s%s...\"", bad[i].file, e.msg, where, bad[i].msg);
        assert_memory_equal(&t, &def, sizeof def);
        assert_int_equal(unlink(path), 0);
    }
    /* a file that is not there */
    char path[256];
    snprintf(path, sizeof path, "%s/none.yaml", dir);
    theme t;
    wt_err e;
    assert_int_equal(theme_load("themes/light.yaml", &t, NULL), WT_OK);
    assert_int_not_equal(theme_load(path, &t, &e), WT_OK);
    assert_non_null(strstr(e.msg, "none.yaml"));
    assert_memory_equal(&t, &def, sizeof def);
    /* upper-case hex is a colour */
    snprintf(path, sizeof path, "%s/upper.yaml", dir);
    write_file(path, "name: up\ngradient: [\"#00FF00\", \"#Ff0000\"]\n");
    assert_int_equal(theme_load(path, &t, &e), WT_OK);
    check_rgb(t.colour[TC_GRAD0], 0, 255, 0);
    check_rgb(t.colour[TC_GRAD0 + 100], 255, 0, 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_theme_nearest(void **state)
{
    (void)state;
    /* 256 colours: the cube 16 + 36r + 6g + b over levels 0 95 135 175 215
     * 255, or the grey ramp 232 + k for 8 + 10k */
    assert_int_equal(theme_nearest((rgb){255, 0, 0}, 256), 196);
    assert_int_equal(theme_nearest((rgb){128, 128, 128}, 256), 244);
    assert_int_equal(theme_nearest((rgb){0, 0, 0}, 256), 16);
    assert_int_equal(theme_nearest((rgb){255, 255, 255}, 256), 231);
    assert_int_equal(theme_nearest((rgb){95, 175, 255}, 256), 75);
    assert_int_equal(theme_nearest((rgb){0x30, 0x30, 0x30}, 256), 236);
    assert_int_equal(theme_nearest((rgb){18, 18, 18}, 256), 233);
    assert_int_equal(theme_nearest((rgb){0xd7, 0, 0}, 256), 160);
    /* 16: xterm's basic colours, bright ones from 8 */
    assert_int_equal(theme_nearest((rgb){255, 0, 0}, 16), 9);
    assert_int_equal(theme_nearest((rgb){205, 0, 0}, 16), 1);
    assert_int_equal(theme_nearest((rgb){128, 128, 128}, 16), 8);
    assert_int_equal(theme_nearest((rgb){0, 0, 128}, 16), 4);
    assert_int_equal(theme_nearest((rgb){255, 255, 255}, 16), 15);
    /* 8: the first eight only */
    assert_int_equal(theme_nearest((rgb){255, 0, 0}, 8), 1);
    assert_int_equal(theme_nearest((rgb){0, 255, 0}, 8), 2);
    assert_int_equal(theme_nearest((rgb){0, 0, 255}, 8), 4);
    assert_int_equal(theme_nearest((rgb){0, 255, 255}, 8), 6);
    assert_int_equal(theme_nearest((rgb){255, 255, 255}, 8), 7);
    assert_int_equal(theme_nearest((rgb){10, 10, 10}, 8), 0);
}

/* ---- the mesh ---------------------------------------------------------- */

static view_state links_view(const sim_result *r, const double *util, const theme *th)
{
    view_state v;
    memset(&v, 0, sizeof v);
    v.r = r;
    v.link_util = util;
    v.link_peak = util;
    v.th = th;
    v.output_top = -1;
    v.compute_now = -1;
    return v;
}

/* A result on a wafer, the default theme, a link utilisation of 0 on every
 * link slot, a link view of the three and a canvas: what every mesh test
 * draws with. */
typedef struct fixture {
    wafer wf;
    sim_result r;
    theme th;
    double *util; /* wafer_nlinks(&wf) of them */
    int play[SIM_MAX_PHASES];
    size_t hot[VIEW_HOT_ROWS];
    view_state v;
    canvas c;
} fixture;

/* gpt3-6.7b text with placement pl on f->wf, which the caller has made, and
 * the rest with a w x h canvas. */
static void fixture_eval(fixture *f, const char *text, place_kind pl, int w, int h)
{
    eval(&f->r, &f->wf, "gpt3-6.7b", text, pl);
    theme_default(&f->th);
    f->util = calloc(wafer_nlinks(&f->wf), sizeof *f->util);
    assert_non_null(f->util);
    f->v = links_view(&f->r, f->util, &f->th);
    for (int i = 0; i < f->r.ntimeline; i++) /* the timeline's phases play, as the screen does */
        f->play[f->v.nplay++] = f->r.timeline[i].phase;
    f->v.play = f->play;
    f->v.hot = f->hot;
    f->v.window_s = SIM_WINDOW_S;
    new_canvas(&f->c, w, h);
}

/* The hot links panel ranks f's util as each link's busiest window. */
static void fixture_hot(fixture *f)
{
    f->v.nhot = view_hottest(&f->wf, f->util, NULL, 0, f->hot, VIEW_HOT_ROWS);
}

/* A 4x4 wafer and gpt3-6.7b TP16 on it: every unit busy. */
static void fixture_4x4(fixture *f, int w, int h)
{
    assert_int_equal(wafer_init(&f->wf, 4, 4, 1, 1, NULL), WT_OK);
    fixture_eval(f, "TP16", PLACE_TILES, w, h);
}

static void fixture_close(fixture *f)
{
    canvas_free(&f->c);
    view_blocks_free(&f->v.blocks);
    free(f->util);
    sim_free(&f->r);
    wafer_free(&f->wf);
}

/* What a grid cell of a zoom-1 link view must show, from the wafer and the
 * utilisation array alone: -1 gap, -2 unit, -3 dead, else the util. */
static double expected_detail(const wafer *wf, const double *util, int gx, int gy)
{
    int x = gx / 2, y = gy / 2;
    if (gx % 2 == 0 && gy % 2 == 0)
        return wf->unit_dead[wafer_unit(wf, x, y)] ? -3 : -2;
    if (gx % 2 && gy % 2)
        return -1;
    int a = gx % 2 ? WAFER_E : WAFER_S, b = gx % 2 ? WAFER_W : WAFER_N;
    int x2 = gx % 2 ? x + 1 : x, y2 = gx % 2 ? y : y + 1;
    if (!wafer_link_usable(wf, wafer_unit(wf, x, y), a))
        return -3;
    return fmax(util[slot(wf, x, y, a)], util[slot(wf, x2, y2, b)]);
}

static int expected_colour(double val)
{
    return val == -3 ? TC_DEAD : val == -2 ? TC_GRID : val == -1 ? TC_BACKGROUND : theme_grad(val);
}

/* Every cell of f's 4x4 mesh drawn at zoom 1, scale 1 in the 7x4 area at
 * (x0, y0), against the reference. */
static void check_detail_4x4(const fixture *f, int x0, int y0)
{
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 7; col++) {
            int up = expected_colour(expected_detail(&f->wf, f->util, col, 2 * row));
            int lower =
                2 * row + 1 < 7 ? expected_colour(expected_detail(&f->wf, f->util, col, 2 * row + 1)) : TC_BACKGROUND;
            check_cell(&f->c, x0 + col, y0 + row, HALF, up, lower);
        }
}

/* Zoom 1 on a 4x4 mesh in a 7x4 area: one pixel per grid cell. */
static void test_mesh_4x4_glyphs(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 12, 6);
    f.util[slot(&f.wf, 0, 0, WAFER_E)] = 0.5;  /* grid (1, 0) */
    f.util[slot(&f.wf, 1, 1, WAFER_S)] = 0.25; /* grid (2, 3) */
    f.util[slot(&f.wf, 2, 2, WAFER_W)] = 0.8;  /* grid (3, 4) */
    f.util[slot(&f.wf, 1, 2, WAFER_E)] = 0.1;  /* the same link the other way: the busier wins */
    f.v.zoom = 1;

    int dead;
    assert_true(view_cell_value(&f.v, 1, 0, &dead) == 0.5);
    assert_int_equal(dead, 0);
    assert_true(view_cell_value(&f.v, 0, 0, &dead) == -2);
    assert_int_equal(dead, 0);
    assert_true(view_cell_value(&f.v, 1, 1, &dead) < 0 && view_cell_value(&f.v, 1, 1, &dead) != -2);
    assert_true(view_cell_value(&f.v, 2, 3, &dead) == 0.25);
    assert_true(view_cell_value(&f.v, 3, 4, &dead) == 0.8);
    assert_true(view_cell_value(&f.v, 5, 6, &dead) == 0);
    assert_true(view_cell_value(&f.v, 6, 5, &dead) == 0);
    int gw, gh;
    view_grid_size(&f.wf, 1, &gw, &gh);
    assert_int_equal(gw, 7);
    assert_int_equal(gh, 7);
    assert_int_equal(view_fit_zoom(&f.wf, 7, 4, 0), 1);
    assert_int_equal(view_fit_zoom(&f.wf, 7, 3, 0), 2);

    view_rect a = {2, 1, 7, 4};
    view_draw_mesh(&f.c, &f.v, a);
    assert_int_equal(f.v.zoom, 1);
    assert_int_equal(f.v.scale, 1);
    /* row 0 shows grid rows 0 (units y=0) and 1 (links to y=1, gaps) */
    check_cell(&f.c, 2, 1, HALF, TC_GRID, TC_GRAD0);
    check_cell(&f.c, 3, 1, HALF, TC_GRAD0 + 50, TC_BACKGROUND);
    check_cell(&f.c, 4, 1, HALF, TC_GRID, TC_GRAD0);
    check_cell(&f.c, 5, 1, HALF, TC_GRAD0, TC_BACKGROUND);
    /* row 1: grid rows 2 and 3; the link (1,1)->(1,2) is under unit (1,1) */
    check_cell(&f.c, 4, 2, HALF, TC_GRID, TC_GRAD0 + 25);
    /* row 2: grid rows 4 and 5; (1,2)-(2,2) at 0.1 east and 0.8 west */
    check_cell(&f.c, 5, 3, HALF, TC_GRAD0 + 80, TC_BACKGROUND);
    /* row 3: grid row 6 and nothing below */
    check_cell(&f.c, 2, 4, HALF, TC_GRID, TC_BACKGROUND);
    check_cell(&f.c, 3, 4, HALF, TC_GRAD0, TC_BACKGROUND);
    /* every cell, against the reference */
    check_detail_4x4(&f, a.x, a.y);
    /* nothing outside the area */
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 12; x++)
            if (x < a.x || x >= a.x + a.w || y < a.y || y >= a.y + a.h)
                check_cell(&f.c, x, y, ' ', TC_TEXT, TC_BACKGROUND);

    /* mono: one grid row per cell, density glyphs */
    f.v.mono = 1;
    f.v.zoom = 0;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_rect am = {0, 0, 7, 7};
    view_draw_mesh(&f.c, &f.v, am);
    assert_int_equal(f.v.zoom, 1);
    check_cell(&f.c, 0, 0, '+', TC_TEXT, TC_BACKGROUND);
    check_cell(&f.c, 1, 0, 0x2592, TC_TEXT, TC_BACKGROUND); /* 0.5: ▒ */
    check_cell(&f.c, 1, 1, ' ', TC_TEXT, TC_BACKGROUND);    /* a gap */
    check_cell(&f.c, 0, 1, 0x00B7, TC_TEXT, TC_BACKGROUND); /* 0: · */
    check_cell(&f.c, 2, 3, 0x2591, TC_TEXT, TC_BACKGROUND); /* 0.25: ░ */
    check_cell(&f.c, 3, 4, 0x2593, TC_TEXT, TC_BACKGROUND); /* 0.8: ▓ */

    fixture_close(&f);
}

/* The same drawing on real traffic: sim_link_util of TP16 on the 4x4 mesh. */
static void test_mesh_real_traffic(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 7, 4);
    double max = 0;
    int loaded = 0;
    for (size_t l = 0; l < wafer_nlinks(&f.wf); l++) {
        f.util[l] = sim_link_util(&f.r, l);
        max = fmax(max, f.util[l]);
        loaded += f.util[l] > 0;
    }
    assert_true(loaded > 0 && loaded < 48);
    assert_true(fabs(max - f.r.max_link_util) <= 1e-12 * max); /* the same figure, in another order */
    assert_true(theme_grad(max) > TC_GRAD0); /* the busy links are not coloured as idle ones */
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    check_detail_4x4(&f, 0, 0);
    /* each cell is now as the reference says: count its colours */
    int hot = 0, idle = 0;
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 7; col++) {
            const canvas_cell *k = canvas_at(&f.c, col, row);
            hot += k->fg == theme_grad(max) || k->bg == theme_grad(max);
            idle += k->fg == TC_GRAD0 || k->bg == TC_GRAD0;
        }
    assert_true(hot > 0 && idle > 0);

    /* the compute view: units by their stage's busy share, no links */
    f.v.mode = VIEW_COMPUTE;
    int dead;
    double busy = f.r.stage_busy[0] / f.r.step_time_s;
    assert_true(busy > 0.5 && busy < 1);
    assert_true(view_cell_value(&f.v, 0, 0, &dead) == busy);
    assert_true(view_cell_value(&f.v, 6, 6, &dead) == busy);
    assert_true(view_cell_value(&f.v, 1, 0, &dead) == -1);
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    check_cell(&f.c, 0, 0, HALF, theme_grad(busy), TC_BACKGROUND);
    check_cell(&f.c, 1, 0, HALF, TC_BACKGROUND, TC_BACKGROUND);
    check_cell(&f.c, 2, 1, HALF, theme_grad(busy), TC_BACKGROUND);
    /* at the cursor of time: what the phase playing there computes */
    f.v.compute_now = 0.25;
    assert_true(view_cell_value(&f.v, 0, 0, &dead) == 0.25);
    assert_true(view_cell_value(&f.v, 6, 6, &dead) == 0.25);
    f.v.compute_now = -1;
    /* the memory view: the stage's memory over a unit's capacity */
    f.v.mode = VIEW_MEMORY;
    double fill = fmin(1, f.r.stage_mem[0] / wafer_unit_capacity(&f.wf));
    assert_true(fill > 0);
    assert_true(view_cell_value(&f.v, 2, 2, &dead) == fill);

    fixture_close(&f);
}

/* Scale 2: the pixels of one terminal cell are consecutive pixel rows,
 * upper in the foreground, lower in the background. */
static void test_half_block_pairing(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 11, 6);
    f.util[slot(&f.wf, 0, 0, WAFER_E)] = 0.1;
    f.util[slot(&f.wf, 1, 0, WAFER_S)] = 0.3;
    f.util[slot(&f.wf, 1, 1, WAFER_S)] = 0.6;
    f.util[slot(&f.wf, 3, 3, WAFER_N)] = 0.9;
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 11, 6});
    /* 4 units of 2 pixels and 3 links of 1: 11 x 11 pixels, 6 rows */
    assert_int_equal(f.v.zoom, 1);
    assert_int_equal(f.v.scale, 2);
    /* unit (1,0) is pixels 3-4 across, 0-1 down: both halves of row 0 */
    check_cell(&f.c, 3, 0, HALF, TC_GRID, TC_GRID);
    check_cell(&f.c, 2, 0, HALF, TC_GRAD0 + 10, TC_GRAD0 + 10);
    /* row 1 = pixel rows 2 (the link below unit (1,0)) and 3 (unit (1,1)) */
    check_cell(&f.c, 3, 1, HALF, TC_GRAD0 + 30, TC_GRID);
    check_cell(&f.c, 4, 1, HALF, TC_GRAD0 + 30, TC_GRID);
    check_cell(&f.c, 2, 1, HALF, TC_BACKGROUND, TC_GRAD0);
    /* row 2 = pixel rows 4 (unit (1,1)) and 5 (the link below it) */
    check_cell(&f.c, 3, 2, HALF, TC_GRID, TC_GRAD0 + 60);
    /* row 5 = pixel row 10 (units y=3) and nothing */
    check_cell(&f.c, 9, 5, HALF, TC_GRID, TC_BACKGROUND);
    /* the link (3,2)-(3,3): pixel row 8, the upper half of row 4 */
    check_cell(&f.c, 9, 4, HALF, TC_GRAD0 + 90, TC_GRID);
    /* everything: pixel p of an axis is grid 2 * (p / 3) + (p % 3 == 2) */
    for (int row = 0; row < 6; row++)
        for (int col = 0; col < 11; col++) {
            int gx = 2 * (col / 3) + (col % 3 == 2), p0 = 2 * row, p1 = 2 * row + 1;
            int up = expected_colour(expected_detail(&f.wf, f.util, gx, 2 * (p0 / 3) + (p0 % 3 == 2)));
            int lo = p1 < 11 ? expected_colour(expected_detail(&f.wf, f.util, gx, 2 * (p1 / 3) + (p1 % 3 == 2)))
                             : TC_BACKGROUND;
            check_cell(&f.c, col, row, HALF, up, lo);
        }
    /* the cursor at (1,1) covers its 2x2 pixels, columns 3-4 of rows 1-2:
     * its first cell shows a diamond on the colour the cell showed, the
     * rest is untouched */
    f.v.cx = f.v.cy = 1;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_rect a = {0, 0, 11, 6};
    view_draw_mesh(&f.c, &f.v, a);
    canvas before;
    new_canvas(&before, 11, 6);
    memcpy(before.cells, f.c.cells, sizeof *before.cells * 66);
    view_draw_cursor(&f.c, &f.v, a);
    for (int row = 0; row < 6; row++)
        for (int col = 0; col < 11; col++) {
            const canvas_cell *was = canvas_at(&before, col, row), *is = canvas_at(&f.c, col, row);
            if (row == 1 && col == 3) {
                assert_int_equal(is->ch, 0x25C6); /* ◆ */
                assert_int_equal(is->bg, was->fg);
            } else {
                check_cell(&f.c, col, row, was->ch, was->fg, was->bg);
            }
        }
    canvas_free(&before);
    fixture_close(&f);
}

/* The group overlay: a ring on each member's middle cell, a dot on the
 * pixel of each link, in the accent over the colour under it; at zoom 1 a
 * link has its own pixel between units, above it marks its unit's block. */
static void test_group_overlay(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 7, 4);
    f.v.zoom = 1;
    view_rect a = {0, 0, 7, 4};
    int units[1] = {wafer_unit(&f.wf, 1, 1)};
    int links[2] = {(int)slot(&f.wf, 1, 1, WAFER_W), (int)slot(&f.wf, 1, 1, WAFER_N)};
    f.util[slot(&f.wf, 0, 1, WAFER_E)] = 0.7; /* the link the W slot shares its pixel with */
    f.v.group_units = units;
    f.v.ngroup_units = 1;
    f.v.group_links = links;
    f.v.ngroup_links = 2;
    view_draw_mesh(&f.c, &f.v, a);
    canvas before;
    new_canvas(&before, 7, 4);
    memcpy(before.cells, f.c.cells, sizeof *before.cells * 28);
    view_draw_group(&f.c, &f.v, a);
    /* unit (1,1): pixel (2,2), the upper half of cell (2,1) */
    check_cell(&f.c, 2, 1, 0x25CB, TC_ACCENT, canvas_at(&before, 2, 1)->fg);
    /* W: the link pixel (1,2), upper half of (1,1), at 70 % */
    check_cell(&f.c, 1, 1, 0x2022, TC_ACCENT, TC_GRAD0 + 70);
    /* N: pixel (2,1), the lower half of cell (2,0) */
    check_cell(&f.c, 2, 0, 0x2022, TC_ACCENT, canvas_at(&before, 2, 0)->bg);
    int changed = 0;
    for (int i = 0; i < 28; i++)
        changed += memcmp(&before.cells[i], &f.c.cells[i], sizeof before.cells[i]) != 0;
    assert_int_equal(changed, 3);
    /* zoom 2: the block of unit (1,1) is pixel (0,0); its links mark it too */
    f.v.zoom = 2;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, a);
    view_draw_group(&f.c, &f.v, a);
    assert_int_equal(canvas_at(&f.c, 0, 0)->ch, 0x25CB);
    assert_int_equal(canvas_at(&f.c, 1, 0)->ch, 0x2580);
    canvas_free(&before);
    fixture_close(&f);
}

/* Luminance of a theme colour. */
static double luma(const theme *th, int c)
{
    return 0.2126 * th->colour[c].r + 0.7152 * th->colour[c].g + 0.0722 * th->colour[c].b;
}

/* The cursor stands out on every theme: on each gradient colour it sits on,
 * its diamond is at least a third of the luminance range away from the
 * colour under it; in mono it is reversed. */
static void test_cursor_visible(void **state)
{
    (void)state;
    static const char *const themes[] = {"themes/default.yaml", "themes/light.yaml", "themes/viridis.yaml",
                                         "themes/mono.yaml"};
    fixture f;
    fixture_4x4(&f, 7, 4);
    f.v.zoom = 1;
    view_rect a = {0, 0, 7, 4};
    for (size_t i = 0; i < sizeof themes / sizeof themes[0]; i++) {
        assert_int_equal(theme_load(themes[i], &f.th, NULL), WT_OK);
        f.v.mono = f.th.mono;
        for (int p = 0; p <= 100; p += 5) { /* the link east of the cursor's unit at p % */
            f.util[slot(&f.wf, 0, 0, WAFER_E)] = p / 100.0;
            f.v.cx = 1; /* a unit at zoom 1 is a neutral cell: put the cursor on the link's colour */
            canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
            view_draw_mesh(&f.c, &f.v, a);
            /* paint the cursor's cell the link's colour, as a hot unit of another view would be */
            canvas_put(&f.c, 2, 0, 0x2580u, theme_grad(p / 100.0), TC_BACKGROUND, 0);
            view_draw_cursor(&f.c, &f.v, a);
            const canvas_cell *k = canvas_at(&f.c, 2, 0);
            assert_int_equal(k->ch, 0x25C6);
            if (f.v.mono) {
                assert_true(k->attr & CA_REVERSE);
                continue;
            }
            double gap = fabs(luma(&f.th, k->fg) - luma(&f.th, k->bg));
            if (gap < 255.0 / 3)
                fail_msg("%s at %d%%: cursor luminance gap %.0f", themes[i], p, gap);
        }
    }
    fixture_close(&f);
}

/* Rulers: tick labels at 1-2-5 intervals that leave room, the cursor's
 * coordinates reversed on both; wafer edges across the mesh. */
static void test_rulers(void **state)
{
    (void)state;
    fixture f;
    wt_err e;
    /* 2 x 2 wafers of 8 x 8 */
    assert_int_equal(wafer_init(&f.wf, 8, 8, 2, 2, &e), WT_OK);
    fixture_eval(&f, "DP8,TATP2", PLACE_TILES, 40, 20);
    f.v.zoom = 1;
    view_rect mesh = {6, 2, 31, 16}, xaxis = {6, 1, 31, 1}, yaxis = {0, 2, 5, 16};
    view_draw_mesh(&f.c, &f.v, mesh);
    assert_int_equal(f.v.scale, 1); /* a unit every 2 columns and 2 pixels (1 row) */
    f.v.cx = 3;
    f.v.cy = 12;
    view_draw_rulers(&f.c, &f.v, xaxis, yaxis, mesh);
    char row[256];
    /* x: 2 columns a unit, labels of 2 digits need 4: every 2 units; the
     * cursor's 3 sits at column 6 + 6 */
    canvas_row(&f.c, 1, row, sizeof row);
    assert_string_equal(row, "      0   2 3 4   6   8   10  12  14    ");
    assert_int_equal(canvas_at(&f.c, 12, 1)->attr, CA_REVERSE | CA_BOLD);
    assert_int_equal(canvas_at(&f.c, 10, 1)->attr, 0);
    /* y: a unit a row, every 2 units; the cursor's 12 at row 2 + 12 */
    for (int y = 0; y < 16; y++) {
        char want[16] = "     ";
        if (y % 2 == 0 || y == 12)
            snprintf(want, sizeof want, "%4d ", y);
        canvas_row(&f.c, 2 + y, row, sizeof row);
        row[5] = '\0';
        if (strcmp(row, want))
            fail_msg("y ruler row %d: '%s', expected '%s'", y, row, want);
    }
    assert_int_equal(canvas_at(&f.c, 3, 14)->attr, CA_REVERSE | CA_BOLD);
    /* the wafer edges: the links between x 7 and 8 (column 6 + 15) and
     * between y 7 and 8 (pixel 15: the lower half of row 7) */
    for (int y = 0; y < 8; y++)
        assert_int_equal(canvas_at(&f.c, 21, 2 + y)->ch, y == 7 ? 0x253C : 0x2502);
    for (int x = 0; x < 31; x++) {
        const canvas_cell *k = canvas_at(&f.c, 6 + x, 9);
        assert_int_equal(k->ch, x == 15 ? 0x253C : 0x2500);
        assert_int_equal(k->fg, TC_ACCENT);
    }
    /* a link across the vertical edge keeps its colour under the line */
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    f.util[slot(&f.wf, 7, 0, WAFER_E)] = 0.6;
    view_draw_mesh(&f.c, &f.v, mesh);
    view_draw_rulers(&f.c, &f.v, xaxis, yaxis, mesh);
    check_cell(&f.c, 21, 2, 0x2502, TC_ACCENT, TC_GRAD0 + 60);
    fixture_close(&f);
}

/* Faults: a dead unit, a dead link and a dead 2x2 block are TC_DEAD. */
static void test_dead(void **state)
{
    (void)state;
    fixture f;
    wt_err e;
    assert_int_equal(wafer_init(&f.wf, 4, 4, 1, 1, NULL), WT_OK);
    assert_int_equal(wafer_fail_unit(&f.wf, 1, 1, &e), WT_OK);
    assert_int_equal(wafer_fail_link(&f.wf, 2, 0, WAFER_E, &e), WT_OK);
    for (int y = 2; y < 4; y++)
        for (int x = 2; x < 4; x++)
            assert_int_equal(wafer_fail_unit(&f.wf, x, y, &e), WT_OK);
    fixture_eval(&f, "DP2,TP4", PLACE_LINEAR, 7, 4);
    assert_int_equal(f.r.units_live, 11);
    f.util[slot(&f.wf, 2, 0, WAFER_E)] = 0.7; /* on the dead link: ignored */
    f.util[slot(&f.wf, 1, 0, WAFER_S)] = 1.0; /* into the dead unit: ignored */
    f.util[slot(&f.wf, 0, 0, WAFER_E)] = 0.2;
    f.util[slot(&f.wf, 1, 0, WAFER_E)] = 0.9;
    f.v.zoom = 1;

    int dead;
    assert_true(view_cell_value(&f.v, 2, 2, &dead) == 0 && dead);      /* unit (1,1) */
    assert_true(view_cell_value(&f.v, 1, 2, &dead) == 0 && dead);      /* (0,1)-(1,1) */
    assert_true(view_cell_value(&f.v, 2, 1, &dead) == 0 && dead);      /* (1,0)-(1,1) */
    assert_true(view_cell_value(&f.v, 5, 0, &dead) == 0 && dead);      /* (2,0)-(3,0) */
    assert_true(view_cell_value(&f.v, 4, 0, &dead) == -2 && !dead);    /* unit (2,0) */
    assert_true(view_cell_value(&f.v, 3, 0, &dead) == 0.9 && !dead);   /* (1,0)-(2,0) */
    assert_true(view_cell_value(&f.v, 4, 3, &dead) == 0 && dead);      /* (2,1)-(2,2) */
    assert_true(view_cell_value(&f.v, 6, 1, &dead) == 0 && !dead);     /* (3,0)-(3,1) */

    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    check_cell(&f.c, 2, 1, HALF, TC_DEAD, TC_DEAD);        /* unit (1,1) over its link south */
    check_cell(&f.c, 5, 0, HALF, TC_DEAD, TC_BACKGROUND);  /* the dead link over a gap */
    check_cell(&f.c, 4, 2, HALF, TC_DEAD, TC_DEAD);        /* unit (2,2) over its link south */
    check_cell(&f.c, 3, 0, HALF, TC_GRAD0 + 90, TC_BACKGROUND);
    check_detail_4x4(&f, 0, 0);

    /* mono marks them 'x' in the dead colour */
    f.v.mono = 1;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    check_cell(&f.c, 2, 2, 'x', TC_DEAD, TC_BACKGROUND);
    check_cell(&f.c, 5, 0, 'x', TC_DEAD, TC_BACKGROUND);
    f.v.mono = 0;

    /* blocks of 2x2: (1,1) has no live unit; (0,0) has three, whose six
     * usable links (not those off the mesh or into (1,1)) hold 0.2 and 0.9 */
    f.v.zoom = 2;
    assert_true(view_cell_value(&f.v, 1, 1, &dead) == 0 && dead);
    assert_true(view_cell_value(&f.v, 0, 0, &dead) == 0.9 && !dead);
    f.v.mean = 1;
    assert_true(fabs(view_cell_value(&f.v, 0, 0, &dead) - 1.1 / 6) < 1e-12 && !dead);
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    check_cell(&f.c, 0, 0, HALF, TC_GRAD0 + 18, TC_GRAD0);
    check_cell(&f.c, 1, 0, HALF, TC_GRAD0, TC_DEAD);
    check_cell(&f.c, 2, 0, ' ', TC_TEXT, TC_BACKGROUND);
    f.v.mean = 0;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    check_cell(&f.c, 0, 0, HALF, TC_GRAD0 + 90, TC_GRAD0);

    /* the legend names the dead mark */
    canvas big;
    new_canvas(&big, 80, 1);
    view_draw_legend(&big, &f.v, (view_rect){0, 0, 80, 1});
    assert_true(canvas_find(&big, "\xe2\x9c\x95" "dead"));
    canvas_free(&big);
    fixture_close(&f);
}

/* A 64x64 mesh in 20x10 cells: blocks of 4x4 units, max or mean. */
static void test_aggregation(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(wafer_init(&f.wf, 64, 64, 1, 1, NULL), WT_OK);
    fixture_eval(&f, "DP128,TP32", PLACE_TILES, 22, 12);
    size_t nl = wafer_nlinks(&f.wf);
    for (size_t l = 0; l < nl; l++)
        f.util[l] = sim_link_inv_bw(&f.wf, l) > 0 ? 0.1 : 0;
    f.util[slot(&f.wf, 13, 6, WAFER_E)] = 0.97; /* in block (3, 1) */

    /* 127 grid cells do not fit 20 columns: 64 / 20 rounds up to 4 */
    assert_int_equal(view_fit_zoom(&f.wf, 20, 10, 0), 4);
    assert_int_equal(view_fit_zoom(&f.wf, 20, 10, 1), 7);
    assert_int_equal(view_fit_zoom(&f.wf, 200, 100, 0), 1);
    int gw, gh;
    view_grid_size(&f.wf, 4, &gw, &gh);
    assert_int_equal(gw, 16);
    assert_int_equal(gh, 16);
    view_grid_size(&f.wf, 7, &gw, &gh);
    assert_int_equal(gw, 10);

    view_rect a = {1, 1, 20, 10};
    view_draw_mesh(&f.c, &f.v, a);
    assert_int_equal(f.v.zoom, 4);
    assert_int_equal(f.v.scale, 1);
    /* 16 x 16 blocks: 16 columns, 8 rows of two blocks each */
    for (int row = 0; row < 10; row++)
        for (int col = 0; col < 20; col++) {
            if (row >= 8 || col >= 16) {
                check_cell(&f.c, a.x + col, a.y + row, ' ', TC_TEXT, TC_BACKGROUND);
                continue;
            }
            int up = col == 3 && 2 * row == 1 ? TC_GRAD0 + 97 : TC_GRAD0 + 10;
            int lo = col == 3 && 2 * row + 1 == 1 ? TC_GRAD0 + 97 : TC_GRAD0 + 10;
            check_cell(&f.c, a.x + col, a.y + row, HALF, up, lo);
        }
    int dead;
    assert_true(view_cell_value(&f.v, 3, 1, &dead) == 0.97 && !dead);
    assert_true(view_cell_value(&f.v, 3, 0, &dead) == 0.1);

    /* the mean: block (3,1) is inside the mesh, so its 16 units have 64
     * usable links, 63 at 0.1 and one at 0.97 */
    f.v.mean = 1;
    assert_true(fabs(view_cell_value(&f.v, 3, 1, &dead) - (63 * 0.1 + 0.97) / 64) < 1e-12);
    /* the corner block (0,0) has 64 - 8 links leaving the mesh edge */
    assert_true(fabs(view_cell_value(&f.v, 0, 0, &dead) - 0.1) < 1e-12);
    f.util[slot(&f.wf, 0, 0, WAFER_W)] = 1.0; /* leaves the mesh: never counted */
    f.util[slot(&f.wf, 0, 0, WAFER_E)] = 0.66;
    assert_true(fabs(view_cell_value(&f.v, 0, 0, &dead) - (55 * 0.1 + 0.66) / 56) < 1e-12);
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, a);
    check_cell(&f.c, a.x + 3, a.y, HALF, TC_GRAD0 + 10, TC_GRAD0 + 11); /* 0.1136 */
    check_cell(&f.c, a.x, a.y, HALF, TC_GRAD0 + 11, TC_GRAD0 + 10);     /* 0.1100 */
    check_cell(&f.c, a.x + 4, a.y, HALF, TC_GRAD0 + 10, TC_GRAD0 + 10);
    f.v.mean = 0;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, a);
    check_cell(&f.c, a.x, a.y, HALF, TC_GRAD0 + 66, TC_GRAD0 + 10);

    /* the legend says what a block shows */
    canvas leg;
    new_canvas(&leg, 90, 1);
    view_draw_legend(&leg, &f.v, (view_rect){0, 0, 90, 1});
    assert_true(canvas_find(&leg, "pixel = 4x4 units (max)"));
    f.v.mean = 1;
    view_draw_legend(&leg, &f.v, (view_rect){0, 0, 90, 1});
    assert_true(canvas_find(&leg, "pixel = 4x4 units (mean)"));

    /* a click lands on the first unit of the block in the upper half */
    int ux, uy;
    assert_true(view_unit_at(&f.v, a, a.x + 3, a.y + 2, &ux, &uy));
    assert_int_equal(ux, 12);
    assert_int_equal(uy, 16);
    assert_true(view_unit_at(&f.v, a, a.x + 15, a.y + 7, &ux, &uy));
    assert_int_equal(ux, 60);
    assert_int_equal(uy, 56);
    assert_false(view_unit_at(&f.v, a, a.x + 16, a.y, &ux, &uy));
    assert_false(view_unit_at(&f.v, a, a.x, a.y + 8, &ux, &uy));

    canvas_free(&leg);
    fixture_close(&f);
}

/* ---- the legend -------------------------------------------------------- */

static void test_legend(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 100, 2);
    f.v.zoom = 1;
    f.v.scale = 3;
    char row[512];

    /* 79 columns: "link util 0% " (13), a bar of 79 - 13 - 33 = 33, " 100%  ",
     * the dead mark, "dead", what a unit is ("unit = 3x3 pixels") */
    view_draw_legend(&f.c, &f.v, (view_rect){0, 0, 79, 1});
    canvas_row(&f.c, 0, row, sizeof row);
    assert_memory_equal(row, "link util 0% ", 13);
    assert_memory_equal(row + 13 + 33, " 100%  \xe2\x9c\x95" "dead  unit = 3x3 pixels ", 34);
    for (int i = 0; i < 33; i++)
        check_cell(&f.c, 13 + i, 0, ' ', TC_TEXT, theme_grad(i / 32.0));
    check_cell(&f.c, 13, 0, ' ', TC_TEXT, TC_GRAD0);
    check_cell(&f.c, 13 + 32, 0, ' ', TC_TEXT, TC_GRAD0 + 100);
    for (int i = 1; i < 33; i++)
        assert_true(canvas_at(&f.c, 13 + i, 0)->bg > canvas_at(&f.c, 12 + i, 0)->bg);
    check_cell(&f.c, 13 + 33 + 7, 0, 0x2715, TC_DEAD, TC_BACKGROUND);
    assert_false(canvas_find(&f.c, "max"));
    /* at most 40 cells of bar */
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 1, 100, 1});
    assert_int_equal(canvas_at(&f.c, 13 + 39, 1)->bg, TC_GRAD0 + 100);
    assert_int_equal(canvas_at(&f.c, 13 + 20, 1)->bg, theme_grad(20 / 39.0));
    check_cell(&f.c, 13 + 40, 1, ' ', TC_TEXT, TC_BACKGROUND);
    check_cell(&f.c, 13 + 41, 1, '1', TC_TEXT, TC_BACKGROUND);

    /* mono: density glyphs from · to █ on the background */
    f.v.mono = 1;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 0, 79, 1});
    check_cell(&f.c, 13, 0, 0x00B7, TC_TEXT, TC_BACKGROUND);
    check_cell(&f.c, 13 + 3, 0, 0x00B7, TC_TEXT, TC_BACKGROUND);  /* 0.094 */
    check_cell(&f.c, 13 + 4, 0, 0x2591, TC_TEXT, TC_BACKGROUND);  /* 0.125 */
    check_cell(&f.c, 13 + 16, 0, 0x2592, TC_TEXT, TC_BACKGROUND); /* 0.5 */
    check_cell(&f.c, 13 + 27, 0, 0x2593, TC_TEXT, TC_BACKGROUND); /* 0.844 */
    check_cell(&f.c, 13 + 28, 0, 0x2588, TC_TEXT, TC_BACKGROUND); /* 0.875 */
    check_cell(&f.c, 13 + 32, 0, 0x2588, TC_TEXT, TC_BACKGROUND);
    check_cell(&f.c, 13 + 33 + 7, 0, 'x', TC_DEAD, TC_BACKGROUND);
    canvas_row(&f.c, 0, row, sizeof row);
    assert_memory_equal(row, "link util 0% \xc2\xb7", 15);
    assert_non_null(strstr(row, "\xe2\x96\x88 100%  xdead"));

    /* the narrowest screen's legend (58 columns) keeps every part: a
     * shorter bar, what a pixel is in full */
    f.v.mono = 0;
    f.v.zoom = 16;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 0, 58, 1});
    canvas_row(&f.c, 0, row, sizeof row);
    assert_non_null(strstr(row, " 100%  \xe2\x9c\x95" "dead  pixel = 16x16 units (max)"));
    assert_int_equal(canvas_at(&f.c, 13, 0)->bg, TC_GRAD0);
    f.v.zoom = 1;

    /* the other views name themselves */
    f.v.mono = 0;
    f.v.mode = VIEW_COMPUTE;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 0, 70, 1});
    assert_memory_equal(canvas_row(&f.c, 0, row, sizeof row), "compute util 0% ", 16);
    f.v.mode = VIEW_MEMORY;
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 0, 70, 1});
    assert_memory_equal(canvas_row(&f.c, 0, row, sizeof row), "memory fill 0% ", 15);
    assert_true(canvas_find(&f.c, " 100%"));

    fixture_close(&f);
}

/* ---- the whole frame --------------------------------------------------- */

static int row_has(const canvas *c, int y, const char *text)
{
    char row[4096];
    return strstr(canvas_row(c, y, row, sizeof row), text) != NULL;
}

/* The auto colour scale: the links' colours run to the highest value the
 * mesh shows, which the legend names; fixed, 0-100 %; the unit views are
 * always 0-100 %. */
static void test_auto_scale(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 80, 5);
    f.util[slot(&f.wf, 0, 0, WAFER_E)] = 0.2; /* grid (1, 0) */
    f.util[slot(&f.wf, 0, 0, WAFER_S)] = 0.1; /* grid (0, 1) */
    f.util[slot(&f.wf, 1, 0, WAFER_E)] = 0.05; /* grid (3, 0) */
    f.util[slot(&f.wf, 3, 3, WAFER_N)] = 0.4; /* grid (6, 5): off a 3x2 area */
    f.v.zoom = 1;
    f.v.util_auto = 1;
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    assert_true(f.v.util_max == 0.4);
    check_cell(&f.c, 1, 0, HALF, theme_grad(0.5), TC_BACKGROUND);
    check_cell(&f.c, 6, 2, HALF, TC_GRID, TC_GRAD0 + 100); /* the busiest: the top of the scale */
    view_draw_legend(&f.c, &f.v, (view_rect){0, 4, 80, 1});
    char row[512];
    canvas_row(&f.c, 4, row, sizeof row);
    assert_memory_equal(row, "link util 0% ", 13);
    assert_non_null(strstr(row, " 40.0% max  \xe2\x9c\x95" "dead"));
    /* 80 columns: a bar of 80 - 13 - 9 ("40.0% max") - 17 ("unit = 1x1
     * pixels") - 12 = 29 cells, the top at its end */
    check_cell(&f.c, 13 + 28, 4, ' ', TC_TEXT, TC_GRAD0 + 100);
    check_cell(&f.c, 13 + 29, 4, ' ', TC_TEXT, TC_BACKGROUND);
    /* a 3x2 area shows grid columns 0-2, rows 0-3: 0.2 is the highest shown */
    canvas_clear(&f.c, TC_TEXT, TC_BACKGROUND);
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 3, 2});
    assert_true(f.v.util_max == 0.2);
    check_cell(&f.c, 1, 0, HALF, TC_GRAD0 + 100, TC_BACKGROUND);
    check_cell(&f.c, 0, 0, HALF, TC_GRID, TC_GRAD0 + 50);
    /* fixed: the values as they are */
    f.v.util_auto = 0;
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    assert_true(f.v.util_max == 1);
    check_cell(&f.c, 1, 0, HALF, TC_GRAD0 + 20, TC_BACKGROUND);
    check_detail_4x4(&f, 0, 0);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 4, 80, 1});
    assert_true(row_has(&f.c, 4, " 100%  "));
    /* nothing moves: the scale is 0 .. 0 and every link the bottom colour */
    memset(f.util, 0, wafer_nlinks(&f.wf) * sizeof *f.util);
    f.v.util_auto = 1;
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    assert_true(f.v.util_max == 0);
    check_cell(&f.c, 1, 0, HALF, TC_GRAD0, TC_BACKGROUND);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 4, 80, 1});
    assert_true(row_has(&f.c, 4, " 0.0% max  "));
    /* the unit views keep 0-100 % */
    f.v.mode = VIEW_COMPUTE;
    view_draw_mesh(&f.c, &f.v, (view_rect){0, 0, 7, 4});
    assert_true(f.v.util_max == 1);
    view_draw_legend(&f.c, &f.v, (view_rect){0, 4, 80, 1});
    assert_true(row_has(&f.c, 4, "compute util 0% "));
    assert_true(row_has(&f.c, 4, " 100%  "));
    fixture_close(&f);
}

/* The panel's line of what the scenario changes since it was opened (none:
 * no line), wrapped at spaces over at most three rows; the banner of a step
 * that cannot run, at the foot of the mesh, its two lines wrapped. */
static void test_view_changes(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 120, 40);
    fixture_hot(&f);
    view_draw(&f.c, &f.v);
    assert_false(canvas_find(&f.c, "changed"));
    assert_true(row_has(&f.c, 9, " hottest links "));
    f.v.changes = "micro-batch 2; delay fwd.attn.qkv 2 waves";
    f.v.nchanges = 2;
    view_draw(&f.c, &f.v);
    /* the panel's rows are 42 columns from x 77 */
    assert_true(row_has(&f.c, 9, " changed 2: micro-batch 2; delay  "));
    assert_true(row_has(&f.c, 10, " fwd.attn.qkv 2 waves  "));
    check_cell(&f.c, 77, 9, 'c', TC_HOT, TC_BACKGROUND);
    check_cell(&f.c, 77, 10, 'f', TC_HOT, TC_BACKGROUND);
    assert_true(row_has(&f.c, 11, " hottest links "));
    /* cut after three rows */
    f.v.changes = "delay fwd.attn.qkv 2 waves; delay fwd.attn.proj 2 waves; delay fwd.mlp.in 2 waves; "
                  "delay fwd.mlp.out 2 waves; fault 1,1; fault 2,2";
    f.v.nchanges = 6;
    view_draw(&f.c, &f.v);
    assert_true(row_has(&f.c, 11, " fwd.mlp.in 2 waves; delay fwd.mlp.out 2..."));
    assert_true(row_has(&f.c, 12, " hottest links "));

    f.v.banner = "not running: strategy TP16 needs 16 units but the layout has 15 live units\nfits: TP8";
    view_draw(&f.c, &f.v);
    /* the mesh area is 70x28 at (6,2): 68 columns of text from x 7 */
    assert_true(row_has(&f.c, 27, " not running: strategy TP16 needs 16 units but the layout has 15 live  "));
    assert_true(row_has(&f.c, 28, " units  "));
    assert_true(row_has(&f.c, 29, " fits: TP8  "));
    check_cell(&f.c, 7, 27, 'n', TC_BACKGROUND, TC_HOT);
    check_cell(&f.c, 7, 28, 'u', TC_BACKGROUND, TC_HOT);
    check_cell(&f.c, 7, 29, 'f', TC_BACKGROUND, TC_HOT);
    check_cell(&f.c, 75, 29, ' ', TC_BACKGROUND, TC_HOT);
    assert_true(row_has(&f.c, 26, "\xe2\x96\x80")); /* the mesh above it */
    fixture_close(&f);
}

/* The panel's sections at (x, y): heading rows, and hot-link rows that read
 * "x,y D p%" from first to last. */
static void check_panel(const canvas *c, int x, int figures, int hot, int timeline, int sparkline, int first, int last)
{
    assert_true(row_has(c, figures, " figures "));
    assert_true(row_has(c, hot, " hottest links (peak 100 us) "));
    if (timeline >= 0)
        assert_true(row_has(c, timeline, " step timeline "));
    else
        assert_false(canvas_find(c, " step timeline "));
    if (sparkline >= 0)
        assert_true(row_has(c, sparkline, " step time "));
    else
        assert_false(canvas_find(c, " step time "));
    for (int y = first; y <= last; y++) {
        char row[4096], dir;
        int ux, uy;
        double p;
        const canvas_cell *k = canvas_at(c, x, y);
        assert_non_null(k);
        canvas_row(c, y, row, sizeof row);
        /* the panel starts at column x; every cell before it is one byte or a mesh glyph */
        const char *s = row;
        for (int i = 0; i < x; i++)
            s += (unsigned char)*s < 0x80 ? 1 : (unsigned char)*s < 0xE0 ? 2 : 3;
        if (sscanf(s, "%d,%d %c %lf%%", &ux, &uy, &dir, &p) != 4)
            fail_msg("row %d is not a hot link: \"%s\"", y, s);
    }
}

static void test_view_draw(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 120, 40);
    for (size_t l = 0; l < wafer_nlinks(&f.wf); l++)
        f.util[l] = sim_link_util(&f.r, l);
    fixture_hot(&f);
    f.v.history[0] = 1;
    f.v.history[1] = 2;
    f.v.nhistory = 2;
    view_draw(&f.c, &f.v);
    assert_true(canvas_find(&f.c, "wafertop  unnamed 4x4  gpt3-6.7b  TP16  step 0  running"));
    assert_true(canvas_find(&f.c, " figures "));
    assert_true(canvas_find(&f.c, " hottest links "));
    assert_true(canvas_find(&f.c, "link util 0% "));
    assert_true(canvas_find(&f.c, " 100%  "));
    assert_true(canvas_find(&f.c, "space pause"));
    assert_false(canvas_find(&f.c, "terminal too small"));
    /* the panel (x 77, rows 1-29): figures, 4 hot links, timeline, step time */
    check_panel(&f.c, 77, 1, 9, 14, 27, 10, 13);
    check_cell(&f.c, 77, 28, 0x2581, TC_ACCENT, TC_BACKGROUND); /* the step times 1 s and 2 s */
    check_cell(&f.c, 78, 28, 0x2588, TC_ACCENT, TC_BACKGROUND);
    assert_true(row_has(&f.c, 29, "min 1 s  max 2 s"));
    /* the title bar is reversed: background text on the accent */
    check_cell(&f.c, 1, 0, 'w', TC_BACKGROUND, TC_ACCENT);
    /* the legend, across the whole width below mesh and panel */
    assert_true(row_has(&f.c, 30, "link util 0% "));
    assert_true(row_has(&f.c, 30, "unit = 13x13 pixels"));

    /* the mesh area of 120x40 is 70x28 at (6,2), right of the y ruler's
     * gutter and below the x ruler; 4 units of 13 pixels */
    view_layout l;
    view_layout_for(120, 40, 0, &l);
    assert_false(l.too_small);
    assert_int_equal(l.mesh.x, 6);
    assert_int_equal(l.mesh.y, 2);
    assert_int_equal(l.mesh.w, 70);
    assert_int_equal(l.mesh.h, 28);
    assert_int_equal(f.v.zoom, 1);
    assert_int_equal(f.v.scale, 13);
    /* the rulers: a unit every 14 columns and 7 rows */
    char line[1024];
    canvas_row(&f.c, 1, line, sizeof line);
    assert_memory_equal(line, "      0             1             2             3  ", 50);
    for (int y = 0; y < 4; y++) {
        char label[16];
        snprintf(label, sizeof label, "%4d ", y);
        canvas_row(&f.c, 2 + 7 * y, line, sizeof line);
        assert_memory_equal(line, label, 5);
    }
    /* unit (x,y) starts at pixel 14x, 14y: column 6 + 14x, row 2 + 7y */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            int sx = l.mesh.x + 14 * x, sy = l.mesh.y + 7 * y, ux = -1, uy = -1;
            const canvas_cell *k = canvas_at(&f.c, sx, sy);
            assert_int_equal(k->ch, HALF);
            assert_int_equal(k->fg, TC_GRID);
            assert_true(view_unit_at(&f.v, l.mesh, sx, sy, &ux, &uy));
            assert_int_equal(ux, x);
            assert_int_equal(uy, y);
            assert_true(view_unit_at(&f.v, l.mesh, sx + 12, sy + 6, &ux, &uy));
            assert_int_equal(ux, x);
            assert_int_equal(uy, y);
        }
    /* the cursor (0,0): a diamond in its unit's middle cell, pixel 6 of 13 */
    assert_int_equal(canvas_at(&f.c, l.mesh.x + 6, l.mesh.y + 3)->ch, 0x25C6);
    /* nothing is drawn right of pixel 54, and nothing is there to click */
    int ux, uy;
    check_cell(&f.c, l.mesh.x + 54, l.mesh.y, HALF, TC_GRID, TC_GRID);
    check_cell(&f.c, l.mesh.x + 55, l.mesh.y, ' ', TC_TEXT, TC_BACKGROUND);
    assert_false(view_unit_at(&f.v, l.mesh, l.mesh.x + 55, l.mesh.y, &ux, &uy));
    assert_false(view_unit_at(&f.v, l.mesh, l.mesh.x + 60, l.mesh.y, &ux, &uy));
    assert_false(view_unit_at(&f.v, l.mesh, l.mesh.x - 1, l.mesh.y, &ux, &uy));
    assert_false(view_unit_at(&f.v, l.mesh, l.mesh.x, l.mesh.y + 28, &ux, &uy));

    /* the help overlay */
    f.v.help = 1;
    view_draw(&f.c, &f.v);
    assert_true(canvas_find(&f.c, " help (up/down scroll, any other key closes) "));
    assert_true(canvas_find(&f.c, view_help_lines[1]));
    f.v.help = 0;

    /* the command line with its cursor */
    f.v.cmdline = "strat";
    f.v.cmdprompt = ':';
    f.v.cmdcursor = 2;
    view_draw(&f.c, &f.v);
    char row[1024];
    assert_memory_equal(canvas_row(&f.c, 39, row, sizeof row), ":strat ", 7);
    assert_int_equal(canvas_at(&f.c, 3, 39)->attr, CA_REVERSE);
    assert_int_equal(canvas_at(&f.c, 2, 39)->attr, 0);
    f.v.cmdline = NULL;

    /* too small below 60x20 */
    assert_int_equal(canvas_resize(&f.c, 50, 15), 0);
    view_draw(&f.c, &f.v);
    assert_string_equal(canvas_row(&f.c, 7, row, sizeof row), "terminal too small: 50x15, wafertop needs 60x20   ");
    assert_false(canvas_find(&f.c, "figures"));
    /* narrower than the message: two lines, the minimum in full */
    assert_int_equal(canvas_resize(&f.c, 30, 10), 0);
    view_draw(&f.c, &f.v);
    assert_string_equal(canvas_row(&f.c, 4, row, sizeof row), "terminal too small: 30x10,    ");
    assert_string_equal(canvas_row(&f.c, 5, row, sizeof row), "wafertop needs 60x20          ");
    assert_int_equal(canvas_resize(&f.c, 59, 20), 0);
    view_draw(&f.c, &f.v);
    assert_true(canvas_find(&f.c, "terminal too small: 59x20"));
    assert_int_equal(canvas_resize(&f.c, 60, 19), 0);
    view_draw(&f.c, &f.v);
    assert_true(canvas_find(&f.c, "terminal too small: 60x19"));
    assert_int_equal(canvas_resize(&f.c, 60, 20), 0);
    view_draw(&f.c, &f.v);
    assert_false(canvas_find(&f.c, "terminal too small"));
    /* the smallest panel (x 26, rows 1-13) has room for the hot links only:
     * the sections must not be drawn over each other */
    check_panel(&f.c, 26, 1, 9, -1, -1, 10, 13);
    assert_true(row_has(&f.c, 15, "\xe2\x94\x80 output \xe2\x94\x80"));
    /* 60x24 (rows 1-17): one hot link, the cursor of time, one phase, the step time */
    assert_int_equal(canvas_resize(&f.c, 60, 24), 0);
    view_draw(&f.c, &f.v);
    check_panel(&f.c, 26, 1, 9, 11, 15, 10, 10);
    char cursor[64];
    snprintf(cursor, sizeof cursor, "\xe2\x96\xa0 0.000000 of %.6f s", f.r.step_time_s);
    assert_true(row_has(&f.c, 12, cursor));
    assert_true(row_has(&f.c, 14, "fwd."));
    check_cell(&f.c, 26, 16, 0x2581, TC_ACCENT, TC_BACKGROUND);
    assert_true(row_has(&f.c, 17, "min 1 s  max 2 s"));
    assert_true(row_has(&f.c, 19, "\xe2\x94\x80 output \xe2\x94\x80"));

    /* no result: the frame and the bare title */
    f.v.r = NULL;
    assert_int_equal(canvas_resize(&f.c, 120, 40), 0);
    view_draw(&f.c, &f.v);
    assert_true(canvas_find(&f.c, " wafertop "));
    assert_false(canvas_find(&f.c, "figures"));
    assert_false(view_unit_at(&f.v, l.mesh, l.mesh.x, l.mesh.y, &ux, &uy));

    fixture_close(&f);
}

/* From 160 columns the mesh takes the whole height and the output pane
 * sits under the panel; a tall pane brings back the bottom layout. */
static void test_wide_layout(void **state)
{
    (void)state;
    view_layout l, narrow;
    view_layout_for(200, 60, 0, &l);
    view_layout_for(159, 60, 0, &narrow);
    assert_int_equal(l.panel.x, 200 - 48);
    assert_int_equal(l.output.x, l.panel.x);
    assert_int_equal(l.output.w, 48);
    assert_int_equal(l.output.y + l.output.h, 59); /* then the status line */
    assert_int_equal(l.panel.y + l.panel.h, l.output.y);
    assert_int_equal(l.mesh.y, 2);
    assert_int_equal(l.mesh.h, 56);                /* title, x ruler, legend, status */
    assert_int_equal(l.legend.y, 58);
    assert_int_equal(l.legend.w, 200 - 48 - 2);
    assert_true(l.mesh.h > narrow.mesh.h);
    assert_int_equal(narrow.output.x, 0);
    assert_int_equal(narrow.output.w, 159);
    view_layout_for(200, 60, 1, &l); /* tall: half the screen, full width */
    assert_int_equal(l.output.x, 0);
    assert_int_equal(l.output.h, 29);
    /* a 16x16 mesh on 200x60: units of 6 pixels (16 x 6 + 15 links = 111
     * of 112 pixel rows), against 4 when the pane took the bottom rows */
    fixture f;
    assert_int_equal(wafer_init(&f.wf, 16, 16, 1, 1, NULL), WT_OK);
    fixture_eval(&f, "DP8,TATP16", PLACE_TILES, 200, 60);
    view_draw(&f.c, &f.v);
    assert_int_equal(f.v.scale, 6);
    fixture_close(&f);
}

/* The output pane: long lines wrap at its width (UTF-8 a code point a
 * column); following the end shows the last lines whose rows fit; scrolled
 * back, lines from output_top; `o` makes it half the screen. */
static void test_output_pane(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 60, 20);
    /* 60x20: the pane is rows 15-18, a heading and 3 rows of 58 columns */
    view_layout l;
    view_layout_for(60, 20, 0, &l);
    assert_int_equal(l.output.y, 15);
    assert_int_equal(l.output.h, 4);
    char long_line[200];
    for (int i = 0; i < 100; i++) /* 100 columns: "é" then digits */
        snprintf(long_line + (i ? i + 1 : 0), sizeof long_line - (size_t)(i ? i + 1 : 0), i ? "%d" : "\xc3\xa9",
                 i % 10);
    const char *lines[] = {"first", "second", long_line};
    f.v.noutput = 3;
    for (int i = 0; i < 3; i++)
        f.v.output[i] = lines[i];
    f.v.output_top = -1;
    view_draw(&f.c, &f.v);
    char row[512];
    /* the end: the long line takes 2 rows, so "second" and its 2 rows */
    assert_true(row_has(&f.c, 16, " second"));
    canvas_row(&f.c, 17, row, sizeof row);
    assert_memory_equal(row, " \xc3\xa9" "123456789", 12);
    canvas_row(&f.c, 18, row, sizeof row);
    assert_memory_equal(row, " 89012", 6); /* column 59 of the line: '8' of i = 58 */
    assert_false(canvas_find(&f.c, "first"));
    /* scrolled to the top: "first", "second", then the long line's start */
    f.v.output_top = 0;
    view_draw(&f.c, &f.v);
    assert_true(row_has(&f.c, 16, " first"));
    assert_true(row_has(&f.c, 17, " second"));
    canvas_row(&f.c, 18, row, sizeof row);
    assert_memory_equal(row, " \xc3\xa9" "123", 6);
    /* tall: half of 20 rows, from row 10 */
    f.v.output_tall = 1;
    f.v.output_top = -1;
    view_layout_for(60, 20, 1, &l);
    assert_int_equal(l.output.y, 10);
    assert_int_equal(l.output.h, 9);
    view_draw(&f.c, &f.v);
    assert_true(row_has(&f.c, 11, " first"));
    assert_true(row_has(&f.c, 12, " second"));
    f.v.noutput = 0;
    fixture_close(&f);
}

/* The timeline panel: the cursor of time (where, of what step, how fast,
 * what runs there); a slot's phase weighs slots times its slice, the
 * optimizer once, and a DP all-reduce the backward hides is listed as
 * hidden with its busiest link; the phases running at the cursor are
 * reversed. Only the closed form hides one whole (the fluid model's last
 * bucket always follows the backward). */
static void test_timeline_panel(void **state)
{
    (void)state;
    fixture f;
    assert_int_equal(wafer_init(&f.wf, 16, 16, 1, 1, NULL), WT_OK);
    eval_net = net_model_find("bottleneck");
    fixture_eval(&f, "DP8,TP32", PLACE_LINEAR, 120, 40);
    eval_net = NULL;
    assert_true(f.r.dp_exposed_s == 0); /* the backward hides the whole all-reduce */
    int dp = -1;
    for (int p = 0; p < f.r.nphases; p++)
        if (f.r.phases[p].role == SIM_DP)
            dp = p;
    assert_true(dp >= 0);
    for (int i = 0; i < f.r.ntimeline; i++)
        assert_int_not_equal(f.r.timeline[i].phase, dp);
    f.play[f.v.nplay++] = dp;
    /* the cursor 1 us into the hidden all-reduce, playing 2 ms a second */
    double from = sim_start_near(&f.r, f.r.step_time_s - f.r.optimizer_s, -1);
    int running[4];
    assert_true(from > 0);
    f.v.t = from + 1e-6;
    f.v.nrunning = sim_running_at(&f.r, f.v.t, running, 4);
    f.v.running = running;
    assert_int_equal(f.v.nrunning, 2);
    assert_int_equal(running[1], dp);
    f.v.playing = 1;
    f.v.play_speed = 2e-3;
    assert_true(f.r.step_time_s >= 1 && f.r.step_time_s < 10);
    view_draw(&f.c, &f.v);
    view_layout l;
    view_layout_for(120, 40, 0, &l);
    char row[512], want[128], step[32];
    /* 100 us windows: a hundredth of one, 6 decimals of a second */
    snprintf(step, sizeof step, "%.6f s", f.r.step_time_s);
    snprintf(want, sizeof want, "\xe2\x96\xb6 %.6f of %s  2 ms/s", f.v.t, step);
    assert_true(canvas_find(&f.c, want));
    snprintf(want, sizeof want, "at %s + %s", f.r.phases[running[0]].name, f.r.phases[dp].name);
    assert_true(canvas_find(&f.c, want));
    /* the DP all-reduce's row is the last one shown, reversed */
    int last = -1;
    for (int y = l.panel.y; y < l.panel.y + l.panel.h; y++)
        if (strstr(canvas_row(&f.c, y, row, sizeof row), "dp.allreduce") && !strstr(row, " + "))
            last = y;
    assert_true(last > 0);
    assert_true(row_has(&f.c, last, "hidden"));
    snprintf(want, sizeof want, "%4.0f%%", 100 * f.r.phases[dp].max_link_util);
    assert_true(row_has(&f.c, last, want));
    assert_int_equal(canvas_at(&f.c, l.panel.x, last)->attr, CA_REVERSE);
    /* above: the optimizer, once per step, then the slot's last slice,
     * weighed by the slots */
    const sim_slice *opt = &f.r.timeline[f.r.ntimeline - 1], *s = &f.r.timeline[f.r.ntimeline - 2];
    assert_int_equal(f.r.phases[opt->phase].role, SIM_OPTIMIZER);
    snprintf(want, sizeof want, "%5.1f%%", 100 * (opt->end_s - opt->start_s) / f.r.step_time_s);
    assert_true(row_has(&f.c, last - 1, "optimizer"));
    assert_true(row_has(&f.c, last - 1, want));
    assert_int_equal(canvas_at(&f.c, l.panel.x, last - 1)->attr, 0);
    assert_true(s->start_s < f.r.slot_s);
    snprintf(want, sizeof want, "%5.1f%%", 100 * (s->end_s - s->start_s) * f.r.slots / f.r.step_time_s);
    assert_true(row_has(&f.c, last - 2, f.r.phases[s->phase].name));
    assert_true(row_has(&f.c, last - 2, want));
    /* the backward phase running beside it is reversed too, the others not */
    int rows = 0;
    for (int y = last - 9; y <= last; y++) { /* the ten phase rows of a 120x40 panel */
        const char *name = f.r.phases[running[0]].name;
        int on = strstr(canvas_row(&f.c, y, row, sizeof row), name) && !strstr(row, " + ");
        rows += on;
        assert_int_equal(canvas_at(&f.c, l.panel.x, y)->attr, on || y == last ? CA_REVERSE : 0);
    }
    assert_int_equal(rows, 1);
    fixture_close(&f);
}

/* Text keeps one column per cell: controls (DEL, C1), combining marks and
 * zero-width characters are dropped, wide ones become '?'. */
static void test_canvas_widths(void **state)
{
    (void)state;
    canvas c;
    new_canvas(&c, 12, 1);
    char row[64];
    /* a DEL, a C1 control (U+0085), e + combining acute, a zero-width space,
     * a CJK character and an emoji */
    int n = canvas_text(&c, 0, 0, 12, "a\x7f" "b\xc2\x85" "ce\xcc\x81" "d\xe2\x80\x8b" "e\xe4\xb8\xad"
                                     "f\xf0\x9f\x98\x80" "g", TC_TEXT, TC_BACKGROUND, 0);
    assert_int_equal(n, 10);
    assert_string_equal(canvas_row(&c, 0, row, sizeof row), "abcede?f?g  ");
    canvas_free(&c);
}

/* The help on the smallest screen shows the lines that fit from help_top,
 * which the view keeps in range. */
static void test_help_scroll(void **state)
{
    (void)state;
    fixture f;
    fixture_4x4(&f, 60, 20);
    int n = 0;
    while (view_help_lines[n])
        n++;
    assert_true(n > 18); /* it does not fit in 20 rows */
    f.v.help = 1;
    view_draw(&f.c, &f.v);
    assert_true(canvas_find(&f.c, "help (up/down scroll, any other key closes)"));
    assert_true(canvas_find(&f.c, view_help_lines[0]));
    assert_false(canvas_find(&f.c, view_help_lines[n - 1]));
    f.v.help_top = 1000;
    view_draw(&f.c, &f.v);
    assert_int_equal(f.v.help_top, n - 18);
    /* the last line is on the screen, clipped to the overlay's width */
    char start[40];
    snprintf(start, sizeof start, "%.30s", view_help_lines[n - 1]);
    assert_true(canvas_find(&f.c, start));
    assert_false(canvas_find(&f.c, view_help_lines[0]));
    f.v.help_top = -3;
    view_draw(&f.c, &f.v);
    assert_int_equal(f.v.help_top, 0);
    fixture_close(&f);
}

/* ---- the live screen's frames ------------------------------------------ */

/* Two canvases cell by cell; what names the frame. */
static void check_same(const canvas *a, const canvas *b, const char *what)
{
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            const canvas_cell *p = canvas_at(a, x, y), *q = canvas_at(b, x, y);
            if (p->ch != q->ch || p->fg != q->fg || p->bg != q->bg || p->attr != q->attr)
                fail_msg("%s: cell %d,%d is U+%04X fg %d bg %d, from scratch U+%04X fg %d bg %d", what, x, y,
                         (unsigned)p->ch, p->fg, p->bg, (unsigned)q->ch, q->fg, q->bg);
        }
}

/* Draws u's next frame as the screen does (the colours and blocks it keeps,
 * only the loaded links read), then the same frame from scratch (every
 * link's figure computed alone, the blocks counted and filled from every
 * link), and compares them. */
static void check_frame(ui *u, canvas *kept, canvas *fresh, const char *what)
{
    ui_sync_view(u);
    view_state v = u->v;
    memset(&v.blocks, 0, sizeof v.blocks);
    v.values_gen = v.mesh_gen = 0;
    v.nonzero = NULL;
    size_t nl = wafer_nlinks(u->r->wf);
    double *util = malloc(nl * sizeof *util);
    assert_non_null(util);
    wt_err e;
    if (u->play.average)
        for (size_t l = 0; l < nl; l++)
            util[l] = sim_link_util(u->r, l);
    else
        assert_int_equal(sim_link_window_util(u->r, u->play.t, v.window_s, util, &e), WT_OK);
    v.link_util = util;
    view_draw(kept, &u->v);
    view_draw(fresh, &v);
    check_same(kept, fresh, what);
    view_blocks_free(&v.blocks);
    free(util);
}

/* A screen loaded with the n words of its command line (not stepped yet). */
static ui *live_ui(char **words, int n)
{
    ui *u = ui_new(".");
    assert_non_null(u);
    wt_err e;
    if (cli_parse(n, words, CLI_TUNE | CLI_UI, ".", &u->o, &e) != WT_OK ||
        ui_load(u, u->o.layout, u->o.model, 0, NULL, &e) != WT_OK)
        fail_msg("%s", e.msg);
    return u;
}

/* A strategy on part of the 16x16 mesh (whole: over all of it, most links
 * loaded), zoomed into blocks of 2 and 3 and at zoom 1, over the links by
 * window (the cursor moving along the step) and by step average, max and
 * mean, then the units' views; again when a unit of the step fails (its
 * links dead before the next step), then, but for whole (whose next step
 * has nowhere else to go), after the next step is placed elsewhere (other
 * links loaded: those the last result loaded must be cleared), and when
 * :repair revives the unit. */
static void live_frames(const char *strategy, int whole)
{
    char *words[] = {"--layout", "default", "--model", "gpt3-6.7b", "--strategy", (char *)strategy, "--placement",
                     "tiles"};
    ui *u = live_ui(words, (int)(sizeof words / sizeof words[0]));
    wt_err e;
    ui_load_themes(u, NULL);
    u->ncolours = 256;
    canvas kept, fresh;
    new_canvas(&kept, 100, 36);
    new_canvas(&fresh, 100, 36);
    /* a round starts at the zoom the last one ended at: kept blocks meet the fault */
    static const int zooms[] = {2, 1, 3, 2};
    /* rounds 1 and 3: the fault, then the repair, show on the last step */
    for (int round = 0; round < (whole ? 2 : 4); round++) {
        int stepped = round % 2 == 0;
        if (stepped)
            ui_step(u);
        assert_non_null(u->r);
        assert_true(u->r->nloaded > 0);
        assert_int_equal((size_t)u->r->nloaded >= wafer_nlinks(u->r->wf) / 2, whole);
        /* the hot links panel ranked from the loaded links: as from all of
         * them (when ranked, before the fault or the repair) */
        size_t hot[VIEW_HOT_ROWS];
        assert_true(u->play.nhot > 0);
        if (stepped) {
            assert_int_equal(view_hottest(u->r->wf, u->r->link_peak, NULL, 0, hot, VIEW_HOT_ROWS), u->play.nhot);
            assert_memory_equal(hot, u->play.hot, (size_t)u->play.nhot * sizeof *hot);
            /* the step's busiest windows, kept in place from step to step:
             * as computed afresh for every link */
            size_t nl = wafer_nlinks(u->r->wf);
            double *peak = malloc(nl * sizeof *peak);
            assert_non_null(peak);
            assert_int_equal(sim_link_windows(u->r, u->r->window_s, 0, peak, NULL, &e), WT_OK);
            assert_memory_equal(peak, u->r->link_peak, nl * sizeof *peak);
            free(peak);
        }
        for (int z = 0; z < 4; z++)
            for (int k = 0; k < 12; k++) {
                char what[96];
                u->v.zoom = zooms[z];
                u->v.mode = k < 10 ? VIEW_LINKS : k == 10 ? VIEW_COMPUTE : VIEW_MEMORY;
                u->v.mean = k % 2;
                u->play.average = k == 8 || k == 9;
                u->play.t = u->r->step_time_s * k / 8.5;
                snprintf(what, sizeof what, "round %d zoom %d mode %d mean %d %s at %g s", round, zooms[z],
                         u->v.mode, u->v.mean, u->play.average ? "average" : "window", u->play.t);
                check_frame(u, &kept, &fresh, what);
            }
        /* a unit of the step fails (the next step places the ranks
         * elsewhere), then :repair revives it */
        int unit = u->r->loaded[0] / WAFER_NDIR;
        char fault[40];
        snprintf(fault, sizeof fault, "fail %d,%d", wafer_x(u->r->wf, unit), wafer_y(u->r->wf, unit));
        if (round == 0 || round == 2)
            ui_command(u, round == 0 ? fault : "repair");
        assert_int_equal(u->status_error, 0);
    }
    canvas_free(&kept);
    canvas_free(&fresh);
    ui_free(u);
}

static void test_live_frames(void **state)
{
    (void)state;
    live_frames("DP2,TP8", 0);
    live_frames("DP16,TATP16", 1);
}

/* The window by class of links: every link's figure through its class is
 * sim_link_window_util's, to the bit, for windows all along the step: over
 * the DP all-reduce's part hidden beside the last backward (DP2), and over
 * ZeRO gathers prefetched beside the layer before (their figures capped
 * at 1). */
static void test_window_classes(void **state)
{
    (void)state;
    static const char *const mems[] = {"none", "zero"};
    for (int m = 0; m < 2; m++) {
        char *words[] = {"--layout", "default", "--strategy", "DP2,TP8", "--placement", "tiles", "--mem",
                         (char *)mems[m]};
        ui *u = live_ui(words, (int)(sizeof words / sizeof words[0]));
        wt_err e;
        ui_step(u);
        const sim_result *r = u->r;
        assert_non_null(r);
        sim_link_classes c;
        assert_int_equal(sim_link_classes_new(r, &c, &e), WT_OK);
        assert_true(c.n > 2);
        size_t nl = wafer_nlinks(r->wf);
        double *util = malloc(nl * sizeof *util), *by = malloc((size_t)c.n * sizeof *by);
        assert_non_null(util);
        assert_non_null(by);
        int hidden = 0;
        /* along the step, then across each phase's first start */
        for (int k = 0; k <= 200 + 2 * r->nphases; k++) {
            double w = k % 2 ? 20e-6 : r->step_time_s / 7, first = k > 200 ? sim_phase_first(r, (k - 201) / 2) : 0;
            double t = k <= 200 ? r->step_time_s * k / 200 : first - (k % 2 ? w / 2 : 0);
            if (k > 200 && first < 0)
                continue;
            int running[UI_MAX_RUNNING];
            hidden += sim_running_at(r, t, running, UI_MAX_RUNNING) == 2;
            assert_int_equal(sim_link_window_util(r, t, w, util, &e), WT_OK);
            assert_int_equal(sim_class_window_util(r, &c, t, w, by, &e), WT_OK);
            for (size_t l = 0; l < nl; l++)
                if (memcmp(&util[l], &by[c.of[l]], sizeof *util))
                    fail_msg("mem %s at %g s: link %zu is %.17g, its class %d %.17g", mems[m], t, l, util[l],
                             c.of[l], by[c.of[l]]);
        }
        assert_true(hidden > 0);
        free(util);
        free(by);
        sim_link_classes_free(&c);
        ui_free(u);
    }
}

/* The hottest links of a wafer large enough for the walk to split over the
 * cores: the rows busiest windows, ties by slot, as one walk over every
 * usable link finds them. Peaks of 0.95 lie in the second half of the
 * slots alone, ties of 0.9 in both halves, fewer than the rows in the
 * first, over a floor of lower ones. */
static void test_hottest_split(void **state)
{
    (void)state;
    wafer wf;
    assert_int_equal(wafer_init(&wf, 400, 400, 1, 1, NULL), WT_OK);
    size_t nl = wafer_nlinks(&wf);
    double *peak = malloc(nl * sizeof *peak);
    int *at = malloc(nl * sizeof *at), *taken = calloc(nl, sizeof *taken);
    assert_true(peak && at && taken);
    uint64_t seed = 7;
    size_t nat = 0;
    for (size_t l = 0; l < nl; l++) {
        double x = rng_unit(&seed);
        peak[l] = x < 0.2 ? 0 : x >= 0.9999 ? 0.9 : x >= 0.99987 && l > nl / 2 ? 0.95 : floor(5 * x) / 10;
        if (peak[l] != 0)
            at[nat++] = (int)l;
    }
    size_t want[VIEW_HOT_ROWS];
    int nwant = 0;
    for (; nwant < VIEW_HOT_ROWS; nwant++) { /* the busiest not yet taken, the first slot of ties */
        size_t best = nl;
        for (size_t l = 0; l < nl; l++)
            if (!taken[l] && peak[l] > 0 && sim_link_inv_bw(&wf, l) > 0 && (best == nl || peak[l] > peak[best]))
                best = l;
        if (best == nl)
            break;
        taken[best] = 1;
        want[nwant] = best;
    }
    assert_int_equal(nwant, VIEW_HOT_ROWS);
    assert_true(peak[want[0]] == 0.95 && peak[want[VIEW_HOT_ROWS - 1]] == 0.9);
    assert_true(want[0] > nl / 2 && want[VIEW_HOT_ROWS - 1] > nl / 2); /* ties past the first half's */
    /* the split this checks, wherever there is more than one core */
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
        assert_true(par_parts(nl) > 1 && par_parts(nat) > 1);
    size_t top[VIEW_HOT_ROWS];
    for (int listed = 0; listed <= 1; listed++) {
        assert_int_equal(view_hottest(&wf, peak, listed ? at : NULL, nat, top, VIEW_HOT_ROWS), VIEW_HOT_ROWS);
        for (int i = 0; i < VIEW_HOT_ROWS; i++)
            if (top[i] != want[i])
                fail_msg("listed %d: row %d is slot %zu (peak %g), expected %zu (peak %g)", listed, i, top[i],
                         peak[top[i]], want[i], peak[want[i]]);
    }
    assert_int_equal(view_hottest(&wf, peak, NULL, 0, top, 3), 3);
    assert_true(top[0] == want[0] && top[1] == want[1] && top[2] == want[2]);
    free(peak);
    free(at);
    free(taken);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canvas_text),       cmocka_unit_test(test_theme_default),
        cmocka_unit_test(test_theme_files),       cmocka_unit_test(test_theme_errors),
        cmocka_unit_test(test_theme_nearest),     cmocka_unit_test(test_mesh_4x4_glyphs),
        cmocka_unit_test(test_mesh_real_traffic), cmocka_unit_test(test_half_block_pairing),
        cmocka_unit_test(test_cursor_visible),    cmocka_unit_test(test_group_overlay),    cmocka_unit_test(test_rulers),
        cmocka_unit_test(test_dead),              cmocka_unit_test(test_aggregation),
        cmocka_unit_test(test_legend),            cmocka_unit_test(test_auto_scale),
        cmocka_unit_test(test_view_draw),         cmocka_unit_test(test_output_pane),
        cmocka_unit_test(test_wide_layout),
        cmocka_unit_test(test_view_changes),
        cmocka_unit_test(test_timeline_panel),    cmocka_unit_test(test_canvas_widths),
        cmocka_unit_test(test_help_scroll),       cmocka_unit_test(test_live_frames),
        cmocka_unit_test(test_window_classes),    cmocka_unit_test(test_hottest_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
