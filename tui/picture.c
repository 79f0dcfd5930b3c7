/*
 * picture.c - a picture's primitives, and their raster for PNG. Pixels
 * outside the picture are clipped.
 */
#include "picture.h"

#include <stdlib.h>
#include <string.h>

void pic_init(picture *p, int w, int h, rgb background)
{
    memset(p, 0, sizeof *p);
    p->w = w > 0 ? w : 1;
    p->h = h > 0 ? h : 1;
    p->background = background;
}

void pic_free(picture *p)
{
    free(p->items);
    free(p->text);
    memset(p, 0, sizeof *p);
}

/* A new item at the end for the caller to fill, or NULL (p->oom set). */
static pic_item *add(picture *p)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        pic_item *items = realloc(p->items, cap * sizeof *items);
        if (!items) {
            p->oom = 1;
            return NULL;
        }
        p->items = items;
        p->cap = cap;
    }
    return &p->items[p->n++];
}

void pic_rect(picture *p, int x, int y, int w, int h, rgb c)
{
    pic_item *it = w > 0 && h > 0 ? add(p) : NULL;
    if (it)
        *it = (pic_item){.kind = PIC_RECT, .x = x, .y = y, .w = w, .h = h, .colour = c};
}

void pic_line(picture *p, int x0, int y0, int x1, int y1, rgb c)
{
    pic_item *it = add(p);
    if (it)
        *it = (pic_item){.kind = PIC_LINE, .x = x0, .y = y0, .w = x1 - x0, .h = y1 - y0, .colour = c};
}

void pic_text(picture *p, int x, int y, int scale, rgb c, const char *s)
{
    if (!*s)
        return;
    size_t len = strlen(s) + 1;
    if (p->ntext + len > p->captext) {
        size_t cap = p->captext ? 2 * p->captext : 4096;
        while (cap < p->ntext + len)
            cap *= 2;
        char *text = realloc(p->text, cap);
        if (!text) {
            p->oom = 1;
            return;
        }
        p->text = text;
        p->captext = cap;
    }
    pic_item *it = add(p);
    if (!it)
        return;
    *it = (pic_item){.kind = PIC_TEXT, .x = x, .y = y, .scale = scale > 0 ? scale : 1, .colour = c, .text = p->ntext};
    memcpy(p->text + p->ntext, s, len);
    p->ntext += len;
}

/* ---- the raster ---- */

static void fill(const picture *p, uint8_t *px, int x, int y, int w, int h, rgb c)
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + w > p->w ? p->w : x + w, y1 = y + h > p->h ? p->h : y + h;
    for (int j = y0; j < y1; j++)
        for (int i = x0; i < x1; i++) {
            uint8_t *q = px + 3 * ((size_t)j * (size_t)p->w + (size_t)i);
            q[0] = c.r;
            q[1] = c.g;
            q[2] = c.b;
        }
}

/* Bresenham: every pixel the line crosses, both ends included. */
static void line(const picture *p, uint8_t *px, const pic_item *it)
{
    int x = it->x, y = it->y, x1 = it->x + it->w, y1 = it->y + it->h;
    int dx = abs(x1 - x), dy = -abs(y1 - y), sx = x < x1 ? 1 : -1, sy = y < y1 ? 1 : -1, err = dx + dy;
    for (;;) {
        fill(p, px, x, y, 1, 1, it->colour);
        if (x == x1 && y == y1)
            return;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y += sy;
        }
    }
}

static void text(const picture *p, uint8_t *px, const pic_item *it)
{
    int s = it->scale, x = it->x;
    for (const char *c = p->text + it->text; *c; c++, x += PIC_CHAR_W * s) {
        const uint8_t *g = pic_glyph(*c);
        for (int row = 0; row < PIC_GLYPH_H; row++)
            for (int col = 0; col < 5; col++)
                if (g[row] & (0x10 >> col))
                    fill(p, px, x + col * s, it->y + row * s, s, s, it->colour);
    }
}

uint8_t *pic_render(const picture *p)
{
    uint8_t *px = malloc(3 * (size_t)p->w * (size_t)p->h);
    if (!px)
        return NULL;
    fill(p, px, 0, 0, p->w, p->h, p->background);
    for (size_t i = 0; i < p->n; i++) {
        const pic_item *it = &p->items[i];
        if (it->kind == PIC_RECT)
            fill(p, px, it->x, it->y, it->w, it->h, it->colour);
        else if (it->kind == PIC_LINE)
            line(p, px, it);
        else
            text(p, px, it);
    }
    return px;
}
