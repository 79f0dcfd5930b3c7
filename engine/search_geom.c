/*
 * search_geom.c - bounds a candidate's passes by where its ranks sit,
 * without routing them.
 *
 * Every path between two units of the mesh, straight or detoured around
 * faults, crosses each column boundary between their columns (x = c | c + 1
 * for sx <= c < tx) eastward at least once, and only over the usable links
 * that cross that boundary eastward; likewise westward, and the row
 * boundaries southward and northward. If a pass's flows put B bytes (per
 * byte each member sends) across a boundary in one direction, its links
 * there carry sum_l load(l) >= B, and load(l) <= max_busy x bw(l) on each,
 * so
 *
 *     max_busy >= B / (sum of the bandwidths of those links)
 *
 * whatever the routing mode. The largest ratio over the boundaries and
 * directions (a cut) bounds the pass in O(flows + w + h) instead of a route,
 * walked on the cores at once, or from one group of each shape when the
 * groups are a few shapes moved (groups_moved).
 * A collective's terms (coll_expand, with the algorithm as traffic.c
 * resolves it: hierarchical for groups that span wafers, a ring where a
 * pass of the algorithm does not exist) each take at least coef x their
 * pass's cut, and a phase's passes run one after another (docs/MODEL.md,
 * "The placement's cuts").
 *
 * The placement does not depend on the collective, so one build places
 * the ranks, forms each kind's groups and takes each pass's cut once for
 * every algorithm asked for. Bytes across are whole counts, added in any
 * order to the same sums; a ring walked one way gives its two-way (bidir)
 * cut too: the reversed flows cross each boundary where the forward ones
 * cross it the other way. A TATP row or column wrapped across mesh rows
 * by a linear placement sends every flow tens or hundreds of columns
 * across: the cut sees it, the first-link bound of sim_bounds cannot.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "search_int.h"

/* Directions a boundary is crossed in: east and west over the column
 * boundaries (slot b: between columns b and b + 1), south and north over
 * the row boundaries. */
enum { CUT_E = 0, CUT_W, CUT_S, CUT_N, CUT_NDIR };

/* Where direction d's slots start in cap and diff: w each for E and W, h
 * each for S and N (the last slot of each is a difference array's end). */
static size_t cut_at(const wafer *wf, int d)
{
    size_t w = (size_t)wf->w, h = (size_t)wf->h;
    return d == CUT_E ? 0 : d == CUT_W ? w : d == CUT_S ? 2 * w : 2 * w + h;
}

void search_cuts_free(search_cuts *c)
{
    free(c->cap);
    free(c->diff);
    free(c->part_diff);
    free(c->next);
    free(c->x);
    free(c->y);
    free(c->ux);
    free(c->uy);
    free(c->at_x);
    memset(c, 0, sizeof *c);
}

int search_cuts_init(search_cuts *c, const wafer *wf, wt_err *e)
{
    memset(c, 0, sizeof *c);
    c->wf = wf;
    size_t n = 2 * (size_t)wf->w + 2 * (size_t)wf->h, units = wafer_nunits(wf);
    c->cap = calloc(n, sizeof *c->cap);
    c->diff = malloc(n * sizeof *c->diff);
    c->part_diff = malloc(PAR_MAX * n * sizeof *c->part_diff);
    c->next = malloc(units * sizeof *c->next);
    c->x = malloc(units * sizeof *c->x);
    c->y = malloc(units * sizeof *c->y);
    c->ux = malloc(units * sizeof *c->ux);
    c->uy = malloc(units * sizeof *c->uy);
    c->at_x = calloc(SEARCH_SHAPES * n, sizeof *c->at_x); /* with at_y, n_x and n_y */
    if (c->at_x) {
        c->at_y = c->at_x + SEARCH_SHAPES * (size_t)wf->w;
        c->n_x = c->at_y + SEARCH_SHAPES * (size_t)wf->h;
        c->n_y = c->n_x + SEARCH_SHAPES * (size_t)wf->w;
    }
    if (!c->cap || !c->diff || !c->part_diff || !c->next || !c->x || !c->y || !c->ux || !c->uy || !c->at_x) {
        search_cuts_free(c);
        return wt_oom(e, "search cuts");
    }
    for (size_t u = 0; u < units; u++) {
        c->ux[u] = wafer_x(wf, (int)u);
        c->uy[u] = wafer_y(wf, (int)u);
    }
    static const int link_dir[CUT_NDIR] = {WAFER_E, WAFER_W, WAFER_S, WAFER_N};
    for (int y = 0; y < wf->h; y++)
        for (int x = 0; x < wf->w; x++) {
            unsigned ok = wafer_usable_mask(wf, x, y);
            for (int d = 0; d < CUT_NDIR; d++) {
                if (!(ok >> link_dir[d] & 1u))
                    continue;
                /* the boundary the link crosses: a west or north link
                 * leaves column (row) b + 1 for b */
                int b = d == CUT_E ? x : d == CUT_W ? x - 1 : d == CUT_S ? y : y - 1;
                c->cap[cut_at(wf, d) + (size_t)b] += wafer_link_bw(wf, wafer_unit(wf, x, y), link_dir[d]);
            }
        }
    return WT_OK;
}

/* Adds one flow from (ax, ay) to (bx, by) to the difference arrays d:
 * it crosses the column boundaries from min to max - 1 of their columns,
 * in the direction from a's to b's, and likewise the row boundaries. */
static inline void cross(int *d, size_t w, size_t h, int ax, int ay, int bx, int by)
{
    int *we = d + (bx > ax ? 0 : w), *ns = d + 2 * w + (by > ay ? 0 : h);
    we[ax < bx ? ax : bx]++;
    we[ax < bx ? bx : ax]--;
    ns[ay < by ? ay : by]++;
    ns[ay < by ? by : ay]--;
}

/*
 * Groups of one shape (each member at the same offset from the group's
 * first unit, the box of the members moved along staying on the mesh, so
 * the offsets are the same columns and rows apart) that send alike (the
 * same successors) cross the column boundaries as one of them does, moved
 * by the columns they start on, and likewise the rows: a column
 * boundary's count is one group's flows across it, moved to each column
 * groups start on, times the groups that start there. A kind's groups are
 * taken so when they come in at most SEARCH_SHAPES shapes (a snake's rows
 * run both ways: two; groups that wrap from row to row take more and walk
 * member by member): O(flows of a group x columns and rows groups start
 * on) instead of O(members).
 */
static int groups_moved(search_cuts *c, const coll_groups *g)
{
    const wafer *wf = c->wf;
    int n = g->size, lo_x[SEARCH_SHAPES], hi_x[SEARCH_SHAPES], lo_y[SEARCH_SHAPES], hi_y[SEARCH_SHAPES];
    c->nshapes = 0;
    memset(c->n_x, 0, sizeof *c->n_x * SEARCH_SHAPES * (size_t)wf->w);
    memset(c->n_y, 0, sizeof *c->n_y * SEARCH_SHAPES * (size_t)wf->h);
    for (int k = 0; k < g->ngroups; k++) {
        const int *u = g->unit + (size_t)k * (size_t)n;
        int sh = 0;
        for (; sh < c->nshapes; sh++) {
            const int *r = g->unit + (size_t)c->shape_rep[sh] * (size_t)n;
            int m = 1;
            while (m < n && u[m] - u[0] == r[m] - r[0])
                m++;
            if (m == n)
                break;
        }
        if (sh == c->nshapes) { /* a new shape: its box */
            if (sh == SEARCH_SHAPES)
                return 0;
            c->shape_rep[sh] = k;
            c->nshapes++;
            lo_x[sh] = hi_x[sh] = lo_y[sh] = hi_y[sh] = 0;
            for (int m = 1; m < n; m++) {
                int dx = c->ux[u[m]] - c->ux[u[0]], dy = c->uy[u[m]] - c->uy[u[0]];
                lo_x[sh] = dx < lo_x[sh] ? dx : lo_x[sh];
                hi_x[sh] = dx > hi_x[sh] ? dx : hi_x[sh];
                lo_y[sh] = dy < lo_y[sh] ? dy : lo_y[sh];
                hi_y[sh] = dy > hi_y[sh] ? dy : hi_y[sh];
            }
        }
        int ox = c->ux[u[0]], oy = c->uy[u[0]];
        if (ox + lo_x[sh] < 0 || ox + hi_x[sh] >= wf->w || oy + lo_y[sh] < 0 || oy + hi_y[sh] >= wf->h)
            return 0;
        c->n_x[(size_t)sh * (size_t)wf->w + (size_t)ox]++;
        c->n_y[(size_t)sh * (size_t)wf->h + (size_t)oy]++;
    }
    for (int sh = 0; sh < c->nshapes; sh++) {
        const int *nx = c->n_x + (size_t)sh * (size_t)wf->w, *ny = c->n_y + (size_t)sh * (size_t)wf->h;
        int *ax = c->at_x + (size_t)sh * (size_t)wf->w, *ay = c->at_y + (size_t)sh * (size_t)wf->h;
        c->nx[sh] = c->ny[sh] = 0;
        for (int x = 0; x < wf->w; x++)
            if (nx[x])
                ax[c->nx[sh]++] = x;
        for (int y = 0; y < wf->h; y++)
            if (ny[y])
                ay[c->ny[sh]++] = y;
    }
    return 1;
}

/* 1 when every group has the first group's successors. */
static int send_alike(const search_cuts *c, const coll_groups *g)
{
    size_t n = (size_t)g->size;
    for (size_t k = 1; k < (size_t)g->ngroups; k++)
        if (memcmp(c->next + k * n, c->next, n * sizeof *c->next))
            return 0;
    return 1;
}

/* A kind's members walked by ranges of groups on the cores at once: their
 * columns and rows into c->x, c->y (place), or a pass's flows into each
 * part's difference arrays (flows). */
typedef struct members_job {
    search_cuts *c;
    const coll_groups *g;
    int nparts, place;
} members_job;

static void members_range(void *ctx, int part)
{
    const members_job *j = ctx;
    search_cuts *c = j->c;
    const coll_groups *g = j->g;
    size_t k0, k1, n = (size_t)g->size, w = (size_t)c->wf->w, h = (size_t)c->wf->h;
    par_range((size_t)g->ngroups, part, j->nparts, &k0, &k1);
    if (j->place) {
        for (size_t i = k0 * n; i < k1 * n; i++) {
            c->x[i] = c->ux[g->unit[i]];
            c->y[i] = c->uy[g->unit[i]];
        }
        return;
    }
    int *d = c->part_diff + (size_t)part * (2 * w + 2 * h);
    memset(d, 0, (2 * w + 2 * h) * sizeof *d);
    for (size_t base = k0 * n; base < k1 * n; base += n)
        for (size_t m = 0; m < n; m++) {
            size_t a = base + m, b = base + (size_t)c->next[a];
            if (a != b)
                cross(d, w, h, c->x[a], c->y[a], c->x[b], c->y[b]);
        }
}

/* Adds count flows' crossings of boundaries lo .. hi - 1 (moved by each
 * place groups start on, times the groups there) to one direction's
 * difference array d. */
static void cross_moved(int *d, const int *at, const int *count, int nat, int lo, int hi)
{
    for (int i = 0; lo != hi && i < nat; i++) {
        d[at[i] + lo] += count[at[i]];
        d[at[i] + hi] -= count[at[i]];
    }
}

/* The flows of a pass (each member to its successor in c->next) into
 * c->diff, one way: from one group of each shape, moved, where the groups
 * allow it and it is cheaper, else member by member. */
static void pass_flows(search_cuts *c, const coll_groups *g)
{
    const wafer *wf = c->wf;
    size_t w = (size_t)wf->w, h = (size_t)wf->h, members = (size_t)g->ngroups * (size_t)g->size, places = 0;
    memset(c->diff, 0, (2 * w + 2 * h) * sizeof *c->diff);
    for (int sh = 0; sh < c->nshapes; sh++)
        places += (size_t)(c->nx[sh] + c->ny[sh]);
    if (c->nshapes && (size_t)g->size * places < members && send_alike(c, g)) {
        for (int sh = 0; sh < c->nshapes; sh++) {
            const int *u = g->unit + (size_t)c->shape_rep[sh] * (size_t)g->size;
            const int *at_x = c->at_x + (size_t)sh * w, *n_x = c->n_x + (size_t)sh * w;
            const int *at_y = c->at_y + (size_t)sh * h, *n_y = c->n_y + (size_t)sh * h;
            for (int a = 0; a < g->size; a++) {
                int b = c->next[a], ax = c->ux[u[a]] - c->ux[u[0]], bx = c->ux[u[b]] - c->ux[u[0]];
                int ay = c->uy[u[a]] - c->uy[u[0]], by = c->uy[u[b]] - c->uy[u[0]];
                int *we = c->diff + (bx > ax ? 0 : w), *ns = c->diff + 2 * w + (by > ay ? 0 : h);
                cross_moved(we, at_x, n_x, c->nx[sh], ax < bx ? ax : bx, ax < bx ? bx : ax);
                cross_moved(ns, at_y, n_y, c->ny[sh], ay < by ? ay : by, ay < by ? by : ay);
            }
        }
        return;
    }
    /* counts are whole numbers: the parts' sums are one walk's */
    members_job j = {c, g, c->parts > 0 ? (c->parts < PAR_MAX ? c->parts : PAR_MAX) : par_chunks(members), 1};
    if (!c->placed_xy)
        par_run(j.nparts, members_range, &j);
    c->placed_xy = 1;
    j.place = 0;
    par_run(j.nparts, members_range, &j);
    for (int k = 0; k < j.nparts; k++) {
        const int *d = c->part_diff + (size_t)k * (2 * w + 2 * h);
        for (size_t i = 0; i < 2 * w + 2 * h; i++)
            c->diff[i] += d[i];
    }
}

/* The cut of the flows in c->diff, or of them and their reverses when
 * two_way: the largest bytes across a boundary over the bandwidth across
 * it, s per byte each member sends. */
static double diff_cut(const search_cuts *c, int two_way)
{
    const wafer *wf = c->wf;
    double worst = 0;
    for (int d = 0; d < CUT_NDIR; d += 2) { /* E with W, S with N */
        size_t at = cut_at(wf, d), back = cut_at(wf, d + 1), n = d == CUT_E ? (size_t)wf->w : (size_t)wf->h;
        long long fwd = 0, rev = 0;
        for (size_t b = 0; b + 1 < n; b++) {
            fwd += c->diff[at + b];
            rev += c->diff[back + b];
            /* a boundary nothing can cross fails the evaluation: no bound needed */
            double one = (double)(two_way ? fwd + rev : fwd), other = (double)(two_way ? fwd + rev : rev);
            if (c->cap[at + b] > 0)
                worst = fmax(worst, one / c->cap[at + b]);
            if (c->cap[back + b] > 0)
                worst = fmax(worst, other / c->cap[back + b]);
        }
    }
    return worst;
}

/* Fills cut[p] for pass p of g (c->next filled for it): a ring's cut
 * gives its bidir one too, and the other way round. */
static void pass_cut(search_cuts *c, const coll_groups *g, int p, double *cut)
{
    pass_flows(c, g);
    cut[p] = diff_cut(c, coll_pass_two_way(p));
    if (p == PASS_RING || p == PASS_BIDIR)
        cut[p == PASS_RING ? PASS_BIDIR : PASS_RING] = diff_cut(c, p == PASS_RING);
}

/* Seconds per byte of M of op (OP_*, or -1 for the pipeline shift) on g
 * with algorithm a and hierarchical split `inner`, from the pass cuts
 * (cut[pass] < 0 not known yet, filled on first use); -1 when a pass of
 * a's expansion does not exist (an uneven hierarchical split), -2 out of
 * memory. *own is set when a pass of the expansion is one of a's own. */
static double op_cut(search_cuts *c, const coll_groups *g, const strategy *s, coll_algo a, int inner, int op,
                     double *cut, int *own)
{
    coll_term ct[COLL_MAX_TERMS];
    int n = 1;
    if (op < 0)
        ct[0] = (coll_term){PASS_SHIFT, 1, 1};
    else
        n = coll_expand(g, a, op, 1, inner, ct);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        int p = ct[i].pass;
        if (cut[p] < 0) {
            int q = coll_pass_next(g, p, c->wf, s->sub_w, s->sub_h, c->next);
            if (q == -2)
                return -2;
            if (q == -1 && (p == PASS_INNER || p == PASS_OUTER))
                return -1;
            pass_cut(c, g, p, cut);
        }
        sum += ct[i].coef * cut[p];
    }
    for (int i = 0; i < n; i++)
        *own |= search_own_pass(a, ct[i].pass);
    return sum;
}

/* Fills the cuts of every op of one group kind for each algorithm of algos. */
static int kind_cuts(search_cuts *c, const plan *pl, const strategy *s, int kind, unsigned algos, search_geom *out,
                     wt_err *e)
{
    if (coll_groups_size(kind, pl) < 2) /* groups of one send nothing */
        return WT_OK;
    coll_groups g;
    int rc = coll_groups_build(&g, kind, pl, c->wf, e);
    if (rc != WT_OK)
        return rc;
    if (c->by_members || !groups_moved(c, &g))
        c->nshapes = 0;
    c->placed_xy = 0;
    double cut[NPASS];
    for (int p = 0; p < NPASS; p++)
        cut[p] = -1;
    int inner = 0, split = 0; /* the hierarchical split, once found */
    for (int alg = 0; alg < COLL_NALGOS && rc == WT_OK; alg++) {
        if (!(algos >> alg & 1))
            continue;
        coll_algo a = g.wafers ? COLL_HIER : (coll_algo)alg;
        if (a == COLL_HIER && !split) {
            /* the split is as costly to find as its pass: take both at once */
            split = 1;
            inner = coll_pass_next(&g, PASS_INNER, c->wf, s->sub_w, s->sub_h, c->next);
            if (inner > 1)
                pass_cut(c, &g, PASS_INNER, cut);
            else if (inner == -2)
                rc = wt_oom(e, "search cuts");
        }
        /* pipeline groups only shift; the others only run collectives */
        int first = kind == CG_PP ? -1 : OP_ALLREDUCE, last = kind == CG_PP ? -1 : OP_REDUCESCATTER;
        for (int op = first; op <= last && rc == WT_OK; op++) {
            int own = 0;
            double v = op_cut(c, &g, s, a, inner, op, cut, &own);
            if (v == -1) /* traffic.c falls back to a ring, which has no pass of its own */
                v = op_cut(c, &g, s, COLL_RING, 0, op, cut, &own);
            if (v == -2)
                rc = wt_oom(e, "search cuts");
            out->s_per_byte[alg][kind][op + 1] = v;
            if (own && !g.wafers) /* groups across wafers run hier whatever the algorithm */
                out->own[alg] |= 1u << kind;
        }
    }
    coll_groups_free(&g);
    return rc;
}

int search_geom_build(search_cuts *c, const strategy *s, unsigned algos, unsigned kinds, search_geom *out,
                      wt_err *e)
{
    memset(out, 0, sizeof *out);
    plan pl;
    int rc = place_plan(&pl, c->wf, s, e);
    if (rc == WT_EINPUT) /* refused: its evaluation says why */
        return WT_OK;
    if (rc != WT_OK)
        return rc;
    out->placed = 1;
    out->kinds = kinds & ~(1u << CG_STORE);
    for (int kind = 0; kind < CG_NKIND && rc == WT_OK; kind++)
        if (out->kinds >> kind & 1)
            rc = kind_cuts(c, &pl, s, kind, algos, out, e);
    place_free(&pl);
    return rc;
}

void search_geom_bounds(const search_geom *g, coll_algo a, const sim_result *spec, double *routed)
{
    assert(a < COLL_NALGOS);
    for (int i = 0; i < spec->nphases; i++) {
        const sim_phase *ph = &spec->phases[i];
        double s = 0;
        for (int j = 0; j < ph->nops; j++)
            if (ph->ops[j].kind != CG_STORE)
                s += ph->ops[j].bytes * g->s_per_byte[a][ph->ops[j].kind][ph->ops[j].op + 1];
        routed[i] = fmax(routed[i], s);
    }
}

int search_geom_acts(const search_geom *g, coll_algo a, const sim_result *spec)
{
    if (a == COLL_RING)
        return 1;
    for (int i = 0; i < spec->nphases; i++)
        for (int j = 0; j < spec->phases[i].nops; j++) {
            const sim_op *op = &spec->phases[i].ops[j];
            if (op->kind == CG_STORE || op->op < 0) /* the store's and the shift's passes are every algorithm's */
                continue;
            if (!(g->kinds >> op->kind & 1) || (g->own[a] >> op->kind & 1))
                return 1;
        }
    return 0;
}
