/*
 * atomic.c - a file written beside its target and renamed over it.
 */
#include "atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_write(const char *path, const char *who, int (*put)(FILE *f, void *ud, wt_err *e), void *ud,
                 wt_err *e)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return wt_fail(e, "%s: path too long", who);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return wt_fail(e, "%s: cannot write beside %s: %s", who, path, strerror(errno));
    fchmod(fd, 0644); /* mkstemp's 0600 would keep the file from others; a failure leaves it so */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd);
        remove(tmp);
        return wt_fail(e, "%s: %s: %s", who, tmp, strerror(err));
    }
    int rc = put(f, ud, e);
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (rc == WT_OK && bad)
        rc = wt_fail(e, "%s: writing %s failed", who, tmp);
    if (rc == WT_OK && rename(tmp, path) != 0)
        rc = wt_fail(e, "%s: cannot rename %s to %s: %s", who, tmp, path, strerror(errno));
    if (rc != WT_OK)
        remove(tmp);
    return rc;
}
