/*
 * mem.h - memory of one unit: parameters, gradients, optimizer states,
 * activations and communication buffers, in bytes (docs/MODEL.md sections 3 and 11).
 *
 * Activations come from a table of the tensors one layer stores for backward
 * (Korthikanti et al. 2022), each with its element count per layer and
 * micro-batch, its bytes per element and how it is sharded. Summed over the
 * table for 16-bit activations and 1-byte dropout masks it reproduces
 *   no parallelism       sbh(34 + 5as/h)
 *   TP t                 sbh(10 + 24/t + 5as/(ht))
 *   TP t + seqpar        sbh(34 + 5as/h) / t
 *   TP t + selective     sbh(10 + 24/t)
 *   TP t + seqpar + sel. 34sbh / t
 *   full recompute       2sbh (the layer input; / t with seqpar)
 */
#ifndef WT_MEM_H
#define WT_MEM_H

#include "model.h"

/* How a stored tensor is split across units. */
enum {
    MEM_SHARD_TP = 1u,     /* split by TP (heads or ffn columns) */
    MEM_SHARD_SEQPAR = 2u, /* split by TP only with Megatron's sequence parallelism */
    MEM_CORE = 4u,         /* attention core: dropped by selective recompute */
    MEM_INPUT = 8u,        /* the layer input: all that full recompute keeps */
};

typedef struct mem_tensor {
    const char *name;
    double elems;     /* per layer and micro-batch, before sharding */
    int bytes;        /* per element at 16-bit activations: 2, or 1 for masks */
    unsigned flags;
} mem_tensor;

#define MEM_MAX_TENSORS 16

/* Fills out[] (MEM_MAX_TENSORS entries) for micro-batch b; returns the count. */
int mem_act_table(const model *m, int b, mem_tensor *out);

/* How activations are split and stored. */
typedef struct mem_act_opts {
    int tp, sp, tatp;      /* sp: sequence split across units; tatp: grid size */
    int seqpar;            /* Megatron sequence parallelism inside TP */
    model_recompute recompute;
    int int8;              /* 2-byte activations stored as int8 */
} mem_act_opts;

/* Bytes one unit stores for one layer and one micro-batch of m->microbatch. */
double mem_act_layer(const model *m, const mem_act_opts *o);

/* Everything the fullest unit holds, in bytes. */
typedef struct mem_usage {
    double params, grads, optimizer;
    double activations;           /* all layers and micro-batches in flight */
    double activations_per_layer; /* one layer, one micro-batch */
    double buffers;               /* communication buffers */
    double total, capacity;
    double store;                 /* bytes the parameter store holds (exec stream), else 0 */
    int fits;                     /* total <= capacity and store <= the store's capacity */
    /* Where it lives (mem_place): the bytes in SRAM and in DRAM, and the
     * part of each kind that lives in DRAM. */
    double sram, dram;
    double dram_buffers, dram_params, dram_grads, dram_activations, dram_optimizer;
} mem_usage;

/* Places u's parts in sram bytes of SRAM, the most touched per byte first
 * (buffers, params, grads, activations, optimizer states: docs/MODEL.md,
 * "Where memory lives"); what does not fit lives in DRAM. Fills u->sram,
 * u->dram and u->dram_*. For a unit without DRAM pass u->total. */
void mem_place(mem_usage *u, double sram);

#endif
