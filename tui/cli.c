#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "layout.h"
#include "net.h"
#include "qty.h"
#include "snapshot.h"
#include "theme.h"
#include "sysmem.h"

/* A flag: its name, whether it takes a value, and which commands know it. */
typedef struct flag_spec {
    const char *name;
    int takes_value;
    unsigned group; /* 0: the scenario flags; FLAG_LUA; else the CLI_* bits of the commands that know it */
    int option;     /* 1: a strategy option, for strategy_set_option */
} flag_spec;

#define FLAG_LUA 0x8000u

static const flag_spec flags[] = {
    {"layout", 1, 0, 0},         {"model", 1, 0, 0},        {"strategy", 1, 0, 0},
    {"seq", 1, 0, 0},            {"batch", 1, 0, 0},        {"microbatch", 1, 0, 0},
    {"format", 1, CLI_FORMAT, 0}, {"placement", 1, 0, 1},    {"collective", 1, 0, 1},
    {"routing", 1, 0, 1},        {"checkpoint", 1, 0, 1},   {"mem", 1, 0, 1},
    {"grad-compress", 1, 0, 1},  {"chunk", 1, 0, 1},        {"subgroup", 1, 0, 1},
    {"tp-seqpar", 1, 0, 1},      {"fail", 1, 0, 0},         {"net", 1, 0, 0},          {"set", 1, 0, 0},
    {"window", 1, 0, 0},         {"exec", 1, 0, 1},
    {"phase", 1, CLI_PHASE, 0}, {"flit-window", 1, CLI_FLIT, 0}, {"lua-path", 1, FLAG_LUA, 0},
    {"unsafe-lua", 0, FLAG_LUA, 0}, {"lua-budget", 1, FLAG_LUA, 0}, {"lua-mem", 1, FLAG_LUA, 0},
    {"objective", 1, CLI_SEARCH, 0}, {"top", 1, CLI_SEARCH, 0}, {"jobs", 1, CLI_SEARCH, 0},
    {"exhaustive", 0, CLI_SEARCH, 0}, {"allow-idle", 0, CLI_SEARCH, 0}, {"fix", 1, CLI_SEARCH, 0},
    {"only", 1, CLI_SEARCH, 0}, {"quiet", 0, CLI_SEARCH, 0},
    {"policy", 1, CLI_TUNE, 0}, {"steps", 1, CLI_TUNE, 0}, {"seed", 1, CLI_TUNE, 0},
    {"jitter", 1, CLI_TUNE, 0}, {"straggler", 1, CLI_TUNE, 0},
    {"theme", 1, CLI_UI | CLI_PICTURE, 0}, {"bench-frames", 1, CLI_UI, 0},
    {"out", 1, CLI_PICTURE, 0}, {"view", 1, CLI_PICTURE, 0},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

/* The spec of --name for a command taking `extra`, or NULL. */
static const flag_spec *find_flag(const char *name, size_t len, unsigned extra)
{
    for (size_t i = 0; i < NFLAGS; i++) {
        const flag_spec *f = &flags[i];
        if (strlen(f->name) != len || strncmp(f->name, name, len))
            continue;
        if (f->group == 0 ? (extra & CLI_NO_SCENARIO) != 0 : f->group != FLAG_LUA && !(f->group & extra))
            return NULL;
        return f;
    }
    return NULL;
}

/* A number in [lo, hi]. */
static int parse_number(const char *flag, const char *v, double lo, double hi, double *out, wt_err *e)
{
    errno = 0;
    char *end;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi))
        return wt_fail(e, "--%s: '%s' is not a number from %g to %g", flag, v, lo, hi);
    *out = x;
    return WT_OK;
}

static int parse_count(const char *flag, const char *v, int *out, wt_err *e)
{
    errno = 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x <= 0 || x > INT_MAX / 2)
        return wt_fail(e, "--%s: '%s' is not a positive whole number", flag, v);
    *out = (int)x;
    return WT_OK;
}

/* Prefixes an error message with the flag that caused it. */
static int flag_error(wt_err *e, const char *flag, const wt_err *why)
{
    return wt_fail(e, "--%s: %s", flag, why->msg);
}

/* Stores the value of a known flag. */
static int apply_flag(cli_opts *o, const flag_spec *f, const char *value, wt_err *e)
{
    const char *n = f->name;
    if (f->option) {
        if (o->nopts == (int)(sizeof o->opt_name / sizeof o->opt_name[0]))
            return wt_fail(e, "too many strategy options");
        o->opt_name[o->nopts] = n;
        o->opt_value[o->nopts++] = value;
    } else if (!strcmp(n, "layout")) {
        o->layout = value;
    } else if (!strcmp(n, "model")) {
        o->model = value;
    } else if (!strcmp(n, "strategy")) {
        o->strategy = value;
        o->strategy_given = 1;
    } else if (!strcmp(n, "seq")) {
        return parse_count(n, value, &o->seq, e);
    } else if (!strcmp(n, "batch")) {
        return parse_count(n, value, &o->batch, e);
    } else if (!strcmp(n, "microbatch")) {
        return parse_count(n, value, &o->microbatch, e);
    } else if (!strcmp(n, "fail")) {
        int x, y, dir;
        char bad;
        if (wafer_parse_fault(value, &x, &y, &dir, &bad) != 0)
            return wt_fail(e, "--fail: '%s' is not x,y (a unit) or x,y,DIR (its link; DIR one of N E S W)", value);
        if (o->nfail == (int)(sizeof o->fail / sizeof o->fail[0]))
            return wt_fail(e, "--fail: at most %d faults", o->nfail);
        o->fail[o->nfail++] = value;
    } else if (!strcmp(n, "set")) {
        if (o->nset == (int)(sizeof o->set / sizeof o->set[0]))
            return wt_fail(e, "--set: at most %d layout fields", o->nset);
        o->set[o->nset++] = value; /* checked when the layout is read */
    } else if (!strcmp(n, "net") && !strcmp(value, "flit")) {
        o->flit = 1; /* the evaluation keeps the default model; cli_parse checks the command takes it */
    } else if (!strcmp(n, "net")) {
        const net_model *net = net_model_find(value);
        wt_err why;
        if (!net) {
            choice_fail(net_model_table(), "net", value, &why);
            return flag_error(e, n, &why);
        }
        o->net = net;
    } else if (!strcmp(n, "window")) {
        char why[128];
        if (qty_parse(value, QTY_TIME, &o->window, why, sizeof why) != 0)
            return wt_fail(e, "--window: '%s': %s", value, why);
        if (!(o->window > 0) || !isfinite(o->window))
            return wt_fail(e, "--window: '%s' must be a positive time, e.g. 100us", value);
    } else if (!strcmp(n, "phase")) {
        o->phase = value;
    } else if (!strcmp(n, "flit-window")) {
        int dir;
        char bad;
        if (wafer_parse_fault(value, &o->flit_x, &o->flit_y, &dir, &bad) != 0 || dir >= 0 || o->flit_x < 0 ||
            o->flit_y < 0)
            return wt_fail(e, "--flit-window: '%s' is not x,y (the window's corner, whole numbers >= 0)", value);
    } else if (!strcmp(n, "format")) {
        if (strcmp(value, "table") && strcmp(value, "json") && strcmp(value, "csv"))
            return wt_fail(e, "--format: '%s' is not one of table, json, csv", value);
        o->format = value;
        o->format_given = 1;
    } else if (!strcmp(n, "objective")) {
        if (strcmp(value, "step_time") && strcmp(value, "tokens_per_s"))
            return wt_fail(e, "--objective: '%s' is not one of step_time, tokens_per_s", value);
        o->objective = value;
    } else if (!strcmp(n, "top")) {
        return parse_count(n, value, &o->top, e);
    } else if (!strcmp(n, "jobs")) {
        return parse_count(n, value, &o->jobs, e);
    } else if (!strcmp(n, "exhaustive")) {
        o->exhaustive = 1;
    } else if (!strcmp(n, "allow-idle")) {
        o->allow_idle = 1;
    } else if (!strcmp(n, "quiet")) {
        o->quiet = 1;
    } else if (!strcmp(n, "fix")) {
        o->fix = value;
    } else if (!strcmp(n, "only")) {
        o->only = value;
    } else if (!strcmp(n, "policy")) {
        o->policy = value;
    } else if (!strcmp(n, "theme")) {
        o->theme = value;
    } else if (!strcmp(n, "out")) {
        o->out = value;
    } else if (!strcmp(n, "view")) {
        for (o->view = 0; o->view < VIEW_NMODES && strcmp(value, snap_view_names[o->view]); o->view++)
            ;
        char list[64] = "";
        for (int i = 0; o->view == VIEW_NMODES && i < VIEW_NMODES; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", snap_view_names[i]);
        if (o->view == VIEW_NMODES)
            return wt_fail(e, "--view: '%s' is not one of %s", value, list);
    } else if (!strcmp(n, "bench-frames")) {
        int rc = parse_count(n, value, &o->bench_frames, e);
        if (rc == WT_OK && o->bench_frames > 1000000)
            return wt_fail(e, "--bench-frames: at most 1000000");
        return rc;
    } else if (!strcmp(n, "steps")) {
        return parse_count(n, value, &o->steps, e);
    } else if (!strcmp(n, "seed")) {
        return parse_number(n, value, 0, 1e18, &o->seed, e);
    } else if (!strcmp(n, "jitter")) {
        return parse_number(n, value, 0, 0.99, &o->jitter, e);
    } else if (!strcmp(n, "straggler")) {
        return parse_number(n, value, 0, 1, &o->straggler, e);
    } else if (!strcmp(n, "lua-path")) {
        struct stat st;
        if (stat(value, &st) != 0)
            return wt_fail(e, "--lua-path: '%s': %s", value, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            return wt_fail(e, "--lua-path: '%s' is not a directory", value);
        o->lua.user_dir = value;
    } else if (!strcmp(n, "unsafe-lua")) {
        o->lua.unsafe = 1;
    } else if (!strcmp(n, "lua-budget")) {
        return parse_number(n, value, 1, 1e15, &o->lua.budget, e);
    } else if (!strcmp(n, "lua-mem")) {
        char why[128];
        double v;
        if (qty_parse(value, QTY_BYTES, &v, why, sizeof why) != 0)
            return wt_fail(e, "--lua-mem: '%s': %s", value, why);
        if (v < (1 << 20) || v > 1e15)
            return wt_fail(e, "--lua-mem: '%s' must be between 1 MiB and 1 PB", value);
        o->lua.mem_cap = (size_t)v;
    }
    return WT_OK;
}

int cli_check_flag(const char *name, const char *value, wt_err *e)
{
    const flag_spec *f =
        find_flag(name, strlen(name), CLI_PHASE | CLI_SEARCH | CLI_TUNE | CLI_UI | CLI_PICTURE | CLI_FORMAT | CLI_FLIT);
    if (!f || !f->takes_value)
        return wt_fail(e, "unknown option '--%s'", name);
    wt_err why;
    strategy s;
    strategy_defaults(&s);
    if (f->option && strategy_set_option(&s, name, value, &why) != WT_OK)
        return flag_error(e, name, &why);
    if (!strcmp(name, "strategy") && strncmp(value, "lua:", 4) && strategy_parse(value, &s, &why) != WT_OK)
        return flag_error(e, name, &why);
    cli_opts scratch;
    memset(&scratch, 0, sizeof scratch);
    return apply_flag(&scratch, f, value, e);
}

int cli_scenario_flag(const char *name)
{
    const flag_spec *f = find_flag(name, strlen(name), 0);
    return f && f->group == 0 && f->takes_value;
}

static int keep(cli_opts *o, char *word, wt_err *e)
{
    if (o->nrest == (int)(sizeof o->rest / sizeof o->rest[0]))
        return wt_fail(e, "too many arguments");
    o->rest[o->nrest++] = word;
    return WT_OK;
}

/* WT_OK when text (an argument or a flag's value) is printable, so that
 * every error quoting it is one line; else an error naming what: no flag
 * of the program takes a tab, a newline or any other control character. */
static int printable(const char *what, const char *text, wt_err *e)
{
    const char *c = wt_find_control(text);
    if (c)
        return wt_fail(e, "%s: a control character (byte %d of the value, code %d) where text is expected", what,
                       (int)(c - text) + 1, (unsigned char)*c);
    return WT_OK;
}

int cli_parse(int argc, char **argv, unsigned extra, const char *root, cli_opts *o, wt_err *e)
{
    memset(o, 0, sizeof *o);
    o->layout = "default";
    o->model = "gpt3-6.7b";
    o->strategy = STRATEGY_DEFAULT_TEXT;
    o->format = "table";
    o->objective = "step_time";
    o->net = net_model_default();
    o->window = SIM_WINDOW_S;
    o->flit_x = o->flit_y = -1;
    o->lua.root = root;
    for (int i = 0; i < argc; i++) {
        char *arg = argv[i];
        int rc = WT_OK;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            o->help = 1;
            continue;
        }
        const flag_spec *f = NULL;
        const char *eq = strchr(arg, '=');
        if (!strncmp(arg, "--", 2))
            f = find_flag(arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2), extra);
        if (!f) {
            if (!(extra & CLI_REST)) {
                if ((rc = printable("an argument", arg, e)) != WT_OK)
                    return rc;
                if (strncmp(arg, "--", 2))
                    return wt_fail(e, "unexpected argument '%s' (flags start with --)", arg);
                return wt_fail(e, "unknown option '%.*s'", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
            }
            if ((extra & CLI_STOP) && strncmp(arg, "--", 2)) {
                while (i < argc && rc == WT_OK)
                    rc = keep(o, argv[i++], e);
                return rc;
            }
            if ((rc = keep(o, arg, e)) != WT_OK)
                return rc;
            continue;
        }
        const char *value = NULL;
        if (f->takes_value) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return wt_fail(e, "--%s needs a value", f->name);
        } else if (eq) {
            return wt_fail(e, "--%s takes no value", f->name);
        }
        char what[64];
        snprintf(what, sizeof what, "--%s", f->name);
        if ((value && (rc = printable(what, value, e)) != WT_OK) || (rc = apply_flag(o, f, value, e)) != WT_OK)
            return rc;
    }
    if (o->flit_x >= 0 && !o->flit)
        return wt_fail(e, "--flit-window: only with --net flit");
    if (o->flit && !(extra & CLI_FLIT))
        return wt_fail(e, "--net flit: the flit level runs one phase's traffic: wafertop links --net flit --phase NAME");
    theme th; /* loaded here so that a bad --theme fails before a screen opens */
    return o->theme ? theme_find(root, o->theme, &th, e) : WT_OK;
}


/* The strategy: text, or a Lua script for "lua:NAME". */
static int load_strategy(const cli_opts *o, wtlua **L, const wafer *wf, const model *m, strategy *s,
                         wt_err *e)
{
    wt_err why;
    if (!o->strategy_given)
        return strategy_of_layout(wf, s, e);
    if (strncmp(o->strategy, "lua:", 4) != 0) {
        if (strategy_parse(o->strategy, s, &why) != WT_OK)
            return flag_error(e, "strategy", &why);
        return WT_OK;
    }
    int rc = *L ? WT_OK : wtlua_new(L, &o->lua, e);
    const char *net = (o->net ? o->net : net_model_default())->c.name;
    if (rc == WT_OK && (rc = wtlua_strategy(*L, o->strategy + 4, wf, m, net, s, &why)) != WT_OK)
        flag_error(e, "strategy", &why);
    return rc;
}

int cli_load_hardware(const cli_opts *o, const char *root, wafer *wf, model *m, wt_err *e)
{
    wt_err why;
    char path[1024];
    if (datadir_resolve(root, "layouts", "layout", o->layout, path, sizeof path, &why) != WT_OK)
        return flag_error(e, "layout", &why);
    /* the file's errors carry file:line:col, an override's its flag */
    layout_opts lo = {"--set", o->set, o->nset, o->no_calib};
    int rc = layout_load_with(path, &lo, wf, e);
    if (rc != WT_OK)
        return rc;
    /* Up front: a mesh too large for this machine failed part way, out of
     * memory, after seconds of work. */
    char what[80];
    snprintf(what, sizeof what, "an evaluation of the %dx%d mesh", wf->w, wf->h);
    if ((rc = sysmem_check(sysmem_eval_bytes(wf), what, &why)) != WT_OK) {
        rc = flag_error(e, "layout", &why);
        goto fail;
    }
    rc = model_load(o->model, m, &why);
    if (rc != WT_OK) {
        /* errors inside a model file start with its path (file:line:col) */
        int located = strncmp(why.msg, o->model, strlen(o->model)) == 0;
        rc = located ? wt_fail(e, "%s", why.msg) : flag_error(e, "model", &why);
        goto fail;
    }
    for (int i = 0; i < o->nfail; i++) {
        int x, y, dir;
        char bad;
        wafer_parse_fault(o->fail[i], &x, &y, &dir, &bad); /* checked by cli_parse */
        if ((dir < 0 ? wafer_fail_unit(wf, x, y, &why) : wafer_fail_link(wf, x, y, dir, &why)) != WT_OK) {
            rc = flag_error(e, "fail", &why);
            goto fail;
        }
    }
    if (o->seq)
        m->seq = o->seq;
    if (o->batch)
        m->batch = o->batch;
    if (o->microbatch)
        m->microbatch = o->microbatch;
    else if (!o->strategy_given && wf->strategy_microbatch) /* the layout's strategy's */
        m->microbatch = wf->strategy_microbatch;
    if ((rc = model_check(m, &why)) != WT_OK) {
        rc = wt_fail(e, "%s", why.msg);
        goto fail;
    }
    return WT_OK;
fail:
    wafer_free(wf);
    return rc;
}

int cli_load_strategy(const cli_opts *o, wtlua **L, const wafer *wf, const model *m, strategy *s, wt_err *e)
{
    wt_err why;
    strategy_defaults(s);
    int rc = load_strategy(o, L, wf, m, s, e);
    for (int i = 0; rc == WT_OK && i < o->nopts; i++)
        if (strategy_set_option(s, o->opt_name[i], o->opt_value[i], &why) != WT_OK)
            rc = flag_error(e, o->opt_name[i], &why);
    return rc;
}

/* 1 when the command line gave option name (--exec, --placement, ...). */
static int option_given(const cli_opts *o, const char *name)
{
    for (int i = 0; i < o->nopts; i++)
        if (!strcmp(o->opt_name[i], name))
            return 1;
    return 0;
}

int cli_load(const cli_opts *o, const char *root, wtlua **L, wafer *wf, model *m, strategy *s, wt_err *e)
{
    wt_err why;
    int rc = cli_load_hardware(o, root, wf, m, e);
    if (rc != WT_OK)
        return rc;
    if ((rc = cli_load_strategy(o, L, wf, m, s, e)) == WT_OK && strategy_resolve(s, m, wf, &why) != WT_OK) {
        if (!strncmp(why.msg, "exec stream:", 12) && option_given(o, "exec"))
            rc = wt_fail(e, "--%s", why.msg); /* "--exec stream: ..." */
        else if (o->strategy_given || !wf->strategy[0])
            rc = flag_error(e, "strategy", &why);
        else /* the layout's own: say so, and how to choose another */
            rc = wt_fail(e, "layout %s's recommended %s (give --strategy)", wf->name, why.msg);
    }
    if (rc != WT_OK)
        wafer_free(wf);
    return rc;
}

int cli_search_opts(const cli_opts *o, search_opts *so, wt_err *e)
{
    memset(so, 0, sizeof *so);
    so->objective = !strcmp(o->objective, "tokens_per_s") ? SEARCH_TOKENS : SEARCH_STEP_TIME;
    so->top_k = o->top ? o->top : 5;
    so->exhaustive = o->exhaustive;
    so->baselines = 1;
    so->net = o->net;
    so->space.allow_idle = o->allow_idle;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    so->jobs = o->jobs ? o->jobs : cores > 0 ? (int)cores : 1;
    if (o->microbatch)
        so->space.microbatch = o->microbatch;
    if (o->strategy_given || o->nopts)
        return wt_fail(e, "search chooses the strategy and its options; narrow it with --fix and --only");
    if (o->fix && search_parse_fix(o->fix, &so->space, e) != WT_OK)
        return WT_EINPUT;
    if (o->only && search_parse_only(o->only, &so->space, e) != WT_OK)
        return WT_EINPUT;
    if (so->top_k > SEARCH_MAX_TOP)
        return wt_fail(e, "--top: at most %d", SEARCH_MAX_TOP);
    return WT_OK;
}

/* A help text being built into a caller's buffer, cut at its size. */
typedef struct help_buf {
    char *s;
    size_t n, len;
} help_buf;

static void help_add(help_buf *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void help_add(help_buf *h, const char *fmt, ...)
{
    if (h->len + 1 >= h->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(h->s + h->len, h->n - h->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        h->len = h->len + (size_t)k < h->n ? h->len + (size_t)k : h->n - 1;
}

/* "  --flag a|b|c" from the option's table, then the rest at the help's column. */
static void help_option(help_buf *h, const char *flag, choice_table t, const char *sep, const char *rest,
                        const char *dflt)
{
    char list[160], head[192];
    snprintf(head, sizeof head, "--%s %s", flag, choice_join(t, 0, sep, list, sizeof list));
    help_add(h, "  %-39s %s(default %s)\n", head, rest, dflt);
}

const char *cli_scenario_help(char *buf, size_t n)
{
    help_buf h = {buf, n, 0};
    strategy d;
    char list[160], mem[64];
    strategy_defaults(&d);
    buf[0] = '\0';
    help_add(&h, "Scenario:\n"
                 "  --layout NAME|FILE     wafer layout (default: default; see layouts/)\n"
                 "  --model NAME|FILE      gpt3-6.7b gpt3-13b llama2-70b gpt3-175b gopher-280b\n"
                 "                         (or 6b 13b 70b 175b 280b), or a YAML model (default: gpt3-6.7b)\n"
                 "  --seq N --batch N --microbatch N   override the model's sequence and batch\n"
                 "  --fail x,y[,DIR]       fail a unit, or its link towards DIR (N E S W); repeatable\n"
                 "  --set KEY=VALUE        a layout number over the file's: unit.compute, unit.sram,\n"
                 "                         link.bandwidth, interwafer.bandwidth, store.bandwidth_in, ...\n"
                 "                         (the file's keys joined by a dot); repeatable\n"
                 "  --window TIME          a link's busiest utilisation (peak_util, hot links) is over\n"
                 "                         windows this long (default: 100us; longer than the step: the step)\n"
                 "  --strategy S           DP8,TATP16 | \"dp8 tatp16\" | (8,1,1,1,16) | TATP4x8 | lua:NAME\n"
                 "                         (default: the layout's strategy, else DP8,TATP16)\n");
    char first[64];
    snprintf(first, sizeof first, "the first, %s", net_model_default()->c.name);
    help_option(&h, "net", net_model_table(), "|", "network model that times the step ", first);
    for (int i = 0; i < net_model_table().n; i++) {
        const net_model *net = net_model_at(i);
        help_add(&h, "      %-10s %s\n", net->c.name, net->summary);
    }
    help_add(&h, "Strategy options:\n");
    help_option(&h, "placement", place_kind_table(), "|", "", place_kind_name(d.placement));
    help_option(&h, "collective", coll_algo_table(), "|", "", coll_algo_name(d.collective));
    for (int a = 0; a <= COLL_AUTO; a++) {
        const choice *c = choice_at(coll_algo_table(), a);
        help_add(&h, "      %-7s %s%s%s\n", c->name, coll_algo_about((coll_algo)a), c->flags & CHOICE_CHOOSER ? " " : "",
                 c->flags & CHOICE_CHOOSER ? choice_join(coll_algo_table(), CHOICE_AUTO, ", ", list, sizeof list) : "");
    }
    help_option(&h, "routing", route_mode_table(), "|", "", route_mode_name(d.routing));
    help_option(&h, "checkpoint", recompute_table(), "|", "", recompute_name(d.checkpoint));
    help_option(&h, "mem", mem_switch_table(), ",", "any subset ", mem_switches_format(d.mem, mem, sizeof mem));
    help_option(&h, "grad-compress", grad_compress_table(), "|", "", grad_compress_name(d.grad));
    help_option(&h, "exec", exec_mode_table(), "|", "", exec_mode_name(d.exec));
    help_add(&h, "  --chunk SIZE                            tensor streaming chunk, e.g. 256KB (0 = off)\n"
                 "  --subgroup WxH                          communication subgroup for hier (default 8x8)\n"
                 "  --tp-seqpar on|off                      Megatron sequence parallelism in TP (default on)\n");
    return buf;
}

const char *cli_search_help(void)
{
    return "Search:\n"
           "  --objective step_time|tokens_per_s    what the best is best at (default step_time)\n"
           "  --top K                 how many of the best to show (default 5)\n"
           "  --jobs N                threads (default: the cores)\n"
           "  --exhaustive            evaluate every candidate (the same answer, slower)\n"
           "  --allow-idle            also products that leave units idle\n"
           "  --fix dp=8,pp=1         fix dimensions (dp tp sp pp tatp grid=WxH microbatch)\n"
           "  --only placement=tiles,collective=ring|bidir,checkpoint=full,mem=zero+act_int8,chunk=256KB\n"
           "  --quiet                 no progress bar\n";
}

const char *cli_tune_help(void)
{
    return "Session:\n"
           "  --policy NAME|FILE      a policy (Policies below) or a .lua file that registers one\n"
           "  --steps N               steps to run (default 10)\n"
           "  --seed S                the random sequence (default 1)\n"
           "  --jitter X              each unit's compute scaled within +-X every step (default 0)\n"
           "  --straggler P           probability that a unit runs 2x slower for a step (default 0)\n"
           "  --scenario FILE         a scenario saved with :save on the screen (flags after it win)\n";
}

const char *cli_ui_help(void)
{
    return "Screen:\n"
           "  --theme NAME|FILE       colours (default, viridis, light, mono, or a theme file)\n"
           "  --bench-frames N        draw N frames headless and print their timings\n";
}

const char *cli_picture_help(void)
{
    return "Picture:\n"
           "  --out FILE.png|FILE.svg      where to write it (required); the extension picks the format\n"
           "  --view links|compute|memory  what the mesh shows (default links)\n"
           "  --phase NAME                 where NAME first runs: links in the --window there, compute of\n"
           "                               NAME (default: the step average)\n"
           "  --theme NAME|FILE            colours (default, viridis, light, mono, or a theme file)\n";
}

const char *cli_lua_help(void)
{
    return "Lua:\n"
           "  --lua-path DIR         more scripts (DIR/commands, strategies, policies, lib)\n"
           "  --unsafe-lua           allow io, os, debug and binary chunks\n"
           "  --lua-budget N         instructions per call (default 1e8)\n"
           "  --lua-mem SIZE         memory cap of the Lua state (default 256MiB)\n";
}

/* The line of a help text that says what a script does: a command's help
 * is its usage line, then indented lines that describe it; other help is
 * the description alone. */
static const char *summary(const char *help)
{
    const char *indented = strstr(help, "\n ");
    return indented ? indented + 1 + strspn(indented + 1, " ") : help;
}

int cli_print_scripts(FILE *f, wtlua *L, const wtlua_opts *lo, unsigned kinds, wt_err *e)
{
    static const char *const heading[WTLUA_NKINDS] = {
        [WTLUA_COMMAND] = "Lua commands (wafertop cmd NAME, :NAME on the screen; NAME --help for flags)",
        [WTLUA_POLICY] = "Policies (--policy NAME, :policy NAME on the screen)",
        [WTLUA_STRATEGY] = "Lua strategies (--strategy lua:NAME)",
    };
    wtlua *own = NULL;
    int rc = L ? WT_OK : wtlua_new(&own, lo, e);
    if (rc != WT_OK)
        return rc;
    if (!L)
        L = own;
    for (int k = 0; k < WTLUA_NKINDS; k++) {
        if (!(kinds & CLI_SCRIPTS(k)))
            continue;
        const char *names[WTLUA_MAX_NAMES];
        int n = wtlua_names(L, (wtlua_kind)k, names, WTLUA_MAX_NAMES);
        fprintf(f, "\n%s:\n", heading[k]);
        for (int i = 0; i < n; i++) {
            const char *line = summary(wtlua_help(L, (wtlua_kind)k, names[i]));
            fprintf(f, "  %-14s %.*s\n", names[i], (int)strcspn(line, "\n"), line);
        }
        if (n == 0)
            fprintf(f, "  none (is %s/lua installed?)\n", lo->root ? lo->root : ".");
    }
    wtlua_free(own);
    return WT_OK;
}
