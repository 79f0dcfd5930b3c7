/*
 * test_model.c - the workload: step FLOPs against the closed forms of
 * docs/MODEL.md section 2 (Megatron's 72/96 formulas), a swiglu GQA layer by hand,
 * parameter counts of the presets, model files with every error at its exact
 * file:line:col, and model_check. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

#define FIX "tests/fixtures/models/"

/* A model with every field given; name "hand". */
static model make_model(int layers, int hidden, int heads, int kv_heads, int ffn, model_mlp mlp, int vocab,
                        int seq, int batch)
{
    model m = {.name = "hand", .layers = layers, .hidden = hidden, .heads = heads, .kv_heads = kv_heads,
               .ffn = ffn, .mlp = mlp, .vocab = vocab, .tied_embeddings = 1, .seq = seq, .batch = batch,
               .microbatch = 1};
    return m;
}

static void assert_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g within %g", got, want, rel);
}

/* For values that are whole numbers well below 2^53: no rounding at all. */
static void assert_exact(double got, double want)
{
    if (got != want)
        fail_msg("got %.17g, want exactly %.17g", got, want);
}

/* ---- FLOPs ---------------------------------------------------------------- */

typedef struct shape_case {
    int layers, hidden, heads, vocab, seq, batch;
} shape_case;

/* gelu, ffn = 4h, kv_heads = heads: the shapes Megatron's formulas assume. */
static const shape_case megatron_shapes[] = {
    {1, 8, 1, 1, 1, 1},
    {2, 64, 4, 1000, 32, 4},
    {3, 100, 5, 7, 9, 2},           /* nothing a power of two */
    {12, 768, 12, 50304, 1024, 8},  /* GPT-2 small-like */
    {32, 4096, 32, 50257, 2048, 1024},
    {96, 12288, 96, 50257, 2048, 1536},
    {4, 256, 8, 128000, 8192, 3},   /* s > h and V >> h: the side terms dominate */
};

static void test_flops_megatron(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof megatron_shapes / sizeof megatron_shapes[0]; i++) {
        const shape_case *c = &megatron_shapes[i];
        model m = make_model(c->layers, c->hidden, c->heads, c->heads, 4 * c->hidden, MODEL_GELU, c->vocab,
                             c->seq, c->batch);
        double L = c->layers, h = c->hidden, V = c->vocab, s = c->seq, B = c->batch;
        double base = B * s * L * h * h;
        double none = 72 * base * (1 + s / (6 * h) + V / (12 * L * h));
        double full = 96 * base * (1 + s / (6 * h) + V / (16 * L * h));
        double selective = none + L * 4 * B * s * s * h;
        assert_rel(model_step_flops(&m, RECOMPUTE_NONE), none, 1e-9);
        assert_rel(model_step_flops(&m, RECOMPUTE_FULL), full, 1e-9);
        assert_rel(model_step_flops(&m, RECOMPUTE_SELECTIVE), selective, 1e-9);
        /* The micro-batch splits the step; it does not change its work. */
        m.microbatch = c->batch;
        assert_rel(model_step_flops(&m, RECOMPUTE_NONE), none, 1e-9);
    }
}

/* L=2, h=64, a=8, kv_heads=2, f=176, swiglu, V=1000, s=32, untied.
 * head width 64/8 = 8, so K and V are 2*8 = 16 wide each. */
static model swiglu_gqa(void)
{
    model m = make_model(2, 64, 8, 2, 176, MODEL_SWIGLU, 1000, 32, 4);
    m.tied_embeddings = 0;
    return m;
}

static void test_swiglu_gqa_shapes(void **state)
{
    (void)state;
    model m = swiglu_gqa();
    /* {k, n}: QKV 64 -> 64+16+16; proj 64 -> 64; gate and up 64 -> 2*176;
     * down 176 -> 64. */
    static const double want[MODEL_NGEMM][2] = {{64, 96}, {64, 64}, {64, 352}, {176, 64}};
    for (int g = 0; g < MODEL_NGEMM; g++) {
        double k = -1, n = -1;
        model_gemm_shape(&m, g, &k, &n);
        assert_exact(k, want[g][0]);
        assert_exact(n, want[g][1]);
    }
    /* 64*96 + 64*64 + 64*352 + 176*64 = 6144 + 4096 + 22528 + 11264 */
    assert_exact(model_layer_matrix_params(&m), 44032);
    /* plus two LayerNorms of gain and bias: 4*64 */
    assert_exact(model_layer_params(&m), 44288);
    /* untied: input embedding and output head, 2 * 1000 * 64 */
    assert_exact(model_embedding_params(&m), 128000);
    /* 2 layers + embeddings + final LayerNorm 2*64 */
    assert_exact(model_params(&m), 2 * 44288 + 128000 + 128);
    m.tied_embeddings = 1;
    assert_exact(model_embedding_params(&m), 64000);
}

static void test_swiglu_gqa_flops(void **state)
{
    (void)state;
    model m = swiglu_gqa();
    /* Over B = 4 sequences of 32 tokens:
     * matrices 2*4*32*44032 = 11272192, core 4*4*32^2*64 = 1048576. */
    assert_exact(model_core_fwd_flops(&m, 4), 1048576);
    assert_exact(model_layer_fwd_flops(&m, 4), 11272192 + 1048576);
    /* logits 2*4*32*64*1000 */
    assert_exact(model_logits_fwd_flops(&m, 4), 16384000);
    /* Linear in the number of sequences, fractions included. */
    assert_exact(model_layer_fwd_flops(&m, 0.5), (11272192 + 1048576) / 8.0);
    /* step: 3 * (2 layers * 12320768 + 16384000) = 123076608; full recompute
     * adds 2 * 12320768, selective 2 * 1048576. */
    assert_exact(model_step_flops(&m, RECOMPUTE_NONE), 123076608);
    assert_exact(model_step_flops(&m, RECOMPUTE_FULL), 123076608 + 24641536);
    assert_exact(model_step_flops(&m, RECOMPUTE_SELECTIVE), 123076608 + 2097152);
}

/* ---- presets -------------------------------------------------------------- */

typedef struct preset_case {
    const char *name, *alias;
    double nominal; /* the size in the name */
    int layers, hidden, heads, kv_heads, ffn, vocab, seq, batch;
    model_mlp mlp;
    int tied;
} preset_case;

static const preset_case preset_cases[] = {
    {"gpt3-6.7b", "6b", 6.7e9, 32, 4096, 32, 32, 16384, 50257, 2048, 1024, MODEL_GELU, 1},
    {"gpt3-13b", "13b", 13e9, 40, 5120, 40, 40, 20480, 50257, 2048, 1024, MODEL_GELU, 1},
    {"llama2-70b", "70b", 70e9, 80, 8192, 64, 8, 28672, 32000, 4096, 1024, MODEL_SWIGLU, 0},
    {"gpt3-175b", "175b", 175e9, 96, 12288, 96, 96, 49152, 50257, 2048, 1536, MODEL_GELU, 1},
    {"gopher-280b", "280b", 280e9, 80, 16384, 128, 128, 73728, 32000, 2048, 3072, MODEL_GELU, 1},
};
#define NPRESET_CASES (sizeof preset_cases / sizeof preset_cases[0])

static void check_preset_shape(const model *m, const preset_case *c)
{
    assert_string_equal(m->name, c->name);
    assert_int_equal(m->layers, c->layers);
    assert_int_equal(m->hidden, c->hidden);
    assert_int_equal(m->heads, c->heads);
    assert_int_equal(m->kv_heads, c->kv_heads);
    assert_int_equal(m->ffn, c->ffn);
    assert_int_equal(m->vocab, c->vocab);
    assert_int_equal(m->seq, c->seq);
    assert_int_equal(m->batch, c->batch);
    assert_int_equal(m->microbatch, 1);
    assert_int_equal(m->mlp, c->mlp);
    assert_int_equal(m->tied_embeddings, c->tied);
}

static void test_presets(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPRESET_CASES; i++) {
        const preset_case *c = &preset_cases[i];
        model by_name, by_alias, loaded;
        wt_err e = {{0}};
        assert_int_equal(model_preset(c->name, &by_name), 0);
        assert_int_equal(model_preset(c->alias, &by_alias), 0);
        assert_int_equal(model_load(c->alias, &loaded, &e), WT_OK);
        check_preset_shape(&by_name, c);
        check_preset_shape(&by_alias, c);
        check_preset_shape(&loaded, c);
        assert_int_equal(model_check(&by_name, &e), WT_OK);
        assert_rel(model_params(&by_name), c->nominal, 0.02);
    }
}

static void test_preset_exact_params(void **state)
{
    (void)state;
    model m;
    assert_int_equal(model_preset("gpt3-6.7b", &m), 0);
    /* layer: 12 h^2 + 4h = 12 * 16777216 + 16384 = 201342976
     * 32 layers: 6442975232; embedding 50257 * 4096 = 205852672 (tied);
     * final LayerNorm 8192. Sum 6648836096. */
    assert_exact(model_params(&m), 6648836096.0);

    assert_int_equal(model_preset("llama2-70b", &m), 0);
    /* kv width 8192 / 64 * 8 = 1024.
     * QKV 8192 * (8192 + 2048) = 83886080, proj 8192^2 = 67108864,
     * gate+up 8192 * 57344 = 469762048, down 28672 * 8192 = 234881024:
     * 855638016 per layer, + 4 * 8192 = 855670784; 80 layers: 68453662720.
     * Untied: 2 * 32000 * 8192 = 524288000; final norm 16384.
     * Sum 68977967104 (the published 69.0B). */
    assert_exact(model_params(&m), 68977967104.0);
}

static void test_preset_names(void **state)
{
    (void)state;
    const char *const *names = model_preset_names();
    size_t n = 0;
    for (; names[n]; n++) {
        assert_true(n < NPRESET_CASES);
        assert_string_equal(names[n], preset_cases[n].name);
    }
    assert_int_equal(n, NPRESET_CASES);
}

static void test_unknown_preset(void **state)
{
    (void)state;
    static const char *const bad[] = {"gpt4", "6.7b", "GPT3-6.7B", "", "7b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        model m = {.layers = 99};
        wt_err e = {{0}};
        char want[512];
        assert_int_equal(model_preset(bad[i], &m), -1);
        assert_int_equal(model_load(bad[i], &m, &e), WT_EINPUT);
        snprintf(want, sizeof want,
                 "unknown model '%s': expected a preset (gpt3-6.7b, gpt3-13b, llama2-70b, gpt3-175b, "
                 "gopher-280b, or 6b 13b 70b 175b 280b) or a YAML file",
                 bad[i]);
        assert_string_equal(e.msg, want);
        assert_int_equal(m.layers, 99); /* untouched */
    }
}

/* ---- model files ---------------------------------------------------------- */

static model load_ok(const char *path)
{
    model m;
    wt_err e = {{0}};
    if (model_load(path, &m, &e) != WT_OK)
        fail_msg("%s: %s", path, e.msg);
    return m;
}

static void check_shape(const model *m, const char *name, const int want[9], model_mlp mlp, int tied)
{
    const int got[9] = {m->layers, m->hidden, m->heads, m->kv_heads, m->ffn,
                        m->vocab,  m->seq,    m->batch, m->microbatch};
    assert_string_equal(m->name, name);
    for (int i = 0; i < 9; i++)
        assert_int_equal(got[i], want[i]);
    assert_int_equal(m->mlp, mlp);
    assert_int_equal(m->tied_embeddings, tied);
}

static void test_load_files(void **state)
{
    (void)state;
    model m = load_ok(FIX "full.yaml");
    check_shape(&m, "tiny-full", (const int[9]){4, 256, 8, 4, 1000, 1000, 128, 16, 4}, MODEL_GELU, 0);

    /* Defaults: kv_heads = heads, ffn = 4h, gelu, micro-batch 1, tied, the
     * file's stem as the name. */
    m = load_ok(FIX "minimal.yaml");
    check_shape(&m, "minimal", (const int[9]){2, 128, 4, 4, 512, 512, 64, 6, 1}, MODEL_GELU, 1);

    m = load_ok(FIX "swiglu.yaml");
    check_shape(&m, "llama-ish", (const int[9]){3, 512, 16, 2, 1376, 32000, 256, 8, 2}, MODEL_SWIGLU, 1);

    /* Only the extension goes: a dotted stem stays whole. */
    m = load_ok(FIX "tiny.v2.yaml");
    assert_string_equal(m.name, "tiny.v2");
}

typedef struct bad_file {
    const char *file, *msg;
} bad_file;

static const bad_file bad_files[] = {
    {"bad-unknown-key.yaml",
     "5:1: unknown key 'vocabulary' (allowed: name, layers, hidden, heads, kv_heads, ffn, mlp, vocab, seq, "
     "batch, microbatch, tied_embeddings)"},
    {"bad-list.yaml", "1:9: expected a single value, found a list"},
    {"bad-block-list.yaml", "6:5: expected a single value, found a list"},
    {"bad-fraction.yaml", "2:9: expected a whole number from 1 to 1073741824"},
    {"bad-zero.yaml", "6:10: expected a whole number from 1 to 1073741824"},
    {"bad-negative.yaml", "4:11: expected a whole number from 1 to 1073741824"},
    {"bad-mlp.yaml", "7:6: mlp must be gelu or swiglu, not 'relu'"},
    {"bad-tied.yaml", "7:18: tied_embeddings must be true or false, not 'yes'"},
    /* Shape errors are found once the whole mapping is read: located at it. */
    {"bad-heads.yaml", "1:1: model bad-heads: heads 6 do not divide hidden 256"},
    {"bad-kv-heads.yaml", "2:1: model bad-kv-heads: kv_heads 3 do not divide heads 8"},
    {"bad-microbatch.yaml", "1:1: model mb: micro-batch 3 does not divide batch 16"},
    {"bad-missing-key.yaml", "1:1: missing required key 'vocab'"},
    {"bad-duplicate.yaml", "6:1: duplicate key 'layers' (first given on line 1)"},
    {"bad-name.yaml", "1:7: name must have 1 to 63 characters"},
    {"bad-root.yaml", "1:1: expected a mapping of keys at the top level, found a list"},
    {"bad-huge-hidden.yaml",
     "2:1: hidden 1073741824 is too large for the default ffn of 4 x hidden; give ffn"},
};

static void test_load_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        char path[256], want[512];
        snprintf(path, sizeof path, FIX "%s", bad_files[i].file);
        snprintf(want, sizeof want, "%s:%s", path, bad_files[i].msg);
        model m = {.layers = 99};
        wt_err e = {{0}};
        assert_int_equal(model_load(path, &m, &e), WT_EINPUT);
        assert_string_equal(e.msg, want);
        assert_int_equal(m.layers, 99); /* untouched on failure */
    }
}

static void test_load_missing_file(void **state)
{
    (void)state;
    model m;
    wt_err e = {{0}};
    assert_int_equal(model_load(FIX "no-such-model.yaml", &m, &e), WT_EINPUT);
    assert_string_equal(e.msg, FIX "no-such-model.yaml: cannot open: No such file or directory");
    /* A bare name ending in .yaml is a file, not a preset. */
    assert_int_equal(model_load("no-such-model.yml", &m, &e), WT_EINPUT);
    assert_string_equal(e.msg, "no-such-model.yml: cannot open: No such file or directory");
    /* only regular files: /dev/zero was read until memory ran out */
    assert_int_equal(model_load("/dev/zero", &m, &e), WT_EINPUT);
    assert_string_equal(e.msg, "/dev/zero: not a regular file (a character device); give a YAML file");
}

/* ---- model_check ---------------------------------------------------------- */

typedef struct check_case {
    size_t field; /* offsetof an int field of model */
    int value;
    const char *msg;
} check_case;

static const check_case check_cases[] = {
    {offsetof(model, layers), 0, "model hand: layers must be positive (got 0)"},
    {offsetof(model, hidden), -64, "model hand: hidden must be positive (got -64)"},
    {offsetof(model, heads), 0, "model hand: heads must be positive (got 0)"},
    {offsetof(model, kv_heads), 0, "model hand: kv_heads must be positive (got 0)"},
    {offsetof(model, ffn), 0, "model hand: ffn must be positive (got 0)"},
    {offsetof(model, vocab), -1, "model hand: vocab must be positive (got -1)"},
    {offsetof(model, seq), 0, "model hand: seq must be positive (got 0)"},
    {offsetof(model, batch), 0, "model hand: batch must be positive (got 0)"},
    {offsetof(model, microbatch), 0, "model hand: microbatch must be positive (got 0)"},
    {offsetof(model, heads), 5, "model hand: heads 5 do not divide hidden 64"},
    {offsetof(model, kv_heads), 3, "model hand: kv_heads 3 do not divide heads 8"},
    /* More kv_heads than heads cannot divide them either. */
    {offsetof(model, kv_heads), 16, "model hand: kv_heads 16 do not divide heads 8"},
    {offsetof(model, microbatch), 3, "model hand: micro-batch 3 does not divide batch 4"},
    {offsetof(model, microbatch), 8, "model hand: micro-batch 8 does not divide batch 4"},
};

static void test_check(void **state)
{
    (void)state;
    wt_err e = {{0}};
    model ok = swiglu_gqa();
    assert_int_equal(model_check(&ok, &e), WT_OK);
    ok.microbatch = 4; /* b = B is fine */
    assert_int_equal(model_check(&ok, &e), WT_OK);
    for (size_t i = 0; i < sizeof check_cases / sizeof check_cases[0]; i++) {
        model m = swiglu_gqa();
        memcpy((char *)&m + check_cases[i].field, &check_cases[i].value, sizeof(int));
        assert_int_equal(model_check(&m, &e), WT_EINPUT);
        assert_string_equal(e.msg, check_cases[i].msg);
        assert_int_equal(model_check(&m, NULL), WT_EINPUT); /* no error struct: still fails */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flops_megatron),
        cmocka_unit_test(test_swiglu_gqa_shapes),
        cmocka_unit_test(test_swiglu_gqa_flops),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_preset_exact_params),
        cmocka_unit_test(test_preset_names),
        cmocka_unit_test(test_unknown_preset),
        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
