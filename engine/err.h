/*
 * err.h - one error path for the engine.
 *
 * Functions that can fail return WT_OK (0) or a negative code and fill a
 * wt_err with a one-line message that names where the problem came from
 * (file:line:col, the flag, the strategy text). Only main() prints and exits:
 * WT_EINPUT maps to exit status 2, WT_EINTERNAL (out of memory, a bug) to 1.
 */
#ifndef WT_ERR_H
#define WT_ERR_H

enum { WT_OK = 0, WT_EINTERNAL = -1, WT_EINPUT = -2 };

typedef struct wt_err {
    char msg[2048];
} wt_err;

/* Formats msg into e (when e is not NULL) and returns WT_EINPUT. */
int wt_fail(wt_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Formats "out of memory: what" into e and returns WT_EINTERNAL. */
int wt_oom(wt_err *e, const char *what);

/* Whether byte c is a control character (a tab, a line break, DEL...):
 * text an error quotes, a name, a table's cell or a comment holds none, so
 * that each stays one line. */
static inline int wt_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* The first control character of s, or NULL when it holds none. */
const char *wt_find_control(const char *s);

#endif
