/*
 * test_choice.c - the option tables (engine/choice.h): the helpers on a
 * table written here, then every real table: each row parses and prints
 * back, every error, the help and --only read the table, --net reads the
 * network models' table the same way, and README.md, docs/MODEL.md,
 * docs/wafertop.1 and docs/LUA.md name every row (run from the repo root,
 * as `make check` does), so a row without docs fails here.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "coll.h"
#include "net.h"
#include "search.h"

/* ---- the helpers, on a table of rows larger than a choice ---------------- */

typedef struct fruit {
    choice c;
    int weight;
} fruit;

static const fruit fruits[] = {
    {{"apple", CHOICE_SEARCH}, 150},
    {{"Banana", 0}, 120},
    {{"cherry", CHOICE_SEARCH | CHOICE_AUTO}, 8},
};

static void test_helpers(void **state)
{
    (void)state;
    choice_table t = CHOICE_TABLE(fruits);
    char buf[64];
    wt_err e;
    assert_int_equal(t.n, 3);
    assert_int_equal(t.stride, sizeof(fruit));
    assert_string_equal(choice_at(t, 2)->name, "cherry");
    assert_int_equal(choice_find(t, "APPLE"), 0);
    assert_int_equal(choice_find(t, "banana"), 1);
    assert_int_equal(choice_find(t, "cherry"), 2);
    assert_int_equal(choice_find(t, "kiwi"), -1);
    assert_int_equal(choice_find(t, "appl"), -1);
    assert_int_equal(choice_find(t, NULL), -1);
    assert_string_equal(choice_join(t, 0, ", ", buf, sizeof buf), "apple, Banana, cherry");
    assert_string_equal(choice_join(t, CHOICE_SEARCH, "|", buf, sizeof buf), "apple|cherry");
    assert_string_equal(choice_join(t, CHOICE_SEARCH | CHOICE_AUTO, "|", buf, sizeof buf), "cherry");
    assert_string_equal(choice_join(t, CHOICE_CHOOSER, "|", buf, sizeof buf), "");
    assert_string_equal(choice_join(t, 0, ", ", buf, 9), "apple, B"); /* cut to the buffer */
    assert_string_equal(choice_join(t, 0, ", ", buf, 1), "");
    assert_int_equal(choice_mask(t, 0), 7u);
    assert_int_equal(choice_mask(t, CHOICE_SEARCH), 5u);
    assert_int_equal(choice_mask(t, CHOICE_AUTO), 4u);
    assert_int_equal(choice_fail(t, "fruit", "kiwi", &e), WT_EINPUT);
    assert_string_equal(e.msg, "fruit 'kiwi' is not one of apple, Banana, cherry");
}

/* ---- the real tables ------------------------------------------------------ */

/* The value of an option in s, as printed. */
static const char *placement_of(const strategy *s, char *buf, size_t n)
{
    (void)buf, (void)n;
    return place_kind_name(s->placement);
}
static const char *collective_of(const strategy *s, char *buf, size_t n)
{
    (void)buf, (void)n;
    return coll_algo_name(s->collective);
}
static const char *routing_of(const strategy *s, char *buf, size_t n)
{
    (void)buf, (void)n;
    return route_mode_name(s->routing);
}
static const char *checkpoint_of(const strategy *s, char *buf, size_t n)
{
    (void)buf, (void)n;
    return recompute_name(s->checkpoint);
}
static const char *grad_of(const strategy *s, char *buf, size_t n)
{
    (void)buf, (void)n;
    return grad_compress_name(s->grad);
}
static const char *mem_of(const strategy *s, char *buf, size_t n)
{
    return mem_switches_format(s->mem, buf, n);
}

typedef struct table_case {
    const char *option;             /* strategy_set_option's name and the flag */
    choice_table (*table)(void);
    const char *sep;                /* how the help and the docs join its names */
    const char *(*value)(const strategy *s, char *buf, size_t n);
} table_case;

static const table_case tables[] = {
    {"placement", place_kind_table, "|", placement_of},
    {"collective", coll_algo_table, "|", collective_of},
    {"routing", route_mode_table, "|", routing_of},
    {"checkpoint", recompute_table, "|", checkpoint_of},
    {"mem", mem_switch_table, ",", mem_of},
    {"grad-compress", grad_compress_table, "|", grad_of},
};
#define NTABLES (sizeof tables / sizeof tables[0])

/* Every row has a name of its own, is found by it in any case, and setting
 * the option to it prints it back. */
static void test_rows_round_trip(void **state)
{
    (void)state;
    for (size_t k = 0; k < NTABLES; k++) {
        const table_case *c = &tables[k];
        choice_table t = c->table();
        assert_true(t.n >= 2);
        for (int i = 0; i < t.n; i++) {
            const char *name = choice_at(t, i)->name;
            char upper[64], buf[64];
            assert_true(name && name[0] && strlen(name) < sizeof upper);
            for (size_t j = 0; j <= strlen(name); j++)
                upper[j] = (char)toupper((unsigned char)name[j]);
            assert_int_equal(choice_find(t, name), i);
            assert_int_equal(choice_find(t, upper), i); /* so no other row has this name */
            strategy s;
            strategy_defaults(&s);
            wt_err e;
            if (strategy_set_option(&s, c->option, name, &e) != WT_OK)
                fail_msg("--%s %s: %s", c->option, name, e.msg);
            assert_string_equal(c->value(&s, buf, sizeof buf), name);
        }
    }
}

/* A value that is no row is refused with every row's name. */
static void test_errors_name_every_row(void **state)
{
    (void)state;
    for (size_t k = 0; k < NTABLES; k++) {
        const table_case *c = &tables[k];
        strategy s;
        strategy_defaults(&s);
        wt_err e;
        char list[256], want[300];
        assert_int_equal(strategy_set_option(&s, c->option, "star", &e), WT_EINPUT);
        snprintf(want, sizeof want, " 'star' is not one of %s", choice_join(c->table(), 0, ", ", list, sizeof list));
        const char *at = strstr(e.msg, " 'star' ");
        assert_non_null(at);
        assert_string_equal(at, want);
        for (int i = 0; i < c->table().n; i++)
            assert_non_null(strstr(at, choice_at(c->table(), i)->name));
    }
}

/* --only takes exactly the rows flagged CHOICE_SEARCH, and its error lists them. */
static void test_only_reads_the_tables(void **state)
{
    (void)state;
    static const char *const keys[] = {"placement", "collective", "checkpoint"};
    static choice_table (*const key_tables[])(void) = {place_kind_table, coll_algo_table, recompute_table};
    for (int k = 0; k < 3; k++) {
        choice_table t = key_tables[k]();
        for (int i = 0; i < t.n; i++) {
            const choice *row = choice_at(t, i);
            search_space sp = {0};
            wt_err e;
            char text[96], list[160], want[320];
            snprintf(text, sizeof text, "%s=%s", keys[k], row->name);
            if (row->flags & CHOICE_SEARCH) {
                assert_int_equal(search_parse_only(text, &sp, &e), WT_OK);
                unsigned got = k == 0 ? sp.placements : k == 1 ? sp.collectives : sp.checkpoints;
                assert_int_equal(got, 1u << i);
            } else {
                assert_int_equal(search_parse_only(text, &sp, &e), WT_EINPUT);
                snprintf(want, sizeof want, "--only: %s is not a choice of the search (%s)", text,
                         choice_join(t, CHOICE_SEARCH, "|", list, sizeof list));
                assert_string_equal(e.msg, want);
            }
        }
    }
    /* auto picks among the algorithms; the search tries them itself */
    assert_false(choice_at(coll_algo_table(), COLL_AUTO)->flags & CHOICE_SEARCH);
}

/* The help lists each option's rows, and a line per collective algorithm. */
static void test_help_lists_every_row(void **state)
{
    (void)state;
    char help[CLI_HELP_MAX], line[320], list[160];
    cli_scenario_help(help, sizeof help);
    assert_true(strlen(help) + 1 < sizeof help);
    for (size_t k = 0; k < NTABLES; k++) {
        snprintf(line, sizeof line, "\n  --%s %s ", tables[k].option,
                 choice_join(tables[k].table(), 0, tables[k].sep, list, sizeof list));
        if (!strstr(help, line))
            fail_msg("the help lacks '%s'", line + 1);
    }
    for (int a = 0; a <= COLL_AUTO; a++) {
        snprintf(line, sizeof line, "\n      %-7s %s", coll_algo_name((coll_algo)a), coll_algo_about((coll_algo)a));
        if (!strstr(help, line))
            fail_msg("the help lacks '%s'", line + 1);
    }
}

/* --net takes every network model and nothing else, its error names them
 * all, and the help lists each with its summary, the default first. */
static void test_net_reads_its_table(void **state)
{
    (void)state;
    choice_table t = net_model_table();
    char help[CLI_HELP_MAX], line[320], list[160];
    wt_err e;
    cli_scenario_help(help, sizeof help);
    snprintf(line, sizeof line, "\n  --net %s ", choice_join(t, 0, "|", list, sizeof list));
    if (!strstr(help, line))
        fail_msg("the help lacks '%s'", line + 1);
    assert_ptr_equal(net_model_default(), net_model_at(0));
    for (int i = 0; i < t.n; i++) {
        const net_model *net = net_model_at(i);
        assert_ptr_equal(net_model_find(net->c.name), net);
        if (cli_check_flag("net", net->c.name, &e) != WT_OK)
            fail_msg("--net %s: %s", net->c.name, e.msg);
        snprintf(line, sizeof line, "\n      %-10s %s\n", net->c.name, net->summary);
        if (!strstr(help, line))
            fail_msg("the help lacks '%s'", line + 1);
    }
    char want[320];
    assert_int_equal(cli_check_flag("net", "star", &e), WT_EINPUT);
    snprintf(want, sizeof want, "--net: net 'star' is not one of %s", choice_join(t, 0, ", ", list, sizeof list));
    assert_string_equal(e.msg, want);
}

/* ---- the docs ------------------------------------------------------------- */

/* A file of the repo, read whole (the caller frees it). */
static char *read_doc(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (run the tests from the repo root)", path);
    char *text = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 4096 + 1 > cap) {
            cap = (cap + 4096) * 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        got = fread(text + n, 1, 4096, f);
        n += got;
    } while (got > 0);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* Where a document names a table: `pattern` with %s replaced by the names of
 * the rows flagged `need`, joined by sep, or (each) by every row's name in turn. */
typedef struct doc_case {
    const char *path;
    const char *pattern;
    choice_table (*table)(void);
    unsigned need;
    const char *sep;
    int each;
} doc_case;

static const doc_case docs[] = {
    {"README.md", "`--placement %s`", place_kind_table, 0, "|", 0},
    {"README.md", "`--collective %s`", coll_algo_table, 0, "|", 0},
    {"README.md", "`--routing %s`", route_mode_table, 0, "|", 0},
    {"README.md", "`--checkpoint %s`", recompute_table, 0, "|", 0},
    {"README.md", "`--mem %s`", mem_switch_table, 0, ",", 0},
    {"README.md", "`--grad-compress %s`", grad_compress_table, 0, "|", 0},
    {"docs/wafertop.1", ".BI \\-\\-placement \" %s\"\n", place_kind_table, 0, "|", 0},
    {"docs/wafertop.1", ".BI \\-\\-collective \" %s\"\n", coll_algo_table, 0, "|", 0},
    {"docs/wafertop.1", ".BI \\-\\-routing \" %s\"\n", route_mode_table, 0, "|", 0},
    {"docs/wafertop.1", ".BI \\-\\-checkpoint \" %s\"\n", recompute_table, 0, "|", 0},
    {"docs/wafertop.1", ".BI \\-\\-mem \" %s\"\n", mem_switch_table, 0, ",", 0},
    {"docs/wafertop.1", ".BI \\-\\-grad\\-compress \" %s\"\n", grad_compress_table, 0, "|", 0},
    {"docs/wafertop.1", "\n.B %s\n", coll_algo_table, 0, NULL, 1},
    {"README.md", "`--net %s`", net_model_table, 0, "|", 0},
    {"docs/wafertop.1", ".BI \\-\\-net \" %s\"\n", net_model_table, 0, "|", 0},
    {"docs/LUA.md", "`net = \"%s\"`", net_model_table, 0, NULL, 1},
    {"docs/MODEL.md", "\n- `%s`: ", place_kind_table, 0, NULL, 1},
    {"docs/MODEL.md", "\n| %s ", coll_algo_table, 0, NULL, 1},
    {"docs/MODEL.md", "`%s`", route_mode_table, 0, NULL, 1},
    {"docs/MODEL.md", "placements {%s}", place_kind_table, CHOICE_SEARCH, ", ", 0},
    {"docs/MODEL.md", "collectives {%s}", coll_algo_table, CHOICE_SEARCH, ", ", 0},
    {"docs/MODEL.md", "checkpointing {%s}", recompute_table, CHOICE_SEARCH, ", ", 0},
    {"docs/MODEL.md", "every subset of {%s}", mem_switch_table, CHOICE_SEARCH, ", ", 0},
};

static void expect_in(const char *path, const char *text, const char *pattern, const char *names)
{
    char want[512];
    snprintf(want, sizeof want, pattern, names);
    if (!strstr(text, want))
        fail_msg("%s does not say \"%s\" (the table's rows)", path, want);
}

static void test_docs_name_every_row(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        const doc_case *d = &docs[k];
        char *text = read_doc(d->path), list[256];
        choice_table t = d->table();
        if (d->each)
            for (int i = 0; i < t.n; i++)
                expect_in(d->path, text, d->pattern, choice_at(t, i)->name);
        else
            expect_in(d->path, text, d->pattern, choice_join(t, d->need, d->sep, list, sizeof list));
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_rows_round_trip),
        cmocka_unit_test(test_errors_name_every_row),
        cmocka_unit_test(test_only_reads_the_tables),
        cmocka_unit_test(test_help_lists_every_row),
        cmocka_unit_test(test_net_reads_its_table),
        cmocka_unit_test(test_docs_name_every_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
