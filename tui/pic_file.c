/*
 * pic_file.c - a picture into a file: PNG through libpng's simplified API
 * (the raster, 8-bit RGB), SVG as text (each primitive an element, the
 * pixels crisp). The extension picks the format.
 */
#include <ctype.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "picture.h"

int pic_format_of(const char *path, const char *who, int *format, wt_err *e)
{
    static const struct {
        const char *ext;
        int format;
    } known[] = {{".png", PIC_PNG}, {".svg", PIC_SVG}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t k = strlen(known[i].ext);
        int same = n > k;
        for (size_t j = 0; same && j < k; j++)
            same = tolower((unsigned char)path[n - k + j]) == known[i].ext[j];
        if (same) {
            *format = known[i].format;
            return WT_OK;
        }
    }
    return wt_fail(e, "%s: '%s' does not end in .png or .svg (the extension picks the format)", who, path);
}

/* What the writers are handed. */
typedef struct pic_out {
    const picture *p;
    const char *who;
} pic_out;

static int put_png(FILE *f, void *ud, wt_err *e)
{
    const pic_out *o = ud;
    uint8_t *px = pic_render(o->p);
    if (!px)
        return wt_oom(e, "picture");
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)o->p->w;
    img.height = (png_uint_32)o->p->h;
    img.format = PNG_FORMAT_RGB;
    int ok = png_image_write_to_stdio(&img, f, 0, px, 3 * o->p->w, NULL);
    free(px);
    if (!ok)
        return wt_fail(e, "%s: PNG: %s", o->who, img.message);
    return WT_OK;
}

static void colour(FILE *f, const char *attr, rgb c)
{
    fprintf(f, " %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
}

/* Text as XML character data: printable ASCII, the rest as the PNG's '?'. */
static void escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        char c = *s >= ' ' && *s <= '~' ? *s : '?';
        if (c == '&')
            fputs("&amp;", f);
        else if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else
            fputc(c, f);
    }
}

static int put_svg(FILE *f, void *ud, wt_err *e)
{
    (void)e;
    const picture *p = ((const pic_out *)ud)->p;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
               " shape-rendering=\"crispEdges\">\n",
            p->w, p->h, p->w, p->h);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"", p->w, p->h);
    colour(f, "fill", p->background);
    fputs("/>\n", f);
    for (size_t i = 0; i < p->n; i++) {
        const pic_item *it = &p->items[i];
        if (it->kind == PIC_RECT) {
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", it->x, it->y, it->w, it->h);
            colour(f, "fill", it->colour);
            fputs("/>\n", f);
        } else if (it->kind == PIC_LINE) { /* through the pixels' centres, as the raster draws it */
            fprintf(f, "<line x1=\"%d.5\" y1=\"%d.5\" x2=\"%d.5\" y2=\"%d.5\"", it->x, it->y, it->x + it->w,
                    it->y + it->h);
            fputs(" stroke-width=\"1\" stroke-linecap=\"square\"", f);
            colour(f, "stroke", it->colour);
            fputs("/>\n", f);
        } else {
            /* the raster's cells: PIC_ASCENT font pixels above the baseline, PIC_CHAR_W apart */
            const char *s = p->text + it->text;
            int sc = it->scale;
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-family=\"monospace\" font-size=\"%d\" textLength=\"%d\""
                       " lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\"",
                    it->x, it->y + PIC_ASCENT * sc, 10 * sc, pic_text_width(s, sc) - sc);
            colour(f, "fill", it->colour);
            fputc('>', f);
            escaped(f, s);
            fputs("</text>\n", f);
        }
    }
    fputs("</svg>\n", f);
    return WT_OK;
}

int pic_write(const picture *p, const char *path, const char *who, wt_err *e)
{
    int format;
    int rc = pic_format_of(path, who, &format, e);
    if (rc != WT_OK)
        return rc;
    if (p->oom)
        return wt_oom(e, "picture");
    pic_out o = {p, who};
    return atomic_write(path, who, format == PIC_PNG ? put_png : put_svg, &o, e);
}
