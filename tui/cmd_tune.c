/*
 * cmd_tune.c - wafertop tune: a session run for N steps with a policy acting
 * between them; one row per step, then a summary.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
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

static void print_rows(FILE *f, const tune_row *rows, int n, const char *format)
{
    int first = -1, best = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].step_time_s <= 0)
            continue;
        if (first < 0)
            first = i;
        if (best < 0 || rows[i].step_time_s < rows[best].step_time_s)
            best = i;
    }
    double best_util = -1, best_peak = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].step_time_s <= 0)
            continue;
        if (best_util < 0 || rows[i].max_link_util < best_util)
            best_util = rows[i].max_link_util;
        if (best_peak < 0 || rows[i].max_peak_util < best_peak)
            best_peak = rows[i].max_peak_util;
    }
    if (!strcmp(format, "json")) {
        json_writer w;
        json_init(&w, f);
        json_begin_object(&w);
        json_key(&w, "steps");
        json_begin_array(&w);
        for (int i = 0; i < n; i++) {
            json_begin_object(&w);
            json_key(&w, "step");
            json_int(&w, rows[i].step);
            json_key(&w, "strategy");
            json_string(&w, rows[i].strategy);
            json_key(&w, "step_time_s");
            json_number(&w, rows[i].step_time_s);
            json_key(&w, "max_link_util");
            json_number(&w, rows[i].max_link_util);
            json_key(&w, "max_peak_util");
            json_number(&w, rows[i].max_peak_util);
            json_key(&w, "hot_links");
            json_int(&w, rows[i].hot_links);
            json_key(&w, "action");
            json_string(&w, rows[i].action);
            json_end_object(&w);
        }
        json_end_array(&w);
        json_key(&w, "first_step_time_s");
        json_number(&w, first >= 0 ? rows[first].step_time_s : 0);
        json_key(&w, "best_step_time_s");
        json_number(&w, best >= 0 ? rows[best].step_time_s : 0);
        json_key(&w, "first_max_link_util");
        json_number(&w, first >= 0 ? rows[first].max_link_util : 0);
        json_key(&w, "best_max_link_util");
        json_number(&w, best_util);
        json_key(&w, "first_max_peak_util");
        json_number(&w, first >= 0 ? rows[first].max_peak_util : 0);
        json_key(&w, "best_max_peak_util");
        json_number(&w, best_peak);
        json_end_object(&w);
        return;
    }
    int csv = !strcmp(format, "csv");
    fprintf(f, csv ? "step,strategy,step_time_s,max_link_util,max_peak_util,hot_links,action\n"
                   : "%4s  %-24s %12s %9s %9s %5s  %s\n",
            "step", "strategy", "step_time_s", "link util", "peak", "hot", "action");
    for (int i = 0; i < n; i++) {
        const tune_row *r = &rows[i];
        if (csv)
            fprintf(f, "%d,\"%s\",%.10g,%.10g,%.10g,%d,\"%s\"\n", r->step, r->strategy, r->step_time_s,
                    r->max_link_util, r->max_peak_util, r->hot_links, r->action);
        else
            fprintf(f, "%4d  %-24s %12.6g %8.1f%% %8.1f%% %5d  %s\n", r->step, r->strategy, r->step_time_s,
                    100 * r->max_link_util, 100 * r->max_peak_util, r->hot_links, r->action);
    }
    if (first < 0)
        return;
    double k = csv ? 1 : 100;
    fprintf(csv ? stderr : f, /* CSV is the rows alone: its summary is for a person */
            csv ? "first step_time_s=%.10g max_link_util=%.10g max_peak_util=%.10g; "
                  "best step_time_s=%.10g max_link_util=%.10g max_peak_util=%.10g\n"
                : "\nfirst: step %.6g s, max link util %.1f%%, peak %.1f%%;  "
                  "best: step %.6g s, max link util %.1f%%, peak %.1f%%\n",
            rows[first].step_time_s, k * rows[first].max_link_util, k * rows[first].max_peak_util,
            rows[best].step_time_s, k * best_util, k * best_peak);
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
        rc = cli_parse(nargs, args ? args : argv, CLI_TUNE, root, &o, &e);
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
