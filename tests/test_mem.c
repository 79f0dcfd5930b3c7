/*
 * test_mem.c - activation memory: the six rows of Korthikanti et al. 2022
 * (docs/MODEL.md section 3) for several shapes, int8 storage, the sequence split
 * and the TATP grid, the tensor table of a swiglu GQA layer, and where a
 * unit's memory lives (SRAM first for the most touched bytes, then DRAM).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mem.h"

/* gelu, f = 4h, kv_heads = a: the layer Korthikanti et al. count. */
static model gelu_model(int s, int b, int h, int a)
{
    model m = {.name = "k22", .layers = 1, .hidden = h, .heads = a, .kv_heads = a, .ffn = 4 * h,
               .mlp = MODEL_GELU, .vocab = 1000, .tied_embeddings = 1, .seq = s, .batch = b, .microbatch = b};
    return m;
}

static double act(const model *m, int tp, int seqpar, model_recompute r)
{
    mem_act_opts o = {.tp = tp, .sp = 1, .tatp = 1, .seqpar = seqpar, .recompute = r};
    return mem_act_layer(m, &o);
}

static void assert_rel(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

typedef struct k22_case {
    int s, b, h, a, t;
} k22_case;

static const k22_case k22_cases[] = {
    {2048, 1, 4096, 32, 8},   /* GPT-3 6.7B-like */
    {2048, 1, 12288, 96, 8},  /* GPT-3 175B */
    {512, 4, 1024, 16, 4},
    {128, 2, 256, 8, 2},
    {100, 3, 60, 5, 5},       /* t = a: one head per rank */
    {4096, 2, 8192, 64, 64},
};
#define NK22 (sizeof k22_cases / sizeof k22_cases[0])

static void test_korthikanti_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < NK22; i++) {
        const k22_case *c = &k22_cases[i];
        model m = gelu_model(c->s, c->b, c->h, c->a);
        double s = c->s, b = c->b, h = c->h, a = c->a, t = c->t, sbh = s * b * h;
        double core = 5 * a * s / h; /* the attention core, in units of sbh */

        assert_rel(act(&m, 1, 0, RECOMPUTE_NONE), sbh * (34 + core), 1e-12, "no parallelism");
        assert_rel(act(&m, 1, 1, RECOMPUTE_NONE), sbh * (34 + core), 1e-12, "seqpar alone does nothing");
        assert_rel(act(&m, c->t, 0, RECOMPUTE_NONE), sbh * (10 + 24 / t + core / t), 1e-12, "TP");
        assert_rel(act(&m, c->t, 1, RECOMPUTE_NONE), sbh * (34 + core) / t, 1e-12, "TP + seqpar");
        assert_rel(act(&m, c->t, 0, RECOMPUTE_SELECTIVE), sbh * (10 + 24 / t), 1e-12, "TP + selective");
        assert_rel(act(&m, c->t, 1, RECOMPUTE_SELECTIVE), 34 * sbh / t, 1e-12, "TP + seqpar + selective");
        assert_rel(act(&m, 1, 0, RECOMPUTE_SELECTIVE), 34 * sbh, 1e-12, "selective alone");
        assert_rel(act(&m, 1, 0, RECOMPUTE_FULL), 2 * sbh, 1e-12, "full");
        assert_rel(act(&m, c->t, 0, RECOMPUTE_FULL), 2 * sbh, 1e-12, "full, TP");
        assert_rel(act(&m, c->t, 1, RECOMPUTE_FULL), 2 * sbh / t, 1e-12, "full, TP + seqpar");
    }
}

/* int8 turns every 2-byte tensor into 1 byte; the three dropout masks stay
 * at 1 byte. Per layer at 16 bits: 32sbh + 4as^2b in 2-byte tensors and
 * 2sbh + as^2b in masks, so int8 gives 16sbh + 2as^2b + 2sbh + as^2b.
 * Of the 18sbh, the TP-sharded part is q, k, v, proj input (4), the gelu
 * input (4) and the second MLP input (4): 12sbh; the other 6sbh is not. */
static void test_int8(void **state)
{
    (void)state;
    for (size_t i = 0; i < NK22; i++) {
        const k22_case *c = &k22_cases[i];
        model m = gelu_model(c->s, c->b, c->h, c->a);
        double s = c->s, b = c->b, h = c->h, a = c->a, t = c->t, sbh = s * b * h, as2b = a * s * s * b;
        mem_act_opts o = {.tp = 1, .sp = 1, .tatp = 1, .int8 = 1};
        assert_rel(mem_act_layer(&m, &o), 18 * sbh + 3 * as2b, 1e-12, "int8");
        o.tp = c->t;
        assert_rel(mem_act_layer(&m, &o), sbh * (6 + 12 / t) + 3 * as2b / t, 1e-12, "int8, TP");
        o.seqpar = 1;
        assert_rel(mem_act_layer(&m, &o), (18 * sbh + 3 * as2b) / t, 1e-12, "int8, TP + seqpar");
        o.recompute = RECOMPUTE_SELECTIVE;
        assert_rel(mem_act_layer(&m, &o), 18 * sbh / t, 1e-12, "int8, TP + seqpar + selective");
        o.seqpar = 0;
        assert_rel(mem_act_layer(&m, &o), sbh * (6 + 12 / t), 1e-12, "int8, TP + selective");
        o.recompute = RECOMPUTE_FULL;
        assert_rel(mem_act_layer(&m, &o), sbh, 1e-12, "int8, full");
    }
}

/* The sequence split and the TATP grid divide every stored tensor, on top of
 * whatever TP does. */
static void test_sp_and_tatp(void **state)
{
    (void)state;
    static const int splits[][2] = {{2, 1}, {1, 16}, {4, 8}, {8, 6}}; /* {sp, tatp} */
    for (size_t i = 0; i < NK22; i++) {
        const k22_case *c = &k22_cases[i];
        model m = gelu_model(c->s, c->b, c->h, c->a);
        double s = c->s, b = c->b, h = c->h, a = c->a, t = c->t, sbh = s * b * h;
        double core = 5 * a * s / h;
        for (size_t j = 0; j < sizeof splits / sizeof splits[0]; j++) {
            double d = (double)splits[j][0] * splits[j][1];
            mem_act_opts o = {.tp = 1, .sp = splits[j][0], .tatp = splits[j][1]};
            assert_rel(mem_act_layer(&m, &o), sbh * (34 + core) / d, 1e-12, "sp x tatp");
            o.tp = c->t;
            assert_rel(mem_act_layer(&m, &o), sbh * (10 + 24 / t + core / t) / d, 1e-12, "TP, sp x tatp");
            o.seqpar = 1;
            o.recompute = RECOMPUTE_SELECTIVE;
            assert_rel(mem_act_layer(&m, &o), 34 * sbh / (t * d), 1e-12, "TP + seqpar + sel., sp x tatp");
            o.recompute = RECOMPUTE_FULL;
            assert_rel(mem_act_layer(&m, &o), 2 * sbh / (t * d), 1e-12, "full, sp x tatp");
        }
    }
}

/* ---- the tensor table ----------------------------------------------------- */

typedef struct want_tensor {
    const char *name;
    double elems;
    int bytes;
    unsigned flags;
} want_tensor;

enum { TP = MEM_SHARD_TP, SEQ = MEM_SHARD_SEQPAR, CORE = MEM_CORE, INPUT = MEM_INPUT };

/* s = 16, b = 2, h = 64, a = 8, kv_heads = 2, f = 176: sbh = 2048, the K and
 * V width 64 / 8 * 2 = 16 gives sb*16 = 512, as^2b = 8*256*2 = 4096,
 * sbf = 16*2*176 = 5632. */
static const want_tensor swiglu_table[] = {
    {"ln1.input", 2048, 2, SEQ | INPUT},
    {"qkv.input", 2048, 2, SEQ},
    {"q", 2048, 2, TP},
    {"k", 512, 2, TP},
    {"v", 512, 2, TP},
    {"softmax.output", 4096, 2, TP | CORE},
    {"softmax.dropout_mask", 4096, 1, TP | CORE},
    {"softmax.dropout_output", 4096, 2, TP | CORE},
    {"proj.input", 2048, 2, TP},
    {"attn.dropout_mask", 2048, 1, SEQ},
    {"ln2.input", 2048, 2, SEQ},
    {"mlp_in.input", 2048, 2, SEQ},
    {"gate.output", 5632, 2, TP},
    {"up.output", 5632, 2, TP},
    {"mlp_out.input", 5632, 2, TP},
    {"mlp.dropout_mask", 2048, 1, SEQ},
};

static model swiglu_model(void)
{
    model m = {.name = "sw", .layers = 2, .hidden = 64, .heads = 8, .kv_heads = 2, .ffn = 176,
               .mlp = MODEL_SWIGLU, .vocab = 100, .seq = 16, .batch = 4, .microbatch = 2};
    return m;
}

static void check_table(const mem_tensor *got, int n, const want_tensor *want, int nwant)
{
    assert_int_equal(n, nwant);
    for (int i = 0; i < n; i++) {
        assert_string_equal(got[i].name, want[i].name);
        if (got[i].elems != want[i].elems)
            fail_msg("%s: %.17g elements, want %.17g", want[i].name, got[i].elems, want[i].elems);
        assert_int_equal(got[i].bytes, want[i].bytes);
        assert_int_equal(got[i].flags, want[i].flags);
    }
}

static void test_swiglu_gqa_table(void **state)
{
    (void)state;
    model m = swiglu_model();
    mem_tensor t[MEM_MAX_TENSORS];
    int nwant = (int)(sizeof swiglu_table / sizeof swiglu_table[0]);
    check_table(t, mem_act_table(&m, 2, t), swiglu_table, nwant);

    /* The table is for the micro-batch it is given, not the model's. */
    m.microbatch = 1;
    int n = mem_act_table(&m, 6, t);
    assert_int_equal(n, nwant);
    for (int i = 0; i < n; i++)
        assert_true(t[i].elems == swiglu_table[i].elems * 3);
}

static void test_swiglu_gqa_bytes(void **state)
{
    (void)state;
    model m = swiglu_model();
    /* 2-byte elements: six sbh tensors 12288, k and v 1024, two softmax
     * tensors 8192, three f-wide ones 16896: 38400 * 2 = 76800; masks
     * 4096 + 2048 + 2048 = 8192. */
    assert_true(act(&m, 1, 0, RECOMPUTE_NONE) == 84992);
    /* TP 2, seqpar off: unsharded ln1, qkv, ln2, mlp_in (4 * 2048 * 2) and
     * two masks (2 * 2048): 20480; sharded (2048 + 512 + 512 + 2048 + 16896)
     * * 2 + 4096 * 5 = 64512, halved: 32256. */
    assert_true(act(&m, 2, 0, RECOMPUTE_NONE) == 20480 + 32256);
    /* Full recompute keeps ln1.input only. */
    assert_true(act(&m, 2, 0, RECOMPUTE_FULL) == 4096);
}

static void test_gelu_table(void **state)
{
    (void)state;
    /* s = 8, b = 1, h = 16, a = 4, f = 64: sbh 128, as^2b 256, sbf 512. */
    model m = gelu_model(8, 1, 16, 4);
    static const want_tensor gelu_table[] = {
        {"ln1.input", 128, 2, SEQ | INPUT},
        {"qkv.input", 128, 2, SEQ},
        {"q", 128, 2, TP},
        {"k", 128, 2, TP},
        {"v", 128, 2, TP},
        {"softmax.output", 256, 2, TP | CORE},
        {"softmax.dropout_mask", 256, 1, TP | CORE},
        {"softmax.dropout_output", 256, 2, TP | CORE},
        {"proj.input", 128, 2, TP},
        {"attn.dropout_mask", 128, 1, SEQ},
        {"ln2.input", 128, 2, SEQ},
        {"mlp_in.input", 128, 2, SEQ},
        {"gelu.input", 512, 2, TP},
        {"mlp_out.input", 512, 2, TP},
        {"mlp.dropout_mask", 128, 1, SEQ},
    };
    mem_tensor t[MEM_MAX_TENSORS];
    check_table(t, mem_act_table(&m, 1, t), gelu_table, (int)(sizeof gelu_table / sizeof gelu_table[0]));
}

/* A unit of 10 buffer, 100 param, 50 grad, 400 activation and 600
 * optimizer bytes (1160 in all). */
static mem_usage parts(void)
{
    mem_usage u = {.buffers = 10, .params = 100, .grads = 50, .activations = 400, .optimizer = 600};
    u.total = 1160;
    return u;
}

/* SRAM fills in the order buffers, params, grads, activations, optimizer;
 * the rest of each part lives in DRAM. */
static void test_place(void **state)
{
    (void)state;
    /* 0 to 1200 bytes of SRAM: the DRAM part of each kind by hand */
    static const struct {
        double sram, buffers, params, grads, activations, optimizer;
    } cases[] = {
        {0, 10, 100, 50, 400, 600},   /* no SRAM: everything far */
        {60, 0, 50, 50, 400, 600},    /* buffers, then half the params */
        {110, 0, 0, 50, 400, 600},    /* buffers and params exactly */
        {300, 0, 0, 0, 260, 600},     /* grads too, 140 activations */
        {1000, 0, 0, 0, 0, 160},      /* all but 160 optimizer bytes */
        {1160, 0, 0, 0, 0, 0},        /* exactly fits */
        {1200, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem_usage u = parts();
        mem_place(&u, cases[i].sram);
        assert_rel(u.dram_buffers, cases[i].buffers, 0, "buffers");
        assert_rel(u.dram_params, cases[i].params, 0, "params");
        assert_rel(u.dram_grads, cases[i].grads, 0, "grads");
        assert_rel(u.dram_activations, cases[i].activations, 0, "activations");
        assert_rel(u.dram_optimizer, cases[i].optimizer, 0, "optimizer");
        double far = cases[i].buffers + cases[i].params + cases[i].grads + cases[i].activations + cases[i].optimizer;
        assert_rel(u.dram, far, 0, "dram");
        assert_rel(u.sram, 1160 - far, 0, "sram");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_korthikanti_rows),
        cmocka_unit_test(test_int8),
        cmocka_unit_test(test_sp_and_tatp),
        cmocka_unit_test(test_swiglu_gqa_table),
        cmocka_unit_test(test_swiglu_gqa_bytes),
        cmocka_unit_test(test_gelu_table),
        cmocka_unit_test(test_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
