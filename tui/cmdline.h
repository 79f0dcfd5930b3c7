/*
 * cmdline.h - the `:` and `/` line editor: the line, its cursor, a history
 * (up and down), and Tab completion of the word before the cursor from the
 * words a callback offers (command names for the first word, the flags of
 * the command for a word starting with "-"). Pure: keys come as keys.h
 * values, nothing is drawn here.
 *
 * The line holds printable ASCII only (commands, numbers, paths); other
 * characters are refused.
 */
#ifndef WT_CMDLINE_H
#define WT_CMDLINE_H

#define CMDLINE_MAX 256
#define CMDLINE_HISTORY 64

/* Offers completion words: cmd is NULL for the first word, else the line's
 * first word (the command whose flags are wanted). Fills up to max pointers
 * (valid until the next call) and returns the count. */
typedef int (*cmdline_words_fn)(void *ud, const char *cmd, const char **words, int max);

typedef struct cmdline {
    char prompt;                 /* ':' or '/' */
    int active;
    char line[CMDLINE_MAX];
    int len, cursor;             /* bytes = columns */
    char history[CMDLINE_HISTORY][CMDLINE_MAX];
    int nhistory;                /* oldest first */
    int browsing;                /* the history entry shown, nhistory = the line being typed */
    char typed[CMDLINE_MAX];     /* the line being typed, while browsing */
    char hint[CMDLINE_MAX];      /* the candidates of an ambiguous Tab, or "" */
    cmdline_words_fn words;
    void *words_ud;
} cmdline;

enum { CMDLINE_EDITING = 0, CMDLINE_DONE, CMDLINE_CANCEL };

void cmdline_init(cmdline *c, char prompt, cmdline_words_fn words, void *ud);
/* Starts a new empty line. */
void cmdline_open(cmdline *c);
/* Handles a key. DONE: line holds the command (also added to the history)
 * and the editor is closed; CANCEL: closed by Esc (or by Backspace on an
 * empty line). */
int cmdline_key(cmdline *c, int key);

#endif
