/*
 * datadir.h - finding stock files (layouts, themes) by name.
 *
 * An argument that names an existing file or looks like a path (has a '/' or
 * a .yaml/.yml ending) is taken as it is; otherwise it is a stock name,
 * looked up as root/<kind>/<arg>.yaml, where root is the program's data
 * directory (found by the caller: next to the binary or the install prefix).
 */
#ifndef WT_DATADIR_H
#define WT_DATADIR_H

#include <stddef.h>

#include "err.h"

/* Writes the path into out[n]. Errors: "no layout 'x' (no file x, no
 * root/layouts/x.yaml)". `what` names the kind in messages ("layout"). */
int datadir_resolve(const char *root, const char *kind, const char *what, const char *arg, char *out, size_t n,
                    wt_err *e);

#endif
