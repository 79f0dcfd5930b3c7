#include "theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "ydoc.h"

/* xterm's 16 basic colours. */
static const rgb basic16[16] = {
    {0, 0, 0},     {205, 0, 0},   {0, 205, 0},   {205, 205, 0},   {0, 0, 238},     {205, 0, 205},
    {0, 205, 205}, {229, 229, 229}, {127, 127, 127}, {255, 0, 0}, {0, 255, 0},     {255, 255, 0},
    {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
};

static long dist(rgb a, rgb b)
{
    long dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
    return dr * dr * 3 + dg * dg * 4 + db * db * 2; /* weighted for the eye */
}

int theme_nearest(rgb c, int ncolours)
{
    if (ncolours >= 256) {
        static const int level[6] = {0, 95, 135, 175, 215, 255};
        int idx[3], v[3] = {c.r, c.g, c.b};
        for (int k = 0; k < 3; k++) {
            int best = 0;
            for (int i = 1; i < 6; i++)
                if (abs(v[k] - level[i]) < abs(v[k] - level[best]))
                    best = i;
            idx[k] = best;
        }
        rgb cube = {(uint8_t)level[idx[0]], (uint8_t)level[idx[1]], (uint8_t)level[idx[2]]};
        int grey = ((c.r + c.g + c.b) / 3 - 8 + 5) / 10;
        grey = grey < 0 ? 0 : grey > 23 ? 23 : grey;
        uint8_t gv = (uint8_t)(8 + 10 * grey);
        rgb ramp = {gv, gv, gv};
        return dist(c, ramp) < dist(c, cube) ? 232 + grey : 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
    }
    int n = ncolours >= 16 ? 16 : 8, best = 0;
    for (int i = 1; i < n; i++)
        if (dist(c, basic16[i]) < dist(c, basic16[best]))
            best = i;
    return best;
}

/* The colour a fraction f of the way from a to b. */
static rgb mix(rgb a, rgb b, double f)
{
    return (rgb){(uint8_t)(a.r + (b.r - a.r) * f + 0.5), (uint8_t)(a.g + (b.g - a.g) * f + 0.5),
                 (uint8_t)(a.b + (b.b - a.b) * f + 0.5)};
}

/* Fills the 101 gradient steps from the stops by linear interpolation. */
static void expand(theme *t, const rgb *stops, int n)
{
    for (int p = 0; p <= 100; p++) {
        double pos = p / 100.0 * (n - 1);
        int i = (int)pos < n - 1 ? (int)pos : n - 2;
        t->colour[TC_GRAD0 + p] = mix(stops[i], stops[i + 1], pos - i);
    }
}

/* The diverging ramp from the named colours: accent, background, hot. */
static void diverge(theme *t)
{
    const rgb stops[3] = {t->colour[TC_ACCENT], t->colour[TC_BACKGROUND], t->colour[TC_HOT]};
    for (int k = 0; k <= 2 * TC_DIV_MID; k++) {
        int i = k < TC_DIV_MID ? 0 : 1;
        t->colour[TC_DIV0 + k] = mix(stops[i], stops[i + 1], (double)(k - i * TC_DIV_MID) / TC_DIV_MID);
    }
}

void theme_default(theme *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "default");
    const rgb named[TC_NAMED] = {{0, 0, 0}, {208, 208, 208}, {95, 175, 255}, {255, 95, 95}, {128, 128, 128},
                                 {78, 78, 78}};
    memcpy(t->colour, named, sizeof named);
    const rgb stops[] = {{0, 95, 135}, {0, 135, 175}, {95, 215, 95}, {255, 215, 0}, {255, 95, 0}, {215, 0, 0}};
    expand(t, stops, (int)(sizeof stops / sizeof stops[0]));
    diverge(t);
}

/* "#rrggbb" -> rgb; 0 or -1. Six hex digits: %x alone would also take a
 * sign or blanks ("#-10000" as red). */
static int parse_hex(const char *s, rgb *out)
{
    unsigned r, g, b;
    if (strlen(s) != 7 || s[0] != '#' || strspn(s + 1, "0123456789abcdefABCDEF") != 6 ||
        sscanf(s + 1, "%2x%2x%2x", &r, &g, &b) != 3)
        return -1;
    *out = (rgb){(uint8_t)r, (uint8_t)g, (uint8_t)b};
    return 0;
}

typedef struct theme_load_ctx {
    theme *t;
    rgb stops[16];
    int nstops;
} theme_load_ctx;

static int colour_value(ydoc *d, yaml_node_t *v, rgb *out, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && parse_hex(s, out))
        rc = ydoc_fail(d, v, e, "'%s' is not a colour: write \"#rrggbb\"", s);
    return rc;
}

static int on_name(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && (!*s || strlen(s) >= sizeof ((theme_load_ctx *)ctx)->t->name))
        rc = ydoc_fail(d, v, e, "name must have 1 to 31 characters");
    if (rc == WT_OK)
        snprintf(((theme_load_ctx *)ctx)->t->name, sizeof ((theme_load_ctx *)ctx)->t->name, "%s", s);
    return rc;
}

static int on_gradient(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    theme_load_ctx *c = ctx;
    yaml_node_item_t *it, *end;
    int rc = ydoc_seq(d, v, &it, &end, e);
    if (rc != WT_OK)
        return rc;
    if (end - it < 2 || end - it > 16)
        return ydoc_fail(d, v, e, "a gradient has 2 to 16 stops, not %d", (int)(end - it));
    for (c->nstops = 0; it < end && rc == WT_OK; it++)
        rc = colour_value(d, yaml_document_get_node(&d->doc, *it), &c->stops[c->nstops++], e);
    return rc;
}

static int on_mono(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && strcmp(s, "true") && strcmp(s, "false"))
        rc = ydoc_fail(d, v, e, "mono must be true or false, not '%s'", s);
    if (rc == WT_OK)
        ((theme_load_ctx *)ctx)->t->mono = !strcmp(s, "true");
    return rc;
}

#define NAMED(field, index)                                                         \
    static int on_##field(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)            \
    {                                                                               \
        return colour_value(d, v, &((theme_load_ctx *)ctx)->t->colour[index], e);   \
    }
NAMED(background, TC_BACKGROUND)
NAMED(text, TC_TEXT)
NAMED(accent, TC_ACCENT)
NAMED(hot, TC_HOT)
NAMED(dead, TC_DEAD)
NAMED(grid, TC_GRID)
#undef NAMED

static const ydoc_key theme_keys[] = {
    {"name", on_name, 1},   {"gradient", on_gradient, 1}, {"background", on_background, 0},
    {"text", on_text, 0},   {"accent", on_accent, 0},     {"hot", on_hot, 0},
    {"dead", on_dead, 0},   {"grid", on_grid, 0},         {"mono", on_mono, 0},
    {NULL, NULL, 0},
};

int theme_load(const char *path, theme *t, wt_err *e)
{
    theme_default(t);
    ydoc d;
    int rc = ydoc_load(&d, path, e);
    if (rc != WT_OK)
        return rc;
    theme loaded;
    theme_default(&loaded);
    theme_load_ctx c = {.t = &loaded};
    rc = ydoc_map(&d, ydoc_root(&d), theme_keys, &c, e);
    ydoc_free(&d);
    if (rc != WT_OK)
        return rc;
    expand(&loaded, c.stops, c.nstops);
    diverge(&loaded);
    *t = loaded;
    return WT_OK;
}

int theme_find(const char *root, const char *name, theme *t, wt_err *e)
{
    char path[1024];
    wt_err why;
    theme_default(t);
    if (datadir_resolve(root, "themes", "theme", name, path, sizeof path, &why) != WT_OK)
        return wt_fail(e, "--theme: %s", why.msg);
    return theme_load(path, t, e);
}
