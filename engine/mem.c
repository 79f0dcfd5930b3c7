#include "mem.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

int mem_act_table(const model *m, int b, mem_tensor *out)
{
    double s = m->seq, h = m->hidden, a = m->heads, f = m->ffn;
    double hkv = h / a * m->kv_heads;
    double sbh = s * b * h, as2b = a * s * s * b, sbf = s * b * f;
    int n = 0;
#define T(nm, el, by, fl) out[n++] = (mem_tensor){nm, el, by, fl}
    /* Attention block with its LayerNorm input: 13sbh + 5as^2b at a = kv_heads
     * (Korthikanti's 11sbh + 5as^2b plus 2sbh of LayerNorm). */
    T("ln1.input", sbh, 2, MEM_SHARD_SEQPAR | MEM_INPUT);
    T("qkv.input", sbh, 2, MEM_SHARD_SEQPAR);
    T("q", sbh, 2, MEM_SHARD_TP);
    T("k", s * b * hkv, 2, MEM_SHARD_TP);
    T("v", s * b * hkv, 2, MEM_SHARD_TP);
    T("softmax.output", as2b, 2, MEM_SHARD_TP | MEM_CORE);
    T("softmax.dropout_mask", as2b, 1, MEM_SHARD_TP | MEM_CORE);
    T("softmax.dropout_output", as2b, 2, MEM_SHARD_TP | MEM_CORE);
    T("proj.input", sbh, 2, MEM_SHARD_TP);
    T("attn.dropout_mask", sbh, 1, MEM_SHARD_SEQPAR);
    /* MLP block with its LayerNorm input: 21sbh at f = 4h (gelu; Korthikanti's
     * 19sbh plus 2sbh); swiglu keeps gate, up and the product's input. */
    T("ln2.input", sbh, 2, MEM_SHARD_SEQPAR);
    T("mlp_in.input", sbh, 2, MEM_SHARD_SEQPAR);
    if (m->mlp == MODEL_SWIGLU) {
        T("gate.output", sbf, 2, MEM_SHARD_TP);
        T("up.output", sbf, 2, MEM_SHARD_TP);
    } else {
        T("gelu.input", sbf, 2, MEM_SHARD_TP);
    }
    T("mlp_out.input", sbf, 2, MEM_SHARD_TP);
    T("mlp.dropout_mask", sbh, 1, MEM_SHARD_SEQPAR);
#undef T
    assert(n <= MEM_MAX_TENSORS);
    return n;
}

double mem_act_layer(const model *m, const mem_act_opts *o)
{
    mem_tensor t[MEM_MAX_TENSORS];
    int n = mem_act_table(m, m->microbatch, t);
    double total = 0;
    for (int i = 0; i < n; i++) {
        if (o->recompute == RECOMPUTE_FULL && !(t[i].flags & MEM_INPUT))
            continue;
        if (o->recompute == RECOMPUTE_SELECTIVE && (t[i].flags & MEM_CORE))
            continue;
        double el = t[i].elems;
        if ((t[i].flags & MEM_SHARD_TP) || ((t[i].flags & MEM_SHARD_SEQPAR) && o->seqpar))
            el /= o->tp;
        /* The sequence split and the TATP grid shard every stored tensor. */
        el /= (double)o->sp * o->tatp;
        int bytes = (o->int8 && t[i].bytes == 2) ? 1 : t[i].bytes;
        total += el * bytes;
    }
    return total;
}

void mem_place(mem_usage *u, double sram)
{
    /* Per byte and step: a buffer is touched by every collective, a
     * parameter by every micro-batch's forward and backward, a gradient
     * accumulated once per micro-batch, an activation written and read once
     * per micro-batch for each micro-batch in flight, an optimizer state
     * read and written once: the least touched bytes go to DRAM. */
    const double *part[] = {&u->buffers, &u->params, &u->grads, &u->activations, &u->optimizer};
    double *far[] = {&u->dram_buffers, &u->dram_params, &u->dram_grads, &u->dram_activations, &u->dram_optimizer};
    double room = sram;
    u->dram = 0;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
        double near = fmin(*part[i], room);
        *far[i] = *part[i] - near;
        room -= near;
        u->dram += *far[i];
    }
    u->sram = u->total - u->dram;
}
