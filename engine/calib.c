/*
 * calib.c - pattern classes and the calibration file (contract in calib.h).
 */
#include "calib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "coll.h"
#include "qty.h"
#include "ydoc.h"

#define CALIB_NAME(name, id) [id] = #name,
static const char *const calib_names[CALIB_NCLASS] = {CALIB_CLASSES(CALIB_NAME)};
#undef CALIB_NAME

const char *calib_class_name(int cls)
{
    return cls >= 0 && cls < CALIB_NCLASS ? calib_names[cls] : "?";
}

int calib_class_of(int kind, int max_hops, int turns, int edge)
{
    if (kind == CG_STORE || kind == CG_PP)
        return kind == CG_STORE ? CALIB_STORE : CALIB_SHIFT;
    if (edge)
        return CALIB_EDGES;
    return turns ? CALIB_TURNS : max_hops > 1 ? CALIB_LINES : CALIB_NEIGHBOUR;
}

void calib_default(calib *c)
{
    for (int k = 0; k < CALIB_NCLASS; k++)
        c->factor[k] = 1;
    c->path[0] = '\0';
}

int calib_path_of(const char *layout_path, char *out, size_t n)
{
    size_t len = strlen(layout_path);
    static const char *const exts[] = {".yaml", ".yml"};
    for (int i = 0; i < 2; i++) {
        size_t k = strlen(exts[i]);
        if (len > k && strcmp(layout_path + len - k, exts[i]) == 0) {
            len -= k;
            break;
        }
    }
    int w = snprintf(out, n, "%.*s.calib.yaml", (int)len, layout_path);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

typedef struct calib_in {
    calib *c;
    const char *layout;
} calib_in;

static int on_layout(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const calib_in *in = ctx;
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && strcmp(s, in->layout) != 0)
        rc = ydoc_fail(d, v, e, "layout: the calibration of layout '%s', not of '%s': run wafertop calibrate "
                                "again", s, in->layout);
    return rc;
}

static int on_factor(ydoc *d, yaml_node_t *v, int cls, calib_in *in, wt_err *e)
{
    const char *s;
    double f;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc != WT_OK)
        return rc;
    if (qty_number(s, &f) != 0 || !(f >= CALIB_MIN && f <= CALIB_MAX))
        return ydoc_fail(d, v, e, "factors: %s: expected a number from %g to %g, found '%s'", calib_names[cls],
                         CALIB_MIN, CALIB_MAX, s);
    in->c->factor[cls] = f;
    return WT_OK;
}

/* One handler per class, so ydoc_map names the allowed keys. */
#define CALIB_ON(name, id)                                                        \
    static int on_##name(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)           \
    {                                                                             \
        return on_factor(d, v, id, ctx, e);                                       \
    }
CALIB_CLASSES(CALIB_ON)
#undef CALIB_ON

#define CALIB_KEY(name, id) {#name, on_##name, 0},
static const ydoc_key calib_factor_keys[] = {CALIB_CLASSES(CALIB_KEY){NULL, NULL, 0}};
#undef CALIB_KEY

static int on_factors(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "factors", calib_factor_keys, ctx, e);
}

static const ydoc_key calib_keys[] = {{"layout", on_layout, 1}, {"factors", on_factors, 1}, {NULL, NULL, 0}};

int calib_load(const char *path, const char *layout, calib *c, wt_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return WT_OK;
    calib read;
    calib_default(&read);
    calib_in in = {&read, layout};
    ydoc d;
    int rc = ydoc_load(&d, path, e);
    if (rc != WT_OK)
        return rc;
    rc = ydoc_map(&d, ydoc_root(&d), calib_keys, &in, e);
    ydoc_free(&d);
    if (rc != WT_OK)
        return rc;
    if (strlen(path) >= sizeof read.path)
        return wt_fail(e, "%s: a calibration file's path is at most %zu characters", path, sizeof read.path - 1);
    strcpy(read.path, path);
    *c = read;
    return WT_OK;
}
