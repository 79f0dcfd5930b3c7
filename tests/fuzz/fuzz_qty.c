/*
 * fuzz_qty.c - the quantity parser (engine/qty.c). The first byte picks the
 * kind (bytes, bandwidth, time, FLOP/s), the rest is the text, as a layout
 * value or a flag gives it. Refused: a reason. Accepted: qty_format writes
 * it in three significant digits, and that text reads back within half a
 * unit of its last digit. The text is also read as a plain number.
 */
#include <math.h>
#include <stdlib.h>

#include "fuzz.h"
#include "qty.h"

static const qty_kind kinds[] = {QTY_BYTES, QTY_BANDWIDTH, QTY_TIME, QTY_FLOPS};
#define NKINDS (sizeof kinds / sizeof kinds[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    qty_kind k = kinds[data[0] % NKINDS];
    char *text = fuzz_text(data + 1, size - 1, '\n');
    if (!text)
        return 0;
    double v, back, num;
    char why[160] = "", buf[64];
    qty_number(text, &num);
    if (qty_parse(text, k, &v, why, sizeof why) != 0) {
        if (!why[0])
            fuzz_die("'%s' refused without a reason", text);
        free(text);
        return 0;
    }
    qty_format(v, k, buf, sizeof buf);
    if (isfinite(v)) {
        if (qty_parse(buf, k, &back, why, sizeof why) != 0)
            fuzz_die("'%s' is written as '%s', which does not parse: %s", text, buf, why);
        /* three significant digits: within 0.5 % (subnormals aside) */
        if (fabs(back - v) > 0.005 * fabs(v) + 1e-300)
            fuzz_die("'%s' (%.17g) is written as '%s', which reads %.17g", text, v, buf, back);
    }
    free(text);
    return 0;
}
