/*
 * fuzz_theme.c - the theme loader (tui/theme.c): any bytes as a theme file.
 * Refused: one line starting with the file's path, and the default theme in
 * its place. Accepted: a named theme.
 */
#include <string.h>

#include "fuzz.h"
#include "theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    theme t, def;
    wt_err e = {{0}};
    if (theme_load(path, &t, &e) != WT_OK) {
        fuzz_check_err(&e, path);
        theme_default(&def);
        if (memcmp(&t, &def, sizeof t) != 0)
            fuzz_die("a refused theme is not the default");
        return 0;
    }
    if (!t.name[0] || !memchr(t.name, '\0', sizeof t.name))
        fuzz_die("a theme without a name");
    return 0;
}
