/*
 * sim_int.h - what the pieces of the simulator share (not a public API).
 *
 * sim_phases.c turns model and strategy into phase specs (names, FLOPs,
 * collectives) and sim_spec.c adds memory and bounds; traffic.c resolves
 * the collectives into passes and routes them; a network model (net/)
 * times the traffic; sim.c runs the three and fills the figures every
 * model shares.
 */
#ifndef WT_SIM_INT_H
#define WT_SIM_INT_H

#include "net_bw.h"
#include "sim.h"

struct sim_ctx {
    const wafer *wf;
    route_ctx *rc;
    net_bw bw;                 /* each link's 1 / bandwidth, 0 on unusable links: */
    unsigned char *bw_cls;     /* wafer_nlinks classes, owned */
    double bw_inv[NET_BW_NCLASS]; /* s per byte by class */
    int usable;                /* links with 1 / bandwidth > 0 */
    double inj_bw;             /* largest bandwidth a unit can inject */
    double link_bw;            /* fastest usable link */
    unsigned char *marks;      /* wafer_nlinks flags, all zero between uses: a byte, not a
                                  double, per link, so marking a large mesh touches less */
    int *next;                 /* cap_ranks entries */
    int *origin;               /* cap_ranks entries: a pass's lines (route_lines) */
    route_flow *flows;         /* 2 * cap_ranks entries */
    int cap_ranks;
    const struct net_model *net; /* times the traffic (net.h) */
    struct flow_ctx *flow;     /* the fluid model's scratch (flow.h), made on first use */
    unsigned char *overlap;    /* npatterns^2 pairwise overlap marks of one figures pass */
    size_t cap_overlap;
    double window_s;           /* the windowed figures' window, s; 0: left out (sim_ctx_set_window) */
    double cutoff_s;           /* steps known longer are not finished (sim_ctx_set_cutoff) */
};

/* Fills r->phases with names, scopes, FLOPs and collectives (no timing). */
void sim_phases_build(sim_result *r);

/* Layers of stage k: L / PP, the first L % PP stages one more. */
int sim_stage_layers(const sim_result *r, int k);
/* Occurrences of a phase per micro-batch on stage k (0 for step phases). */
double sim_per_mb(const sim_result *r, const sim_phase *ph, int k);
/* Memory total of a unit of every stage, into totals[PP]. */
void sim_stage_memory(const sim_result *r, double *totals);
/* 1 when a layer phase's collectives all run over the DP group (the ZeRO
 * gathers): it needs nothing of its layer's activations, so the layer
 * before can run beside it (the fluid model prefetches it there). */
int sim_prefetched(const sim_phase *ph);

/* The ZeRO shard: DP x SP with --mem zero, else 1. */
double sim_zero_shard(const sim_result *r);
/* Bytes a unit stores per gradient: 1 with grad_fp8, else 2. */
double sim_grad_bytes(const sim_result *r);

/* Each phase's busiest link and its busy time over the phase's
 * (busiest_link, max_link_util: sim_busiest.c), over r's link classes
 * (made for it on a wafer, SIM_CLASSES_MIN) or its patterns' link lists;
 * ov holds the patterns' pairwise overlap marks, all unknown (npatterns^2
 * of them), or is NULL. WT_EINTERNAL out of memory. */
int sim_busiest_links(sim_result *r, const sim_ctx *c, unsigned char *ov, wt_err *e);

/* The link entries of a phase's patterns from which its busiest link is
 * found over the result's link classes (which its windows use too) rather
 * than by merging the patterns' lists. */
#define SIM_CLASSES_MIN 300000

/* The first entry of p's sorted link list at link slot lo or above (nnz
 * when none): where a walk of one range of links starts (par.h). */
int sim_pattern_first(const sim_pattern *p, int lo);

/* One load of a class (sim_link_classes): term `term` of phase `phase`
 * puts `load` bytes per byte of its coef on each link of the class. A
 * class's loads are in the order sim_link_window_util adds them up for a
 * link: by phase, then term. */
struct sim_class_load {
    int phase, term;
    double load;
};

/* The loaded links of a wafer by class of every pattern's loads (not only
 * the timed phases', so they are known before the timing): a link's class
 * is the chain of (pattern, bytes) the patterns give it and its bandwidth,
 * in cl (of, n, first, inv; no loads). Every value a solve computes at a
 * link is a function of those, so the timing solves over one link per
 * class, the class's first, and gets the rates it gets over all of them
 * (docs/ARCHITECTURE.md, "Traffic and time"); the result's classes
 * (sim_link_classes_new) are these, joined where only untimed patterns
 * tell them apart. */
typedef struct sim_reps {
    sim_link_classes cl;
    int *cstart;   /* cl.n + 1: class f's chain is cpat/cload[cstart[f] .. cstart[f + 1]) */
    int *cpat;     /* its patterns, ascending */
    double *cload; /* its bytes per byte of coef from each */
    int *pstart;   /* npatterns + 1: pattern p's classes are plink/pload[pstart[p] .. pstart[p + 1]) */
    int *plink;    /* their first links, ascending */
    double *pload; /* p's bytes there */
} sim_reps;

/* What the timeline's solves take on a wafer (SIM_CLASSES_MIN link
 * entries), made once per result before the first: r's loaded links and
 * r->reps. A step the closed form already puts past the cutoff needs
 * neither. WT_EINTERNAL out of memory. */
int sim_solve_prepare(sim_ctx *c, sim_result *r, wt_err *e);

/* The link entries of r's patterns. */
size_t sim_entries(const sim_result *r);

/* r->loaded and r->nloaded: the link slots r's patterns load, ascending,
 * marked in marks[wafer_nlinks] (zero on entry and again on return);
 * WT_EINTERNAL out of memory. A large mesh's per-link arrays are read and
 * written at the span the patterns load alone (sim_links.c). */
int sim_list_loaded(sim_result *r, unsigned char *marks, wt_err *e);

/* Each loaded link's bytes over the step (the patterns' step_coef times
 * their loads, added in pattern order; by class with r->reps) into
 * r->link_bytes, and the step's mean (over the usable links, `usable` of
 * them) and largest link utilisation, bw giving each link's 1 / bandwidth;
 * WT_EINTERNAL out of memory. */
int sim_step_links(sim_result *r, const net_bw *bw, int usable, wt_err *e);

/* A per-link array of r (wafer_nlinks elements of `size` bytes) that the
 * walks over r's loaded links fill, or NULL out of memory: where at least
 * half the links are loaded (a wafer's own strategy loads nearly all), every
 * page is touched anyway, so it comes uncleared and each part of the walk
 * clears its own slots first (sim_zero_slots): the array's first touch is
 * then a write, its page faults taken on the cores at once, rather than
 * calloc's clearing on one thread (of memory the heap kept). Elsewhere it comes from calloc, and the pages of
 * the links no pattern loads are never touched. */
void *sim_links_alloc(const sim_result *r, size_t size);

/* Zeroes the slots of a per-link array `a` from sim_links_alloc (elements
 * of `size` bytes) that part `part` of r's loaded links split into nparts
 * (par_first) owns, where that array came uncleared: from the part's first
 * loaded link (slot 0 for the first part) to the next part's first (every
 * slot after it for the last), so the parts clear every slot once. 1 when
 * it cleared them, 0 where the array came from calloc. */
int sim_zero_slots(const sim_result *r, void *a, size_t size, int part, int nparts);

/* Makes r->reps from r's patterns and loaded links, and the links'
 * bandwidths in bw (the context's); WT_EINTERNAL out of memory. */
int sim_result_reps(sim_result *r, const net_bw *bw, wt_err *e);
/* sim_result_reps with the classes' codes at most code_max (INT_MAX
 * there; sim_classes.c): smaller, the paths of a wafer whose links vary
 * more. *path (unless NULL): 0 every range classed by codes, 1 some
 * range's codes numbered again on the way, 2 the links classed by chains. */
int sim_result_reps_max(sim_result *r, const net_bw *bw, int code_max, int *path, wt_err *e);
/* Frees r->reps (NULL after). */
void sim_result_reps_free(sim_result *r);

/* The links pattern p's loads are solved over: one per class with r->reps,
 * else every link it loads. */
static inline void sim_pattern_solved(const sim_result *r, int p, const int **link, const double **load, int *nnz)
{
    if (r->reps) {
        const sim_reps *s = r->reps;
        *link = s->plink + s->pstart[p];
        *load = s->pload + s->pstart[p];
        *nnz = s->pstart[p + 1] - s->pstart[p];
    } else {
        *link = r->patterns[p].link;
        *load = r->patterns[p].load;
        *nnz = r->patterns[p].nnz;
    }
}

/* Makes r->classes (sim_link_classes_new) unless r has them. */
int sim_result_classes(sim_result *r, wt_err *e);
/* Frees r->classes (NULL after). */
void sim_result_classes_free(sim_result *r);

/* Grows the context's per-rank buffers (next, origin, flows) to n ranks. */
int sim_ctx_reserve(sim_ctx *c, int n, wt_err *e);

#endif
