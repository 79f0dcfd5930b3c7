/*
 * fuzz_strategy.c - the strategy parser (engine/strategy.c): any text as a
 * strategy with its options, "TEXT;name=value;...", as a layout's strategy:
 * field or a compare side gives it. Refused: a one-line message. Accepted:
 * its text form parses back to the same dimensions, and resolving it against
 * the default layout and model either succeeds or says why in one line.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "layout.h"
#include "strategy.h"

/* The stock default layout and model, loaded once. */
static const wafer *default_wafer(const model **m)
{
    static wafer wf;
    static model gpt;
    static int loaded;
    wt_err e;
    if (!loaded && (layout_load("layouts/default.yaml", &wf, &e) != WT_OK || model_preset("gpt3-6.7b", &gpt) != 0))
        fuzz_die("run from the repository's root: %s", e.msg);
    loaded = 1;
    *m = &gpt;
    return &wf;
}

static void same_dims(const strategy *a, const strategy *b, const char *text)
{
    if (a->dp != b->dp || a->tp != b->tp || a->sp != b->sp || a->pp != b->pp || a->tatp != b->tatp ||
        (a->grid_given && (a->tatp_w != b->tatp_w || a->tatp_h != b->tatp_h)))
        fuzz_die("'%s' reads back as another strategy", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size, '\n');
    if (!text)
        return 0;
    strategy s;
    wt_err e = {{0}};
    if (strategy_spec(text, &s, &e) != WT_OK) {
        fuzz_check_err(&e, NULL);
        free(text);
        return 0;
    }
    char buf[128];
    strategy back;
    strategy_defaults(&back);
    strategy_format(&s, buf, sizeof buf);
    if (strategy_parse(buf, &back, &e) != WT_OK)
        fuzz_die("'%s' is written as '%s', which does not parse: %s", text, buf, e.msg);
    same_dims(&s, &back, buf);
    const model *m;
    const wafer *wf = default_wafer(&m);
    e.msg[0] = '\0';
    if (strategy_resolve(&s, m, wf, &e) != WT_OK)
        fuzz_check_err(&e, NULL);
    free(text);
    return 0;
}
