/*
 * main.c - wafertop: subcommand dispatch. Only this file prints errors and
 * chooses the exit status: 0 ok, 2 bad input, 1 internal error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "cmd.h"
#include "heap.h"
#include "mpi_job.h"
#include "out.h"
#include "paths.h"
#include "qty.h"
#include "search.h"
#include "search_mpi.h"
#include "sim.h"
#include "snapshot.h"
#include "wtlua.h"

#define WT_VERSION "0.1.0"

typedef struct command {
    const char *name;
    const char *usage;
    int (*run)(int argc, char **argv, const char *root);
} command;

int cmd_exit(int rc, const wt_err *e)
{
    if (rc != WT_OK && e)
        fprintf(stderr, "%s\n", e->msg);
    return rc == WT_EINPUT ? 2 : rc == WT_OK ? 0 : 1;
}


/* Everything a command that evaluates a scenario holds. */
typedef struct scenario {
    cli_opts o;
    wtlua *lua;      /* made on demand (lua: strategies, cmd) */
    wafer wf;
    sim_result r;
    int loaded, evaluated;
} scenario;

static void scenario_free(scenario *sc)
{
    if (sc->evaluated)
        sim_free(&sc->r);
    wtlua_free(sc->lua); /* before the wafer: Lua results borrow it */
    if (sc->loaded)
        wafer_free(&sc->wf);
}

/* Parses the flags (o must be parsed already) and evaluates the scenario. */
static int evaluate(scenario *sc, const char *root, wt_err *e)
{
    model m;
    strategy s;
    int rc = cli_load(&sc->o, root, &sc->lua, &sc->wf, &m, &s, e);
    if (rc != WT_OK)
        return rc;
    sc->loaded = 1;
    rc = sim_eval_net(&sc->r, &sc->wf, sc->o.net, &m, &s, e);
    sc->evaluated = rc == WT_OK;
    if (rc == WT_OK)
        rc = sim_window_figures(&sc->r, sc->o.window, e);
    if (rc == WT_OK && sc->o.window > sc->r.step_time_s)
        fprintf(stderr, "note: --window %g s is longer than the step (%g s): the step is used\n", sc->o.window,
                sc->r.step_time_s);
    return rc;
}

static int run_eval(int argc, char **argv, const char *root)
{
    scenario sc = {0};
    wt_err e;
    int rc = cli_parse(argc, argv, CLI_FORMAT, root, &sc.o, &e);
    if (rc == WT_OK && sc.o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop eval [options] [--format table|json|csv]\n"
               "Simulates one training step and prints its figures.\n\n%s%s",
               cli_scenario_help(help, sizeof help), cli_lua_help());
        return cmd_exit(cli_print_scripts(stdout, NULL, &sc.o.lua, CLI_SCRIPTS(WTLUA_STRATEGY), &e), &e);
    }
    if (rc == WT_OK)
        rc = evaluate(&sc, root, &e);
    if (rc == WT_OK) {
        if (!strcmp(sc.o.format, "json"))
            out_eval_json(stdout, &sc.r);
        else if (!strcmp(sc.o.format, "csv"))
            out_eval_csv(stdout, &sc.r);
        else
            out_eval_table(stdout, &sc.r);
    }
    scenario_free(&sc);
    return rc == WT_OK ? 0 : cmd_exit(rc, &e);
}

/* The phase --phase names. */
static int find_phase(const sim_result *r, const char *name, int *phase, wt_err *e)
{
    if ((*phase = sim_phase_find(r, name)) >= 0)
        return WT_OK;
    char list[512] = "";
    for (int i = 0; i < r->nphases; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", r->phases[i].name);
    return wt_fail(e, "--phase: no phase '%s' in this step (phases: %s)", name, list);
}

/* links --net flit: the phase's rows on stdout, what was run on stderr. */
static int run_flit_phase(const sim_result *r, int phase, const cli_opts *co, const char *format, wt_err *e)
{
    flit_phase_out o;
    flit_phase_opts fo = {FLIT_PHASE_LINK_FLITS, co->flit_x, co->flit_y, NULL};
    int rc = flit_phase_run(r, phase, &fo, &o, e);
    if (rc != WT_OK)
        return rc;
    char line[512];
    fprintf(stderr, "%s\n", out_flit_summary(line, sizeof line, r, phase, &o));
    if (out_flit_links(stdout, r, &o, format) != 0)
        rc = wt_oom(e, "links");
    flit_phase_free(&o);
    return rc;
}

static int run_links(int argc, char **argv, const char *root)
{
    scenario sc = {0};
    wt_err e;
    int rc = cli_parse(argc, argv, CLI_PHASE | CLI_FORMAT | CLI_FLIT, root, &sc.o, &e);
    if (rc == WT_OK && sc.o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop links [options] [--phase NAME] [--net flit [--flit-window x,y]] [--format csv|table|json]\n"
               "One row per directed link: x,y,dir,bytes,busy_s,util over the step (or one phase).\n"
               "dir is where the bytes go from unit x,y: E (x+1), W (x-1), N (y-1), S (y+1).\n"
               "With --net flit, one occurrence of the phase cycle by cycle on wormhole routers (the\n"
               "layout's router: section), on at most a %dx%d window (centred on the phase's busiest\n"
               "link, or from --flit-window's corner): x,y,dir,bytes,busy_s,util,\n"
               "buffer_mean,buffer_peak (flits held in the buffers the link feeds); the summary on stderr.\n\n%s%s",
               FLIT_MAX_SIDE, FLIT_MAX_SIDE,
               cli_scenario_help(help, sizeof help), cli_lua_help());
        return cmd_exit(cli_print_scripts(stdout, NULL, &sc.o.lua, CLI_SCRIPTS(WTLUA_STRATEGY), &e), &e);
    }
    if (rc == WT_OK && sc.o.flit && !sc.o.phase)
        rc = wt_fail(&e, "--net flit: name the phase to run with --phase NAME");
    if (rc == WT_OK)
        rc = evaluate(&sc, root, &e);
    int phase = -1;
    if (rc == WT_OK && sc.o.phase)
        rc = find_phase(&sc.r, sc.o.phase, &phase, &e);
    /* links default to CSV: one row per link is data, not a report */
    const char *format = sc.o.format_given ? sc.o.format : "csv";
    if (rc == WT_OK && sc.o.flit)
        rc = run_flit_phase(&sc.r, phase, &sc.o, format, &e);
    else if (rc == WT_OK && out_links(stdout, &sc.r, phase, format) != 0)
        rc = wt_oom(&e, "links");
    scenario_free(&sc);
    return rc == WT_OK ? 0 : cmd_exit(rc, &e);
}

static int run_snapshot(int argc, char **argv, const char *root)
{
    scenario sc = {0};
    wt_err e;
    int rc = cli_parse(argc, argv, CLI_PHASE | CLI_PICTURE, root, &sc.o, &e);
    if (rc == WT_OK && sc.o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop snapshot [options] --out FILE.png|FILE.svg\n"
               "Writes the heatmap as the screen shows it, with a title, axes, a legend and the figures.\n\n"
               "%s%s%s",
               cli_picture_help(), cli_scenario_help(help, sizeof help), cli_lua_help());
        return 0;
    }
    int format;
    if (rc == WT_OK && !sc.o.out)
        rc = wt_fail(&e, "--out: where to write the picture is needed (FILE.png or FILE.svg)");
    if (rc == WT_OK)
        rc = pic_format_of(sc.o.out, "--out", &format, &e);
    theme th;
    theme_default(&th);
    if (rc == WT_OK && sc.o.theme) /* checked by cli_parse: this is the load */
        rc = theme_find(root, sc.o.theme, &th, &e);
    if (rc == WT_OK)
        rc = evaluate(&sc, root, &e);
    int phase = -1;
    if (rc == WT_OK && sc.o.phase)
        rc = find_phase(&sc.r, sc.o.phase, &phase, &e);
    snap_opts so = {.mode = sc.o.view, .average = phase < 0, .th = &th};
    if (rc == WT_OK && phase >= 0 && (so.t = sim_phase_first(&sc.r, phase)) < 0)
        rc = wt_fail(&e, "--phase: %s does not run in this step", sc.o.phase);
    if (rc == WT_OK) {
        so.window_s = fmin(sc.o.window, sc.r.step_time_s);
        rc = snap_result(&sc.r, &so, sc.o.out, "--out", NULL, &e);
    }
    if (rc == WT_OK)
        fprintf(stderr, "wrote %s: %s of %s on %s\n", sc.o.out, snap_view_names[sc.o.view], sc.r.m.name,
                sc.wf.name);
    scenario_free(&sc);
    return rc == WT_OK ? 0 : cmd_exit(rc, &e);
}

#define RUN_USAGE "wafertop run [lua options] SCRIPT.lua [args...]"

static int run_script(int argc, char **argv, const char *root)
{
    cli_opts o;
    wt_err e;
    int rc = cli_parse(argc, argv, CLI_NO_SCENARIO | CLI_REST | CLI_STOP, root, &o, &e);
    if (rc == WT_OK && o.help) {
        printf("usage: %s\n"
               "Runs a Lua script with the wafertop module loaded (as `wt`); arg[1..] are its args.\n\n%s",
               RUN_USAGE, cli_lua_help());
        return 0;
    }
    if (rc == WT_OK && o.nrest == 0)
        rc = wt_fail(&e, "run: no script given (usage: %s)", RUN_USAGE);
    if (rc == WT_OK && !strncmp(o.rest[0], "--", 2))
        rc = wt_fail(&e, "unknown option '%s'", o.rest[0]);
    wtlua *L = NULL;
    if (rc == WT_OK)
        rc = wtlua_new(&L, &o.lua, &e);
    if (rc == WT_OK)
        rc = wtlua_run_file(L, o.rest[0], o.nrest - 1, o.rest + 1, &e);
    wtlua_free(L);
    return rc == WT_OK ? 0 : cmd_exit(rc, &e);
}

static int cmd_usage(const scenario *sc, wt_err *e)
{
    char help[CLI_HELP_MAX];
    printf("usage: wafertop cmd NAME [args...] [scenario options]\n"
           "Evaluates the scenario, then runs the Lua command NAME on the result. The scenario and Lua\n"
           "flags below are wafertop's wherever they are; every other word after NAME is NAME's\n"
           "(NAME --help lists its flags).\n\n%s%s",
           cli_scenario_help(help, sizeof help), cli_lua_help());
    return cli_print_scripts(stdout, sc->lua, &sc->o.lua, CLI_SCRIPTS(WTLUA_COMMAND) | CLI_SCRIPTS(WTLUA_STRATEGY),
                             e);
}

/* Under WAFERTOP_BENCH=1 (`make bench`), a command's time, its evaluation's
 * and its Lua's, as a bench line on stderr: the Lua part's target is 300 ms. */
static void cmd_bench(const char *name, const char *layout, double start, double evaluated, double done)
{
    const char *want = getenv("WAFERTOP_BENCH");
    if (!want || strcmp(want, "1"))
        return;
    double lua = done - evaluated;
    fprintf(stderr, "bench cmd_%s %s %.2f ms lua eval=%.2f total=%.2f target<300 %s\n", name, layout, 1e3 * lua,
            1e3 * (evaluated - start), 1e3 * (done - start), lua < 0.3 ? "pass" : "FAIL");
}

static int run_cmd(int argc, char **argv, const char *root)
{
    double start = wt_clock_s(), evaluated = start;
    scenario sc = {0};
    wt_err e;
    const char *name = argc > 0 && strncmp(argv[0], "-", 1) ? argv[0] : NULL;
    int rc = cli_parse(argc - (name != NULL), argv + (name != NULL), CLI_REST, root, &sc.o, &e);
    if (rc == WT_OK)
        rc = wtlua_new(&sc.lua, &sc.o.lua, &e);
    if (rc == WT_OK && sc.o.help) {
        const char *help = name ? wtlua_help(sc.lua, WTLUA_COMMAND, name) : NULL;
        if (help)
            printf("%s\n", help);
        else
            rc = cmd_usage(&sc, &e);
        scenario_free(&sc);
        return cmd_exit(rc, &e);
    }
    if (rc == WT_OK && (!name || !wtlua_help(sc.lua, WTLUA_COMMAND, name))) {
        const char *first;
        char list[1024];
        if (!wtlua_names(sc.lua, WTLUA_COMMAND, &first, 1))
            rc = wt_fail(&e, "cmd: no Lua commands found (is %s/lua installed?)", root);
        else if (name)
            rc = wt_fail(&e, "unknown command '%s' (commands: %s)", name,
                         wtlua_name_list(sc.lua, WTLUA_COMMAND, list, sizeof list));
        else
            rc = wt_fail(&e, "cmd: a command name is needed first: wafertop cmd NAME [flags] (commands: %s)",
                         wtlua_name_list(sc.lua, WTLUA_COMMAND, list, sizeof list));
    }
    if (rc == WT_OK)
        rc = evaluate(&sc, root, &e);
    if (rc == WT_OK) {
        sc.evaluated = 0; /* the result now belongs to Lua */
        evaluated = wt_clock_s();
        rc = wtlua_run_command(sc.lua, name, sc.o.nrest, sc.o.rest, &sc.r, &e);
        if (rc == WT_OK)
            cmd_bench(name, sc.o.layout, start, evaluated, wt_clock_s());
    }
    scenario_free(&sc);
    return rc == WT_OK ? 0 : cmd_exit(rc, &e);
}

/* A search's progress on stderr (not with --quiet): on a terminal a bar
 * for searches longer than a second; elsewhere (a log, a pipe) a line
 * every PROGRESS_LOG_S seconds, so that a long search says how far it is. */
#define PROGRESS_LOG_S 10

typedef struct progress {
    struct timespec start;
    int on, tty, shown;
    double logged; /* the elapsed time of the last line, s */
} progress;

/* ", about N s left" into buf (empty before 2 % is done: the rate so far,
 * as the search reports about equal work per step of done). */
static const char *eta(char *buf, size_t n, double elapsed, double done)
{
    if (done > 0.02)
        snprintf(buf, n, ", about %.0f s left", elapsed * (1 - done) / done);
    else
        buf[0] = '\0';
    return buf;
}

static void progress_draw(void *ud, double done)
{
    progress *p = ud;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double elapsed = (double)(now.tv_sec - p->start.tv_sec) + (now.tv_nsec - p->start.tv_nsec) * 1e-9;
    char left[48];
    if (p->on && !p->tty && done < 1 && elapsed >= p->logged + PROGRESS_LOG_S) {
        p->logged = elapsed;
        fprintf(stderr, "search: %.0f%% after %.0f s%s\n", 100 * done, elapsed, eta(left, sizeof left, elapsed, done));
        return;
    }
    if (!p->on || !p->tty || (elapsed < 1 && !p->shown))
        return;
    if (done >= 1) {
        if (p->shown)
            fputs("\r\033[K", stderr);
        return;
    }
    int filled = (int)(done * 30);
    fprintf(stderr, "\rsearching [%.*s%*s] %3.0f%% %.1f s%s\033[K", filled, "##############################",
            30 - filled, "", 100 * done, elapsed, eta(left, sizeof left, elapsed, done));
    fflush(stderr);
    p->shown = 1;
}

static int run_search(int argc, char **argv, const char *root)
{
    cli_opts o;
    wt_err e;
    /* under mpirun: each rank a shard of the candidates, rank 0 the answer (search_mpi.h) */
    int rank = 0, size = 1, mpi = mpi_job_launched();
    int rc = mpi ? mpi_job_init("search", &rank, &size, &e) : WT_OK;
    mpi = mpi && rc == WT_OK;
    if (rc == WT_OK)
        rc = cli_parse(argc, argv, CLI_SEARCH | CLI_FORMAT, root, &o, &e);
    if (rc == WT_OK && o.help) {
        char help[CLI_HELP_MAX];
        if (rank == 0)
            printf("usage: wafertop search [--layout L] [--model M] [--seq N --batch N] [search options]\n"
                   "       [--format table|csv|json]\n"
                   "       mpirun -n N wafertop search ...   the candidates shared out over N ranks\n"
                   "Finds the fastest strategy: prunes by memory and a lower bound, then simulates the rest in\n"
                   "order of the bound; prints the best K beside Megatron TP, DeepSpeed 3D and the best without "
                   "TATP.\n\n"
                   "%s%s",
                   cli_search_help(), cli_scenario_help(help, sizeof help));
        if (mpi)
            mpi_job_finalize();
        return 0;
    }
    search_opts so;
    if (rc == WT_OK)
        rc = cli_search_opts(&o, &so, &e);
    if (rc == WT_OK && mpi && !o.jobs) /* a core a rank, unless --jobs says otherwise */
        so.jobs = 1;
    wafer wf;
    model m;
    int loaded = 0;
    if (rc == WT_OK && (rc = cli_load_hardware(&o, root, &wf, &m, &e)) == WT_OK)
        loaded = 1;
    if (mpi) { /* the ranks go on together or not at all (a file one node lacks) */
        int root_failed, any = mpi_job_any_failed(rank, rc != WT_OK, &root_failed);
        if (rank > 0 && rc != WT_OK && !root_failed) /* rank 0 cannot say it */
            fprintf(stderr, "search: rank %d: %s\n", rank, e.msg);
        if (any && rc == WT_OK)
            rc = wt_fail(&e, "search: another rank failed before the search (its error names it)");
    }
    search_result res;
    progress bar = {.on = !o.quiet && rank == 0, .tty = isatty(2)};
    clock_gettime(CLOCK_MONOTONIC, &bar.start);
    so.progress = progress_draw;
    so.progress_ud = &bar;
    int nofit = 0;
    if (rc == WT_OK && (rc = mpi ? search_mpi_run(&wf, &m, &so, rank, size, &res, &e)
                                 : search_run(&wf, &m, &so, &res, &e)) == WT_OK) {
        if (rank == 0) {
            out_search(stdout, &res, &wf, &m, o.format);
            if ((nofit = !res.ntop))
                fprintf(stderr, "search: nothing fits %s on %s: %s\n", m.name, wf.name, res.nofit);
        }
        search_free(&res);
    }
    if (loaded)
        wafer_free(&wf);
    if (mpi)
        mpi_job_finalize();
    if (nofit)
        return rank > 0 ? 0 : CMD_EXIT_NOFIT;
    return cmd_exit(rc, rank == 0 ? &e : NULL); /* rank 0 alone says what went wrong */
}

static const command commands[] = {
    {"ui", "ui [options]              the live screen (the default command)", cmd_ui},
    {"eval", "eval [options]            simulate one step, print its figures", run_eval},
    {"links", "links [options]           per-link bytes and utilisation", run_links},
    {"search", "search [options]          find the fastest strategy, beside the baselines", run_search},
    {"compare", "compare A B [options]     two strategies on one scenario, side by side", cmd_compare},
    {"tune", "tune [options]            run steps with a policy acting between them", cmd_tune},
    {"calibrate", "calibrate [options]       the flow model's factors from the flit level, beside the layout",
     cmd_calibrate},
    {"sweep", "sweep FILE.yaml [--out F]  every point of a design space: one table, resumable", cmd_sweep},
    {"plot", "plot TABLE --x C --y C      a sweep's table as lines (SVG, PNG or text)", cmd_plot},
    {"snapshot", "snapshot --out FILE.png  the heatmap as a picture (PNG or SVG)", run_snapshot},
    {"run", "run SCRIPT.lua [args]     run a Lua script with the wafertop module", run_script},
    {"cmd", "cmd NAME [args] [options] run a Lua command on a scenario (cmd --help lists them)", run_cmd},
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
    heap_keep_freed(); /* the screen, tune and search evaluate again and again */
    char root[4096];
    paths_data_root(root, sizeof root);
    if (argc < 2)
        return cmd_ui(0, argv + 1, root);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("wafertop " WT_VERSION "\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 2, argv + 2, root);
    fprintf(stderr, "wafertop: unknown command '%s' (try wafertop --help)\n", argv[1]);
    return 2;
}
