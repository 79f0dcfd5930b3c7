/*
 * cmdline.c - the line editor of the `:` and `/` prompts (see cmdline.h).
 */
#include "cmdline.h"

#include <stdio.h>
#include <string.h>

#include "keys.h"

void cmdline_init(cmdline *c, char prompt, cmdline_words_fn words, void *ud)
{
    memset(c, 0, sizeof *c);
    c->prompt = prompt;
    c->words = words;
    c->words_ud = ud;
}

void cmdline_open(cmdline *c)
{
    c->active = 1;
    c->line[0] = '\0';
    c->len = c->cursor = 0;
    c->browsing = c->nhistory;
    c->hint[0] = '\0';
}

static void set_line(cmdline *c, const char *s)
{
    snprintf(c->line, sizeof c->line, "%s", s);
    c->len = c->cursor = (int)strlen(c->line);
}

static void insert(cmdline *c, const char *s, int n)
{
    if (c->len + n >= CMDLINE_MAX)
        n = CMDLINE_MAX - 1 - c->len;
    if (n <= 0)
        return;
    memmove(c->line + c->cursor + n, c->line + c->cursor, (size_t)(c->len - c->cursor + 1));
    memcpy(c->line + c->cursor, s, (size_t)n);
    c->len += n;
    c->cursor += n;
}

static void erase(cmdline *c, int from, int to)
{
    memmove(c->line + from, c->line + to, (size_t)(c->len - to + 1));
    c->len -= to - from;
    c->cursor = from;
}

static void remember(cmdline *c)
{
    if (!c->len || (c->nhistory && !strcmp(c->history[c->nhistory - 1], c->line)))
        return;
    if (c->nhistory == CMDLINE_HISTORY) {
        memmove(c->history[0], c->history[1], sizeof c->history[0] * (CMDLINE_HISTORY - 1));
        c->nhistory--;
    }
    memcpy(c->history[c->nhistory++], c->line, sizeof c->line);
}

static void browse(cmdline *c, int step)
{
    int to = c->browsing + step;
    if (to < 0 || to > c->nhistory)
        return;
    if (c->browsing == c->nhistory)
        memcpy(c->typed, c->line, sizeof c->line);
    c->browsing = to;
    set_line(c, to == c->nhistory ? c->typed : c->history[to]);
}

/* Tab: the word before the cursor, completed from the offered words to the
 * longest common prefix of those it starts; the ambiguous ones go to hint. */
static void complete(cmdline *c)
{
    c->hint[0] = '\0';
    if (!c->words)
        return;
    int start = c->cursor;
    while (start > 0 && c->line[start - 1] != ' ')
        start--;
    char first[CMDLINE_MAX];
    const char *cmd = c->line + strspn(c->line, " "); /* commands may follow blanks */
    int first_len = (int)strcspn(cmd, " ");
    snprintf(first, sizeof first, "%.*s", first_len, cmd);
    int is_first = 1;
    for (int i = 0; i < start; i++)
        if (c->line[i] != ' ')
            is_first = 0;
    const char *words[128];
    int n = c->words(c->words_ud, is_first ? NULL : first, words, 128);
    const char *prefix = c->line + start;
    int plen = c->cursor - start, nmatch = 0, common = 0;
    const char *match = NULL;
    for (int i = 0; i < n; i++) {
        if (strncmp(words[i], prefix, (size_t)plen))
            continue;
        if (!match) {
            match = words[i];
            common = (int)strlen(match);
        } else {
            int k = 0;
            while (k < common && words[i][k] == match[k])
                k++;
            common = k;
        }
        size_t used = strlen(c->hint);
        if (used + strlen(words[i]) + 2 < sizeof c->hint)
            snprintf(c->hint + used, sizeof c->hint - used, "%s%s", used ? " " : "", words[i]);
        nmatch++;
    }
    if (!match)
        return;
    insert(c, match + plen, common - plen);
    if (nmatch == 1) {
        c->hint[0] = '\0';
        if (c->cursor == c->len)
            insert(c, " ", 1);
    }
}

int cmdline_key(cmdline *c, int key)
{
    if (key != TK_TAB)
        c->hint[0] = '\0';
    switch (key) {
    case TK_ESC:
        c->active = 0;
        return CMDLINE_CANCEL;
    case TK_ENTER:
        c->active = 0;
        remember(c);
        return CMDLINE_DONE;
    case TK_BACKSPACE:
        if (!c->len) {
            c->active = 0;
            return CMDLINE_CANCEL;
        }
        if (c->cursor > 0)
            erase(c, c->cursor - 1, c->cursor);
        break;
    case TK_DELETE:
    case TK_CTRL('d'):
        if (c->cursor < c->len)
            erase(c, c->cursor, c->cursor + 1);
        break;
    case TK_LEFT:
    case TK_CTRL('b'):
        c->cursor -= c->cursor > 0;
        break;
    case TK_RIGHT:
    case TK_CTRL('f'):
        c->cursor += c->cursor < c->len;
        break;
    case TK_HOME:
    case TK_CTRL('a'):
        c->cursor = 0;
        break;
    case TK_END:
    case TK_CTRL('e'):
        c->cursor = c->len;
        break;
    case TK_CTRL('u'):
        erase(c, 0, c->cursor);
        break;
    case TK_CTRL('w'): {
        int from = c->cursor;
        while (from > 0 && c->line[from - 1] == ' ')
            from--;
        while (from > 0 && c->line[from - 1] != ' ')
            from--;
        erase(c, from, c->cursor);
        break;
    }
    case TK_UP:
        browse(c, -1);
        break;
    case TK_DOWN:
        browse(c, 1);
        break;
    case TK_TAB:
        complete(c);
        break;
    default:
        if (key >= 0x20 && key < 0x7f) {
            char ch = (char)key;
            insert(c, &ch, 1);
        }
    }
    return CMDLINE_EDITING;
}
