/*
 * out.h - printing a result: `eval` as a table, JSON or CSV, and `links`.
 * Keys come from engine/report.h, so every format uses the same names.
 */
#ifndef WT_OUT_H
#define WT_OUT_H

#include <stdio.h>

#include "flit_phase.h"
#include "json.h"
#include "report.h"
#include "search.h"
#include "sim.h"

void out_eval_json(FILE *f, const sim_result *r);
/* The same object inside a larger document. */
void out_eval_object(json_writer *w, const sim_result *r);
void out_eval_csv(FILE *f, const sim_result *r);
void out_eval_table(FILE *f, const sim_result *r);
/* One section of r as a JSON object (index: the phase of REPORT_PHASE). */
void out_json_section(json_writer *w, const sim_result *r, report_section s, int index);
/* Text as a CSV cell (RFC 4180): as it is, or, when it holds a comma, a
 * quote or a line break, in quotes with its quotes doubled. */
void out_csv_text(FILE *f, const char *s);
/* One value as a CSV cell (text through out_csv_text). */
void out_csv_value(FILE *f, const report_value *v);

/* Two results on one scenario (`compare`): both figure sets with the
 * ratios B/A, then the phases of either with the differences B - A.
 * format: table | json | csv (one row per figure). */
void out_compare(FILE *f, const sim_result *a, const sim_result *b, const char *format);
/* The step's figures compare's table shows (and the screen's comparison),
 * one a row: row k's label; r's value as text into buf (96 bytes hold
 * any), returned; its ratio B/A, or NAN for text (or when A's is 0). */
int out_compare_nrows(void);
const char *out_compare_label(int k);
char *out_compare_value(int k, const sim_result *r, char *buf, size_t n);
double out_compare_ratio(int k, const sim_result *a, const sim_result *b);

/* One row per existing directed link: x,y,dir,bytes,busy_s,util, over the
 * step, or over one phase (phase >= 0; util is then the share of the time
 * that phase runs). format: table | json | csv. */
int out_links(FILE *f, const sim_result *r, int phase, const char *format);
/* The flit level's run of phase `phase` of r in one line (what ran, its
 * time beside the flow level's, calibrated when the layout is): buf. */
char *out_flit_summary(char *buf, size_t n, const sim_result *r, int phase, const flit_phase_out *o);
/* The links of a phase's window at flit level (flit_phase.h), one row per
 * directed link between two of its units: x,y,dir,bytes,busy_s,util,
 * buffer_mean,buffer_peak (mesh coordinates); csv, table or json.
 * Returns 0, or -1 out of memory. */
int out_flit_links(FILE *f, const sim_result *r, const flit_phase_out *o, const char *format);

/* A search of model m on wf: the counts, the top K and the baselines, or,
 * when nothing fits (s->ntop 0), the counts and why: the table's heading,
 * the CSV's header alone, a JSON document with "fits": false and "why".
 * format: table | json | csv. */
void out_search(FILE *f, const search_result *s, const wafer *wf, const model *m, const char *format);

#endif
