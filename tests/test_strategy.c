/*
 * test_strategy.c - the 5-D strategy: every text form and its rejections,
 * the defaults, each option with good and bad values, strategy_resolve (DP
 * filling the live units, the default TATP grid, every constraint with its
 * reason) and formatting.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "strategy.h"

/* ---- parsing -------------------------------------------------------------- */

typedef struct parse_case {
    const char *text;
    int dims[5]; /* DP, TP, SP, PP, TATP */
    int grid_w, grid_h, dp_given, grid_given;
} parse_case;

static const parse_case parse_cases[] = {
    {"DP8,TATP16", {8, 1, 1, 1, 16}, 1, 1, 1, 0},
    {"dp8 tatp16", {8, 1, 1, 1, 16}, 1, 1, 1, 0},
    {"(8,1,1,1,16)", {8, 1, 1, 1, 16}, 1, 1, 1, 0},
    {"( 8 , 2,3 ,4,  5 )  ", {8, 2, 3, 4, 5}, 1, 1, 1, 0},
    {"(1,64,1,1,1)", {1, 64, 1, 1, 1}, 1, 1, 1, 0}, /* Megatron TP: DP given as 1 */
    {"DP8,TP8,PP4", {8, 8, 1, 4, 1}, 1, 1, 1, 0},   /* DeepSpeed 3D */
    {"TATP4x8", {1, 1, 1, 1, 32}, 4, 8, 0, 1},
    {"tatp8X2", {1, 1, 1, 1, 16}, 8, 2, 0, 1},
    {"Tp2 sP4,pP3", {1, 2, 4, 3, 1}, 1, 1, 0, 0},
    {"   TP2 ,  , SP4   ", {1, 2, 4, 1, 1}, 1, 1, 0, 0},
    {"PP2,DP3,TATP2x1,TP4,SP5", {3, 4, 5, 2, 2}, 2, 1, 1, 1},
    {"TATP4096x4096", {1, 1, 1, 1, 16777216}, 4096, 4096, 0, 1}, /* exactly 2^24 */
};

static void check_dims(const strategy *s, const int dims[5])
{
    const int got[5] = {s->dp, s->tp, s->sp, s->pp, s->tatp};
    for (int d = 0; d < 5; d++)
        assert_int_equal(got[d], dims[d]);
}

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const parse_case *c = &parse_cases[i];
        strategy s;
        strategy_defaults(&s);
        s.placement = PLACE_SNAKE;
        s.dp = 99; /* a previous parse leaves nothing behind */
        s.grid_given = 1;
        wt_err e = {{0}};
        if (strategy_parse(c->text, &s, &e) != WT_OK)
            fail_msg("'%s': %s", c->text, e.msg);
        check_dims(&s, c->dims);
        assert_int_equal(s.tatp_w, c->grid_w);
        assert_int_equal(s.tatp_h, c->grid_h);
        assert_int_equal(s.dp_given, c->dp_given);
        assert_int_equal(s.grid_given, c->grid_given);
        assert_int_equal(s.placement, PLACE_SNAKE); /* options untouched */
    }
}

typedef struct reject_case {
    const char *text, *msg;
} reject_case;

static const reject_case parse_rejects[] = {
    {"", "strategy is empty: expected e.g. DP8,TATP16 or (8,1,1,1,16)"},
    {"   ", "strategy is empty: expected e.g. DP8,TATP16 or (8,1,1,1,16)"},
    {"XP8", "strategy 'XP8': unknown dimension 'XP' (expected DP, TP, SP, PP, TATP)"},
    {"8", "strategy '8': unknown dimension '8' (expected DP, TP, SP, PP, TATP)"},
    {",DP8", "strategy ',DP8': unknown dimension ',' (expected DP, TP, SP, PP, TATP)"},
    {"DP8,DP4", "strategy 'DP8,DP4': DP given twice"},
    {"dp8,Dp4", "strategy 'dp8,Dp4': DP given twice"},
    {"DP", "strategy 'DP': DP needs a positive whole number"},
    {"TP0", "strategy 'TP0': TP needs a positive whole number"},
    {"SP-2", "strategy 'SP-2': SP needs a positive whole number"},
    {"PP 4", "strategy 'PP 4': PP needs a positive whole number"},
    {"TATP16777217", "strategy 'TATP16777217': TATP needs a positive whole number"},
    {"DP8TP2", "strategy 'DP8TP2': unexpected 'T' after DP"},
    {"DP8;TP2", "strategy 'DP8;TP2': unexpected ';' after DP"},
    {"TATP4x8x2", "strategy 'TATP4x8x2': unexpected 'x' after TATP"},
    {"TP4x2", "strategy 'TP4x2': only TATP takes a grid, as TATP4x8"},
    {"TATP4x", "strategy 'TATP4x': only TATP takes a grid, as TATP4x8"},
    {"TATP4x0", "strategy 'TATP4x0': only TATP takes a grid, as TATP4x8"},
    {"TATP8192x4096", "strategy 'TATP8192x4096': TATP grid too large"},
    {"(8,1,1,1)", "strategy '(8,1,1,1)': expected five numbers (DP,TP,SP,PP,TATP)"},
    {"(8;1,1,1,1)", "strategy '(8;1,1,1,1)': expected five numbers (DP,TP,SP,PP,TATP)"},
    {"(8,1,1,1,16,2)", "strategy '(8,1,1,1,16,2)': expected ')' after five numbers"},
    {"(8,1,1,1,16", "strategy '(8,1,1,1,16': expected ')' after five numbers"},
    {"(8,1,1,1,16) TP2", "strategy '(8,1,1,1,16) TP2': unexpected text after ')'"},
    {"(0,1,1,1,1)", "strategy '(0,1,1,1,1)': DP must be a positive whole number"},
    {"(1,1,1,1,x)", "strategy '(1,1,1,1,x)': TATP must be a positive whole number"},
    {"(8,", "strategy '(8,': TP must be a positive whole number"},
};

static void test_parse_rejects(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_rejects / sizeof parse_rejects[0]; i++) {
        strategy s;
        strategy_defaults(&s);
        wt_err e = {{0}};
        if (strategy_parse(parse_rejects[i].text, &s, &e) != WT_EINPUT)
            fail_msg("'%s' accepted", parse_rejects[i].text);
        assert_string_equal(e.msg, parse_rejects[i].msg);
    }
}

/* ---- defaults and options ------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    strategy s;
    memset(&s, 0x5a, sizeof s);
    strategy_defaults(&s);
    check_dims(&s, (const int[5]){1, 1, 1, 1, 1});
    assert_int_equal(s.tatp_w, 1);
    assert_int_equal(s.tatp_h, 1);
    assert_int_equal(s.dp_given, 0);
    assert_int_equal(s.grid_given, 0);
    assert_int_equal(s.placement, PLACE_TILES);
    assert_int_equal(s.collective, COLL_RING);
    assert_int_equal(s.routing, ROUTE_XY);
    assert_int_equal(s.checkpoint, RECOMPUTE_NONE);
    assert_int_equal(s.mem, 0);
    assert_int_equal(s.grad, GRAD_NONE);
    assert_true(s.chunk == 0);
    assert_int_equal(s.sub_w, 8);
    assert_int_equal(s.sub_h, 8);
    assert_int_equal(s.tp_seqpar, 1);
    assert_int_equal(strategy_units(&s), 1);
}

static int get_placement(const strategy *s) { return (int)s->placement; }
static int get_collective(const strategy *s) { return (int)s->collective; }
static int get_routing(const strategy *s) { return (int)s->routing; }
static int get_checkpoint(const strategy *s) { return (int)s->checkpoint; }
static int get_grad(const strategy *s) { return (int)s->grad; }
static int get_seqpar(const strategy *s) { return s->tp_seqpar; }
static int get_mem(const strategy *s) { return (int)s->mem; }
/* W x H as one number, W * 1000 + H, so that one table holds every option. */
static int get_subgroup(const strategy *s) { return s->sub_w * 1000 + s->sub_h; }
static int get_chunk(const strategy *s) { return (int)s->chunk; }

typedef struct option_case {
    const char *name, *value;
    int (*get)(const strategy *);
    int want;
} option_case;

static const option_case good_options[] = {
    {"placement", "linear", get_placement, PLACE_LINEAR},
    {"placement", "snake", get_placement, PLACE_SNAKE},
    {"placement", "TILES", get_placement, PLACE_TILES},
    {"collective", "ring", get_collective, COLL_RING},
    {"collective", "bidir", get_collective, COLL_BIDIR},
    {"collective", "2d", get_collective, COLL_2D},
    {"collective", "2D", get_collective, COLL_2D},
    {"collective", "hier", get_collective, COLL_HIER},
    {"collective", "auto", get_collective, COLL_AUTO},
    {"routing", "xy", get_routing, ROUTE_XY},
    {"routing", "YX", get_routing, ROUTE_YX},
    {"routing", "balanced", get_routing, ROUTE_BALANCED},
    {"checkpoint", "none", get_checkpoint, RECOMPUTE_NONE},
    {"checkpoint", "selective", get_checkpoint, RECOMPUTE_SELECTIVE},
    {"checkpoint", "Full", get_checkpoint, RECOMPUTE_FULL},
    {"grad-compress", "none", get_grad, GRAD_NONE},
    {"grad-compress", "fp8", get_grad, GRAD_FP8},
    {"grad-compress", "1BIT", get_grad, GRAD_1BIT},
    {"tp-seqpar", "off", get_seqpar, 0},
    {"tp-seqpar", "on", get_seqpar, 1},
    {"tp-seqpar", "OFF", get_seqpar, 0},
    {"mem", "zero", get_mem, MEM_ZERO},
    {"mem", "act_int8,grad_fp8", get_mem, MEM_ACT_INT8 | MEM_GRAD_FP8},
    {"mem", "ZERO Act_Int8", get_mem, MEM_ZERO | MEM_ACT_INT8},
    {"mem", " zero, , grad_fp8 ", get_mem, MEM_ZERO | MEM_GRAD_FP8},
    {"mem", "zero,act_int8,grad_fp8", get_mem, MEM_ZERO | MEM_ACT_INT8 | MEM_GRAD_FP8},
    {"mem", "none", get_mem, 0},
    {"subgroup", "4x2", get_subgroup, 4002},
    {"subgroup", "16X16", get_subgroup, 16016},
    {"chunk", "256 KB", get_chunk, 256000},
    {"chunk", "256KiB", get_chunk, 262144},
    {"chunk", "1.5 MB", get_chunk, 1500000},
    {"chunk", "0", get_chunk, 0},
    {"chunk", "0 B", get_chunk, 0},
};

static void test_options(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof good_options / sizeof good_options[0]; i++) {
        const option_case *c = &good_options[i];
        strategy s;
        strategy_defaults(&s);
        s.mem = MEM_ZERO | MEM_ACT_INT8 | MEM_GRAD_FP8; /* a new value replaces the set */
        s.chunk = 1;
        wt_err e = {{0}};
        if (strategy_set_option(&s, c->name, c->value, &e) != WT_OK)
            fail_msg("%s=%s: %s", c->name, c->value, e.msg);
        if (c->get(&s) != c->want)
            fail_msg("%s=%s gave %d, want %d", c->name, c->value, c->get(&s), c->want);
    }
}

static const char long_mem[] =
    "zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,zero,"
    "zero,zero,zero,zero,zero,zero"; /* 129 characters */

typedef struct option_reject {
    const char *name, *value;
    int (*get)(const strategy *); /* the option, which must keep its value */
    const char *msg;
} option_reject;

static const option_reject bad_options[] = {
    {"placement", "spiral", get_placement, "placement 'spiral' is not one of linear, snake, tiles"},
    {"routing", "zigzag", get_routing, "routing 'zigzag' is not one of xy, yx, balanced"},
    {"checkpoint", "partial", get_checkpoint, "checkpoint 'partial' is not one of none, selective, full"},
    {"grad-compress", "int4", get_grad, "gradient compression 'int4' is not one of none, fp8, 1bit"},
    {"tp-seqpar", "yes", get_seqpar, "tp-seqpar 'yes' is not one of off, on"},
    {"mem", "zero,fast", get_mem, "memory switch 'fast' is not one of zero, act_int8, grad_fp8"},
    {"mem", long_mem, get_mem, "memory switches 'zero,zero,zero,zero,zero,zero,zero,zero,...' too long"},
    {"subgroup", "8", get_subgroup, "subgroup '8' must be WxH, as 8x8"},
    {"subgroup", "8x", get_subgroup, "subgroup '8x' must be WxH, as 8x8"},
    {"subgroup", "0x8", get_subgroup, "subgroup '0x8' must be WxH, as 8x8"},
    {"subgroup", "8x8 ", get_subgroup, "subgroup '8x8 ' must be WxH, as 8x8"},
    {"subgroup", "x8", get_subgroup, "subgroup 'x8' must be WxH, as 8x8"},
    {"chunk", "lots", get_chunk, "chunk 'lots': not a number"},
    {"chunk", "-1 KB", get_chunk, "chunk '-1 KB' must not be negative"},
    {"chunk", "256", get_chunk,
     "chunk '256': missing unit, expected one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"},
    {"placment", "tiles", get_placement, "unknown strategy option 'placment'"},
    {"Placement", "tiles", get_placement, "unknown strategy option 'Placement'"}, /* names are exact */
};

static void test_option_rejects(void **state)
{
    (void)state;
    assert_int_equal(strlen(long_mem), 129);
    for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; i++) {
        const option_reject *c = &bad_options[i];
        strategy s, before;
        strategy_defaults(&s);
        before = s;
        wt_err e = {{0}};
        if (strategy_set_option(&s, c->name, c->value, &e) != WT_EINPUT)
            fail_msg("%s=%s accepted", c->name, c->value);
        assert_string_equal(e.msg, c->msg);
        assert_int_equal(c->get(&s), c->get(&before));
    }
}

static void test_names(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(place_kind_name(PLACE_SNAKE), "snake");
    assert_string_equal(coll_algo_name(COLL_HIER), "hier");
    assert_string_equal(recompute_name(RECOMPUTE_SELECTIVE), "selective");
    assert_string_equal(grad_compress_name(GRAD_1BIT), "1bit");
    assert_string_equal(mem_switches_format(0, buf, sizeof buf), "none");
    assert_string_equal(mem_switches_format(MEM_ZERO, buf, sizeof buf), "zero");
    assert_string_equal(mem_switches_format(MEM_ZERO | MEM_GRAD_FP8, buf, sizeof buf), "zero,grad_fp8");
    assert_string_equal(mem_switches_format(MEM_ACT_INT8 | MEM_GRAD_FP8, buf, sizeof buf),
                        "act_int8,grad_fp8");
    assert_string_equal(mem_switches_format(7, buf, sizeof buf), "zero,act_int8,grad_fp8");
    /* Truncates within the buffer. */
    assert_string_equal(mem_switches_format(7, buf, 8), "zero,ac");

    /* Every formatted set parses back to itself. */
    for (unsigned mem = 0; mem < 8; mem++) {
        strategy s;
        strategy_defaults(&s);
        wt_err e = {{0}};
        const char *text = mem_switches_format(mem, buf, sizeof buf);
        assert_int_equal(strategy_set_option(&s, "mem", text, &e), WT_OK);
        assert_int_equal(s.mem, mem);
    }
}

/* ---- the default TATP grid ------------------------------------------------ */

typedef struct grid_case {
    int n, mesh_w, mesh_h, ok, gw, gh;
} grid_case;

static const grid_case grid_cases[] = {
    {1, 16, 16, 1, 1, 1},
    {8, 16, 16, 1, 4, 2},   /* 4x2 and 2x4 tie: the wider */
    {16, 16, 16, 1, 4, 4},
    {32, 16, 16, 1, 8, 4},
    {24, 16, 16, 1, 6, 4},
    {12, 16, 16, 1, 4, 3},
    {18, 16, 16, 1, 6, 3},
    {7, 16, 16, 1, 7, 1},   /* a prime is a line */
    {256, 16, 16, 1, 16, 16},
    {17, 16, 16, 0, 0, 0},  /* 17x1 and 1x17 both leave the mesh */
    {512, 16, 16, 0, 0, 0},
    {8, 1, 8, 1, 1, 8},     /* only the tall one fits a 1-wide mesh */
    {8, 8, 1, 1, 8, 1},
    {32, 4, 16, 1, 4, 8},   /* 8x4 is too wide: the squarest that fits */
    {36, 5, 16, 1, 4, 9},   /* 6x6 and 9x4 too wide, 3x12 less square than 4x9 */
    {0, 16, 16, 0, 0, 0},
    /* tried every divisor up to n: seconds for n = 2^30 (a Lua table's
     * TATP), and w++ overflowed past INT_MAX */
    {INT_MAX, 16, 16, 0, 0, 0},
    {1 << 30, 16, 16, 0, 0, 0},
};

static void test_default_grid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof grid_cases / sizeof grid_cases[0]; i++) {
        const grid_case *c = &grid_cases[i];
        int gw = -1, gh = -1;
        int ok = strategy_default_grid(c->n, c->mesh_w, c->mesh_h, &gw, &gh);
        if (ok != c->ok || gw != c->gw || gh != c->gh)
            fail_msg("%d on %dx%d: got %d %dx%d, want %d %dx%d", c->n, c->mesh_w, c->mesh_h, ok, gw, gh,
                     c->ok, c->gw, c->gh);
    }
}

/* ---- resolve -------------------------------------------------------------- */

static wafer mesh(int wafer_w, int wafer_h, int wafers_x, int wafers_y)
{
    wafer wf;
    wt_err e = {{0}};
    if (wafer_init(&wf, wafer_w, wafer_h, wafers_x, wafers_y, &e) != WT_OK)
        fail_msg("wafer_init: %s", e.msg);
    return wf;
}

/* Kills the first n units of the top row. */
static void kill_units(wafer *wf, int n)
{
    wt_err e = {{0}};
    for (int x = 0; x < n; x++)
        assert_int_equal(wafer_fail_unit(wf, x, 0, &e), WT_OK);
}

static model preset(const char *name)
{
    model m;
    if (model_preset(name, &m) != 0)
        fail_msg("no preset %s", name);
    return m;
}

/* A tiny model where the batch decides how DP steps down. */
static model batch_model(int batch, int microbatch)
{
    model m = {.name = "b", .layers = 4, .hidden = 64, .heads = 4, .kv_heads = 4, .ffn = 256,
               .mlp = MODEL_GELU, .vocab = 100, .tied_embeddings = 1, .seq = 32, .batch = batch,
               .microbatch = microbatch};
    return m;
}

/* Parses and resolves text, failing the test on any error. */
static strategy resolve_ok(const char *text, const model *m, const wafer *wf)
{
    strategy s;
    strategy_defaults(&s);
    wt_err e = {{0}};
    if (strategy_parse(text, &s, &e) != WT_OK || strategy_resolve(&s, m, wf, &e) != WT_OK)
        fail_msg("'%s': %s", text, e.msg);
    return s;
}

static void check_resolved(const strategy *s, int dp, int gw, int gh)
{
    if (s->dp != dp || s->tatp_w != gw || s->tatp_h != gh)
        fail_msg("got DP%d grid %dx%d, want DP%d grid %dx%d", s->dp, s->tatp_w, s->tatp_h, dp, gw, gh);
}

static void test_resolve(void **state)
{
    (void)state;
    wafer wf = mesh(16, 16, 1, 1);
    model m = preset("gpt3-6.7b"); /* a 32, s 2048, L 32, B 1024, b 1 */

    strategy s = resolve_ok("TATP16", &m, &wf);
    check_resolved(&s, 16, 4, 4); /* 256 / 16 */
    assert_int_equal(s.dp_given, 0);
    assert_int_equal(strategy_units(&s), 256);
    s = resolve_ok("DP8,TATP16", &m, &wf);
    check_resolved(&s, 8, 4, 4);
    s = resolve_ok("TATP4x8", &m, &wf);
    check_resolved(&s, 8, 4, 8); /* the given grid stays */
    s = resolve_ok("TATP32", &m, &wf);
    check_resolved(&s, 8, 8, 4);
    s = resolve_ok("TATP8", &m, &wf);
    check_resolved(&s, 32, 4, 2);
    s = resolve_ok("TP8,PP4", &m, &wf);
    check_resolved(&s, 8, 1, 1);
    s = resolve_ok("PP32", &m, &wf); /* one layer per stage is fine */
    check_resolved(&s, 8, 1, 1);
    s = resolve_ok("(8,1,1,1,16)", &m, &wf);
    check_resolved(&s, 8, 4, 4);
    s = resolve_ok("TP32,PP8", &m, &wf); /* exactly every unit */
    check_resolved(&s, 1, 1, 1);
    /* Resolving again gives the same answer. */
    wt_err e = {{0}};
    assert_int_equal(strategy_resolve(&s, &m, &wf, &e), WT_OK);
    check_resolved(&s, 1, 1, 1);

    /* GQA: TP8 divides both 64 heads and 8 kv_heads. */
    model llama = preset("llama2-70b");
    s = resolve_ok("TP8,TATP4", &llama, &wf);
    check_resolved(&s, 8, 2, 2);
    wafer_free(&wf);
}

static void test_resolve_dp_steps_down(void **state)
{
    (void)state;
    wafer wf = mesh(16, 16, 1, 1);
    model m = batch_model(12, 1);
    /* 256 / 16 = 16 replicas; 16, 15, 14 and 13 do not divide 12. */
    assert_int_equal(resolve_ok("TATP16", &m, &wf).dp, 12);
    /* micro-batch 2: DP x 2 must divide 12: 6. */
    m = batch_model(12, 2);
    assert_int_equal(resolve_ok("TATP16", &m, &wf).dp, 6);
    /* batch 7 on 64 replicas (TP4): 7. */
    m = batch_model(7, 1);
    assert_int_equal(resolve_ok("TP4", &m, &wf).dp, 7);
    /* a single sequence: one replica, the rest idle. */
    m = batch_model(1, 1);
    assert_int_equal(resolve_ok("TP2", &m, &wf).dp, 1);
    /* 2^30 sequences in micro-batches of 2^23: DP x 2^23 overflows an int
     * from DP 256; the largest DP that divides is 2^7. */
    m = batch_model(1 << 30, 1 << 23);
    assert_int_equal(resolve_ok("TP1", &m, &wf).dp, 128);
    wafer_free(&wf);
}

static void test_resolve_dead_units(void **state)
{
    (void)state;
    wafer wf = mesh(16, 16, 1, 1);
    model m = preset("gpt3-6.7b");
    kill_units(&wf, 4);
    /* 252 live: 15 replicas of 16 fit, but 1024 has only powers of two as
     * divisors: 8. */
    strategy s = resolve_ok("TATP16", &m, &wf);
    check_resolved(&s, 8, 4, 4);
    /* 252 / 4 = 63 -> 32. */
    assert_int_equal(resolve_ok("TP4", &m, &wf).dp, 32);
    wafer_free(&wf);
}

static void test_resolve_meshes(void **state)
{
    (void)state;
    model m = preset("gpt3-6.7b");
    wafer line = mesh(1, 8, 1, 1);
    strategy s = resolve_ok("TATP8", &m, &line);
    check_resolved(&s, 1, 1, 8);
    s = resolve_ok("TATP2", &m, &line);
    check_resolved(&s, 4, 1, 2);
    wafer_free(&line);

    /* 2 x 2 wafers of 4 x 4: one 8 x 8 mesh. */
    wafer multi = mesh(4, 4, 2, 2);
    s = resolve_ok("TATP16", &m, &multi);
    check_resolved(&s, 4, 4, 4);
    s = resolve_ok("TATP8x2", &m, &multi);
    check_resolved(&s, 4, 8, 2);
    wafer_free(&multi);
}

typedef struct resolve_reject {
    const char *model; /* a preset; NULL for the huge hand-made model */
    int dead;          /* units killed on a 16 x 16 mesh */
    const char *text, *msg;
} resolve_reject;

static const resolve_reject resolve_rejects[] = {
    {"6b", 0, "TP3", "strategy TP3: TP 3 must divide the model's 32 heads and 32 kv_heads"},
    {"70b", 0, "TP16", "strategy TP16: TP 16 must divide the model's 64 heads and 8 kv_heads"},
    {"6b", 0, "SP3", "strategy SP3: SP 3 must divide the sequence length 2048"},
    {"6b", 0, "PP33", "strategy PP33: PP 33 is more stages than the model's 32 layers"},
    {"6b", 0, "TATP32x1", "strategy TATP32x1: TATP grid 32x1 does not fit the 16x16 mesh"},
    {"6b", 0, "TATP1x17", "strategy TATP1x17: TATP grid 1x17 does not fit the 16x16 mesh"},
    {"6b", 0, "TATP17", "strategy TATP17: no W x H grid of 17 units fits the 16x16 mesh"},
    {"6b", 0, "TATP512", "strategy TATP512: no W x H grid of 512 units fits the 16x16 mesh"},
    {"6b", 1, "DP16,TATP16", "strategy DP16,TATP16 needs 256 units but the layout has 255 live units"},
    {"6b", 0, "TP8,PP32,TATP2", "strategy TP8,PP32,TATP2 needs 512 units but the layout has 256 live units"},
    {"6b", 0, "DP512", "strategy DP512 needs 512 units but the layout has 256 live units"},
    {"6b", 0, "DP3", "strategy DP3: batch 1024 is not a multiple of DP 3 x micro-batch 1"},
    {"6b", 0, "DP3,TP2,PP2", "strategy DP3,TP2,PP2: batch 1024 is not a multiple of DP 3 x micro-batch 1"},
    {"175b", 0, "DP7,TATP4x4", "strategy DP7,TATP4x4: batch 1536 is not a multiple of DP 7 x micro-batch 1"},
    /* 2^72 units: more than a long long holds. */
    {NULL, 0, "DP16777216,SP16777216,PP16777216",
     "strategy DP16777216,SP16777216,PP16777216 needs 4722366482869645213696 units but the layout has "
     "256 live units"},
    {"tp-shapes", 0, "TP4", "strategy TP4: TP 4 must divide the model's ffn width 98"},
    {"tp-shapes", 0, "TP2,SP2",
     "strategy TP2,SP2: with --tp-seqpar on, TP 2 must divide the 3 tokens of a sequence shard "
     "(or turn --tp-seqpar off)"},
};

static void test_resolve_rejects(void **state)
{
    (void)state;
    /* Heads, sequence and layers of 2^24 let every dimension pass its own
     * check and leaves only the unit count. */
    const model huge = {.name = "huge", .layers = 1 << 24, .hidden = 1 << 24, .heads = 1 << 24,
                        .kv_heads = 1 << 24, .ffn = 1, .vocab = 1, .seq = 1 << 24, .batch = 1,
                        .microbatch = 1};
    /* Heads 8 allow TP 2 and 4, but ffn 98 only splits in 2, and a sequence
     * of 6 in 2 shards leaves 3 tokens, which TP 2 cannot split. */
    const model tp_shapes = {.name = "tp-shapes", .layers = 2, .hidden = 64, .heads = 8, .kv_heads = 8,
                             .ffn = 98, .vocab = 10, .seq = 6, .batch = 1, .microbatch = 1};
    for (size_t i = 0; i < sizeof resolve_rejects / sizeof resolve_rejects[0]; i++) {
        const resolve_reject *c = &resolve_rejects[i];
        wafer wf = mesh(16, 16, 1, 1);
        kill_units(&wf, c->dead);
        model m = !c->model ? huge : !strcmp(c->model, "tp-shapes") ? tp_shapes : preset(c->model);
        strategy s;
        strategy_defaults(&s);
        wt_err e = {{0}};
        assert_int_equal(strategy_parse(c->text, &s, &e), WT_OK);
        if (strategy_resolve(&s, &m, &wf, &e) != WT_EINPUT)
            fail_msg("'%s' resolved", c->text);
        assert_string_equal(e.msg, c->msg);
        wafer_free(&wf);
    }
}

/* The batch check counts the micro-batch. */
static void test_resolve_microbatch(void **state)
{
    (void)state;
    wafer wf = mesh(16, 16, 1, 1);
    model m = preset("gpt3-6.7b");
    m.microbatch = 256;
    assert_int_equal(resolve_ok("DP4", &m, &wf).dp, 4);
    strategy s;
    strategy_defaults(&s);
    wt_err e = {{0}};
    assert_int_equal(strategy_parse("DP8", &s, &e), WT_OK);
    assert_int_equal(strategy_resolve(&s, &m, &wf, &e), WT_EINPUT);
    assert_string_equal(e.msg, "strategy DP8: batch 1024 is not a multiple of DP 8 x micro-batch 256");
    /* Left to itself, DP stops at 1024 / 256 = 4. */
    assert_int_equal(resolve_ok("TATP2", &m, &wf).dp, 4);
    wafer_free(&wf);
}

/* ---- formatting ----------------------------------------------------------- */

typedef struct format_case {
    const char *text, *formatted;
} format_case;

static const format_case format_cases[] = {
    {"DP8,TATP16", "DP8,TATP16"},
    {"dp8 tatp16", "DP8,TATP16"},
    {"(8,1,1,1,16)", "DP8,TATP16"},
    {"(8,8,1,4,1)", "DP8,TP8,PP4"},
    {"TATP4x8", "TATP4x8"},
    {"tatp8x4", "TATP8x4"},
    {"tp2, sp4 ,pp3,dp5,TATP2x3", "DP5,TP2,SP4,PP3,TATP2x3"},
    {"TATP6", "TATP6"},
    {"(1,1,1,1,1)", "DP1"},
    {"TP1", "DP1"},
};

static void test_format(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
        const format_case *c = &format_cases[i];
        strategy s, back;
        strategy_defaults(&s);
        strategy_defaults(&back);
        wt_err e = {{0}};
        char buf[64];
        assert_int_equal(strategy_parse(c->text, &s, &e), WT_OK);
        assert_ptr_equal(strategy_format(&s, buf, sizeof buf), buf);
        assert_string_equal(buf, c->formatted);
        /* and back: the same point, grid included */
        assert_int_equal(strategy_parse(buf, &back, &e), WT_OK);
        check_dims(&back, (const int[5]){s.dp, s.tp, s.sp, s.pp, s.tatp});
        assert_int_equal(back.grid_given, s.grid_given);
        assert_int_equal(back.tatp_w, s.tatp_w);
        assert_int_equal(back.tatp_h, s.tatp_h);
    }
}

static void test_format_resolved_and_short(void **state)
{
    (void)state;
    wafer wf = mesh(16, 16, 1, 1);
    model m = preset("gpt3-6.7b");
    char buf[64];
    /* A resolved DP shows; a chosen grid does not (it was not given). */
    strategy s = resolve_ok("TATP16", &m, &wf);
    assert_string_equal(strategy_format(&s, buf, sizeof buf), "DP16,TATP16");
    /* A short buffer truncates and stays terminated. */
    assert_string_equal(strategy_format(&s, buf, 6), "DP16,");
    assert_string_equal(strategy_format(&s, buf, 3), "DP");
    s = resolve_ok("TATP4x8", &m, &wf);
    assert_string_equal(strategy_format(&s, buf, 10), "DP8,TATP4");
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_option_rejects),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_default_grid),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_resolve_dp_steps_down),
        cmocka_unit_test(test_resolve_dead_units),
        cmocka_unit_test(test_resolve_meshes),
        cmocka_unit_test(test_resolve_rejects),
        cmocka_unit_test(test_resolve_microbatch),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_resolved_and_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
