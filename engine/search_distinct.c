/*
 * search_distinct.c - when two of the search's evaluations are one strategy.
 *
 * The search tries every option on every candidate, and some options do
 * nothing for some candidates: they change no phase, no pass and no byte,
 * so every figure is the same to the bit, and a top list that showed them
 * would repeat one strategy. An option does not apply to an evaluation when
 * what it acts on is not there:
 * - zero (the memory switch) shards over DP x SP: not when that is 1
 *   (sim_zero_shard is then 1, and its gathers and the DP reduce-scatter
 *   are over groups of one, which carry no op);
 * - a chunk splits what a unit sends while it computes, the buffers of its
 *   collective tensors and 1-bit gradients' scales: not when no phase both
 *   computes and communicates, no tensor is buffered (mem.buffers 0) and
 *   gradients are not 1-bit;
 * - a collective algorithm other than the ring (the one every algorithm
 *   falls back to) acts through its own passes (bidir's two-way rings, 2d's
 *   rows and columns, hier's inner and outer rings): not when no collective
 *   of the step was expanded into them (2d on groups whose grid is a line,
 *   hier where the subgroup windows split no group, and every group that
 *   spans wafers, which runs hier whatever the strategy says).
 * The rules read what the evaluation built (its strategy, phases, passes
 * and groups), never its figures; tests/test_search.c checks that
 * candidates they call one strategy have the same figures.
 */
#include "search_int.h"

#include "coll.h"

/* Whether r's zero switch acts (see above). */
static int zero_applies(const sim_result *r)
{
    return (long long)r->s.dp * r->s.sp > 1;
}

/* Whether r's chunk size acts (see above). */
static int chunk_applies(const sim_result *r)
{
    if (r->s.grad == GRAD_1BIT || r->mem.buffers > 0)
        return 1;
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].flops > 0 && r->phases[i].nops > 0)
            return 1;
    return 0;
}

int search_own_pass(coll_algo a, int pass)
{
    switch (a) {
    case COLL_BIDIR: return pass == PASS_BIDIR;
    case COLL_2D: return pass == PASS_ROWS || pass == PASS_COLS;
    case COLL_HIER: return pass == PASS_INNER || pass == PASS_OUTER;
    default: return 0;
    }
}

/* Whether r's groups of a kind span wafers (then they run hier whatever
 * the strategy's algorithm). Out of memory: 0, so the algorithm counts as
 * acting, which keeps two strategies apart rather than joining them. */
static int spans_wafers(const sim_result *r, int kind)
{
    if (r->wf->wafers_x * r->wf->wafers_y == 1)
        return 0;
    coll_groups g;
    if (coll_groups_build(&g, kind, &r->plan, r->wf, NULL) != WT_OK)
        return 0;
    int spans = g.wafers;
    coll_groups_free(&g);
    return spans;
}

/* Whether r's collective algorithm acts (see above); the ring always does,
 * as the value the others fall back to. */
static int collective_applies(const sim_result *r)
{
    coll_algo a = r->s.collective;
    if (a == COLL_RING || a == COLL_AUTO)
        return 1;
    for (int i = 0; i < r->nphases; i++)
        for (int t = 0; t < r->phases[i].nterms; t++) {
            const sim_pattern *p = &r->patterns[r->phases[i].terms[t].pattern];
            if (search_own_pass(a, p->pass) && !(a == COLL_HIER && spans_wafers(r, p->kind)))
                return 1;
        }
    return 0;
}

/* r's strategy with the options that do not act read as their first value
 * (zero off, unchunked, ring). */
static strategy acting(const sim_result *r)
{
    strategy s = r->s;
    if (!zero_applies(r))
        s.mem &= ~MEM_ZERO;
    if (!chunk_applies(r))
        s.chunk = 0;
    if (!collective_applies(r))
        s.collective = COLL_RING;
    return s;
}

int search_same_strategy(const sim_result *a, const sim_result *b)
{
    strategy x = acting(a), y = acting(b);
    return a->m.microbatch == b->m.microbatch && x.dp == y.dp && x.tp == y.tp && x.sp == y.sp && x.pp == y.pp &&
           x.tatp == y.tatp && x.tatp_w == y.tatp_w && x.tatp_h == y.tatp_h && x.placement == y.placement &&
           x.collective == y.collective && x.routing == y.routing && x.checkpoint == y.checkpoint &&
           x.mem == y.mem && x.grad == y.grad && x.chunk == y.chunk && x.sub_w == y.sub_w && x.sub_h == y.sub_h &&
           x.tp_seqpar == y.tp_seqpar && x.exec == y.exec;
}
