/*
 * search_baselines.c - what the search's best is measured against: the
 * baselines (search.h, search_baseline), each the best of its own space.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

static const char *const baseline_names[SEARCH_NBASELINES] = {"megatron-tp", "deepspeed-3d", "best-no-tatp"};

/* DP over the units a replica leaves, as a framework fills a machine: the
 * most, at most `units`, that divides the batch (the micro-batch is
 * searched). */
static int fill_dp(int units, int batch)
{
    int dp = units > 1 ? units : 1;
    while (dp > 1 && batch % dp)
        dp--;
    return dp;
}

/* The megatron-tp baseline: TP as large as the heads allow (a divisor of
 * heads, kv_heads and ffn that splits the sequence), DP over the rest. */
static void megatron_dims(const wafer *wf, const model *m, search_space *sp)
{
    int live = wafer_live_units(wf), tp = 1;
    for (int t = 1; t <= m->heads && t <= live; t++)
        if (m->heads % t == 0 && m->kv_heads % t == 0 && m->ffn % t == 0 && m->seq % t == 0)
            tp = t;
    sp->dp = fill_dp(live / tp, m->batch);
    sp->tp = tp;
}

/* The deepspeed-3d baseline, sized as DeepSpeed's 3-D parallelism sizes
 * itself on a cluster: TP 8 (a node's GPUs), PP 4, DP filling the units
 * left. Shrunk only where that does not fit: DP to divide the batch, then
 * PP halved (to the layers, or while TP x PP exceeds the units), then TP
 * halved (to divide heads, kv_heads, ffn and the sequence). So it grows
 * with the machine as megatron-tp does. lua/strategies/deepspeed3d.lua
 * sizes it the same way. */
static void deepspeed_dims(const wafer *wf, const model *m, search_space *sp)
{
    int live = wafer_live_units(wf), tp = 8, pp = 4;
    for (;;) {
        int tp_fits = m->heads % tp == 0 && m->kv_heads % tp == 0 && m->ffn % tp == 0 && m->seq % tp == 0;
        int pp_fits = pp <= m->layers;
        if ((tp_fits && pp_fits && tp * pp <= live) || tp * pp == 1)
            break;
        if (!pp_fits || (tp_fits && pp > 1))
            pp /= 2;
        else
            tp /= 2;
    }
    sp->dp = fill_dp(live / (tp * pp), m->batch);
    sp->tp = tp;
    sp->pp = pp;
}

void search_baseline_spaces(const search_run_state *st, search_space sp[SEARCH_NBASELINES])
{
    search_space ring_linear = {.placements = 1u << PLACE_LINEAR, .collectives = 1u << COLL_RING,
                                .chunks = 1u, .allow_idle = 1};
    sp[0] = sp[1] = ring_linear;
    megatron_dims(st->wf, st->m, &sp[0]);
    sp[0].sp = sp[0].pp = sp[0].tatp = 1;
    deepspeed_dims(st->wf, st->m, &sp[1]);
    sp[1].sp = sp[1].tatp = 1;
    sp[2] = st->o->space;
    sp[2].tatp = 1;
    sp[2].grid_w = sp[2].grid_h = 0;
}

search_opts search_baseline_opts(const search_opts *o, const search_space *space)
{
    search_opts b = *o;
    b.space = *space;
    b.top_k = 1;
    b.exhaustive = 0;
    b.baselines = 0;
    b.progress = NULL;
    b.shard = b.nshards = 0;
    b.share = NULL;
    return b;
}

void search_baseline_take(search_baseline *b, int i, int rc, const wt_err *e, search_result *sub, double best_step)
{
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", baseline_names[i]);
    if (rc != WT_OK) {
        snprintf(b->why, sizeof b->why, "%.250s", e->msg);
    } else if (sub->ntop == 0) { /* an answer, not an error: nothing of its own fits */
        snprintf(b->why, sizeof b->why, "%.250s", sub->nofit);
    } else {
        b->ok = 1;
        b->r = sub->top[0];
        b->speedup = b->r.step_time_s / best_step;
        sub->ntop = 0; /* b owns it now */
    }
    search_free(sub);
}

/* Baseline i, a whole search of its space, into b. */
static void run_baseline(search_run_state *st, int i, const search_space *space, search_baseline *b, double best_step)
{
    search_opts o = search_baseline_opts(st->o, space);
    search_run_state sst = *st;
    sst.o = &o;
    sst.part = NULL;
    search_result sub = {0};
    wt_err e;
    int rc = search_levels(&sst, &sub, &e);
    search_baseline_take(b, i, rc, &e, &sub, best_step);
}

void search_baseline_retry(search_run_state *st, search_result *r, search_space sp[SEARCH_NBASELINES])
{
    if (r->baselines[2].ok || sp[2].allow_idle)
        return;
    sp[2].allow_idle = 1; /* no TATP-free strategy fills the units */
    run_baseline(st, 2, &sp[2], &r->baselines[2], r->top[0].step_time_s);
    snprintf(r->baselines[2].note, sizeof r->baselines[2].note, "idle units allowed");
}

int search_baselines(search_run_state *st, search_result *r, wt_err *e)
{
    if (!(r->baselines = calloc(SEARCH_NBASELINES, sizeof *r->baselines)))
        return wt_oom(e, "search baselines");
    r->nbaselines = SEARCH_NBASELINES;
    search_space sp[SEARCH_NBASELINES];
    search_baseline_spaces(st, sp);
    for (int i = 0; i < SEARCH_NBASELINES; i++)
        run_baseline(st, i, &sp[i], &r->baselines[i], r->top[0].step_time_s);
    search_baseline_retry(st, r, sp);
    return WT_OK;
}
