/*
 * harness.c - the helpers every fuzz target shares (fuzz.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

char *fuzz_text(const uint8_t *data, size_t size, char end)
{
    size_t n = 0;
    while (n < size && data[n] && data[n] != (uint8_t)end)
        n++;
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

static char scratch[64];

static void remove_scratch(void)
{
    unlink(scratch);
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
    if (!scratch[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(scratch, sizeof scratch, "%.40s/wt-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(scratch);
        if (fd < 0)
            fuzz_die("cannot make a scratch file %s", scratch);
        close(fd);
        atexit(remove_scratch);
    }
    FILE *f = fopen(scratch, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_die("cannot write the scratch file %s", scratch);
    return scratch;
}

const char *fuzz_root(void)
{
    static char root[1024];
    if (!root[0] && !getcwd(root, sizeof root))
        fuzz_die("cannot read the working directory");
    return root;
}

void fuzz_check_err(const wt_err *e, const char *prefix)
{
    if (!e->msg[0])
        fuzz_die("an input was refused without a message");
    if (strchr(e->msg, '\n'))
        fuzz_die("an error of several lines: %s", e->msg);
    if (prefix && strncmp(e->msg, prefix, strlen(prefix)) != 0)
        fuzz_die("an error that does not start with '%s': %s", prefix, e->msg);
}

void fuzz_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
