/*
 * search.h - the two-level strategy search (docs/MODEL.md section 12).
 *
 * The space: every (DP, TP, SP, PP, TATP) whose product is the live units
 * (or at most them with allow_idle), every TATP grid that fits, the
 * placements, collective algorithms and checkpointing of their tables
 * flagged CHOICE_SEARCH (choice.h), micro-batch sizes (powers of two
 * dividing the batch), every subset of the memory switches, the chunk sizes
 * search_chunks, exec modes where the layout has a store, and tp-seqpar on
 * where TP divides the sequence shard (off where it cannot be on).
 *
 * Level 1, per candidate and without placing or routing: the memory of the
 * fullest unit (the engine's own formula, sim_spec) must fit, and a lower
 * bound on the step time (sim_bounds) orders the survivors. Level 2 evaluates
 * them fully in order of increasing bound and stops once the next bound
 * exceeds the K-th best step time; a candidate whose signature (dimensions,
 * grid, exec, placement, collective) was evaluated before has its bound
 * raised with that sibling's routed links first (search_routed.c). The
 * exhaustive mode evaluates them all and gives the same top K. Ties are broken by the candidate's place in the
 * enumeration, so results are the same for any number of threads.
 */
#ifndef WT_SEARCH_H
#define WT_SEARCH_H

#include <stdatomic.h>

#include "model.h"
#include "sim.h"
#include "strategy.h"
#include "wafer.h"

#define SEARCH_NCHUNKS 5
#define SEARCH_NMEMS (1 << MEM_NSWITCHES) /* every subset of the memory switches */
#define SEARCH_MAX_TOP 50

/* The chunk sizes tried, bytes. */
extern const double search_chunks[SEARCH_NCHUNKS];

typedef enum search_objective { SEARCH_STEP_TIME = 0, SEARCH_TOKENS = 1 } search_objective;

/* What the space holds. Sizes 0 are free; masks 0 mean everything. */
typedef struct search_space {
    int dp, tp, sp, pp, tatp;   /* fixed dimensions */
    int grid_w, grid_h;         /* a fixed TATP grid */
    int microbatch;
    unsigned placements;        /* bit place_kind */
    unsigned collectives;       /* bit coll_algo (below COLL_NALGOS) */
    unsigned checkpoints;       /* bit model_recompute */
    unsigned mems;              /* bit = a MEM_* subset (0..7) */
    unsigned chunks;            /* bit i = search_chunks[i] */
    unsigned execs;             /* bit exec_mode; stream only where the layout has a store */
    int allow_idle;             /* products below the live units too */
} search_space;

typedef struct search_opts {
    search_space space;
    search_objective objective;
    int top_k;                  /* 1..SEARCH_MAX_TOP, default 5 */
    int jobs;                   /* threads, >= 1 */
    int exhaustive;
    int baselines;              /* also evaluate the baselines */
    const struct net_model *net; /* what times every evaluation (net.h); NULL: the default */
    /* Progress in [0, 1], called from the calling thread; may be NULL. */
    void (*progress)(void *ud, double done);
    void *progress_ud;
    /* When not NULL and set (from another thread), the search stops soon
     * (level 1 skips the groups left, level 2 stops at its next batch) and
     * fails with "search stopped". */
    const atomic_int *stop;
    /* One shard of the space (search_run_shard; an MPI job's rank): the
     * cores of the grids (a 5-tuple on one TATP grid) numbered shard mod
     * nshards. 0 and 0: the whole space. */
    int shard, nshards;
    /* Shards share their K-th best: called at each level-2 batch with this
     * shard's (INFINITY while its top is not full), it returns the least
     * any shard has reported, which prunes as the shard's own would. May be
     * NULL. */
    double (*share)(void *ud, double kth);
    void *share_ud;
} search_opts;

/* The baselines, each the best of its own options (checkpointing, memory
 * switches, micro-batch) that fits, leaving units idle where it must:
 * megatron-tp (TP as large as the heads allow, DP over the rest, linear,
 * ring), deepspeed-3d (TP 8, PP 4, DP over the rest; PP then TP halved
 * where they do not fit the model or the units; linear, ring),
 * best-no-tatp (the search's own space without TATP; when nothing there
 * fills the units, with idle units allowed, as its note says). */
typedef struct search_baseline {
    char name[24];              /* megatron-tp, deepspeed-3d, best-no-tatp */
    int ok;                     /* evaluated */
    sim_result r;               /* owned when ok */
    double speedup;             /* its step time / the best step time */
    char why[256];              /* when not ok */
    char note[32];              /* e.g. "idle units allowed" */
} search_baseline;

/* A search's answer. Small: the results live on the heap (a sim_result is
 * tens of KB, and the program must run under a small stack limit). */
typedef struct search_result {
    long long candidates, pruned_memory, pruned_bound, evaluated;
    long long invalid;          /* evaluated but refused (tiles that do not fit, ...) */
    double elapsed_s;
    int ntop;                   /* 0 when nothing fits: nofit says why */
    char nofit[512];            /* when ntop is 0: the smallest footprint and what would fit, else "" */
    sim_result *top;            /* ntop, best first, allocated and owned; NULL when ntop is 0 */
    int nbaselines;
    search_baseline *baselines; /* nbaselines, allocated and owned; NULL when 0 */
} search_result;

/* A candidate of a shard's top: where it sorts and what evaluates it
 * again. */
typedef struct search_pick {
    strategy s;                 /* as the search built it */
    int microbatch;
    double step_time_s;
    long long core;             /* its place in the enumeration, then its variant: the tie-break */
    int variant;
} search_pick;

#define SEARCH_NBASELINES 3

/* One search of a shard, the main one or a baseline's, as the merge needs
 * it: flat (the ranks of one MPI job, one binary, send it as bytes). */
typedef struct search_part {
    int rc;                     /* WT_OK, or the shard's error: msg */
    char msg[512];
    long long candidates;       /* the whole space's, as in search_result */
    long long fitting, evaluated, invalid;
    int ntop;                   /* its own top K, best first */
    search_pick top[SEARCH_MAX_TOP];
    /* when nothing of it fits: its least footprint (INFINITY when no
     * candidate of it is valid), where that sorts and what it says */
    double least;
    long long least_at;
    char nofit[512];
} search_part;

/* What a shard's search tells the merge: its share of the search, and of
 * each baseline's (when the options ask for them). */
typedef struct search_shard {
    double elapsed_s;
    search_part main;
    search_part base[SEARCH_NBASELINES]; /* megatron-tp, deepspeed-3d, best-no-tatp */
} search_shard;

/* "dp=8,pp=1,grid=4x4,microbatch=2" into sp. Errors name the key. */
int search_parse_fix(const char *text, search_space *sp, wt_err *e);
/* "placement=tiles,collective=ring|bidir,checkpoint=full,mem=zero+act_int8,chunk=256KB" */
int search_parse_only(const char *text, search_space *sp, wt_err *e);

/* Runs the search (opts->jobs threads). Errors: an empty space, bad
 * options. r is filled on success and freed with search_free. A model that
 * fits nowhere is an answer, not an error: WT_OK with r->ntop 0, no
 * baselines, and r->nofit saying what would fit. */
int search_run(const wafer *wf, const model *m, const search_opts *opts, search_result *r, wt_err *e);
void search_free(search_result *r);

/* One shard of the search (opts->shard of opts->nshards) into out, its
 * errors included, and of each baseline's when opts asks. Every shard numbers the whole space's
 * cores in one order, so their candidates sort together, and one
 * strategy's variants (search_same_strategy) share a grid, hence a shard. */
void search_run_shard(const wafer *wf, const model *m, const search_opts *opts, search_shard *out);
/* The shards' answers (n of them, every shard of one space) as one
 * search's: the first K of their tops, evaluated again here, the counts
 * summed, and each baseline the same way when opts asks (best-no-tatp's
 * second try, with idle units, runs here whole). The same as search_run's,
 * top and errors alike, counts but evaluated, invalid and pruned_bound
 * (each shard prunes by its own K-th best and those it was told). */
int search_merge(const wafer *wf, const model *m, const search_opts *opts, const search_shard *sh, int n,
                 search_result *r, wt_err *e);

/* Every candidate of the space with its level-1 figures, for tests: calls
 * fn(ud, strategy, model, fits, bound) for each (placement and collective
 * included). */
int search_each(const wafer *wf, const model *m, const search_space *sp,
                void (*fn)(void *ud, const strategy *s, const model *m, int fits, double bound), void *ud,
                wt_err *e);

#endif
