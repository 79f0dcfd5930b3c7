/*
 * keys.h - what the terminal layer reports: a Unicode character (below
 * 0x110000) or one of the special keys and events above, so that the key
 * handlers and the command line are testable without curses.
 */
#ifndef WT_KEYS_H
#define WT_KEYS_H

enum {
    TK_NONE = 0,
    TK_SPECIAL = 0x110000,
    TK_UP, TK_DOWN, TK_LEFT, TK_RIGHT, TK_HOME, TK_END, TK_PGUP, TK_PGDN,
    TK_BACKSPACE, TK_DELETE, TK_ENTER, TK_ESC, TK_TAB, TK_F1, TK_F10,
    TK_RESIZE,    /* the terminal changed size */
    TK_MOUSE,     /* a click; where is in the event */
    TK_SIGNAL,    /* SIGINT, SIGTERM or SIGHUP arrived */
    TK_TIMEOUT    /* nothing happened before the timeout */
};

/* Control-letter codes as characters. */
#define TK_CTRL(c) ((c) & 0x1f)

typedef struct key_event {
    int key;         /* a character or a TK_* value */
    int mx, my;      /* TK_MOUSE: the cell clicked */
} key_event;

#endif
