/*
 * theme.h - colour themes from the YAML files in themes/:
 *
 *   name: viridis
 *   gradient: ["#440154", "#21918c", "#fde725"]   # 2 to 16 stops, cold to hot
 *   background: "#000000"                        # the named colours, optional
 *   text: "#d0d0d0"
 *   accent: "#5fafff"
 *   hot: "#ff5f5f"
 *   dead: "#808080"
 *   grid: "#303030"
 *   mono: false                                  # optional: glyph density, no colour
 *
 * The gradient is expanded to 101 steps (0 % to 100 % utilisation), and a
 * diverging ramp (a difference, -1 to 1) is derived from the named colours:
 * accent (cold, below 0) through background (0) to hot (above 0). A
 * terminal gets each colour as its nearest: the 256-colour cube or grey
 * ramp, or the 16 or 8 basic colours.
 */
#ifndef WT_THEME_H
#define WT_THEME_H

#include <stdint.h>

#include "err.h"

/* Logical colours of the canvas. */
enum theme_colour {
    TC_BACKGROUND = 0, TC_TEXT, TC_ACCENT, TC_HOT, TC_DEAD, TC_GRID, TC_NAMED,
    TC_GRAD0 = TC_NAMED,            /* TC_GRAD0 + p for p % utilisation */
    TC_DIV0 = TC_GRAD0 + 101,       /* the diverging ramp: TC_DIV0 + TC_DIV_MID + k for k / TC_DIV_MID */
    TC_DIV_MID = 10,                /* of the largest difference, k in [-TC_DIV_MID, TC_DIV_MID] */
    TC_COUNT = TC_DIV0 + 2 * TC_DIV_MID + 1
};

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

typedef struct theme {
    char name[32];
    rgb colour[TC_COUNT];   /* named colours, then the 101 gradient steps */
    int mono;
} theme;

/* The built-in default (the same as themes/default.yaml). */
void theme_default(theme *t);
/* Loads a theme file; errors are file:line:col. On error t is the default. */
int theme_load(const char *path, theme *t, wt_err *e);
/* The theme --theme names: ROOT/themes/NAME.yaml, or a file. A name that is
 * neither is an error naming the flag; a broken file's is file:line:col. */
int theme_find(const char *root, const char *name, theme *t, wt_err *e);

/* The gradient colour for a utilisation in [0, 1] (clamped). */
static inline uint8_t theme_grad(double util)
{
    int p = (int)(util * 100 + 0.5);
    return (uint8_t)(TC_GRAD0 + (p < 0 ? 0 : p > 100 ? 100 : p));
}

/* The diverging colour for a difference in [-1, 1] (clamped). */
static inline uint8_t theme_div(double d)
{
    int k = (int)(d * TC_DIV_MID + (d < 0 ? -0.5 : 0.5));
    return (uint8_t)(TC_DIV0 + TC_DIV_MID + (k < -TC_DIV_MID ? -TC_DIV_MID : k > TC_DIV_MID ? TC_DIV_MID : k));
}

/* The nearest colour number on a terminal of ncolours (8, 16 or 256). */
int theme_nearest(rgb c, int ncolours);

#endif
