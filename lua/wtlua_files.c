/*
 * wtlua_files.c - the files a script may make the program read (layouts
 * and models by path) and what their errors may say.
 *
 * A script can name any path, so reading one must neither block nor run
 * away (a FIFO, /dev/zero: the loaders read regular files only, infile.h,
 * and a script's no larger than the memory cap leaves) nor hand the file's contents back through an
 * error message (a key or value quoted from /etc/shadow): a loader's error
 * keeps its first line, with its path:line:col, and every quoted span
 * masked.
 */
#include <string.h>
#include <sys/stat.h>

#include "wtlua_int.h"

int wtlua_check_file(lua_State *L, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* the loader says it does not exist or is no regular file (infile.h), or the name is a preset's */
    wtlua *W = wtlua_of(L);
    size_t room = W->opts.mem_cap > W->used ? W->opts.mem_cap - W->used : 0;
    if ((unsigned long long)st.st_size > room)
        luaL_error(L, "%s: %I bytes do not fit in what is left of the memory cap of %d MiB (--lua-mem)", path,
                   (lua_Integer)st.st_size, (int)(W->opts.mem_cap >> 20));
    return 1;
}

int wtlua_file_error(lua_State *L, const wt_err *e)
{
    char msg[sizeof e->msg];
    size_t n = strcspn(e->msg, "\n"), used = 0;
    int quoted = 0;
    for (size_t i = 0; i < n && used + 4 < sizeof msg; i++) {
        if (e->msg[i] == '\'') {
            if (!quoted) {
                memcpy(msg + used, "'...", 4);
                used += 4;
            } else {
                msg[used++] = '\'';
            }
            quoted = !quoted;
        } else if (!quoted) {
            msg[used++] = e->msg[i];
        }
    }
    msg[used] = '\0';
    return luaL_error(L, "%s", msg);
}
