/*
 * atomic.h - writing a file so that readers see the old one or the whole new
 * one, never a part: a fresh file beside the target, flushed to disk, then
 * renamed over it.
 */
#ifndef WT_ATOMIC_H
#define WT_ATOMIC_H

#include <stdio.h>

#include "err.h"

/* Writes what put writes (it returns WT_OK or an error in e) to path;
 * errors start with who (a command, a flag). A symbolic link is written
 * through (its final target is replaced, the link stays); an existing
 * file keeps its permission bits, a new one gets 0666 less the umask; the
 * directory is flushed after the rename. On error before the rename path
 * is untouched and the temporary file removed. */
int atomic_write(const char *path, const char *who, int (*put)(FILE *f, void *ud, wt_err *e), void *ud,
                 wt_err *e);

#endif
