/*
 * cmd_tune.c - wafertop tune: a session run for N steps with a policy acting
 * between them; one row per step, then a summary: the first step's row and
 * the fastest step's.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "out.h"
#include "scenario.h"
#include "session.h"
#include "sysmem.h"
#include "wtlua.h"

/* Hot links a policy's on_hot_link sees per step, hottest first. */
#define MAX_HOT 8

typedef struct tune_row {
    int step;
    char strategy[64];
    double step_time_s, max_link_util, max_peak_util;
    int hot_links;
    char action[SESSION_LOG + 64];
} tune_row;

/* The steps that ran: the first, and the fastest (the first of equals).
 * Each summary line reads one step's row, so its figures belong together. */
static void ran_steps(const tune_row *rows, int n, int *first, int *best)
{
    *first = *best = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].step_time_s <= 0) /* failed */
            continue;
        if (*first < 0)
            *first = i;
        if (*best < 0 || rows[i].step_time_s < rows[*best].step_time_s)
            *best = i;
    }
}

/* The columns of a row as JSON and CSV name and print them, in order. */
typedef enum col_kind { COL_INT, COL_TEXT, COL_NUM } col_kind;
static const struct {
    const char *name;
    col_kind kind;
    size_t at; /* offset in tune_row */
} cols[] = {
    {"step", COL_INT, offsetof(tune_row, step)},
    {"strategy", COL_TEXT, offsetof(tune_row, strategy)},
    {"step_time_s", COL_NUM, offsetof(tune_row, step_time_s)},
    {"max_link_util", COL_NUM, offsetof(tune_row, max_link_util)},
    {"max_peak_util", COL_NUM, offsetof(tune_row, max_peak_util)},
    {"hot_links", COL_INT, offsetof(tune_row, hot_links)},
    {"action", COL_TEXT, offsetof(tune_row, action)},
};
#define NCOLS (sizeof cols / sizeof cols[0])

static const void *cell(const tune_row *r, size_t c)
{
    return (const char *)r + cols[c].at;
}

static void json_row(json_writer *w, const tune_row *r)
{
    json_begin_object(w);
    for (size_t c = 0; c < NCOLS; c++) {
        json_key(w, cols[c].name);
        if (cols[c].kind == COL_INT)
            json_int(w, *(const int *)cell(r, c));
        else if (cols[c].kind == COL_TEXT)
            json_string(w, cell(r, c));
        else
            json_number(w, *(const double *)cell(r, c));
    }
    json_end_object(w);
}

/* One CSV line: r's cells, or the header when r is NULL. */
static void csv_row(FILE *f, const tune_row *r)
{
    for (size_t c = 0; c < NCOLS; c++) {
        if (c)
            fputc(',', f);
        if (!r)
            fputs(cols[c].name, f);
        else if (cols[c].kind == COL_INT)
            fprintf(f, "%d", *(const int *)cell(r, c));
        else if (cols[c].kind == COL_TEXT)
            out_csv_text(f, cell(r, c));
        else
            fprintf(f, "%.10g", *(const double *)cell(r, c));
    }
    fputc('\n', f);
}

/* The rows, then "first" and "best": the JSON's keys, null when no step ran. */
static void print_json(FILE *f, const tune_row *rows, int n, int first, int best)
{
    json_writer w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "steps");
    json_begin_array(&w);
    for (int i = 0; i < n; i++)
        json_row(&w, &rows[i]);
    json_end_array(&w);
    json_key(&w, "first");
    if (first >= 0)
        json_row(&w, &rows[first]);
    else
        json_null(&w);
    json_key(&w, "best");
    if (best >= 0)
        json_row(&w, &rows[best]);
    else
        json_null(&w);
    json_end_object(&w);
}

static void print_rows(FILE *f, const tune_row *rows, int n, const char *format)
{
    int first, best;
    ran_steps(rows, n, &first, &best);
    if (!strcmp(format, "json")) {
        print_json(f, rows, n, first, best);
        return;
    }
    int csv = !strcmp(format, "csv");
    if (csv) {
        csv_row(f, NULL); /* the header */
        for (int i = 0; i < n; i++)
            csv_row(f, &rows[i]);
    } else {
        fprintf(f, "%4s  %-24s %12s %9s %9s %5s  %s\n", "step", "strategy", "step_time_s", "link util", "peak", "hot",
                "action");
        for (int i = 0; i < n; i++)
            fprintf(f, "%4d  %-24s %12.6g %8.1f%% %8.1f%% %5d  %s\n", rows[i].step, rows[i].strategy,
                    rows[i].step_time_s, 100 * rows[i].max_link_util, 100 * rows[i].max_peak_util, rows[i].hot_links,
                    rows[i].action);
    }
    if (first < 0)
        return;
    /* CSV is the rows alone: its summary is for a person, on stderr */
    FILE *to = csv ? stderr : f;
    if (!csv)
        fputc('\n', f);
    for (int k = 0; k < 2; k++) {
        const tune_row *r = &rows[k ? best : first];
        fprintf(to, "%-5s (step %d): %.6g s, max link util %.1f%%, peak %.1f%%\n", k ? "best" : "first", r->step,
                r->step_time_s, 100 * r->max_link_util, 100 * r->max_peak_util);
    }
}

int cmd_tune(int argc, char **argv, const char *root)
{
    cli_opts o;
    wt_err e;
    scenario_file *sf = calloc(1, sizeof *sf);
    char **args = NULL;
    int nargs = argc;
    int rc = sf ? scenario_expand(argc, argv, sf, &nargs, &args, &e) : wt_oom(&e, "scenario");
    if (rc == WT_OK)
        rc = cli_parse(nargs, args ? args : argv, CLI_TUNE | CLI_FORMAT, root, &o, &e);
    if (rc == WT_OK && o.steps) { /* every step keeps its row: refuse what cannot be kept */
        char what[40];
        snprintf(what, sizeof what, "--steps %d", o.steps);
        rc = sysmem_check((double)o.steps * sizeof(tune_row), what, &e);
    }
    if (rc == WT_OK && o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop tune [--policy NAME|FILE] [--steps N] [--seed S --jitter X --straggler P]\n"
               "       [--scenario FILE] [scenario options] [--format table|csv|json]\n"
               "Runs the scenario step by step; the policy acts between steps.\n\n%s%s%s",
               cli_tune_help(), cli_scenario_help(help, sizeof help), cli_lua_help());
        rc = cli_print_scripts(stdout, NULL, &o.lua, CLI_SCRIPTS(WTLUA_POLICY) | CLI_SCRIPTS(WTLUA_STRATEGY), &e);
        free(args);
        free(sf);
        return cmd_exit(rc, &e);
    }
    wtlua *L = NULL;
    wafer wf;
    model m;
    strategy s;
    session S;
    int loaded = 0, started = 0;
    char policy[64] = "";
    if (rc == WT_OK && (rc = wtlua_new(&L, &o.lua, &e)) == WT_OK && o.policy)
        rc = wtlua_load_policy(L, o.policy, policy, sizeof policy, &e);
    if (rc == WT_OK && (rc = cli_load(&o, root, &L, &wf, &m, &s, &e)) == WT_OK)
        loaded = 1;
    session_opts so = {(uint64_t)o.seed, o.jitter, o.straggler, o.net, o.window};
    if (rc == WT_OK && (rc = session_new(&S, &wf, &m, &s, &so, &e)) == WT_OK)
        started = 1;
    if (rc == WT_OK && sf->has_tuning)
        rc = scenario_apply_tuning(sf, &S, &e);
    int steps = o.steps ? o.steps : 10, n = 0;
    tune_row *rows = rc == WT_OK ? calloc((size_t)steps, sizeof *rows) : NULL;
    if (rc == WT_OK && !rows)
        rc = wt_oom(&e, "tune rows");
    for (int i = 0; rc == WT_OK && i < steps; i++) {
        tune_row *row = &rows[n++];
        row->step = i + 1;
        strategy_format(&S.s, row->strategy, sizeof row->strategy);
        const sim_result *r;
        wt_err why;
        if (session_step(&S, &r, &why) != WT_OK) {
            snprintf(row->action, sizeof row->action, "step failed: %.200s", why.msg);
            row->step_time_s = 0;
        } else {
            strategy_format(&r->s, row->strategy, sizeof row->strategy);
            row->step_time_s = r->step_time_s;
            row->max_link_util = r->max_link_util;
            row->max_peak_util = r->max_peak_util;
            row->hot_links = r->hot_links;
            if (policy[0] && wtlua_policy_step(L, policy, &S, r, MAX_HOT, &why) != WT_OK) {
                /* a broken policy stops; the session goes on without it */
                snprintf(row->action, sizeof row->action, "policy %s stopped: %.*s", policy,
                         (int)strcspn(why.msg, "\n"), why.msg);
                policy[0] = '\0';
            }
        }
        char log[SESSION_LOG];
        session_take_log(&S, log, sizeof log);
        if (log[0])
            snprintf(row->action + strlen(row->action), sizeof row->action - strlen(row->action), "%s%s",
                     row->action[0] ? "; " : "", log);
        if (!row->action[0])
            strcpy(row->action, "-");
    }
    if (rc == WT_OK)
        print_rows(stdout, rows, n, o.format);
    free(rows);
    wtlua_free(L); /* before the session: Lua's results borrow its wafer */
    if (started)
        session_free(&S);
    if (loaded)
        wafer_free(&wf);
    free(args);
    free(sf);
    return cmd_exit(rc, &e);
}
