/*
 * search_shard.c - a search split into shards and merged again (search.h:
 * search_run_shard, search_merge; docs/MODEL.md, "Over MPI ranks").
 *
 * A shard runs the search on its grids and keeps its top as picks (what
 * evaluates each again and where it sorts), and each baseline's the same
 * way. The merge sorts every shard's picks by step, then place, and
 * evaluates the first K again: their figures to the bit, since an
 * evaluation depends on its strategy and model alone.
 */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* One search (o: a shard of its space) into part. */
static void run_part(search_run_state *st, const search_opts *o, search_part *part)
{
    memset(part, 0, sizeof *part);
    part->least = INFINITY;
    part->least_at = -1;
    search_run_state sst = *st;
    sst.o = o;
    sst.part = part;
    search_result r = {0};
    wt_err e;
    part->rc = search_levels(&sst, &r, &e);
    if (part->rc != WT_OK) {
        part->ntop = 0;
        snprintf(part->msg, sizeof part->msg, "%.511s", e.msg);
    } else {
        part->candidates = r.candidates;
        part->fitting = r.candidates - r.pruned_memory;
        part->evaluated = r.evaluated;
        part->invalid = r.invalid;
        part->ntop = r.ntop; /* the picks: level 2's */
        snprintf(part->nofit, sizeof part->nofit, "%s", r.nofit);
    }
    search_free(&r);
}

static int shard_body(search_run_state *st, search_result *r, void *arg, wt_err *e)
{
    (void)r;
    (void)e;
    search_shard *out = arg;
    run_part(st, st->o, &out->main);
    if (out->main.rc != WT_OK || !st->o->baselines)
        return WT_OK;
    search_space sp[SEARCH_NBASELINES];
    search_baseline_spaces(st, sp);
    for (int i = 0; i < SEARCH_NBASELINES; i++) {
        search_opts o = search_baseline_opts(st->o, &sp[i]);
        o.shard = st->o->shard;
        o.nshards = st->o->nshards;
        run_part(st, &o, &out->base[i]);
    }
    return WT_OK;
}

void search_run_shard(const wafer *wf, const model *m, const search_opts *opts, search_shard *out)
{
    memset(out, 0, sizeof *out);
    search_opts o;
    search_result r;
    wt_err e;
    int rc = search_with_contexts(wf, m, opts, &o, shard_body, out, &r, &e);
    if (rc != WT_OK) { /* the options or the contexts */
        out->main.rc = rc;
        snprintf(out->main.msg, sizeof out->main.msg, "%.511s", e.msg);
        return;
    }
    out->elapsed_s = r.elapsed_s;
    search_free(&r);
}

static int pick_cmp(const void *a, const void *b)
{
    const search_pick *x = *(const search_pick *const *)a, *y = *(const search_pick *const *)b;
    if (x->step_time_s != y->step_time_s)
        return x->step_time_s < y->step_time_s ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->variant - y->variant;
}

/* The parts of one search, a shard's each (n), as one search into r: the
 * first k of their picks evaluated again, the counts summed; what a whole
 * search says when none has any. all has room for every part's picks. */
static int merge_parts(search_run_state *st, const search_part *const *parts, int n, int k, const search_pick **all,
                       search_result *r, wt_err *e)
{
    long long fitting = 0;
    size_t np = 0;
    const search_part *least = NULL;
    for (int i = 0; i < n; i++) {
        const search_part *p = parts[i];
        if (p->rc != WT_OK) {
            snprintf(e->msg, sizeof e->msg, "%s", p->msg);
            return p->rc;
        }
        fitting += p->fitting;
        r->evaluated += p->evaluated;
        r->invalid += p->invalid;
        for (int j = 0; j < p->ntop && j < SEARCH_MAX_TOP; j++)
            all[np++] = &p->top[j];
        if (p->least < INFINITY &&
            (!least || p->least < least->least || (p->least == least->least && p->least_at < least->least_at)))
            least = p;
    }
    r->candidates = parts[0]->candidates;
    r->pruned_memory = r->candidates - fitting;
    r->pruned_bound = fitting - r->evaluated;
    if (np == 0) {
        if (fitting > 0)
            return wt_fail(e, search_none_placed);
        if (!least)
            return wt_fail(e, search_no_valid);
        snprintf(r->nofit, sizeof r->nofit, "%s", least->nofit);
        return WT_OK;
    }
    qsort(all, np, sizeof *all, pick_cmp);
    int want = np < (size_t)k ? (int)np : k;
    if (!(r->top = calloc((size_t)want, sizeof *r->top)))
        return wt_oom(e, "search top");
    for (; r->ntop < want; r->ntop++) {
        model mm = *st->m;
        mm.microbatch = all[r->ntop]->microbatch;
        int rc = sim_eval_ctx(st->ctx[0], &r->top[r->ntop], &mm, &all[r->ntop]->s, e);
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

typedef struct merge_arg {
    const search_shard *sh;
    int n;
    const search_part **parts; /* n: one search's part of each shard */
    const search_pick **all;   /* room for every shard's top */
    double took;               /* the longest shard's time */
} merge_arg;

static int merge_body(search_run_state *st, search_result *r, void *arg, wt_err *e)
{
    merge_arg *a = arg;
    for (int i = 0; i < a->n; i++) {
        a->parts[i] = &a->sh[i].main;
        a->took = fmax(a->took, a->sh[i].elapsed_s);
    }
    int rc = merge_parts(st, a->parts, a->n, st->o->top_k, a->all, r, e);
    if (rc != WT_OK || r->ntop == 0 || !st->o->baselines)
        return rc;
    if (!(r->baselines = calloc(SEARCH_NBASELINES, sizeof *r->baselines)))
        return wt_oom(e, "search baselines");
    r->nbaselines = SEARCH_NBASELINES;
    search_space sp[SEARCH_NBASELINES];
    search_baseline_spaces(st, sp);
    for (int b = 0; b < SEARCH_NBASELINES; b++) {
        for (int i = 0; i < a->n; i++)
            a->parts[i] = &a->sh[i].base[b];
        search_result sub = {0};
        wt_err be;
        int brc = merge_parts(st, a->parts, a->n, 1, a->all, &sub, &be);
        search_baseline_take(&r->baselines[b], b, brc, &be, &sub, r->top[0].step_time_s);
    }
    search_baseline_retry(st, r, sp);
    return WT_OK;
}

int search_merge(const wafer *wf, const model *m, const search_opts *opts, const search_shard *sh, int n,
                 search_result *r, wt_err *e)
{
    memset(r, 0, sizeof *r);
    if (n < 1)
        return wt_fail(e, "search: no shard to merge");
    search_opts o;
    merge_arg a = {sh, n, malloc((size_t)n * sizeof *a.parts), malloc((size_t)n * SEARCH_MAX_TOP * sizeof *a.all),
                   0};
    int rc = a.parts && a.all ? search_with_contexts(wf, m, opts, &o, merge_body, &a, r, e)
                              : wt_oom(e, "search merge");
    free(a.parts);
    free(a.all);
    if (rc == WT_OK)
        r->elapsed_s += a.took; /* the merge's own and the longest shard's */
    return rc;
}
