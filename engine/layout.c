/*
 * layout.c - wafer layouts from YAML (schema in layout.h).
 *
 * The handlers only collect values into a layout_in; the wafer is built once
 * the whole file has been read, so mesh, wafers and faults may come in any
 * order. Faults are checked for syntax where they are read and applied after
 * the wafer exists, when their coordinates can be checked against the mesh.
 */
#include "layout.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "qty.h"
#include "strategy.h"
#include "ydoc.h"

/* Everything the file says, before a wafer exists. */
typedef struct layout_in {
    char name[sizeof(((wafer *)0)->name)];
    int mesh_w, mesh_h, wafers_x, wafers_y;
    yaml_node_t *mesh_node;
    double compute, sram, dram, dram_bw, efficiency;
    double bw, lat, overhead, chunk_overhead;
    double iw_bw, iw_lat;
    int has_iw_bw, has_iw_lat;
    yaml_node_t *fault_units, *fault_links; /* sequence nodes, or NULL */
    double store_bytes, store_bw_in, store_bw_out, store_lat;
    unsigned store_ports;
    flit_cfg router;
    long flit_bytes;
    char strategy[sizeof(((wafer *)0)->strategy)]; /* "TEXT;name=value;..." */
    int strategy_microbatch;
} layout_in;

/* The range of every number a layout gives, in SI, bounds included: what
 * hardware of the kind wafertop models can be, with room around today's
 * chips. A value outside is refused at its file:line:col (an absurd
 * bandwidth gave an MFU of 5,665,805 % with exit 0; 1e-300 B/s, a flow that
 * "makes no progress"). docs/MODEL.md, "Layout ranges", is this table. The
 * mesh's sizes are wafer.h's (WAFER_MAX_SIDE, WAFER_MAX_UNITS). */
typedef struct layout_range {
    const char *key;  /* as messages name it */
    int plain;        /* a plain number ("0.8"), else a quantity of kind */
    qty_kind kind;
    double min, max;
    size_t field;     /* offsetof the layout_in double it fills */
} layout_range;

enum {
    LR_COMPUTE, LR_SRAM, LR_DRAM, LR_DRAM_BW, LR_EFFICIENCY,
    LR_BW, LR_LAT, LR_OVERHEAD, LR_CHUNK_OVERHEAD, LR_IW_BW, LR_IW_LAT,
    LR_STORE_BYTES, LR_STORE_BW_IN, LR_STORE_BW_OUT, LR_STORE_LAT,
};

#define LR(key, plain, kind, min, max, field) {key, plain, kind, min, max, offsetof(layout_in, field)}
static const layout_range layout_ranges[] = {
    [LR_COMPUTE] = LR("unit.compute", 0, QTY_FLOPS, 1e9, 1e18, compute),
    [LR_SRAM] = LR("unit.sram", 0, QTY_BYTES, 1e3, 1e12, sram),
    [LR_DRAM] = LR("unit.dram", 0, QTY_BYTES, 0, 1e14, dram),
    [LR_DRAM_BW] = LR("unit.dram_bandwidth", 0, QTY_BANDWIDTH, 0, 1e15, dram_bw),
    [LR_EFFICIENCY] = LR("unit.efficiency", 1, QTY_BYTES, 0.01, 1, efficiency),
    [LR_BW] = LR("link.bandwidth", 0, QTY_BANDWIDTH, 1e6, 1e15, bw),
    [LR_LAT] = LR("link.latency", 0, QTY_TIME, 0, 1, lat),
    [LR_OVERHEAD] = LR("link.overhead", 0, QTY_TIME, 0, 1, overhead),
    [LR_CHUNK_OVERHEAD] = LR("link.chunk_overhead", 0, QTY_TIME, 0, 1, chunk_overhead),
    [LR_IW_BW] = LR("interwafer.bandwidth", 0, QTY_BANDWIDTH, 1e6, 1e18, iw_bw),
    [LR_IW_LAT] = LR("interwafer.latency", 0, QTY_TIME, 0, 1, iw_lat),
    [LR_STORE_BYTES] = LR("store.capacity", 0, QTY_BYTES, 1e6, 1e18, store_bytes),
    [LR_STORE_BW_IN] = LR("store.bandwidth_in", 0, QTY_BANDWIDTH, 1e6, 1e15, store_bw_in),
    [LR_STORE_BW_OUT] = LR("store.bandwidth_out", 0, QTY_BANDWIDTH, 1e6, 1e15, store_bw_out),
    [LR_STORE_LAT] = LR("store.latency", 0, QTY_TIME, 0, 1, store_lat),
};
#undef LR

/* The text of scalar v, or an error naming key. */
static int layout_text(ydoc *d, yaml_node_t *v, const char *key, const char **out, wt_err *e)
{
    if (!v || v->type != YAML_SCALAR_NODE ||
        (v->data.scalar.length == 0 && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE))
        return ydoc_fail(d, v, e, "%s: expected a single value, found %s", key, ydoc_kind(v));
    if (strlen((const char *)v->data.scalar.value) != v->data.scalar.length)
        return ydoc_fail(d, v, e, "%s: a value must not contain a NUL character", key);
    *out = (const char *)v->data.scalar.value;
    return WT_OK;
}

/* A bound of r as the layout would write it: "1 MB/s", "0.01"; 0 bare. */
static const char *layout_bound(const layout_range *r, double v, char *buf, size_t n)
{
    if (r->plain || v == 0)
        qty_format_number(v, buf, n);
    else
        qty_format(v, r->kind, buf, n);
    return buf;
}

/* Reads text s as the number of row r into its layout_in field, within
 * r's range; else 0 with why[n] ("must be from 1 MB/s to 1 PB/s"). */
static int layout_parse(const layout_range *r, const char *s, layout_in *in, char *why, size_t n)
{
    double x;
    if (r->plain && qty_number(s, &x) != 0) {
        snprintf(why, n, "expected a plain number such as 0.8");
        return 0;
    }
    if (!r->plain && qty_parse(s, r->kind, &x, why, n) != 0)
        return 0;
    if (!(isfinite(x) && x >= r->min && x <= r->max)) {
        char lo[48], hi[48];
        snprintf(why, n, "must be from %s to %s", layout_bound(r, r->min, lo, sizeof lo),
                 layout_bound(r, r->max, hi, sizeof hi));
        return 0;
    }
    *(double *)((char *)in + r->field) = x;
    return 1;
}

/* Reads the number of row r at v into its layout_in field, within r's range. */
static int layout_value(ydoc *d, yaml_node_t *v, const layout_range *r, layout_in *in, wt_err *e)
{
    const char *s = NULL;
    int rc = layout_text(d, v, r->key, &s, e);
    if (rc)
        return rc;
    char why[200];
    return layout_parse(r, s, in, why, sizeof why) ? WT_OK : ydoc_fail(d, v, e, "%s: %s", r->key, why);
}

int layout_field_known(const char *key)
{
    for (size_t i = 0; i < sizeof layout_ranges / sizeof layout_ranges[0]; i++)
        if (!strcmp(layout_ranges[i].key, key))
            return 1;
    return 0;
}

/* Applies override "key=value" (a key of layout_ranges) to in; errors
 * start with who and the override. */
static int layout_override(const char *who, const char *set, layout_in *in, wt_err *e)
{
    const char *eq = strchr(set, '=');
    size_t len = eq ? (size_t)(eq - set) : strlen(set);
    for (size_t i = 0; i < sizeof layout_ranges / sizeof layout_ranges[0]; i++) {
        const layout_range *r = &layout_ranges[i];
        if (strlen(r->key) != len || strncmp(r->key, set, len) != 0)
            continue;
        char why[200];
        if (!eq)
            return wt_fail(e, "%s %s: expected %s=VALUE", who, set, r->key);
        if (!layout_parse(r, eq + 1, in, why, sizeof why))
            return wt_fail(e, "%s %s: %s", who, set, why);
        in->has_iw_bw |= i == LR_IW_BW;
        in->has_iw_lat |= i == LR_IW_LAT;
        return WT_OK;
    }
    char keys[600] = "";
    for (size_t i = 0; i < sizeof layout_ranges / sizeof layout_ranges[0]; i++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", i ? ", " : "", layout_ranges[i].key);
    return wt_fail(e, "%s %s: no layout field '%.*s' (one of %s)", who, set, (int)len, set, keys);
}

/* Reads a whole number of at most 9 digits with an optional '-' at *p,
 * advancing *p. Returns 0 when there is none. */
static int layout_scan_int(const char **p, int *out)
{
    const char *s = *p;
    int neg = *s == '-';
    s += neg;
    int v = 0, nd = 0;
    for (; *s >= '0' && *s <= '9'; s++, nd++) {
        if (nd == 9)
            return 0;
        v = v * 10 + (*s - '0');
    }
    if (nd == 0)
        return 0;
    *out = neg ? -v : v;
    *p = s;
    return 1;
}

static void layout_skip_blanks(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
}

/* Reads "WxH" (blanks around the x allowed) with both sides in
 * [1, WAFER_MAX_SIDE]. */
static int layout_dims(ydoc *d, yaml_node_t *v, const char *key, int *w, int *h, wt_err *e)
{
    const char *s = NULL;
    int rc = layout_text(d, v, key, &s, e);
    if (rc)
        return rc;
    const char *p = s;
    int a, b;
    int ok = *p != '-' && layout_scan_int(&p, &a);
    if (ok) {
        layout_skip_blanks(&p);
        ok = *p == 'x' || *p == 'X';
        p++;
    }
    if (ok) {
        layout_skip_blanks(&p);
        ok = *p != '-' && layout_scan_int(&p, &b) && *p == '\0';
    }
    if (!ok)
        return ydoc_fail(d, v, e, "%s: expected WxH with whole numbers, such as 16x16", key);
    if (a < 1 || b < 1 || a > WAFER_MAX_SIDE || b > WAFER_MAX_SIDE)
        return ydoc_fail(d, v, e, "%s: each side must be from 1 to %d", key, WAFER_MAX_SIDE);
    *w = a;
    *h = b;
    return WT_OK;
}

/* Parses fault item n: "x,y" for a unit, or "x,y,D" for a link when dir is
 * not NULL. Coordinates are not checked against the mesh here. */
static int layout_fault(ydoc *d, yaml_node_t *n, const char *key, int *x, int *y, int *dir,
                        wt_err *e)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return ydoc_fail(d, n, e, "%s: expected \"%s\" in quotes, found %s", key,
                         dir ? "x,y,D" : "x,y", ydoc_kind(n));
    const char *s = (const char *)n->data.scalar.value;
    int found;
    char bad = 0;
    int rc = wafer_parse_fault(s, x, y, &found, &bad);
    if (rc == -2 && dir)
        return ydoc_fail(d, n, e, "%s: unknown direction '%c', expected E, W, N or S", key, bad);
    int ok = rc == 0 && (dir ? found >= 0 : found < 0);
    if (dir)
        *dir = found;
    if (!ok) {
        if (dir)
            return ydoc_fail(d, n, e,
                             "%s: expected \"x,y,D\" such as \"3,4,E\" (D is E, W, N or S), found '%.40s'",
                             key, s);
        return ydoc_fail(d, n, e, "%s: expected \"x,y\" such as \"3,4\", found '%.40s'", key, s);
    }
    return WT_OK;
}

/* Checks the syntax of every item of fault list v. */
static int layout_fault_list(ydoc *d, yaml_node_t *v, const char *key, int links,
                             yaml_node_t **keep, wt_err *e)
{
    if (!v || v->type != YAML_SEQUENCE_NODE)
        return ydoc_fail(d, v, e, "%s: expected a list such as [\"%s\"], found %s", key,
                         links ? "3,4,E" : "3,4", ydoc_kind(v));
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        int x, y, dir;
        int rc = layout_fault(d, yaml_document_get_node(&d->doc, *it), key, &x, &y,
                              links ? &dir : NULL, e);
        if (rc)
            return rc;
    }
    *keep = v;
    return WT_OK;
}

/* Handlers: each stores one value into the layout_in passed as ctx. */

static int on_name(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    layout_in *in = ctx;
    const char *s = NULL;
    int rc = layout_text(d, v, "name", &s, e);
    if (rc)
        return rc;
    if (*s == '\0')
        return ydoc_fail(d, v, e, "name: must not be empty");
    if (strlen(s) >= sizeof in->name)
        return ydoc_fail(d, v, e, "name: longer than %zu characters", sizeof in->name - 1);
    if (wt_find_control(s))
        return ydoc_fail(d, v, e, "name: must not contain control characters");
    memcpy(in->name, s, strlen(s) + 1);
    return WT_OK;
}

static int on_mesh(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    layout_in *in = ctx;
    in->mesh_node = v;
    return layout_dims(d, v, "mesh", &in->mesh_w, &in->mesh_h, e);
}

static int on_wafers(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    layout_in *in = ctx;
    return layout_dims(d, v, "wafers", &in->wafers_x, &in->wafers_y, e);
}

/* The handler of a number of layout_ranges: ydoc hands a handler no key. */
#define VALUE_HANDLER(fn, row)                                                                                \
    static int fn(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)                                              \
    {                                                                                                         \
        return layout_value(d, v, &layout_ranges[row], ctx, e);                                               \
    }
VALUE_HANDLER(on_compute, LR_COMPUTE)
VALUE_HANDLER(on_sram, LR_SRAM)
VALUE_HANDLER(on_dram, LR_DRAM)
VALUE_HANDLER(on_dram_bw, LR_DRAM_BW)
VALUE_HANDLER(on_efficiency, LR_EFFICIENCY)
VALUE_HANDLER(on_bw, LR_BW)
VALUE_HANDLER(on_lat, LR_LAT)
VALUE_HANDLER(on_overhead, LR_OVERHEAD)
VALUE_HANDLER(on_chunk_overhead, LR_CHUNK_OVERHEAD)
VALUE_HANDLER(on_store_bytes, LR_STORE_BYTES)
VALUE_HANDLER(on_store_bw_in, LR_STORE_BW_IN)
VALUE_HANDLER(on_store_bw_out, LR_STORE_BW_OUT)
VALUE_HANDLER(on_store_lat, LR_STORE_LAT)
#undef VALUE_HANDLER

/* The inter-wafer figures default from the links' when absent. */
static int on_iw_bw(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    layout_in *in = ctx;
    in->has_iw_bw = 1;
    return layout_value(d, v, &layout_ranges[LR_IW_BW], in, e);
}

static int on_iw_lat(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    layout_in *in = ctx;
    in->has_iw_lat = 1;
    return layout_value(d, v, &layout_ranges[LR_IW_LAT], in, e);
}

static int on_fault_units(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return layout_fault_list(d, v, "faults.units", 0, &((layout_in *)ctx)->fault_units, e);
}

static int on_fault_links(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return layout_fault_list(d, v, "faults.links", 1, &((layout_in *)ctx)->fault_links, e);
}

/* "west,east": edges of the mesh, comma or blank separated. */
static int on_store_ports(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    static const char *const edges[WAFER_NDIR] = {"east", "west", "north", "south"};
    layout_in *in = ctx;
    const char *s = NULL;
    int rc = layout_text(d, v, "store.ports", &s, e);
    while (rc == WT_OK && *s) {
        size_t n = strcspn(s, ", \t");
        int dir = -1;
        for (int k = 0; k < WAFER_NDIR && n; k++)
            if (strlen(edges[k]) == n && strncasecmp(s, edges[k], n) == 0)
                dir = k;
        if (n && dir < 0)
            return ydoc_fail(d, v, e, "store.ports: '%.*s' is not an edge of the mesh (east, west, north, south)",
                             (int)(n > 40 ? 40 : n), s);
        if (dir >= 0)
            in->store_ports |= 1u << dir;
        s += n + (s[n] != '\0');
    }
    if (rc == WT_OK && !in->store_ports)
        return ydoc_fail(d, v, e, "store.ports: expected edges of the mesh such as west,east");
    return rc;
}

/* strategy: {parallel: DP4,TATP16, exec: stream, ..., microbatch: 8}: the
 * strategy the layout recommends, its options named as their flags, and the
 * micro-batch it is meant for. Checked here against
 * a scratch strategy so that a mistake points at its line; kept as the text
 * strategy_spec reads. */
static int on_strategy(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    layout_in *in = ctx;
    if (!v || v->type != YAML_MAPPING_NODE)
        return ydoc_fail(d, v, e, "strategy: expected a mapping such as {parallel: DP8,TATP16, exec: stream}, found %s",
                         ydoc_kind(v));
    strategy scratch;
    strategy_defaults(&scratch);
    const char *parallel = NULL;
    char opts[sizeof in->strategy] = "";
    size_t used = 0;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
        yaml_node_t *val = yaml_document_get_node(&d->doc, p->value);
        const char *key = NULL, *text = NULL;
        int rc = layout_text(d, k, "strategy", &key, e);
        if (rc == WT_OK)
            rc = layout_text(d, val, "strategy", &text, e);
        if (rc)
            return rc;
        wt_err why;
        if (!strcmp(key, "microbatch")) { /* the model's, not the strategy's: kept apart */
            long mb;
            if (ydoc_int(d, val, 1, 1 << 20, &mb, NULL) != WT_OK) /* its message lacks the key */
                return ydoc_fail(d, val, e, "strategy.microbatch: expected a whole number from 1 to %d", 1 << 20);
            in->strategy_microbatch = (int)mb;
            continue;
        }
        if (!strcmp(key, "parallel")) {
            if (parallel)
                return ydoc_fail(d, k, e, "strategy: duplicate key 'parallel'");
            if (strategy_parse(text, &scratch, &why) != WT_OK)
                return ydoc_fail(d, val, e, "strategy.parallel: %s", why.msg);
            parallel = text;
            continue;
        }
        if (strchr(text, ';') || strchr(key, ';') || strchr(key, '='))
            return ydoc_fail(d, val, e, "strategy.%.40s: must not contain ';' or '='", key);
        if (strategy_set_option(&scratch, key, text, &why) != WT_OK)
            return ydoc_fail(d, val, e, "strategy.%.40s: %s", key, why.msg);
        int n = snprintf(opts + used, sizeof opts - used, ";%s=%s", key, text);
        if (n < 0 || (size_t)n >= sizeof opts - used)
            return ydoc_fail(d, val, e, "strategy: longer than %zu characters", sizeof opts - 1);
        used += (size_t)n;
    }
    if (!parallel)
        return ydoc_fail(d, v, e, "strategy: missing key 'parallel' (e.g. parallel: DP8,TATP16)");
    if (strlen(parallel) + used >= sizeof in->strategy || strchr(parallel, ';'))
        return ydoc_fail(d, v, e, "strategy: longer than %zu characters", sizeof in->strategy - 1);
    snprintf(in->strategy, sizeof in->strategy, "%s%s", parallel, opts);
    return WT_OK;
}

static const ydoc_key layout_unit_keys[] = {
    {"compute", on_compute, 1}, {"sram", on_sram, 1},
    {"dram", on_dram, 0},       {"dram_bandwidth", on_dram_bw, 0},
    {"efficiency", on_efficiency, 0}, {NULL, NULL, 0},
};

static const ydoc_key layout_link_keys[] = {
    {"bandwidth", on_bw, 1},         {"latency", on_lat, 1},
    {"overhead", on_overhead, 0},    {"chunk_overhead", on_chunk_overhead, 0},
    {NULL, NULL, 0},
};

static const ydoc_key layout_iw_keys[] = {
    {"bandwidth", on_iw_bw, 0}, {"latency", on_iw_lat, 0}, {NULL, NULL, 0},
};

static const ydoc_key layout_store_keys[] = {
    {"capacity", on_store_bytes, 1},       {"bandwidth_in", on_store_bw_in, 1},
    {"bandwidth_out", on_store_bw_out, 1}, {"latency", on_store_lat, 0},
    {"ports", on_store_ports, 1},          {NULL, NULL, 0},
};

/* router.NAME: a whole number in its range (flit.h's FLIT_CFG_FIELDS). */
static int layout_router_int(ydoc *d, yaml_node_t *v, const char *key, long lo, long hi, long *out, wt_err *e)
{
    if (ydoc_int(d, v, lo, hi, out, NULL) != WT_OK)
        return ydoc_fail(d, v, e, "router.%s: expected a whole number from %ld to %ld", key, lo, hi);
    return WT_OK;
}

#define ROUTER_HANDLER(name, lo, hi)                                                                         \
    static int on_router_##name(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)                             \
    {                                                                                                        \
        long n;                                                                                              \
        int rc = layout_router_int(d, v, #name, lo, hi, &n, e);                                              \
        ((layout_in *)ctx)->router.name = (int)n;                                                            \
        return rc;                                                                                           \
    }
FLIT_CFG_FIELDS(ROUTER_HANDLER)
#undef ROUTER_HANDLER

static int on_flit_bytes(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return layout_router_int(d, v, "flit_bytes", 1, 1 << 20, &((layout_in *)ctx)->flit_bytes, e);
}

static const ydoc_key layout_router_keys[] = {
#define ROUTER_KEY(name, lo, hi) {#name, on_router_##name, 0},
    FLIT_CFG_FIELDS(ROUTER_KEY)
#undef ROUTER_KEY
    {"flit_bytes", on_flit_bytes, 0},
    {NULL, NULL, 0},
};

static const ydoc_key layout_fault_keys[] = {
    {"units", on_fault_units, 0}, {"links", on_fault_links, 0}, {NULL, NULL, 0},
};

static int on_unit(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "unit", layout_unit_keys, ctx, e);
}

static int on_link(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "link", layout_link_keys, ctx, e);
}

static int on_interwafer(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "interwafer", layout_iw_keys, ctx, e);
}

static int on_store(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "store", layout_store_keys, ctx, e);
}

static int on_router(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "router", layout_router_keys, ctx, e);
}

static int on_faults(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    return ydoc_map_at(d, v, "faults", layout_fault_keys, ctx, e);
}

static const ydoc_key layout_keys[] = {
    {"name", on_name, 1},     {"mesh", on_mesh, 1},
    {"wafers", on_wafers, 0}, {"unit", on_unit, 1},
    {"link", on_link, 1},     {"interwafer", on_interwafer, 0},
    {"faults", on_faults, 0}, {"store", on_store, 0},
    {"strategy", on_strategy, 0}, {"router", on_router, 0},
    {NULL, NULL, 0},
};

/* Marks every fault of list (already checked for syntax) on wf; a fault off
 * the mesh is an error at its item. */
static int layout_apply_faults(ydoc *d, yaml_node_t *list, int links, wafer *wf, wt_err *e)
{
    if (!list)
        return WT_OK;
    const char *key = links ? "faults.links" : "faults.units";
    for (yaml_node_item_t *it = list->data.sequence.items.start;
         it < list->data.sequence.items.top; it++) {
        yaml_node_t *n = yaml_document_get_node(&d->doc, *it);
        int x, y, dir = 0;
        int rc = layout_fault(d, n, key, &x, &y, links ? &dir : NULL, e);
        if (rc)
            return rc;
        wt_err why;
        rc = links ? wafer_fail_link(wf, x, y, dir, &why) : wafer_fail_unit(wf, x, y, &why);
        if (rc)
            return ydoc_fail(d, n, e, "%s: %s", key, why.msg);
    }
    return WT_OK;
}

/* Builds out from what the file said. On failure out is freed. */
static int layout_build(ydoc *d, const layout_in *in, wafer *out, wt_err *e)
{
    wt_err why;
    int rc = wafer_init(out, in->mesh_w, in->mesh_h, in->wafers_x, in->wafers_y, &why);
    if (rc == WT_EINPUT)
        return ydoc_fail(d, in->mesh_node, e, "mesh: %s", why.msg);
    if (rc) {
        if (e)
            *e = why;
        return rc;
    }
    memcpy(out->name, in->name, sizeof out->name);
    out->peak_flops = in->compute;
    out->efficiency = in->efficiency;
    out->sram_bytes = in->sram;
    out->dram_bytes = in->dram;
    out->dram_bw = in->dram_bw;
    out->link_bw = in->bw;
    out->link_lat = in->lat;
    out->link_overhead = in->overhead;
    out->chunk_overhead = in->chunk_overhead;
    /* By default a wafer edge is as fast as the on-wafer links it replaces,
     * the same rule wafer_init applies to its own default links. */
    int edge = in->mesh_w > in->mesh_h ? in->mesh_w : in->mesh_h;
    out->iw_bw = in->has_iw_bw ? in->iw_bw : in->bw * edge;
    out->iw_lat = in->has_iw_lat ? in->iw_lat : in->lat;
    out->store_bytes = in->store_bytes;
    out->store_bw_in = in->store_bw_in;
    out->store_bw_out = in->store_bw_out;
    out->store_lat = in->store_lat;
    out->store_ports = in->store_ports;
    out->router = in->router;
    out->flit_bytes = (int)in->flit_bytes;
    memcpy(out->strategy, in->strategy, sizeof out->strategy);
    out->strategy_microbatch = in->strategy_microbatch;

    rc = layout_apply_faults(d, in->fault_units, 0, out, e);
    if (!rc)
        rc = layout_apply_faults(d, in->fault_links, 1, out, e);
    if (rc)
        wafer_free(out);
    return rc;
}

int layout_load(const char *path, wafer *out, wt_err *e)
{
    return layout_load_with(path, NULL, out, e);
}

int layout_load_with(const char *path, const layout_opts *o, wafer *out, wt_err *e)
{
    const layout_opts none = {"", NULL, 0, 0};
    o = o ? o : &none;
    memset(out, 0, sizeof *out);
    layout_in in;
    memset(&in, 0, sizeof in);
    in.wafers_x = in.wafers_y = 1;
    in.efficiency = 0.8;
    in.overhead = 1e-6;
    in.chunk_overhead = 100e-9;
    flit_cfg_defaults(&in.router);
    in.flit_bytes = WAFER_FLIT_BYTES;

    ydoc d;
    int rc = ydoc_load(&d, path, e);
    if (rc)
        return rc;
    rc = ydoc_map(&d, ydoc_root(&d), layout_keys, &in, e);
    for (int i = 0; !rc && i < o->nset; i++)
        rc = layout_override(o->who, o->set[i], &in, e);
    if (!rc)
        rc = layout_build(&d, &in, out, e);
    ydoc_free(&d);
    if (rc || o->no_calib)
        return rc;
    /* a path too long for its calibration file's name has none */
    char cpath[sizeof out->calib.path];
    if (calib_path_of(path, cpath, sizeof cpath) == 0 && (rc = calib_load(cpath, out->name, &out->calib, e)))
        wafer_free(out);
    return rc;
}
