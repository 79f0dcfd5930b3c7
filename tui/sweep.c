/*
 * sweep.c - a sweep file read and its points' flags (contract in sweep.h).
 */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "layout.h"
#include "qty.h"
#include "ydoc.h"

/* The command-line flags a scenario or an axis may set (each takes a
 * value); a key with a dot is a layout field instead. */
/* A sweep's flags: the scenario's and the search's that shape a point's
 * answer (not --top, --jobs and such: a row holds the best). */
static int sweep_flag_known(const char *key)
{
    static const char *const search_flags[] = {"objective", "fix", "only"};
    for (size_t i = 0; i < sizeof search_flags / sizeof *search_flags; i++)
        if (!strcmp(search_flags[i], key))
            return 1;
    return cli_scenario_flag(key);
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

static int add_base(ydoc *d, yaml_node_t *at, sweep *s, const char *word, wt_err *e)
{
    if (wt_find_control(word)) /* a table's row is one line */
        return ydoc_fail(d, at, e, "scenario: a value must not hold a control character");
    if (s->nbase == SWEEP_MAX_BASE)
        return ydoc_fail(d, at, e, "scenario: at most %d words", SWEEP_MAX_BASE);
    if (!(s->base[s->nbase] = dup_text(word)))
        return wt_oom(e, "sweep");
    s->nbase++;
    return WT_OK;
}

static int on_run(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    sweep *s = ctx;
    const char *t;
    int rc = ydoc_scalar(d, v, &t, e);
    if (rc == WT_OK && strcmp(t, "eval") && strcmp(t, "search"))
        rc = ydoc_fail(d, v, e, "run: '%s' is neither eval nor search", t);
    s->search = rc == WT_OK && !strcmp(t, "search");
    return rc;
}

/* The pairs of mapping v, each key checked by known and not twice. */
static int each_pair(ydoc *d, yaml_node_t *v, const char *where, sweep *s,
                     int (*fn)(ydoc *d, yaml_node_t *k, const char *key, yaml_node_t *val, sweep *s, wt_err *e),
                     wt_err *e)
{
    if (v->type != YAML_MAPPING_NODE)
        return ydoc_fail(d, v, e, "%s: expected a mapping, found %s", where, ydoc_kind(v));
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key), *val = yaml_document_get_node(&d->doc, p->value);
        const char *key;
        int rc = ydoc_scalar(d, k, &key, e);
        for (yaml_node_pair_t *q = v->data.mapping.pairs.start; rc == WT_OK && q < p; q++) {
            yaml_node_t *kq = yaml_document_get_node(&d->doc, q->key);
            if (kq->type == YAML_SCALAR_NODE && !strcmp((const char *)kq->data.scalar.value, key))
                rc = ydoc_fail(d, k, e, "%s: '%s' twice", where, key);
        }
        if (rc == WT_OK && !sweep_flag_known(key) && !(strchr(key, '.') && layout_field_known(key)))
            rc = ydoc_fail(d, k, e, "%s: no scenario flag or layout field '%s' (flags: layout, model, strategy, "
                                    "seq, batch, placement, ...; layout fields: link.bandwidth, unit.sram, ...)",
                           where, key);
        if (rc == WT_OK)
            rc = fn(d, k, key, val, s, e);
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

/* A scenario word for key: a flag and its value, or --set key=value. */
static int scenario_word(ydoc *d, yaml_node_t *at, const char *key, const char *value, sweep *s, wt_err *e)
{
    char flag[64], set[256];
    if (strchr(key, '.')) {
        snprintf(set, sizeof set, "%s=%s", key, value);
        int rc = add_base(d, at, s, "--set", e);
        return rc == WT_OK ? add_base(d, at, s, set, e) : rc;
    }
    snprintf(flag, sizeof flag, "--%s", key);
    int rc = add_base(d, at, s, flag, e);
    return rc == WT_OK ? add_base(d, at, s, value, e) : rc;
}

static int on_scenario_pair(ydoc *d, yaml_node_t *k, const char *key, yaml_node_t *val, sweep *s, wt_err *e)
{
    const char *t;
    if (val->type != YAML_SEQUENCE_NODE) {
        int rc = ydoc_scalar(d, val, &t, e);
        return rc == WT_OK ? scenario_word(d, k, key, t, s, e) : rc;
    }
    for (yaml_node_item_t *it = val->data.sequence.items.start; it < val->data.sequence.items.top; it++) {
        int rc = ydoc_scalar(d, yaml_document_get_node(&d->doc, *it), &t, e);
        if (rc == WT_OK)
            rc = scenario_word(d, k, key, t, s, e);
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

static int on_scenario(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return each_pair(d, v, "scenario", ctx, on_scenario_pair, e);
}

static int add_value(ydoc *d, yaml_node_t *at, sweep_axis *a, const char *text, wt_err *e)
{
    if (wt_find_control(text))
        return ydoc_fail(d, at, e, "axes: %s: a value must not hold a control character", a->key);
    for (int j = 0; j < a->nvalues; j++)
        if (!strcmp(a->values[j], text))
            return ydoc_fail(d, at, e, "axes: %s: '%s' twice", a->key, text);
    if (a->nvalues == SWEEP_MAX_VALUES)
        return ydoc_fail(d, at, e, "axes: %s: at most %d values", a->key, SWEEP_MAX_VALUES);
    char **grown = realloc(a->values, sizeof *grown * (size_t)(a->nvalues + 1));
    if (!grown)
        return wt_oom(e, "sweep");
    a->values = grown;
    if (!(a->values[a->nvalues] = dup_text(text)))
        return wt_oom(e, "sweep");
    a->nvalues++;
    return WT_OK;
}

/* "110 MB" into 110 and " MB" (what follows the number, blanks kept). */
static int split_number(const char *t, double *x, const char **unit)
{
    char num[64];
    size_t n = strspn(t, "0123456789.eE+-");
    /* an exponent's e belongs to the number only when a digit follows */
    while (n > 0 && (t[n - 1] == 'e' || t[n - 1] == 'E'))
        n--;
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, t, n);
    num[n] = '\0';
    *unit = t + n;
    return qty_number(num, x);
}

/* A range {from, to, times | step} into the axis's values. */
static int range_values(ydoc *d, yaml_node_t *v, sweep_axis *a, wt_err *e)
{
    const char *from = NULL, *to = NULL, *by = NULL, *how = NULL;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key), *val = yaml_document_get_node(&d->doc, p->value);
        const char *key, *t;
        int rc = ydoc_scalar(d, k, &key, e);
        if (rc == WT_OK)
            rc = ydoc_scalar(d, val, &t, e);
        if (rc != WT_OK)
            return rc;
        if (!strcmp(key, "from"))
            from = t;
        else if (!strcmp(key, "to"))
            to = t;
        else if (!strcmp(key, "times") || !strcmp(key, "step"))
            by = t, how = key;
        else
            return ydoc_fail(d, k, e, "axes: %s: unknown key '%s' (allowed: from, to, times, step)", a->key, key);
    }
    if (!from || !to || !by)
        return ydoc_fail(d, v, e, "axes: %s: a range needs from, to and times or step", a->key);
    double x0, x1, k;
    const char *u0, *u1, *uk = "";
    int mul = !strcmp(how, "times");
    if (split_number(from, &x0, &u0) || split_number(to, &x1, &u1) || split_number(by, &k, &uk) ||
        strcmp(u0, u1) || (!mul && strcmp(uk, u0)) || (mul && *uk))
        return ydoc_fail(d, v, e, "axes: %s: from, to%s must be numbers with the same unit", a->key,
                         mul ? "" : " and step");
    if (!(x0 > 0 || !mul) || x1 < x0 || (mul ? !(k > 1) : !(k > 0)))
        return ydoc_fail(d, v, e, "axes: %s: a range from %s up to %s by %s %s never ends or is empty", a->key,
                         from, to, how, by);
    double slack = 1e-9 * (mul ? fabs(x1) : k); /* to is reached despite rounding */
    for (int i = 0;; i++) {
        double x = mul ? x0 * pow(k, i) : x0 + i * k;
        if (x > x1 + slack)
            break;
        /* the shortest text that reads back as x: "1331", "100.5", "0.1" */
        char num[40], text[96];
        double back;
        snprintf(num, sizeof num, "%.15g", x);
        if (qty_number(num, &back) != 0 || back != x)
            snprintf(num, sizeof num, "%.17g", x);
        snprintf(text, sizeof text, "%s%s", num, u0);
        int rc = add_value(d, v, a, text, e);
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

static int on_axis_pair(ydoc *d, yaml_node_t *k, const char *key, yaml_node_t *val, sweep *s, wt_err *e)
{
    if (s->naxes == SWEEP_MAX_AXES)
        return ydoc_fail(d, k, e, "axes: at most %d", SWEEP_MAX_AXES);
    size_t kl = strlen(key);
    for (int j = 0; j + 1 < s->nbase; j += 2) /* the scenario's words go in pairs */
        if ((s->base[j][0] == '-' && !strcmp(s->base[j] + 2, key)) ||
            (!strcmp(s->base[j], "--set") && !strncmp(s->base[j + 1], key, kl) && s->base[j + 1][kl] == '='))
            return ydoc_fail(d, k, e, "axes: %s: the scenario sets it too; give it in one place", key);
    sweep_axis *a = &s->axes[s->naxes++];
    snprintf(a->key, sizeof a->key, "%s", key);
    int rc = WT_OK;
    if (val->type == YAML_MAPPING_NODE) {
        rc = range_values(d, val, a, e);
    } else if (val->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = val->data.sequence.items.start; rc == WT_OK && it < val->data.sequence.items.top;
             it++) {
            const char *t;
            yaml_node_t *n = yaml_document_get_node(&d->doc, *it);
            rc = ydoc_scalar(d, n, &t, e);
            if (rc == WT_OK)
                rc = add_value(d, n, a, t, e);
        }
    } else {
        return ydoc_fail(d, val, e, "axes: %s: expected a list or a range {from, to, times | step}, found %s", key,
                         ydoc_kind(val));
    }
    if (rc == WT_OK && a->nvalues == 0)
        rc = ydoc_fail(d, val, e, "axes: %s: no values", key);
    return rc;
}

static int on_axes(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    sweep *s = ctx;
    int rc = each_pair(d, v, "axes", s, on_axis_pair, e);
    if (rc == WT_OK && s->naxes == 0)
        rc = ydoc_fail(d, v, e, "axes: none: a sweep needs at least one");
    return rc;
}

static const ydoc_key sweep_keys[] = {
    {"run", on_run, 0}, {"scenario", on_scenario, 0}, {"axes", on_axes, 1}, {NULL, NULL, 0}};

int sweep_load(const char *path, sweep *s, wt_err *e)
{
    memset(s, 0, sizeof *s);
    ydoc d;
    int rc = ydoc_load(&d, path, e);
    if (rc != WT_OK)
        return rc;
    rc = ydoc_map(&d, ydoc_root(&d), sweep_keys, s, e);
    s->npoints = 1;
    for (int k = 0; rc == WT_OK && k < s->naxes; k++) {
        s->npoints *= s->axes[k].nvalues;
        if (s->npoints > SWEEP_MAX_POINTS)
            rc = wt_fail(e, "%s: the axes make more than %d points", path, SWEEP_MAX_POINTS);
    }
    ydoc_free(&d);
    if (rc != WT_OK)
        sweep_free(s);
    return rc;
}

void sweep_free(sweep *s)
{
    for (int i = 0; i < s->nbase; i++)
        free(s->base[i]);
    for (int k = 0; k < s->naxes; k++) {
        for (int j = 0; j < s->axes[k].nvalues; j++)
            free(s->axes[k].values[j]);
        free(s->axes[k].values);
    }
    memset(s, 0, sizeof *s);
}

const char *sweep_value(const sweep *s, long i, int k)
{
    long stride = 1;
    for (int j = k + 1; j < s->naxes; j++)
        stride *= s->axes[j].nvalues;
    return s->axes[k].values[(i / stride) % s->axes[k].nvalues];
}

int sweep_argv(const sweep *s, long i, char **argv, int n)
{
    int c = 0;
    for (int j = 0; j < s->nbase && c < n; j++)
        argv[c++] = s->base[j];
    for (int k = 0; k < s->naxes && c + 2 <= n; k++) {
        const char *key = s->axes[k].key, *v = sweep_value(s, i, k);
        size_t len = strlen(key) + strlen(v) + 8;
        char *flag = malloc(len), *value = malloc(len);
        if (!flag || !value) {
            free(flag);
            free(value);
            sweep_argv_free(s, argv, c);
            return -1;
        }
        if (strchr(key, '.')) {
            snprintf(flag, len, "--set");
            snprintf(value, len, "%s=%s", key, v);
        } else {
            snprintf(flag, len, "--%s", key);
            snprintf(value, len, "%s", v);
        }
        argv[c++] = flag;
        argv[c++] = value;
    }
    return c;
}

void sweep_argv_free(const sweep *s, char **argv, int argc)
{
    for (int j = s->nbase; j < argc; j++)
        free(argv[j]);
}
