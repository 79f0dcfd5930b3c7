/*
 * fuzz_scenario.c - the scenario loader (tui/scenario.c): any bytes as the
 * file of `--scenario FILE`. Refused: one line starting with the file's
 * path. Accepted: flags that the command line of `tune` and `ui` takes as
 * they are, since every value was checked as its flag when it was read.
 */
#include <stdlib.h>

#include "cli.h"
#include "fuzz.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    char *words[] = {"--scenario", (char *)path};
    static scenario_file f; /* 9 KB of text and pointers: not on the stack */
    int argc;
    char **argv;
    wt_err e = {{0}};
    if (scenario_expand(2, words, &f, &argc, &argv, &e) != WT_OK) {
        fuzz_check_err(&e, path);
        return 0;
    }
    cli_opts o;
    if (cli_parse(argc, argv, CLI_TUNE | CLI_UI, fuzz_root(), &o, &e) != WT_OK)
        fuzz_die("a scenario read from its file is refused by the command line: %s", e.msg);
    free(argv);
    return 0;
}
