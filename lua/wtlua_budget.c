/*
 * wtlua_budget.c - the one budget every call from C runs under, and the
 * sandbox's guards that keep whatever a script does inside it.
 *
 * The budget is N instructions (--lua-budget). What spends it:
 *   - the VM's instructions, counted by a count hook every HOOK_PERIOD;
 *   - the work a C function does for a script in one call (pattern
 *     matching, string.rep, table.move, table.sort), charged before it runs from a
 *     bound on that work (wtlua_pattern.c), so a call that cannot afford it
 *     raises instead of running;
 *   - wall-clock time: the call may last N / WTLUA_STEPS_PER_S seconds in
 *     all, whatever it spends them on (wt.* calls, the collector, C code);
 *     the hook reads the clock, and a search reads it through a watchdog.
 * A signal on the screen (opts.interrupt) stops the call the same way.
 *
 * Lua runs no hook inside a finalizer, nor inside a message handler that an
 * error raised by the hook calls: in the sandbox setmetatable refuses
 * __gc, and xpcall calls its handler after the protected call returned,
 * where the hook runs.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "wtlua_int.h"

/* The hook fires every HOOK_PERIOD instructions. */
#define HOOK_PERIOD 1000
/* How often the search's watchdog reads the clock, in nanoseconds. */
#define WATCH_NS 10000000L

enum { OVER_NONE, OVER_STEPS, OVER_TIME, OVER_SIGNAL };

/* Why the budget no longer holds (OVER_*), 0 while it does. */
static int budget_state(const wtlua *W)
{
    if (W->spent > W->opts.budget)
        return OVER_STEPS;
    if (W->opts.interrupt && *W->opts.interrupt)
        return OVER_SIGNAL;
    if (wt_clock_s() > W->deadline)
        return OVER_TIME;
    return OVER_NONE;
}

/* Raises the budget's error at the script's line where (a "path:line: "
 * prefix, or ""). */
static int budget_raise(lua_State *L, const char *where)
{
    wtlua *W = wtlua_of(L);
    char msg[160];
    if (W->over == OVER_SIGNAL)
        snprintf(msg, sizeof msg, "interrupted by a signal");
    else if (W->over == OVER_TIME)
        snprintf(msg, sizeof msg, "instruction budget of %.0f exceeded: its %.1f s of run time are over (--lua-budget)",
                 W->opts.budget, W->opts.budget / WTLUA_STEPS_PER_S);
    else
        snprintf(msg, sizeof msg, "instruction budget of %.0f exceeded (--lua-budget)", W->opts.budget);
    lua_pushfstring(L, "%s%s", where, msg);
    return lua_error(L);
}

/* Counts instructions and reads the clock. Once the budget is spent it
 * raises at every instruction, so a script that catches the error with
 * pcall is stopped by its very next one. */
static void budget_hook(lua_State *L, lua_Debug *ar)
{
    wtlua *W = wtlua_of(L);
    if (!W->over) {
        W->spent += lua_gethookcount(L);
        if (!(W->over = budget_state(W)))
            return;
    }
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1); /* this thread: a coroutine has its own hook */
    /* the function running when the hook fired, which is where the time went */
    char where[300] = "";
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        snprintf(where, sizeof where, "%s:%d: ", ar->short_src, ar->currentline);
    budget_raise(L, where);
}

void wtlua_budget_start(wtlua *W)
{
    W->spent = 0;
    W->over = OVER_NONE;
    W->deadline = wt_clock_s() + W->opts.budget / WTLUA_STEPS_PER_S;
    lua_sethook(W->L, budget_hook, LUA_MASKCOUNT, HOOK_PERIOD);
}

void wtlua_budget_end(wtlua *W)
{
    lua_sethook(W->L, NULL, 0, 0);
}

void wtlua_charge(lua_State *L, double cost)
{
    wtlua *W = wtlua_of(L);
    W->spent += cost;
    if (W->over || (W->over = budget_state(W))) {
        luaL_where(L, 1);
        budget_raise(L, lua_tostring(L, -1));
    }
}

/* ---- the search's watchdog ---- */

static void *watch_run(void *arg)
{
    wtlua_watch *w = arg;
    wtlua *W = w->W;
    pthread_mutex_lock(&w->lock);
    while (!w->done && !atomic_load(&w->stop)) {
        /* the clock and the flag only: the count belongs to the thread running Lua */
        if (wt_clock_s() > W->deadline || (W->opts.interrupt && *W->opts.interrupt))
            atomic_store(&w->stop, 1);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WATCH_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int wtlua_watch_start(wtlua *W, wtlua_watch *w)
{
    memset(w, 0, sizeof *w);
    w->W = W;
    atomic_init(&w->stop, 0);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    w->running = pthread_create(&w->thread, NULL, watch_run, w) == 0;
    return w->running;
}

void wtlua_watch_end(lua_State *L, wtlua_watch *w)
{
    if (w->running) {
        pthread_mutex_lock(&w->lock);
        w->done = 1;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
    }
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    if (atomic_load(&w->stop))
        wtlua_charge(L, 0); /* raises: the clock or a signal stopped it */
}

/* ---- the guards ---- */

/* Calls the original function (upvalue 1) with this call's arguments. */
int wtlua_call_upvalue(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* xpcall(f, msgh, ...): f under pcall, then msgh(error) once it returned,
 * so the handler runs under the hook (Lua calls it where the error was
 * raised, which for the budget's error is inside the hook, with hooks off).
 * The handler cannot see the failed call's stack, which a sandbox without
 * debug cannot read anyway. A memory error skips the handler, as in Lua. */
static int guarded_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_insert(L, 1);   /* msgh f msgh args */
    lua_remove(L, 3);   /* msgh f args */
    int status = lua_pcall(L, n - 2, LUA_MULTRET, 0);
    if (status == LUA_OK) {
        lua_pushboolean(L, 1);
        lua_replace(L, 1);
        return lua_gettop(L);
    }
    if (status == LUA_ERRMEM)
        lua_remove(L, 1);
    else
        lua_pcall(L, 1, 1, 0); /* msgh(error), or the error it raised */
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
    return 2;
}

/* setmetatable, refusing a metatable with __gc: a finalizer runs with
 * hooks off, out of the budget's reach (a metatable given __gc later does
 * not make its objects finalizable). */
static int guarded_setmetatable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, lua_type(L, 2) == LUA_TNIL || lua_type(L, 2) == LUA_TTABLE, 2, "nil or table");
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc"); /* raw, as Lua looks for it */
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc is not allowed in the sandbox (a finalizer runs outside the "
                                 "instruction budget)");
        lua_pop(L, 1);
    }
    return wtlua_call_upvalue(L);
}

/* string.rep(s, n [, sep]): n copies, charged n (string.rep("", 1e12)
 * allocates nothing and loops for hours), unless the result cannot fit in
 * the memory cap, which refuses it before any copy. */
static int guarded_rep(lua_State *L)
{
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0 && (double)n * (double)(l + lsep) <= (double)wtlua_of(L)->opts.mem_cap)
        wtlua_charge(L, (double)n);
    return wtlua_call_upvalue(L);
}

/* table.move(a1, f, e, t [, a2]): e - f + 1 moves, charged that. */
static int guarded_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    wtlua_charge(L, e >= f ? (double)e - (double)f + 1 : 0);
    return wtlua_call_upvalue(L);
}

/* table.sort(t [, comp]): its comparisons, n log2 n, charged before (the
 * hook counts a comparator's own instructions; sorting 4e6 numbers takes
 * seconds in C). */
static int guarded_sort(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double n = (double)luaL_len(L, 1);
    wtlua_charge(L, n > 1 ? n * log2(n) : 0);
    return wtlua_call_upvalue(L);
}

/* Replaces field name of the table on top by fn with the original as its
 * upvalue. */
static void guard(lua_State *L, const char *name, lua_CFunction fn)
{
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
}

void wtlua_open_guards(lua_State *L)
{
    lua_pushglobaltable(L);
    guard(L, "xpcall", guarded_xpcall);
    guard(L, "setmetatable", guarded_setmetatable);
    lua_pop(L, 1);
    lua_getglobal(L, "string");
    guard(L, "rep", guarded_rep);
    wtlua_open_patterns(L);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    guard(L, "move", guarded_move);
    guard(L, "sort", guarded_sort);
    lua_pop(L, 1);
}
