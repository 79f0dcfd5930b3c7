/* The `:` and `/` line editor (tui/cmdline.h): typing, the cursor, erasing,
 * Enter and Esc, the history, Tab completion of commands and flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cmdline.h"
#include "keys.h"

/* What the completion callback was asked, and offers. */
typedef struct words_log {
    int calls;
    int cmd_null;        /* the last call was for the first word */
    char cmd[64];        /* else its command */
} words_log;

static int words(void *ud, const char *cmd, const char **out, int max)
{
    static const char *const names[] = {"strategy", "search", "save", "link_util", "links", "quit"};
    static const char *const strategy_flags[] = {"--placement", "--collective", "--checkpoint", "--chunk"};
    static const char *const search_flags[] = {"--fix", "--only"};
    words_log *log = ud;
    log->calls++;
    log->cmd_null = cmd == NULL;
    snprintf(log->cmd, sizeof log->cmd, "%s", cmd ? cmd : "");
    const char *const *w = names;
    int n = 6;
    if (cmd && !strcmp(cmd, "strategy")) {
        w = strategy_flags;
        n = 4;
    } else if (cmd && !strcmp(cmd, "search")) {
        w = search_flags;
        n = 2;
    } else if (cmd) {
        n = 0;
    }
    for (int i = 0; i < n && i < max; i++)
        out[i] = w[i];
    return n < max ? n : max;
}

static void type(cmdline *c, const char *s)
{
    for (; *s; s++)
        assert_int_equal(cmdline_key(c, (unsigned char)*s), CMDLINE_EDITING);
}

static void key(cmdline *c, int k)
{
    assert_int_equal(cmdline_key(c, k), CMDLINE_EDITING);
}

/* The line and where its cursor is. */
static void check(const cmdline *c, const char *line, int cursor)
{
    if (strcmp(c->line, line) || c->len != (int)strlen(line) || c->cursor != cursor)
        fail_msg("line \"%s\" (len %d) cursor %d, expected \"%s\" cursor %d", c->line, c->len, c->cursor, line,
                 cursor);
}

/* Presses k and checks the line and its cursor. */
static void press(cmdline *c, int k, const char *line, int cursor)
{
    key(c, k);
    check(c, line, cursor);
}

/* Types a line and enters it. */
static void enter(cmdline *c, const char *s)
{
    cmdline_open(c);
    type(c, s);
    assert_int_equal(cmdline_key(c, TK_ENTER), CMDLINE_DONE);
}

/* Types s, presses Tab and checks the line, its cursor and, unless hint is
 * NULL, the candidates shown. */
static void complete(cmdline *c, const char *s, const char *line, int cursor, const char *hint)
{
    type(c, s);
    press(c, TK_TAB, line, cursor);
    if (hint)
        assert_string_equal(c->hint, hint);
}

static void test_typing_and_cursor(void **state)
{
    (void)state;
    cmdline c;
    cmdline_init(&c, ':', NULL, NULL);
    assert_int_equal(c.prompt, ':');
    assert_int_equal(c.active, 0);
    cmdline_open(&c);
    assert_int_equal(c.active, 1);
    check(&c, "", 0);
    type(&c, "hello");
    check(&c, "hello", 5);
    key(&c, TK_LEFT);
    press(&c, TK_LEFT, "hello", 3);
    type(&c, "X");
    check(&c, "helXlo", 4);
    press(&c, TK_HOME, "helXlo", 0);
    press(&c, TK_LEFT, "helXlo", 0); /* stays at the start */
    type(&c, ">");
    check(&c, ">helXlo", 1);
    press(&c, TK_END, ">helXlo", 7);
    press(&c, TK_RIGHT, ">helXlo", 7); /* stays at the end */
    press(&c, TK_CTRL('a'), ">helXlo", 0);
    key(&c, TK_RIGHT);
    press(&c, TK_CTRL('f'), ">helXlo", 2);
    press(&c, TK_CTRL('e'), ">helXlo", 7);
    press(&c, TK_CTRL('b'), ">helXlo", 6);
    assert_int_equal(c.active, 1);

    /* printable ASCII only: no Latin-1, no other code points, no controls,
     * no special keys */
    static const int refused[] = {0xE9, 0x80, 0x2580, 0x1F600, 0x7F, 0x1F, TK_CTRL('x'), TK_CTRL('k'), '\t',
                                  TK_F1, TK_F10, TK_PGUP, TK_PGDN, TK_RESIZE, TK_MOUSE, TK_TIMEOUT, TK_NONE};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        key(&c, refused[i]);
        check(&c, ">helXlo", 6);
    }
    type(&c, " ~");
    check(&c, ">helXl ~o", 8);

    /* at most CMDLINE_MAX - 1 characters */
    cmdline_open(&c);
    for (int i = 0; i < CMDLINE_MAX + 10; i++)
        key(&c, 'a' + i % 26);
    assert_int_equal(c.len, CMDLINE_MAX - 1);
    assert_int_equal(c.cursor, CMDLINE_MAX - 1);
    assert_int_equal((int)strlen(c.line), CMDLINE_MAX - 1);
    assert_int_equal(c.line[CMDLINE_MAX - 2], 'a' + (CMDLINE_MAX - 2) % 26);
    key(&c, TK_HOME);
    key(&c, 'Z');
    assert_int_equal(c.line[0], 'a'); /* a full line takes nothing, even in the middle */
    assert_int_equal(c.len, CMDLINE_MAX - 1);
}

static void test_erasing(void **state)
{
    (void)state;
    cmdline c;
    cmdline_init(&c, ':', NULL, NULL);
    cmdline_open(&c);
    type(&c, "abcdef");
    press(&c, TK_BACKSPACE, "abcde", 5);
    key(&c, TK_LEFT);
    key(&c, TK_LEFT);
    press(&c, TK_BACKSPACE, "abde", 2);
    press(&c, TK_DELETE, "abe", 2);
    press(&c, TK_CTRL('d'), "ab", 2);
    press(&c, TK_DELETE, "ab", 2); /* nothing under the cursor */
    key(&c, TK_HOME);
    press(&c, TK_BACKSPACE, "ab", 0); /* nothing before it: the line stays open */
    assert_int_equal(c.active, 1);

    /* Ctrl-U: everything before the cursor */
    cmdline_open(&c);
    type(&c, "strategy DP8");
    for (int i = 0; i < 3; i++)
        key(&c, TK_LEFT);
    press(&c, TK_CTRL('u'), "DP8", 0);
    key(&c, TK_END);
    press(&c, TK_CTRL('u'), "", 0);

    /* Ctrl-W: the word before the cursor and the blanks after it */
    cmdline_open(&c);
    type(&c, "fail 3,4  ");
    press(&c, TK_CTRL('w'), "fail ", 5);
    press(&c, TK_CTRL('w'), "", 0);
    press(&c, TK_CTRL('w'), "", 0);
    type(&c, "abc def");
    key(&c, TK_LEFT);
    key(&c, TK_LEFT);
    press(&c, TK_CTRL('w'), "abc ef", 4); /* mid-word: the part before the cursor */
}

static void test_enter_and_cancel(void **state)
{
    (void)state;
    cmdline c;
    cmdline_init(&c, ':', NULL, NULL);
    enter(&c, "strategy DP8");
    assert_int_equal(c.active, 0);
    assert_string_equal(c.line, "strategy DP8");
    assert_int_equal(c.nhistory, 1);
    assert_string_equal(c.history[0], "strategy DP8");

    /* no empty lines, no repeat of the last entry; an older one is repeated */
    enter(&c, "");
    assert_int_equal(c.nhistory, 1);
    enter(&c, "strategy DP8");
    assert_int_equal(c.nhistory, 1);
    enter(&c, "quit");
    enter(&c, "strategy DP8");
    assert_int_equal(c.nhistory, 3);
    assert_string_equal(c.history[1], "quit");
    assert_string_equal(c.history[2], "strategy DP8");

    /* Esc cancels and remembers nothing; so does Backspace on an empty line */
    cmdline_open(&c);
    type(&c, "save x");
    assert_int_equal(cmdline_key(&c, TK_ESC), CMDLINE_CANCEL);
    assert_int_equal(c.active, 0);
    assert_int_equal(c.nhistory, 3);
    cmdline_open(&c);
    check(&c, "", 0);
    type(&c, "a");
    key(&c, TK_BACKSPACE);
    assert_int_equal(c.active, 1);
    assert_int_equal(cmdline_key(&c, TK_BACKSPACE), CMDLINE_CANCEL);
    assert_int_equal(c.active, 0);
    assert_int_equal(c.nhistory, 3);

    /* a full history drops the oldest */
    cmdline_init(&c, ':', NULL, NULL);
    char line[16];
    for (int i = 0; i < CMDLINE_HISTORY + 6; i++) {
        snprintf(line, sizeof line, "c%d", i);
        enter(&c, line);
    }
    assert_int_equal(c.nhistory, CMDLINE_HISTORY);
    assert_string_equal(c.history[0], "c6");
    snprintf(line, sizeof line, "c%d", CMDLINE_HISTORY + 5);
    assert_string_equal(c.history[CMDLINE_HISTORY - 1], line);
}

static void test_history_browsing(void **state)
{
    (void)state;
    cmdline c;
    cmdline_init(&c, '/', NULL, NULL);
    cmdline_open(&c);
    key(&c, TK_UP); /* no history yet */
    press(&c, TK_DOWN, "", 0);
    enter(&c, "alpha");
    enter(&c, "beta");
    enter(&c, "gamma");

    cmdline_open(&c);
    type(&c, "xy");
    key(&c, TK_LEFT);
    press(&c, TK_UP, "gamma", 5); /* the cursor goes to the end */
    press(&c, TK_UP, "beta", 4);
    press(&c, TK_UP, "alpha", 5);
    press(&c, TK_UP, "alpha", 5); /* the oldest stays */
    press(&c, TK_DOWN, "beta", 4);
    press(&c, TK_DOWN, "gamma", 5);
    press(&c, TK_DOWN, "xy", 2); /* back to the line being typed */
    press(&c, TK_DOWN, "xy", 2);

    /* an entry edited and entered is a new entry; the old one stays */
    key(&c, TK_UP);
    key(&c, TK_UP);
    type(&c, "!");
    assert_int_equal(cmdline_key(&c, TK_ENTER), CMDLINE_DONE);
    assert_string_equal(c.line, "beta!");
    assert_int_equal(c.nhistory, 4);
    assert_string_equal(c.history[1], "beta");
    assert_string_equal(c.history[3], "beta!");

    /* a new line starts below the newest entry, with nothing kept */
    cmdline_open(&c);
    check(&c, "", 0);
    press(&c, TK_UP, "beta!", 5);
    press(&c, TK_DOWN, "", 0);
}

static void test_completion(void **state)
{
    (void)state;
    cmdline c;
    words_log log = {0};
    cmdline_init(&c, ':', words, &log);

    /* a unique prefix completes, with a blank after it */
    cmdline_open(&c);
    complete(&c, "str", "strategy ", 9, "");
    assert_int_equal(log.calls, 1);
    assert_true(log.cmd_null);

    /* the second word: the command's flags */
    complete(&c, "--p", "strategy --placement ", 21, NULL);
    assert_false(log.cmd_null);
    assert_string_equal(log.cmd, "strategy");

    /* ambiguous: up to the common prefix, the candidates in hint */
    complete(&c, "--c", "strategy --placement --c", 24, "--collective --checkpoint --chunk");
    type(&c, "h");
    assert_string_equal(c.hint, ""); /* any other key clears it */
    complete(&c, "", "strategy --placement --ch", 25, "--checkpoint --chunk");
    complete(&c, "e", "strategy --placement --checkpoint ", 34, "");

    /* an ambiguous prefix that extends: "li" -> "link" */
    cmdline_open(&c);
    complete(&c, "li", "link", 4, "link_util links");
    complete(&c, "s", "links ", 6, "");

    /* nothing matches: nothing changes */
    cmdline_open(&c);
    complete(&c, "zz", "zz", 2, "");

    /* an empty first word offers every command */
    cmdline_open(&c);
    complete(&c, "", "", 0, "strategy search save link_util links quit");

    /* the word before the cursor, in the middle of the line: no blank added */
    cmdline_open(&c);
    type(&c, "s --fix");
    key(&c, TK_HOME);
    key(&c, TK_RIGHT);
    /* "s": three commands, no common extension */
    complete(&c, "", "s --fix", 1, "strategy search save");
    complete(&c, "e", "search --fix", 6, "");

    /* another command's flags; a command with none */
    cmdline_open(&c);
    complete(&c, "search --o", "search --only ", 14, NULL);
    assert_string_equal(log.cmd, "search");
    cmdline_open(&c);
    complete(&c, "quit --", "quit --", 7, NULL);
    assert_string_equal(log.cmd, "quit");

    /* blanks before the command: still the command's flags */
    cmdline_open(&c);
    complete(&c, "  strategy --pl", "  strategy --placement ", 23, NULL);
    assert_false(log.cmd_null);
    assert_string_equal(log.cmd, "strategy");
    cmdline_open(&c);
    complete(&c, "  sa", "  save ", 7, NULL);
    assert_true(log.cmd_null);

    /* no callback: Tab does nothing */
    cmdline_init(&c, '/', NULL, NULL);
    cmdline_open(&c);
    complete(&c, "st", "st", 2, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typing_and_cursor), cmocka_unit_test(test_erasing),
        cmocka_unit_test(test_enter_and_cancel),  cmocka_unit_test(test_history_browsing),
        cmocka_unit_test(test_completion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
