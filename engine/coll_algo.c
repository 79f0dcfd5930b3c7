/*
 * coll_algo.c - the collective algorithms: one table, one row each.
 *
 * A row names the algorithm, says in one line what it does, expands a
 * collective into weighted passes (coll.h), and gives what the search's
 * lower bound (sim_bounds) needs of it: over how many partners a member's
 * bytes may be split, and the fewest latency-bound steps it can take. Its
 * flags say whether `auto` and the search consider it. After the
 * COLL_NALGOS algorithms comes `auto`, the chooser: not an algorithm, but
 * the cheapest of the rows flagged CHOICE_AUTO for each collective (sim.c).
 *
 * To add an algorithm: a value before COLL_NALGOS in coll_algo.h, its
 * expansion and its row here, its tests, and its line in docs/MODEL.md,
 * README.md and docs/wafertop.1 (tests/test_choice.c checks those lists).
 */
#include "coll.h"

#include <assert.h>

double coll_ring_bytes(int op, int p, double M)
{
    if (p <= 1)
        return 0;
    double f = (double)(p - 1) / p * M;
    return op == OP_ALLREDUCE ? 2 * f : f;
}

/* Latency-bound steps of op on a ring of p. */
static int ring_steps(int op, int p)
{
    if (p <= 1)
        return 0;
    return op == OP_ALLREDUCE ? 2 * (p - 1) : p - 1;
}

/* The fewest latency-bound steps of op on p members over a ring (c = p) and
 * every two-level split p = c * (p / c): no two-level algorithm goes below. */
static int two_level_steps(int op, int p)
{
    int best = ring_steps(op, p);
    for (int c = 2; c * c <= p; c++)
        if (p % c == 0 && ring_steps(op, c) + ring_steps(op, p / c) < best)
            best = ring_steps(op, c) + ring_steps(op, p / c);
    return best;
}

/* Two-level op: along `in_pass` groups of q, then `out_pass` groups of o.
 * An all-reduce reduce-scatters inside, all-reduces M/q across, gathers
 * inside; an all-gather (or reduce-scatter) moves M/q across and M inside. */
static int two_level(int op, double M, int in_pass, int q, int out_pass, int o, coll_term *out)
{
    int k = 0;
    if (q > 1)
        out[k++] = (coll_term){in_pass, coll_ring_bytes(op, q, M), ring_steps(op, q)};
    if (o > 1)
        out[k++] = (coll_term){out_pass, coll_ring_bytes(op, o, M / q), ring_steps(op, o)};
    return k;
}

static int expand_ring(const coll_groups *g, int op, double M, int inner, coll_term *out)
{
    (void)inner;
    out[0] = (coll_term){PASS_RING, coll_ring_bytes(op, g->size, M), ring_steps(op, g->size)};
    return 1;
}

static int expand_bidir(const coll_groups *g, int op, double M, int inner, coll_term *out)
{
    (void)inner;
    out[0] = (coll_term){PASS_BIDIR, coll_ring_bytes(op, g->size, M / 2), ring_steps(op, g->size)};
    return 1;
}

/* Rows, then columns of the group's grid; a ring when the grid is a line. */
static int expand_2d(const coll_groups *g, int op, double M, int inner, coll_term *out)
{
    if (g->gw > 1 && g->gh > 1)
        return two_level(op, M, PASS_ROWS, g->gw, PASS_COLS, g->gh, out);
    return expand_ring(g, op, M, inner, out);
}

/* Inside subgroups of `inner`, then across; a ring without such a split. */
static int expand_hier(const coll_groups *g, int op, double M, int inner, coll_term *out)
{
    if (inner > 1 && inner < g->size)
        return two_level(op, M, PASS_INNER, inner, PASS_OUTER, g->size / inner, out);
    return expand_ring(g, op, M, inner, out);
}

typedef struct coll_algo_row {
    choice c;
    const char *about;  /* one line, for the help */
    /* The terms of op over M bytes on g (g->size > 1, M > 0); see coll_expand. */
    int (*expand)(const coll_groups *g, int op, double M, int inner, coll_term *out);
    /* The bound's bandwidth part: every algorithm makes a member send at
     * least the ring's total (coll_ring_bytes), split over at most this
     * many partners, each share crossing its first link whole. */
    int partners;
    /* The bound's latency part: the fewest steps it takes for op on p. */
    int (*min_steps)(int op, int p);
} coll_algo_row;

static const coll_algo_row algos[] = {
    [COLL_RING] = {{"ring", CHOICE_AUTO | CHOICE_SEARCH}, "one ring through the group", expand_ring, 1, ring_steps},
    [COLL_BIDIR] = {{"bidir", CHOICE_AUTO | CHOICE_SEARCH}, "two counter-rotating rings, half the bytes each",
                    expand_bidir, 2, ring_steps},
    [COLL_2D] = {{"2d", CHOICE_AUTO | CHOICE_SEARCH}, "rings along the group's grid rows, columns, then rows", expand_2d,
                 1, two_level_steps},
    [COLL_HIER] = {{"hier", CHOICE_AUTO | CHOICE_SEARCH}, "rings inside each --subgroup window, across, then inside",
                   expand_hier, 1, two_level_steps},
    [COLL_AUTO] = {{"auto", CHOICE_CHOOSER}, "the cheapest, for each collective, of", NULL, 0, NULL},
};
_Static_assert(sizeof algos / sizeof algos[0] == COLL_AUTO + 1, "one row per algorithm, then auto");
_Static_assert(COLL_AUTO == COLL_NALGOS, "auto comes right after the algorithms");

/* The row of algorithm a, not auto. */
static const coll_algo_row *algo(coll_algo a)
{
    assert(a >= 0 && a < COLL_NALGOS);
    return &algos[a];
}

choice_table coll_algo_table(void)
{
    return CHOICE_TABLE(algos);
}

const char *coll_algo_name(coll_algo a)
{
    return choice_at(coll_algo_table(), a)->name;
}

const char *coll_algo_about(coll_algo a)
{
    assert(a >= 0 && a <= COLL_AUTO);
    return algos[a].about;
}

int coll_expand(const coll_groups *g, coll_algo a, int op, double M, int inner, coll_term *out)
{
    if (g->size <= 1 || M <= 0)
        return 0;
    return algo(a)->expand(g, op, M, inner, out);
}

int coll_algo_partners(coll_algo a)
{
    return algo(a)->partners;
}

int coll_algo_min_steps(coll_algo a, int op, int p)
{
    return algo(a)->min_steps(op, p);
}
