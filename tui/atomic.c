/*
 * atomic.c - a file written beside its target and renamed over it.
 *
 * What a plain fopen("w") would keep, an atomic write keeps too: a path
 * that is a symbolic link is written through (the temporary file goes
 * beside the link's final target, which the rename replaces; the link
 * stays), an existing file keeps its permission bits, and a new one gets
 * 0666 less the umask (open applies it: the umask is never read, which
 * would race with other threads). The rename is made durable by flushing
 * the directory that holds the target after it.
 */
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Symbolic links followed before giving up, as the kernel's ELOOP does. */
#define MAX_LINKS 40

/* The length of path's directory part including its last '/', 0 for none. */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The file path names once every symbolic link at its end is followed
 * (a link's relative target is read from the link's directory), into out
 * (PATH_MAX). The target need not exist: a dangling link is written
 * through, as fopen would. */
static int final_target(const char *path, char *out, const char *who, wt_err *e)
{
    if (strlen(path) >= PATH_MAX)
        return wt_fail(e, "%s: %s: path too long", who, path);
    strcpy(out, path);
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            return WT_OK;
        if (hops == MAX_LINKS)
            return wt_fail(e, "%s: %s: %s", who, path, strerror(ELOOP));
        char link[PATH_MAX];
        ssize_t n = readlink(out, link, sizeof link - 1);
        if (n < 0)
            return wt_fail(e, "%s: %s: %s", who, out, strerror(errno));
        link[n] = '\0';
        size_t keep = link[0] == '/' ? 0 : dir_len(out);
        if (keep + (size_t)n >= PATH_MAX)
            return wt_fail(e, "%s: %s: path too long", who, path);
        memmove(out + keep, link, (size_t)n + 1);
    }
}

/* A new file beside target, open for writing, with the permission bits
 * target has (when it exists) or 0666 less the umask; its name into tmp
 * (PATH_MAX). Returns the descriptor, or -1 with errno set. */
static int open_beside(const char *target, char *tmp)
{
    struct stat st;
    int keep = stat(target, &st) == 0;
    for (unsigned n = 0; n < 100; n++) {
        if (snprintf(tmp, PATH_MAX, "%s.%ld-%u.tmp", target, (long)getpid(), n) >= PATH_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno == EEXIST)
            continue; /* left by an earlier run of this pid, or another thread */
        if (fd >= 0 && keep && fchmod(fd, st.st_mode & 07777) != 0) {
            int err = errno;
            close(fd);
            remove(tmp);
            errno = err;
            return -1;
        }
        return fd;
    }
    errno = EEXIST;
    return -1;
}

/* Flushes the directory holding target, so that the rename survives a
 * crash. Filesystems that cannot flush a directory (EINVAL) are let be. */
static int sync_dir(const char *target, const char *who, wt_err *e)
{
    char dir[PATH_MAX];
    size_t n = dir_len(target);
    if (n == 0)
        strcpy(dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)n, target);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return wt_fail(e, "%s: %s written, but its directory %s cannot be opened to flush it: %s", who, target,
                       dir, strerror(errno));
    int bad = fsync(fd) != 0 && errno != EINVAL, err = errno;
    close(fd);
    return bad ? wt_fail(e, "%s: %s written, but flushing its directory %s failed: %s", who, target, dir,
                         strerror(err))
               : WT_OK;
}

int atomic_write(const char *path, const char *who, int (*put)(FILE *f, void *ud, wt_err *e), void *ud,
                 wt_err *e)
{
    char target[PATH_MAX], tmp[PATH_MAX];
    int rc = final_target(path, target, who, e);
    if (rc != WT_OK)
        return rc;
    int fd = open_beside(target, tmp);
    if (fd < 0)
        return wt_fail(e, "%s: cannot write beside %s: %s", who, target, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd);
        remove(tmp);
        return wt_fail(e, "%s: %s: %s", who, tmp, strerror(err));
    }
    rc = put(f, ud, e);
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (rc == WT_OK && bad)
        rc = wt_fail(e, "%s: writing %s failed", who, tmp);
    if (rc == WT_OK && rename(tmp, target) != 0)
        rc = wt_fail(e, "%s: cannot rename %s to %s: %s", who, tmp, target, strerror(errno));
    if (rc != WT_OK) {
        remove(tmp);
        return rc;
    }
    return sync_dir(target, who, e);
}
