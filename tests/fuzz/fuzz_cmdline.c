/*
 * fuzz_cmdline.c - the `:` line editor (tui/cmdline.c) fed key sequences.
 * A byte 0x01-0x7f is that key (control keys included); 0x00 makes the next
 * byte one of the special keys (arrows, Enter, Esc, Tab, ...); a byte from
 * 0x80 is a character beyond ASCII, which the line refuses. A line that
 * ends (Enter, Esc) opens a new one, so the history fills. Tab completes from
 * a few commands and flags, one of them longer than a line has room for.
 * After every key: the line is printable ASCII of its recorded length, the
 * cursor within it, the history within its bounds.
 */
#include <string.h>

#include "cmdline.h"
#include "fuzz.h"
#include "keys.h"

#define LONG_WORD                                                                                                     \
    "a-very-long-word-that-a-script-could-register-as-a-command-name-to-see-what-completion-does-when-it-"         \
    "cannot-fit-on-the-line-at-all-and-still-goes-on-for-a-while-longer-than-that-so-it-passes-the-edge-of-the-"     \
    "line-buffer-with-room-to-spare-xxxxxxxxxxxxxxxxxxxxxxxx"

static int words(void *ud, const char *cmd, const char **out, int max)
{
    static const char *const names[] = {"strategy", "search", "save", "link_util", "links", LONG_WORD};
    static const char *const flags[] = {"--placement", "--collective", "--checkpoint", "--chunk", "--" LONG_WORD};
    (void)ud;
    const char *const *w = cmd ? flags : names;
    int n = cmd ? (int)(sizeof flags / sizeof flags[0]) : (int)(sizeof names / sizeof names[0]);
    for (int i = 0; i < n && i < max; i++)
        out[i] = w[i];
    return n < max ? n : max;
}

static const int specials[] = {TK_UP,     TK_DOWN,   TK_LEFT,  TK_RIGHT,  TK_HOME, TK_END,    TK_PGUP,
                               TK_PGDN,   TK_BACKSPACE, TK_DELETE, TK_ENTER, TK_ESC, TK_TAB, TK_F1,
                               TK_F10,    TK_RESIZE, TK_MOUSE, TK_SIGNAL, TK_TIMEOUT, TK_NONE};
#define NSPECIALS (sizeof specials / sizeof specials[0])

static void check(const cmdline *c)
{
    if (c->len < 0 || c->len >= CMDLINE_MAX || c->cursor < 0 || c->cursor > c->len)
        fuzz_die("line of %d bytes, cursor at %d", c->len, c->cursor);
    if ((int)strnlen(c->line, CMDLINE_MAX) != c->len)
        fuzz_die("line of %d bytes holds %d", c->len, (int)strnlen(c->line, CMDLINE_MAX));
    for (int i = 0; i < c->len; i++)
        if (c->line[i] < 0x20 || c->line[i] > 0x7e)
            fuzz_die("byte 0x%02x in the line", (unsigned char)c->line[i]);
    if (c->nhistory < 0 || c->nhistory > CMDLINE_HISTORY || c->browsing < 0 || c->browsing > c->nhistory)
        fuzz_die("history of %d, browsing %d", c->nhistory, c->browsing);
    if (!memchr(c->hint, '\0', sizeof c->hint) || !memchr(c->typed, '\0', sizeof c->typed))
        fuzz_die("hint or typed line without its end");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cmdline c; /* 33 KB of history */
    cmdline_init(&c, ':', words, NULL);
    cmdline_open(&c);
    for (size_t i = 0; i < size; i++) {
        int key = data[i];
        if (key == 0 && i + 1 < size)
            key = specials[data[++i] % NSPECIALS];
        else if (key >= 0x80)
            key = 0x80 + (key - 0x80) * 0x2203; /* up to U+10FFFD */
        if (cmdline_key(&c, key) != CMDLINE_EDITING)
            cmdline_open(&c);
        check(&c);
    }
    return 0;
}
