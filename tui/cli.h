/*
 * cli.h - command-line options shared by the headless commands: which
 * scenario (layout, model, strategy and its options) and how to print it.
 *
 * Flags take "--flag value" or "--flag=value". Every error is one line that
 * names the flag ("--seq: 'x' is not a positive whole number") or the file
 * (file:line:col).
 */
#ifndef WT_CLI_H
#define WT_CLI_H

#include <stdio.h>

#include "err.h"
#include "model.h"
#include "search.h"
#include "strategy.h"
#include "wafer.h"
#include "wtlua.h"

typedef struct cli_opts {
    const char *layout;     /* name or path, default "default" */
    const char *model;      /* preset or path, default "gpt3-6.7b" */
    const char *strategy;   /* default "DP8,TATP16" */
    int seq, batch, microbatch;   /* 0 = the model's */
    const struct net_model *net;  /* --net: what times every evaluation, default net_model_default() */
    int flit;               /* --net flit (CLI_FLIT): links runs the phase at flit level */
    int flit_x, flit_y;     /* --flit-window x,y: the window's corner, or -1 */
    const char *format;     /* table | json | csv */
    double window;          /* --window: the windowed figures' window, s (default SIM_WINDOW_S) */
    int format_given;
    const char *phase;      /* links: one phase only */
    int help;
    /* strategy options as given, applied in order after the strategy */
    const char *opt_name[16];
    const char *opt_value[16];
    int nopts;
    /* Lua: --lua-path DIR, --unsafe-lua, --lua-budget N, --lua-mem SIZE */
    wtlua_opts lua;
    /* search: --objective, --top, --jobs, --exhaustive, --allow-idle, --fix, --only, --quiet */
    const char *objective;
    int top, jobs, exhaustive, allow_idle, quiet;
    const char *fix, *only;
    int strategy_given;     /* --strategy was on the command line */
    /* tune: --policy, --steps, --seed, --jitter, --straggler */
    const char *policy;
    int steps;
    double seed, jitter, straggler;
    /* ui: --theme, --bench-frames */
    const char *theme;
    int bench_frames;
    /* snapshot: --out FILE, --view NAME (enum view_mode) */
    const char *out;
    int view;
    /* --set KEY=VALUE, repeatable: layout numbers over the file's (layout_opts) */
    const char *set[16];
    int nset;
    int no_calib;           /* set by a command, not a flag: the layout's calibration file left unread */
    /* --fail x,y[,DIR], repeatable: faults on top of the layout's */
    const char *fail[64];
    int nfail;
    /* CLI_REST: the words that are not ours, in order */
    char *rest[64];
    int nrest;
} cli_opts;

/* Which flags a command takes besides the scenario and Lua ones. */
enum {
    CLI_PHASE = 1u,      /* --phase NAME */
    CLI_REST = 2u,       /* keep unknown words in rest[] instead of failing */
    CLI_STOP = 4u,       /* with CLI_REST: everything from the first word that is not a flag */
    CLI_NO_SCENARIO = 8u, /* only the Lua flags */
    CLI_SEARCH = 16u,     /* the search's flags */
    CLI_TUNE = 32u,       /* the session's flags */
    CLI_UI = 64u,         /* the screen's flags */
    CLI_PICTURE = 128u,   /* the picture's flags (--theme too) */
    CLI_FORMAT = 256u,    /* --format: the commands that print a table, JSON or CSV */
    CLI_FLIT = 512u       /* --net flit: one phase at flit level (links) */
};

/* Parses argv[0..argc) (the words after the command name). root is the data
 * directory (for the Lua options' built-in scripts). */
int cli_parse(int argc, char **argv, unsigned extra, const char *root, cli_opts *o, wt_err *e);

/* Checks value as the command line would for --name (any command's flag),
 * and the strategy text and options as loading would; errors name the flag. */
int cli_check_flag(const char *name, const char *value, wt_err *e);
/* 1 when --name is a scenario flag that takes a value (--layout, --seq,
 * --mem, --set, ...: what every scenario command knows). */
int cli_scenario_flag(const char *name);

/* Loads the layout and the model (with the --seq/--batch/--microbatch
 * overrides). On success the caller frees wf with wafer_free. */
int cli_load_hardware(const cli_opts *o, const char *root, wafer *wf, model *m, wt_err *e);

/* Loads layout, model and strategy, applies overrides and options, and
 * resolves the strategy. root is the data directory. A "lua:NAME" strategy
 * runs strategies/NAME.lua in *L, made from o->lua when *L is NULL (the
 * caller frees it). On success the caller frees wf with wafer_free. */
int cli_load(const cli_opts *o, const char *root, wtlua **L, wafer *wf, model *m, strategy *s, wt_err *e);

/* The strategy of o (text or lua:NAME, then the option flags in order) into
 * s, not resolved. */
int cli_load_strategy(const cli_opts *o, wtlua **L, const wafer *wf, const model *m, strategy *s, wt_err *e);

/* The search options of o (--fix, --only, --objective, --top, --jobs,
 * --exhaustive, --allow-idle, --net), with the baselines on and a thread per
 * core. */
int cli_search_opts(const cli_opts *o, search_opts *so, wt_err *e);

/* The bit of a wtlua_kind for cli_print_scripts. */
#define CLI_SCRIPTS(kind) (1u << (kind))

/* For --help: prints the registered commands, policies or strategies (a
 * CLI_SCRIPTS bit per kind) of L, or of a state made from lo when L is NULL
 * (so --lua-path scripts show), each under a heading, one a line: the name
 * and what it does (a command's first indented help line, else the first).
 * Fails only when the scripts do not load. */
int cli_print_scripts(FILE *f, wtlua *L, const wtlua_opts *lo, unsigned kinds, wt_err *e);

/* The help text of the scenario flags, built into buf (CLI_HELP_MAX bytes
 * hold it) with the values of each option from its table; returns buf. */
#define CLI_HELP_MAX 4096
const char *cli_scenario_help(char *buf, size_t n);
/* The help texts of the other flags. */
const char *cli_lua_help(void);
const char *cli_search_help(void);
const char *cli_tune_help(void);
const char *cli_ui_help(void);
const char *cli_picture_help(void);

#endif
