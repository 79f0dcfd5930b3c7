/*
 * scenario.c - saving the screen's scenario as YAML and reading it back as
 * the flags it stands for (see scenario.h).
 */
#include "scenario.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "cli.h"
#include "net.h"
#include "ydoc.h"

/* ---- saving ---- */

static void put_key(FILE *f, const char *key, const char *value)
{
    fprintf(f, "%s: ", key);
    ydoc_put_quoted(f, value);
    fputc('\n', f);
}

/* The faults of S beyond its layout's: units, then links (once each). */
static void put_faults(FILE *f, const session *S)
{
    const wafer *now = &S->wf, *base = &S->base;
    int n = 0;
    fprintf(f, "faults: [");
    for (int u = 0; u < (int)wafer_nunits(now); u++) {
        if (now->unit_dead[u] && !base->unit_dead[u])
            fprintf(f, "%s\"%d,%d\"", n++ ? ", " : "", wafer_x(now, u), wafer_y(now, u));
        /* a failed link is dead both ways: write it from its west or north end */
        static const int dirs[2] = {WAFER_E, WAFER_S};
        for (int k = 0; k < 2; k++) {
            size_t l = (size_t)u * WAFER_NDIR + (size_t)dirs[k];
            if (now->link_dead[l] && !base->link_dead[l])
                fprintf(f, "%s\"%d,%d,%c\"", n++ ? ", " : "", wafer_x(now, u), wafer_y(now, u),
                        wafer_dir_char(dirs[k]));
        }
    }
    fprintf(f, "]\n");
}

static void put_tuning(FILE *f, const sim_tuning *t)
{
    int n = 0;
    for (int i = 0; i < t->nphases; i++)
        n += t->phase[i].routing >= 0 || t->phase[i].waves > 1 || t->phase[i].priority;
    if (!n)
        return;
    fprintf(f, "tuning:\n  phases:\n");
    for (int i = 0; i < t->nphases; i++) {
        const sim_phase_tune *p = &t->phase[i];
        if (p->routing < 0 && p->waves <= 1 && !p->priority)
            continue;
        fprintf(f, "    - {phase: ");
        ydoc_put_quoted(f, p->phase);
        if (p->routing >= 0)
            fprintf(f, ", routing: %s", route_mode_name((route_mode)p->routing));
        if (p->priority)
            fprintf(f, ", priority: %d", p->priority);
        fprintf(f, ", waves: %d}\n", p->waves > 1 ? p->waves : 1);
    }
}

static void put_scenario(FILE *f, const session *S, const char *layout, const char *model_name, const char *policy)
{
    const strategy *s = &S->s;
    char text[128];
    fprintf(f, "# wafertop scenario: wafertop ui --scenario FILE opens it again\n");
    put_key(f, "layout", layout);
    put_key(f, "model", model_name);
    fprintf(f, "seq: %d\nbatch: %d\nmicrobatch: %d\n", S->m.seq, S->m.batch, S->m.microbatch);
    put_key(f, "strategy", strategy_format(s, text, sizeof text));
    fprintf(f, "placement: %s\ncollective: %s\nrouting: %s\ncheckpoint: %s\n", place_kind_name(s->placement),
            coll_algo_name(s->collective), route_mode_name(s->routing), recompute_name(s->checkpoint));
    fprintf(f, "mem: %s\ngrad-compress: %s\n", mem_switches_format(s->mem, text, sizeof text),
            grad_compress_name(s->grad));
    if (s->chunk > 0)
        fprintf(f, "chunk: %.17g B\n", s->chunk);
    else
        fprintf(f, "chunk: 0\n");
    fprintf(f, "subgroup: %dx%d\ntp-seqpar: %s\nexec: %s\n", s->sub_w, s->sub_h, s->tp_seqpar ? "on" : "off",
            exec_mode_name(s->exec));
    fprintf(f, "net: %s\nwindow: %.17g s\n", S->o.net->c.name, S->o.window_s > 0 ? S->o.window_s : SIM_WINDOW_S);
    put_faults(f, S);
    fprintf(f, "seed: %llu\njitter: %.17g\nstraggler: %.17g\n", (unsigned long long)S->o.seed, S->o.jitter,
            S->o.straggler);
    if (policy && *policy)
        put_key(f, "policy", policy);
    put_tuning(f, &S->tune);
}

/* What scenario_save hands to atomic_write. */
typedef struct save_ctx {
    const session *S;
    const char *layout, *model, *policy;
} save_ctx;

static int put_saved(FILE *f, void *ud, wt_err *e)
{
    (void)e;
    const save_ctx *c = ud;
    put_scenario(f, c->S, c->layout, c->model, c->policy);
    return WT_OK;
}

int scenario_save(const char *path, const session *S, const char *layout, const char *model_name, const char *policy,
                  wt_err *e)
{
    save_ctx c = {S, layout, model_name, policy};
    return atomic_write(path, "save", put_saved, &c, e);
}

/* ---- loading ---- */

typedef struct reader {
    scenario_file *f;
    size_t used;
} reader;

/* Appends a word to the flags. */
static int push(ydoc *d, yaml_node_t *at, reader *r, const char *word, wt_err *e)
{
    size_t n = strlen(word) + 1;
    if (r->used + n > sizeof r->f->text || r->f->nargs == SCENARIO_MAX_ARGS)
        return ydoc_fail(d, at, e, "the scenario is too long");
    char *p = r->f->text + r->used;
    memcpy(p, word, n);
    r->used += n;
    r->f->args[r->f->nargs++] = p;
    return WT_OK;
}

/* "--key" "value", after the value passes the command line's own check of
 * that flag (cli_check_flag), so that a file and a flag fail alike. */
static int flag(ydoc *d, yaml_node_t *v, reader *r, const char *key, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc != WT_OK)
        return rc;
    wt_err why;
    if (cli_check_flag(key, s, &why) != WT_OK)
        return ydoc_fail(d, v, e, "%s", why.msg);
    char name[40];
    snprintf(name, sizeof name, "--%s", key);
    if ((rc = push(d, v, r, name, e)) != WT_OK)
        return rc;
    return push(d, v, r, s, e);
}

/* One handler per key: ydoc hands a handler no key. */
#define HANDLER(fn_name, key)                                                                                 \
    static int fn_name(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)                                         \
    {                                                                                                         \
        return flag(d, v, ctx, key, e);                                                                       \
    }
HANDLER(on_layout, "layout")
HANDLER(on_model, "model")
HANDLER(on_policy, "policy")
HANDLER(on_seq, "seq")
HANDLER(on_batch, "batch")
HANDLER(on_microbatch, "microbatch")
HANDLER(on_strategy, "strategy")
HANDLER(on_placement, "placement")
HANDLER(on_collective, "collective")
HANDLER(on_routing, "routing")
HANDLER(on_checkpoint, "checkpoint")
HANDLER(on_mem, "mem")
HANDLER(on_grad, "grad-compress")
HANDLER(on_chunk, "chunk")
HANDLER(on_subgroup, "subgroup")
HANDLER(on_seqpar, "tp-seqpar")
HANDLER(on_exec, "exec")
HANDLER(on_net, "net")
HANDLER(on_window, "window")
HANDLER(on_seed, "seed")
HANDLER(on_jitter, "jitter")
HANDLER(on_straggler, "straggler")

static int on_faults(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    yaml_node_item_t *it, *end;
    int rc = ydoc_seq(d, v, &it, &end, e);
    for (; rc == WT_OK && it < end; it++)
        rc = flag(d, yaml_document_get_node(&d->doc, *it), ctx, "fail", e);
    return rc;
}

/* tuning.phases items */
static int on_tune_phase(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && strlen(s) >= sizeof ((sim_phase_tune *)ctx)->phase)
        return ydoc_fail(d, v, e, "phase: '%.40s' is too long", s);
    if (rc == WT_OK)
        snprintf(((sim_phase_tune *)ctx)->phase, sizeof ((sim_phase_tune *)ctx)->phase, "%s", s);
    return rc;
}

static int on_tune_routing(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    char list[64];
    if (rc == WT_OK && (((sim_phase_tune *)ctx)->routing = route_mode_parse(s)) < 0)
        return ydoc_fail(d, v, e, "routing: '%s' is not one of %s", s,
                         choice_join(route_mode_table(), 0, ", ", list, sizeof list));
    return rc;
}

/* A whole number from lo to hi into *out; 0 when s is not one. */
static int whole(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int on_tune_waves(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && !whole(s, 1, SIM_MAX_WAVES, &((sim_phase_tune *)ctx)->waves))
        return ydoc_fail(d, v, e, "waves: '%s' is not a whole number from 1 to %d", s, SIM_MAX_WAVES);
    return rc;
}

static int on_tune_level(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc == WT_OK && !whole(s, INT_MIN, INT_MAX, &((sim_phase_tune *)ctx)->priority))
        return ydoc_fail(d, v, e, "priority: '%s' is not a whole number (higher goes first)", s);
    return rc;
}

static const ydoc_key tune_phase_keys[] = {
    {"phase", on_tune_phase, 1},      {"routing", on_tune_routing, 0}, {"waves", on_tune_waves, 0},
    {"priority", on_tune_level, 0}, {NULL, NULL, 0}};

static int on_tune_phases(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    sim_tuning *t = &((reader *)ctx)->f->tune;
    yaml_node_item_t *it, *end;
    int rc = ydoc_seq(d, v, &it, &end, e);
    for (; rc == WT_OK && it < end; it++) {
        yaml_node_t *n = yaml_document_get_node(&d->doc, *it);
        if (t->nphases == SIM_MAX_PHASES)
            return ydoc_fail(d, n, e, "tuning.phases: at most %d", SIM_MAX_PHASES);
        sim_phase_tune *p = &t->phase[t->nphases++];
        *p = (sim_phase_tune){"", -1, 1, 0};
        rc = ydoc_map_at(d, n, "tuning.phases", tune_phase_keys, p, e);
    }
    return rc;
}

/* The older form, `priority: dp.allreduce|backward`: the DP all-reduce at
 * level 1, or the default. */
static int on_tune_priority(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    sim_tuning *t = &((reader *)ctx)->f->tune;
    const char *s;
    int rc = ydoc_scalar(d, v, &s, e);
    if (rc != WT_OK)
        return rc;
    if (strcmp(s, "dp.allreduce") && strcmp(s, "backward"))
        return ydoc_fail(d, v, e, "priority: '%s' is not one of dp.allreduce, backward", s);
    if (!strcmp(s, "dp.allreduce")) {
        if (t->nphases == SIM_MAX_PHASES)
            return ydoc_fail(d, v, e, "tuning.phases: at most %d", SIM_MAX_PHASES);
        t->phase[t->nphases++] = (sim_phase_tune){"dp.allreduce", -1, 1, 1};
    }
    return WT_OK;
}

static const ydoc_key tuning_keys[] = {
    {"priority", on_tune_priority, 0}, {"phases", on_tune_phases, 0}, {NULL, NULL, 0}};

static int on_tuning(ydoc *d, yaml_node_t *v, void *ctx, wt_err *e)
{
    ((reader *)ctx)->f->has_tuning = 1;
    return ydoc_map_at(d, v, "tuning", tuning_keys, ctx, e);
}

static const ydoc_key scenario_keys[] = {
    {"layout", on_layout, 1},       {"model", on_model, 1},         {"seq", on_seq, 0},
    {"batch", on_batch, 0},         {"microbatch", on_microbatch, 0}, {"strategy", on_strategy, 1},
    {"placement", on_placement, 0}, {"collective", on_collective, 0}, {"routing", on_routing, 0},
    {"checkpoint", on_checkpoint, 0}, {"mem", on_mem, 0},          {"grad-compress", on_grad, 0},
    {"chunk", on_chunk, 0},         {"subgroup", on_subgroup, 0},   {"tp-seqpar", on_seqpar, 0},
    {"exec", on_exec, 0},           {"net", on_net, 0},             {"window", on_window, 0},
    {"faults", on_faults, 0},       {"policy", on_policy, 0},       {"tuning", on_tuning, 0},
    {"seed", on_seed, 0},           {"jitter", on_jitter, 0},       {"straggler", on_straggler, 0},
    {NULL, NULL, 0},
};

static int scenario_load(const char *path, scenario_file *f, wt_err *e)
{
    memset(f, 0, sizeof *f);
    ydoc d;
    int rc = ydoc_load(&d, path, e);
    if (rc != WT_OK)
        return rc;
    reader r = {f, 0};
    rc = ydoc_map(&d, ydoc_root(&d), scenario_keys, &r, e);
    ydoc_free(&d);
    return rc;
}

int scenario_expand(int argc, char **argv, scenario_file *f, int *out_argc, char ***out_argv, wt_err *e)
{
    *out_argv = NULL;
    *out_argc = argc;
    int at = -1;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--scenario")) {
            if (i + 1 == argc)
                return wt_fail(e, "--scenario needs a value");
            at = i;
            path = argv[i + 1];
        } else if (!strncmp(argv[i], "--scenario=", 11)) {
            at = i;
            path = argv[i] + 11;
        }
    }
    if (at < 0)
        return WT_OK;
    int rc = scenario_load(path, f, e);
    if (rc != WT_OK)
        return rc;
    int skip = strchr(argv[at], '=') ? 1 : 2;
    char **out = malloc((size_t)(f->nargs + argc) * sizeof *out);
    if (!out)
        return wt_oom(e, "scenario arguments");
    int n = 0;
    for (int i = 0; i < f->nargs; i++)
        out[n++] = f->args[i];
    for (int i = 0; i < argc; i++)
        if (i < at || i >= at + skip)
            out[n++] = argv[i];
    *out_argv = out;
    *out_argc = n;
    return WT_OK;
}

int scenario_apply_tuning(const scenario_file *f, session *S, wt_err *e)
{
    const sim_tuning *t = &f->tune;
    int rc = WT_OK;
    for (int i = 0; rc == WT_OK && i < t->nphases; i++) {
        const sim_phase_tune *p = &t->phase[i];
        if (p->routing >= 0)
            rc = session_set_routing(S, p->phase, (route_mode)p->routing, e);
        if (rc == WT_OK && p->waves > 1)
            rc = session_delay(S, p->phase, p->waves, e);
        if (rc == WT_OK && p->priority)
            rc = session_set_priority(S, p->phase, p->priority, e);
    }
    return rc;
}
