#include "err.h"

#include <stdarg.h>
#include <stdio.h>

int wt_fail(wt_err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return WT_EINPUT;
}

int wt_oom(wt_err *e, const char *what)
{
    if (e)
        snprintf(e->msg, sizeof e->msg, "out of memory: %s", what);
    return WT_EINTERNAL;
}

const char *wt_find_control(const char *s)
{
    for (; *s; s++)
        if (wt_control((unsigned char)*s))
            return s;
    return NULL;
}
