/*
 * scenario.h - a scenario saved from the screen (`:save FILE`) and opened
 * again with `wafertop ui --scenario FILE` or `wafertop tune --scenario FILE`:
 *
 *   layout: default            # as named on the command line, or a path
 *   model: gpt3-6.7b
 *   seq: 2048                  # the model's sequence and batch, as run
 *   batch: 1024
 *   microbatch: 1
 *   strategy: "DP8,TP32"       # then the options, each as its flag
 *   placement: linear
 *   collective: ring
 *   routing: xy
 *   checkpoint: full
 *   mem: zero,act_int8,grad_fp8
 *   grad-compress: none
 *   chunk: 0
 *   subgroup: 8x8
 *   tp-seqpar: on
 *   net: fluid                 # the network model (older files: the default)
 *   window: 0.0001 s           # the link monitors' window (older files: the default)
 *   faults: ["3,4", "5,5,E"]   # run-time faults on top of the layout's
 *   seed: 1                    # the session's variation
 *   jitter: 0
 *   straggler: 0
 *   policy: shrink_groups      # optional
 *   tuning:                    # optional: what policies changed at run time
 *     phases: [{phase: fwd.attn.qkv, routing: yx, waves: 2}, {phase: dp.allreduce, priority: 1}]
 *     # older files: `priority: dp.allreduce` (level 1) or `backward` (the default)
 *
 * Loading turns the file into the command-line flags it stands for, in
 * front of the user's own (which win); the tuning is applied to the session.
 */
#ifndef WT_SCENARIO_H
#define WT_SCENARIO_H

#include "session.h"

#define SCENARIO_MAX_ARGS 128

typedef struct scenario_file {
    char text[8192];          /* the values, NUL-separated; args point into it */
    char *args[SCENARIO_MAX_ARGS];
    int nargs;
    sim_tuning tune;
    int has_tuning;
} scenario_file;

/* Writes S's scenario to path (a temporary file beside it, flushed to disk,
 * renamed over it). layout and
 * model are as the user named them; policy may be "". */
int scenario_save(const char *path, const session *S, const char *layout, const char *model, const char *policy,
                  wt_err *e);

/* Finds --scenario FILE (or --scenario=FILE) in argv; when there, loads it
 * into f and sets *out_argv to the file's flags followed by the other words
 * (an array the caller frees; *out_argv = NULL when there is no --scenario).
 * Errors are file:line:col. */
int scenario_expand(int argc, char **argv, scenario_file *f, int *out_argc, char ***out_argv, wt_err *e);

/* Applies the file's tuning to a new session. */
int scenario_apply_tuning(const scenario_file *f, session *S, wt_err *e);

#endif
