#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "layout.h"

/* Strategy options: the flag and strategy_set_option's name. */
static const char *const option_flags[] = {"placement", "collective", "routing", "checkpoint", "mem",
                                           "grad-compress", "chunk", "subgroup", "tp-seqpar", NULL};

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

static int is_option_flag(const char *name)
{
    for (int i = 0; option_flags[i]; i++)
        if (!strcmp(option_flags[i], name))
            return 1;
    return 0;
}

int cli_parse(int argc, char **argv, unsigned extra, cli_opts *o, wt_err *e)
{
    memset(o, 0, sizeof *o);
    o->layout = "default";
    o->model = "gpt3-6.7b";
    o->strategy = "DP8,TATP16";
    o->format = "table";
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            o->help = 1;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0)
            return wt_fail(e, "unexpected argument '%s' (flags start with --)", arg);
        char name[32];
        const char *value, *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name)
            return wt_fail(e, "unknown option '%.40s'", arg);
        memcpy(name, arg + 2, len);
        name[len] = '\0';
        int known = !strcmp(name, "layout") || !strcmp(name, "model") || !strcmp(name, "strategy") ||
                    !strcmp(name, "seq") || !strcmp(name, "batch") || !strcmp(name, "microbatch") ||
                    !strcmp(name, "format") || ((extra & CLI_PHASE) && !strcmp(name, "phase")) ||
                    is_option_flag(name);
        if (!known)
            return wt_fail(e, "unknown option '--%s'", name);
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return wt_fail(e, "--%s needs a value", name);
        int rc = WT_OK;
        if (!strcmp(name, "layout"))
            o->layout = value;
        else if (!strcmp(name, "model"))
            o->model = value;
        else if (!strcmp(name, "strategy"))
            o->strategy = value;
        else if (!strcmp(name, "seq"))
            rc = parse_count(name, value, &o->seq, e);
        else if (!strcmp(name, "batch"))
            rc = parse_count(name, value, &o->batch, e);
        else if (!strcmp(name, "microbatch"))
            rc = parse_count(name, value, &o->microbatch, e);
        else if (!strcmp(name, "phase"))
            o->phase = value;
        else if (!strcmp(name, "format")) {
            if (strcmp(value, "table") && strcmp(value, "json") && strcmp(value, "csv"))
                return wt_fail(e, "--format: '%s' is not one of table, json, csv", value);
            o->format = value;
            o->format_given = 1;
        } else {
            if (o->nopts == (int)(sizeof o->opt_name / sizeof o->opt_name[0]))
                return wt_fail(e, "too many options");
            for (int k = 0; option_flags[k]; k++)
                if (!strcmp(option_flags[k], name))
                    o->opt_name[o->nopts] = option_flags[k];
            o->opt_value[o->nopts++] = value;
        }
        if (rc != WT_OK)
            return rc;
    }
    return WT_OK;
}

/* Prefixes an error message with the flag that caused it. */
static int flag_error(wt_err *e, const char *flag, const wt_err *why)
{
    return wt_fail(e, "--%s: %s", flag, why->msg);
}

int cli_load(const cli_opts *o, const char *root, wafer *wf, model *m, strategy *s, wt_err *e)
{
    wt_err why;
    char path[1024];
    if (datadir_resolve(root, "layouts", "layout", o->layout, path, sizeof path, &why) != WT_OK)
        return flag_error(e, "layout", &why);
    int rc = layout_load(path, wf, e); /* its errors carry file:line:col */
    if (rc != WT_OK)
        return rc;
    rc = model_load(o->model, m, &why);
    if (rc != WT_OK) {
        /* errors inside a model file start with its path (file:line:col) */
        int located = strncmp(why.msg, o->model, strlen(o->model)) == 0;
        rc = located ? wt_fail(e, "%s", why.msg) : flag_error(e, "model", &why);
        goto fail;
    }
    if (o->seq)
        m->seq = o->seq;
    if (o->batch)
        m->batch = o->batch;
    if (o->microbatch)
        m->microbatch = o->microbatch;
    if ((rc = model_check(m, &why)) != WT_OK) {
        rc = wt_fail(e, "%s", why.msg);
        goto fail;
    }
    strategy_defaults(s);
    if ((rc = strategy_parse(o->strategy, s, &why)) != WT_OK) {
        rc = flag_error(e, "strategy", &why);
        goto fail;
    }
    for (int i = 0; i < o->nopts; i++) {
        if ((rc = strategy_set_option(s, o->opt_name[i], o->opt_value[i], &why)) != WT_OK) {
            rc = flag_error(e, o->opt_name[i], &why);
            goto fail;
        }
    }
    if ((rc = strategy_resolve(s, m, wf, &why)) != WT_OK) {
        rc = flag_error(e, "strategy", &why);
        goto fail;
    }
    return WT_OK;
fail:
    wafer_free(wf);
    return rc;
}

const char *cli_scenario_help(void)
{
    return "Scenario:\n"
           "  --layout NAME|FILE     wafer layout (default: default; see layouts/)\n"
           "  --model NAME|FILE      gpt3-6.7b gpt3-13b llama2-70b gpt3-175b gopher-280b\n"
           "                         (or 6b 13b 70b 175b 280b), or a YAML model (default: gpt3-6.7b)\n"
           "  --seq N --batch N --microbatch N   override the model's sequence and batch\n"
           "  --strategy S           DP8,TATP16 | \"dp8 tatp16\" | (8,1,1,1,16) | TATP4x8 (default: DP8,TATP16)\n"
           "Strategy options:\n"
           "  --placement linear|snake|tiles          (default tiles)\n"
           "  --collective ring|bidir|2d|hier|auto    (default ring)\n"
           "  --routing xy|yx|balanced                (default xy)\n"
           "  --checkpoint none|selective|full        (default none)\n"
           "  --mem zero,act_int8,grad_fp8            any subset (default none)\n"
           "  --grad-compress none|fp8|1bit           (default none)\n"
           "  --chunk SIZE                            tensor streaming chunk, e.g. 256KB (0 = off)\n"
           "  --subgroup WxH                          communication subgroup for hier (default 8x8)\n"
           "  --tp-seqpar on|off                      Megatron sequence parallelism in TP (default on)\n";
}
