/*
 * wtlua_int.h - what the files of the binding share (not a public API).
 *
 *   wtlua_state.c   the state: allocator cap, budget hook, sandbox, script
 *                   directories, the one pcall path, the public functions
 *   wtlua_module.c  the `wafertop` module: layout, model, strategy, eval,
 *                   route, command, policy, print
 *   wtlua_result.c  the layout and result userdata and their methods
 */
#ifndef WT_WTLUA_INT_H
#define WT_WTLUA_INT_H

#include <lauxlib.h>
#include <lua.h>

#include "wtlua.h"

#define WTLUA_MAX_DIRS 3

struct wtlua {
    lua_State *L;
    wtlua_opts opts;
    size_t used;                  /* bytes the allocator holds */
    long long steps;              /* instructions counted in this call, in hook periods */
    long long max_steps;
    int over_budget;              /* the budget ran out: every hook from now on raises */
    char dirs[WTLUA_MAX_DIRS][1024];
    int ndirs;
};

/* Metatable names. */
#define WTLUA_LAYOUT "wafertop.layout"
#define WTLUA_RESULT "wafertop.result"
/* Registry keys of the tables of registered commands and policies. */
#define WTLUA_COMMANDS "wafertop.commands"
#define WTLUA_POLICIES "wafertop.policies"

/* The sorted keys of a registry table (commands, policies): up to max
 * pointers, valid while the entries stay registered. */
int wtlua_names(wtlua *W, const char *registry_key, const char **names, int max);

/* The wtlua that owns a Lua state. */
wtlua *wtlua_of(lua_State *L);

/* Calls the function below nargs arguments with the traceback handler and a
 * fresh budget; on error fills e with "path:line: message" and the
 * traceback and returns WT_EINPUT (WT_EINTERNAL when memory ran out). */
int wtlua_pcall(wtlua *W, int nargs, int nresults, wt_err *e);

/* print and wt.print: tab-separated tostring of the arguments and a newline,
 * to the state's output. */
int wtlua_print(lua_State *L);

/* Opens the module: leaves the `wafertop` table on the stack. */
int wtlua_open_module(lua_State *L);
/* Registers the layout and result metatables. */
void wtlua_open_types(lua_State *L);

/* A layout userdata owning a wafer. */
typedef struct wtlua_layout {
    wafer wf;
    int loaded;
} wtlua_layout;

/* Pushes a new layout userdata loaded from a stock name or a path; raises a
 * Lua error with the engine's message on failure. */
wtlua_layout *wtlua_push_layout(lua_State *L, const char *name_or_path);
/* The layout at idx: a layout userdata, or a name or path (replaced in place
 * on the stack by the loaded userdata). */
wtlua_layout *wtlua_to_layout(lua_State *L, int idx);

/* Pushes a result userdata that takes r (moved: r is zeroed). layout_idx is
 * the stack index of the layout userdata whose wafer r borrows, kept alive
 * with the result, or 0 when the wafer belongs to C. When the userdata's
 * allocation raises, r stays the caller's. */
void wtlua_push_result(lua_State *L, sim_result *r, int layout_idx);
/* The same with an empty result, returned for the caller to fill in place;
 * the userdata frees whatever it holds. A result made only once its
 * userdata exists cannot leak when that allocation raises. */
sim_result *wtlua_new_result(lua_State *L, int layout_idx);

#define WTLUA_SESSION "wafertop.session"

/* wt.session{...} and the session type (wtlua_session.c). */
int wtlua_session_new(lua_State *L);
void wtlua_open_session(lua_State *L);
/* Pushes a session object that borrows S until wtlua_session_release. */
void wtlua_push_session(lua_State *L, session *S);
void wtlua_session_release(lua_State *L, int idx);
/* Pushes a copy of r as a result object kept alive with the object at
 * owner_idx (0: none). */
int wtlua_push_result_copy(lua_State *L, const sim_result *r, int owner_idx);
/* Pushes a strategy as a table (the fields of wt.strategy). */
void wtlua_push_strategy(lua_State *L, const strategy *s);
/* Reads the options table at index 1 as wt.eval does: layout (left on the
 * stack at index 2), model, strategy, options, seq, batch, microbatch; other
 * fields than these and `also` (NULL-terminated) are errors. */
wtlua_layout *wtlua_scenario(lua_State *L, model *m, strategy *s, const char *const *also);

/* One link record {x, y, dir, bytes, busy_s, util, dead} for link slot l;
 * util (busy_s over span_s, the step or the time a phase runs) only when
 * span_s > 0. */
void wtlua_push_link(lua_State *L, const wafer *wf, size_t l, double bytes, double span_s);

/* Models and strategies between Lua and C. The check functions raise a Lua
 * error with the engine's message. A model is a preset name, a path or a
 * table of the model's fields; a strategy is a string ("DP8,TATP16") or a
 * table ({dp = 8, tatp = 16, tatp_grid = "4x4", placement = "tiles", ...}). */
void wtlua_push_model(lua_State *L, const model *m);
void wtlua_check_model(lua_State *L, int idx, model *out);
void wtlua_check_strategy(lua_State *L, int idx, strategy *s);

/* The path of the last script directory holding sub/name.lua, or NULL. */
const char *wtlua_find_script(wtlua *W, const char *sub, const char *name, char *buf, size_t n);

#endif
