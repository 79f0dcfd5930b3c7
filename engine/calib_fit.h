/*
 * calib_fit.h - the calibration factors measured on one evaluation
 * (docs/MODEL.md, "Calibration").
 *
 * Every pattern a timed phase uses runs alone at flit level
 * (flit_pattern_run); its ratio is the flit level's time over the flow
 * level's bound for the same flows. A class's factor is its patterns'
 * ratios weighted by the bandwidth seconds each puts in the step (coef x
 * occurrences x max_busy), at least CALIB_MIN: what the patterns of
 * each shape in this step, as much as each weighs, lose in the routers.
 */
#ifndef WT_CALIB_FIT_H
#define WT_CALIB_FIT_H

#include "calib.h"
#include "sim.h"

typedef struct calib_row {
    int pattern, cls;
    double weight_s;        /* the pattern's bandwidth seconds in the step, uncalibrated */
    double flow_s, flit_s;  /* its run: the flow level's bound and the flit level's time */
    int x0, y0, w, h;       /* the window it ran on */
    long long flows_out;    /* flows left out of it */
    char skipped[200];      /* why the flit level could not run it (no flow inside its window, a
                               failed unit there), "" when it ran; a skipped pattern weighs nothing */
} calib_row;

typedef struct calib_fit {
    int nrows;
    calib_row *rows;                 /* owned */
    double factor[CALIB_NCLASS];     /* 1 for classes without a pattern */
    double weight_s[CALIB_NCLASS];   /* 0: the class was not measured */
} calib_fit;

/* Measures r's patterns into out, calling progress(ud, done, total) after
 * each when not NULL. A pattern the flit level refuses is a row with its
 * reason (skipped); WT_EINTERNAL out of memory. */
int calib_fit_run(const sim_result *r, calib_fit *out, void (*progress)(void *ud, int done, int total), void *ud,
                  wt_err *e);
void calib_fit_free(calib_fit *f);

#endif
