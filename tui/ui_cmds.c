/*
 * ui_cmds.c - the `:` commands: one table of the screen's own (name, usage,
 * handler), then every Lua command by its registered name. Errors go to the
 * status line; nothing here can end the program but `quit`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "snapshot.h"
#include "ui.h"

#define MAX_WORDS 40

typedef int (*cmd_fn)(ui *u, int argc, char **argv, wt_err *e);

typedef struct ui_cmd {
    const char *name;
    const char *usage;
    int min_args, max_args;
    cmd_fn run;
} ui_cmd;

static int cmd_strategy(ui *u, int argc, char **argv, wt_err *e)
{
    strategy s;
    int rc = ui_parse_strategy(u, u->L, argc, argv, &u->S->wf, &u->S->m, &s, e);
    strategy check = s;
    wt_err why;
    if (rc == WT_OK && strategy_resolve(&check, &u->S->m, &u->S->wf, &why) != WT_OK)
        rc = wt_fail(e, "strategy: %s", why.msg);
    if (rc == WT_OK)
        rc = session_switch(u->S, &s, 0, e);
    return rc;
}

/* A new session on layout and model with the words' strategy. */
static int new_session(ui *u, const char *layout, const char *model_name, int argc, char **argv, wt_err *e)
{
    int rc = ui_load(u, layout, model_name, argc, argv, e);
    if (rc == WT_OK)
        ui_printf(u, "new session: %s on %s", u->model, u->layout);
    return rc;
}

static int cmd_layout(ui *u, int argc, char **argv, wt_err *e)
{
    return new_session(u, argv[0], u->model, argc - 1, argv + 1, e);
}

static int cmd_model(ui *u, int argc, char **argv, wt_err *e)
{
    return new_session(u, u->layout, argv[0], argc - 1, argv + 1, e);
}

static int cmd_policy(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    int rc = ui_set_policy(u, argv[0], e);
    if (rc == WT_OK && u->policy[0])
        ui_printf(u, "policy %s acts between steps (:policy off undoes its actions, :keep keeps them)", u->policy);
    return rc;
}

static int cmd_keep(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    (void)argv;
    char done[SESSION_LOG];
    session_changes(u->S, SESSION_SINCE_POLICY, done, sizeof done);
    int rc = session_policy_keep(u->S, e);
    if (rc == WT_OK)
        ui_printf(u, "kept what policy %s did: %s", u->policy, done[0] ? done : "nothing yet");
    return rc;
}

static int cmd_reset(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    (void)argv;
    return ui_reset(u, e);
}

static int cmd_search(ui *u, int argc, char **argv, wt_err *e)
{
    if (argc == 1 && !strcmp(argv[0], "stop")) {
        if (!u->search.running)
            return wt_fail(e, "search: none is running");
        atomic_store(&u->search.stop, 1);
        return WT_OK;
    }
    return ui_search_begin(u, argc, argv, NULL, e);
}

static int cmd_fail(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    return ui_fail(u, "fail", argv[0], e);
}

static int cmd_repair(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    (void)argv;
    int rc = session_repair(u->S, e);
    if (rc == WT_OK)
        ui_search_forget(u);
    return rc;
}

static int cmd_save(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    int rc = scenario_save(argv[0], u->S, u->layout, u->model, u->policy_src, e);
    if (rc == WT_OK)
        ui_printf(u, "saved %s (wafertop ui --scenario %s opens it)", argv[0], argv[0]);
    return rc;
}

/* The heatmap as it is on the screen now (snapshot.h). */
static int cmd_export(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    if (!u->r)
        return wt_fail(e, "export: no heatmap to write (the last step failed)");
    ui_sync_view(u);
    int rc = snap_write(&u->v, argv[0], "export", NULL, e);
    if (rc == WT_OK)
        ui_printf(u, "exported %s", argv[0]);
    return rc;
}

static int cmd_at(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    return ui_play_at(u, argv[0], e);
}

static int cmd_group(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    return ui_group_command(u, argv[0], e);
}

static int cmd_quit(ui *u, int argc, char **argv, wt_err *e)
{
    (void)argc;
    (void)argv;
    (void)e;
    u->quit = 1;
    return WT_OK;
}

static const ui_cmd cmds[] = {
    {"strategy", "strategy S [--placement P ...]   switch the strategy (options as on the command line)", 1,
     MAX_WORDS, cmd_strategy},
    {"layout", "layout NAME|FILE [S ...]          another layout (a new session)", 1, MAX_WORDS, cmd_layout},
    {"model", "model NAME|FILE [S ...]           another model (a new session)", 1, MAX_WORDS, cmd_model},
    {"policy", "policy NAME|FILE|off              start a policy, or stop it and undo its actions", 1, 1,
     cmd_policy},
    {"keep", "keep                              keep what the running policy did (policy off then leaves it)",
     0, 0, cmd_keep},
    {"reset", "reset                             back to the scenario the screen was opened with", 0, 0,
     cmd_reset},
    {"search", "search [--fix ..] [--only ..] | search stop   find the best strategy in the background", 0,
     MAX_WORDS, cmd_search},
    {"fail", "fail x,y[,DIR]                    fail a unit, or its link towards DIR", 1, 1, cmd_fail},
    {"repair", "repair                            back to the layout's own faults", 0, 0, cmd_repair},
    {"save", "save FILE                         write the scenario as YAML", 1, 1, cmd_save},
    {"export", "export FILE.png|FILE.svg          write the heatmap as shown, with axes, legend and figures", 1, 1,
     cmd_export},
    {"at", "at PHASE|TIME                     the cursor of time to where PHASE first runs, or to TIME", 1, 1,
     cmd_at},
    {"group", "group KIND|off                    the group of KIND around the cursor: tatp.rows tatp.cols tp sp dp pp "
     "tatp stage subgroup",
     1, 1, cmd_group},
    {"compare", "compare S [--placement P ..] | compare off   S beside the session's strategy (d: B - A)", 1,
     MAX_WORDS, ui_compare_cmd},
    {"quit", "quit", 0, 0, cmd_quit},
};
#define NCMDS (sizeof cmds / sizeof cmds[0])

/* Splits line into words at spaces; "..." or '...' keep spaces. */
static int split(char *line, char **words, int max, wt_err *e)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            return n;
        if (n == max)
            return wt_fail(e, "too many words (at most %d)", max);
        char quote = *p == '"' || *p == '\'' ? *p++ : 0;
        words[n++] = p;
        while (*p && (quote ? *p != quote : *p != ' '))
            p++;
        if (quote && !*p)
            return wt_fail(e, "unclosed %c", quote);
        if (*p)
            *p++ = '\0';
    }
}

/* A Lua command on a copy of the current result (Lua takes what the copy
 * owns). */
static int run_lua(ui *u, int argc, char **argv, wt_err *e)
{
    if (!u->r)
        return wt_fail(e, "%s: no result to look at (the last step failed)", argv[0]);
    sim_result copy;
    int rc = sim_copy(&copy, u->r, e);
    if (rc == WT_OK)
        rc = wtlua_run_command(u->L, argv[0], argc - 1, argv + 1, &copy, e);
    if (u->partial[0])
        ui_lua_out(u, "\n", 1);
    return rc;
}

static const ui_cmd *find_cmd(const char *name)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (!strcmp(cmds[i].name, name))
            return &cmds[i];
    return NULL;
}

static int run_cmd(ui *u, int argc, char **argv, wt_err *e)
{
    const ui_cmd *c = find_cmd(argv[0]);
    if (c) {
        if (argc - 1 < c->min_args || argc - 1 > c->max_args)
            return wt_fail(e, "usage: %s", c->usage);
        if (!u->S && c->run != cmd_quit)
            return wt_fail(e, "%s: no session", argv[0]);
        int rc = c->run(u, argc - 1, argv + 1, e);
        if (rc == WT_OK && u->S && u->S->dirty)
            u->step_wanted = 1; /* show the change now */
        return rc;
    }
    if (u->L && wtlua_help(u->L, WTLUA_COMMAND, argv[0])) {
        int rc = run_lua(u, argc, argv, e);
        if (rc == WT_OK && !strcmp(argv[0], "help")) {
            ui_print(u, "screen commands:");
            for (size_t i = 0; i < NCMDS; i++)
                ui_printf(u, "  %s", cmds[i].usage);
        }
        return rc;
    }
    return wt_fail(e, "unknown command '%s' (Tab lists the commands, :help describes them)", argv[0]);
}

/* A command line. It may change what the links show, and the dead units
 * and links show before the next step: a command that changed the faults
 * (fail, repair, a Lua command on the session) leaves the session's
 * refault set until that step, and only then are the blocks counted again
 * (on a wafer that reads every link). */
static int run(ui *u, int argc, char **argv, wt_err *e)
{
    u->play.shown++;
    int rc = run_cmd(u, argc, argv, e);
    if (u->S && u->S->refault)
        u->play.mesh++;
    if (u->S)
        ui_note_changes(u);
    return rc;
}

void ui_command(ui *u, const char *line)
{
    char buf[CMDLINE_MAX];
    snprintf(buf, sizeof buf, "%s", line);
    char *argv[MAX_WORDS];
    wt_err e;
    int argc = split(buf, argv, MAX_WORDS, &e);
    if (argc < 0) {
        ui_status(u, 1, "%s", e.msg);
        return;
    }
    if (argc == 0)
        return;
    long start = u->out_total;
    ui_printf(u, ":%s", line);
    u->status[0] = '\0';
    if (run(u, argc, argv, &e) != WT_OK) {
        /* the first line, with file:line for Lua; the traceback goes to the pane */
        ui_status(u, 1, "%s", e.msg);
    }
    ui_show_from(u, start);
}

/* Flags ("--x") in a help text, into the buffer. */
static int flags_of(ui *u, const char *help, const char **words, int n, int max)
{
    size_t used = 0;
    for (const char *p = help; p && (p = strstr(p, "--")) && n < max;) {
        size_t len = 2;
        while (p[len] && (p[len] == '-' || (p[len] >= 'a' && p[len] <= 'z') || (p[len] >= '0' && p[len] <= '9')))
            len++;
        int seen = len <= 2;
        for (int i = 0; i < n && !seen; i++)
            seen = strlen(words[i]) == len && !strncmp(words[i], p, len);
        if (!seen && used + len + 1 <= sizeof u->complete_buf) {
            memcpy(u->complete_buf + used, p, len);
            u->complete_buf[used + len] = '\0';
            words[n++] = u->complete_buf + used;
            used += len + 1;
        }
        p += len;
    }
    return n;
}

int ui_complete_words(void *ud, const char *cmd, const char **words, int max)
{
    ui *u = ud;
    int n = 0;
    if (!cmd) {
        for (size_t i = 0; i < NCMDS && n < max; i++)
            words[n++] = cmds[i].name;
        if (u->L)
            n += wtlua_names(u->L, WTLUA_COMMAND, words + n, max - n);
        return n;
    }
    if (!strcmp(cmd, "policy")) {
        n = u->L ? wtlua_names(u->L, WTLUA_POLICY, words, max - 1) : 0;
        words[n++] = "off";
        return n;
    }
    if (!strcmp(cmd, "strategy") || !strcmp(cmd, "layout") || !strcmp(cmd, "model") || !strcmp(cmd, "compare")) {
        char help[CLI_HELP_MAX];
        return flags_of(u, cli_scenario_help(help, sizeof help), words, 0, max);
    }
    if (!strcmp(cmd, "search"))
        return flags_of(u, cli_search_help(), words, 0, max);
    return u->L ? flags_of(u, wtlua_help(u->L, WTLUA_COMMAND, cmd), words, 0, max) : 0;
}
