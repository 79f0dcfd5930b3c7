/*
 * out_compare.c - `wafertop compare`: two results on one scenario, A and
 * B. Every figure by report.c's names: each side's value, the ratio B/A
 * of a number (none when A's is 0) and its difference B - A; the phases
 * of either side matched by name (A's in order, then B's own), a side
 * without the phase having no value.
 */
#include <math.h>
#include <string.h>

#include "out.h"
#include "net.h"
#include "qty.h"

/* A phase of A or B or both: its index on each side, -1 where absent. */
typedef struct phase_pair {
    const char *name;
    int a, b;
} phase_pair;

/* The phases of either side, A's first; returns how many. */
static int phase_pairs(const sim_result *a, const sim_result *b, phase_pair *out)
{
    int n = 0;
    for (int i = 0; i < a->nphases; i++)
        out[n++] = (phase_pair){a->phases[i].name, i, sim_phase_find(b, a->phases[i].name)};
    for (int i = 0; i < b->nphases; i++)
        if (sim_phase_find(a, b->phases[i].name) < 0)
            out[n++] = (phase_pair){b->phases[i].name, -1, i};
    return n;
}

static int numeric(const report_value *v)
{
    return v->kind == REPORT_NUM || v->kind == REPORT_INT;
}

/* Field i of section s on side r (index: its phase, -1 when r lacks it);
 * 0 when there is no value. */
static int side_value(const sim_result *r, report_section s, int i, int index, report_value *v)
{
    if (index < 0)
        return 0;
    report_get(r, s, i, index, v);
    return 1;
}

/* CSV: phase,figure,a,b,b_over_a,b_minus_a; a step figure has no phase. */
static void csv_row(FILE *f, const char *phase, const char *key, const char *name, const report_value *a,
                    const report_value *b)
{
    fprintf(f, "%s,%s%s%s,", phase, key ? key : "", key ? "." : "", name);
    if (a)
        out_csv_value(f, a);
    fputc(',', f);
    if (b)
        out_csv_value(f, b);
    fputc(',', f);
    int both = a && b && numeric(a) && numeric(b);
    if (both && a->num != 0)
        fprintf(f, "%.10g", b->num / a->num);
    fputc(',', f);
    if (both)
        fprintf(f, "%.10g", b->num - a->num);
    fputc('\n', f);
}

static void out_csv(FILE *f, const sim_result *a, const sim_result *b, const phase_pair *pp, int np)
{
    static const report_section secs[] = {REPORT_TOP, REPORT_STRATEGY, REPORT_MEMORY};
    fprintf(f, "phase,figure,a,b,b_over_a,b_minus_a\n");
    for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++)
        for (int i = 0; i < report_nfields(secs[s]); i++) {
            report_value va, vb;
            report_get(a, secs[s], i, 0, &va);
            report_get(b, secs[s], i, 0, &vb);
            csv_row(f, "", report_section_key(secs[s]), report_field_name(secs[s], i), &va, &vb);
        }
    for (int p = 0; p < np; p++)
        for (int i = 1; i < report_nfields(REPORT_PHASE); i++) { /* field 0 is the name */
            report_value va, vb;
            int ha = side_value(a, REPORT_PHASE, i, pp[p].a, &va), hb = side_value(b, REPORT_PHASE, i, pp[p].b, &vb);
            csv_row(f, pp[p].name, NULL, report_field_name(REPORT_PHASE, i), ha ? &va : NULL, hb ? &vb : NULL);
        }
}

/* The numbers of a section (the phase index on each side; -1: absent) as
 * an object of b / a or b - a, or null when a side lacks it. */
static void json_numbers(json_writer *w, const sim_result *a, const sim_result *b, report_section s, int ia, int ib,
                         int ratio)
{
    if (ia < 0 || ib < 0) {
        json_number(w, NAN); /* null */
        return;
    }
    json_begin_object(w);
    for (int i = 0; i < report_nfields(s); i++) {
        report_value va, vb;
        report_get(a, s, i, ia, &va);
        report_get(b, s, i, ib, &vb);
        if (!numeric(&va) || !numeric(&vb))
            continue;
        json_key(w, report_field_name(s, i));
        json_number(w, ratio ? vb.num / va.num : vb.num - va.num); /* x / 0: null */
    }
    json_end_object(w);
}

static void out_json(FILE *f, const sim_result *a, const sim_result *b, const phase_pair *pp, int np)
{
    json_writer w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "a");
    out_eval_object(&w, a);
    json_key(&w, "b");
    out_eval_object(&w, b);
    json_key(&w, "ratio");
    json_numbers(&w, a, b, REPORT_TOP, 0, 0, 1);
    json_key(&w, "memory_ratio");
    json_numbers(&w, a, b, REPORT_MEMORY, 0, 0, 1);
    json_key(&w, "phases");
    json_begin_array(&w);
    for (int p = 0; p < np; p++) {
        json_begin_object(&w);
        json_key(&w, "name");
        json_string(&w, pp[p].name);
        json_key(&w, "in_a");
        json_bool(&w, pp[p].a >= 0);
        json_key(&w, "in_b");
        json_bool(&w, pp[p].b >= 0);
        json_key(&w, "diff");
        json_numbers(&w, a, b, REPORT_PHASE, pp[p].a, pp[p].b, 0);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
}

/* How a figure reads in the table. */
enum cell_kind { K_TIME, K_RATE, K_PCT, K_BYTES, K_COUNT, K_TEXT, K_FIT };

/* A value as the table shows it ("-": the side lacks it). */
static const char *cell(const report_value *v, int have, enum cell_kind k, char *buf, size_t n)
{
    if (!have)
        return "-";
    switch (k) {
    case K_TIME: return qty_format(v->num, QTY_TIME, buf, n);
    case K_RATE: return qty_format(v->num, QTY_TOKEN_RATE, buf, n);
    case K_BYTES: return qty_format(v->num, QTY_BYTES, buf, n);
    case K_PCT: snprintf(buf, n, "%.1f %%", 100 * v->num); return buf;
    case K_COUNT: snprintf(buf, n, "%.0f", v->num); return buf;
    case K_FIT: return v->num ? "fits" : "DOES NOT FIT";
    default: return v->str;
    }
}

/* The step's figures the table shows, by report.c's names. */
static const struct {
    const char *label;
    report_section s;
    const char *field;
    enum cell_kind kind;
} table_rows[] = {
    {"strategy", REPORT_STRATEGY, "text", K_TEXT},
    {"placement", REPORT_STRATEGY, "placement", K_TEXT},
    {"step time", REPORT_TOP, "step_time_s", K_TIME},
    {"tokens/s", REPORT_TOP, "tokens_per_s", K_RATE},
    {"MFU", REPORT_TOP, "mfu", K_PCT},
    {"memory", REPORT_MEMORY, "total", K_BYTES},
    {"mem fits", REPORT_MEMORY, "fits", K_FIT},
    {"link max", REPORT_TOP, "max_link_util", K_PCT},
    {"link mean", REPORT_TOP, "mean_link_util", K_PCT},
    {"hot links", REPORT_TOP, "hot_links", K_COUNT},
    {"bottleneck", REPORT_TOP, "bottleneck_phase", K_TEXT},
};

/* The phases' columns: each side's and B - A. */
static const struct {
    const char *label, *field;
    enum cell_kind kind;
} phase_cols[] = {
    {"time", "time_s", K_TIME},
    {"comm", "comm_s", K_TIME},
    {"link", "max_link_util", K_PCT},
};

int out_compare_nrows(void)
{
    return (int)(sizeof table_rows / sizeof table_rows[0]);
}

const char *out_compare_label(int k)
{
    return table_rows[k].label;
}

char *out_compare_value(int k, const sim_result *r, char *buf, size_t n)
{
    report_value v;
    report_get(r, table_rows[k].s, report_field_find(table_rows[k].s, table_rows[k].field), 0, &v);
    const char *text = cell(&v, 1, table_rows[k].kind, buf, n);
    if (text != buf) /* a string of v's or a constant */
        snprintf(buf, n, "%s", text);
    return buf;
}

double out_compare_ratio(int k, const sim_result *a, const sim_result *b)
{
    report_value va, vb;
    int i = report_field_find(table_rows[k].s, table_rows[k].field);
    report_get(a, table_rows[k].s, i, 0, &va);
    report_get(b, table_rows[k].s, i, 0, &vb);
    return numeric(&va) && numeric(&vb) && va.num != 0 ? vb.num / va.num : NAN;
}

static void out_table(FILE *f, const sim_result *a, const sim_result *b, const phase_pair *pp, int np)
{
    char sa[96], sb[96], sd[48];
    fprintf(f, "layout    %s: %dx%d mesh   model %s: seq %d, batch %d   net %s\n\n", a->wf->name, a->wf->w, a->wf->h,
            a->m.name, a->m.seq, a->m.batch, a->net->c.name);
    fprintf(f, "%-16s %-22s %-22s %s\n", "", "A", "B", "B/A");
    for (int k = 0; k < out_compare_nrows(); k++) {
        double ratio = out_compare_ratio(k, a, b);
        fprintf(f, "%-16s %-22s %-*s", out_compare_label(k), out_compare_value(k, a, sa, sizeof sa),
                isnan(ratio) ? 0 : 22, out_compare_value(k, b, sb, sizeof sb));
        if (!isnan(ratio))
            fprintf(f, " %.3f", ratio);
        fputc('\n', f);
    }
    fprintf(f, "\n%-16s", "phase");
    for (size_t c = 0; c < sizeof phase_cols / sizeof phase_cols[0]; c++)
        fprintf(f, " %9s A %9s B %10s", phase_cols[c].label, phase_cols[c].label, "B - A");
    fputc('\n', f);
    for (int p = 0; p < np; p++) {
        fprintf(f, "%-16s", pp[p].name);
        for (size_t c = 0; c < sizeof phase_cols / sizeof phase_cols[0]; c++) {
            int i = report_field_find(REPORT_PHASE, phase_cols[c].field);
            report_value va, vb, vd = {.kind = REPORT_NUM};
            int ha = side_value(a, REPORT_PHASE, i, pp[p].a, &va), hb = side_value(b, REPORT_PHASE, i, pp[p].b, &vb);
            vd.num = ha && hb ? vb.num - va.num : 0;
            const char *d = cell(&vd, ha && hb, phase_cols[c].kind, sd + 1, sizeof sd - 1);
            if (ha && hb && vd.num > 0) { /* a sign on every difference */
                sd[0] = '+';
                d = sd;
            }
            fprintf(f, " %11s %11s %10s", cell(&va, ha, phase_cols[c].kind, sa, sizeof sa),
                    cell(&vb, hb, phase_cols[c].kind, sb, sizeof sb), d);
        }
        fputc('\n', f);
    }
}

void out_compare(FILE *f, const sim_result *a, const sim_result *b, const char *format)
{
    phase_pair pp[2 * SIM_MAX_PHASES];
    int np = phase_pairs(a, b, pp);
    if (!strcmp(format, "json"))
        out_json(f, a, b, pp, np);
    else if (!strcmp(format, "csv"))
        out_csv(f, a, b, pp, np);
    else
        out_table(f, a, b, pp, np);
}
