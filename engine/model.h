/*
 * model.h - the workload: a decoder-only transformer (docs/MODEL.md section 2).
 *
 * Shapes are counts (layers, widths, tokens). Weights and activations are
 * 2 bytes. FLOPs count a multiply-add as 2. Every formula is in docs/MODEL.md.
 */
#ifndef WT_MODEL_H
#define WT_MODEL_H

#include "err.h"

typedef enum model_mlp { MODEL_GELU = 0, MODEL_SWIGLU = 1 } model_mlp;

/* What backward recomputes (the strategy's checkpointing option). */
typedef enum model_recompute {
    RECOMPUTE_NONE = 0,
    RECOMPUTE_SELECTIVE = 1, /* the attention core (scores, softmax, dropout) */
    RECOMPUTE_FULL = 2,      /* the whole layer from its input */
    RECOMPUTE_NKINDS         /* rows of recompute_table (strategy.h) */
} model_recompute;

typedef struct model {
    char name[64];
    int layers;          /* L */
    int hidden;          /* h */
    int heads;           /* a */
    int kv_heads;        /* GQA key/value heads, divides a */
    int ffn;             /* f */
    model_mlp mlp;       /* gelu: 2 matrices h x f; swiglu: 3 */
    int vocab;           /* V */
    int tied_embeddings; /* 1: the output head is the input embedding */
    int seq;             /* s, tokens per sequence */
    int batch;           /* B, sequences per step */
    int microbatch;      /* b, sequences per micro-batch */
} model;

/* The GEMMs of one layer, in forward order: Y[n x m] = X[n x k] W[k x m]. */
enum model_gemm { MODEL_QKV, MODEL_PROJ, MODEL_MLP_IN, MODEL_MLP_OUT, MODEL_NGEMM };

/* Looks up a preset by name or alias (gpt3-6.7b/6b, gpt3-13b/13b,
 * llama2-70b/70b, gpt3-175b/175b, gopher-280b/280b); 0 or -1. */
int model_preset(const char *name, model *out);
/* A preset name, or else a YAML model file; errors name file:line:col. */
int model_load(const char *name_or_path, model *out, wt_err *e);
/* Checks the shape: positive sizes, heads divide hidden, kv_heads divide
 * heads, micro-batch divides batch. Call after overriding seq/batch. */
int model_check(const model *m, wt_err *e);
/* The preset names, NULL-terminated (for help and completion). */
const char *const *model_preset_names(void);

/* Inner dimension k and output dimension m of GEMM g. */
void model_gemm_shape(const model *m, int g, double *k, double *n_out);
/* Matrix parameters of one layer. */
double model_layer_matrix_params(const model *m);
/* All parameters of one layer (matrices, two LayerNorms). */
double model_layer_params(const model *m);
/* Embedding parameters: V*h, plus the output head when not tied. */
double model_embedding_params(const model *m);
/* All parameters of the model (layers, embeddings, final LayerNorm). */
double model_params(const model *m);

/* Forward FLOPs of one layer over `seqs` sequences of m->seq tokens:
 * 2*seqs*s*(matrix params) + 4*seqs*s^2*h. */
double model_layer_fwd_flops(const model *m, double seqs);
/* The attention core part of it: 4*seqs*s^2*h. */
double model_core_fwd_flops(const model *m, double seqs);
/* The logits: 2*seqs*s*h*V. */
double model_logits_fwd_flops(const model *m, double seqs);
/* FLOPs of one training step over m->batch sequences: 3x forward plus what
 * backward recomputes. Model FLOPs (for MFU) are this with RECOMPUTE_NONE. */
double model_step_flops(const model *m, model_recompute r);

#endif
