/*
 * view.h - what the screen shows, drawn into a canvas from a view_state
 * (no terminal, no simulation): the mesh heatmap with its legend, the
 * panels (figures, hot links, the step's timeline with the cursor of time,
 * the step-time history),
 * the output pane, the status or command line, and the help overlay.
 */
#ifndef WT_VIEW_H
#define WT_VIEW_H

#include "canvas.h"
#include "sim.h"
#include "theme.h"
#include "tiles.h"

enum view_mode { VIEW_LINKS = 0, VIEW_COMPUTE, VIEW_MEMORY, VIEW_NMODES };

#define VIEW_HISTORY 120
#define VIEW_HOT_ROWS 64
#define VIEW_OUTPUT 200

/* The mesh in blocks as the last frame drew it (view_blocks.c), owned by
 * the view_state's holder, freed with view_blocks_free. */
typedef struct view_blocks {
    double *val;               /* gw x gh block values, then the sums, the maxima, the links and
                                * the live units of each block (tiles.h) */
    int gw, gh;
    const sim_result *r;       /* the key of the counts: the mesh and the zoom */
    long mesh_gen;
    int zoom;
    long gen;                  /* the key of the values */
    const double *util;
    int mode, mean;
    tiles_classes classes;     /* the link classes of each block, for view_state.link_class */
    const int *of;             /* the link_class they were counted from, or NULL */
} view_blocks;

typedef struct view_state {
    const sim_result *r;       /* the step shown, or NULL (then only the frame) */
    const double *link_util;   /* per link slot: what the links are coloured by; or NULL and */
    const int *link_class;     /* per link slot its class (sim_link_classes), the figure */
    const double *class_util;  /* being class_util[class] (view_link_util reads either; */
                               /* neither: every link is 0) */
    int nclasses;
    int util_auto;             /* the links' colour scale runs to the highest value shown, else 0-100 % */
    double util_max;           /* what its top stands for (set by view_draw_mesh: 1 or that value) */
    double util_top;           /* the auto scale runs at least this high (two meshes share a scale) */
    int diverging;             /* link_util holds (d + 1) / 2 for a difference d = B - A in [-1, 1]: on the
                                * diverging ramp, the auto scale's top the largest |d| shown */
    struct view_compare *compare; /* two results in the mesh area (view_compare.c), or NULL */
    const char *util_label;    /* "step average" or "100 us window" */
    double compute_now;        /* the compute view at the cursor of time: the busiest compute fraction
                                * of the phases running there, for every unit with a stage; < 0:
                                * each unit's share of the step */
    const double *link_peak;   /* per link slot: the step's busiest window (the result's) */
    const size_t *hot;         /* the links by link_peak, hottest first (view_hottest) */
    int nhot;
    double window_s;           /* the window of link_peak and of the cursor's colours, s */
    double t;                  /* the cursor of time: seconds into the step */
    int playing;               /* the cursor plays */
    double play_speed;         /* at step seconds per second */
    const int *running;        /* the phases running at the cursor */
    int nrunning;
    const int *play;           /* the phases in the order the step plays them: the timeline's, */
    int nplay;                 /* then those it has no slice for (an overlapped DP all-reduce) */
    const theme *th;
    int mono;                  /* glyph density instead of colour */
    int mode;                  /* enum view_mode */
    int zoom;                  /* units per cell side; 0 = fit the window */
    int scale;                 /* at zoom 1: pixels per unit side (set by view_draw) */
    int mean;                  /* blocks show the mean, else the max */
    int ox, oy;                /* viewport origin, in pixels (kept in range by view_draw): a
                                * terminal cell is one pixel wide and two high (half blocks) */
    int cx, cy;                /* the cursor's unit */
    double history[VIEW_HISTORY];
    int nhistory;              /* step times of the session, oldest first */
    int steps, paused;
    double speed;              /* steps per second */
    const char *policy;        /* or NULL */
    const char *changes;       /* what the scenario changes since it was opened, "; "-joined, or NULL */
    int nchanges;              /* how many (changes may be cut) */
    const char *banner;        /* why steps fail and what would fit, two lines, or NULL */
    const char *output[VIEW_OUTPUT];
    int noutput;               /* lines, oldest first */
    int output_top;            /* the first line shown, or -1 to follow the end */
    int output_tall;           /* the output pane takes half the screen ('o') */
    const char *status;        /* a message, or NULL for the hint */
    int status_error;
    const char *cmdline;       /* the command line being typed, or NULL */
    char cmdprompt;            /* ':' or '/' */
    int cmdcursor;
    const char *cmdhint;       /* Tab's candidates, or NULL */
    int help;                  /* the help overlay is open */
    int help_top;              /* its first line shown, when it does not fit */
    long values_gen;           /* changes whenever what link_util, class_util or the units hold changes (a new
                                * result, window, fault); 0: unknown, blocks computed every frame */
    long mesh_gen;             /* changes whenever the dead units and links may have (a new result,
                                * a fault); 0: unknown, blocks counted every frame */
    const int *nonzero;        /* the only link slots link_util may be non-zero at, ascending
                                * (the result's loaded links), nnonzero of them; NULL: any */
    size_t nnonzero;
    const int *group_units;    /* a group overlay: its members' units and the link slots its */
    int ngroup_units;          /* passes load (view_overlay.c), or none */
    const int *group_links;
    int ngroup_links;
    view_blocks blocks;        /* the block cache (zoom > 1) */
} view_state;

/* Two results on one mesh (`:compare`, and the flit level's replay:
 * links beside buffers): side by side, each half with a title line, or the
 * difference B - A on the diverging scale. The holder
 * fills each view_state's result, link figures and keys; view_draw gives
 * them the main view's cursor, zoom and colours. */
typedef struct view_compare {
    view_state side[2];        /* A (the session's) and B */
    view_state diff;           /* link_util: (B - A + 1) / 2, diverging */
    int show_diff;
    const char *title[2];      /* each half's title, or NULL: "A <strategy>  <step time>" */
    int one_result;            /* both halves show figures of one result (the flit level's replay):
                                  the panel keeps its own figures, not A vs B */
} view_compare;

/* The too-small limit. */
#define VIEW_MIN_W 60
#define VIEW_MIN_H 20

/* Where things go on a w x h screen. */
typedef struct view_rect {
    int x, y, w, h;
} view_rect;

/* From this width the output pane goes under the panel and the mesh takes
 * the whole height. */
#define VIEW_WIDE_W 160

/* The mesh has rulers: x above it, y in a gutter at its left. */
#define VIEW_GUTTER 5

typedef struct view_layout {
    int too_small;
    view_rect title, xaxis, yaxis, mesh, legend, panel, output, status;
} view_layout;

/* Where things go on a w x h screen; a tall output pane takes half of it. */
void view_layout_for(int w, int h, int output_tall, view_layout *l);

/* The first line of the output pane a shows when it follows the end: the
 * last lines whose rows, long lines wrapped, fit. */
int view_output_end(const view_state *v, view_rect a);

/* Draws the whole frame; keeps v's viewport around the cursor and in range. */
void view_draw(canvas *c, view_state *v);

/* The grid a zoom level gives: (2W-1) x (2H-1) cells at zoom 1 (units and
 * the links between them), ceil(W/z) x ceil(H/z) blocks above. */
void view_grid_size(const wafer *wf, int zoom, int *gw, int *gh);
/* The zoom that fits the whole mesh into an area (half blocks: 2 grid rows
 * per terminal row, 1 in mono). */
int view_fit_zoom(const wafer *wf, int area_w, int area_h, int mono);

/* The value of grid cell (gx, gy) and whether it is dead: util in [0, 1],
 * or a negative number for no value (background) and -2 for a neutral unit.
 * Exposed for tests. */
double view_cell_value(const view_state *v, int gx, int gy, int *dead);

/* What link slot l is coloured by: link_util[l] or its class's. */
static inline double view_link_util(const view_state *v, size_t l)
{
    return v->link_util ? v->link_util[l] : v->link_class ? v->class_util[v->link_class[l]] : 0;
}

/* The logical colour of a cell of value val (view_cell_value's, a block's)
 * on v's scale (util_max), or of a dead cell. */
uint8_t view_value_colour(const view_state *v, double val, int dead);

/* What unit u shows in the unit views: compute utilisation or memory fill. */
double view_unit_value(const view_state *v, int u);
/* A block with no live unit. */
#define VIEW_BLOCK_DEAD (-3.0)
/* The values of v's blocks (zoom > 1), row by row: v->blocks as kept when
 * its key is v's, else computed again (the counts only when the mesh or
 * the zoom changed, the values from v->nonzero's links); NULL out of
 * memory. */
const double *view_blocks_get(view_blocks *b, const view_state *v);
void view_blocks_free(view_blocks *b);

/* The unit shown at screen cell (sx, sy) of the mesh area a, as the last
 * view_draw placed it; 0 when there is none. */
int view_unit_at(const view_state *v, view_rect a, int sx, int sy, int *ux, int *uy);

/* view_state.compute_now at a time: the compute fraction (compute over
 * time) of the busiest of the n phases running there (the stages of a
 * pipeline run the same phases in turn, so every unit with a stage shows
 * it). */
double view_compute_now(const sim_result *r, const int *running, int n);

/* Parts of view_draw (view_mesh.c). */
void view_draw_mesh(canvas *c, view_state *v, view_rect a);
void view_draw_legend(canvas *c, const view_state *v, view_rect a);
/* The group overlay over what view_draw_mesh drew (view_overlay.c): a ring
 * on every member's cell and a dot on every link its passes load. */
void view_draw_group(canvas *c, const view_state *v, view_rect a);
/* The colour a mesh cell shows in its upper (half 0) or lower half. */
uint8_t view_cell_shown(const canvas_cell *cell, int half);
/* The cursor's unit marked over what view_draw_mesh drew (reversed in mono). */
void view_draw_cursor(canvas *c, const view_state *v, view_rect a);
/* The first pixel of unit u along an axis as view_draw_mesh placed it (a
 * terminal cell is one pixel wide, two high but one in mono). */
int view_unit_pixel(const view_state *v, int u);
/* The rulers (view_axes.c): x and y tick labels at a readable interval
 * with the cursor's coordinates marked, and the wafer edges of a
 * multi-wafer layout on rulers and mesh; after view_draw_mesh. */
void view_draw_rulers(canvas *c, const view_state *v, view_rect xaxis, view_rect yaxis, view_rect mesh);

/* view_compare.c: the mesh area and the legend of a comparison (after
 * view_layout_for), and the figures of both sides with the ratios in the
 * panel from row y; returns the next row. */
void view_draw_compare(canvas *c, view_state *v, const view_layout *l);
int view_compare_figures(canvas *c, const view_state *v, view_rect a, int y);

/* The rows usable links with the busiest windows (peak, per link slot),
 * hottest first (ties by slot), into top; returns how many (those with a
 * peak above 0). Only the nat slots at[] (ascending) are read when at is
 * not NULL: peak is 0 elsewhere (a result's loaded links). */
int view_hottest(const wafer *wf, const double *peak, const int *at, size_t nat, size_t *top, int rows);

/* The help text, one line per key or command (NULL-terminated). */
extern const char *const view_help_lines[];

#endif
