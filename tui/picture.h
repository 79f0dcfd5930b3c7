/*
 * picture.h - a picture as a list of primitives (filled rectangles, one-pixel
 * lines, text in a built-in bitmap font) on a background, written as PNG
 * (rasterised, through libpng) or SVG (the primitives as <rect>, <line> and
 * <text>). Coordinates are pixels from the top-left corner; both formats put
 * every primitive on the same pixels, so a layout is computed once.
 *
 * Drawing calls never fail: out of memory, the picture remembers it and
 * pic_write reports it. The picture owns its items; pic_free frees them.
 */
#ifndef WT_PICTURE_H
#define WT_PICTURE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "theme.h"

/* A character cell of the font at scale 1: a glyph 5 pixels wide, 7 above
 * the baseline (PIC_ASCENT) and 2 below, then a column and a row of space.
 * Text at scale s is PIC_CHAR_W * s wide per character. */
#define PIC_CHAR_W 6
#define PIC_CHAR_H 10
#define PIC_ASCENT 7
#define PIC_GLYPH_H 9

enum pic_kind { PIC_RECT, PIC_LINE, PIC_TEXT };

typedef struct pic_item {
    int kind;           /* enum pic_kind */
    int x, y, w, h;     /* rect: its box; line: from (x, y) to (x + w, y + h); text: the top-left
                         * of its first cell (w unused) */
    int scale;          /* text: pixels per font pixel */
    rgb colour;
    size_t text;        /* text: offset of its characters in the picture's text */
} pic_item;

typedef struct picture {
    int w, h;           /* pixels */
    rgb background;
    pic_item *items;    /* n, drawn in order, owned */
    size_t n, cap;
    char *text;         /* the items' strings, NUL-terminated one after another, owned */
    size_t ntext, captext;
    int oom;            /* a drawing call ran out of memory */
} picture;

/* An empty w x h picture. */
void pic_init(picture *p, int w, int h, rgb background);
void pic_free(picture *p);

void pic_rect(picture *p, int x, int y, int w, int h, rgb c);
void pic_line(picture *p, int x0, int y0, int x1, int y1, rgb c);
/* Printable ASCII (others show as '?') from (x, y), the top-left of the
 * first character cell. */
void pic_text(picture *p, int x, int y, int scale, rgb c, const char *s);

/* The width in pixels of s at a scale. */
static inline int pic_text_width(const char *s, int scale)
{
    return (int)strlen(s) * PIC_CHAR_W * scale;
}

/* The PIC_GLYPH_H rows of the glyph of c, top first, bit 4 the leftmost
 * column (pic_font.c). */
const uint8_t *pic_glyph(char c);

/* The picture as w x h RGB pixels, row by row (3 bytes a pixel), into a
 * buffer the caller frees; NULL out of memory. */
uint8_t *pic_render(const picture *p);

/* The formats, by the extension of a path. */
enum pic_format { PIC_PNG, PIC_SVG };

/* The format of path (".png" or ".svg", any case), or an error naming who
 * (a flag, a command) when the extension is another. */
int pic_format_of(const char *path, const char *who, int *format, wt_err *e);

/* Writes p to path in the format its extension names, atomically (a
 * temporary file beside it, renamed over it); errors start with who. */
int pic_write(const picture *p, const char *path, const char *who, wt_err *e);

#endif
