/*
 * sim_phases.c - the phases of one training step (docs/MODEL.md, "Phases").
 *
 * Per layer and micro-batch each GEMM Y[n x m] = X[n x k] W[k x m] is a phase
 * holding its compute and its collectives:
 *   TATP (grid Gx x Gy): QKV and MLP-in all-gather X along rows (M = 2nk/Gy)
 *     and reduce-scatter Y along columns (M = 2nm/Gx); projection and MLP-out
 *     swap rows and columns. Backward gathers dY, reduce-scatters dX and
 *     gathers X again for dW.
 *   TP (Megatron): all-reduce of 2nh bytes after the projection and MLP-out
 *     forward and after QKV and MLP-in backward; with sequence parallelism an
 *     all-gather before and a reduce-scatter after instead (same bytes).
 *   SP: the attention core all-gathers K and V forward and reduce-scatters
 *     their gradients backward.
 * TP messages shrink by the TATP grid and TATP messages by TP, since each
 * splits the other's features.
 * Weight streaming (exec stream) adds per layer fwd.stream (its weights in,
 * beside the layer before) and bwd.stream (its weights in again, then its
 * gradients out), and the head's weights in to fwd.logits, in and its
 * gradients out to bwd.logits: ops of kind CG_STORE (stream.h).
 */
#include <string.h>

#include "sim_int.h"

static sim_phase *add_phase(sim_result *r, const char *name, int scope, double rep, double flops)
{
    sim_phase *ph = &r->phases[r->nphases++];
    ph->nops = ph->nterms = 0;
    size_t len = strlen(name);
    memcpy(ph->name, name, len < sizeof ph->name ? len + 1 : sizeof ph->name);
    ph->name[sizeof ph->name - 1] = '\0';
    ph->role = !strncmp(name, "bwd.", 4) ? SIM_BACKWARD : SIM_FORWARD;
    ph->scope = scope;
    ph->rep = rep;
    ph->flops = flops;
    return ph;
}

static void add_op(sim_phase *ph, int kind, int op, double bytes, int group_size)
{
    if (group_size <= 1 || bytes <= 0)
        return;
    ph->ops[ph->nops++] = (sim_op){kind, op, bytes};
}

/* A transfer between the parameter store and the ranks (weight streaming):
 * op OP_ALLGATHER brings M bytes of weights in, OP_REDUCESCATTER takes M
 * bytes of gradients out. */
static void add_store(sim_phase *ph, int op, double bytes)
{
    ph->ops[ph->nops++] = (sim_op){CG_STORE, op, bytes};
}

/* Sizes every phase needs. */
typedef struct shape {
    double n;          /* tokens per unit's sequence shard and micro-batch: b * s / SP */
    double h, hkv;
    double tp, gx, gy, tt; /* TP, TATP grid, TP * TATP */
    int seqpar;
    int n_tp, n_sp, n_dp, n_pp; /* group sizes */
} shape;

/* One GEMM forward and backward. */
static void gemm_phases(sim_result *r, const shape *sh, int g, int backward, double rep)
{
    static const char *const fwd_names[] = {"fwd.attn.qkv", "fwd.attn.proj", "fwd.mlp.in", "fwd.mlp.out"};
    static const char *const bwd_names[] = {"bwd.attn.qkv", "bwd.attn.proj", "bwd.mlp.in", "bwd.mlp.out"};
    double k, m;
    model_gemm_shape(&r->m, g, &k, &m);
    int rows_first = g == MODEL_QKV || g == MODEL_MLP_IN;
    int ag_kind = rows_first ? CG_TATP_ROW : CG_TATP_COL, rs_kind = rows_first ? CG_TATP_COL : CG_TATP_ROW;
    int ag_size = rows_first ? (int)sh->gx : (int)sh->gy, rs_size = rows_first ? (int)sh->gy : (int)sh->gx;
    double m_ag = 2 * sh->n * k / ((rows_first ? sh->gy : sh->gx) * sh->tp);
    double m_rs = 2 * sh->n * m / ((rows_first ? sh->gx : sh->gy) * sh->tp);
    double m_tp = 2 * sh->n * sh->h / (sh->gx * sh->gy);
    double flops = 2 * sh->n * k * m / sh->tt;
    if (!backward) {
        sim_phase *ph = add_phase(r, fwd_names[g], SIM_LAYER, rep, flops);
        if (sh->seqpar && rows_first)
            add_op(ph, CG_TP, OP_ALLGATHER, m_tp, sh->n_tp);
        add_op(ph, ag_kind, OP_ALLGATHER, m_ag, ag_size);
        add_op(ph, rs_kind, OP_REDUCESCATTER, m_rs, rs_size);
        if (!rows_first)
            add_op(ph, CG_TP, sh->seqpar ? OP_REDUCESCATTER : OP_ALLREDUCE, m_tp, sh->n_tp);
        return;
    }
    sim_phase *ph = add_phase(r, bwd_names[g], SIM_LAYER, rep, 2 * flops);
    if (sh->seqpar && !rows_first)
        add_op(ph, CG_TP, OP_ALLGATHER, m_tp, sh->n_tp);
    add_op(ph, rs_kind, OP_ALLGATHER, m_rs, rs_size);
    add_op(ph, ag_kind, OP_REDUCESCATTER, m_ag, ag_size);
    add_op(ph, ag_kind, OP_ALLGATHER, m_ag, ag_size);
    if (rows_first) {
        add_op(ph, CG_TP, sh->seqpar ? OP_REDUCESCATTER : OP_ALLREDUCE, m_tp, sh->n_tp);
        if (sh->seqpar) /* Megatron gathers the input again for the weight gradient */
            add_op(ph, CG_TP, OP_ALLGATHER, m_tp, sh->n_tp);
    }
}

/* The attention core: scores and values over the whole sequence. */
static void core_phase(sim_result *r, const shape *sh, int backward, double rep)
{
    const model *m = &r->m;
    double flops = model_core_fwd_flops(m, m->microbatch) / (sh->n_sp * sh->tt);
    double kv = 2 * 2 * sh->hkv / (sh->gx * sh->tp); /* K and V bytes per token */
    int op = backward ? OP_REDUCESCATTER : OP_ALLGATHER;
    sim_phase *ph = add_phase(r, backward ? "bwd.attn.core" : "fwd.attn.core", SIM_LAYER, rep,
                              backward ? 2 * flops : flops);
    add_op(ph, CG_TATP_COL, op, sh->n * kv, (int)sh->gy);
    add_op(ph, CG_SP, op, (double)m->microbatch * m->seq * kv, sh->n_sp);
}

void sim_phases_build(sim_result *r)
{
    const model *m = &r->m;
    const strategy *s = &r->s;
    shape sh = {
        .n = (double)m->microbatch * m->seq / s->sp,
        .h = m->hidden,
        .hkv = (double)m->hidden / m->heads * m->kv_heads,
        .tp = s->tp, .gx = s->tatp_w, .gy = s->tatp_h, .tt = (double)s->tp * s->tatp,
        .seqpar = s->tp_seqpar,
        .n_tp = s->tp, .n_sp = s->sp, .n_dp = s->dp * s->sp, .n_pp = s->pp,
    };
    double rep_fwd = s->checkpoint == RECOMPUTE_FULL ? 2 : 1;
    double rep_core = s->checkpoint == RECOMPUTE_NONE ? 1 : 2;
    double zero_bytes = 2 * model_layer_params(m) / sh.tt;
    int zero = (s->mem & MEM_ZERO) != 0, stream = s->exec == EXEC_STREAM;
    double layer_w = 2 * model_layer_params(m), head_w = 2 * (double)m->vocab * m->hidden;
    r->nphases = 0;

    if (zero)
        add_op(add_phase(r, "fwd.zero.gather", SIM_LAYER, rep_fwd, 0), CG_DP, OP_ALLGATHER, zero_bytes,
               sh.n_dp);
    if (stream)
        add_store(add_phase(r, "fwd.stream", SIM_LAYER, rep_fwd, 0), OP_ALLGATHER, layer_w);
    gemm_phases(r, &sh, MODEL_QKV, 0, rep_fwd);
    core_phase(r, &sh, 0, rep_core);
    gemm_phases(r, &sh, MODEL_PROJ, 0, rep_fwd);
    gemm_phases(r, &sh, MODEL_MLP_IN, 0, rep_fwd);
    gemm_phases(r, &sh, MODEL_MLP_OUT, 0, rep_fwd);
    double logits = model_logits_fwd_flops(m, m->microbatch) / (s->sp * sh.tt);
    sim_phase *head = add_phase(r, "fwd.logits", SIM_LAST, 1, logits);
    if (stream)
        add_store(head, OP_ALLGATHER, head_w);
    sim_phase *pp = add_phase(r, "pp.p2p", SIM_MB, 1, 0);
    add_op(pp, CG_PP, -1, 2 * sh.n * sh.h / sh.tt, sh.n_pp);
    if (!pp->nops)
        r->nphases--;
    head = add_phase(r, "bwd.logits", SIM_LAST, 1, 2 * logits);
    if (stream) {
        add_store(head, OP_ALLGATHER, head_w);
        add_store(head, OP_REDUCESCATTER, head_w);
    }
    gemm_phases(r, &sh, MODEL_MLP_OUT, 1, 1);
    gemm_phases(r, &sh, MODEL_MLP_IN, 1, 1);
    gemm_phases(r, &sh, MODEL_PROJ, 1, 1);
    core_phase(r, &sh, 1, 1);
    gemm_phases(r, &sh, MODEL_QKV, 1, 1);
    if (zero)
        add_op(add_phase(r, "bwd.zero.gather", SIM_LAYER, 1, 0), CG_DP, OP_ALLGATHER, zero_bytes, sh.n_dp);
    if (stream) { /* the layer's weights again, then its gradients out */
        sim_phase *ph = add_phase(r, "bwd.stream", SIM_LAYER, 1, 0);
        add_store(ph, OP_ALLGATHER, layer_w);
        add_store(ph, OP_REDUCESCATTER, layer_w);
    }
    /* dp.allreduce and optimizer: their sizes depend on the stage's
     * parameters, filled in by sim.c. */
    add_phase(r, "dp.allreduce", SIM_STEP, 1, 0)->role = SIM_DP;
    add_phase(r, "optimizer", SIM_STEP, 1, 0)->role = SIM_OPTIMIZER;
}
