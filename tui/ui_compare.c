/*
 * ui_compare.c - `:compare S`: a second strategy B evaluated on the
 * session's mesh (its faults included) and model, shown beside the
 * session's result A (view_compare.c). Both show their step averages: B
 * is one evaluation, A changes with the session's steps (its figures are
 * read again at each new result). B borrows the session's wafer: a new
 * session ends the comparison, new faults evaluate B again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qty.h"
#include "ui.h"

typedef struct ui_compare {
    view_compare view;
    strategy s;               /* B as set (resolved again at each evaluation) */
    sim_result *rb;           /* B's result, owned */
    unsigned char *dead;      /* the session's dead units, then links, as B saw them */
    size_t nunits, nlinks;
    ui_links a, b;            /* the step averages of A and B */
    double *diff;             /* per link (B - A + 1) / 2: 0.5 where neither side loads */
    long gen;                 /* the u->play.gen A's figures are of */
    long shown;               /* bumped when the figures change (view_state.values_gen) */
} ui_compare;

static void compare_free(ui_compare *k)
{
    if (k->rb) {
        sim_free(k->rb);
        free(k->rb);
    }
    free(k->dead);
    free(k->a.val);
    free(k->a.at);
    free(k->b.val);
    free(k->b.at);
    free(k->diff);
    view_blocks_free(&k->view.side[0].blocks);
    view_blocks_free(&k->view.side[1].blocks);
    view_blocks_free(&k->view.diff.blocks);
    free(k);
}

void ui_compare_end(ui *u)
{
    if (!u->cmp)
        return;
    compare_free(u->cmp);
    u->cmp = NULL;
    u->v.compare = NULL;
    ui_print(u, "compare off");
}

/* Runs fn over the links where a figure of a or b may be non-zero. */
static void each_loaded(ui_compare *k, void (*fn)(ui_compare *k, size_t l))
{
    if (k->a.dense || k->b.dense) {
        for (size_t l = 0; l < k->nlinks; l++)
            fn(k, l);
        return;
    }
    for (size_t i = 0; i < k->a.nat; i++)
        fn(k, (size_t)k->a.at[i]);
    for (size_t i = 0; i < k->b.nat; i++)
        fn(k, (size_t)k->b.at[i]);
}

static void diff_clear(ui_compare *k, size_t l)
{
    k->diff[l] = 0.5;
}

static void diff_set(ui_compare *k, size_t l)
{
    k->diff[l] = (k->b.val[l] - k->a.val[l] + 1) / 2;
}

/* The figures of A (a is the session's new result), of B (b the new B, or
 * NULL when it stays), and their difference. */
static void refill(ui_compare *k, const sim_result *a, const sim_result *b)
{
    each_loaded(k, diff_clear);
    ui_links_average(&k->a, k->nlinks, a);
    if (b)
        ui_links_average(&k->b, k->nlinks, b);
    each_loaded(k, diff_set);
    k->shown++;
}

/* The session's dead units and links into buf (nunits + nlinks bytes). */
static void dead_of(const wafer *wf, unsigned char *buf)
{
    memcpy(buf, wf->unit_dead, (size_t)wf->w * (size_t)wf->h);
    memcpy(buf + (size_t)wf->w * (size_t)wf->h, wf->link_dead, wafer_nlinks(wf));
}

/* Evaluates B on the session's mesh as it is now into k (the old B stays
 * on error). */
static int evaluate(ui *u, ui_compare *k, wt_err *e)
{
    strategy s = k->s;
    wt_err why;
    if (strategy_resolve(&s, &u->S->m, &u->S->wf, &why) != WT_OK)
        return wt_fail(e, "compare: %s", why.msg);
    sim_result *r = calloc(1, sizeof *r);
    int rc = r ? sim_eval_net(r, &u->S->wf, u->S->o.net, &u->S->m, &s, e) : wt_oom(e, "compare");
    if (rc == WT_OK && (rc = sim_window_figures(r, u->o.window, e)) != WT_OK)
        sim_free(r);
    if (rc != WT_OK) {
        free(r);
        return rc;
    }
    if (k->rb) {
        sim_free(k->rb);
        free(k->rb);
    }
    k->rb = r;
    dead_of(&u->S->wf, k->dead);
    return WT_OK;
}

/* A fresh comparison for the session's mesh, without B yet. */
static ui_compare *compare_new(const ui *u)
{
    ui_compare *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    const wafer *wf = &u->S->wf;
    k->nunits = (size_t)wf->w * (size_t)wf->h;
    k->nlinks = wafer_nlinks(wf);
    k->dead = malloc(k->nunits + k->nlinks);
    k->a.val = calloc(k->nlinks, sizeof *k->a.val);
    k->b.val = calloc(k->nlinks, sizeof *k->b.val);
    k->diff = malloc(k->nlinks * sizeof *k->diff);
    k->gen = -1;
    if (!k->dead || !k->a.val || !k->b.val || !k->diff) {
        compare_free(k);
        return NULL;
    }
    for (size_t l = 0; l < k->nlinks; l++)
        k->diff[l] = 0.5;
    return k;
}

int ui_compare_cmd(ui *u, int argc, char **argv, wt_err *e)
{
    if (argc == 1 && !strcmp(argv[0], "off")) {
        if (!u->cmp)
            return wt_fail(e, "compare: none is shown");
        ui_compare_end(u);
        return WT_OK;
    }
    ui_compare *k = compare_new(u);
    if (!k)
        return wt_oom(e, "compare");
    /* S, the option flags the screen was opened with, then S's own */
    char *words[80], flags[sizeof u->o.opt_name / sizeof u->o.opt_name[0]][32];
    int n = 0;
    words[n++] = argv[0];
    for (int i = 0; i < u->o.nopts; i++) {
        snprintf(flags[i], sizeof flags[i], "--%s", u->o.opt_name[i]);
        words[n++] = flags[i];
        words[n++] = (char *)u->o.opt_value[i];
    }
    for (int i = 1; i < argc && n < (int)(sizeof words / sizeof words[0]); i++)
        words[n++] = argv[i];
    int rc = ui_parse_strategy(u, u->L, n, words, &u->S->wf, &u->S->m, &k->s, e);
    if (rc == WT_OK)
        rc = evaluate(u, k, e);
    if (rc != WT_OK) { /* the comparison shown, if any, stays */
        compare_free(k);
        return rc;
    }
    if (u->cmp) { /* another B: the same way of showing it */
        k->view.show_diff = u->cmp->view.show_diff;
        compare_free(u->cmp);
    }
    u->cmp = k;
    char s1[32], s2[32], text[64];
    const mem_usage *m = &k->rb->mem;
    strategy_format(&k->rb->s, text, sizeof text);
    if (!m->fits)
        ui_status(u, 1, "compare: B %s DOES NOT FIT: %s of %s per unit (compared all the same, as eval shows it)",
                  text, qty_format(m->total, QTY_BYTES, s1, sizeof s1), qty_format(m->capacity, QTY_BYTES, s2, sizeof s2));
    ui_printf(u, "compare: A (the session's) beside B %s, %s a step; d shows B - A, :compare off ends it", text,
              qty_format(k->rb->step_time_s, QTY_TIME, s1, sizeof s1));
    return WT_OK;
}

void ui_compare_key(ui *u, int key)
{
    (void)key;
    if (u->flit.shown) {
        ui_status(u, 0, "d: the flit level is shown (f closes it)");
        return;
    }
    if (!u->cmp) {
        ui_status(u, 0, "d: no comparison (:compare STRATEGY starts one)");
        return;
    }
    u->cmp->view.show_diff = !u->cmp->view.show_diff;
    ui_status(u, 0, "compare: %s", u->cmp->view.show_diff ? "the difference B - A per link" : "side by side");
}

/* Points a view_state at a result and a figure of its links. */
static void show(view_state *s, const sim_result *r, const double *val, const ui_links *at, long gen, long mesh)
{
    s->r = r;
    s->link_util = val;
    s->link_class = NULL;
    s->nonzero = at && !at->dense ? at->at : NULL;
    s->nnonzero = at ? at->nat : 0;
    s->values_gen = gen;
    s->mesh_gen = mesh;
    s->compute_now = -1;
    s->util_label = "step average";
}

void ui_compare_view(ui *u)
{
    ui_compare *k = u->cmp;
    u->v.compare = NULL;
    if (!k || !u->r)
        return;
    if (k->gen != u->play.gen) { /* a new result of the session's, maybe on new faults */
        wt_err e;
        const wafer *wf = &u->S->wf;
        int faults = memcmp(k->dead, wf->unit_dead, k->nunits) || memcmp(k->dead + k->nunits, wf->link_dead, k->nlinks);
        if (faults && evaluate(u, k, &e) != WT_OK) {
            ui_status(u, 1, "compare ended: B on the new faults: %s", e.msg);
            ui_compare_end(u);
            return;
        }
        refill(k, u->r, faults || k->gen < 0 ? k->rb : NULL);
        k->gen = u->play.gen;
    }
    show(&k->view.side[0], u->r, k->a.val, &k->a, k->shown, u->play.mesh);
    show(&k->view.side[1], k->rb, k->b.val, &k->b, k->shown, u->play.mesh);
    show(&k->view.diff, u->r, k->diff, NULL, k->shown, u->play.mesh);
    k->view.diff.diverging = 1;
    u->v.compare = &k->view;
}
