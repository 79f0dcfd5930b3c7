/*
 * replay.c - a driver without libFuzzer: feeds each file named on the
 * command line to the target's LLVMFuzzerTestOneInput, so that `make check`
 * replays the corpora (tests/fuzz/corpus/NAME/, regressions named repro-*)
 * with the compiler and sanitizers of the build. Each file's name goes to
 * stdout before it runs, so that a crash's report follows the file that
 * caused it; the last line counts the files.
 *
 * usage: replay_NAME FILE...
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

/* The whole file at path (caller frees), its size in *n; NULL on error. */
static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096;
    uint8_t *b = malloc(cap);
    *n = 0;
    while (b) {
        *n += fread(b + *n, 1, cap - *n, f);
        if (*n < cap)
            break;
        uint8_t *nb = realloc(b, cap * 2);
        if (!nb)
            free(b);
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return NULL;
    }
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        printf("%s\n", argv[i]);
        fflush(stdout);
        size_t n;
        uint8_t *data = read_all(argv[i], &n);
        if (!data) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput(data, n);
        free(data);
    }
    printf("%s: %d passed, 0 failed\n", argv[0], argc - 1);
    return 0;
}
