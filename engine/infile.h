/*
 * infile.h - reading an input file (a layout, a model, a scenario, a theme)
 * whole into memory, the one place that decides what an input file may be.
 *
 * An input file must be a regular file of at most INFILE_MAX_BYTES: a device
 * (/dev/zero), a FIFO, a socket or a directory is refused before anything is
 * read, and a FIFO cannot block the open (it is opened with O_NONBLOCK). The
 * largest stock file is under 3 KB; 1 MiB leaves room for a layout with many
 * thousands of faults.
 */
#ifndef WT_INFILE_H
#define WT_INFILE_H

#include <stddef.h>

#include "err.h"

#define INFILE_MAX_BYTES ((size_t)1 << 20) /* 1 MiB */

/* Reads the file at path into *buf (NUL-terminated, *len bytes without the
 * NUL; the caller frees *buf). Errors name the path: "PATH: cannot open:
 * No such file or directory", "PATH: not a regular file (a FIFO)", "PATH:
 * larger than 1 MiB" (all WT_EINPUT); out of memory is WT_EINTERNAL. */
int infile_read(const char *path, unsigned char **buf, size_t *len, wt_err *e);

#endif
