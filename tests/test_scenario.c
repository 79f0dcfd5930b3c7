/* Scenario files (tui/scenario.h): what :save writes reads back as the same
 * flags (the network model among them), faults and tuning; a file without
 * a network model reads; a priority alone round-trips; bad files are
 * located; --scenario is replaced by the file's flags with the user's after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "layout.h"
#include "scenario.h"

typedef struct fixture {
    char dir[64], path[128];
    wafer wf;
    session S;
} fixture;

/* A session of DP8,TP32 (DP left to fill) on default.yaml and a scratch
 * directory for the file. */
static void open_fixture(fixture *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/wt-scenario-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/s.yaml", f->dir);
    assert_int_equal(layout_load("layouts/default.yaml", &f->wf, NULL), WT_OK);
    model m;
    assert_int_equal(model_load("gpt3-6.7b", &m, NULL), WT_OK);
    strategy s;
    strategy_defaults(&s);
    assert_int_equal(strategy_parse("TP32", &s, NULL), WT_OK);
    s.placement = PLACE_LINEAR;
    s.checkpoint = RECOMPUTE_FULL;
    s.mem = MEM_ZERO | MEM_GRAD_FP8;
    s.chunk = 262144;
    session_opts o = {7, 0.05, 0.01, NULL, 0};
    assert_int_equal(session_new(&f->S, &f->wf, &m, &s, &o, NULL), WT_OK);
}

static void close_fixture(fixture *f)
{
    session_free(&f->S);
    wafer_free(&f->wf);
    remove(f->path);
    rmdir(f->dir);
}

/* The value that follows flag in the expanded words, or NULL; fails when
 * the flag is there twice. */
static const char *value_of(int argc, char **argv, const char *flag)
{
    const char *v = NULL;
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], flag)) {
            assert_null(v);
            v = argv[i + 1];
        }
    return v;
}

static void test_round_trip(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f);
    wt_err e;
    assert_int_equal(session_fail_unit(&f.S, 3, 4, &e), WT_OK);
    assert_int_equal(session_fail_link(&f.S, 5, 5, WAFER_W, &e), WT_OK); /* written from its west end */
    assert_int_equal(session_set_routing(&f.S, "fwd.attn.qkv", ROUTE_YX, &e), WT_OK);
    assert_int_equal(session_delay(&f.S, "bwd.mlp.in", 3, &e), WT_OK);
    assert_int_equal(session_set_priority(&f.S, "bwd.mlp.in", -2, &e), WT_OK);
    assert_int_equal(session_set_priority(&f.S, "dp.allreduce", 1, &e), WT_OK);
    assert_int_equal(scenario_save(f.path, &f.S, "default", "gpt3-6.7b", "shrink_groups", &e), WT_OK);

    scenario_file *sf = calloc(1, sizeof *sf);
    char *argv[] = {"--scenario", f.path, "--jitter", "0.1"};
    int argc;
    char **args;
    assert_int_equal(scenario_expand(4, argv, sf, &argc, &args, &e), WT_OK);
    assert_non_null(args);
    assert_string_equal(value_of(argc, args, "--layout"), "default");
    assert_string_equal(value_of(argc, args, "--model"), "gpt3-6.7b");
    assert_string_equal(value_of(argc, args, "--seq"), "2048");
    assert_string_equal(value_of(argc, args, "--strategy"), "TP32");
    assert_string_equal(value_of(argc, args, "--placement"), "linear");
    assert_string_equal(value_of(argc, args, "--checkpoint"), "full");
    assert_string_equal(value_of(argc, args, "--mem"), "zero,grad_fp8");
    assert_string_equal(value_of(argc, args, "--chunk"), "262144 B");
    assert_string_equal(value_of(argc, args, "--exec"), "resident");
    assert_string_equal(value_of(argc, args, "--net"), "fluid");
    char window[64];
    snprintf(window, sizeof window, "%.17g s", SIM_WINDOW_S); /* the session's, the default */
    assert_string_equal(value_of(argc, args, "--window"), window);
    assert_string_equal(value_of(argc, args, "--policy"), "shrink_groups");
    assert_string_equal(value_of(argc, args, "--seed"), "7");
    assert_string_equal(value_of(argc, args, "--straggler"), "0.01");
    /* the file's jitter, then the user's: the later flag wins in cli_parse */
    assert_string_equal(args[argc - 2], "--jitter");
    assert_string_equal(args[argc - 1], "0.1");
    int faults = 0;
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(args[i], "--fail")) {
            assert_true(!strcmp(args[i + 1], "3,4") || !strcmp(args[i + 1], "4,5,E"));
            faults++;
        }
    assert_int_equal(faults, 2);
    assert_true(sf->has_tuning);
    assert_int_equal(sf->tune.nphases, 3);
    assert_string_equal(sf->tune.phase[0].phase, "fwd.attn.qkv");
    assert_int_equal(sf->tune.phase[0].routing, ROUTE_YX);
    assert_int_equal(sf->tune.phase[0].waves, 1);
    assert_string_equal(sf->tune.phase[1].phase, "bwd.mlp.in");
    assert_int_equal(sf->tune.phase[1].routing, -1);
    assert_int_equal(sf->tune.phase[1].waves, 3);
    assert_int_equal(sf->tune.phase[1].priority, -2);
    assert_string_equal(sf->tune.phase[2].phase, "dp.allreduce");
    assert_int_equal(sf->tune.phase[2].priority, 1);

    /* the tuning applied to a fresh session is the saved one */
    session T;
    strategy s = f.S.s;
    session_opts o = {1, 0, 0, NULL, 0};
    assert_int_equal(session_new(&T, &f.wf, &f.S.m, &s, &o, &e), WT_OK);
    assert_int_equal(scenario_apply_tuning(sf, &T, &e), WT_OK);
    assert_int_equal(T.tune.nphases, 3);
    assert_int_equal(T.tune.phase[0].routing, ROUTE_YX);
    assert_int_equal(T.tune.phase[1].waves, 3);
    assert_int_equal(sim_tuning_priority(&T.tune, "bwd.mlp.in"), -2);
    assert_int_equal(sim_tuning_priority(&T.tune, "dp.allreduce"), 1);
    assert_int_equal(sim_tuning_priority(&T.tune, "fwd.attn.qkv"), 0);
    session_free(&T);
    free(args);
    free(sf);
    close_fixture(&f);
}

/* A priority alone round-trips. */
static void test_priority_alone(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f);
    wt_err e;
    assert_int_equal(session_set_priority(&f.S, "dp.allreduce", 1, &e), WT_OK);
    assert_int_equal(scenario_save(f.path, &f.S, "default", "gpt3-6.7b", "", &e), WT_OK);
    scenario_file *sf = calloc(1, sizeof *sf);
    char *argv[] = {"--scenario=x"};
    char arg[160];
    snprintf(arg, sizeof arg, "--scenario=%s", f.path);
    argv[0] = arg;
    int argc;
    char **args;
    if (scenario_expand(1, argv, sf, &argc, &args, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_true(sf->has_tuning);
    assert_int_equal(sf->tune.nphases, 1);
    assert_int_equal(sim_tuning_priority(&sf->tune, "dp.allreduce"), 1);
    assert_null(value_of(argc, args, "--policy"));
    assert_null(value_of(argc, args, "--fail"));
    free(args);
    free(sf);
    close_fixture(&f);
}

/* Bad files: file:line:col, and no flags. */
static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *text, *where, *what;
    } bad[] = {
        {"layout: default\nmodel: x\nstrategy: \"DP8\"\ncolour: red\n", ":4:1:", "colour"},
        {"layout: default\nmodel: x\nstrategy: \"DPx\"\n", ":3:11:", "strategy"},
        {"layout: default\nmodel: x\nstrategy: DP8\nplacement: diagonal\n", ":4:12:", "placement"},
        {"layout: default\nmodel: x\nstrategy: DP8\nfaults: [\"3;4\"]\n", ":4:10:", "fail"},
        {"layout: default\nmodel: x\nstrategy: DP8\nseq: 0\n", ":4:6:", "seq"},
        {"layout: default\nmodel: x\nstrategy: DP8\nnet: nosuch\n", ":4:6:", "--net: net 'nosuch' is not one of"},
        {"layout: default\nmodel: x\nstrategy: DP8\ntuning: {phases: [{phase: a, waves: 9}]}\n", ":4:37:", "waves"},
        {"layout: default\nmodel: x\nstrategy: DP8\ntuning: {phases: [{phase: a, priority: 1.5}]}\n", ":4:40:",
         "priority: '1.5' is not a whole number"},
        {"layout: default\nmodel: x\nstrategy: DP8\ntuning: {priority: fwd}\n", ":4:20:",
         "priority: 'fwd' is not one of dp.allreduce, backward"},
        {"layout: default\nstrategy: DP8\n", ":1:1:", "model"},
        /* the flag's own range, as on the command line */
        {"layout: default\nmodel: x\nstrategy: DP8\njitter: 5\n", ":4:9:", "--jitter"},
    };
    char dir[] = "/tmp/wt-scenario-bad-XXXXXX", path[96];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(bad[i].text, f);
        fclose(f);
        scenario_file *sf = calloc(1, sizeof *sf);
        char *argv[] = {"--scenario", path};
        int argc;
        char **args = (char **)1;
        wt_err e;
        assert_int_equal(scenario_expand(2, argv, sf, &argc, &args, &e), WT_EINPUT);
        assert_null(args);
        char where[128];
        snprintf(where, sizeof where, "%s%s", path, bad[i].where);
        if (strncmp(e.msg, where, strlen(where)) || !strstr(e.msg, bad[i].what))
            fail_msg("case %zu: '%s' (want %s ... %s)", i, e.msg, where, bad[i].what);
        free(sf);
    }
    remove(path);
    rmdir(dir);
}

/* The flags a scenario file of the given text stands for (an older
 * program's file): *argc of them in *args, the file's tuning in the result;
 * the caller frees both. */
static scenario_file *expand_old(const char *text, int *argc, char ***args)
{
    char dir[] = "/tmp/wt-scenario-old-XXXXXX", path[96];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/old.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    scenario_file *sf = calloc(1, sizeof *sf);
    char *argv[] = {"--scenario", path};
    wt_err e;
    if (scenario_expand(2, argv, sf, argc, args, &e) != WT_OK)
        fail_msg("%s", e.msg);
    remove(path);
    rmdir(dir);
    return sf;
}

/* Files written before levels: `priority: dp.allreduce` is that phase at
 * level 1, `priority: backward` the default. */
static void test_old_priority(void **state)
{
    (void)state;
    static const char *const forms[] = {"dp.allreduce", "backward"};
    for (int i = 0; i < 2; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "layout: default\nmodel: gpt3-6.7b\nstrategy: \"DP8,TATP16\"\n"
                 "tuning:\n  priority: %s\n  phases: [{phase: bwd.mlp.in, waves: 2}]\n",
                 forms[i]);
        int argc;
        char **args;
        scenario_file *sf = expand_old(text, &argc, &args);
        assert_int_equal(sim_tuning_priority(&sf->tune, "dp.allreduce"), i == 0);
        assert_int_equal(sim_tuning_priority(&sf->tune, "bwd.mlp.in"), 0);
        assert_int_equal(sim_tuning_find(&sf->tune, "bwd.mlp.in")->waves, 2);
        free(args);
        free(sf);
    }
}

/* A file written before scenarios named their network model stands for
 * no --net: the command line's default. */
static void test_no_net(void **state)
{
    (void)state;
    int argc;
    char **args;
    scenario_file *sf = expand_old("layout: default\nmodel: gpt3-6.7b\nstrategy: \"DP8,TATP16\"\n", &argc, &args);
    assert_int_equal(argc, 6);
    assert_null(value_of(argc, args, "--net"));
    free(args);
    free(sf);
}

/* Without --scenario the words are the caller's own. */
static void test_no_scenario(void **state)
{
    (void)state;
    scenario_file *sf = calloc(1, sizeof *sf);
    char *argv[] = {"--strategy", "DP8"};
    int argc;
    char **args = (char **)1;
    assert_int_equal(scenario_expand(2, argv, sf, &argc, &args, NULL), WT_OK);
    assert_null(args);
    assert_int_equal(argc, 2);
    char *missing[] = {"--scenario"};
    wt_err e;
    assert_int_equal(scenario_expand(1, missing, sf, &argc, &args, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--scenario needs a value");
    free(sf);
}

/* A scenario is an input file: a device or a directory is refused before
 * anything is read (/dev/zero was read until memory ran out). */
static void test_not_a_file(void **state)
{
    (void)state;
    scenario_file *sf = calloc(1, sizeof *sf);
    assert_non_null(sf);
    char *argv[] = {"--scenario", "/dev/zero"}, *dir[] = {"--scenario=tests/fixtures"};
    int argc;
    char **args;
    wt_err e;
    assert_int_equal(scenario_expand(2, argv, sf, &argc, &args, &e), WT_EINPUT);
    assert_string_equal(e.msg, "/dev/zero: not a regular file (a character device); give a YAML file");
    assert_int_equal(scenario_expand(1, dir, sf, &argc, &args, &e), WT_EINPUT);
    assert_string_equal(e.msg, "tests/fixtures: not a regular file (a directory); give a YAML file");
    free(sf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_priority_alone),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_old_priority),
        cmocka_unit_test(test_no_net),
        cmocka_unit_test(test_no_scenario),
        cmocka_unit_test(test_not_a_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
