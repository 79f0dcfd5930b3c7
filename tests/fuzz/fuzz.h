/*
 * fuzz.h - what the fuzz targets share. Each tests/fuzz/fuzz_NAME.c defines
 * LLVMFuzzerTestOneInput for one parser; `make fuzz` links it with libFuzzer
 * (clang), `make check` with replay.c, which feeds it every file of
 * tests/fuzz/corpus/NAME/ under the normal and the ASan+UBSan builds.
 *
 * A target returns 0 for every input, accepted or refused; it aborts (through
 * fuzz_die) when the parser breaks its contract: an error without a message,
 * a message of several lines, an answer that does not read back the same.
 * Both drivers run from the repository's root, where the stock layouts,
 * models, scripts and themes are.
 */
#ifndef WT_FUZZ_H
#define WT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data up to its first NUL byte, or its first end byte (NUL-terminated, as
 * argv or a line gives it to the program; end '\n' keeps a flag's value to
 * one line, since an error quotes the value as it is). The caller frees it;
 * NULL when out of memory. */
char *fuzz_text(const uint8_t *data, size_t size, char end);

/* Writes data to the target's scratch file (made once, removed at exit) and
 * returns its path, for loaders that read a file. */
const char *fuzz_file(const uint8_t *data, size_t size);

/* The repository's root as an absolute path (the working directory at the
 * first call). */
const char *fuzz_root(void);

/* Checks the error a refused input left: a non-empty message of one line,
 * starting with prefix when prefix is not NULL (a loader's file path). */
void fuzz_check_err(const wt_err *e, const char *prefix);

/* Prints "fuzz: " and the message to stderr and aborts: a finding. */
void fuzz_die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

#endif
