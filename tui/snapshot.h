/*
 * snapshot.h - the heatmap as the screen shows it, as a picture (`:export
 * FILE`, `wafertop snapshot --out FILE`): the view of a view_state (links,
 * compute, memory), what its links are coloured by (the step average, or
 * the window at the cursor of time), its colour scale and theme, with a
 * title, the units' x and y coordinates along the axes, the wafers'
 * boundaries (a multi-wafer layout), a legend (the scale, what a square is)
 * and the figures (step time, MFU, memory, the busiest link).
 *
 * The whole mesh is drawn, whatever the screen's zoom and viewport. Up to
 * SNAP_DETAIL_MAX units a side, every unit and every link between two units
 * has a square of its own (a link's square is its busier direction, as on
 * the screen); above, a square is a block of zoom x zoom units holding the
 * max (or the mean, as the screen's `x` chose) of its links or units, the
 * blocks at most SNAP_BLOCKS_MAX a side.
 */
#ifndef WT_SNAPSHOT_H
#define WT_SNAPSHOT_H

#include "picture.h"
#include "view.h"

#define SNAP_DETAIL_MAX 240
#define SNAP_BLOCKS_MAX 360

/* Where the mesh lies in the picture. */
typedef struct snap_geom {
    int zoom;       /* units per block side; 1: units and links have squares of their own */
    int gw, gh;     /* grid cells (view_grid_size) */
    int x0, y0;     /* the mesh's top-left pixel */
    int unit, link; /* pixels: the side of a unit's (a block's) square, and the gap a link's
                     * square fills between two units (zoom 1; 0 above) */
} snap_geom;

/* Lays out the picture of v (v->r not NULL) into p (initialised here; the
 * caller frees it with pic_free, also on error) and g. WT_EINTERNAL out of memory. */
int snap_draw(picture *p, const view_state *v, snap_geom *g, wt_err *e);

/* The pixel in the middle of grid cell (gx, gy): view_cell_value's
 * coordinates at zoom 1, a block's above. */
void snap_cell_pixel(const snap_geom *g, int gx, int gy, int *px, int *py);

/* snap_draw, then pic_write to path; errors start with who. g (or NULL)
 * is where the mesh lies in the picture. */
int snap_write(const view_state *v, const char *path, const char *who, snap_geom *g, wt_err *e);

/* What `wafertop snapshot` shows of a result. */
typedef struct snap_opts {
    int mode;        /* enum view_mode */
    double t;        /* the links view: the window at t s into the step, or */
    int average;     /* the step average */
    double window_s; /* the window's length, s */
    const theme *th;
} snap_opts;

/* The names of the views, by enum view_mode ("links", "compute", "memory"). */
extern const char *const snap_view_names[VIEW_NMODES];

/* The picture of r as the screen would show it with o, written to path
 * (snap_write). */
int snap_result(const sim_result *r, const snap_opts *o, const char *path, const char *who, snap_geom *g,
                wt_err *e);

#endif
