/*
 * wtlua_state.c - the Lua state: memory cap, instruction budget, sandbox,
 * script directories, the one pcall path, and the public functions.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lualib.h>

#include "wtlua_int.h"

/* The collector's pause, in percent (see wtlua_new). */
#define WTLUA_GC_PAUSE 150

wtlua *wtlua_of(lua_State *L)
{
    return *(wtlua **)lua_getextraspace(L);
}

/* All of Lua's memory goes through here, so the cap holds for every script. */
static void *cap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    wtlua *W = ud;
    if (!ptr)
        osize = 0;
    if (nsize == 0) {
        free(ptr);
        W->used -= osize;
        return NULL;
    }
    if (nsize > osize && W->used - osize + nsize > W->opts.mem_cap)
        return NULL; /* Lua raises a memory error */
    void *p = realloc(ptr, nsize);
    if (p)
        W->used = W->used - osize + nsize;
    return p;
}

/* C memory is refused while a sixteenth of the cap is still free, so that
 * the script's own next allocation does not run out first: that error
 * (Lua's "not enough memory") could not say where the script was. */
void wtlua_hold(lua_State *L, size_t bytes)
{
    wtlua *W = wtlua_of(L);
    size_t cap = W->opts.mem_cap - W->opts.mem_cap / 16;
    if (W->used + bytes > cap)
        lua_gc(L, LUA_GCCOLLECT); /* dead results give theirs back */
    if (W->used + bytes > cap)
        luaL_error(L, "memory cap of %d MiB exceeded (--lua-mem): this needs %d MiB more", (int)(W->opts.mem_cap >> 20),
                   (int)((W->used + bytes - cap + (1 << 20) - 1) >> 20));
    W->used += bytes;
    lua_gc(L, LUA_GCSTEP, (int)(bytes >> 10)); /* the collector paces itself by what it holds */
}

void wtlua_room(lua_State *L, size_t bytes)
{
    wtlua_hold(L, bytes);
    wtlua_release(L, bytes);
}

void wtlua_release(lua_State *L, size_t bytes)
{
    wtlua_of(L)->used -= bytes;
}

/* Adds a traceback to the error message (lua.c's msghandler). */
static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int wtlua_pcall(wtlua *W, int nargs, int nresults, wt_err *e)
{
    lua_State *L = W->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    wtlua_budget_start(W);
    int status = lua_pcall(L, nargs, nresults, base);
    wtlua_budget_end(W);
    lua_remove(L, base);
    if (status == LUA_OK)
        return WT_OK;
    /* What the failed call left is garbage now; C memory it held comes back
     * only through finalizers, which Lua's emergency collection (a refused
     * allocation) does not run: collect now, before the next call. */
    lua_gc(L, LUA_GCCOLLECT);
    if (status == LUA_ERRMEM) {
        lua_pop(L, 1);
        wt_fail(e, "lua: memory cap of %.0f MiB exceeded (--lua-mem)", W->opts.mem_cap / 1048576.0);
        return WT_EINPUT;
    }
    wt_fail(e, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "lua: error");
    lua_pop(L, 1);
    return WT_EINPUT;
}

int wtlua_print(lua_State *L)
{
    wtlua *W = wtlua_of(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (W->opts.out)
        W->opts.out(W->opts.out_ud, s, len);
    else
        fwrite(s, 1, len, stdout);
    return 0;
}

/* load, restricted to text chunks (binary chunks could break the VM): the
 * original load, kept as an upvalue, called with mode "t". The env argument
 * is passed only when given, since an explicit nil would become _ENV. */
static int text_load(lua_State *L)
{
    int n = lua_gettop(L);
    if (n < 3)
        lua_settop(L, n = 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* A package searcher for modules in the lib/ directories, text only. */
static int lib_searcher(lua_State *L)
{
    wtlua *W = wtlua_of(L);
    const char *name = luaL_checkstring(L, 1);
    if (strchr(name, '/') || strstr(name, ".."))
        return lua_pushfstring(L, "\n\tno module '%s' (names may not hold '/' or '..')", name), 1;
    char path[1200];
    if (!wtlua_find_script(W, "lib", name, path, sizeof path))
        return lua_pushfstring(L, "\n\tno module '%s' in the lib/ script directories", name), 1;
    if (luaL_loadfilex(L, path, "t") != LUA_OK)
        return luaL_error(L, "%s", lua_tostring(L, -1));
    lua_pushstring(L, path);
    return 2;
}

void wtlua_new_type(lua_State *L, const char *name, const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

/* The sandboxed standard library: base, package (Lua modules only),
 * coroutine, table, string, math, utf8. */
static void open_safe_libs(lua_State *L)
{
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},          {LUA_LOADLIBNAME, luaopen_package},
                                    {LUA_COLIBNAME, luaopen_coroutine}, {LUA_TABLIBNAME, luaopen_table},
                                    {LUA_STRLIBNAME, luaopen_string},   {LUA_MATHLIBNAME, luaopen_math},
                                    {LUA_UTF8LIBNAME, luaopen_utf8},    {NULL, NULL}};
    for (const luaL_Reg *lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_getglobal(L, "load");
    lua_pushcclosure(L, text_load, 1);
    lua_setglobal(L, "load");
    lua_getglobal(L, "package");
    lua_pushnil(L);
    lua_setfield(L, -2, "loadlib");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

/* package.searchers: preload, then the lib/ directories; when safe, nothing
 * else (the file searchers would load binary chunks and C libraries). */
static void install_searcher(lua_State *L, int safe)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchers");
    lua_Integer n = safe ? 1 : (lua_Integer)luaL_len(L, -1);
    for (lua_Integer i = n; i >= 2; i--) { /* shift the others up one */
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushcfunction(L, lib_searcher);
    lua_rawseti(L, -2, 2);
    for (lua_Integer i = (lua_Integer)luaL_len(L, -1); safe && i > 2; i--) {
        lua_pushnil(L);
        lua_rawseti(L, -2, i);
    }
    lua_pop(L, 2);
}

const char *wtlua_find_script(wtlua *W, const char *sub, const char *name, char *buf, size_t n)
{
    struct stat st;
    for (int i = W->ndirs - 1; i >= 0; i--) {
        if ((size_t)snprintf(buf, n, "%s/%s/%s.lua", W->dirs[i], sub, name) >= n)
            continue;
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
            return buf;
    }
    return NULL;
}

static void add_dir(wtlua *W, const char *fmt, const char *a, const char *b)
{
    struct stat st;
    char *d = W->dirs[W->ndirs];
    if ((size_t)snprintf(d, sizeof W->dirs[0], fmt, a, b) < sizeof W->dirs[0] && stat(d, &st) == 0 &&
        S_ISDIR(st.st_mode))
        W->ndirs++;
}

/* The script directories, built-in first. */
static void find_dirs(wtlua *W)
{
    add_dir(W, "%s%s/lua", W->opts.root ? W->opts.root : ".", "");
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        add_dir(W, "%s%s/wafertop/lua", xdg, "");
    else if (home && *home)
        add_dir(W, "%s%s/.config/wafertop/lua", home, "");
    if (W->opts.user_dir)
        add_dir(W, "%s%s", W->opts.user_dir, "");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const wtlua_registry wtlua_registries[WTLUA_NKINDS] = {
    [WTLUA_COMMAND] = {WTLUA_COMMANDS, "commands"},
    [WTLUA_POLICY] = {WTLUA_POLICIES, "policies"},
    [WTLUA_STRATEGY] = {WTLUA_STRATEGIES, "strategies"},
};

/* What for_each_script does with one script: name is NAME of NAME.lua, path
 * the file that wins (the last directory holding it). */
typedef int (*script_fn)(wtlua *W, const char *name, const char *path, wt_err *e);

/* Calls fn for every script of the kind's directory in name order, each name
 * once, until one fails. */
static int for_each_script(wtlua *W, wtlua_kind kind, script_fn fn, wt_err *e)
{
    const char *sub = wtlua_registries[kind].dir;
    char *names[WTLUA_MAX_NAMES];
    int n = 0, rc = WT_OK;
    for (int i = 0; i < W->ndirs && rc == WT_OK; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", W->dirs[i], sub);
        DIR *dir = opendir(path);
        if (!dir)
            continue;
        struct dirent *de;
        while (rc == WT_OK && (de = readdir(dir))) {
            size_t len = strlen(de->d_name);
            if (len < 5 || strcmp(de->d_name + len - 4, ".lua") || de->d_name[0] == '.')
                continue;
            int seen = 0;
            for (int k = 0; k < n && !seen; k++)
                seen = strncmp(names[k], de->d_name, len - 4) == 0 && names[k][len - 4] == '\0';
            if (seen)
                continue;
            if (n == WTLUA_MAX_NAMES)
                rc = wt_fail(e, "%s: more than %d scripts in %s/", path, WTLUA_MAX_NAMES, sub);
            else if (!(names[n++] = strndup(de->d_name, len - 4)))
                rc = wt_oom(e, "script names");
        }
        closedir(dir);
    }
    if (rc == WT_OK)
        qsort(names, (size_t)n, sizeof names[0], cmp_str);
    for (int k = 0; k < n && rc == WT_OK; k++) {
        char path[1200];
        wtlua_find_script(W, sub, names[k], path, sizeof path);
        rc = fn(W, names[k], path, e);
    }
    for (int k = 0; k < n; k++)
        free(names[k]);
    return rc;
}

/* Runs a command or policy file, which registers what it defines. */
static int run_script(wtlua *W, const char *name, const char *path, wt_err *e)
{
    (void)name;
    if (luaL_loadfilex(W->L, path, "t") != LUA_OK) {
        int rc = wt_fail(e, "%s", lua_tostring(W->L, -1));
        lua_pop(W->L, 1);
        return rc;
    }
    return wtlua_pcall(W, 0, 0, e);
}

/* A strategy file's help: the "--" lines that open it, without the dashes,
 * the blank after them and the "NAME: " that starts the first, into buf[n]. */
static void leading_comment(const char *path, const char *name, char *buf, size_t n)
{
    size_t used = 0, nlen = strlen(name);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) && !strncmp(line, "--", 2)) {
        const char *text = line + 2 + (line[2] == ' ');
        if (used == 0 && !strncmp(text, name, nlen) && !strncmp(text + nlen, ": ", 2))
            text += nlen + 2;
        size_t len = strlen(text);
        if (used + len >= n)
            len = n - 1 - used;
        memcpy(buf + used, text, len);
        buf[used += len] = '\0';
    }
    fclose(f);
    while (used > 0 && buf[used - 1] == '\n')
        buf[--used] = '\0';
}

typedef struct strategy_entry {
    const char *name, *help;
} strategy_entry;

static int register_strategy_thunk(lua_State *L)
{
    const strategy_entry *s = lua_touserdata(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, WTLUA_STRATEGIES);
    lua_createtable(L, 0, 1);
    lua_pushstring(L, s->help);
    lua_setfield(L, -2, "help");
    lua_setfield(L, -2, s->name);
    return 0;
}

/* Strategies are registered by file name, not run: a script runs when a
 * scenario uses it, against that scenario's layout and model. */
static int register_strategy(wtlua *W, const char *name, const char *path, wt_err *e)
{
    char help[1024];
    leading_comment(path, name, help, sizeof help);
    strategy_entry s = {name, help};
    lua_pushcfunction(W->L, register_strategy_thunk);
    lua_pushlightuserdata(W->L, &s);
    return wtlua_pcall(W, 1, 0, e);
}

/* Builds the state inside a protected call, so that running out of memory
 * while opening libraries is an error and not an abort. */
static int setup(lua_State *L)
{
    wtlua *W = wtlua_of(L);
    if (W->opts.unsafe)
        luaL_openlibs(L);
    else
        open_safe_libs(L);
    install_searcher(L, !W->opts.unsafe);
    if (!W->opts.unsafe)
        wtlua_open_guards(L);
    lua_pushcfunction(L, wtlua_print);
    lua_setglobal(L, "print");
    wtlua_open_types(L);
    wtlua_open_session(L);
    for (int k = 0; k < WTLUA_NKINDS; k++) {
        lua_newtable(L);
        lua_setfield(L, LUA_REGISTRYINDEX, wtlua_registries[k].key);
    }
    luaL_requiref(L, "wafertop", wtlua_open_module, 0);
    lua_setglobal(L, "wt");
    return 0;
}

int wtlua_new(wtlua **out, const wtlua_opts *o, wt_err *e)
{
    *out = NULL;
    wtlua *W = calloc(1, sizeof *W);
    if (!W)
        return wt_oom(e, "lua");
    W->opts = *o;
    if (W->opts.budget <= 0)
        W->opts.budget = WTLUA_DEFAULT_BUDGET;
    if (W->opts.mem_cap == 0)
        W->opts.mem_cap = WTLUA_DEFAULT_MEM;
    W->L = lua_newstate(cap_alloc, W);
    if (!W->L) {
        free(W);
        return wt_oom(e, "lua state");
    }
    *(wtlua **)lua_getextraspace(W->L) = W;
    /* Results and sessions have finalizers, and an object with a finalizer
     * outlives the cycle that finds it dead by one more cycle. At the
     * default pause (200 %: a cycle starts when the heap has doubled since
     * the last one ended) the heap a cycle ends with then counts the last
     * cycle's dead results, and the next one starts later and later: a
     * script that takes steps climbed without bound (11.7 MB after 3,000
     * s:step() results, 31 MB after 20,000). At 150 % it settles at a few
     * times what is alive (0.4 MB). */
    lua_gc(W->L, LUA_GCINC, WTLUA_GC_PAUSE, 0, 0);
    find_dirs(W);
    lua_pushcfunction(W->L, setup);
    int rc = wtlua_pcall(W, 0, 0, e);
    if (rc == WT_OK)
        rc = for_each_script(W, WTLUA_COMMAND, run_script, e);
    if (rc == WT_OK)
        rc = for_each_script(W, WTLUA_POLICY, run_script, e);
    if (rc == WT_OK)
        rc = for_each_script(W, WTLUA_STRATEGY, register_strategy, e);
    if (rc != WT_OK) {
        wtlua_free(W);
        return rc;
    }
    *out = W;
    return WT_OK;
}

void wtlua_free(wtlua *W)
{
    if (!W)
        return;
    lua_close(W->L);
    free(W);
}

/* The arguments of a call from C, for the thunks below: everything that
 * allocates Lua memory happens inside the protected call. */
typedef struct call_job {
    const char *path, *name;
    int argc;
    char **argv;
    sim_result *result; /* handed over; NULL once Lua owns it */
} call_job;

/* Pushes argv as a list of strings. */
static void push_words(lua_State *L, int argc, char **argv)
{
    lua_createtable(L, argc, 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static int run_file_thunk(lua_State *L)
{
    call_job *job = lua_touserdata(L, 1);
    push_words(L, job->argc, job->argv);
    lua_pushstring(L, job->path);
    lua_rawseti(L, -2, 0);
    lua_setglobal(L, "arg");
    if (luaL_loadfilex(L, job->path, "t") != LUA_OK)
        return lua_error(L);
    for (int i = 0; i < job->argc; i++)
        lua_pushstring(L, job->argv[i]);
    lua_call(L, job->argc, 0);
    return 0;
}

int wtlua_run_file(wtlua *W, const char *path, int argc, char **argv, wt_err *e)
{
    call_job job = {.path = path, .argc = argc, .argv = argv};
    lua_pushcfunction(W->L, run_file_thunk);
    lua_pushlightuserdata(W->L, &job);
    return wtlua_pcall(W, 1, 0, e);
}

static int run_command_thunk(lua_State *L)
{
    call_job *job = lua_touserdata(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, WTLUA_COMMANDS);
    if (lua_getfield(L, -1, job->name) != LUA_TTABLE)
        return luaL_error(L, "unknown command '%s'", job->name);
    lua_getfield(L, -1, "fn");
    push_words(L, job->argc, job->argv);
    lua_createtable(L, 0, 1);
    wtlua_push_result(L, job->result, 0);
    job->result = NULL;
    lua_setfield(L, -2, "result");
    lua_call(L, 2, 0);
    return 0;
}

int wtlua_run_command(wtlua *W, const char *name, int argc, char **argv, sim_result *r, wt_err *e)
{
    call_job job = {.name = name, .argc = argc, .argv = argv, .result = r};
    lua_pushcfunction(W->L, run_command_thunk);
    lua_pushlightuserdata(W->L, &job);
    int rc = wtlua_pcall(W, 1, 0, e);
    if (job.result) /* Lua never took it */
        sim_free(job.result);
    if (rc != WT_OK && !strncmp(e->msg, "unknown command", 15))
        e->msg[strcspn(e->msg, "\n")] = '\0'; /* no traceback for a name typo */
    return rc;
}

typedef struct strategy_job {
    const char *path;
    const wafer *wf;
    const model *m;
    const char *net;
    strategy *s;
} strategy_job;

/* Runs a strategy script and converts what it returns (inside the pcall). */
static int strategy_thunk(lua_State *L)
{
    strategy_job *job = lua_touserdata(L, 1);
    if (luaL_loadfilex(L, job->path, "t") != LUA_OK)
        return lua_error(L);
    lua_call(L, 0, 1);
    if (lua_isfunction(L, -1)) {
        wtlua_layout *lay = lua_newuserdatauv(L, sizeof *lay, 0);
        lay->loaded = 0;
        luaL_setmetatable(L, WTLUA_LAYOUT);
        wt_err why;
        if (wafer_copy(&lay->wf, job->wf, &why) != WT_OK)
            return luaL_error(L, "%s", why.msg);
        lay->loaded = 1;
        wtlua_push_model(L, job->m);
        lua_createtable(L, 0, 1); /* what else the command line says */
        lua_pushstring(L, job->net);
        lua_setfield(L, -2, "net");
        lua_call(L, 3, 1);
    }
    if (lua_isnil(L, -1))
        return luaL_error(L, "%s returned nothing: expected a strategy (a string or a table)", job->path);
    wtlua_check_strategy(L, -1, job->s);
    return 0;
}

int wtlua_strategy(wtlua *W, const char *name, const wafer *wf, const model *m, const char *net, strategy *s,
                   wt_err *e)
{
    char path[1200], list[512];
    if (!wtlua_help(W, WTLUA_STRATEGY, name) || !wtlua_find_script(W, "strategies", name, path, sizeof path))
        return wt_fail(e, "no strategy script '%s' (strategies: %s)", name,
                       wtlua_name_list(W, WTLUA_STRATEGY, list, sizeof list));
    strategy_job job = {path, wf, m, net, s};
    lua_pushcfunction(W->L, strategy_thunk);
    lua_pushlightuserdata(W->L, &job);
    return wtlua_pcall(W, 1, 0, e);
}

int wtlua_load_policy(wtlua *W, const char *name_or_path, char *name, size_t n, wt_err *e)
{
    if (wtlua_help(W, WTLUA_POLICY, name_or_path)) {
        snprintf(name, n, "%s", name_or_path);
        return WT_OK;
    }
    if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".lua")) {
        char list[512];
        return wt_fail(e, "unknown policy '%s' (policies: %s; or a .lua file)", name_or_path,
                       wtlua_name_list(W, WTLUA_POLICY, list, sizeof list));
    }
    /* a file: whatever it registers that was not there before */
    const char *before[WTLUA_MAX_NAMES];
    int nb = wtlua_names(W, WTLUA_POLICY, before, WTLUA_MAX_NAMES);
    char *kept[WTLUA_MAX_NAMES];
    for (int i = 0; i < nb; i++)
        kept[i] = strdup(before[i]);
    int rc = wtlua_run_file(W, name_or_path, 0, NULL, e);
    const char *after[WTLUA_MAX_NAMES];
    int na = rc == WT_OK ? wtlua_names(W, WTLUA_POLICY, after, WTLUA_MAX_NAMES) : 0, found = 0;
    for (int i = 0; i < na; i++) {
        int old = 0;
        for (int j = 0; j < nb; j++)
            old |= kept[j] && !strcmp(kept[j], after[i]);
        if (!old) {
            snprintf(name, n, "%s", after[i]);
            found++;
        }
    }
    for (int i = 0; i < nb; i++)
        free(kept[i]);
    if (rc == WT_OK && found != 1)
        rc = wt_fail(e, "%s registers %d new policies with wt.policy; a policy file registers one", name_or_path,
                     found);
    return rc;
}

typedef struct policy_job {
    const char *name;
    session *S;
    const sim_result *r; /* the step, owned by wtlua_policy_step */
    int max_hot;
} policy_job;

/* Calls on_step and on_hot_link (inside the protected call), then takes the
 * session and the result back from Lua whatever happened. */
static int policy_thunk(lua_State *L)
{
    policy_job *job = lua_touserdata(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, WTLUA_POLICIES);
    if (lua_getfield(L, -1, job->name) != LUA_TTABLE)
        return luaL_error(L, "unknown policy '%s'", job->name);
    int hooks = lua_gettop(L);
    /* the releases run even when a hook fails: to-be-closed variables */
    wtlua_push_session(L, job->S);
    int sess = lua_gettop(L);
    lua_toclose(L, sess);
    wtlua_push_borrowed_result(L, job->r);
    int res = lua_gettop(L);
    lua_toclose(L, res);
    if (lua_getfield(L, hooks, "on_step") == LUA_TFUNCTION) {
        lua_pushvalue(L, sess);
        lua_pushvalue(L, res);
        lua_call(L, 2, 0);
    } else {
        lua_pop(L, 1);
    }
    if (lua_getfield(L, hooks, "on_hot_link") == LUA_TFUNCTION) {
        int fn = lua_gettop(L);
        lua_getfield(L, res, "hot_links");
        lua_pushvalue(L, res);
        lua_call(L, 1, 1);
        int hot = lua_gettop(L);
        for (lua_Integer i = 1; i <= job->max_hot && lua_rawgeti(L, hot, i) == LUA_TTABLE; i++) {
            int link = lua_gettop(L);
            lua_pushvalue(L, fn);
            lua_pushvalue(L, sess);
            lua_pushvalue(L, link);
            lua_call(L, 2, 0);
            lua_settop(L, hot);
        }
    }
    return 0;
}

int wtlua_policy_step(wtlua *W, const char *name, session *S, const sim_result *r, int max_hot, wt_err *e)
{
    /* One copy of the step for both hooks, taken before on_step can change
     * the session (s:step() inside a hook replaces the session's result).
     * C owns
     * it and frees it here, and the hooks get small borrowed objects: a
     * copy per step left to Lua's collector (a 40 KB object with a
     * finalizer, beside 40 KB for the session object, and 20 KB of arrays
     * the collector does not see) made a screen left running grow without
     * end. */
    sim_result copy;
    int rc = sim_copy(&copy, r, e);
    if (rc != WT_OK)
        return rc;
    policy_job job = {name, S, &copy, max_hot};
    lua_pushcfunction(W->L, policy_thunk);
    lua_pushlightuserdata(W->L, &job);
    rc = wtlua_pcall(W, 1, 0, e);
    sim_free(&copy);
    return rc;
}

const char *wtlua_help(wtlua *W, wtlua_kind kind, const char *name)
{
    lua_State *L = W->L;
    const char *help = NULL;
    lua_getfield(L, LUA_REGISTRYINDEX, wtlua_registries[kind].key);
    if (lua_getfield(L, -1, name) == LUA_TTABLE) {
        lua_getfield(L, -1, "help");
        /* the string stays referenced by the entry */
        help = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return help;
}

int wtlua_names(wtlua *W, wtlua_kind kind, const char **names, int max)
{
    lua_State *L = W->L;
    int n = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, wtlua_registries[kind].key);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (n < max && lua_type(L, -1) == LUA_TSTRING)
            names[n++] = lua_tostring(L, -1); /* the key stays in the registry table */
    }
    lua_pop(L, 1);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    return n;
}

const char *wtlua_name_list(wtlua *W, wtlua_kind kind, char *buf, size_t n)
{
    const char *names[WTLUA_MAX_NAMES];
    int k = wtlua_names(W, kind, names, WTLUA_MAX_NAMES);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < k && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", names[i]);
    if (k == 0)
        snprintf(buf, n, "none");
    return buf;
}
