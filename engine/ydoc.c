/*
 * ydoc.c - YAML files through the libyaml document API, every error located
 * as "file:line:col: message".
 *
 * The file is read into memory first (infile_read: a regular file of at
 * most 1 MiB) so that, when libyaml gives up, we can
 * look at the offending line (a tab in the indentation deserves a clearer
 * message than "found character that cannot start any token") and turn a
 * byte offset into a line and column.
 */
#include "ydoc.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"

/* Formats "path:line:col: message" into e; line0/col0 are libyaml's 0-based
 * marks. Returns WT_EINPUT. */
static int ydoc_vfail_at(const ydoc *d, size_t line0, size_t col0, wt_err *e, const char *fmt,
                         va_list ap)
{
    if (!e)
        return WT_EINPUT;
    int w = snprintf(e->msg, sizeof e->msg, "%s:%zu:%zu: ", d->path, line0 + 1, col0 + 1);
    if (w >= 0 && (size_t)w < sizeof e->msg)
        vsnprintf(e->msg + w, sizeof e->msg - (size_t)w, fmt, ap);
    /* Messages quote the file's text, which may hold a line break (a quoted
     * "a\nb"); an error stays one line. */
    for (char *c = e->msg; *c; c++)
        if (wt_control((unsigned char)*c))
            *c = ' ';
    return WT_EINPUT;
}

static int ydoc_fail_at(const ydoc *d, size_t line0, size_t col0, wt_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int ydoc_fail_at(const ydoc *d, size_t line0, size_t col0, wt_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ydoc_vfail_at(d, line0, col0, e, fmt, ap);
    va_end(ap);
    return rc;
}

int ydoc_fail(const ydoc *d, const yaml_node_t *n, wt_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ydoc_vfail_at(d, n ? n->start_mark.line : 0, n ? n->start_mark.column : 0, e, fmt, ap);
    va_end(ap);
    return rc;
}

const char *ydoc_kind(const yaml_node_t *n)
{
    if (!n)
        return "nothing";
    switch (n->type) {
    case YAML_SCALAR_NODE:
        if (n->data.scalar.length == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            return "nothing";
        return "a single value";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

/* The start of 0-based line `line` in buf, or NULL past the end. Counts LF,
 * CRLF and lone CR as libyaml does for ASCII text. */
static const unsigned char *ydoc_line_start(const unsigned char *buf, size_t len, size_t line)
{
    size_t i = 0;
    while (line > 0 && i < len) {
        if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
            i++;
        if (buf[i] == '\n' || buf[i] == '\r')
            line--;
        i++;
    }
    return line == 0 && i <= len ? buf + i : NULL;
}

/* When line `line` starts with blanks that include a tab, stores the tab's
 * 0-based column and returns 1. */
static int ydoc_indent_tab(const unsigned char *buf, size_t len, size_t line, size_t *col)
{
    const unsigned char *p = ydoc_line_start(buf, len, line);
    if (!p)
        return 0;
    for (const unsigned char *q = p; q < buf + len && (*q == ' ' || *q == '\t'); q++) {
        if (*q == '\t') {
            *col = (size_t)(q - p);
            return 1;
        }
    }
    return 0;
}

/* Turns a byte offset into 0-based line and column (in characters, as
 * libyaml counts them). */
static void ydoc_offset_mark(const unsigned char *buf, size_t len, size_t off, size_t *line,
                             size_t *col)
{
    *line = *col = 0;
    for (size_t i = 0; i < off && i < len; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 0;
        } else if ((buf[i] & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

/* Converts the error left in parser p into a located message. */
static int ydoc_parse_error(const ydoc *d, const yaml_parser_t *p, const unsigned char *buf,
                            size_t len, wt_err *e)
{
    const char *problem = p->problem ? p->problem : "unknown error";
    size_t line, col;
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return wt_oom(e, "YAML parser");
    case YAML_READER_ERROR:
        ydoc_offset_mark(buf, len, p->problem_offset, &line, &col);
        return ydoc_fail_at(d, line, col, e, "not a YAML text file: %s", problem);
    case YAML_SCANNER_ERROR:
    case YAML_PARSER_ERROR:
    case YAML_COMPOSER_ERROR: {
        const yaml_mark_t *pm = &p->problem_mark, *cm = &p->context_mark;
        /* libyaml words a tab in the indentation in several ways, all
         * obscure; the line itself tells us what happened. */
        if (ydoc_indent_tab(buf, len, pm->line, &col))
            return ydoc_fail_at(d, pm->line, col, e,
                                "tab characters are not allowed in indentation, use spaces");
        if (p->context && cm->line != pm->line && ydoc_indent_tab(buf, len, cm->line, &col))
            return ydoc_fail_at(d, cm->line, col, e,
                                "tab characters are not allowed in indentation, use spaces");
        if (p->context && (cm->line != pm->line || cm->column != pm->column))
            return ydoc_fail_at(d, pm->line, pm->column, e, "not valid YAML: %s (%s at %zu:%zu)",
                                problem, p->context, cm->line + 1, cm->column + 1);
        return ydoc_fail_at(d, pm->line, pm->column, e, "not valid YAML: %s", problem);
    }
    default:
        return ydoc_fail_at(d, 0, 0, e, "not valid YAML");
    }
}

/* Checks that nothing but comments follows the first document: the
 * document API stops after one, which would hide a second one or a syntax
 * error in it. */
static int ydoc_expect_end(ydoc *d, yaml_parser_t *p, const unsigned char *buf, size_t len,
                           wt_err *e)
{
    yaml_document_t next;
    if (!yaml_parser_load(p, &next))
        return ydoc_parse_error(d, p, buf, len, e);
    yaml_node_t *root = yaml_document_get_root_node(&next);
    int rc = WT_OK;
    if (root)
        rc = ydoc_fail(d, root, e, "a second YAML document; a file holds exactly one");
    yaml_document_delete(&next);
    return rc;
}

/* Walks the events of buf and refuses a list or mapping nested deeper than
 * YDOC_MAX_DEPTH, at the first one too deep. libyaml's composer takes time
 * quadratic in the depth (100,000 levels of "[" took over 30 s), and the
 * events stop at the limit: this pass reads no further than the offending
 * node. A syntax error is left to the document pass, which words it. */
static int ydoc_check_depth(const ydoc *d, const unsigned char *buf, size_t len, wt_err *e)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return wt_oom(e, "YAML parser");
    yaml_parser_set_input_string(&p, buf, len);
    int depth = 0, rc = WT_OK;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break;
        yaml_event_type_t t = ev.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > YDOC_MAX_DEPTH)
                rc = ydoc_fail_at(d, ev.start_mark.line, ev.start_mark.column, e,
                                  "lists and mappings nested deeper than %d levels", YDOC_MAX_DEPTH);
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (rc || t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

int ydoc_load(ydoc *d, const char *path, wt_err *e)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);

    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = infile_read(path, &buf, &len, e);
    if (rc == WT_OK)
        rc = ydoc_check_depth(d, buf, len, e);
    if (rc) {
        free(buf);
        return rc;
    }

    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        free(buf);
        return wt_oom(e, "YAML parser");
    }
    yaml_parser_set_input_string(&p, buf, len);
    if (!yaml_parser_load(&p, &d->doc)) {
        rc = ydoc_parse_error(d, &p, buf, len, e);
        goto out;
    }
    d->loaded = 1;

    yaml_node_t *root = yaml_document_get_root_node(&d->doc);
    if (!root)
        rc = ydoc_fail_at(d, 0, 0, e, "empty file, expected a mapping of keys");
    else if (root->type != YAML_MAPPING_NODE)
        rc = ydoc_fail(d, root, e, "expected a mapping of keys at the top level, found %s",
                       ydoc_kind(root));
    else
        rc = ydoc_expect_end(d, &p, buf, len, e);

out:
    yaml_parser_delete(&p);
    free(buf);
    if (rc)
        ydoc_free(d);
    return rc;
}

void ydoc_free(ydoc *d)
{
    if (d->loaded)
        yaml_document_delete(&d->doc);
    d->loaded = 0;
}

yaml_node_t *ydoc_root(ydoc *d)
{
    return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

int ydoc_map(ydoc *d, yaml_node_t *map, const ydoc_key *keys, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, map, NULL, keys, ctx, e);
}

/* Writes the names of keys as "a, b, c" into out. */
static void ydoc_key_list(const ydoc_key *keys, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; keys[i].name; i++) {
        int w = snprintf(out + len, n - len, "%s%s", i ? ", " : "", keys[i].name);
        if (w < 0 || (size_t)w >= n - len)
            return;
        len += (size_t)w;
    }
}

int ydoc_map_at(ydoc *d, yaml_node_t *map, const char *where, const ydoc_key *keys, void *ctx,
                wt_err *e)
{
    const char *pre = where ? where : "", *sep = where ? ": " : "";
    if (!map || map->type != YAML_MAPPING_NODE)
        return ydoc_fail(d, map, e, "%s%sexpected a mapping of keys, found %s", pre, sep,
                         ydoc_kind(map));

    size_t nkeys = 0;
    while (keys[nkeys].name)
        nkeys++;
    assert(nkeys <= YDOC_MAX_KEYS);
    const yaml_node_t *seen[YDOC_MAX_KEYS] = {0};

    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(&d->doc, pr->value);
        if (!k || k->type != YAML_SCALAR_NODE)
            return ydoc_fail(d, k, e, "%s%sexpected a key name, found %s", pre, sep, ydoc_kind(k));
        const char *name = (const char *)k->data.scalar.value;
        size_t i = 0;
        while (i < nkeys && strcmp(keys[i].name, name) != 0)
            i++;
        if (i == nkeys) {
            char allowed[384];
            ydoc_key_list(keys, allowed, sizeof allowed);
            return ydoc_fail(d, k, e, "%s%sunknown key '%.64s' (allowed: %s)", pre, sep, name,
                             allowed);
        }
        if (seen[i])
            return ydoc_fail(d, k, e, "%s%sduplicate key '%s' (first given on line %zu)", pre, sep,
                             name, seen[i]->start_mark.line + 1);
        seen[i] = k;
        if (keys[i].fn) {
            int rc = keys[i].fn(d, v, ctx, e);
            if (rc)
                return rc;
        }
    }
    for (size_t i = 0; i < nkeys; i++)
        if (keys[i].required && !seen[i])
            return ydoc_fail(d, map, e, "%s%smissing required key '%s'", pre, sep, keys[i].name);
    return WT_OK;
}

int ydoc_scalar(ydoc *d, yaml_node_t *n, const char **out, wt_err *e)
{
    if (!n || n->type != YAML_SCALAR_NODE ||
        (n->data.scalar.length == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE))
        return ydoc_fail(d, n, e, "expected a single value, found %s", ydoc_kind(n));
    if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
        return ydoc_fail(d, n, e, "a value must not contain a NUL character");
    *out = (const char *)n->data.scalar.value;
    return WT_OK;
}

int ydoc_int(ydoc *d, yaml_node_t *n, long min, long max, long *out, wt_err *e)
{
    const char *s = NULL;
    int rc = ydoc_scalar(d, n, &s, e);
    if (rc)
        return rc;
    /* Plain decimal only: strtol would also take blanks and a base prefix. */
    const char *p = s + (*s == '-' || *s == '+');
    int ok = *p != '\0';
    for (; *p; p++)
        ok = ok && *p >= '0' && *p <= '9';
    long v = 0;
    if (ok) {
        errno = 0;
        v = strtol(s, NULL, 10);
        ok = errno == 0 && v >= min && v <= max;
    }
    if (!ok)
        return ydoc_fail(d, n, e, "expected a whole number from %ld to %ld", min, max);
    *out = v;
    return WT_OK;
}

int ydoc_seq(ydoc *d, yaml_node_t *n, yaml_node_item_t **begin, yaml_node_item_t **end, wt_err *e)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return ydoc_fail(d, n, e, "expected a list, found %s", ydoc_kind(n));
    *begin = n->data.sequence.items.start;
    *end = n->data.sequence.items.top;
    return WT_OK;
}

void ydoc_put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
