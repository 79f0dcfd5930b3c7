/*
 * wtlua.h - the Lua 5.4 binding: a sandboxed Lua state with the `wafertop`
 * module (also the global `wt`), the stock and user commands, strategies and
 * policies. The program (tui/) talks to Lua only through this header.
 *
 * Scripts come from, in order, ROOT/lua (built in), $XDG_CONFIG_HOME/wafertop/lua
 * (default ~/.config/wafertop/lua) and --lua-path DIR; a later file with the
 * same name replaces an earlier one. Each directory holds commands/,
 * strategies/, policies/ and lib/ (modules for require).
 *
 * Safety: chunks load as text only, with chunk names "@path" so that errors
 * read path:line; no io, os, debug, package.loadlib, dofile or loadfile
 * unless unsafe; every call from C runs under one budget that the script's
 * own pcall cannot swallow (instructions by a count hook, C work such as
 * pattern matching charged before it runs, and run time: lua/wtlua_budget.c)
 * and the state under a memory cap that also counts the C memory of the
 * results, layouts and sessions it holds. Errors come back as "path:line:
 * message" plus a traceback.
 */
#ifndef WT_WTLUA_H
#define WT_WTLUA_H

#include <signal.h>
#include <stddef.h>

#include "err.h"
#include "model.h"
#include "session.h"
#include "sim.h"
#include "strategy.h"
#include "wafer.h"

typedef struct wtlua wtlua;

/* Where print and wt.print go: n bytes of s (not NUL-terminated). */
typedef void (*wtlua_out_fn)(void *ud, const char *s, size_t n);

typedef struct wtlua_opts {
    const char *root;      /* data directory; ROOT/lua holds the built-in scripts */
    const char *user_dir;  /* --lua-path DIR, or NULL */
    int unsafe;            /* --unsafe-lua: the full standard library */
    double budget;         /* instructions per call from C (default 1e8 when 0) */
    size_t mem_cap;        /* bytes the state may hold (default 256 MiB when 0) */
    /* When not NULL and set (by a signal handler), a running script stops
     * with "interrupted by a signal" within HOOK_PERIOD instructions, a
     * search within a fraction of a second. */
    const volatile sig_atomic_t *interrupt;
    wtlua_out_fn out;      /* default: stdout */
    void *out_ud;
} wtlua_opts;

#define WTLUA_DEFAULT_BUDGET 1e8
/* The budget's exchange rate with time: a call from C may run budget /
 * WTLUA_STEPS_PER_S seconds (10 s at the default budget), whatever it
 * spends them on. */
#define WTLUA_STEPS_PER_S 1e7
#define WTLUA_DEFAULT_MEM ((size_t)256 << 20)

/* Creates the state and loads every command, strategy and policy file. A
 * broken script file is an error naming it (path:line). */
int wtlua_new(wtlua **out, const wtlua_opts *o, wt_err *e);
void wtlua_free(wtlua *L);

/* `wafertop run`: runs a script with `arg` as the lua program sets it
 * (arg[0] the script, arg[1..] the arguments) and the module loaded. */
int wtlua_run_file(wtlua *L, const char *path, int argc, char **argv, wt_err *e);

/* Runs the command `name` with its arguments on result r. The result is
 * handed over to Lua (freed by its garbage collector; the caller must not
 * use or free it after the call); its wafer is borrowed and must outlive L. */
int wtlua_run_command(wtlua *L, const char *name, int argc, char **argv, sim_result *r, wt_err *e);

/* Resolves the strategy script `name` (strategies/NAME.lua) for a layout and
 * a model into *s (options untouched, dimensions and placement as the script
 * says); a script that is a function also gets {net = net}, the network
 * model the command times with. An unknown name is an error that lists the
 * strategies. */
int wtlua_strategy(wtlua *L, const char *name, const wafer *wf, const model *m, const char *net, strategy *s,
                   wt_err *e);

/* Loads a policy: a registered name, or a Lua file that registers exactly
 * one with wt.policy. Writes its name into name[n]. */
int wtlua_load_policy(wtlua *L, const char *name_or_path, char *name, size_t n, wt_err *e);

/* Runs policy `name`'s hooks after a step of S whose result is r: on_step
 * (session, result), then on_hot_link(session, link) for the hottest links
 * at or above 0.90 (at most max_hot, hottest first). The hooks see a copy
 * of r (on_step may change S), freed when the call returns: the session and
 * result objects they get are valid only during the call. Results the
 * session hands out (s:step()) borrow S's wafer, so free L before S. An
 * error or a spent budget comes back as path:line: message. */
int wtlua_policy_step(wtlua *L, const char *name, session *S, const sim_result *r, int max_hot, wt_err *e);

/* The registries: what the script directories hold, by kind. A command is
 * what a commands/NAME.lua file registers with wt.command, a policy what a
 * policies/NAME.lua file registers with wt.policy, a strategy a
 * strategies/NAME.lua file (its help is the file's leading comment).
 * Nothing else lists them: every list of names, in C or in Lua
 * (wt.commands() ...), reads these. */
typedef enum wtlua_kind { WTLUA_COMMAND, WTLUA_POLICY, WTLUA_STRATEGY, WTLUA_NKINDS } wtlua_kind;

/* How many names of one kind the lists show at most. */
#define WTLUA_MAX_NAMES 256

/* The registered names of a kind, sorted: fills up to max entries (pointers
 * valid until the next call into L) and returns how many it filled. */
int wtlua_names(wtlua *L, wtlua_kind kind, const char **names, int max);

/* The help text registered under name ("" when it has none), or NULL when
 * no script of that kind has the name (valid until the next call into L). */
const char *wtlua_help(wtlua *L, wtlua_kind kind, const char *name);

/* The names of a kind joined by ", " into buf[n] (cut at n; "none" when
 * there are none); returns buf. */
const char *wtlua_name_list(wtlua *L, wtlua_kind kind, char *buf, size_t n);

#endif
