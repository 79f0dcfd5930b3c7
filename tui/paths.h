/*
 * paths.h - where the program's data (layouts/, themes/, lua/) lives: the
 * directory of the binary or one of its parents (a build tree), then
 * $WAFERTOP_DATA, then the install prefix (WT_DATADIR at build time).
 */
#ifndef WT_PATHS_H
#define WT_PATHS_H

#include <stddef.h>

/* Writes the data directory into out[n]; always succeeds (the install
 * prefix is the last resort even when it does not exist). */
void paths_data_root(char *out, size_t n);

#endif
