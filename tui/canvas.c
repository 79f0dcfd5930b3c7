#include "canvas.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int canvas_resize(canvas *c, int w, int h)
{
    if (w < 1)
        w = 1;
    if (h < 1)
        h = 1;
    canvas_cell *cells = calloc((size_t)w * (size_t)h, sizeof *cells);
    if (!cells)
        return -1;
    free(c->cells);
    c->cells = cells;
    c->w = w;
    c->h = h;
    canvas_clear(c, 0, 0);
    return 0;
}

void canvas_free(canvas *c)
{
    free(c->cells);
    c->cells = NULL;
    c->w = c->h = 0;
}

void canvas_clear(canvas *c, uint8_t fg, uint8_t bg)
{
    for (size_t i = 0; i < (size_t)c->w * (size_t)c->h; i++)
        c->cells[i] = (canvas_cell){' ', fg, bg, 0};
}

void canvas_put(canvas *c, int x, int y, uint32_t ch, uint8_t fg, uint8_t bg, uint8_t attr)
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return;
    c->cells[(size_t)y * (size_t)c->w + (size_t)x] = (canvas_cell){ch, fg, bg, attr};
}

void canvas_fill(canvas *c, int x, int y, int w, int h, uint32_t ch, uint8_t fg, uint8_t bg)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            canvas_put(c, i, j, ch, fg, bg, 0);
}

/* The next code point of UTF-8 text (advancing *s); '?' for a bad byte. */
static uint32_t next_utf8(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    uint32_t cp;
    int n;
    if (p[0] < 0x80) {
        cp = p[0];
        n = 1;
    } else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
        cp = (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
        n = 2;
    } else if ((p[0] & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        cp = (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
        n = 3;
    } else if ((p[0] & 0xF8) == 0xF0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
        cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 | (uint32_t)(p[2] & 0x3F) << 6 |
             (p[3] & 0x3F);
        n = 4;
    } else {
        cp = '?';
        n = 1;
    }
    *s += n;
    return cp;
}

/* What a code point takes on a terminal: 0 (controls, combining marks,
 * zero-width), 2 (East Asian wide and emoji), else 1. The ranges, not
 * wcwidth, so that the canvas does not depend on the locale. */
static int cell_width(uint32_t cp)
{
    static const uint32_t zero[][2] = {
        {0x00, 0x1F},     {0x7F, 0x9F},     {0x300, 0x36F},   {0x200B, 0x200F}, {0x2028, 0x202E},
        {0x2060, 0x206F}, {0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}, {0x1AB0, 0x1AFF}, {0x20D0, 0x20FF},
    };
    static const uint32_t wide[][2] = {
        {0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
        {0xA000, 0xA4CF},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE30, 0xFE4F}, {0xFF00, 0xFF60},
        {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD},
    };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        if (cp >= zero[i][0] && cp <= zero[i][1])
            return 0;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (cp >= wide[i][0] && cp <= wide[i][1])
            return 2;
    return 1;
}

int canvas_text(canvas *c, int x, int y, int maxw, const char *s, uint8_t fg, uint8_t bg, uint8_t attr)
{
    int used = 0;
    while (*s && used < maxw) {
        uint32_t cp = next_utf8(&s);
        if (cp == '\n' || cp == '\t')
            cp = ' ';
        int width = cell_width(cp);
        if (width == 0) /* controls and marks would shift the columns after them */
            continue;
        canvas_put(c, x + used++, y, width == 1 ? cp : '?', fg, bg, attr);
    }
    return used;
}

int canvas_printf(canvas *c, int x, int y, int maxw, uint8_t fg, uint8_t bg, uint8_t attr, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return canvas_text(c, x, y, maxw, buf, fg, bg, attr);
}

void canvas_attr(canvas *c, int x, int y, int w, int h, uint8_t attr)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            if (i >= 0 && j >= 0 && i < c->w && j < c->h)
                c->cells[(size_t)j * (size_t)c->w + (size_t)i].attr |= attr;
}

const canvas_cell *canvas_at(const canvas *c, int x, int y)
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return NULL;
    return &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
}

/* Appends code point cp as UTF-8 to buf at *len (n bytes in all); -1 when
 * it does not fit (a shorter one further on must not, or a row would read
 * as text that is not on the screen). */
static int put_utf8(char *buf, size_t n, size_t *len, uint32_t cp)
{
    char tmp[4];
    int k;
    if (cp < 0x80) {
        tmp[0] = (char)cp;
        k = 1;
    } else if (cp < 0x800) {
        tmp[0] = (char)(0xC0 | cp >> 6);
        tmp[1] = (char)(0x80 | (cp & 0x3F));
        k = 2;
    } else if (cp < 0x10000) {
        tmp[0] = (char)(0xE0 | cp >> 12);
        tmp[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        tmp[2] = (char)(0x80 | (cp & 0x3F));
        k = 3;
    } else {
        tmp[0] = (char)(0xF0 | cp >> 18);
        tmp[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        tmp[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        tmp[3] = (char)(0x80 | (cp & 0x3F));
        k = 4;
    }
    if (*len + (size_t)k >= n)
        return -1;
    memcpy(buf + *len, tmp, (size_t)k);
    *len += (size_t)k;
    return 0;
}

char *canvas_row(const canvas *c, int y, char *buf, size_t n)
{
    size_t len = 0;
    for (int x = 0; x < c->w && y >= 0 && y < c->h; x++)
        if (put_utf8(buf, n, &len, c->cells[(size_t)y * (size_t)c->w + (size_t)x].ch))
            break;
    buf[len < n ? len : n - 1] = '\0';
    return buf;
}

int canvas_find(const canvas *c, const char *text)
{
    char row[4096];
    for (int y = 0; y < c->h; y++)
        if (strstr(canvas_row(c, y, row, sizeof row), text))
            return 1;
    return 0;
}
