/*
 * search_int.h - what search.c and search_space.c share (not a public API).
 */
#ifndef WT_SEARCH_INT_H
#define WT_SEARCH_INT_H

#include <stddef.h>

#include "search.h"

/* A candidate without its placement and collective: everything level 1
 * looks at. The placement x collective variants share its figures. */
typedef struct search_core {
    long long at;              /* its place in the whole space's enumeration (every shard's, grids left
                                  out included): the tie-break after the step */
    int dims[5];               /* DP, TP, SP, PP, TATP */
    short gw, gh;              /* TATP grid */
    int microbatch;
    unsigned char checkpoint, mem, chunk;
    unsigned char exec;        /* exec_mode */
    unsigned char seqpar;      /* tp-seqpar: on where TP divides the sequence shard, else off */
    unsigned char valid, fits;
    double memory;             /* the fullest unit, bytes */
    double bound[COLL_NALGOS]; /* lower bound on the step per collective algorithm (sim_bounds), s */
} search_core;

/* Every core of the space, in enumeration order (the tie-break order), but
 * those of grids none of whose cores can fit: cores (allocated; the caller
 * frees it), the count of those left out, and the least footprint among
 * them (least.valid = 0 when none). o (NULL: the whole space, silently)
 * gives the shard and the progress, called at 0 now and then: the walk of
 * a large mesh's space takes seconds before level 1. Of a shard
 * (o->nshards > 1), only the
 * cores of the grids (a 5-tuple on one TATP grid) numbered shard mod
 * nshards, those left out among them and their least; total counts every
 * core of the space, every shard's. */
typedef struct search_cores_out {
    search_core *cores;
    size_t n;
    long long total;
    long long skipped;
    search_core least;
} search_cores_out;

int search_cores(const wafer *wf, const model *m, const search_space *sp, const search_opts *o,
                 search_cores_out *out, wt_err *e);

/* Every placement x collective the space allows, placement-major in table
 * order: the placements and the collective algorithms flagged
 * CHOICE_SEARCH (choice.h) within sp's masks. Fills at most max; returns the
 * count. */
#define SEARCH_MAX_VARIANTS (PLACE_NKINDS * COLL_NALGOS)
int search_variants(const search_space *sp, place_kind *pl, coll_algo *co, int max);

/* The strategy and model of a core with one placement and collective. */
void search_core_strategy(const search_core *c, place_kind pl, coll_algo co, strategy *s);
void search_core_model(const search_core *c, const model *m, model *out);

/* Whether evaluations a and b of the search's candidates are one strategy:
 * they differ at most in options that do not act on them (zero without
 * DP x SP, a chunk with nothing to split, an algorithm none of whose own
 * passes the step uses: search_distinct.c), so every figure is the same.
 * The top list keeps one of each. */
int search_same_strategy(const sim_result *a, const sim_result *b);
/* Whether pass is one of algorithm a's own, which the ring never uses
 * (bidir's two-way ring, 2d's rows and columns, hier's inner and outer
 * rings): where an algorithm acts. */
int search_own_pass(coll_algo a, int pass);

/* What one routed evaluation of a signature tells about its siblings
 * (search_routed.c): per phase, its ops and the seconds its passes but the
 * store's take at their busiest links. */
typedef struct search_routed_phase {
    char name[24];
    int nops;
    sim_op ops[SIM_MAX_OPS];
    double busy_s;             /* sum over its terms of coef x max_busy, s per occurrence */
} search_routed_phase;

typedef struct search_routed {
    int nphases;
    search_routed_phase phase[SIM_MAX_PHASES];
} search_routed;

/* The profile of r, an evaluation (finished or above its cutoff). */
void search_routed_take(search_routed *p, const sim_result *r);
/* For each phase i of spec (sim_spec'd, of p's signature), a lower bound
 * on its passes' busiest-link seconds into routed[i] (0 when p says
 * nothing of it): for sim_bound_routed. */
void search_routed_bounds(const search_routed *p, const sim_result *spec, double *routed);

/* What a signature's placement says of its passes before any routing
 * (search_geom.c): per collective algorithm, group kind and op (index
 * op + 1, op -1 the pipeline shift), a lower bound on the seconds its
 * passes take at their busiest links per byte of the op's M, for the
 * kinds it was built for (the others' bounds are 0); and per algorithm
 * the kinds whose collectives it expands into passes of its own. */
typedef struct search_geom {
    int placed;                       /* 0: the placement refuses it (all 0) */
    unsigned kinds;                   /* bit coll kind: the kinds it holds */
    unsigned own[COLL_NALGOS];        /* bit coll kind: a's own passes run there (search_own_pass) */
    double s_per_byte[COLL_NALGOS][CG_NKIND][4];
} search_geom;

/* Shapes of groups search_cuts takes moved at most. */
#define SEARCH_SHAPES 4

/* The mesh's bandwidth across each column and row boundary, each way, and
 * scratch for one wafer: one per thread that builds geometries. */
typedef struct search_cuts {
    const wafer *wf;
    double *cap;                      /* bytes/s of the usable links across each boundary */
    int *diff;                        /* flows across, as difference arrays */
    int *part_diff;                   /* PAR_MAX of them: each part's of a walk on the cores */
    int *next;                        /* wafer_nunits: a pass's successors */
    int *x, *y;                       /* wafer_nunits: each member's column and row */
    int *ux, *uy;                     /* wafer_nunits: each unit's column and row */
    /* a kind's groups as a few shapes moved (search_geom.c): per shape, the
     * columns and rows its groups start on and how many start on each */
    int nshapes;                      /* 0: the groups are not */
    int shape_rep[SEARCH_SHAPES];     /* a group of each shape */
    int *at_x, *at_y, *n_x, *n_y;     /* SEARCH_SHAPES x (w or h) each */
    int nx[SEARCH_SHAPES], ny[SEARCH_SHAPES];
    int placed_xy;                    /* x and y hold the kind's members */
    int by_members;                   /* 1: never from shapes moved (tests compare) */
    int parts;                        /* the member walk's parts: 0 par_chunks', else forced (tests) */
} search_cuts;

int search_cuts_init(search_cuts *c, const wafer *wf, wt_err *e);
void search_cuts_free(search_cuts *c);
/* The geometry of s (resolved) on c's wafer into out, for each collective
 * algorithm of the mask algos (bit coll_algo; s's own is not read) and
 * each group kind of the mask kinds (bit coll kind: those a candidate's
 * phases run collectives on; a kind's groups and passes are most of the
 * cost); WT_OK with out->placed = 0 when the placement refuses s, an error
 * only when memory runs out. */
int search_geom_build(search_cuts *c, const strategy *s, unsigned algos, unsigned kinds, search_geom *out,
                      wt_err *e);
/* Raises routed[i], for each phase i of spec (sim_spec'd, of g's
 * signature, with algorithm a of those g was built for), to g's bound on
 * its passes but the store's. */
void search_geom_bounds(const search_geom *g, coll_algo a, const sim_result *spec, double *routed);
/* Whether algorithm a acts on the candidate spec (sim_spec'd, placed as
 * g): the ring always; another when some collective of its phases runs on
 * a kind where g expands a into passes of its own, or on a kind g does not
 * hold. When it does not, the candidate is its ring twin to the bit
 * (search_same_strategy calls them one strategy). */
int search_geom_acts(const search_geom *g, coll_algo a, const sim_result *spec);

/* What a search runs with: its inputs, a context per thread, and in a
 * shard's search (search_shard.c) where level 2's top goes as picks and
 * what fits_nowhere finds; NULL in a whole one. */
typedef struct search_run_state {
    const wafer *wf;
    const model *m;
    const search_opts *o;
    sim_ctx *ctx[64];
    int jobs;
    search_part *part;
} search_run_state;

/* The search proper: levels 1 and 2 of st->o's space (its shard when
 * st->o->nshards > 1) into r, without baselines. A shard's part gets the
 * picks and the least footprint, and refusals that another shard may
 * answer (nothing valid, nothing placed) are WT_OK with an empty top. */
int search_levels(search_run_state *st, search_result *r, wt_err *e);

/* What a search does with its threads' contexts made: levels 1 and 2,
 * the merge of shards, the baselines. */
typedef int (*search_body)(search_run_state *st, search_result *r, void *arg, wt_err *e);
/* Checks opts (into *o, defaults filled), makes a context per thread, runs
 * body, frees them; r is freed on error, else holds its elapsed time. */
int search_with_contexts(const wafer *wf, const model *m, const search_opts *opts, search_opts *o,
                         search_body body, void *arg, search_result *r, wt_err *e);

/* The two refusals a shard leaves to the merge, word for word. */
extern const char search_no_valid[], search_none_placed[];

/* The baselines (search_baselines.c): their spaces, megatron-tp,
 * deepspeed-3d and best-no-tatp, from the wafer, the model and st's
 * space. */
void search_baseline_spaces(const search_run_state *st, search_space sp[SEARCH_NBASELINES]);
/* The options a baseline's own search runs with: top 1, pruned, no
 * progress, a whole search of space. */
search_opts search_baseline_opts(const search_opts *o, const search_space *space);
/* Baseline i from its search's outcome (rc, e; sub taken and freed), its
 * speed-up against best_step. */
void search_baseline_take(search_baseline *b, int i, int rc, const wt_err *e, search_result *sub, double best_step);
/* best-no-tatp again, a whole search with idle units allowed, when nothing
 * without TATP fills the units (r holds the baselines, sp their spaces). */
void search_baseline_retry(search_run_state *st, search_result *r, search_space sp[SEARCH_NBASELINES]);
/* Every baseline into r (r->top[0] is the best), each a whole search of
 * its space, with the retry. */
int search_baselines(search_run_state *st, search_result *r, wt_err *e);

#endif
