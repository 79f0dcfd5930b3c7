/*
 * flit_phase.h - one occurrence of a phase's traffic at flit level
 * (docs/MODEL.md, "A phase at flit level").
 *
 * The phase's passes run one after another, each as a batch of its flows
 * (the bytes a member sends its successor in the pass, all its
 * latency-bound steps together) on the routers of the wafer's router:
 * section, within a window of at most FLIT_MAX_SIDE x FLIT_MAX_SIDE
 * units: flows that start or end outside it are left out. A pass's bytes
 * are scaled down so that its busiest link carries at most link_flits
 * flits (flit_phase_opts; FLIT_PHASE_LINK_FLITS by default; a flow keeps at least one; the
 * simulation's time grows with it, its error shrinks), in packets of
 * FLIT_PHASE_PACKET flits, and its cycles are scaled back: a link moves one
 * flit of flit_bytes a cycle at the window's fastest link's bandwidth, a
 * slower one (between wafers, or on them when the edges are faster) a flit
 * every fastest / its bandwidth cycles. A balanced
 * pass sends half of each flow X first and half Y first, as the flow level
 * does.
 */
#ifndef WT_FLIT_PHASE_H
#define WT_FLIT_PHASE_H

#include "sim.h"

#define FLIT_PHASE_LINK_FLITS 4096
#define FLIT_PHASE_PACKET 16

typedef struct flit_phase_out {
    int x0, y0, w, h;        /* the window: units x0..x0+w-1, y0..y0+h-1 */
    int passes;              /* passes with flows in the window */
    long long flows;         /* flows run */
    long long flows_out;     /* flows left out: they start or end outside the window */
    double scale;            /* the largest pass's bytes per byte simulated (>= 1) */
    double cycle_s;          /* one cycle: flit_bytes / the window's fastest link's bandwidth */
    long long cycles;        /* cycles run, over the passes */
    double time_s;           /* the passes' cycles scaled back: the phase's traffic at flit level */
    double flow_s;           /* the same flows timed by each pass's busiest link (the flow level's bound) */
    double calib_s;          /* and each pass's bound times its pattern's calibration factor (calib.h) */
    /* per link slot of the window (unit (x - x0) + (y - y0) * w, times
     * WAFER_NDIR, plus the direction), w * h * WAFER_NDIR of each, owned: */
    double *bytes;           /* bytes over the link in the occurrence */
    double *util;            /* its busy fraction of time_s */
    double *buffer_mean;     /* flits held in the input buffers it feeds, on average over time_s */
    int *buffer_peak;        /* and at most */
} flit_phase_out;

/* What a run may choose: the busiest link's flits (0: FLIT_PHASE_LINK_FLITS)
 * and the window's corner (x0 < 0: the whole mesh when it fits, else
 * centred on the phase's busiest link, or the mesh's centre, and moved
 * inside the mesh). */
typedef struct flit_phase_opts {
    int link_flits;
    int x0, y0;
    const atomic_int *stop; /* or NULL: when set (another thread), the run fails soon with "stopped" */
} flit_phase_opts;

/* The links of the w x h window of wf from x0,y0 (its link slots, as
 * flit_run numbers a w x h mesh's): each one's bandwidth into bw[], the
 * fastest's into *top, and the flits each moves a cycle into rate[]
 * (bandwidth / *top: a cycle is a flit on the fastest link); returns 1 when
 * some rate is below 1. */
int flit_window_rates(const wafer *wf, int x0, int y0, int w, int h, double *bw, double *rate, double *top);

/* Runs phase `phase` of r (a whole evaluation) into out, as o says (NULL:
 * the defaults). WT_EINPUT with one line: a window corner whose window
 * leaves the mesh,
 * a phase without traffic, a window holding failed units or links (the
 * flit level routes whole meshes), a balanced pass on routers with one VC;
 * WT_EINTERNAL out of memory. */
int flit_phase_run(const sim_result *r, int phase, const flit_phase_opts *o, flit_phase_out *out, wt_err *e);
/* Pattern `pattern` of r alone at a coef of FLIT_PATTERN_COEF bytes, so
 * large that its busiest link fixes the scale (then time_s over flow_s is
 * that of any such coef), in the window flit_phase_run takes by default,
 * centred on the pattern's busiest link. The same errors. */
#define FLIT_PATTERN_COEF 1e9
int flit_pattern_run(const sim_result *r, int pattern, flit_phase_out *out, wt_err *e);
void flit_phase_free(flit_phase_out *out);

#endif
