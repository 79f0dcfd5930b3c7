/*
 * wtlua_int.h - what the files of the binding share (not a public API).
 *
 *   wtlua_state.c   the state: allocator cap, budget hook, sandbox, script
 *                   directories, the one pcall path, the public functions
 *   wtlua_module.c  the `wafertop` module: layout, model, strategy, eval,
 *                   route, command, policy, print
 *   wtlua_result.c  the layout and result userdata and their methods
 *   wtlua_views.c   a result's aggregated views (tiles, top links and
 *                   units, unit counts), computed in C for large meshes
 */
#ifndef WT_WTLUA_INT_H
#define WT_WTLUA_INT_H

#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>
#include <stdatomic.h>

#include "wtlua.h"

#define WTLUA_MAX_DIRS 3

struct wtlua {
    lua_State *L;
    wtlua_opts opts;
    size_t used;                  /* bytes the allocator holds, and C memory results hold (wtlua_hold) */
    double spent;                 /* instructions charged in this call from C */
    double deadline;              /* when its run time is over, wt_clock_s() seconds */
    int over;                     /* why the budget ran out (wtlua_budget.c), 0 while it holds */
    char dirs[WTLUA_MAX_DIRS][1024];
    int ndirs;
};

/* Metatable names. */
#define WTLUA_LAYOUT "wafertop.layout"
#define WTLUA_RESULT "wafertop.result"
/* Registry keys of the tables of registered commands, policies and
 * strategies: name -> a table with at least `help` (a command's also holds
 * name and fn, a policy's is its hooks table). */
#define WTLUA_COMMANDS "wafertop.commands"
#define WTLUA_POLICIES "wafertop.policies"
#define WTLUA_STRATEGIES "wafertop.strategies"

/* Where each kind lives: its registry key, and its script directory, which
 * is also the name of its list in the module (wt.commands() ...). */
typedef struct wtlua_registry {
    const char *key;
    const char *dir;
} wtlua_registry;
extern const wtlua_registry wtlua_registries[WTLUA_NKINDS];

/* The budget (wtlua_budget.c). Start and end bracket every call from C;
 * wtlua_charge adds cost instructions of C work and raises the budget's
 * error when it no longer holds (spent, run time over, or a signal). */
void wtlua_budget_start(wtlua *W);
void wtlua_budget_end(wtlua *W);
void wtlua_charge(lua_State *L, double cost);
/* In the sandbox: xpcall, setmetatable, string.rep, table.move and the
 * pattern functions replaced by charged versions of themselves. */
void wtlua_open_guards(lua_State *L);
/* Replaces find, match, gmatch and gsub of the string table on top by
 * versions charged a bound on their matching (wtlua_pattern.c). */
void wtlua_open_patterns(lua_State *L);
/* Calls the function in upvalue 1 with this call's arguments and returns
 * what it returns: the guards' tail. */
int wtlua_call_upvalue(lua_State *L);

/* A thread that sets stop once the call's run time is over or a signal
 * came, for C code that reads a stop flag (a search). Between start and
 * end; end raises the budget's error when it stopped the work. */
typedef struct wtlua_watch {
    wtlua *W;
    atomic_int stop;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int running, done;
} wtlua_watch;
int wtlua_watch_start(wtlua *W, wtlua_watch *w);
void wtlua_watch_end(lua_State *L, wtlua_watch *w);

/* C memory a userdata holds for a script (a result's arrays, a layout's
 * wafer), counted against the memory cap beside Lua's own: hold raises
 * "memory cap ... exceeded" when it does not fit after a full collection;
 * the userdata's __gc releases what it held. */
void wtlua_hold(lua_State *L, size_t bytes);
void wtlua_release(lua_State *L, size_t bytes);
/* Raises as wtlua_hold does when bytes would not fit, holding nothing: the
 * check before a call makes a result that large. */
void wtlua_room(lua_State *L, size_t bytes);

/* Files a script names (wtlua_files.c): check_file raises, naming the
 * path, when a regular file is larger than the memory cap leaves, and
 * returns 1; any other path returns 0 (the loader says it does not exist
 * or is no regular file, or the name is a preset's); file_error
 * raises a loader's error without the file's contents (its first line,
 * quoted spans masked). */
int wtlua_check_file(lua_State *L, const char *path);
int wtlua_file_error(lua_State *L, const wt_err *e);

/* The wtlua that owns a Lua state. */
wtlua *wtlua_of(lua_State *L);

/* Calls the function below nargs arguments with the traceback handler and a
 * fresh budget; on error fills e with "path:line: message" and the
 * traceback and returns WT_EINPUT (WT_EINTERNAL when memory ran out). */
int wtlua_pcall(wtlua *W, int nargs, int nresults, wt_err *e);

/* print and wt.print: tab-separated tostring of the arguments and a newline,
 * to the state's output. */
int wtlua_print(lua_State *L);

/* Registers the metatable of a C type under name with its metamethods,
 * protected: getmetatable returns the name, so a script cannot reach
 * __gc or __close and call them by hand (which would free what other
 * objects still borrow). */
void wtlua_new_type(lua_State *L, const char *name, const luaL_Reg *meta);

/* Opens the module: leaves the `wafertop` table on the stack. */
int wtlua_open_module(lua_State *L);
/* Registers the layout and result metatables. */
void wtlua_open_types(lua_State *L);

/* A layout userdata owning a wafer. */
typedef struct wtlua_layout {
    wafer wf;
    int loaded;
    size_t held; /* bytes of wf counted against the memory cap (wtlua_hold) */
} wtlua_layout;

/* Pushes a new layout userdata loaded from a stock name or a path; raises a
 * Lua error with the engine's message on failure. */
wtlua_layout *wtlua_push_layout(lua_State *L, const char *name_or_path);
/* The layout at idx: a layout userdata, or a name or path (replaced in place
 * on the stack by the loaded userdata). */
wtlua_layout *wtlua_to_layout(lua_State *L, int idx);

/* Pushes an empty result userdata and returns its result, to be filled:
 * whatever it holds is freed with it, also when the filling fails and
 * raises (C memory made before the userdata would be lost when the memory
 * cap makes lua_newuserdatauv raise). layout_idx is the stack index of the
 * layout userdata whose wafer the result borrows, kept alive with it, or 0
 * when the wafer belongs to C. */
sim_result *wtlua_new_result(lua_State *L, int layout_idx);
/* Counts the C memory of the filled owned result at idx against the
 * memory cap (wtlua_hold): raises when it does not fit. */
void wtlua_hold_result(lua_State *L, int idx);
/* The same for a result made after room bytes were held for it: it holds
 * what it takes instead, without raising. */
void wtlua_held_result(lua_State *L, int idx, size_t room);
/* The C memory r's arrays take, in bytes. */
size_t wtlua_result_bytes(const sim_result *r);
/* The same as wtlua_new_result, taking r (moved: r is zeroed) and counting
 * it. The caller frees r when this raises before moving it. */
void wtlua_push_result(lua_State *L, sim_result *r, int layout_idx);
/* Pushes a result userdata that borrows r, for a policy's hooks: the caller
 * makes it a to-be-closed variable, whose closing turns it off ("this result
 * is gone"), and keeps r alive until then. */
void wtlua_push_borrowed_result(lua_State *L, const sim_result *r);

#define WTLUA_SESSION "wafertop.session"
/* wt.search's scratch result, freed by its __gc. */
#define WTLUA_SEARCH "wafertop.search"

/* wt.session{...} and the session type (wtlua_session.c). */
int wtlua_session_new(lua_State *L);
void wtlua_open_session(lua_State *L);
/* Pushes a session object that borrows S until it is closed (the caller
 * makes it a to-be-closed variable). */
void wtlua_push_session(lua_State *L, session *S);
/* Pushes a copy of r as a result object kept alive with the object at
 * owner_idx (0: none). */
int wtlua_push_result_copy(lua_State *L, const sim_result *r, int owner_idx);
/* Pushes a strategy as a table (the fields of wt.strategy). */
void wtlua_push_strategy(lua_State *L, const strategy *s);
/* Reads the options table at index 1 as wt.eval does: layout (left on the
 * stack at index 2), model, strategy, options, seq, batch, microbatch, net
 * (the network model into *net: net.h's default when absent); other fields
 * than these and `also` (NULL-terminated) are errors. */
wtlua_layout *wtlua_scenario(lua_State *L, model *m, strategy *s, const struct net_model **net,
                             const char *const *also);
/* The field `window` of the table at t: seconds (a number) or a time text
 * as --window takes it ("100us"); SIM_WINDOW_S when absent. Anything but a
 * positive finite time raises an error naming the field. */
double wtlua_window_field(lua_State *L, int t);

/* One link record {x, y, dir, bytes, busy_s, util, dead} for link slot l;
 * util (busy_s over span_s, the step or the time a phase runs) only when
 * span_s > 0. */
void wtlua_push_link(lua_State *L, const wafer *wf, size_t l, double bytes, double span_s);

/* wt.route's results: a flow's times as a new table {start_s, bw_done_s,
 * finish_s}; the figures of all the flows set on the table on top. */
void wtlua_push_flow_time(lua_State *L, double start_s, double bw_done_s, double finish_s);
void wtlua_set_route_figures(lua_State *L, double time_s, double max_load, int max_hops, double max_latency_s);

/* wt.route{net = "flit"}: pushes its result table for flows[0..n) (unit
 * indices of wf, bytes) starting at start_s[i], in packets of packet_flits
 * (LUA.md, "wt.route"); raises a Lua error for a mesh the flit level does
 * not take (larger than FLIT_MAX_SIDE, failed units or links) or too many
 * flits. A balanced flow is two halves, X first and Y first. */
int wtlua_route_flit(lua_State *L, const wafer *wf, route_mode mode, int packet_flits, const route_flow *flows,
                     const double *start_s, int n);

/* The result userdata at idx; raises when it is gone. */
const sim_result *wtlua_check_result(lua_State *L, int idx);
/* Every link's busiest window and hot time over r's window (the default
 * when r has none), peak[0..nl) then hot_s[0..nl), in a userdata left on
 * the stack. */
const double *wtlua_push_windows(lua_State *L, const sim_result *r);
/* The same for the n link slots links[] alone: peak_util of the i-th at
 * [i], its hot_s at [n + i] (what a view of a few links needs: O(loaded
 * links), not O(links)). */
const double *wtlua_push_windows_at(lua_State *L, const sim_result *r, const int *links, int n);
/* Link slot l's busiest window from a result's peaks: they predate a fault
 * the session made since (a policy's on_step), and a dead link's is 0, as
 * sim_link_windows finds it now. */
double wtlua_link_peak(const wafer *wf, const double *peak, size_t l);
/* Adds peak_util and hot_s to the link table on top. */
void wtlua_set_windows(lua_State *L, double peak, double hot_s);
/* The link slots a view of r reads, ascending, *n of them: r's loaded
 * links, every other link's bytes and windows being 0; NULL (and *n every
 * slot) when r does not list them. */
const int *wtlua_loaded(const sim_result *r, size_t *n);
/* 1 when link slot l is a link: a slot off the mesh's edge holds none. */
int wtlua_on_mesh(const wafer *wf, size_t l);
/* One unit record {x, y, used, dead, rank, stage, compute_util, memory}. */
void wtlua_push_unit(lua_State *L, const sim_result *r, int u);
/* The methods of wtlua_views.c, looked up after the result's own. */
extern const luaL_Reg wtlua_result_views[];
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
