/* The picture library (tui/picture.h): the raster of each primitive, pixel
 * by pixel, and the formats the extensions pick. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "picture.h"

static const rgb black = {0, 0, 0}, red = {255, 0, 0}, white = {255, 255, 255};

static int is(const uint8_t *px, int w, int x, int y, rgb c)
{
    const uint8_t *p = px + 3 * ((size_t)y * (size_t)w + (size_t)x);
    return p[0] == c.r && p[1] == c.g && p[2] == c.b;
}

/* A rectangle covers its box and no more; later items paint over earlier
 * ones; what lies outside the picture is clipped. */
static void test_rects(void **state)
{
    (void)state;
    picture p;
    pic_init(&p, 8, 6, black);
    pic_rect(&p, 1, 2, 3, 2, red);
    pic_rect(&p, 3, 3, 10, 10, white);
    uint8_t *px = pic_render(&p);
    assert_non_null(px);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 8; x++) {
            rgb want = x >= 3 && y >= 3 ? white : x >= 1 && x < 4 && y >= 2 && y < 4 ? red : black;
            assert_true(is(px, 8, x, y, want));
        }
    free(px);
    pic_free(&p);
}

/* A line's pixels, both ends included: a diagonal is one pixel a row. */
static void test_lines(void **state)
{
    (void)state;
    picture p;
    pic_init(&p, 5, 5, black);
    pic_line(&p, 4, 0, 0, 4, red);
    uint8_t *px = pic_render(&p);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++)
            assert_true(is(px, 5, x, y, x + y == 4 ? red : black));
    free(px);
    pic_free(&p);
}

/* Text is the font's glyphs, scale x scale pixels each, PIC_CHAR_W * scale
 * apart; characters outside printable ASCII show as '?'. */
static void test_text(void **state)
{
    (void)state;
    picture p;
    int s = 2, w = 3 * PIC_CHAR_W * s, h = PIC_CHAR_H * s;
    pic_init(&p, w, h, black);
    pic_text(&p, 0, 0, s, white, "A\x01g");
    assert_int_equal(pic_text_width("A\x01g", s), w);
    uint8_t *px = pic_render(&p);
    const char want[] = "A?g";
    for (int i = 0; i < 3; i++) {
        const uint8_t *g = pic_glyph(want[i]);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < PIC_CHAR_W * s; x++) {
                int row = y / s, col = x / s;
                int on = row < PIC_GLYPH_H && col < 5 && (g[row] & (0x10 >> col));
                assert_true(is(px, w, i * PIC_CHAR_W * s + x, y, on ? white : black));
            }
    }
    free(px);
    pic_free(&p);
}

static void test_formats(void **state)
{
    (void)state;
    int f = -1;
    wt_err e;
    assert_int_equal(pic_format_of("a/heat.png", "--out", &f, &e), WT_OK);
    assert_int_equal(f, PIC_PNG);
    assert_int_equal(pic_format_of("HEAT.SVG", "--out", &f, &e), WT_OK);
    assert_int_equal(f, PIC_SVG);
    const char *bad[] = {"heat.jpg", "heat.png.txt", ".png", "heat", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(pic_format_of(bad[i], "export", &f, &e), WT_EINPUT);
        assert_true(!strncmp(e.msg, "export: ", 8));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rects),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
