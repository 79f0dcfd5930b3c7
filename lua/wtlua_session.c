/*
 * wtlua_session.c - the session object: wt.session{...} for scripts, and the
 * object a policy's hooks get (borrowed from C for the length of the call).
 */
#include <limits.h>
#include <string.h>

#include "wtlua_int.h"

/* A session object is this header. One made by wt.session is an
 * owned_session, holding the session in the same block. A policy's hook
 * gets the header alone, borrowing C's session: a session struct holds a
 * whole result and two wafers (40 KB), too much to leave to the collector
 * at every step. */
typedef struct lsession {
    session *S;      /* NULL once gone */
    int owned;       /* S is the owned_session's own */
} lsession;

typedef struct owned_session {
    lsession head;
    session own;
    size_t held; /* bytes counted against the memory cap (wtlua_hold) */
} owned_session;

static session *check_session(lua_State *L, int idx)
{
    lsession *ls = luaL_checkudata(L, idx, WTLUA_SESSION);
    if (!ls->S)
        luaL_error(L, "this session is gone (a policy's session lives only during its hook)");
    return ls->S;
}

void wtlua_push_session(lua_State *L, session *S)
{
    lsession *ls = lua_newuserdatauv(L, sizeof *ls, 0);
    ls->S = S;
    ls->owned = 0;
    luaL_setmetatable(L, WTLUA_SESSION);
}

int wtlua_push_result_copy(lua_State *L, const sim_result *r, int owner_idx)
{
    wt_err e;
    if (sim_copy(wtlua_new_result(L, owner_idx), r, &e) != WT_OK)
        return luaL_error(L, "%s", e.msg);
    wtlua_hold_result(L, -1);
    return 1;
}

/* wt.session{<wt.eval's fields>, seed=, jitter=, straggler=} */
int wtlua_session_new(lua_State *L)
{
    static const char *const also[] = {"seed", "jitter", "straggler", "window", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    model m;
    strategy s;
    session_opts o = {0};
    wtlua_layout *lay = wtlua_scenario(L, &m, &s, &o.net, also);
    o.window_s = wtlua_window_field(L, 1);
    lua_getfield(L, 1, "seed");
    o.seed = (uint64_t)luaL_optinteger(L, -1, 1);
    lua_getfield(L, 1, "jitter");
    o.jitter = luaL_optnumber(L, -1, 0);
    lua_getfield(L, 1, "straggler");
    o.straggler = luaL_optnumber(L, -1, 0);
    lua_settop(L, 2);
    owned_session *os = lua_newuserdatauv(L, sizeof *os, 0);
    memset(os, 0, sizeof *os);
    luaL_setmetatable(L, WTLUA_SESSION);
    wt_err e;
    /* its two wafers' flags and its step's link arrays (steps' results are
     * counted as they are handed out) */
    size_t held = 2 * (wafer_nunits(&lay->wf) + wafer_nlinks(&lay->wf)) + 2 * wafer_nlinks(&lay->wf) * sizeof(double);
    wtlua_hold(L, held);
    os->held = held;
    if (session_new(&os->own, &lay->wf, &m, &s, &o, &e) != WT_OK)
        return luaL_error(L, "%s", e.msg);
    os->head.owned = 1;
    os->head.S = &os->own;
    return 1;
}

static int session_gc(lua_State *L)
{
    lsession *ls = luaL_checkudata(L, 1, WTLUA_SESSION);
    if (ls->owned)
        session_free(&((owned_session *)ls)->own);
    if (lua_rawlen(L, 1) == sizeof(owned_session)) { /* made by wt.session, even when it failed */
        wtlua_release(L, ((owned_session *)ls)->held);
        ((owned_session *)ls)->held = 0;
    }
    ls->owned = 0;
    ls->S = NULL;
    return 0;
}

/* An integer argument as a C int: a cast alone would wrap a larger one to
 * another, valid-looking value (2^32 + 2 waves read as 2). */
static int check_int(lua_State *L, int idx)
{
    lua_Integer v = luaL_checkinteger(L, idx);
    luaL_argcheck(L, v >= INT_MIN && v <= INT_MAX, idx, "out of range");
    return (int)v;
}

/* Raises the action's error, or returns nothing. */
static int done(lua_State *L, int rc, const wt_err *e)
{
    if (rc != WT_OK)
        return luaL_error(L, "%s", e->msg);
    return 0;
}

/* s:step() -> the step's result (a copy that keeps the session alive). Its
 * userdata and its room under the memory cap come first: Lua running out
 * of memory for it after the step would report a step that was taken as
 * refused. The room is the last step's size (or the link arrays' before
 * the first); the copy then holds what it takes. */
static int s_step(lua_State *L)
{
    session *S = check_session(L, 1);
    sim_result *copy = wtlua_new_result(L, 1);
    size_t room = S->evaluated ? wtlua_result_bytes(&S->res) : 2 * wafer_nlinks(&S->wf) * sizeof(double);
    wtlua_hold(L, room);
    const sim_result *r;
    wt_err e;
    if (session_step(S, &r, &e) != WT_OK || sim_copy(copy, r, &e) != WT_OK) {
        wtlua_release(L, room);
        return luaL_error(L, "%s", e.msg);
    }
    wtlua_held_result(L, -1, room);
    return 1;
}

/* s:result() -> the last step's result, or nil before the first. */
static int s_result(lua_State *L)
{
    session *S = check_session(L, 1);
    if (!S->evaluated) {
        lua_pushnil(L);
        return 1;
    }
    return wtlua_push_result_copy(L, &S->res, 1);
}

static int s_set_strategy(lua_State *L)
{
    session *S = check_session(L, 1);
    strategy s = S->s; /* options stay unless the table changes them */
    wtlua_check_strategy(L, 2, &s);
    wt_err e;
    return done(L, session_set_strategy(S, &s, &e), &e);
}

static int s_set_placement(lua_State *L)
{
    session *S = check_session(L, 1);
    strategy s = S->s;
    wt_err e;
    if (strategy_set_option(&s, "placement", luaL_checkstring(L, 2), &e) != WT_OK)
        return luaL_error(L, "%s", e.msg);
    return done(L, session_set_placement(S, s.placement, &e), &e);
}

static int s_set_subgroup(lua_State *L)
{
    session *S = check_session(L, 1);
    wt_err e;
    int rc = session_set_subgroup(S, check_int(L, 2), check_int(L, 3), &e);
    return done(L, rc, &e);
}

/* s:set_routing(phase, mode), or s:set_routing(mode) for every phase */
static int s_set_routing(lua_State *L)
{
    session *S = check_session(L, 1);
    const char *phase = lua_gettop(L) >= 3 ? luaL_optstring(L, 2, NULL) : NULL;
    const char *name = luaL_checkstring(L, lua_gettop(L) >= 3 ? 3 : 2);
    strategy s = S->s;
    wt_err e;
    if (strategy_set_option(&s, "routing", name, &e) != WT_OK)
        return luaL_error(L, "%s", e.msg);
    return done(L, session_set_routing(S, phase, s.routing, &e), &e);
}

static int s_delay(lua_State *L)
{
    session *S = check_session(L, 1);
    wt_err e;
    return done(L, session_delay(S, luaL_checkstring(L, 2), check_int(L, 3), &e), &e);
}

/* s:set_priority(nil): every level back to 0; s:set_priority(phase[,
 * level]): the phase's level, 1 when left out, 0 when nil. */
static int s_set_priority(lua_State *L)
{
    session *S = check_session(L, 1);
    const char *phase = lua_isnoneornil(L, 2) ? NULL : luaL_checkstring(L, 2);
    int level = lua_gettop(L) < 3;
    if (!level && !lua_isnil(L, 3)) {
        int whole;
        lua_Integer v = lua_tointegerx(L, 3, &whole);
        if (lua_type(L, 3) != LUA_TNUMBER || !whole || v < INT_MIN || v > INT_MAX)
            return luaL_error(L, "set_priority: priority must be a whole number (higher goes first), not %s",
                              luaL_tolstring(L, 3, NULL));
        level = (int)v;
    }
    wt_err e;
    return done(L, session_set_priority(S, phase, level, &e), &e);
}

static int s_fail_link(lua_State *L)
{
    session *S = check_session(L, 1);
    int dir = wafer_dir_parse(*luaL_checkstring(L, 4));
    luaL_argcheck(L, dir >= 0, 4, "a direction is E, W, N or S");
    wt_err e;
    return done(L, session_fail_link(S, check_int(L, 2), check_int(L, 3), dir, &e), &e);
}

static int s_fail_unit(lua_State *L)
{
    session *S = check_session(L, 1);
    wt_err e;
    return done(L, session_fail_unit(S, check_int(L, 2), check_int(L, 3), &e), &e);
}

static int s_repair(lua_State *L)
{
    session *S = check_session(L, 1);
    wt_err e;
    return done(L, session_repair(S, &e), &e);
}

static int session_index(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"step", s_step},           {"result", s_result},         {"set_strategy", s_set_strategy},
        {"set_placement", s_set_placement}, {"set_subgroup", s_set_subgroup}, {"set_routing", s_set_routing},
        {"delay", s_delay},         {"set_priority", s_set_priority}, {"fail_link", s_fail_link},
        {"fail_unit", s_fail_unit}, {"repair", s_repair},         {NULL, NULL},
    };
    const char *k = luaL_checkstring(L, 2);
    for (const luaL_Reg *m = methods; m->name; m++) {
        if (!strcmp(k, m->name)) {
            lua_pushcfunction(L, m->func);
            return 1;
        }
    }
    session *S = check_session(L, 1);
    if (!strcmp(k, "steps"))
        lua_pushinteger(L, S->steps);
    else if (!strcmp(k, "strategy"))
        wtlua_push_strategy(L, &S->s);
    else if (!strcmp(k, "layout"))
        lua_pushstring(L, S->wf.name);
    else if (!strcmp(k, "model"))
        lua_pushstring(L, S->m.name);
    else
        lua_pushnil(L);
    return 1;
}

/* A borrowed session goes back to C when its hook ends (to-be-closed). */
static int session_close(lua_State *L)
{
    lsession *ls = luaL_checkudata(L, 1, WTLUA_SESSION);
    if (!ls->owned)
        ls->S = NULL;
    return 0;
}

static int session_tostring(lua_State *L)
{
    lsession *ls = luaL_checkudata(L, 1, WTLUA_SESSION);
    if (!ls->S) {
        lua_pushliteral(L, "wafertop.session (gone)");
        return 1;
    }
    char text[64];
    lua_pushfstring(L, "wafertop.session: %s on %s, %d steps", strategy_format(&ls->S->s, text, sizeof text),
                    ls->S->wf.name, ls->S->steps);
    return 1;
}

void wtlua_open_session(lua_State *L)
{
    static const luaL_Reg meta[] = {
        {"__gc", session_gc}, {"__close", session_close}, {"__index", session_index},
        {"__tostring", session_tostring}, {NULL, NULL}};
    wtlua_new_type(L, WTLUA_SESSION, meta);
}
