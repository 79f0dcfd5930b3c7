#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef WT_DATADIR
#define WT_DATADIR "/usr/local/share/wafertop"
#endif

static int has_layouts(const char *dir)
{
    char path[4096];
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%s/layouts", dir) >= sizeof path)
        return 0;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void paths_data_root(char *out, size_t n)
{
    char dir[4096];
    ssize_t len = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (len > 0) {
        dir[len] = '\0';
        /* The binary's directory, then up to three parents (build/san/). */
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(dir, '/');
            if (!slash)
                break;
            *slash = '\0';
            if (has_layouts(dir[0] ? dir : "/")) {
                snprintf(out, n, "%s", dir[0] ? dir : "/");
                return;
            }
        }
    }
    const char *env = getenv("WAFERTOP_DATA");
    snprintf(out, n, "%s", env && *env ? env : WT_DATADIR);
}
