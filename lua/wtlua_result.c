/*
 * wtlua_result.c - the layout and result userdata (docs/LUA.md).
 *
 * A result's fields have the names of `wafertop eval --format json` (from
 * engine/report.h). `r.phases` and `r.memory` are tables that may also be
 * called as methods, so r.phases[1] and r:phases() both work.
 */
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "layout.h"
#include "report.h"
#include "wtlua_int.h"

/* A result object is this header. An owned one (wt.eval, s:step(), a
 * command's) is an owned_result, holding its result in the same block and
 * freeing the result's arrays in __gc. A borrowed one (what a policy's
 * hooks get) is the header alone, pointing at C's copy of the step: it is
 * a to-be-closed variable of the hook's call and is turned off when the
 * call ends, so that a step leaves neither a 40 KB object (sim_result holds
 * its phases) nor arrays on the C heap behind for the collector. */
typedef struct wtlua_result {
    const sim_result *r; /* NULL once gone */
    int owned;
} wtlua_result;

typedef struct owned_result {
    wtlua_result head;
    sim_result r;
    size_t held; /* bytes of r's arrays counted against the memory cap (wtlua_hold) */
} owned_result;

/* ---- layouts ---- */

wtlua_layout *wtlua_push_layout(lua_State *L, const char *name_or_path)
{
    wtlua *W = wtlua_of(L);
    char path[1200];
    wt_err e;
    wtlua_layout *lay = lua_newuserdatauv(L, sizeof *lay, 0);
    lay->loaded = 0;
    lay->held = 0;
    luaL_setmetatable(L, WTLUA_LAYOUT);
    if (datadir_resolve(W->opts.root ? W->opts.root : ".", "layouts", "layout", name_or_path, path, sizeof path,
                        &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
    wtlua_check_file(L, path);
    if (layout_load(path, &lay->wf, &e) != WT_OK)
        wtlua_file_error(L, &e);
    lay->loaded = 1;
    /* its flags: one byte per unit and per link */
    wtlua_hold(L, wafer_nunits(&lay->wf) + wafer_nlinks(&lay->wf));
    lay->held = wafer_nunits(&lay->wf) + wafer_nlinks(&lay->wf);
    return lay;
}

wtlua_layout *wtlua_to_layout(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    wtlua_layout *lay = luaL_testudata(L, idx, WTLUA_LAYOUT);
    if (lay)
        return lay;
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_error(L, "a layout is a name, a path or wt.layout(...), not a %s", luaL_typename(L, idx));
    lay = wtlua_push_layout(L, lua_tostring(L, idx));
    lua_replace(L, idx);
    return lay;
}

static int layout_gc(lua_State *L)
{
    wtlua_layout *lay = luaL_checkudata(L, 1, WTLUA_LAYOUT);
    if (lay->loaded)
        wafer_free(&lay->wf);
    lay->loaded = 0;
    wtlua_release(L, lay->held);
    lay->held = 0;
    return 0;
}

/* layout:dead(x, y[, dir]): a dead unit, or a link that cannot carry traffic. */
static int layout_dead(lua_State *L)
{
    wtlua_layout *lay = luaL_checkudata(L, 1, WTLUA_LAYOUT);
    const wafer *wf = &lay->wf;
    lua_Integer x = luaL_checkinteger(L, 2), y = luaL_checkinteger(L, 3);
    luaL_argcheck(L, x >= 0 && y >= 0 && x < wf->w && y < wf->h, 2, "outside the mesh");
    int u = wafer_unit(wf, (int)x, (int)y);
    if (lua_isnoneornil(L, 4)) {
        lua_pushboolean(L, wf->unit_dead[u]);
        return 1;
    }
    int dir = wafer_dir_parse(*luaL_checkstring(L, 4));
    luaL_argcheck(L, dir >= 0, 4, "a direction is E, W, N or S");
    lua_pushboolean(L, !wafer_link_usable(wf, u, dir));
    return 1;
}

static int layout_index(lua_State *L)
{
    wtlua_layout *lay = luaL_checkudata(L, 1, WTLUA_LAYOUT);
    const wafer *wf = &lay->wf;
    const char *k = luaL_checkstring(L, 2);
    const struct {
        const char *name;
        double v;
    } nums[] = {
        {"w", wf->w},
        {"h", wf->h},
        {"wafer_w", wf->wafer_w},
        {"wafer_h", wf->wafer_h},
        {"wafers_x", wf->wafers_x},
        {"wafers_y", wf->wafers_y},
        {"units", (double)wafer_nunits(wf)},
        {"live_units", wafer_live_units(wf)},
        {"compute", wf->peak_flops},
        {"efficiency", wf->efficiency},
        {"sram", wf->sram_bytes},
        {"dram", wf->dram_bytes},
        {"dram_bandwidth", wf->dram_bw},
        {"link_bandwidth", wf->link_bw},
        {"link_latency", wf->link_lat},
        {"overhead", wf->link_overhead},
        {"chunk_overhead", wf->chunk_overhead},
        {"interwafer_bandwidth", wf->iw_bw},
        {"interwafer_latency", wf->iw_lat},
    };
    if (!strcmp(k, "name")) {
        lua_pushstring(L, wf->name);
        return 1;
    }
    if (!strcmp(k, "dead")) {
        lua_pushcfunction(L, layout_dead);
        return 1;
    }
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (!strcmp(k, nums[i].name)) {
            if (nums[i].v == (lua_Integer)nums[i].v && i < 8)
                lua_pushinteger(L, (lua_Integer)nums[i].v);
            else
                lua_pushnumber(L, nums[i].v);
            return 1;
        }
    }
    lua_pushnil(L);
    return 1;
}

static int layout_tostring(lua_State *L)
{
    wtlua_layout *lay = luaL_checkudata(L, 1, WTLUA_LAYOUT);
    lua_pushfstring(L, "wafertop.layout: %s, %dx%d units", lay->wf.name, lay->wf.w, lay->wf.h);
    return 1;
}

/* ---- results ---- */

sim_result *wtlua_new_result(lua_State *L, int layout_idx)
{
    if (layout_idx)
        layout_idx = lua_absindex(L, layout_idx);
    owned_result *o = lua_newuserdatauv(L, sizeof *o, 1);
    memset(o, 0, sizeof *o);
    o->head.r = &o->r;
    o->head.owned = 1;
    luaL_setmetatable(L, WTLUA_RESULT);
    if (layout_idx) {
        lua_pushvalue(L, layout_idx);
        lua_setiuservalue(L, -2, 1);
    }
    return &o->r;
}

/* The C memory r's arrays take: per link, per loaded link, per pattern's
 * loads and per class. */
size_t wtlua_result_bytes(const sim_result *r)
{
    size_t nl = r->wf ? wafer_nlinks(r->wf) : 0;
    size_t b = (r->link_peak ? nl : 0) * sizeof(double) + (r->link_bytes ? nl : 0) * sizeof(double) +
               (size_t)r->nloaded * sizeof(int) + (size_t)r->cap_patterns * sizeof(sim_pattern);
    for (int p = 0; p < r->npatterns; p++)
        b += (size_t)r->patterns[p].nnz * (sizeof(int) + sizeof(double));
    if (r->classes)
        b += nl * sizeof(int) + (size_t)r->classes->n * (2 * sizeof(int) + sizeof(double)) +
             (size_t)r->classes->start[r->classes->n] * 2 * sizeof(double);
    return b;
}

void wtlua_hold_result(lua_State *L, int idx)
{
    owned_result *o = luaL_checkudata(L, idx, WTLUA_RESULT);
    size_t b = wtlua_result_bytes(&o->r);
    wtlua_hold(L, b);
    o->held = b;
}

void wtlua_held_result(lua_State *L, int idx, size_t room)
{
    owned_result *o = luaL_checkudata(L, idx, WTLUA_RESULT);
    o->held = wtlua_result_bytes(&o->r);
    wtlua_release(L, room);
    wtlua_of(L)->used += o->held; /* taken already: no refusal now */
}

void wtlua_push_result(lua_State *L, sim_result *r, int layout_idx)
{
    *wtlua_new_result(L, layout_idx) = *r;
    memset(r, 0, sizeof *r);
    wtlua_hold_result(L, -1);
}

void wtlua_push_borrowed_result(lua_State *L, const sim_result *r)
{
    wtlua_result *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->r = r;
    ud->owned = 0;
    luaL_setmetatable(L, WTLUA_RESULT);
}

const sim_result *wtlua_check_result(lua_State *L, int idx)
{
    wtlua_result *ud = luaL_checkudata(L, idx, WTLUA_RESULT);
    if (!ud->r)
        luaL_error(L, "this result is gone (a policy's result lives only during its hook: keep its numbers, "
                      "not the object)");
    return ud->r;
}

static int result_gc(lua_State *L)
{
    wtlua_result *ud = luaL_checkudata(L, 1, WTLUA_RESULT);
    if (ud->owned && ud->r) {
        owned_result *o = (owned_result *)ud;
        sim_free(&o->r);
        wtlua_release(L, o->held);
        o->held = 0;
    }
    ud->r = NULL;
    return 0;
}

/* A borrowed result goes back to C when its hook ends (to-be-closed). */
static int result_close(lua_State *L)
{
    wtlua_result *ud = luaL_checkudata(L, 1, WTLUA_RESULT);
    if (!ud->owned)
        ud->r = NULL;
    return 0;
}

static void push_value(lua_State *L, const report_value *v)
{
    switch (v->kind) {
    case REPORT_STR: lua_pushstring(L, v->str); break;
    case REPORT_INT: lua_pushinteger(L, (lua_Integer)v->num); break;
    case REPORT_BOOL: lua_pushboolean(L, v->num != 0); break;
    default: lua_pushnumber(L, v->num); break;
    }
}

/* A table of one report section (index selects the phase). */
static void push_section(lua_State *L, const sim_result *r, report_section s, int index)
{
    lua_createtable(L, 0, report_nfields(s));
    for (int i = 0; i < report_nfields(s); i++) {
        report_value v;
        report_get(r, s, i, index, &v);
        push_value(L, &v);
        lua_setfield(L, -2, report_field_name(s, i));
    }
}

/* Makes the table on top of the stack callable as a method that returns it. */
static int return_self(lua_State *L)
{
    lua_settop(L, 1);
    return 1;
}

static void make_callable(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, return_self);
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
}

void wtlua_push_link(lua_State *L, const wafer *wf, size_t l, double bytes, double span_s)
{
    int u = (int)(l / WAFER_NDIR), d = (int)(l % WAFER_NDIR);
    double inv = sim_link_inv_bw(wf, l), busy = bytes * inv;
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, wafer_x(wf, u));
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, wafer_y(wf, u));
    lua_setfield(L, -2, "y");
    lua_pushfstring(L, "%c", wafer_dir_char(d));
    lua_setfield(L, -2, "dir");
    lua_pushnumber(L, bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushnumber(L, busy);
    lua_setfield(L, -2, "busy_s");
    if (span_s > 0) {
        lua_pushnumber(L, busy / span_s);
        lua_setfield(L, -2, "util");
    }
    lua_pushboolean(L, inv <= 0);
    lua_setfield(L, -2, "dead");
}

const double *wtlua_push_windows(lua_State *L, const sim_result *r)
{
    size_t nl = wafer_nlinks(r->wf);
    double *peak = lua_newuserdatauv(L, 2 * nl * sizeof *peak, 0);
    wt_err e;
    if (sim_link_windows(r, r->window_s > 0 ? r->window_s : SIM_WINDOW_S, SIM_HOT, peak, peak + nl, &e) != WT_OK)
        luaL_error(L, "%s", e.msg);
    return peak;
}

const double *wtlua_push_windows_at(lua_State *L, const sim_result *r, const int *links, int n)
{
    double *win = lua_newuserdatauv(L, 2 * (size_t)(n ? n : 1) * sizeof *win, 0);
    wt_err e;
    if (sim_link_windows_at(r, r->window_s > 0 ? r->window_s : SIM_WINDOW_S, SIM_HOT, links, n, win, win + n, &e) !=
        WT_OK)
        luaL_error(L, "%s", e.msg);
    return win;
}

void wtlua_set_windows(lua_State *L, double peak, double hot_s)
{
    lua_pushnumber(L, peak);
    lua_setfield(L, -2, "peak_util");
    lua_pushnumber(L, hot_s);
    lua_setfield(L, -2, "hot_s");
}

const int *wtlua_loaded(const sim_result *r, size_t *n)
{
    *n = r->loaded ? (size_t)r->nloaded : wafer_nlinks(r->wf);
    return r->loaded;
}

int wtlua_on_mesh(const wafer *wf, size_t l)
{
    return wafer_neighbor(wf, (int)(l / WAFER_NDIR), (int)(l % WAFER_NDIR)) >= 0;
}

/* r:links{phase = NAME}: every link of the mesh, over the step or over one
 * phase (then util is the share of the time that phase runs); peak_util
 * and hot_s are the step's. */
static int result_links(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    const double *win = wtlua_push_windows(L, r);
    const double *bytes = r->link_bytes;
    double span = r->step_time_s;
    size_t nl = wafer_nlinks(r->wf);
    if (lua_istable(L, 2) && lua_getfield(L, 2, "phase") != LUA_TNIL) {
        const char *name = luaL_checkstring(L, -1);
        int p = sim_phase_find(r, name);
        if (p < 0)
            return luaL_error(L, "no phase '%s' in this result", name);
        double *own = lua_newuserdatauv(L, nl * sizeof *own, 0);
        sim_phase_link_bytes(r, p, own);
        bytes = own;
        span = r->phases[p].count * r->phases[p].time_s;
    }
    lua_newtable(L);
    lua_Integer k = 0;
    for (size_t l = 0; l < nl; l++) {
        if (!wtlua_on_mesh(r->wf, l))
            continue;
        wtlua_push_link(L, r->wf, l, bytes[l], span);
        wtlua_set_windows(L, win[l], win[nl + l]);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

/* r:link(x, y, dir): one link, or nil when it leaves the mesh. */
static int result_link(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    lua_Integer x = luaL_checkinteger(L, 2), y = luaL_checkinteger(L, 3);
    int dir = wafer_dir_parse(*luaL_checkstring(L, 4));
    luaL_argcheck(L, dir >= 0, 4, "a direction is E, W, N or S");
    if (x < 0 || y < 0 || x >= r->wf->w || y >= r->wf->h ||
        wafer_neighbor(r->wf, wafer_unit(r->wf, (int)x, (int)y), dir) < 0) {
        lua_pushnil(L);
        return 1;
    }
    int l = wafer_unit(r->wf, (int)x, (int)y) * WAFER_NDIR + dir;
    const double *win = wtlua_push_windows_at(L, r, &l, 1);
    wtlua_push_link(L, r->wf, (size_t)l, r->link_bytes[l], r->step_time_s);
    wtlua_set_windows(L, win[0], win[1]);
    return 1;
}

static int cmp_util_desc(const void *a, const void *b)
{
    const double *x = a, *y = b; /* {util, slot} pairs */
    if (x[0] != y[0])
        return x[0] < y[0] ? 1 : -1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

double wtlua_link_peak(const wafer *wf, const double *peak, size_t l)
{
    return sim_link_inv_bw(wf, l) > 0 ? peak[l] : 0;
}

/* r:hot_links(threshold[, {limit = N}]): links whose busiest window is at
 * or above it (default wt.hot, SIM_HOT), busiest first, at most limit of
 * them; then how many there are in all. */
static int result_hot_links(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    double th = luaL_optnumber(L, 2, SIM_HOT);
    lua_Integer limit = -1;
    if (lua_istable(L, 3) && lua_getfield(L, 3, "limit") != LUA_TNIL) {
        limit = luaL_checkinteger(L, -1);
        luaL_argcheck(L, limit >= 0, 3, "limit must be a count >= 0");
    }
    /* the peaks are r's own when it has them (as sim_link_windows over r's
     * window); above 0 only the loaded links can reach the threshold */
    const double *peak = r->link_peak ? r->link_peak : wtlua_push_windows(L, r);
    size_t nat = wafer_nlinks(r->wf), n = 0;
    const int *at = th > 0 ? wtlua_loaded(r, &nat) : NULL;
    if (r->link_peak && th > r->max_peak_util) /* none reaches it: no need to read every loaded link */
        nat = 0;
    for (size_t i = 0; i < nat; i++) {
        size_t l = at ? (size_t)at[i] : i;
        n += wtlua_link_peak(r->wf, peak, l) >= th && wtlua_on_mesh(r->wf, l);
    }
    double *pairs = lua_newuserdatauv(L, (n ? n : 1) * 2 * sizeof *pairs, 0);
    n = 0;
    for (size_t i = 0; i < nat; i++) {
        size_t l = at ? (size_t)at[i] : i;
        if (wtlua_link_peak(r->wf, peak, l) >= th && wtlua_on_mesh(r->wf, l)) {
            pairs[2 * n] = wtlua_link_peak(r->wf, peak, l);
            pairs[2 * n++ + 1] = (double)l;
        }
    }
    qsort(pairs, n, 2 * sizeof *pairs, cmp_util_desc);
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    int *links = lua_newuserdatauv(L, (shown ? shown : 1) * sizeof *links, 0);
    for (size_t i = 0; i < shown; i++)
        links[i] = (int)pairs[2 * i + 1];
    const double *win = wtlua_push_windows_at(L, r, links, (int)shown);
    lua_createtable(L, (int)shown, 0);
    for (size_t i = 0; i < shown; i++) {
        wtlua_push_link(L, r->wf, (size_t)links[i], r->link_bytes[links[i]], r->step_time_s);
        wtlua_set_windows(L, win[i], win[shown + i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
}

void wtlua_push_unit(lua_State *L, const sim_result *r, int u)
{
    const wafer *wf = r->wf;
    int stage = sim_unit_stage(r, u);
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, wafer_x(wf, u));
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, wafer_y(wf, u));
    lua_setfield(L, -2, "y");
    lua_pushboolean(L, stage >= 0);
    lua_setfield(L, -2, "used");
    lua_pushboolean(L, wf->unit_dead[u]);
    lua_setfield(L, -2, "dead");
    lua_pushinteger(L, sim_unit_rank(r, u));
    lua_setfield(L, -2, "rank");
    lua_pushinteger(L, stage);
    lua_setfield(L, -2, "stage");
    lua_pushnumber(L, sim_unit_compute_util(r, u));
    lua_setfield(L, -2, "compute_util");
    lua_pushnumber(L, sim_unit_memory(r, u));
    lua_setfield(L, -2, "memory");
}

/* r:units(): every unit {x, y, used, dead, rank, stage, compute_util, memory}. */
static int result_units(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    size_t n = wafer_nunits(r->wf);
    lua_createtable(L, (int)n, 0);
    for (size_t u = 0; u < n; u++) {
        wtlua_push_unit(L, r, (int)u);
        lua_rawseti(L, -2, (lua_Integer)u + 1);
    }
    return 1;
}

static int result_index(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    const char *k = luaL_checkstring(L, 2);
    static const luaL_Reg methods[] = {{"links", result_links},
                                       {"link", result_link},
                                       {"hot_links", result_hot_links},
                                       {"units", result_units},
                                       {NULL, NULL}};
    for (const luaL_Reg *m = methods; m->name; m++) {
        if (!strcmp(k, m->name)) {
            lua_pushcfunction(L, m->func);
            return 1;
        }
    }
    for (const luaL_Reg *m = wtlua_result_views; m->name; m++) {
        if (!strcmp(k, m->name)) {
            lua_pushcfunction(L, m->func);
            return 1;
        }
    }
    if (!strcmp(k, "strategy")) {
        push_section(L, r, REPORT_STRATEGY, 0);
        return 1;
    }
    if (!strcmp(k, "memory")) {
        push_section(L, r, REPORT_MEMORY, 0);
        make_callable(L);
        return 1;
    }
    if (!strcmp(k, "phases")) {
        lua_createtable(L, r->nphases, 0);
        for (int p = 0; p < r->nphases; p++) {
            push_section(L, r, REPORT_PHASE, p);
            lua_rawseti(L, -2, p + 1);
        }
        make_callable(L);
        return 1;
    }
    for (int i = 0; i < report_nfields(REPORT_TOP); i++) {
        if (!strcmp(k, report_field_name(REPORT_TOP, i))) {
            report_value v;
            report_get(r, REPORT_TOP, i, 0, &v);
            push_value(L, &v);
            return 1;
        }
    }
    lua_pushnil(L);
    return 1;
}

static int result_tostring(lua_State *L)
{
    const sim_result *r = ((wtlua_result *)luaL_checkudata(L, 1, WTLUA_RESULT))->r;
    if (!r) {
        lua_pushliteral(L, "wafertop.result (gone)");
        return 1;
    }
    char buf[96];
    lua_pushfstring(L, "wafertop.result: %s on %s, step %f s", strategy_format(&r->s, buf, sizeof buf),
                    r->wf->name, r->step_time_s);
    return 1;
}

void wtlua_open_types(lua_State *L)
{
    static const luaL_Reg layout_meta[] = {
        {"__gc", layout_gc}, {"__index", layout_index}, {"__tostring", layout_tostring}, {NULL, NULL}};
    static const luaL_Reg result_meta[] = {
        {"__gc", result_gc}, {"__close", result_close}, {"__index", result_index},
        {"__tostring", result_tostring}, {NULL, NULL}};
    wtlua_new_type(L, WTLUA_LAYOUT, layout_meta);
    wtlua_new_type(L, WTLUA_RESULT, result_meta);
}
