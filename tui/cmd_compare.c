/*
 * cmd_compare.c - wafertop compare A B: two strategies evaluated on one
 * scenario (the layout, model and flags given once), printed side by side
 * with their ratios and the phases' differences (out_compare.c).
 *
 * A side is a strategy text with options of its own after it, as a
 * layout's `strategy:` field writes them: "DP8,TP32;placement=linear". The
 * option flags of the command line apply to both sides, then a side's own.
 * A strategy that cannot be placed on the mesh is bad input (one line,
 * exit 2); one that does not fit in memory is compared, as eval shows it.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "out.h"

/* One side: its words, and its result (borrowing the shared wafer). */
typedef struct side {
    const char *name;  /* "A" or "B" */
    char text[256];    /* the strategy text, cut at the first ';' */
    const char *opts;  /* what follows it, name=value;... */
    sim_result r;
    int evaluated;
} side;

/* Loads side's strategy (o's option flags, then its own), resolves and
 * evaluates it on wf; errors start with the side's name and text. */
static int eval_side(side *sd, const cli_opts *shared, wtlua **L, const wafer *wf, const model *m, wt_err *e)
{
    cli_opts o = *shared;
    o.strategy = sd->text;
    o.strategy_given = 1;
    strategy s;
    wt_err why;
    int rc = cli_load_strategy(&o, L, wf, m, &s, &why);
    if (rc == WT_OK)
        rc = strategy_set_options(sd->opts, &s, &why);
    if (rc == WT_OK)
        rc = strategy_resolve(&s, m, wf, &why);
    if (rc == WT_OK && (rc = sim_eval_net(&sd->r, wf, o.net, m, &s, &why)) == WT_OK) {
        sd->evaluated = 1;
        rc = sim_window_figures(&sd->r, o.window, &why);
    }
    if (rc != WT_OK)
        wt_fail(e, "%s (%s%s): %s", sd->name, sd->text, sd->opts, why.msg);
    return rc;
}

/* The positional words: exactly two strategies, no unknown flag. */
static int sides_of(const cli_opts *o, side sides[2], wt_err *e)
{
    for (int i = 0; i < o->nrest; i++)
        if (!strncmp(o->rest[i], "--", 2))
            return wt_fail(e, "unknown option '%.*s'", (int)strcspn(o->rest[i], "="), o->rest[i]);
    if (o->nrest != 2)
        return wt_fail(e, "compare needs two strategies, A and B (e.g. DP8,TATP16 DP8,TP32), not %d words", o->nrest);
    if (o->strategy_given)
        return wt_fail(e, "--strategy: compare takes the strategies as A and B, options of one as A;placement=linear");
    for (int i = 0; i < 2; i++) {
        const char *w = o->rest[i];
        size_t len = strcspn(w, ";");
        if (len >= sizeof sides[i].text)
            return wt_fail(e, "%s: strategy '%.40s...' is too long", sides[i].name, w);
        memcpy(sides[i].text, w, len);
        sides[i].text[len] = '\0';
        sides[i].opts = w + len;
    }
    return WT_OK;
}

int cmd_compare(int argc, char **argv, const char *root)
{
    cli_opts o;
    wt_err e;
    side sides[2] = {{.name = "A"}, {.name = "B"}};
    int rc = cli_parse(argc, argv, CLI_REST | CLI_FORMAT, root, &o, &e);
    if (rc == WT_OK && o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop compare A B [options] [--format table|csv|json]\n"
               "Evaluates two strategies on one scenario; prints both figure sets with the ratios B/A\n"
               "and each phase's figures with the differences B - A. A and B are strategy texts; options\n"
               "of one side follow it as in a layout's strategy: field, e.g. 'DP8,TP32;placement=linear'\n"
               "(the option flags below apply to both, then a side's own).\n\n%s%s",
               cli_scenario_help(help, sizeof help), cli_lua_help());
        return 0;
    }
    if (rc == WT_OK)
        rc = sides_of(&o, sides, &e);
    wafer wf;
    model m;
    wtlua *L = NULL;
    int loaded = 0;
    if (rc == WT_OK && (rc = cli_load_hardware(&o, root, &wf, &m, &e)) == WT_OK)
        loaded = 1;
    for (int i = 0; i < 2 && rc == WT_OK; i++)
        rc = eval_side(&sides[i], &o, &L, &wf, &m, &e);
    if (rc == WT_OK) {
        out_compare(stdout, &sides[0].r, &sides[1].r, o.format);
        if (!strcmp(o.format, "csv")) /* a summary beside the pure CSV */
            fprintf(stderr, "compare: B/A step time %.3f (A %s, B %s)\n",
                    sides[1].r.step_time_s / sides[0].r.step_time_s, sides[0].text, sides[1].text);
    }
    for (int i = 0; i < 2; i++)
        if (sides[i].evaluated)
            sim_free(&sides[i].r);
    wtlua_free(L); /* before the wafer: Lua results borrow it */
    if (loaded)
        wafer_free(&wf);
    return cmd_exit(rc, &e);
}
