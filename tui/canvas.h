/*
 * canvas.h - a terminal-independent grid of cells (a glyph, a foreground and
 * a background colour, attributes) that the screen draws into; term.c copies
 * it to the terminal, tests read it back.
 *
 * Colours are logical (theme.h: the named colours and the 101 steps of the
 * gradient), mapped to terminal colours only when the canvas is shown.
 */
#ifndef WT_CANVAS_H
#define WT_CANVAS_H

#include <stddef.h>
#include <stdint.h>

enum { CA_BOLD = 1, CA_REVERSE = 2, CA_UNDERLINE = 4 };

typedef struct canvas_cell {
    uint32_t ch;       /* a Unicode code point of width 1 */
    uint8_t fg, bg;    /* logical colours */
    uint8_t attr;      /* CA_* */
} canvas_cell;

typedef struct canvas {
    int w, h;
    canvas_cell *cells; /* w * h, row-major, owned */
} canvas;

/* Makes the canvas w x h (cleared); 0 or -1 when memory runs out. */
int canvas_resize(canvas *c, int w, int h);
void canvas_free(canvas *c);
void canvas_clear(canvas *c, uint8_t fg, uint8_t bg);

/* Cells outside the canvas are ignored by every drawing function. */
void canvas_put(canvas *c, int x, int y, uint32_t ch, uint8_t fg, uint8_t bg, uint8_t attr);
void canvas_fill(canvas *c, int x, int y, int w, int h, uint32_t ch, uint8_t fg, uint8_t bg);
/* UTF-8 text from (x, y), at most maxw columns; returns the columns used. */
int canvas_text(canvas *c, int x, int y, int maxw, const char *s, uint8_t fg, uint8_t bg, uint8_t attr);
int canvas_printf(canvas *c, int x, int y, int maxw, uint8_t fg, uint8_t bg, uint8_t attr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 8, 9)))
#endif
    ;
/* Sets attr on the cells of a rectangle (a highlight). */
void canvas_attr(canvas *c, int x, int y, int w, int h, uint8_t attr);

const canvas_cell *canvas_at(const canvas *c, int x, int y);
/* Row y as UTF-8 (for tests and logs), trailing spaces kept; returns buf. */
char *canvas_row(const canvas *c, int y, char *buf, size_t n);
/* 1 when the text appears somewhere on the canvas. */
int canvas_find(const canvas *c, const char *text);

#endif
