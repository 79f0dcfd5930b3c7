/* eval_small.h - what the traffic tests evaluate (after cmocka.h): an 8x8
 * wafer, a small model, strategies that cover every pass, group kind and
 * routing, and one evaluation of a strategy with at most one option. */
#ifndef WT_TEST_EVAL_SMALL_H
#define WT_TEST_EVAL_SMALL_H

#include "sim.h"

static inline void small_wafer(wafer *wf)
{
    assert_int_equal(wafer_init(wf, 8, 8, 1, 1, NULL), WT_OK);
    wf->peak_flops = 1e14;
    wf->efficiency = 0.8;
    wf->link_bw = 1e11;
    wf->link_lat = 1e-8;
    wf->link_overhead = 1e-6;
    wf->sram_bytes = 1e12;
}

/* Strategy, option, value: rings, 2-D and hierarchical splits, pipeline
 * shifts, bidirectional rings, linear placement, yx and balanced routing. */
static const char *const small_cases[][3] = {
    {"DP4,TATP16", NULL, NULL},           {"TP8,DP8", "placement", "linear"},
    {"DP2,TP2,SP2,PP2,TATP4", NULL, NULL}, {"DP16,TATP4", "collective", "2d"},
    {"DP64", "collective", "hier"},       {"TP4,PP4,DP4", "routing", "yx"},
    {"SP4,TATP16", "routing", "balanced"}, {"DP8,TP8", "collective", "bidir"},
};
#define NSMALL_CASES (sizeof small_cases / sizeof small_cases[0])

static inline model small_model(void)
{
    model m = {"small", 4, 256, 8, 8, 1024, MODEL_GELU, 512, 1, 64, 64, 1};
    return m;
}

static inline void eval_with(sim_ctx *c, sim_result *r, const char *text, const char *opt, const char *value)
{
    model m = small_model();
    strategy s;
    strategy_defaults(&s);
    wt_err e;
    if (strategy_parse(text, &s, &e) != WT_OK || (opt && strategy_set_option(&s, opt, value, &e) != WT_OK))
        fail_msg("%s: %s", text, e.msg);
    if (sim_eval_ctx(c, r, &m, &s, &e) != WT_OK)
        fail_msg("sim_eval %s: %s", text, e.msg);
}

#endif
