#include "strategy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "qty.h"

#define DIM_MAX (1 << 24)

static const char *const dim_names[] = {"DP", "TP", "SP", "PP", "TATP"};

static const choice recomputes[] = {
    [RECOMPUTE_NONE] = {"none", CHOICE_SEARCH},
    [RECOMPUTE_SELECTIVE] = {"selective", CHOICE_SEARCH},
    [RECOMPUTE_FULL] = {"full", CHOICE_SEARCH},
};
_Static_assert(sizeof recomputes / sizeof recomputes[0] == RECOMPUTE_NKINDS, "one row per model_recompute");

static const choice grad_compressions[] = {
    [GRAD_NONE] = {"none", 0},
    [GRAD_FP8] = {"fp8", 0},
    [GRAD_1BIT] = {"1bit", 0},
};
_Static_assert(sizeof grad_compressions / sizeof grad_compressions[0] == GRAD_NKINDS, "one row per grad_compress");

/* Row i is the switch of bit 1 << i. */
static const choice mem_switches[] = {{"zero", CHOICE_SEARCH}, {"act_int8", CHOICE_SEARCH}, {"grad_fp8", CHOICE_SEARCH}};
_Static_assert(sizeof mem_switches / sizeof mem_switches[0] == MEM_NSWITCHES, "one row per memory switch");
_Static_assert(MEM_ZERO == 1u << 0 && MEM_ACT_INT8 == 1u << 1 && MEM_GRAD_FP8 == 1u << 2, "MEM_* bits are rows");

static const choice exec_modes[] = {
    [EXEC_RESIDENT] = {"resident", CHOICE_SEARCH},
    [EXEC_STREAM] = {"stream", CHOICE_SEARCH},
};
_Static_assert(sizeof exec_modes / sizeof exec_modes[0] == EXEC_NKINDS, "one row per exec_mode");

static const choice on_off[] = {{"off", 0}, {"on", 0}};

choice_table recompute_table(void) { return CHOICE_TABLE(recomputes); }
choice_table grad_compress_table(void) { return CHOICE_TABLE(grad_compressions); }
choice_table mem_switch_table(void) { return CHOICE_TABLE(mem_switches); }
choice_table exec_mode_table(void) { return CHOICE_TABLE(exec_modes); }
const char *exec_mode_name(exec_mode x) { return choice_at(exec_mode_table(), x)->name; }

void strategy_defaults(strategy *s)
{
    memset(s, 0, sizeof *s);
    s->dp = s->tp = s->sp = s->pp = s->tatp = 1;
    s->tatp_w = s->tatp_h = 1;
    s->placement = PLACE_TILES;
    s->collective = COLL_RING;
    s->routing = ROUTE_XY;
    s->checkpoint = RECOMPUTE_NONE;
    s->sub_w = s->sub_h = 8;
    s->tp_seqpar = 1;
}

static int *dim_slot(strategy *s, int d)
{
    int *slots[] = {&s->dp, &s->tp, &s->sp, &s->pp, &s->tatp};
    return slots[d];
}

/* Reads a positive integer at *p, advancing it. 0 on success. */
static int read_count(const char **p, int *out)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(*p, &end, 10);
    if (errno || v <= 0 || v > DIM_MAX)
        return -1;
    *p = end;
    *out = (int)v;
    return 0;
}

static int parse_tuple(const char *text, const char *p, strategy *s, wt_err *e)
{
    p++; /* '(' */
    for (int d = 0; d < 5; d++) {
        while (isspace((unsigned char)*p))
            p++;
        if (read_count(&p, dim_slot(s, d)) != 0)
            return wt_fail(e, "strategy '%s': %s must be a positive whole number", text, dim_names[d]);
        while (isspace((unsigned char)*p))
            p++;
        if (d < 4 && *p++ != ',')
            return wt_fail(e, "strategy '%s': expected five numbers (DP,TP,SP,PP,TATP)", text);
    }
    if (*p++ != ')')
        return wt_fail(e, "strategy '%s': expected ')' after five numbers", text);
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return wt_fail(e, "strategy '%s': unexpected text after ')'", text);
    s->dp_given = 1;
    return WT_OK;
}

int strategy_parse(const char *text, strategy *s, wt_err *e)
{
    s->dp = s->tp = s->sp = s->pp = s->tatp = 1;
    s->tatp_w = s->tatp_h = 1;
    s->dp_given = s->grid_given = 0;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '(')
        return parse_tuple(text, p, s, e);
    if (!*p)
        return wt_fail(e, "strategy is empty: expected e.g. DP8,TATP16 or (8,1,1,1,16)");
    unsigned seen = 0;
    while (*p) {
        const char *name = p;
        while (isalpha((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - name);
        int d = -1;
        for (int i = 0; i < 5; i++)
            if (strlen(dim_names[i]) == len && strncasecmp(name, dim_names[i], len) == 0)
                d = i;
        if (d < 0)
            return wt_fail(e, "strategy '%s': unknown dimension '%.*s' (expected DP, TP, SP, PP, TATP)", text,
                           (int)(len ? len : 1), name);
        if (seen & (1u << d))
            return wt_fail(e, "strategy '%s': %s given twice", text, dim_names[d]);
        seen |= 1u << d;
        if (read_count(&p, dim_slot(s, d)) != 0)
            return wt_fail(e, "strategy '%s': %s needs a positive whole number", text, dim_names[d]);
        if (*p == 'x' || *p == 'X') {
            p++;
            int gh;
            if (d != 4 || read_count(&p, &gh) != 0)
                return wt_fail(e, "strategy '%s': only TATP takes a grid, as TATP4x8", text);
            s->tatp_w = s->tatp;
            s->tatp_h = gh;
            if ((long long)s->tatp_w * gh > DIM_MAX)
                return wt_fail(e, "strategy '%s': TATP grid too large", text);
            s->tatp *= gh;
            s->grid_given = 1;
        }
        if (*p && *p != ',' && !isspace((unsigned char)*p))
            return wt_fail(e, "strategy '%s': unexpected '%c' after %s", text, *p, dim_names[d]);
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
    }
    s->dp_given = (seen & 1u) != 0;
    return WT_OK;
}

static int parse_mem(strategy *s, const char *value, wt_err *e)
{
    unsigned mem = 0;
    char buf[128];
    if (strlen(value) >= sizeof buf)
        return wt_fail(e, "memory switches '%.40s...' too long", value);
    strcpy(buf, value);
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (strcasecmp(tok, "none") == 0)
            continue;
        int i = choice_find(mem_switch_table(), tok);
        if (i < 0)
            return choice_fail(mem_switch_table(), "memory switch", tok, e);
        mem |= 1u << i;
    }
    s->mem = mem;
    return WT_OK;
}

static int parse_subgroup(strategy *s, const char *value, wt_err *e)
{
    const char *p = value;
    int w, h;
    if (read_count(&p, &w) != 0 || (*p != 'x' && *p != 'X'))
        return wt_fail(e, "subgroup '%s' must be WxH, as 8x8", value);
    p++;
    if (read_count(&p, &h) != 0 || *p)
        return wt_fail(e, "subgroup '%s' must be WxH, as 8x8", value);
    s->sub_w = w;
    s->sub_h = h;
    return WT_OK;
}

static int parse_chunk(strategy *s, const char *value, wt_err *e)
{
    if (strcmp(value, "0") == 0) {
        s->chunk = 0;
        return WT_OK;
    }
    char why[128];
    double v;
    if (qty_parse(value, QTY_BYTES, &v, why, sizeof why) != 0)
        return wt_fail(e, "chunk '%s': %s", value, why);
    if (v < 0)
        return wt_fail(e, "chunk '%s' must not be negative", value);
    s->chunk = v;
    return WT_OK;
}

/* The options with named values: the table they index and where they go. */
typedef struct named_option {
    const char *name;       /* as strategy_set_option takes it */
    const char *what;       /* in its error */
    choice_table (*table)(void);
    void (*set)(strategy *s, int i);
} named_option;

static choice_table on_off_table(void) { return CHOICE_TABLE(on_off); }
static void set_placement(strategy *s, int i) { s->placement = (place_kind)i; }
static void set_collective(strategy *s, int i) { s->collective = (coll_algo)i; }
static void set_routing(strategy *s, int i) { s->routing = (route_mode)i; }
static void set_checkpoint(strategy *s, int i) { s->checkpoint = (model_recompute)i; }
static void set_grad(strategy *s, int i) { s->grad = (grad_compress)i; }
static void set_seqpar(strategy *s, int i) { s->tp_seqpar = i; }
static void set_exec(strategy *s, int i) { s->exec = (exec_mode)i; }

static const named_option named_options[] = {
    {"placement", "placement", place_kind_table, set_placement},
    {"collective", "collective", coll_algo_table, set_collective},
    {"routing", "routing", route_mode_table, set_routing},
    {"checkpoint", "checkpoint", recompute_table, set_checkpoint},
    {"grad-compress", "gradient compression", grad_compress_table, set_grad},
    {"tp-seqpar", "tp-seqpar", on_off_table, set_seqpar},
    {"exec", "exec", exec_mode_table, set_exec},
};

int strategy_set_option(strategy *s, const char *name, const char *value, wt_err *e)
{
    for (size_t k = 0; k < sizeof named_options / sizeof named_options[0]; k++) {
        const named_option *o = &named_options[k];
        if (strcmp(name, o->name) != 0)
            continue;
        int i = choice_find(o->table(), value);
        if (i < 0)
            return choice_fail(o->table(), o->what, value, e);
        o->set(s, i);
        return WT_OK;
    }
    if (strcmp(name, "mem") == 0)
        return parse_mem(s, value, e);
    if (strcmp(name, "subgroup") == 0)
        return parse_subgroup(s, value, e);
    if (strcmp(name, "chunk") == 0)
        return parse_chunk(s, value, e);
    return wt_fail(e, "unknown strategy option '%s'", name);
}

int strategy_set_options(const char *opts, strategy *s, wt_err *e)
{
    char buf[256], *save = NULL;
    if (strlen(opts) >= sizeof buf)
        return wt_fail(e, "strategy options '%.40s...' are too long", opts);
    memcpy(buf, opts, strlen(opts) + 1);
    int rc = WT_OK;
    for (char *opt = strtok_r(buf, ";", &save); rc == WT_OK && opt; opt = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(opt, '=');
        if (!eq)
            return wt_fail(e, "strategy option '%s': expected name=value", opt);
        *eq = '\0';
        rc = strategy_set_option(s, opt, eq + 1, e);
    }
    return rc;
}

int strategy_spec(const char *spec, strategy *s, wt_err *e)
{
    char buf[256];
    size_t len = strcspn(spec, ";");
    if (len >= sizeof buf)
        return wt_fail(e, "strategy '%.40s...' is too long", spec);
    memcpy(buf, spec, len);
    buf[len] = '\0';
    strategy_defaults(s);
    int rc = strategy_parse(buf, s, e);
    return rc == WT_OK ? strategy_set_options(spec + len, s, e) : rc;
}

int strategy_of_layout(const wafer *wf, strategy *s, wt_err *e)
{
    wt_err why;
    if (!wf->strategy[0]) {
        strategy_defaults(s);
        return strategy_parse(STRATEGY_DEFAULT_TEXT, s, e);
    }
    if (strategy_spec(wf->strategy, s, &why) != WT_OK)
        return wt_fail(e, "layout %s: strategy: %s", wf->name, why.msg);
    return WT_OK;
}

int strategy_default_grid(int n, int mesh_w, int mesh_h, int *gw, int *gh)
{
    int best_w = 0, best_h = 0;
    /* a wider grid leaves the mesh: n may be far larger than the mesh */
    for (int w = 1; w <= n && w <= mesh_w; w++) {
        if (n % w)
            continue;
        int h = n / w;
        if (h > mesh_h)
            continue;
        int d = abs(w - h), best_d = abs(best_w - best_h);
        /* Squarest first; between W x H and H x W, the wider one. */
        if (!best_w || d < best_d || (d == best_d && w > best_w)) {
            best_w = w;
            best_h = h;
        }
    }
    *gw = best_w;
    *gh = best_h;
    return best_w != 0;
}

int strategy_units(const strategy *s)
{
    return s->dp * s->tp * s->sp * s->pp * s->tatp;
}

int strategy_seqpar_fits(const model *m, int tp, int sp)
{
    return (m->seq / sp) % tp == 0;
}

int strategy_resolve(strategy *s, const model *m, const wafer *wf, wt_err *e)
{
    char name[64] = "";
    if (e) /* named in every message; not worth formatting when nobody reads it */
        strategy_format(s, name, sizeof name);
    if (s->grid_given) {
        if (s->tatp_w > wf->w || s->tatp_h > wf->h)
            return wt_fail(e, "strategy %s: TATP grid %dx%d does not fit the %dx%d mesh", name, s->tatp_w,
                           s->tatp_h, wf->w, wf->h);
    } else if (!strategy_default_grid(s->tatp, wf->w, wf->h, &s->tatp_w, &s->tatp_h)) {
        return wt_fail(e, "strategy %s: no W x H grid of %d units fits the %dx%d mesh", name, s->tatp, wf->w,
                       wf->h);
    }
    if (m->heads % s->tp || m->kv_heads % s->tp)
        return wt_fail(e, "strategy %s: TP %d must divide the model's %d heads and %d kv_heads", name, s->tp,
                       m->heads, m->kv_heads);
    if (m->ffn % s->tp)
        return wt_fail(e, "strategy %s: TP %d must divide the model's ffn width %d", name, s->tp, m->ffn);
    if (m->seq % s->sp)
        return wt_fail(e, "strategy %s: SP %d must divide the sequence length %d", name, s->sp, m->seq);
    if (s->tp_seqpar && !strategy_seqpar_fits(m, s->tp, s->sp))
        return wt_fail(e, "strategy %s: with --tp-seqpar on, TP %d must divide the %d tokens of a sequence "
                          "shard (or turn --tp-seqpar off)", name, s->tp, m->seq / s->sp);
    if (s->exec == EXEC_STREAM && !wf->store_ports)
        return wt_fail(e, "exec stream: the layout %s has no parameter store (a store: section)", wf->name);
    if (s->exec == EXEC_STREAM && wafer_store_port(wf, 0) < 0)
        return wt_fail(e, "exec stream: every unit on the store's port edges of %s is dead", wf->name);
    if (s->exec == EXEC_STREAM && (s->mem & MEM_ZERO))
        return wt_fail(e, "strategy %s: exec stream keeps no weights on the wafer for mem zero to shard", name);
    if (s->exec == EXEC_STREAM && s->pp > 1)
        return wt_fail(e, "strategy %s: exec stream runs every layer on the whole wafer in turn: PP must be 1",
                       name);
    if (s->pp > m->layers)
        return wt_fail(e, "strategy %s: PP %d is more stages than the model's %d layers", name, s->pp,
                       m->layers);
    long long live = wafer_live_units(wf);
    /* In double: each dimension is below 2^24, their product need not fit a
     * long long. Past 2^53 it rounds, but stays far above any mesh. */
    double inner = (double)s->tp * s->sp * s->pp * s->tatp;
    double need = inner * (s->dp_given ? s->dp : 1);
    if (need > (double)live)
        return wt_fail(e, "strategy %s needs %.0f units but the layout has %lld live units", name, need, live);
    if (!s->dp_given) {
        /* Fill the units left over, down to a DP that divides the batch. */
        int dp = (int)(live / (long long)inner);
        while (dp > 1 && m->batch % ((long long)dp * m->microbatch))
            dp--;
        s->dp = dp;
    } else if (m->batch % ((long long)s->dp * m->microbatch)) {
        return wt_fail(e, "strategy %s: batch %d is not a multiple of DP %d x micro-batch %d", name, m->batch,
                       s->dp, m->microbatch);
    }
    return WT_OK;
}

char *strategy_format(const strategy *s, char *buf, size_t n)
{
    const int v[] = {s->dp, s->tp, s->sp, s->pp, s->tatp};
    size_t len = 0;
    buf[0] = '\0';
    for (int d = 0; d < 5 && len < n; d++) {
        if (v[d] == 1 && !(d == 0 && s->dp_given))
            continue;
        if (d == 4 && s->grid_given)
            len += (size_t)snprintf(buf + len, n - len, "%sTATP%dx%d", len ? "," : "", s->tatp_w, s->tatp_h);
        else
            len += (size_t)snprintf(buf + len, n - len, "%s%s%d", len ? "," : "", dim_names[d], v[d]);
    }
    if (!buf[0])
        snprintf(buf, n, "DP1");
    return buf;
}

const char *recompute_name(model_recompute r) { return choice_at(recompute_table(), r)->name; }
const char *grad_compress_name(grad_compress g) { return choice_at(grad_compress_table(), g)->name; }

char *mem_switches_format(unsigned mem, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; i < MEM_NSWITCHES; i++)
        if (mem & (1u << i))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "", mem_switches[i].name);
    if (!buf[0])
        snprintf(buf, n, "none");
    return buf;
}
