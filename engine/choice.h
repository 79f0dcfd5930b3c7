/*
 * choice.h - the named values of an option, read from the one table that
 * defines them.
 *
 * Every option with named values keeps them in one const table in the
 * module that implements them: placements in place.c, collective algorithms
 * in coll_algo.c, routing modes in route.c, checkpointing, memory switches
 * and gradient compression in strategy.c. A row starts with a `choice` (its
 * name and flags) and may carry more (a function, a bound). Parsing,
 * printing, help text, error messages, the search's space and the tests all
 * read the names through a choice_table, so a new value needs its enum
 * value, its row and functions, its tests and its docs, and nothing else.
 *
 * A row's index is its enum value (PLACE_*, COLL_*, ROUTE_*, ...); each
 * table checks at compile time that it has one row per value.
 */
#ifndef WT_CHOICE_H
#define WT_CHOICE_H

#include <stddef.h>

#include "err.h"

/* What a row is for, beyond being a valid value. */
enum {
    CHOICE_SEARCH = 1u,  /* the search tries it (search_variants, --only) */
    CHOICE_AUTO = 2u,    /* collective `auto` considers it */
    CHOICE_CHOOSER = 4u  /* not a value of its own: picks among the others (auto) */
};

typedef struct choice {
    const char *name;    /* as parsed (case-insensitive) and printed */
    unsigned flags;      /* CHOICE_* */
} choice;

/* n rows of `stride` bytes, each starting with a choice. Borrowed. */
typedef struct choice_table {
    const void *rows;
    size_t stride;
    int n;
} choice_table;

/* The table of a static array of rows. */
#define CHOICE_TABLE(rows) ((choice_table){(rows), sizeof(rows)[0], (int)(sizeof(rows) / sizeof(rows)[0])})

/* Row i (0 <= i < t.n). */
const choice *choice_at(choice_table t, int i);

/* Index of the row named word (case-insensitive), or -1. */
int choice_find(choice_table t, const char *word);

/* The names of the rows whose flags hold every bit of need (0: all rows),
 * in table order, joined by sep into buf (cut to size bytes). Returns buf. */
char *choice_join(choice_table t, unsigned need, const char *sep, char *buf, size_t size);

/* Bit i set for every row i whose flags hold every bit of need. */
unsigned choice_mask(choice_table t, unsigned need);

/* Fails with "<what> '<word>' is not one of a, b, c" (every row). */
int choice_fail(choice_table t, const char *what, const char *word, wt_err *e);

#endif
