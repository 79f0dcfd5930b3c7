/*
 * cmd_calibrate.c - wafertop calibrate: the flow model's factors per
 * pattern class, measured at flit level on the scenario's step
 * (calib_fit.h) and written to the calibration file beside the layout
 * (calib.h), which every later command that loads the layout reads.
 *
 * stdout: one CSV row per pattern measured; stderr: progress on a
 * terminal, then the factors and where they went. Classes the step does
 * not use keep the factors the file had.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "calib_fit.h"
#include "cmd.h"
#include "coll.h"
#include "datadir.h"
#include "strategy.h"
#include "out.h"
#include "ydoc.h"

typedef struct calib_file {
    const sim_result *r;
    const calib_fit *fit;
    const double *factor; /* what the file holds after this run */
} calib_file;

/* s in a comment line: a control character (a newline would end the
 * comment) as '?'. */
static void put_comment_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(wt_control((unsigned char)*s) ? '?' : *s, f);
}

static int put_calib(FILE *f, void *ud, wt_err *e)
{
    (void)e;
    const calib_file *c = ud;
    char s[256];
    strategy_format(&c->r->s, s, sizeof s);
    const strategy *st = &c->r->s;
    fprintf(f, "# Written by wafertop calibrate: per pattern class, how much longer the flit\n"
               "# level takes than the busiest link's bound, measured on ");
    put_comment_text(f, c->r->m.name);
    fprintf(f, " with\n# %s (placement %s, collective %s, routing %s).\n"
               "# Every command that loads the layout multiplies its patterns' bandwidth time\n"
               "# by these. Classes measured now:",
            s, place_kind_name(st->placement), coll_algo_name(st->collective), route_mode_name(st->routing));
    for (int k = 0; k < CALIB_NCLASS; k++)
        if (c->fit->weight_s[k] > 0)
            fprintf(f, " %s", calib_class_name(k));
    fprintf(f, ".\nlayout: ");
    ydoc_put_quoted(f, c->r->wf->name);
    fprintf(f, "\nfactors:\n");
    for (int k = 0; k < CALIB_NCLASS; k++)
        fprintf(f, "  %s: %.4f\n", calib_class_name(k), c->factor[k]);
    return WT_OK;
}

static void put_rows(FILE *f, const sim_result *r, const calib_fit *fit)
{
    fprintf(f, "kind,pass,routing,class,weight_s,flow_s,flit_s,ratio,x0,y0,w,h,flows_out,skipped\n");
    for (int i = 0; i < fit->nrows; i++) {
        const calib_row *row = &fit->rows[i];
        const sim_pattern *p = &r->patterns[row->pattern];
        fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%d,%d,%d,%d,%lld,", coll_kind_name(p->kind),
                coll_pass_name(p->pass), route_mode_name(p->mode), calib_class_name(row->cls), row->weight_s,
                row->flow_s, row->flit_s, row->flow_s > 0 ? row->flit_s / row->flow_s : 0, row->x0, row->y0, row->w,
                row->h, row->flows_out);
        out_csv_text(f, row->skipped);
        fputc('\n', f);
    }
}

/* Progress on a terminal: patterns done of all. */
static void progress_draw(void *ud, int done, int total)
{
    (void)ud;
    fprintf(stderr, "\rcalibrate: %d of %d patterns at flit level", done, total);
    if (done == total)
        fputc('\n', stderr);
}

int cmd_calibrate(int argc, char **argv, const char *root)
{
    cli_opts o;
    wt_err e;
    int rc = cli_parse(argc, argv, 0, root, &o, &e);
    if (rc == WT_OK && o.help) {
        char help[CLI_HELP_MAX];
        printf("usage: wafertop calibrate [options]\n"
               "Runs each pattern of the scenario's step alone at flit level (on at most a %dx%d\n"
               "window), and writes, per pattern class (neighbour, lines, turns, edges, shift, store),\n"
               "how much longer it takes than the flow level's bound to the file beside the layout\n"
               "(NAME.calib.yaml); every command that loads the layout then applies them.\n"
               "stdout: one CSV row per pattern; stderr: the factors.\n\n%s%s",
               FLIT_MAX_SIDE, FLIT_MAX_SIDE, cli_scenario_help(help, sizeof help), cli_lua_help());
        return 0;
    }
    char layout_path[1024], path[sizeof ((calib *)0)->path];
    wt_err why;
    if (rc == WT_OK && datadir_resolve(root, "layouts", "layout", o.layout, layout_path, sizeof layout_path, &why))
        rc = wt_fail(&e, "--layout: %s", why.msg);
    if (rc == WT_OK && calib_path_of(layout_path, path, sizeof path) != 0)
        rc = wt_fail(&e, "--layout: %s: the path of its calibration file is too long", layout_path);
    wtlua *L = NULL;
    wafer wf;
    model m;
    strategy s;
    sim_result r;
    int loaded = 0, evaluated = 0;
    o.no_calib = 1; /* measured from the flow level alone; a stale or broken file is rewritten */
    if (rc == WT_OK && (rc = cli_load(&o, root, &L, &wf, &m, &s, &e)) == WT_OK)
        loaded = 1;
    calib old;
    calib_default(&old);
    if (rc == WT_OK && calib_load(path, wf.name, &old, &why) != WT_OK)
        fprintf(stderr, "calibrate: the old file is replaced, its classes not kept: %s\n", why.msg);
    if (rc == WT_OK && (rc = sim_eval_net(&r, &wf, o.net, &m, &s, &e)) == WT_OK)
        evaluated = 1;
    calib_fit fit = {0};
    if (rc == WT_OK)
        rc = calib_fit_run(&r, &fit, isatty(2) ? progress_draw : NULL, NULL, &e);
    if (rc == WT_OK && fit.nrows == 0)
        rc = wt_fail(&e, "calibrate: the step moves no bytes over the mesh: nothing to measure");
    int measured = 0;
    for (int k = 0; rc == WT_OK && k < CALIB_NCLASS; k++)
        measured |= fit.weight_s[k] > 0;
    if (rc == WT_OK && !measured)
        rc = wt_fail(&e, "calibrate: no pattern of the step runs at flit level (the first: %s)", fit.rows[0].skipped);
    double factor[CALIB_NCLASS];
    for (int k = 0; rc == WT_OK && k < CALIB_NCLASS; k++)
        factor[k] = fit.weight_s[k] > 0 ? fit.factor[k] : old.factor[k];
    calib_file cf = {&r, &fit, factor};
    if (rc == WT_OK)
        rc = atomic_write(path, "calibrate", put_calib, &cf, &e);
    if (rc == WT_OK) {
        put_rows(stdout, &r, &fit);
        fprintf(stderr, "calibration of %s:", wf.name);
        for (int k = 0; k < CALIB_NCLASS; k++)
            fprintf(stderr, " %s %.4f%s", calib_class_name(k), factor[k], fit.weight_s[k] > 0 ? "" : " (kept)");
        fprintf(stderr, "; written to %s\n", path);
    }
    calib_fit_free(&fit);
    if (evaluated)
        sim_free(&r);
    wtlua_free(L);
    if (loaded)
        wafer_free(&wf);
    return cmd_exit(rc, &e);
}
