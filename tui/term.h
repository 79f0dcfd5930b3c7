/*
 * term.h - the thin ncurses layer: opens the terminal, copies a canvas to it
 * (only the cells that changed, one doupdate per frame), reads keys and
 * clicks, and restores the terminal on exit, on a fatal signal and on
 * Ctrl-C. The only file that includes curses.h.
 *
 * Colour: 256-colour terminals get each logical colour as its nearest in the
 * colour cube or the grey ramp, 16- and 8-colour ones their nearest basic
 * colour. NO_COLOR (set and not empty) or a terminal without colour gives
 * monochrome: the views then draw glyph density instead of colour.
 */
#ifndef WT_TERM_H
#define WT_TERM_H

#include <signal.h>

#include "canvas.h"
#include "err.h"
#include "keys.h"
#include "theme.h"

/* Opens the screen. *ncolours is 256, 16 or 8, or 0 for monochrome. */
int term_open(int *ncolours, wt_err *e);
/* Restores the terminal; safe to call twice. */
void term_close(void);

void term_size(int *w, int *h);
/* Maps the theme's colours to the terminal's; the next show repaints all. */
void term_set_theme(const theme *th);
/* Copies the canvas (the size of the screen) to the terminal. */
void term_show(const canvas *c);
/* Waits up to timeout_ms (-1: forever) for a key, a click, a resize or a
 * signal. */
void term_read(int timeout_ms, key_event *ev);
void term_mouse(int on);
/* The signal that ended the screen (after TK_SIGNAL). */
int term_signal(void);
/* The flag a stop signal sets (non-zero: the signal), for code that must
 * notice it without reading keys (a running Lua script). The loop has one
 * second after the signal to end the screen; then the terminal is given
 * back and the program exits with 128 + the signal, whatever runs. */
const volatile sig_atomic_t *term_stop_flag(void);

#endif
