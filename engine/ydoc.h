/*
 * ydoc.h - reading YAML files through the libyaml document API, with every
 * error located as "file:line:col: message" (libyaml marks are 0-based; we
 * print them 1-based).
 *
 * Shared by layouts, model files and themes: a mapping is read through a
 * table of handlers, one per allowed key; an unknown key, a missing required
 * key, a duplicate key or a node of the wrong type is an error at that node.
 */
#ifndef WT_YDOC_H
#define WT_YDOC_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "err.h"

typedef struct ydoc {
    yaml_document_t doc;
    char path[256];   /* as given, used in every message */
    int loaded;
} ydoc;

/* Lists and mappings nest at most this deep (the top-level mapping is level
 * 1; the deepest stock file uses 3). */
#define YDOC_MAX_DEPTH 64

/* Parses a whole file, read through infile_read (a regular file of at most
 * 1 MiB, else an error naming the path). A tab in indentation, text that is
 * not YAML, nesting deeper than YDOC_MAX_DEPTH, an empty file or a root that
 * is not a mapping are errors located in the file. On success the caller
 * frees with ydoc_free. */
int ydoc_load(ydoc *d, const char *path, wt_err *e);
void ydoc_free(ydoc *d);
yaml_node_t *ydoc_root(ydoc *d);

/* Fails with "path:line:col: <fmt...>" at node n. Returns WT_EINPUT. */
int ydoc_fail(const ydoc *d, const yaml_node_t *n, wt_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

typedef int (*ydoc_handler)(ydoc *d, yaml_node_t *value, void *ctx, wt_err *e);

typedef struct ydoc_key {
    const char *name;
    ydoc_handler fn;
    int required;
} ydoc_key;

/* Calls the handler of each key of mapping node map (keys is terminated by a
 * {NULL} entry). Errors: map not a mapping, unknown key (the message lists
 * the allowed ones), duplicate key, required key missing (at the mapping). */
int ydoc_map(ydoc *d, yaml_node_t *map, const ydoc_key *keys, void *ctx, wt_err *e);
/* The same, with the mapping's own key path (e.g. "unit") in front of every
 * message it writes: "unit: unknown key 'sramm' (allowed: ...)". where may be
 * NULL. A key whose fn is NULL is allowed and ignored. At most YDOC_MAX_KEYS
 * keys. */
#define YDOC_MAX_KEYS 64
int ydoc_map_at(ydoc *d, yaml_node_t *map, const char *where, const ydoc_key *keys, void *ctx,
                wt_err *e);
/* "a single value", "a list", "a mapping" or "nothing" (an empty plain
 * scalar, as `key:` gives), for messages such as "expected a list, found %s". */
const char *ydoc_kind(const yaml_node_t *n);

/* The text of a scalar node, or an error "expected a single value". */
int ydoc_scalar(ydoc *d, yaml_node_t *n, const char **out, wt_err *e);
/* A whole number in [min, max], or an error naming the range. */
int ydoc_int(ydoc *d, yaml_node_t *n, long min, long max, long *out, wt_err *e);
/* A sequence node's items (error "expected a list" otherwise). */
int ydoc_seq(ydoc *d, yaml_node_t *n, yaml_node_item_t **begin, yaml_node_item_t **end, wt_err *e);

/* Writes s as a double-quoted YAML scalar (what ydoc_scalar reads back as
 * s; s holds no control characters). */
void ydoc_put_quoted(FILE *f, const char *s);

#endif
