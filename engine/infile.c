/*
 * infile.c - input files read whole, regular files of bounded size only
 * (see infile.h).
 *
 * The checks go through the descriptor that is read (fstat after open), so
 * the file cannot be swapped between the check and the read; a file that
 * grows after fstat is refused rather than read past its checked size.
 */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, for the message. */
static const char *infile_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a plain file";
}

int infile_read(const char *path, unsigned char **buf, size_t *len, wt_err *e)
{
    *buf = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer; a regular file ignores the flag. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return wt_fail(e, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return wt_fail(e, "%s: cannot read: %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return wt_fail(e, "%s: not a regular file (%s); give a YAML file", path, infile_kind(st.st_mode));
    }
    if ((unsigned long long)st.st_size > INFILE_MAX_BYTES) {
        close(fd);
        return wt_fail(e, "%s: larger than 1 MiB (%lld bytes); an input file holds at most %zu bytes", path,
                       (long long)st.st_size, INFILE_MAX_BYTES);
    }
    /* One byte beyond the size tells a file that grew since fstat; one
     * more for the NUL. */
    size_t size = (size_t)st.st_size;
    unsigned char *b = malloc(size + 2);
    if (!b) {
        close(fd);
        return wt_oom(e, "reading an input file");
    }
    size_t n = 0;
    while (n <= size) {
        ssize_t got = read(fd, b + n, size + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int err = errno;
            free(b);
            close(fd);
            return wt_fail(e, "%s: cannot read: %s", path, strerror(err));
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (n > size) {
        free(b);
        return wt_fail(e, "%s: changed while being read", path);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return WT_OK;
}
