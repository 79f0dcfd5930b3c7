/*
 * fuzz_fault.c - the fault parser (engine/wafer.c wafer_parse_fault) as
 * `--fail` and `:fail` read it: any text. The flag's check and the parser
 * agree; a fault that parses is applied to a copy of the default layout's
 * wafer, which fails it (a unit is then dead) or refuses it in one line
 * (off the mesh, a link that leaves it).
 */
#include <stdlib.h>

#include "cli.h"
#include "fuzz.h"
#include "layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wafer base;
    static int loaded;
    wt_err e = {{0}};
    if (!loaded && layout_load("layouts/default.yaml", &base, &e) != WT_OK)
        fuzz_die("run from the repository's root: %s", e.msg);
    loaded = 1;
    char *text = fuzz_text(data, size, '\n');
    if (!text)
        return 0;
    int x, y, dir;
    char bad = 0;
    int rc = wafer_parse_fault(text, &x, &y, &dir, &bad);
    int flag = cli_check_flag("fail", text, &e);
    if ((rc == 0) != (flag == WT_OK))
        fuzz_die("'%s': the parser says %d, --fail says %d", text, rc, flag);
    if (rc != 0) {
        fuzz_check_err(&e, "--fail");
        if (rc == -2 && wafer_dir_parse(bad) >= 0)
            fuzz_die("'%s' refused for its direction '%c', a direction", text, bad);
    } else {
        wafer wf;
        if (wafer_copy(&wf, &base, &e) != WT_OK)
            fuzz_die("%s", e.msg);
        e.msg[0] = '\0';
        if ((dir < 0 ? wafer_fail_unit(&wf, x, y, &e) : wafer_fail_link(&wf, x, y, dir, &e)) != WT_OK)
            fuzz_check_err(&e, NULL);
        else if (dir < 0 && !wf.unit_dead[wafer_unit(&wf, x, y)])
            fuzz_die("'%s': the unit failed is alive", text);
        wafer_free(&wf);
    }
    free(text);
    return 0;
}
