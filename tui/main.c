/*
 * main.c - wafertop: subcommand dispatch. Only this file prints errors and
 * chooses the exit status: 0 ok, 2 bad input, 1 internal error.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "paths.h"
#include "sim.h"

#define WT_VERSION "0.1.0"

typedef struct command {
    const char *name;
    const char *usage;
    int (*run)(int argc, char **argv, const char *root);
} command;

static int exit_code(int rc)
{
    return rc == WT_EINPUT ? 2 : rc == WT_OK ? 0 : 1;
}

static int fail(int rc, const wt_err *e)
{
    fprintf(stderr, "%s\n", e->msg);
    return exit_code(rc);
}

/* Parses the scenario flags and evaluates it into r; the caller frees wf and r. */
static int evaluate(int argc, char **argv, unsigned extra, const char *root, cli_opts *o, wafer *wf,
                    sim_result *r, wt_err *e)
{
    int rc = cli_parse(argc, argv, extra, o, e);
    if (rc != WT_OK || o->help)
        return rc;
    model m;
    strategy s;
    rc = cli_load(o, root, wf, &m, &s, e);
    if (rc != WT_OK)
        return rc;
    rc = sim_eval(r, wf, &m, &s, e);
    if (rc != WT_OK)
        wafer_free(wf);
    return rc;
}

static int run_eval(int argc, char **argv, const char *root)
{
    cli_opts o;
    wafer wf;
    sim_result r;
    wt_err e;
    int rc = evaluate(argc, argv, 0, root, &o, &wf, &r, &e);
    if (rc != WT_OK)
        return fail(rc, &e);
    if (o.help) {
        printf("usage: wafertop eval [options] [--format table|json|csv]\n"
               "Simulates one training step and prints its figures.\n\n%s",
               cli_scenario_help());
        return 0;
    }
    if (!strcmp(o.format, "json"))
        out_eval_json(stdout, &r);
    else if (!strcmp(o.format, "csv"))
        out_eval_csv(stdout, &r);
    else
        out_eval_table(stdout, &r);
    sim_free(&r);
    wafer_free(&wf);
    return 0;
}

static int run_links(int argc, char **argv, const char *root)
{
    cli_opts o;
    wafer wf;
    sim_result r;
    wt_err e;
    int rc = evaluate(argc, argv, CLI_PHASE, root, &o, &wf, &r, &e);
    if (rc != WT_OK)
        return fail(rc, &e);
    if (o.help) {
        printf("usage: wafertop links [options] [--phase NAME] [--format csv|table|json]\n"
               "One row per directed link: x,y,dir,bytes,busy_s,util over the step (or one phase).\n"
               "dir is where the bytes go from unit x,y: E (x+1), W (x-1), N (y-1), S (y+1).\n\n%s",
               cli_scenario_help());
        return 0;
    }
    int phase = -1;
    if (o.phase && (phase = sim_phase_find(&r, o.phase)) < 0) {
        char list[512] = "";
        for (int i = 0; i < r.nphases; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", r.phases[i].name);
        fprintf(stderr, "--phase: no phase '%s' in this step (phases: %s)\n", o.phase, list);
        rc = 2;
    } else {
        /* links default to CSV: one row per link is data, not a report */
        rc = out_links(stdout, &r, phase, o.format_given ? o.format : "csv") ? 1 : 0;
    }
    sim_free(&r);
    wafer_free(&wf);
    return rc;
}

static const command commands[] = {
    {"eval", "eval [options]      simulate one step, print its figures", run_eval},
    {"links", "links [options]     per-link bytes and utilisation", run_links},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: wafertop COMMAND [options]\n\n"
               "wafertop simulates LLM training steps on wafer-scale chips.\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  wafertop %s\n", commands[i].usage);
    fprintf(f, "\n  wafertop CMD --help   options of a command\n  wafertop --version\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("wafertop " WT_VERSION "\n");
        return 0;
    }
    char root[4096];
    paths_data_root(root, sizeof root);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 2, argv + 2, root);
    fprintf(stderr, "wafertop: unknown command '%s' (try wafertop --help)\n", argv[1]);
    return 2;
}
