/*
 * out.h - printing a result: `eval` as a table, JSON or CSV, and `links`.
 * Keys come from engine/report.h, so every format uses the same names.
 */
#ifndef WT_OUT_H
#define WT_OUT_H

#include <stdio.h>

#include "sim.h"

void out_eval_json(FILE *f, const sim_result *r);
void out_eval_csv(FILE *f, const sim_result *r);
void out_eval_table(FILE *f, const sim_result *r);

/* One row per existing directed link: x,y,dir,bytes,busy_s,util, over the
 * step, or over one phase (phase >= 0; util is then the share of the time
 * that phase runs). format: table | json | csv. */
int out_links(FILE *f, const sim_result *r, int phase, const char *format);

#endif
