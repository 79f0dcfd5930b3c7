/*
 * sim_spec.c - what a strategy needs before any unit is placed or any flow
 * routed: the phases with their FLOPs and collectives, the memory of every
 * stage, and a lower bound on the step time. The search's first level uses
 * these on every candidate; sim_eval_ctx builds on them.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "dram.h"
#include "sim_int.h"
#include "stream.h"

/* Adam: FLOPs per parameter a unit updates. */
#define OPTIMIZER_FLOPS_PER_PARAM 12.0
/* Optimizer states per parameter (fp32 master weight, momentum, variance). */
#define OPTIMIZER_BYTES_PER_PARAM 12.0

/* Layers of stage k: L / PP, the first L % PP stages one more. */
int sim_stage_layers(const sim_result *r, int k)
{
    int L = r->m.layers, pp = r->s.pp;
    return L / pp + (k < L % pp);
}

/* Parameters one unit of stage k holds (before zero-redundancy sharding). */
static double stage_params(const sim_result *r, int k)
{
    const model *m = &r->m;
    double emb = (double)m->vocab * m->hidden, p = sim_stage_layers(r, k) * model_layer_params(m);
    int first = k == 0, last = k == r->s.pp - 1;
    if (first)
        p += emb;
    if (last) {
        /* The head: its own matrix when untied; a copy of the embedding on
         * the last stage when tied and pipelined (Megatron keeps one). */
        if (!m->tied_embeddings || !first)
            p += emb;
        p += 2.0 * m->hidden;
    }
    return p / ((double)r->s.tp * r->s.tatp);
}

double sim_zero_shard(const sim_result *r)
{
    return (r->s.mem & MEM_ZERO) ? (double)r->s.dp * r->s.sp : 1;
}

double sim_grad_bytes(const sim_result *r) { return (r->s.mem & MEM_GRAD_FP8) ? 1 : 2; }

static void remove_empty_phases(sim_result *r)
{
    int k = 0;
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].flops > 0 || r->phases[i].nops > 0 || r->phases[i].role == SIM_OPTIMIZER)
            r->phases[k++] = r->phases[i];
    r->nphases = k;
}

/* The largest collective tensor a unit holds at once (the gradient
 * all-reduce works in place), double-buffered chunks when streaming. */
static double buffer_bytes(const sim_result *r)
{
    double best = 0;
    for (int i = 0; i < r->nphases; i++)
        for (int j = 0; j < r->phases[i].nops; j++)
            if ((r->phases[i].ops[j].kind != CG_DP || r->phases[i].scope != SIM_STEP) &&
                r->phases[i].ops[j].kind != CG_STORE)
                best = fmax(best, r->phases[i].ops[j].bytes);
    if (r->s.chunk > 0)
        best = fmin(best, 2 * r->s.chunk);
    return best;
}

/* Activation bytes per layer and micro-batch, and those of the one layer
 * being recomputed under full checkpointing: the same on every stage. */
typedef struct act_sizes {
    double per_layer, recompute;
} act_sizes;

static act_sizes activation_sizes(const sim_result *r)
{
    const strategy *s = &r->s;
    mem_act_opts o = {s->tp, s->sp, s->tatp, s->tp_seqpar, s->checkpoint, (s->mem & MEM_ACT_INT8) != 0};
    act_sizes a = {mem_act_layer(&r->m, &o), 0};
    if (s->checkpoint == RECOMPUTE_FULL) {
        o.recompute = RECOMPUTE_NONE;
        a.recompute = mem_act_layer(&r->m, &o);
    }
    return a;
}

/* Memory of a unit of stage k. Streaming (exec stream) keeps no resident
 * weights: a unit holds the shards of the matrix it computes with and of
 * the next (the larger of a layer and the head), and one gradient shard on
 * its way out; the store holds weights, gradients and optimizer states. */
static mem_usage stage_memory(const sim_result *r, int k, double buffers, act_sizes act)
{
    const strategy *s = &r->s;
    mem_usage u = {0};
    double p = stage_params(r, k), shard = sim_zero_shard(r), grad_bytes = sim_grad_bytes(r);
    if (s->exec == EXEC_STREAM) {
        double held = fmax(model_layer_params(&r->m), (double)r->m.vocab * r->m.hidden) / ((double)s->tp * s->tatp);
        u.params = 2 * 2 * held;
        u.grads = grad_bytes * held;
        u.store = (2 + 2 + OPTIMIZER_BYTES_PER_PARAM) * r->params;
    } else {
        u.params = 2 * p / shard;
        u.grads = grad_bytes * p / shard;
        u.optimizer = OPTIMIZER_BYTES_PER_PARAM * p / shard;
    }
    u.activations_per_layer = act.per_layer;
    int in_flight = s->pp - k < r->micro_batches ? s->pp - k : r->micro_batches;
    u.activations = sim_stage_layers(r, k) * in_flight * act.per_layer + act.recompute;
    u.buffers = buffers;
    u.total = u.params + u.grads + u.optimizer + u.activations + u.buffers;
    u.capacity = wafer_unit_capacity(r->wf);
    u.fits = u.total <= u.capacity && u.store <= r->wf->store_bytes;
    mem_place(&u, r->wf->dram_bytes > 0 ? r->wf->sram_bytes : u.total);
    return u;
}

static void fill_dp_and_optimizer(sim_result *r)
{
    const strategy *s = &r->s;
    double p = 0;
    for (int k = 0; k < s->pp; k++)
        p = fmax(p, stage_params(r, k));
    double wire;
    if (s->grad == GRAD_FP8) {
        wire = p;
    } else if (s->grad == GRAD_1BIT) {
        double chunks = s->chunk > 0 ? ceil(2 * p / s->chunk) : 1;
        wire = p / 8 + 4 * chunks; /* sign bits plus one fp32 scale per chunk */
    } else {
        wire = 2 * p;
    }
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        if (ph->role == SIM_DP && s->dp * s->sp > 1 && s->exec != EXEC_STREAM)
            ph->ops[ph->nops++] = (sim_op){CG_DP, (s->mem & MEM_ZERO) ? OP_REDUCESCATTER : OP_ALLREDUCE, wire};
        if (ph->role == SIM_OPTIMIZER && s->exec != EXEC_STREAM) /* streaming: the store runs it */
            ph->flops = OPTIMIZER_FLOPS_PER_PARAM * p / sim_zero_shard(r);
    }
}


void sim_stage_memory(const sim_result *r, double *totals)
{
    double buffers = buffer_bytes(r);
    act_sizes act = activation_sizes(r);
    for (int k = 0; k < r->s.pp; k++)
        totals[k] = stage_memory(r, k, buffers, act).total;
}

double sim_per_mb(const sim_result *r, const sim_phase *ph, int k)
{
    switch (ph->scope) {
    case SIM_LAYER: return sim_stage_layers(r, k) * ph->rep;
    case SIM_LAST: return k == r->s.pp - 1;
    case SIM_MB: return 1;
    default: return 0;
    }
}

int sim_prefetched(const sim_phase *ph)
{
    if (ph->scope != SIM_LAYER || ph->flops > 0 || !ph->nops)
        return 0;
    for (int i = 0; i < ph->nops; i++)
        if (ph->ops[i].kind != CG_DP && ph->ops[i].kind != CG_STORE)
            return 0;
    return 1;
}

/* Occurrences of a phase per step on the first stage (the most layers). */
static double phase_count(const sim_result *r, const sim_phase *ph)
{
    switch (ph->scope) {
    case SIM_LAYER: return (double)r->micro_batches * r->stage_layers_max * ph->rep;
    case SIM_LAST:
    case SIM_MB: return r->micro_batches;
    default: return 1;
    }
}

int sim_spec(sim_result *r, const wafer *wf, const model *m, const strategy *s, wt_err *e)
{
    r->wf = wf;
    r->m = *m;
    r->s = *s;
    r->nphases = 0;
    int rc = model_check(m, e);
    if (rc == WT_OK)
        rc = strategy_resolve(&r->s, m, wf, e);
    if (rc != WT_OK)
        return rc;
    r->units_total = (int)wafer_nunits(wf);
    r->units_live = wafer_live_units(wf);
    r->units_used = strategy_units(&r->s);
    r->units_idle = r->units_live - r->units_used;
    r->micro_batches = m->batch / (r->s.dp * m->microbatch);
    r->stage_layers_max = sim_stage_layers(r, 0);
    r->params = model_params(m);
    r->flops_per_step = model_step_flops(m, r->s.checkpoint);
    r->model_flops_per_step = model_step_flops(m, RECOMPUTE_NONE);
    sim_phases_build(r);
    double buffers = buffer_bytes(r);
    act_sizes act = activation_sizes(r);
    for (int k = 0; k < r->s.pp; k++) {
        mem_usage u = stage_memory(r, k, buffers, act);
        if (k == 0 || u.total > r->mem.total)
            r->mem = u;
    }
    fill_dp_and_optimizer(r);
    remove_empty_phases(r);
    for (int i = 0; i < r->nphases; i++)
        r->phases[i].count = phase_count(r, &r->phases[i]);
    return WT_OK;
}

/* Members of a group of this kind under the resolved strategy. */
static int kind_size(const strategy *s, int kind)
{
    switch (kind) {
    case CG_TATP_ROW: return s->tatp_w;
    case CG_TATP_COL: return s->tatp_h;
    case CG_TP: return s->tp;
    case CG_SP: return s->sp;
    case CG_PP: return s->pp;
    default: return s->dp * s->sp;
    }
}

/* What the bound needs of one phase's communication. */
typedef struct comm_need {
    double total;              /* bytes a unit sends (the same for every algorithm) */
    double one_way;            /* bytes a pipeline shift sends each way */
    double store_s;            /* the store's transfers: their bandwidth bound, latency and overhead */
    double store_sent;         /* the bytes a rank moves to or from the store */
    int steps[COLL_NALGOS];    /* the fewest latency-bound steps with each algorithm */
} comm_need;

/*
 * Every algorithm makes each member send, pass after pass, at least the
 * ring's total (2(p-1)/p M to all-reduce, (p-1)/p M otherwise), split over
 * at most its partners (two for bidir, one otherwise: coll_algo_partners);
 * a partner's share crosses the first link of its path whole, so the passes
 * take at least the total over the partners over the fastest link. Each
 * algorithm takes at least its fewest steps (coll_algo_min_steps); a group
 * across wafers is always hierarchical, so with several wafers a group may
 * take hier's fewest instead. A pipeline shift sends its message each way
 * in one step. Every step costs the overhead and at least one hop.
 */
static comm_need comm_needs(const sim_result *r, const sim_phase *ph, int multi)
{
    comm_need c = {0};
    for (int i = 0; i < ph->nops; i++) {
        const sim_op *op = &ph->ops[i];
        int p = kind_size(&r->s, op->kind);
        if (op->kind == CG_STORE) {
            /* as traffic.c's store term: a shard per rank over the store's
             * rate, one step of at least the store's latency */
            int out = op->op == OP_REDUCESCATTER;
            double shard = op->bytes / ((double)r->s.tp * r->s.tatp);
            c.store_s += shard * stream_store_s(r, out) + r->wf->store_lat + r->wf->link_overhead;
            c.store_sent += shard;
            continue;
        }
        if (op->op < 0) {
            c.one_way += op->bytes;
            c.total += 2 * op->bytes; /* as time_phase counts a two-way pass */
        } else {
            c.total += coll_ring_bytes(op->op, p, op->bytes);
        }
        int hier = multi && op->op >= 0 ? coll_algo_min_steps(COLL_HIER, op->op, p) : INT_MAX;
        for (int a = 0; a < COLL_NALGOS; a++) {
            int steps = op->op < 0 ? 1 : coll_algo_min_steps((coll_algo)a, op->op, p);
            c.steps[a] += steps < hier ? steps : hier;
        }
    }
    return c;
}

/* A phase's time with comm as its communication, as time_phase streams it. */
static double phase_time(const sim_result *r, double comp, double comm, double sent)
{
    double hi = fmax(comp, comm), lo = fmin(comp, comm);
    if (r->s.chunk > 0 && lo > 0) {
        double n = fmax(1, ceil(sent / r->s.chunk));
        return hi + lo / n + n * r->wf->chunk_overhead;
    }
    return comp + comm;
}

/* A block of L layers whose chain (a layer's phases but its prefetched
 * gathers) takes a and whose gathers take g: the first layer waits for its
 * gathers, each later one for the longer of its chain and the gathers run
 * beside the chain before it. Under the closed form, which runs them in
 * turn, L (a + g) is more. */
static double layers_s(double a, double g, int L)
{
    return L > 0 ? a + g + (L - 1) * fmax(a, g) : 0;
}

/* sim_bounds, with each phase's passes at least routed[i] seconds of
 * bandwidth when routed is not NULL (sim_bound_routed). */
static void bounds(const sim_result *r, double link_bw, const double *routed, double out[COLL_NALGOS])
{
    const wafer *wf = r->wf;
    int multi = wf->wafers_x * wf->wafers_y > 1;
    double peak = wf->peak_flops * wf->efficiency;
    double step_s = wf->link_overhead + (multi ? fmin(wf->link_lat, wf->iw_lat) : wf->link_lat);
    /* Stage k takes layers_s of its forward and backward layers, plus C,
     * plus B on the last stage: A[role] the chain's part per layer,
     * G[role] the prefetched gathers'. */
    double A[2][COLL_NALGOS] = {{0}}, G[2][COLL_NALGOS] = {{0}}, B[COLL_NALGOS] = {0}, C[COLL_NALGOS] = {0};
    double opt = 0;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        double comp = ph->flops / peak + dram_stall_s(r, ph);
        comm_need c = comm_needs(r, ph, multi);
        int bwd = ph->role == SIM_BACKWARD;
        for (int a = 0; a < COLL_NALGOS; a++) {
            double bytes = c.total - 2 * c.one_way, per_link = bytes / coll_algo_partners((coll_algo)a) + c.one_way;
            double bw_s = fmax(per_link / link_bw, routed ? routed[i] : 0);
            double comm = bw_s + c.steps[a] * step_s + c.store_s;
            double t = phase_time(r, comp, c.total > 0 || c.store_s > 0 ? comm : 0, c.total + c.store_sent);
            if (ph->scope == SIM_LAYER)
                (sim_prefetched(ph) ? G : A)[bwd][a] += ph->rep * t;
            else if (ph->scope == SIM_LAST)
                B[a] += t;
            else if (ph->scope == SIM_MB)
                C[a] += t;
            else if (ph->role == SIM_OPTIMIZER)
                opt = t;
        }
    }
    int pp = r->s.pp, first = sim_stage_layers(r, 0), last = sim_stage_layers(r, pp - 1);
    for (int a = 0; a < COLL_NALGOS; a++) {
        double lf = layers_s(A[0][a], G[0][a], first) + layers_s(A[1][a], G[1][a], first);
        double ll = layers_s(A[0][a], G[0][a], last) + layers_s(A[1][a], G[1][a], last);
        double stage = fmax(lf + C[a] + (pp == 1 ? B[a] : 0), ll + B[a] + C[a]);
        /* the exposed DP all-reduce is at least 0 */
        out[a] = (r->micro_batches + pp - 1) * stage + opt;
    }
}

void sim_bounds(const sim_result *r, double link_bw, double out[COLL_NALGOS])
{
    bounds(r, link_bw, NULL, out);
}

double sim_bound_routed(const sim_result *r, double link_bw, const double *routed, coll_algo a)
{
    double out[COLL_NALGOS];
    bounds(r, link_bw, routed, out);
    return out[a];
}
