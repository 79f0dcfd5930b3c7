/* The Lua binding driven from C (lua/wtlua.h): results equal the engine's,
 * errors carry file:line, the sandbox, the budget and the memory cap hold,
 * and the state keeps working after a script fails. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "layout.h"
#include "sim.h"
#include "wtlua.h"

/* What print and wt.print wrote. */
typedef struct capture {
    char buf[1 << 16];
    size_t len;
} capture;

static void capture_out(void *ud, const char *s, size_t n)
{
    capture *c = ud;
    if (c->len + n >= sizeof c->buf)
        n = sizeof c->buf - 1 - c->len;
    memcpy(c->buf + c->len, s, n);
    c->len += n;
    c->buf[c->len] = '\0';
}

typedef struct fixture {
    char dir[64];
    capture out;
    wtlua *L;
} fixture;

/* A state on the built-in scripts, and user_dir's when it is not NULL. */
static wtlua *new_state(fixture *f, double budget, size_t mem, int unsafe, const char *user_dir)
{
    wtlua_opts o = {.root = ".", .user_dir = user_dir, .budget = budget, .mem_cap = mem, .unsafe = unsafe,
                    .out = capture_out, .out_ud = &f->out};
    wt_err e;
    wtlua *L;
    if (wtlua_new(&L, &o, &e) != WT_OK)
        fail_msg("wtlua_new: %s", e.msg);
    return L;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/wt_test_lua_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->L = new_state(f, 0, 0, 0, NULL);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    wtlua_free(f->L);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* Writes a script into the fixture's directory; returns its path. */
static const char *script(fixture *f, const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s.lua", f->dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

/* Runs a script that must fail; returns the error message. */
static const char *run_bad(fixture *f, wtlua *L, const char *name, const char *text)
{
    static wt_err e;
    const char *path = script(f, name, text);
    assert_int_not_equal(wtlua_run_file(L, path, 0, NULL, &e), WT_OK);
    return e.msg;
}

static void run_ok(fixture *f, wtlua *L, const char *name, const char *text)
{
    wt_err e;
    const char *path = script(f, name, text);
    if (wtlua_run_file(L, path, 0, NULL, &e) != WT_OK)
        fail_msg("%s", e.msg);
}

/* default.yaml, a model preset and a strategy text, as the engine reads them. */
static void load_scenario(wafer *wf, model *m, strategy *s, const char *model_name, const char *text)
{
    assert_int_equal(layout_load("layouts/default.yaml", wf, NULL), WT_OK);
    assert_int_equal(model_preset(model_name, m), WT_OK);
    strategy_defaults(s);
    assert_int_equal(strategy_parse(text, s, NULL), WT_OK);
}

/* wt.eval's figures are the engine's, to the last bit. */
static void test_eval_equals_engine(void **state)
{
    fixture *f = *state;
    run_ok(f, f->L, "eval",
           "local r = wt.eval{layout = 'default', model = 'gpt3-6.7b', strategy = 'DP8,TATP16'}\n"
           "print(string.format('%.17g %.17g %.17g %.17g %d %s', r.step_time_s, r.mfu, r.memory.total,\n"
           "  r.max_link_util, #r:hot_links(), r.bottleneck_phase))\n");
    wafer wf;
    model m;
    strategy s;
    load_scenario(&wf, &m, &s, "gpt3-6.7b", "DP8,TATP16");
    sim_result r;
    assert_int_equal(sim_eval(&r, &wf, &m, &s, NULL), WT_OK);
    assert_int_equal(sim_window_figures(&r, SIM_WINDOW_S, NULL), WT_OK); /* wt.eval fills them */
    char want[256];
    snprintf(want, sizeof want, "%.17g %.17g %.17g %.17g %d %s\n", r.step_time_s, r.mfu, r.mem.total,
             r.max_link_util, r.hot_links, r.phases[r.bottleneck].name);
    assert_string_equal(f->out.buf, want);
    sim_free(&r);
    wafer_free(&wf);
}

/* With no strategy, wt.eval takes the layout's recommended one; the
 * table's options go on top of it. */
static void test_eval_layout_strategy(void **state)
{
    fixture *f = *state;
    run_ok(f, f->L, "layout_strategy",
           "local fix = 'tests/fixtures/layouts/strategy-stream.yaml'\n"
           "local r = wt.eval{layout = fix, checkpoint = 'none'}\n"
           "local s = r.strategy\n"
           "print(s.text, s.exec, s.checkpoint, r.microbatch, wt.eval{layout = fix, microbatch = 1}.microbatch,\n"
           "  wt.eval{}.strategy.text)\n");
    assert_string_equal(f->out.buf, "DP2,TATP4\tstream\tnone\t2\t1\tDP8,TP2,SP4,TATP4x1\n");
}

static void test_errors_have_file_line(void **state)
{
    fixture *f = *state;
    char want[128];
    const char *msg = run_bad(f, f->L, "runtime", "local x = 1\nlocal y = 2\nerror('broken here')\n");
    snprintf(want, sizeof want, "%s/runtime.lua:3: broken here\nstack traceback:", f->dir);
    assert_memory_equal(msg, want, strlen(want));
    msg = run_bad(f, f->L, "syntax", "local x =\n= 2\n");
    snprintf(want, sizeof want, "%s/syntax.lua:2: unexpected symbol", f->dir);
    assert_memory_equal(msg, want, strlen(want));
    /* an engine refusal raised from C points at the Lua line that called it */
    msg = run_bad(f, f->L, "engine", "\nwt.eval{strategy = 'TP3'}\n");
    snprintf(want, sizeof want, "%s/engine.lua:2: strategy TP3: TP 3 must divide", f->dir);
    assert_memory_equal(msg, want, strlen(want));
}

/* A runaway loop stops within the budget, even behind pcall, and the state
 * still runs scripts afterwards. */
static void test_budget(void **state)
{
    fixture *f = *state;
    wtlua *L = new_state(f, 1e6, 0, 0, NULL);
    assert_non_null(strstr(run_bad(f, L, "spin", "while true do end\n"), "instruction budget of 1000000 exceeded"));
    assert_non_null(strstr(run_bad(f, L, "swallow", "while true do pcall(function() while true do end end) end\n"),
                           "instruction budget"));
    assert_non_null(strstr(run_bad(f, L, "co", "local c = coroutine.wrap(function() while true do end end)\nc()\n"),
                           "instruction budget"));
    f->out.len = 0;
    run_ok(f, L, "after", "local n = 0\nfor i = 1, 1000 do n = n + i end\nprint(n)\n");
    assert_string_equal(f->out.buf, "500500\n");
    wtlua_free(L);
}

/* Seconds on a monotonic clock. */
/* What runs with the hook off or in C is charged too: finalizers are
 * refused, a message handler runs under the hook, and C work (patterns,
 * string.rep, table.move) is charged before it runs. Each stops at once. */
static void test_budget_guards(void **state)
{
    fixture *f = *state;
    wtlua *L = new_state(f, 1e6, 0, 0, NULL);
    char want[256];
    snprintf(want, sizeof want,
             "%s/gc.lua:1: setmetatable: __gc is not allowed in the sandbox (a finalizer runs outside the "
             "instruction budget)",
             f->dir);
    const char *msg = run_bad(f, L, "gc", "setmetatable({}, {__gc = function() while true do end end})\n");
    assert_memory_equal(msg, want, strlen(want));
    double t0 = wt_clock_s();
    msg = run_bad(f, L, "xpcall", "xpcall(function() while true do end end, function() while true do end end)\n");
    assert_non_null(strstr(msg, "instruction budget of 1000000 exceeded (--lua-budget)"));
    msg = run_bad(f, L, "pattern",
                  "string.find(string.rep('a', 60), string.rep('a?', 60) .. string.rep('a', 60))\n");
    snprintf(want, sizeof want, "%s/pattern.lua:1: instruction budget of 1000000 exceeded (--lua-budget)", f->dir);
    assert_memory_equal(msg, want, strlen(want));
    assert_non_null(strstr(run_bad(f, L, "rep", "local s = string.rep('', 1e12)\n"), "instruction budget"));
    assert_non_null(strstr(run_bad(f, L, "move", "table.move({}, 1, 1e15, 2)\n"), "instruction budget"));
    assert_true(wt_clock_s() - t0 < 1.0);
    /* "a*b" in n a's matches nowhere, so every start is charged: start s
     * costs (1 + n - s) for a* and its run, plus 1 for b at each of the
     * n - s + 1 ends a* can leave, so all starts (n + 1)(n + 2), plus n for
     * the string.rep: 999,998 for n = 998 fits a budget of 1e6, 1,001,999
     * for n = 999 does not */
    f->out.len = 0;
    run_ok(f, L, "fits", "print(string.find(string.rep('a', 998), 'a*b'))\n");
    assert_string_equal(f->out.buf, "nil\n");
    assert_non_null(strstr(run_bad(f, L, "over", "string.find(string.rep('a', 999), 'a*b')\n"), "budget"));
    /* only the starts tried before the match are charged: "a*" matches at
     * the first (2,000 of the 1,001,000 all starts would cost) */
    f->out.len = 0;
    run_ok(f, L, "first", "print(string.find(string.rep('a', 999), 'a*'))\n");
    assert_string_equal(f->out.buf, "1\t999\n");
    wtlua_free(L);
    /* and a scan with find(p, i) costs about one pass (2 per byte), not a
     * pass per call (5e9 here); a budget of 1e7 for its run time */
    L = new_state(f, 1e7, 0, 0, NULL);
    f->out.len = 0;
    run_ok(f, L, "scan",
           "local s, i, n = string.rep('ab,', 33333), 1, 0\n"
           "while true do\n"
           "  local at = s:find('[,;]', i)\n"
           "  if not at then break end\n"
           "  n, i = n + 1, at + 1\n"
           "end\n"
           "print(n, s:match('(b),', 99990))\n");
    assert_string_equal(f->out.buf, "33333\tb\n");
    /* the handler sees the error and the guards keep Lua's answers */
    f->out.len = 0;
    run_ok(f, L, "answers",
           "print(xpcall(function(a) error('boom ' .. a, 0) end, function(m) return 'handled: ' .. m end, 7))\n"
           "print(xpcall(function(a, b) return a + b end, print, 1, 2))\n"
           "print(('  key = value  '):match('^%s*(%w+)%s*=%s*(.-)%s*$'))\n"
           "print(('a,b,,c'):gsub(',', ';'), ('x'):rep(3, '-'), table.concat(table.move({1, 2, 3}, 1, 3, 2), ' '))\n"
           "local n = 0 for w in ('one two three'):gmatch('%a+') do n = n + #w end print(n)\n");
    assert_string_equal(f->out.buf, "false\thandled: boom 7\ntrue\t3\nkey\tvalue\na;b;;c\tx-x-x\t1 1 2 3\n11\n");
    wtlua_free(L);
}

/* The budget is also time: budget / WTLUA_STEPS_PER_S seconds whatever the
 * call spends them on (here wt.eval, a C call counted as one instruction
 * by the hook), a search in C included; and a signal stops a script. */
static void test_budget_time(void **state)
{
    fixture *f = *state;
    wtlua *L = new_state(f, 1e7, 0, 0, NULL);
    double t0 = wt_clock_s();
    const char *msg = run_bad(f, L, "evals", "while true do wt.eval{} end\n");
    double took = wt_clock_s() - t0;
    assert_non_null(
        strstr(msg, "instruction budget of 10000000 exceeded: its 1.0 s of run time are over (--lua-budget)"));
    assert_true(took >= 1.0 && took < 3.0); /* 1.05 s here alone; more on a busy machine */
    t0 = wt_clock_s();
    msg = run_bad(f, L, "search", "wt.search{layout = 'wse2'}\n");
    took = wt_clock_s() - t0;
    assert_non_null(strstr(msg, "its 1.0 s of run time are over"));
    /* 0.1 s late here alone; a placement on the wafer runs to its end, and
     * under the sanitizers on a busy machine that can take a second */
    assert_true(took >= 1.0 && took < 3.0);
    wtlua_free(L);

    static volatile sig_atomic_t stop = SIGINT;
    wtlua_opts o = {.root = ".", .interrupt = &stop, .out = capture_out, .out_ud = &f->out};
    wt_err e;
    assert_int_equal(wtlua_new(&L, &o, &e), WT_OK);
    msg = run_bad(f, L, "spin", "local n = 0\nwhile true do n = n + 1 end\n");
    snprintf(e.msg, sizeof e.msg, "%s/spin.lua:2: interrupted by a signal", f->dir);
    assert_memory_equal(msg, e.msg, strlen(e.msg));
    wtlua_free(L);
}

/* A script reads regular files only, and a file's contents never come
 * back in an error. */
static void test_script_files(void **state)
{
    fixture *f = *state;
    char fifo[128], text[512], want[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", f->dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *paths[] = {"/dev/zero", fifo, f->dir}, *kinds[] = {"a character device", "a FIFO", "a directory"};
    for (int i = 0; i < 3; i++) {
        for (int m = 0; m < 2; m++) {
            snprintf(text, sizeof text, "wt.%s('%s')\n", m ? "model" : "layout", paths[i]);
            snprintf(want, sizeof want, "%s/file.lua:1: %s: not a regular file (%s); give a YAML file", f->dir,
                     paths[i], kinds[i]);
            assert_string_equal(strtok((char *)run_bad(f, f->L, "file", text), "\n"), want);
        }
    }
    char secret[128];
    snprintf(secret, sizeof secret, "%s/secret.yaml", f->dir);
    FILE *fp = fopen(secret, "w");
    assert_non_null(fp);
    fputs("secret_key_abc: 1\n", fp);
    fclose(fp);
    for (int m = 0; m < 2; m++) {
        snprintf(text, sizeof text, "wt.%s('%s')\n", m ? "model" : "layout", secret);
        const char *msg = run_bad(f, f->L, "leak", text);
        assert_null(strstr(msg, "secret_key_abc"));
        snprintf(want, sizeof want, "%s/leak.lua:1: %s:1:1: unknown key '...' (allowed: name, ", f->dir, secret);
        assert_memory_equal(msg, want, strlen(want));
    }
}

static void test_memory_cap(void **state)
{
    fixture *f = *state;
    wtlua *L = new_state(f, 0, 32u << 20, 0, NULL);
    assert_non_null(strstr(run_bad(f, L, "hog", "local s = string.rep('x', 1 << 30)\n"),
                           "memory cap of 32 MiB exceeded"));
    assert_non_null(strstr(run_bad(f, L, "grow", "local t = {}\nfor i = 1, 1e9 do t[i] = {i} end\n"),
                           "memory cap of 32 MiB exceeded"));
    /* the C memory of results, layouts and sessions counts too: results a
     * script keeps are refused once they do not fit, results it drops are
     * given back by the collector (about 310 of them fit) */
    const char *msg = run_bad(f, L, "keep", "local keep = {}\nfor i = 1, 1e5 do keep[i] = wt.eval{} end\n");
    char want[128];
    snprintf(want, sizeof want, "%s/keep.lua:2: memory cap of 32 MiB exceeded (--lua-mem)", f->dir);
    assert_memory_equal(msg, want, strlen(want));
    assert_non_null(strstr(run_bad(f, L, "big", "wt.eval{layout = 'wse2'}\n"), "memory cap of 32 MiB exceeded"));
    assert_non_null(strstr(run_bad(f, L, "sessions", "local keep = {}\nfor i = 1, 1e5 do keep[i] = wt.session{} end\n"),
                           "memory cap of 32 MiB"));
    f->out.len = 0;
    run_ok(f, L, "after", "print(#string.rep('y', 1000))\nlocal r\nfor i = 1, 600 do r = wt.eval{} end\n"
                          "print(r.step_time_s > 0)\n");
    assert_string_equal(f->out.buf, "1000\ntrue\n");
    wtlua_free(L);
}

static void test_sandbox(void **state)
{
    fixture *f = *state;
    assert_non_null(strstr(run_bad(f, f->L, "os", "os.execute('true')\n"), "global 'os'"));
    assert_non_null(strstr(run_bad(f, f->L, "io", "io.open('/etc/passwd')\n"), "global 'io'"));
    assert_non_null(strstr(run_bad(f, f->L, "req", "require 'os'\n"), "module 'os' not found"));
    assert_non_null(strstr(run_bad(f, f->L, "reqio", "require 'io'\n"), "module 'io' not found"));
    assert_non_null(strstr(run_bad(f, f->L, "bin", "local f, err = load(string.dump(function() end))\nerror(err)\n"),
                           "binary chunk"));
    assert_non_null(strstr(run_bad(f, f->L, "lib", "package.loadlib('x', 'y')\n"), "field 'loadlib'"));
    assert_non_null(strstr(run_bad(f, f->L, "dbg", "debug.traceback()\n"), "global 'debug'"));
    assert_non_null(strstr(run_bad(f, f->L, "lf", "loadfile('/etc/passwd')\n"), "global 'loadfile'"));
    /* text chunks still load, with their environment */
    f->out.len = 0;
    run_ok(f, f->L, "text", "print(load('return 1 + 1')(), load('return x', 'c', 't', {x = 7})())\n");
    assert_string_equal(f->out.buf, "2\t7\n");
    wtlua *U = new_state(f, 0, 0, 1, NULL);
    run_ok(f, U, "unsafe", "assert(os.time() > 0)\nassert(io.open)\n");
    wtlua_free(U);
}

/* The stock scripts of a kind: NAME of every lua/DIR/NAME.lua, read when the
 * test runs, so that a new file is checked and a removed one is not. */
static int stock_names(const char *dir, char names[][64], int max)
{
    char path[64];
    snprintf(path, sizeof path, "lua/%s", dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len > 4 && !strcmp(de->d_name + len - 4, ".lua") && de->d_name[0] != '.') {
            assert_true(n < max && len - 4 < 64);
            snprintf(names[n++], 64, "%.*s", (int)(len - 4), de->d_name);
        }
    }
    closedir(d);
    return n;
}

/* The script directory of each kind. */
static const char *const kind_dirs[] = {[WTLUA_COMMAND] = "commands", [WTLUA_POLICY] = "policies",
                                        [WTLUA_STRATEGY] = "strategies"};

/* Every stock script of every kind is registered, with its help, in sorted
 * order among whatever else is there. */
static void check_registries(wtlua *L)
{
    for (int k = 0; k < WTLUA_NKINDS; k++) {
        char stock[64][64];
        int ns = stock_names(kind_dirs[k], stock, 64);
        assert_true(ns > 0);
        const char *names[WTLUA_MAX_NAMES];
        int n = wtlua_names(L, (wtlua_kind)k, names, WTLUA_MAX_NAMES);
        for (int i = 1; i < n; i++)
            assert_true(strcmp(names[i - 1], names[i]) < 0);
        char list[2048];
        wtlua_name_list(L, (wtlua_kind)k, list, sizeof list);
        for (int s = 0; s < ns; s++) {
            int found = 0;
            for (int i = 0; i < n; i++)
                found |= !strcmp(names[i], stock[s]);
            if (!found || !wtlua_help(L, (wtlua_kind)k, stock[s]) || !*wtlua_help(L, (wtlua_kind)k, stock[s]))
                fail_msg("%s/%s.lua is not registered with a help text (registered: %s)", kind_dirs[k], stock[s],
                         list);
        }
        assert_null(wtlua_help(L, (wtlua_kind)k, "nope"));
    }
}

static void test_registries(void **state)
{
    fixture *f = *state;
    check_registries(f->L);
    assert_non_null(strstr(wtlua_help(f->L, WTLUA_COMMAND, "link_util"), "--group WxH"));

    /* a user directory adds to every registry without hiding the stock ones */
    char sub[128];
    for (int k = 0; k < WTLUA_NKINDS; k++) {
        snprintf(sub, sizeof sub, "%s/%s", f->dir, kind_dirs[k]);
        assert_int_equal(mkdir(sub, 0700), 0);
    }
    script(f, "commands/mine", "wt.command('mine', function() end, 'mine [--x N]\\n  a test command')\n");
    script(f, "policies/calm", "wt.policy('calm', {help = 'does nothing', on_step = function() end})\n");
    script(f, "strategies/mine", "-- mine: all data parallel.\n-- Nothing else.\nreturn 'DP8'\n");
    wtlua *U = new_state(f, 0, 0, 0, f->dir);
    check_registries(U);
    assert_string_equal(wtlua_help(U, WTLUA_COMMAND, "mine"), "mine [--x N]\n  a test command");
    assert_string_equal(wtlua_help(U, WTLUA_POLICY, "calm"), "does nothing");
    assert_string_equal(wtlua_help(U, WTLUA_STRATEGY, "mine"), "all data parallel.\nNothing else.");
    f->out.len = 0;
    run_ok(f, U, "list", /* wt.commands() and the others read the same registries */
           "for _, kind in ipairs{'commands', 'policies', 'strategies'} do\n"
           "  for _, e in ipairs(wt[kind]()) do if e.name == 'mine' or e.name == 'calm' then\n"
           "    print(kind, e.name, e.help) end end\n"
           "end\n");
    assert_string_equal(f->out.buf, "commands\tmine\tmine [--x N]\n  a test command\n"
                                    "policies\tcalm\tdoes nothing\n"
                                    "strategies\tmine\tall data parallel.\nNothing else.\n");
    wtlua_free(U);
}

/* A command runs on a result handed over from C. */
static void test_run_command(void **state)
{
    fixture *f = *state;

    wafer wf;
    model m;
    strategy s;
    load_scenario(&wf, &m, &s, "6b", "TATP16");
    sim_result r;
    assert_int_equal(sim_eval(&r, &wf, &m, &s, NULL), WT_OK);
    char *words[] = {"--group", "8x8", "--top", "2"};
    wt_err e;
    f->out.len = 0;
    if (wtlua_run_command(f->L, "link_util", 4, words, &r, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_non_null(strstr(f->out.buf, "by 8x8 tile"));
    assert_non_null(strstr(f->out.buf, "hottest 2 links:"));
    /* an unknown command still takes (and frees) the result */
    assert_int_equal(sim_eval(&r, &wf, &m, &s, NULL), WT_OK);
    assert_int_equal(wtlua_run_command(f->L, "nope", 0, NULL, &r, &e), WT_EINPUT);
    assert_string_equal(e.msg, "unknown command 'nope'");
    /* a flag mistake is its one line, without a traceback */
    assert_int_equal(sim_eval(&r, &wf, &m, &s, NULL), WT_OK);
    char *bad[] = {"--top", "many"};
    assert_int_equal(wtlua_run_command(f->L, "link_util", 2, bad, &r, &e), WT_EINPUT);
    assert_string_equal(e.msg, "link_util: --top: expected a number, got 'many'");
    /* the state collects the results before their wafer goes */
    wtlua_free(f->L);
    f->L = new_state(f, 0, 0, 0, NULL);
    wafer_free(&wf);
}

/* Lua strategies resolve against a layout and a model. */
static void test_strategies(void **state)
{
    fixture *f = *state;
    wafer wf;
    assert_int_equal(layout_load("layouts/default.yaml", &wf, NULL), WT_OK);
    model m;
    model_preset("gpt3-6.7b", &m);
    strategy s;
    wt_err e;
    strategy_defaults(&s);
    if (wtlua_strategy(f->L, "megatron", &wf, &m, "fluid", &s, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_int_equal(s.tp, 32); /* the largest divisor of 32 heads */
    assert_int_equal(s.placement, PLACE_LINEAR);
    strategy_defaults(&s);
    assert_int_equal(wtlua_strategy(f->L, "deepspeed3d", &wf, &m, "fluid", &s, &e), WT_OK);
    assert_true(s.dp == 8 && s.tp == 8 && s.pp == 4 && s.dp_given);
    /* an unknown name lists the strategies there are */
    assert_int_equal(wtlua_strategy(f->L, "nope", &wf, &m, "fluid", &s, &e), WT_EINPUT);
    char list[512], want[600];
    snprintf(want, sizeof want, "no strategy script 'nope' (strategies: %s)",
             wtlua_name_list(f->L, WTLUA_STRATEGY, list, sizeof list));
    assert_string_equal(e.msg, want);
    assert_non_null(strstr(e.msg, "megatron"));
    /* and so does a path, which is not a name */
    assert_int_equal(wtlua_strategy(f->L, "../strategies/megatron", &wf, &m, "fluid", &s, &e), WT_EINPUT);
    wafer_free(&wf);
}

/* A policy's hooks get a session and a result that live only during the
 * call: kept beyond it, they say so, and the step they saw is C's to free. */
static void test_policy_objects_end_with_hook(void **state)
{
    fixture *f = *state;
    const char *path = script(f, "keeper",
                              "wt.policy('keeper', {on_step = function(s, r)\n"
                              "  kept_s, kept_r = s, r\n"
                              "  print(string.format('%.17g %d', r.step_time_s, s.steps))\n"
                              "end})\n");
    char name[64];
    wt_err e;
    if (wtlua_load_policy(f->L, path, name, sizeof name, &e) != WT_OK)
        fail_msg("%s", e.msg);
    assert_string_equal(name, "keeper");
    wafer wf;
    model m;
    strategy s;
    load_scenario(&wf, &m, &s, "gpt3-6.7b", "DP8,TATP16");
    session_opts o = {3, 0.05, 0, NULL, 0};
    session S;
    assert_int_equal(session_new(&S, &wf, &m, &s, &o, &e), WT_OK);
    const sim_result *r;
    assert_int_equal(session_step(&S, &r, &e), WT_OK);
    f->out.len = 0;
    if (wtlua_policy_step(f->L, "keeper", &S, r, 8, &e) != WT_OK)
        fail_msg("%s", e.msg);
    char want[64];
    snprintf(want, sizeof want, "%.17g 1\n", r->step_time_s);
    assert_string_equal(f->out.buf, want);
    assert_non_null(strstr(run_bad(f, f->L, "late_r", "return kept_r.step_time_s\n"),
                           "late_r.lua:1: this result is gone (a policy's result lives only during its hook"));
    assert_non_null(strstr(run_bad(f, f->L, "late_s", "kept_s:step()\n"), "this session is gone"));
    f->out.len = 0;
    run_ok(f, f->L, "names", "print(tostring(kept_r), tostring(kept_s))\n");
    assert_string_equal(f->out.buf, "wafertop.result (gone)\twafertop.session (gone)\n");
    session_free(&S);
    wafer_free(&wf);
}

/* Results have finalizers, which the collector's pace must allow for: a
 * script taking thousands of steps keeps its heap near what is alive (about
 * 0.1 MB here; 11.7 MB at the collector's default pause). */
static void test_many_results_collected(void **state)
{
    fixture *f = *state;
    f->out.len = 0;
    run_ok(f, f->L, "steps",
           "local s = wt.session{strategy = 'DP8,TP32', placement = 'linear', jitter = 0.05, seed = 3}\n"
           "local most = 0\n"
           "for i = 1, 3000 do\n"
           "  local r = s:step()\n"
           "  most = math.max(most, collectgarbage('count'))\n"
           "end\n"
           "print(math.floor(most))\n");
    long most_kb = strtol(f->out.buf, NULL, 10);
    if (most_kb <= 0 || most_kb > 2048)
        fail_msg("the Lua heap reached %ld KB over 3000 steps", most_kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_eval_equals_engine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_layout_strategy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_have_file_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_guards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sandbox, setup, teardown),
        cmocka_unit_test_setup_teardown(test_registries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strategies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_objects_end_with_hook, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_results_collected, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
