/*
 * wtlua_module.c - the `wafertop` module (docs/LUA.md): layouts, models,
 * strategies, evaluation, custom traffic, commands and policies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "net.h"
#include "qty.h"
#include "route.h"
#include "search.h"
#include "wtlua_int.h"

#define WT_VERSION "0.1.0"

/* ---- models ---- */

typedef struct int_field {
    const char *name;
    size_t offset;
} int_field;

static const int_field model_ints[] = {
    {"layers", offsetof(model, layers)}, {"hidden", offsetof(model, hidden)},
    {"heads", offsetof(model, heads)},   {"kv_heads", offsetof(model, kv_heads)},
    {"ffn", offsetof(model, ffn)},       {"vocab", offsetof(model, vocab)},
    {"seq", offsetof(model, seq)},       {"batch", offsetof(model, batch)},
    {"microbatch", offsetof(model, microbatch)},
};
#define NMODEL_INTS (sizeof model_ints / sizeof model_ints[0])

void wtlua_push_model(lua_State *L, const model *m)
{
    lua_createtable(L, 0, 14);
    lua_pushstring(L, m->name);
    lua_setfield(L, -2, "name");
    for (size_t i = 0; i < NMODEL_INTS; i++) {
        lua_pushinteger(L, *(const int *)((const char *)m + model_ints[i].offset));
        lua_setfield(L, -2, model_ints[i].name);
    }
    lua_pushstring(L, m->mlp == MODEL_SWIGLU ? "swiglu" : "gelu");
    lua_setfield(L, -2, "mlp");
    lua_pushboolean(L, m->tied_embeddings);
    lua_setfield(L, -2, "tied_embeddings");
    lua_pushnumber(L, model_params(m));
    lua_setfield(L, -2, "params");
}

/* The largest whole number a table field takes (sizes, dimensions). */
#define FIELD_MAX (1 << 30)

/* A whole number field of a table, in [1, FIELD_MAX]. */
static int int_value(lua_State *L, int idx, const char *what)
{
    int isnum;
    lua_Integer v = lua_tointegerx(L, idx, &isnum);
    if (!isnum || v <= 0 || v > FIELD_MAX)
        luaL_error(L, "%s must be a positive whole number", what);
    return (int)v;
}

/* Reads a model table: the YAML model file's fields and defaults. */
static void model_from_table(lua_State *L, int idx, model *m)
{
    idx = lua_absindex(L, idx);
    memset(m, 0, sizeof *m);
    strcpy(m->name, "lua");
    m->tied_embeddings = 1;
    m->microbatch = 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        size_t i;
        for (i = 0; i < NMODEL_INTS && strcmp(key, model_ints[i].name); i++)
            ;
        if (i < NMODEL_INTS) {
            *(int *)((char *)m + model_ints[i].offset) = int_value(L, -1, key);
        } else if (!strcmp(key, "name")) {
            snprintf(m->name, sizeof m->name, "%s", luaL_checkstring(L, -1));
        } else if (!strcmp(key, "mlp")) {
            const char *v = luaL_checkstring(L, -1);
            if (strcmp(v, "gelu") && strcmp(v, "swiglu"))
                luaL_error(L, "model mlp must be gelu or swiglu, not '%s'", v);
            m->mlp = strcmp(v, "swiglu") ? MODEL_GELU : MODEL_SWIGLU;
        } else if (!strcmp(key, "tied_embeddings")) {
            m->tied_embeddings = lua_toboolean(L, -1);
        } else if (strcmp(key, "params")) { /* params is ours, read back from wt.model */
            luaL_error(L, "model: unknown field '%s' (fields: name, layers, hidden, heads, kv_heads, ffn, mlp, "
                          "vocab, tied_embeddings, seq, batch, microbatch)", key);
        }
        lua_pop(L, 1);
    }
    if (!m->kv_heads)
        m->kv_heads = m->heads;
    if (!m->ffn)
        m->ffn = 4 * m->hidden;
}

void wtlua_check_model(lua_State *L, int idx, model *out)
{
    wt_err e;
    if (lua_type(L, idx) == LUA_TSTRING) {
        int file = wtlua_check_file(L, lua_tostring(L, idx));
        if (model_load(lua_tostring(L, idx), out, &e) != WT_OK)
            file ? wtlua_file_error(L, &e) : luaL_error(L, "%s", e.msg);
        return;
    }
    if (!lua_istable(L, idx))
        luaL_error(L, "a model is a preset name, a YAML path or a table, not a %s", luaL_typename(L, idx));
    model_from_table(L, idx, out);
    if (model_check(out, &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
}

static int l_model(lua_State *L)
{
    model m;
    wtlua_check_model(L, 1, &m);
    wtlua_push_model(L, &m);
    return 1;
}

/* ---- strategies ---- */

/* Lua names of the strategy options and strategy_set_option's. */
static const char *const option_keys[][2] = {
    {"placement", "placement"},   {"collective", "collective"}, {"routing", "routing"},
    {"checkpoint", "checkpoint"}, {"mem", "mem"},               {"grad_compress", "grad-compress"},
    {"chunk", "chunk"},           {"subgroup", "subgroup"},     {"tp_seqpar", "tp-seqpar"},
    {"exec", "exec"},
};
#define NOPTIONS (sizeof option_keys / sizeof option_keys[0])

/* Applies an option value (string, number of bytes, boolean or list). */
static void set_option(lua_State *L, strategy *s, const char *opt, int vidx)
{
    char buf[160];
    const char *value;
    if (lua_isboolean(L, vidx)) {
        value = lua_toboolean(L, vidx) ? "on" : "off";
    } else if (lua_type(L, vidx) == LUA_TNUMBER) { /* chunk in bytes */
        snprintf(buf, sizeof buf, lua_tonumber(L, vidx) == 0 ? "0" : "%.17g B", lua_tonumber(L, vidx));
        value = buf;
    } else if (lua_istable(L, vidx)) { /* mem = {"zero", "act_int8"} */
        buf[0] = '\0';
        for (lua_Integer i = 1; lua_rawgeti(L, vidx, i) == LUA_TSTRING; i++) {
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i > 1 ? "," : "", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        value = buf;
    } else {
        value = luaL_checkstring(L, vidx);
    }
    wt_err e;
    if (strategy_set_option(s, opt, value, &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
}

/* 1 when key is an option, applied to s. */
static int try_option(lua_State *L, strategy *s, const char *key, int vidx)
{
    for (size_t i = 0; i < NOPTIONS; i++) {
        if (!strcmp(key, option_keys[i][0])) {
            set_option(L, s, option_keys[i][1], vidx);
            return 1;
        }
    }
    return 0;
}

/* DP, TP, SP, PP, TATP by index. */
static int *dim_slot(strategy *s, int d)
{
    int *slots[] = {&s->dp, &s->tp, &s->sp, &s->pp, &s->tatp};
    return slots[d];
}

static void strategy_from_table(lua_State *L, int idx, strategy *s)
{
    static const char *const dims[] = {"dp", "tp", "sp", "pp", "tatp"};
    idx = lua_absindex(L, idx);
    wt_err e;
    s->dp = s->tp = s->sp = s->pp = s->tatp = s->tatp_w = s->tatp_h = 1;
    s->dp_given = s->grid_given = 0;
    if (lua_getfield(L, idx, "text") == LUA_TSTRING && strategy_parse(lua_tostring(L, -1), s, &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
    lua_pop(L, 1);
    if (lua_rawgeti(L, idx, 1) != LUA_TNIL) { /* {8, 1, 1, 1, 16} */
        for (int d = 0; d < 5; d++) {
            lua_rawgeti(L, idx, d + 1);
            *dim_slot(s, d) = int_value(L, -1, "a strategy size");
            lua_pop(L, 1);
        }
        s->dp_given = 1;
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) == LUA_TNUMBER || (lua_type(L, -2) == LUA_TSTRING && !strcmp(lua_tostring(L, -2), "text"))) {
            lua_pop(L, 1);
            continue;
        }
        const char *key = luaL_checkstring(L, -2);
        int d;
        for (d = 0; d < 5 && strcmp(key, dims[d]); d++)
            ;
        if (d < 5) {
            *dim_slot(s, d) = int_value(L, -1, key);
            if (d == 0)
                s->dp_given = 1;
        } else if (!strcmp(key, "tatp_grid")) {
            int w, h;
            char extra;
            /* %9d: sscanf's overflow is undefined; the product is TATP, a dimension */
            if (sscanf(luaL_checkstring(L, -1), "%9dx%9d%c", &w, &h, &extra) != 2 || w <= 0 || h <= 0 ||
                (long long)w * h > FIELD_MAX)
                luaL_error(L, "tatp_grid must be WxH, as \"4x8\", of at most 2^30 units");
            s->tatp_w = w;
            s->tatp_h = h;
            s->grid_given = 1;
        } else if (!try_option(L, s, key, lua_gettop(L))) {
            luaL_error(L, "strategy: unknown field '%s' (dp, tp, sp, pp, tatp, tatp_grid, text, placement, "
                          "collective, routing, checkpoint, mem, grad_compress, chunk, subgroup, tp_seqpar, exec)", key);
        }
        lua_pop(L, 1);
    }
    if (s->grid_given) {
        if (s->tatp != 1 && s->tatp != s->tatp_w * s->tatp_h)
            luaL_error(L, "tatp %d does not match tatp_grid %dx%d", s->tatp, s->tatp_w, s->tatp_h);
        s->tatp = s->tatp_w * s->tatp_h;
    }
}

void wtlua_check_strategy(lua_State *L, int idx, strategy *s)
{
    wt_err e;
    if (lua_type(L, idx) == LUA_TSTRING) {
        if (strategy_parse(lua_tostring(L, idx), s, &e) != WT_OK)
            luaL_error(L, "%s", e.msg);
        return;
    }
    if (!lua_istable(L, idx))
        luaL_error(L, "a strategy is a string or a table, not a %s", luaL_typename(L, idx));
    strategy_from_table(L, idx, s);
}

void wtlua_push_strategy(lua_State *L, const strategy *s)
{
    char buf[96];
    lua_createtable(L, 0, 16);
    lua_pushstring(L, strategy_format(s, buf, sizeof buf));
    lua_setfield(L, -2, "text");
    const int v[] = {s->dp, s->tp, s->sp, s->pp, s->tatp};
    static const char *const dims[] = {"dp", "tp", "sp", "pp", "tatp"};
    for (int d = 0; d < 5; d++) {
        lua_pushinteger(L, v[d]);
        lua_setfield(L, -2, dims[d]);
    }
    if (s->grid_given) {
        lua_pushfstring(L, "%dx%d", s->tatp_w, s->tatp_h);
        lua_setfield(L, -2, "tatp_grid");
    }
    lua_pushstring(L, place_kind_name(s->placement));
    lua_setfield(L, -2, "placement");
    lua_pushstring(L, coll_algo_name(s->collective));
    lua_setfield(L, -2, "collective");
    lua_pushstring(L, route_mode_name(s->routing));
    lua_setfield(L, -2, "routing");
    lua_pushstring(L, recompute_name(s->checkpoint));
    lua_setfield(L, -2, "checkpoint");
    lua_pushstring(L, mem_switches_format(s->mem, buf, sizeof buf));
    lua_setfield(L, -2, "mem");
    lua_pushstring(L, grad_compress_name(s->grad));
    lua_setfield(L, -2, "grad_compress");
    lua_pushnumber(L, s->chunk);
    lua_setfield(L, -2, "chunk");
    lua_pushfstring(L, "%dx%d", s->sub_w, s->sub_h);
    lua_setfield(L, -2, "subgroup");
    lua_pushboolean(L, s->tp_seqpar);
    lua_setfield(L, -2, "tp_seqpar");
    lua_pushstring(L, exec_mode_name(s->exec));
    lua_setfield(L, -2, "exec");
}

static int l_strategy(lua_State *L)
{
    strategy s;
    strategy_defaults(&s);
    wtlua_check_strategy(L, 1, &s);
    wtlua_push_strategy(L, &s);
    return 1;
}

/* ---- evaluation ---- */

static int l_layout(lua_State *L)
{
    wtlua_push_layout(L, luaL_checkstring(L, 1));
    return 1;
}

/* The layout (left at stack index 2, kept alive there) and the model of an
 * options table at index 1, with its seq and batch (and microbatch when
 * asked) overrides; defaults: layout "default", model "gpt3-6.7b". */
static wtlua_layout *scenario_args(lua_State *L, model *m, int with_microbatch)
{
    if (lua_getfield(L, 1, "layout") == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushliteral(L, "default");
    }
    wtlua_layout *lay = wtlua_to_layout(L, 2);
    if (lua_getfield(L, 1, "model") == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushliteral(L, "gpt3-6.7b");
    }
    wtlua_check_model(L, 3, m);
    lua_pop(L, 1);
    static const char *const overrides[] = {"seq", "batch", "microbatch"};
    int *slots[] = {&m->seq, &m->batch, &m->microbatch};
    for (int i = 0; i < 2 + with_microbatch; i++) {
        if (lua_getfield(L, 1, overrides[i]) != LUA_TNIL)
            *slots[i] = int_value(L, -1, overrides[i]);
        lua_pop(L, 1);
    }
    return lay;
}

/* The network model named by the field `net` of the table at t, the
 * default one when there is none; a name that is no model raises an error
 * that lists them. */
static const net_model *net_field(lua_State *L, int t)
{
    const net_model *net = net_model_default();
    if (lua_getfield(L, t, "net") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "net must be a string, not %s", luaL_typename(L, -1));
        if (!(net = net_model_find(lua_tostring(L, -1)))) {
            wt_err e;
            choice_fail(net_model_table(), "net", lua_tostring(L, -1), &e);
            luaL_error(L, "%s", e.msg);
        }
    }
    lua_pop(L, 1);
    return net;
}

double wtlua_window_field(lua_State *L, int t)
{
    double w = SIM_WINDOW_S;
    char why[128] = "";
    int type = lua_getfield(L, t, "window");
    if (type == LUA_TNUMBER)
        w = lua_tonumber(L, -1);
    else if (type == LUA_TSTRING && qty_parse(lua_tostring(L, -1), QTY_TIME, &w, why, sizeof why) != 0)
        luaL_error(L, "window: '%s': %s", lua_tostring(L, -1), why);
    else if (type != LUA_TNIL && type != LUA_TSTRING)
        luaL_error(L, "window must be a time (seconds, or text such as \"100us\"), not %s", luaL_typename(L, -1));
    if (!(w > 0) || !isfinite(w))
        luaL_error(L, "window must be a positive time, e.g. 100e-6 or \"100us\"");
    lua_pop(L, 1);
    return w;
}

/* The scenario of an options table at index 1 (see wtlua_int.h); fields
 * other than the scenario's and `also` are errors. The layout stays at 2. */
wtlua_layout *wtlua_scenario(lua_State *L, model *m, strategy *s, const net_model **net, const char *const *also)
{
    static const char *const known[] = {"layout", "model", "strategy", "seq", "batch", "microbatch", "net", NULL};
    wtlua_layout *lay = scenario_args(L, m, 1);
    *net = net_field(L, 1);
    strategy_defaults(s);
    wt_err e;
    if (lua_getfield(L, 1, "strategy") != LUA_TNIL)
        wtlua_check_strategy(L, -1, s);
    else if (strategy_of_layout(&lay->wf, s, &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
    else if (lay->wf.strategy_microbatch && lua_getfield(L, 1, "microbatch") == LUA_TNIL)
        m->microbatch = lay->wf.strategy_microbatch; /* and the micro-batch it is meant for */
    lua_settop(L, 2); /* the layout stays at 2 */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        int k = 0, a = 0;
        while (known[k] && strcmp(known[k], key))
            k++;
        while (also && also[a] && strcmp(also[a], key))
            a++;
        if (!known[k] && !(also && also[a]) && !try_option(L, s, key, lua_gettop(L)))
            luaL_error(L, "unknown field '%s'", key);
        lua_pop(L, 1);
    }
    return lay;
}

/* wt.eval{layout=, model=, strategy=, <options>, seq=, batch=, microbatch=, net=, window=} */
static int l_eval(lua_State *L)
{
    static const char *const also[] = {"window", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    model m;
    strategy s;
    const net_model *net;
    wtlua_layout *lay = wtlua_scenario(L, &m, &s, &net, also);
    double window = wtlua_window_field(L, 1);
    wtlua_room(L, 2 * wafer_nlinks(&lay->wf) * sizeof(double)); /* its link bytes and peaks */
    sim_result *r = wtlua_new_result(L, 2);
    wt_err e;
    if (sim_eval_net(r, &lay->wf, net, &m, &s, &e) != WT_OK || sim_window_figures(r, window, &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
    wtlua_hold_result(L, -1);
    return 1;
}

/* ---- custom traffic ---- */

/* {x, y} -> unit index on wf. */
static int unit_at(lua_State *L, const wafer *wf, int idx, const char *what, lua_Integer i)
{
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx))
        luaL_error(L, "wt.route: flow %d: %s must be {x, y}", (int)i, what);
    lua_rawgeti(L, idx, 1);
    lua_rawgeti(L, idx, 2);
    int okx, oky;
    lua_Integer x = lua_tointegerx(L, -2, &okx), y = lua_tointegerx(L, -1, &oky);
    lua_pop(L, 2);
    if (!okx || !oky || x < 0 || y < 0 || x >= wf->w || y >= wf->h)
        luaL_error(L, "wt.route: flow %d: %s must be {x, y} inside the %dx%d mesh", (int)i, what, wf->w, wf->h);
    return wafer_unit(wf, (int)x, (int)y);
}

/* Raises "<where>unknown field 'k' (fields: a, b, ...)" for a string key of
 * the table at t that known (NULL-terminated) lacks; a typo would otherwise
 * pass for a default. */
static void check_fields(lua_State *L, int t, const char *const *known, const char *where)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        int k = 0;
        while (known[k] && strcmp(known[k], key))
            k++;
        if (!known[k]) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (k = 0; known[k]; k++) {
                luaL_addstring(&b, k ? ", " : "");
                luaL_addstring(&b, known[k]);
            }
            luaL_pushresult(&b);
            luaL_error(L, "%sunknown field '%s' (fields: %s)", where, key, lua_tostring(L, -1));
        }
        lua_pop(L, 1);
    }
}

/* Field key of flow i (the table at f) as a finite number >= 0; when
 * absent, 0 or, when required, an error. */
static double flow_amount(lua_State *L, int f, const char *key, int required, lua_Integer i)
{
    double v = 0;
    if (lua_getfield(L, f, key) == LUA_TNIL) {
        if (required)
            luaL_error(L, "wt.route: flow %d: %s is missing", (int)i, key);
    } else {
        int isnum;
        v = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(v >= 0) || !isfinite(v))
            luaL_error(L, "wt.route: flow %d: %s must be a finite number >= 0", (int)i, key);
    }
    lua_pop(L, 1);
    return v;
}

/* Routes the n flows together into all (the summed loads, which the caller
 * frees), then each on its own for its links and latency, and times them
 * as classes cls[n] (start_s and prio set by the caller) with net into t[n]
 * and *end_s. A flow is a class of work = its bytes and load = the share of
 * its bytes on each link (1 on a path, 1/2 on each half of a balanced one),
 * so that max-min shares bytes per second between flows, not fractions of
 * each flow's work. */
static int route_times(const wafer *wf, const net_model *net, const route_flow *flows, flow_class *cls, int n,
                       route_mode mode, route_sparse *all, route_stats *st, flow_time *t, double *end_s, wt_err *e)
{
    size_t nl = wafer_nlinks(wf);
    route_sparse per = {0};
    size_t *off = malloc(sizeof *off * ((size_t)n + 1));
    double *inv_bw = malloc(sizeof *inv_bw * nl);
    route_ctx *rc = NULL;
    int rv = off && inv_bw ? route_ctx_new(&rc, wf, e) : wt_oom(e, "wt.route");
    if (rv == WT_OK)
        rv = route_flows_sparse(rc, flows, (size_t)n, mode, all, st, e);
    for (int i = 0; i < n && rv == WT_OK; i++) {
        route_stats one;
        off[i] = per.n;
        rv = route_flows_sparse(rc, &flows[i], 1, mode, &per, &one, e);
        cls[i].latency_s = one.max_latency;
    }
    if (rv == WT_OK) {
        off[n] = per.n;
        for (size_t l = 0; l < nl; l++)
            inv_bw[l] = sim_link_inv_bw(wf, l);
        /* the arrays stop moving once every flow is routed */
        for (int i = 0; i < n; i++) {
            cls[i].work = flows[i].bytes;
            cls[i].link = per.link + off[i];
            cls[i].load = per.load + off[i];
            if (flows[i].bytes > 0) {
                cls[i].nnz = (int)(off[i + 1] - off[i]);
                for (size_t k = off[i]; k < off[i + 1]; k++)
                    per.load[k] /= flows[i].bytes;
            }
        }
        rv = net->flows_time(inv_bw, nl, cls, n, t, end_s, e);
    }
    route_ctx_free(rc);
    free(per.link);
    free(per.load);
    free(off);
    free(inv_bw);
    return rv;
}

void wtlua_push_flow_time(lua_State *L, double start_s, double bw_done_s, double finish_s)
{
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, start_s);
    lua_setfield(L, -2, "start_s");
    lua_pushnumber(L, bw_done_s);
    lua_setfield(L, -2, "bw_done_s");
    lua_pushnumber(L, finish_s);
    lua_setfield(L, -2, "finish_s");
}

void wtlua_set_route_figures(lua_State *L, double time_s, double max_load, int max_hops, double max_latency_s)
{
    lua_pushnumber(L, time_s);
    lua_setfield(L, -2, "time_s");
    lua_pushnumber(L, max_load);
    lua_setfield(L, -2, "max_load_bytes");
    lua_pushinteger(L, max_hops);
    lua_setfield(L, -2, "max_hops");
    lua_pushnumber(L, max_latency_s);
    lua_setfield(L, -2, "max_latency_s");
}

/* wt.route{layout=, routing=, net=, flows={{src={x,y}, dst={x,y}, bytes=N,
 * start_s=, priority=}, ...}} */
static int l_route(lua_State *L)
{
    static const char *const fields[] = {"layout", "routing", "net", "flows", "packet_flits", NULL};
    static const char *const flow_fields[] = {"src", "dst", "bytes", "start_s", "priority", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    check_fields(L, 1, fields, "wt.route: ");
    /* "flit" is no network model of a step: the flows run cycle by cycle */
    int flit = lua_getfield(L, 1, "net") == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "flit");
    lua_pop(L, 1);
    const net_model *net = flit ? NULL : net_field(L, 1);
    int packet_flits = 1;
    if (lua_getfield(L, 1, "packet_flits") != LUA_TNIL) {
        int isint;
        lua_Integer v = lua_tointegerx(L, -1, &isint);
        if (!flit)
            luaL_error(L, "wt.route: packet_flits is for net = \"flit\"");
        if (!isint || lua_type(L, -1) != LUA_TNUMBER || v < 1 || v > 1024)
            luaL_error(L, "wt.route: packet_flits must be a whole number from 1 to 1024");
        packet_flits = (int)v;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "layout") == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushliteral(L, "default");
    }
    wtlua_layout *lay = wtlua_to_layout(L, 2);
    const wafer *wf = &lay->wf;
    route_mode mode = ROUTE_XY;
    if (lua_getfield(L, 1, "routing") != LUA_TNIL) {
        int m = route_mode_parse(luaL_checkstring(L, -1));
        if (m < 0) {
            wt_err e;
            choice_fail(route_mode_table(), "routing", lua_tostring(L, -1), &e);
            luaL_error(L, "%s", e.msg);
        }
        mode = (route_mode)m;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "flows") != LUA_TTABLE)
        luaL_error(L, "wt.route: flows must be a list of {src = {x, y}, dst = {x, y}, bytes = N}");
    lua_Integer n = luaL_len(L, 3);
    if (n > FIELD_MAX)
        luaL_error(L, "wt.route: at most %d flows", FIELD_MAX);
    size_t nf = (size_t)(n > 0 ? n : 1);
    /* 4, 5, 6: freed by the collector whatever raises below */
    route_flow *flows = lua_newuserdatauv(L, sizeof *flows * nf, 0);
    flow_class *cls = lua_newuserdatauv(L, sizeof *cls * nf, 0);
    flow_time *t = lua_newuserdatauv(L, sizeof *t * nf, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 3, i) != LUA_TTABLE)
            luaL_error(L, "wt.route: flow %d must be a table {src = {x, y}, dst = {x, y}, bytes = N}", (int)i);
        int f = lua_gettop(L);
        char where[48];
        snprintf(where, sizeof where, "wt.route: flow %d: ", (int)i);
        check_fields(L, f, flow_fields, where);
        lua_getfield(L, f, "src");
        flows[i - 1].src = unit_at(L, wf, -1, "src", i);
        lua_getfield(L, f, "dst");
        flows[i - 1].dst = unit_at(L, wf, -1, "dst", i);
        lua_settop(L, f);
        flows[i - 1].bytes = flow_amount(L, f, "bytes", 1, i);
        cls[i - 1] = (flow_class){.start_s = flow_amount(L, f, "start_s", 0, i)};
        if (lua_getfield(L, f, "priority") != LUA_TNIL) {
            int isint;
            lua_Integer p = lua_tointegerx(L, -1, &isint);
            if (!isint || lua_type(L, -1) != LUA_TNUMBER || p < -FIELD_MAX || p > FIELD_MAX)
                luaL_error(L, "wt.route: flow %d: priority must be a whole number (higher goes first)", (int)i);
            cls[i - 1].prio = (int)p;
        }
        lua_settop(L, f - 1);
    }
    if (flit) {
        double *start = lua_newuserdatauv(L, sizeof *start * nf, 0);
        for (lua_Integer i = 0; i < n; i++)
            start[i] = cls[i].start_s;
        return wtlua_route_flit(L, wf, mode, packet_flits, flows, start, (int)n);
    }
    route_sparse sp = {0};
    route_stats st;
    double end_s = 0;
    wt_err e;
    int rv = route_times(wf, net, flows, cls, (int)n, mode, &sp, &st, t, &end_s, &e);
    if (rv != WT_OK) {
        free(sp.link);
        free(sp.load);
        return luaL_error(L, "%s", e.msg);
    }
    double max_load = 0;
    lua_createtable(L, 0, 6);
    lua_createtable(L, (int)sp.n, 0);
    for (size_t i = 0; i < sp.n; i++) {
        max_load = fmax(max_load, sp.load[i]);
        wtlua_push_link(L, wf, (size_t)sp.link[i], sp.load[i], 0);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(sp.link);
    free(sp.load);
    lua_setfield(L, -2, "links");
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        wtlua_push_flow_time(L, t[i].start_s, t[i].bw_done_s, t[i].finish_s);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "flows");
    wtlua_set_route_figures(L, end_s, max_load, st.max_hops, st.max_latency);
    return 1;
}

/* ---- search ---- */

/* A string field of the options table, or NULL. */
static const char *opt_string(lua_State *L, int t, const char *key)
{
    const char *v = NULL;
    if (lua_getfield(L, t, key) != LUA_TNIL)
        v = luaL_checkstring(L, -1); /* stays referenced by the table */
    lua_pop(L, 1);
    return v;
}

/* wt.search{layout=, model=, seq=, batch=, microbatch=, objective=, top=,
 * jobs=, exhaustive=, allow_idle=, fix=, only=, baselines=, net=} */
static int l_search(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    static const char *const known[] = {"layout", "model", "seq", "batch", "microbatch", "objective", "top", "jobs",
                                        "exhaustive", "allow_idle", "fix", "only", "baselines", "net", NULL};
    check_fields(L, 1, known, "wt.search: ");
    model m;
    wtlua_layout *lay = scenario_args(L, &m, 0);
    search_opts o = {.top_k = 5, .jobs = 1, .baselines = 1, .net = net_field(L, 1)};
    wt_err e;
    if (lua_getfield(L, 1, "microbatch") != LUA_TNIL)
        o.space.microbatch = int_value(L, -1, "microbatch");
    if (lua_getfield(L, 1, "top") != LUA_TNIL)
        o.top_k = int_value(L, -1, "top");
    if (lua_getfield(L, 1, "jobs") != LUA_TNIL)
        o.jobs = int_value(L, -1, "jobs");
    lua_getfield(L, 1, "exhaustive");
    o.exhaustive = lua_toboolean(L, -1);
    lua_getfield(L, 1, "allow_idle");
    o.space.allow_idle = lua_toboolean(L, -1);
    if (lua_getfield(L, 1, "baselines") != LUA_TNIL)
        o.baselines = lua_toboolean(L, -1);
    lua_settop(L, 2);
    const char *objective = opt_string(L, 1, "objective"), *fix = opt_string(L, 1, "fix"),
               *only = opt_string(L, 1, "only");
    if (objective && strcmp(objective, "step_time") && strcmp(objective, "tokens_per_s"))
        return luaL_error(L, "wt.search: objective '%s' is not one of step_time, tokens_per_s", objective);
    o.objective = objective && !strcmp(objective, "tokens_per_s") ? SEARCH_TOKENS : SEARCH_STEP_TIME;
    if ((fix && search_parse_fix(fix, &o.space, &e) != WT_OK) ||
        (only && search_parse_only(only, &o.space, &e) != WT_OK))
        return luaL_error(L, "%s", e.msg);
    /* 3: scratch whose results are freed with it, whatever raises below */
    search_result *res = lua_newuserdatauv(L, sizeof *res, 0);
    memset(res, 0, sizeof *res);
    luaL_setmetatable(L, WTLUA_SEARCH);
    wtlua_watch watch; /* the search stops when the call's run time is over */
    wtlua_watch_start(wtlua_of(L), &watch);
    o.stop = &watch.stop;
    int rc = search_run(&lay->wf, &m, &o, res, &e);
    wtlua_watch_end(L, &watch);
    if (rc != WT_OK)
        return luaL_error(L, "%s", e.msg);
    lua_createtable(L, 0, 8);
    const struct {
        const char *key;
        long long v;
    } counts[] = {{"candidates", res->candidates}, {"pruned_memory", res->pruned_memory},
                  {"pruned_bound", res->pruned_bound}, {"evaluated", res->evaluated}};
    for (int i = 0; i < 4; i++) {
        lua_pushinteger(L, counts[i].v);
        lua_setfield(L, -2, counts[i].key);
    }
    lua_pushnumber(L, res->elapsed_s);
    lua_setfield(L, -2, "elapsed_s");
    lua_pushboolean(L, res->ntop > 0);
    lua_setfield(L, -2, "fits");
    if (!res->ntop) {
        lua_pushstring(L, res->nofit);
        lua_setfield(L, -2, "why");
    }
    lua_createtable(L, res->nbaselines, 0);
    for (int i = 0; i < res->nbaselines; i++) {
        search_baseline *b = &res->baselines[i];
        char text[64];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, b->name);
        lua_setfield(L, -2, "name");
        if (b->ok) {
            lua_pushstring(L, strategy_format(&b->r.s, text, sizeof text));
            lua_setfield(L, -2, "strategy");
            lua_pushnumber(L, b->r.step_time_s);
            lua_setfield(L, -2, "step_time_s");
            lua_pushnumber(L, b->speedup);
            lua_setfield(L, -2, "speedup");
            sim_free(&b->r);
            b->ok = 0;
        } else {
            lua_pushstring(L, b->why);
            lua_setfield(L, -2, "why");
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "baselines");
    /* the results move into userdata that keep the layout alive */
    lua_createtable(L, res->ntop, 0);
    for (int i = 0; i < res->ntop; i++) {
        wtlua_push_result(L, &res->top[i], 2);
        if (i == 0) {
            lua_pushvalue(L, -1);
            lua_setfield(L, -4, "best");
        }
        lua_rawseti(L, -2, i + 1);
    }
    res->ntop = 0;
    lua_setfield(L, -2, "top");
    return 1;
}

/* ---- commands, policies and the registries ---- */

static int l_command(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    const char *help = luaL_optstring(L, 3, "");
    if (!*name || strpbrk(name, " \t\n"))
        return luaL_error(L, "command names are one word, not '%s'", name);
    lua_getfield(L, LUA_REGISTRYINDEX, WTLUA_COMMANDS);
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "name");
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, "fn");
    lua_pushstring(L, help);
    lua_setfield(L, -2, "help");
    lua_setfield(L, -2, name);
    return 0;
}

/* wt.cmd(name, words, result): runs a registered command in this script, as
 * `wafertop cmd` would, with its output going to wt.print. */
static int l_cmd(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checkudata(L, 3, WTLUA_RESULT);
    lua_getfield(L, LUA_REGISTRYINDEX, WTLUA_COMMANDS);
    if (lua_getfield(L, -1, name) != LUA_TTABLE)
        return luaL_error(L, "unknown command '%s'", name);
    lua_getfield(L, -1, "fn");
    lua_pushvalue(L, 2);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 3);
    lua_setfield(L, -2, "result");
    lua_call(L, 2, 0);
    return 0;
}

/* wt.commands(), wt.policies(), wt.strategies(): the registry of the kind
 * in the upvalue as a list of {name=, help=}, sorted by name. */
static int l_registry(lua_State *L)
{
    wtlua *W = wtlua_of(L);
    wtlua_kind kind = (wtlua_kind)lua_tointeger(L, lua_upvalueindex(1));
    const char *names[WTLUA_MAX_NAMES];
    int n = wtlua_names(W, kind, names, WTLUA_MAX_NAMES);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, names[i]);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, wtlua_help(W, kind, names[i]));
        lua_setfield(L, -2, "help");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* wt.nets(): the network models as a list of {name=, help=} (help: the
 * model's one-line summary), sorted by name like wt.commands(). */
static int l_nets(lua_State *L)
{
    int n = net_model_table().n;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const net_model *net = net_model_at(i);
        int rank = 0; /* its place by name: names are distinct */
        for (int j = 0; j < n; j++)
            rank += strcmp(net_model_at(j)->c.name, net->c.name) < 0;
        lua_createtable(L, 0, 2);
        lua_pushstring(L, net->c.name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, net->summary);
        lua_setfield(L, -2, "help");
        lua_rawseti(L, -2, rank + 1);
    }
    return 1;
}

static int l_policy(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    static const char *const hooks[] = {"on_step", "on_hot_link"};
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        int known = !strcmp(key, hooks[0]) || !strcmp(key, hooks[1]);
        if (known && !lua_isfunction(L, -1))
            luaL_error(L, "policy %s: %s must be a function", name, key);
        if (!known && strcmp(key, "help"))
            luaL_error(L, "policy %s: unknown hook '%s' (on_step, on_hot_link, help)", name, key);
        if (!known && lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "policy %s: help must be a string", name);
        lua_pop(L, 1);
    }
    lua_getfield(L, LUA_REGISTRYINDEX, WTLUA_POLICIES);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, name);
    return 0;
}

static int search_gc(lua_State *L)
{
    search_free(luaL_checkudata(L, 1, WTLUA_SEARCH));
    return 0;
}

int wtlua_open_module(lua_State *L)
{
    static const luaL_Reg search_meta[] = {{"__gc", search_gc}, {NULL, NULL}};
    wtlua_new_type(L, WTLUA_SEARCH, search_meta);
    static const luaL_Reg fns[] = {
        {"layout", l_layout},     {"model", l_model},       {"strategy", l_strategy},
        {"eval", l_eval},         {"route", l_route},       {"command", l_command},
        {"search", l_search},     {"session", wtlua_session_new},
        {"cmd", l_cmd},           {"policy", l_policy},     {"print", wtlua_print},
        {"nets", l_nets},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    for (int k = 0; k < WTLUA_NKINDS; k++) {
        lua_pushinteger(L, k);
        lua_pushcclosure(L, l_registry, 1);
        lua_setfield(L, -2, wtlua_registries[k].dir);
    }
    lua_pushliteral(L, WT_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushnumber(L, SIM_HOT); /* scripts read the threshold, not a copy of it */
    lua_setfield(L, -2, "hot");
    return 1;
}
