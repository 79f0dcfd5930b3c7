/*
 * dram.c - the DRAM traffic of each phase (dram.h; docs/MODEL.md, "DRAM
 * traffic").
 */
#include "dram.h"

#include <math.h>

#include "sim_int.h"

static double part(double in_dram, double all) { return all > 0 ? in_dram / all : 0; }

/* DRAM bytes of one occurrence of a block: a layer's forward or backward
 * (every phase of that scope and role, each rep times), a logits phase or
 * the optimizer. The weights and gradients of a layer (or of the head) in
 * DRAM are the unit's DRAM share of each times the layer's shard. */
static double block_bytes(const sim_result *r, int scope, int role)
{
    const mem_usage *u = &r->mem;
    const model *m = &r->m;
    double per_unit = (double)r->s.tp * r->s.tatp * sim_zero_shard(r);
    double n = (scope == SIM_LAYER ? model_layer_params(m) : (double)m->vocab * m->hidden) / per_unit;
    double w = 2 * n * part(u->dram_params, u->params);
    double g = 2 * sim_grad_bytes(r) * n * part(u->dram_grads, u->grads); /* read and written */
    double a = scope == SIM_LAYER ? u->activations_per_layer * part(u->dram_activations, u->activations) : 0;
    switch (role) {
    case SIM_FORWARD: return (scope == SIM_LAYER && r->s.checkpoint == RECOMPUTE_FULL ? 2 : 1) * w + a;
    case SIM_BACKWARD: return w + g + a;
    case SIM_OPTIMIZER: return 2 * (u->dram_params + u->dram_grads + u->dram_optimizer);
    default: return 0;
    }
}

double dram_phase_s(const sim_result *r, const sim_phase *ph)
{
    double bw = r->wf->dram_bw;
    if (bw <= 0 || ph->flops <= 0)
        return 0;
    double flops = 0;
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].scope == ph->scope && r->phases[i].role == ph->role)
            flops += r->phases[i].rep * r->phases[i].flops;
    return ph->flops / flops * block_bytes(r, ph->scope, ph->role) / bw;
}

double dram_stall_s(const sim_result *r, const sim_phase *ph)
{
    return fmax(0, dram_phase_s(r, ph) - ph->flops / (r->wf->peak_flops * r->wf->efficiency));
}

double dram_step_s(const sim_result *r, int stall)
{
    double s = 0;
    for (int i = 0; i < r->nphases; i++)
        s += r->phases[i].count * (stall ? dram_stall_s : dram_phase_s)(r, &r->phases[i]);
    return s;
}
