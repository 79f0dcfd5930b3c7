/* The command line (tui/cli.h): which commands take --format, where the
 * words after a Lua command's name go, the checks of --lua-path and --theme
 * as they are parsed; and a CSV cell (tui/out.h) as RFC 4180 writes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "out.h"

/* cli_parse of a NULL-terminated list of words, from the repo root. */
static int parse(unsigned extra, cli_opts *o, wt_err *e, ...)
{
    char *words[16];
    int n = 0;
    va_list ap;
    va_start(ap, e);
    for (char *w; n < 16 && (w = va_arg(ap, char *));)
        words[n++] = w;
    va_end(ap);
    return cli_parse(n, words, extra, ".", o, e);
}

/* --format is the flag of the commands that print a format, and only theirs:
 * cmd keeps it with the command's words, the others refuse it. */
static void test_format(void **state)
{
    (void)state;
    cli_opts o;
    wt_err e;
    assert_int_equal(parse(CLI_FORMAT, &o, &e, "--format", "csv", NULL), WT_OK);
    assert_string_equal(o.format, "csv");
    assert_int_equal(o.format_given, 1);
    assert_int_equal(parse(CLI_FORMAT | CLI_PHASE, &o, &e, "--format=json", NULL), WT_OK);
    assert_string_equal(o.format, "json");
    assert_int_equal(parse(CLI_FORMAT, &o, &e, "--format", "xml", NULL), WT_EINPUT);
    assert_string_equal(e.msg, "--format: 'xml' is not one of table, json, csv");
    assert_int_equal(parse(CLI_UI | CLI_TUNE, &o, &e, "--format", "json", NULL), WT_EINPUT);
    assert_string_equal(e.msg, "unknown option '--format'");
    assert_int_equal(parse(CLI_PICTURE | CLI_PHASE, &o, &e, "--format=csv", NULL), WT_EINPUT);
    assert_string_equal(e.msg, "unknown option '--format'");

    /* cmd link_util --group 4x4 --format csv --strategy TP16 --window 1ms:
     * the scenario's flags are cmd's, the rest the command's, in order */
    assert_int_equal(parse(CLI_REST, &o, &e, "--group", "4x4", "--format", "csv", "--strategy", "TP16", "--window",
                           "1ms", "--format=table", NULL),
                     WT_OK);
    assert_string_equal(o.strategy, "TP16");
    assert_true(o.window == 1e-3);
    assert_string_equal(o.format, "table"); /* the default: not cmd's */
    assert_int_equal(o.format_given, 0);
    assert_int_equal(o.nrest, 5);
    const char *rest[] = {"--group", "4x4", "--format", "csv", "--format=table"};
    for (int i = 0; i < 5; i++)
        assert_string_equal(o.rest[i], rest[i]);
}

/* --lua-path names a directory that exists; --theme a theme that loads. */
static void test_checked_flags(void **state)
{
    (void)state;
    cli_opts o;
    wt_err e;
    assert_int_equal(parse(CLI_NO_SCENARIO, &o, &e, "--lua-path", "tests/lua", NULL), WT_OK);
    assert_string_equal(o.lua.user_dir, "tests/lua");
    assert_int_equal(parse(0, &o, &e, "--lua-path", "/no/such/dir", NULL), WT_EINPUT);
    assert_string_equal(e.msg, "--lua-path: '/no/such/dir': No such file or directory");
    assert_int_equal(parse(0, &o, &e, "--lua-path=README.md", NULL), WT_EINPUT);
    assert_string_equal(e.msg, "--lua-path: 'README.md' is not a directory");

    assert_int_equal(parse(CLI_UI, &o, &e, "--theme", "viridis", NULL), WT_OK);
    assert_string_equal(o.theme, "viridis");
    assert_int_equal(parse(CLI_PICTURE, &o, &e, "--theme", "themes/mono.yaml", NULL), WT_OK);
    assert_int_equal(parse(CLI_UI, &o, &e, "--theme", "nosuch", NULL), WT_EINPUT);
    assert_string_equal(e.msg, "--theme: no theme 'nosuch' (no such file, and no ./themes/nosuch.yaml)");
    /* a broken theme file: its own file:line:col */
    char path[] = "/tmp/test_cli_theme_XXXXXX", want[160];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("name: broken\nsparkle: true\n", f);
    fclose(f);
    assert_int_equal(parse(CLI_UI, &o, &e, "--theme", path, NULL), WT_EINPUT);
    snprintf(want, sizeof want, "%s:2:1: unknown key 'sparkle' (allowed: name, gradient, background, text, accent, "
             "hot, dead, grid, mono)", path);
    assert_string_equal(e.msg, want);
    remove(path);
}

/* out_csv_text of s, as a string (kept until the next call). */
static const char *csv_cell(const char *s)
{
    static char *text;
    size_t n;
    free(text);
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    out_csv_text(f, s);
    fclose(f);
    return text;
}

/* A cell as it is, unless a comma, a quote or a line break needs quotes,
 * its quotes then doubled. */
static void test_csv_cell(void **state)
{
    (void)state;
    assert_string_equal(csv_cell("DP8"), "DP8");
    assert_string_equal(csv_cell(""), "");
    assert_string_equal(csv_cell("it's; fine"), "it's; fine");
    assert_string_equal(csv_cell("DP8,TP32"), "\"DP8,TP32\"");
    assert_string_equal(csv_cell("my \"big\" wafer"), "\"my \"\"big\"\" wafer\"");
    assert_string_equal(csv_cell("\""), "\"\"\"\"");
    assert_string_equal(csv_cell("two\nlines"), "\"two\nlines\"");
    assert_string_equal(csv_cell("cr\r"), "\"cr\r\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_checked_flags),
        cmocka_unit_test(test_csv_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
