/*
 * report.h - the names and values of a result's figures, in one place, so
 * that JSON, CSV, tables and the Lua binding all use the same keys.
 *
 * A result has four sections: the top-level figures, "strategy", "memory"
 * (the fullest unit) and "phases" (one record per phase). Values are numbers
 * in SI units, whole numbers, strings or booleans.
 */
#ifndef WT_REPORT_H
#define WT_REPORT_H

#include "sim.h"

typedef enum report_section { REPORT_TOP = 0, REPORT_STRATEGY, REPORT_MEMORY, REPORT_PHASE, REPORT_NSECTIONS } report_section;
typedef enum report_kind { REPORT_NUM, REPORT_INT, REPORT_STR, REPORT_BOOL } report_kind;

typedef struct report_value {
    report_kind kind;
    double num;          /* REPORT_NUM, REPORT_INT, REPORT_BOOL (0 or 1) */
    const char *str;     /* REPORT_STR: points into buf or into the result */
    char buf[96];
} report_value;

/* The section's key as it appears in JSON ("strategy"), NULL for the top. */
const char *report_section_key(report_section s);
/* Number of fields of a section and the name of field i. */
int report_nfields(report_section s);
const char *report_field_name(report_section s, int i);
/* The index of the field called name in a section, or -1. */
int report_field_find(report_section s, const char *name);
/* Value of field i; index selects the phase for REPORT_PHASE. */
void report_get(const sim_result *r, report_section s, int i, int index, report_value *v);

#endif
