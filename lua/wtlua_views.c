/*
 * wtlua_views.c - a result's aggregated views, computed in C (docs/LUA.md):
 * link utilisation by tile, the top links, the top units, the unit counts.
 *
 * r:links() and r:units() make a table per link or unit: on a wafer-scale
 * mesh (850k units, 3.4M link slots) that is more than the Lua memory cap
 * and the budget allow. These views walk the arrays once in C and hand Lua
 * only what a command prints: a tile's figures as flat arrays, and the
 * first N links or units as the same records r:links() and r:units() give.
 * They agree with those tables: a tile sums its links in slot order, as a
 * script looping over r:links() does, and ties rank as the stock commands
 * ranked them (by y, x, then the direction's letter). Only the result's
 * loaded links are read (wtlua_loaded): every other link's figure is 0, so
 * a tile's sum is the same to the bit, and the links no pattern loads enter
 * a top list only when it has room for links at 0.
 */
#include <string.h>

#include "sim.h"
#include "tiles.h"
#include "wtlua_int.h"

/* What a view ranks or aggregates links by (link_value) and the record
 * fields that go with it (r:links{phase = ...} gives the phase's bytes and
 * its util over the time the phase runs). */
typedef struct link_figure {
    const double *peak;  /* per slot: peak_util, or NULL for util */
    const double *bytes; /* per slot: the step's or the phase's */
    double span_s;       /* what util is over */
} link_figure;

static double link_value(const link_figure *f, const wafer *wf, size_t l)
{
    if (f->peak)
        return wtlua_link_peak(wf, f->peak, l);
    return f->span_s > 0 ? f->bytes[l] * sim_link_inv_bw(wf, l) / f->span_s : 0;
}

/* The integer field k of the options table at t (0: none), or def. */
static lua_Integer opt_int(lua_State *L, int t, const char *k, lua_Integer def)
{
    if (!t || lua_getfield(L, t, k) == LUA_TNIL) {
        if (t)
            lua_pop(L, 1);
        return def;
    }
    lua_Integer v = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* The string field k of the options table at t, or def; the string stays
 * reachable from the table. */
static const char *opt_str(lua_State *L, int t, const char *k, const char *def)
{
    if (!t || lua_getfield(L, t, k) == LUA_TNIL) {
        if (t)
            lua_pop(L, 1);
        return def;
    }
    const char *v = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Reads {over = "peak"|"step", phase = NAME} from the options at t and
 * fills f. The busiest windows are r's own when it has them, else computed
 * (a userdata left on the stack); a phase's bytes are a userdata left on
 * the stack. */
static void figure_of(lua_State *L, const sim_result *r, int t, link_figure *f)
{
    const char *over = opt_str(L, t, "over", "peak"), *phase = opt_str(L, t, "phase", NULL);
    if (strcmp(over, "peak") && strcmp(over, "step"))
        luaL_error(L, "over is peak or step, not '%s'", over);
    f->peak = NULL;
    f->bytes = r->link_bytes;
    f->span_s = r->step_time_s;
    if (phase) {
        int p = sim_phase_find(r, phase);
        if (p < 0)
            luaL_error(L, "no phase '%s' in this result", phase);
        double *bytes = lua_newuserdatauv(L, wafer_nlinks(r->wf) * sizeof *bytes, 0);
        sim_phase_link_bytes(r, p, bytes);
        f->bytes = bytes;
        f->span_s = r->phases[p].count * r->phases[p].time_s;
    } else if (!strcmp(over, "peak")) {
        /* r's peaks are sim_link_windows' over r's window */
        f->peak = r->link_peak ? r->link_peak : wtlua_push_windows(L, r);
    }
}

/* Sets t[k] (t on top) to a list of n numbers. */
static void set_list(lua_State *L, const char *k, const double *v, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, k);
}

/* r:link_groups{w =, h =, over =, phase =}: the usable links leaving the
 * units of each w x h tile, their mean and max figure. */
static int views_link_groups(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    const wafer *wf = r->wf;
    int t = lua_istable(L, 2) ? 2 : 0;
    int big = wf->w > 32 || wf->h > 32;
    lua_Integer w = opt_int(L, t, "w", big ? 8 : 1), h = opt_int(L, t, "h", big ? 8 : 1);
    luaL_argcheck(L, w >= 1 && h >= 1, 2, "a tile is w x h units, w and h at least 1");
    link_figure f;
    figure_of(L, r, t, &f);
    /* a tile wider than the mesh holds all of it */
    int tw = w < wf->w ? (int)w : wf->w, th = h < wf->h ? (int)h : wf->h, nx, ny;
    tiles_size(wf, tw, th, &nx, &ny);
    size_t nt = (size_t)nx * (size_t)ny, nat;
    double *sum = lua_newuserdatauv(L, 3 * nt * sizeof *sum, 0), *n = sum + nt, *max = n + nt;
    memset(sum, 0, nt * sizeof *sum);
    memset(max, 0, nt * sizeof *max);
    tiles_count(wf, tw, th, n, NULL);
    const int *at = wtlua_loaded(r, &nat);
    const double *val = f.peak;
    if (!val) { /* the figures where they may not be 0: the untouched pages cost nothing */
        double *v = lua_newuserdatauv(L, wafer_nlinks(wf) * sizeof *v, 0);
        for (size_t i = 0; i < nat; i++) {
            size_t l = at ? (size_t)at[i] : i;
            v[l] = link_value(&f, wf, l);
        }
        val = v;
    }
    tiles_add(wf, tw, th, val, at, nat, sum, max);
    for (size_t k = 0; k < nt; k++) /* the sums become the means */
        sum[k] = n[k] > 0 ? sum[k] / n[k] : 0;
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, w);
    lua_setfield(L, -2, "w");
    lua_pushinteger(L, h);
    lua_setfield(L, -2, "h");
    lua_pushinteger(L, (lua_Integer)nx);
    lua_setfield(L, -2, "nx");
    lua_pushinteger(L, (lua_Integer)ny);
    lua_setfield(L, -2, "ny");
    set_list(L, "mean", sum, nt);
    set_list(L, "max", max, nt);
    set_list(L, "links", n, nt);
    return 1;
}

/* A candidate for a top list: its figure and its slot (link or unit). */
typedef struct ranked {
    double v;
    size_t i;
} ranked;

/* 1 when a ranks before b. */
typedef int (*rank_before)(const ranked *a, const ranked *b, const wafer *wf);

static int link_before(const ranked *a, const ranked *b, const wafer *wf)
{
    if (a->v != b->v)
        return a->v > b->v;
    int ua = (int)(a->i / WAFER_NDIR), ub = (int)(b->i / WAFER_NDIR);
    if (wafer_y(wf, ua) != wafer_y(wf, ub))
        return wafer_y(wf, ua) < wafer_y(wf, ub);
    if (wafer_x(wf, ua) != wafer_x(wf, ub))
        return wafer_x(wf, ua) < wafer_x(wf, ub);
    return wafer_dir_char((int)(a->i % WAFER_NDIR)) < wafer_dir_char((int)(b->i % WAFER_NDIR));
}

static int unit_before(const ranked *a, const ranked *b, const wafer *wf)
{
    (void)wf;
    if (a->v != b->v)
        return a->v > b->v;
    return a->i < b->i;
}

/* The best n of what is offered, best first. */
typedef struct top_list {
    ranked *top; /* room for n */
    size_t n, len;
    rank_before before;
    const wafer *wf;
} top_list;

/* Places c among the best when it belongs there: a binary search and a
 * move, O(n) at worst but O(1) for most candidates of a long scan. */
static void top_offer(top_list *t, ranked c)
{
    if (t->len == t->n && (t->n == 0 || !t->before(&c, &t->top[t->len - 1], t->wf)))
        return;
    size_t lo = 0, hi = t->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->before(&c, &t->top[mid], t->wf))
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t len = t->len < t->n ? t->len + 1 : t->n;
    memmove(&t->top[lo + 1], &t->top[lo], (len - 1 - lo) * sizeof *t->top);
    t->top[lo] = c;
    t->len = len;
}

/* A top list of at most n of count candidates, its room a userdata left
 * on the stack. */
static void top_new(lua_State *L, top_list *t, lua_Integer n, size_t count, rank_before before, const wafer *wf)
{
    luaL_argcheck(L, n >= 0, 2, "n must be a count >= 0");
    t->n = (size_t)n < count ? (size_t)n : count;
    t->top = lua_newuserdatauv(L, (t->n ? t->n : 1) * sizeof *t->top, 0);
    t->len = 0;
    t->before = before;
    t->wf = wf;
}

/* 1 when slot l is among the n ascending slots at. */
static int listed(const int *at, size_t n, size_t l)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((size_t)at[mid] < l)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && (size_t)at[lo] == l;
}

/* Offers the links at 0 that the nat slots at[] leave out, unit by unit,
 * while one can still enter the top list: only once it has room, or holds
 * a link at 0 that a link of an earlier unit ranks before. */
static void top_zeros(top_list *top, const int *at, size_t nat)
{
    const wafer *wf = top->wf;
    for (size_t u = 0; u < wafer_nunits(wf) && top->n > 0; u++) {
        const ranked *last = &top->top[top->n - 1];
        if (top->len == top->n && (last->v > 0 || last->i / WAFER_NDIR < u))
            return;
        for (size_t d = 0; d < WAFER_NDIR; d++) {
            size_t l = u * WAFER_NDIR + d;
            if (wtlua_on_mesh(wf, l) && !listed(at, nat, l))
                top_offer(top, (ranked){0, l});
        }
    }
}

/* r:top_links{n = 10, over =, phase =}: the n links with the highest
 * figure, as r:links() records. */
static int views_top_links(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    const wafer *wf = r->wf;
    int t = lua_istable(L, 2) ? 2 : 0;
    link_figure f;
    figure_of(L, r, t, &f);
    size_t nat;
    const int *at = wtlua_loaded(r, &nat);
    top_list top;
    top_new(L, &top, opt_int(L, t, "n", 10), wafer_nlinks(wf), link_before, wf);
    for (size_t i = 0; i < nat; i++) {
        size_t l = at ? (size_t)at[i] : i;
        /* a link's peak figure is at most peak[l]: below the last of a full
         * list it cannot enter, nor level with it from a later unit (the
         * slots ascend, and ties rank by y then x); most links of a busy
         * wafer are one or the other */
        if (f.peak && top.len == top.n && top.n > 0) {
            const ranked *last = &top.top[top.n - 1];
            if (f.peak[l] < last->v || (f.peak[l] == last->v && l / WAFER_NDIR > last->i / WAFER_NDIR))
                continue;
        }
        if (wtlua_on_mesh(wf, l))
            top_offer(&top, (ranked){link_value(&f, wf, l), l});
    }
    if (at)
        top_zeros(&top, at, nat);
    int *links = lua_newuserdatauv(L, (top.len ? top.len : 1) * sizeof *links, 0);
    for (size_t i = 0; i < top.len; i++)
        links[i] = (int)top.top[i].i;
    const double *win = wtlua_push_windows_at(L, r, links, (int)top.len);
    lua_createtable(L, (int)top.len, 0);
    for (size_t i = 0; i < top.len; i++) {
        size_t l = top.top[i].i;
        wtlua_push_link(L, wf, l, f.bytes[l], f.span_s);
        wtlua_set_windows(L, win[i], win[top.len + i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* r:top_units{n = 20, by = "compute_util"|"memory"}: the n units with the
 * highest figure, as r:units() records. */
static int views_top_units(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    int t = lua_istable(L, 2) ? 2 : 0;
    const char *by = opt_str(L, t, "by", "compute_util");
    int memory = !strcmp(by, "memory");
    if (!memory && strcmp(by, "compute_util"))
        return luaL_error(L, "by is compute_util or memory, not '%s'", by);
    size_t nu = wafer_nunits(r->wf);
    top_list top;
    top_new(L, &top, opt_int(L, t, "n", 20), nu, unit_before, r->wf);
    for (size_t u = 0; u < nu; u++)
        top_offer(&top, (ranked){memory ? sim_unit_memory(r, (int)u) : sim_unit_compute_util(r, (int)u), u});
    lua_createtable(L, (int)top.len, 0);
    for (size_t i = 0; i < top.len; i++) {
        wtlua_push_unit(L, r, (int)top.top[i].i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* r:units_summary(): {units, used, idle, dead}: a dead unit counts as dead
 * only, a live one as used when it holds a rank, else idle. */
static int views_units_summary(lua_State *L)
{
    const sim_result *r = wtlua_check_result(L, 1);
    size_t nu = wafer_nunits(r->wf);
    lua_Integer used = 0, dead = 0;
    for (size_t u = 0; u < nu; u++) {
        if (r->wf->unit_dead[u])
            dead++;
        else
            used += sim_unit_stage(r, (int)u) >= 0;
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)nu);
    lua_setfield(L, -2, "units");
    lua_pushinteger(L, used);
    lua_setfield(L, -2, "used");
    lua_pushinteger(L, (lua_Integer)nu - used - dead);
    lua_setfield(L, -2, "idle");
    lua_pushinteger(L, dead);
    lua_setfield(L, -2, "dead");
    return 1;
}

const luaL_Reg wtlua_result_views[] = {{"link_groups", views_link_groups},
                                       {"top_links", views_top_links},
                                       {"top_units", views_top_units},
                                       {"units_summary", views_units_summary},
                                       {NULL, NULL}};
