#include "datadir.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int datadir_resolve(const char *root, const char *kind, const char *what, const char *arg, char *out, size_t n,
                    wt_err *e)
{
    if (!arg || !*arg)
        return wt_fail(e, "empty %s name", what);
    /* A path (or an existing file) is the user's: its loader reports it. */
    if (is_file(arg) || strchr(arg, '/') || strstr(arg, ".yaml") || strstr(arg, ".yml")) {
        if ((size_t)snprintf(out, n, "%s", arg) >= n)
            return wt_fail(e, "%s path too long: %.60s...", what, arg);
        return WT_OK;
    }
    if ((size_t)snprintf(out, n, "%s/%s/%s.yaml", root, kind, arg) >= n)
        return wt_fail(e, "%s name too long: %.60s...", what, arg);
    if (is_file(out))
        return WT_OK;
    return wt_fail(e, "no %s '%s' (no such file, and no %s)", what, arg, out);
}
