/*
 * traffic.c - a step's collectives resolved into passes, and each distinct
 * pass routed once (contract in traffic.h).
 */
#include "traffic.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "par.h"
#include "sim_int.h"
#include "stream.h"

/* Scratch of one build. */
typedef struct build {
    sim_result *r;
    sim_ctx *c;
    const net_model *net;
    coll_groups groups[CG_NKIND];
    int built[CG_NKIND];
    int inner[CG_NKIND];       /* hierarchical inner size per kind, 0 = unknown, -1 = none */
    route_mode mode;           /* routing of the phase being resolved */
    int waves;                 /* its waves */
} build;

/* The groups of a kind, built on first use (NULL on out of memory). */
static const coll_groups *groups_of(build *b, int kind, wt_err *e)
{
    if (!b->built[kind]) {
        if (coll_groups_build(&b->groups[kind], kind, &b->r->plan, b->r->wf, e) != WT_OK)
            return NULL;
        b->built[kind] = 1;
    }
    return &b->groups[kind];
}

static void build_free(build *b)
{
    for (int k = 0; k < CG_NKIND; k++)
        if (b->built[k])
            coll_groups_free(&b->groups[k]);
}

/* The flows of a wave written by ranges of its groups, on the cores at
 * once on a wafer: a counting walk gives each part's first flow, so the
 * parts write one array in group order. */
typedef struct flows_job {
    const coll_groups *g;
    const int *next;
    int two_way, wave, nwaves, nparts;
    size_t ngroups;          /* of the wave */
    route_flow *out;         /* NULL in the counting walk */
    size_t n[PAR_MAX];       /* each part's flows */
    size_t at[PAR_MAX];      /* and its first */
} flows_job;

static void flows_range(void *ctx, int part)
{
    flows_job *j = ctx;
    const coll_groups *g = j->g;
    size_t i0 = par_first(j->ngroups, part, j->nparts), i1 = par_first(j->ngroups, part + 1, j->nparts), nf = 0;
    route_flow *out = j->out ? j->out + j->at[part] : NULL;
    for (size_t i = i0; i < i1; i++) {
        size_t grp = (size_t)j->wave + i * (size_t)j->nwaves;
        const int *unit = g->unit + grp * (size_t)g->size;
        const int *nx = j->next + grp * (size_t)g->size;
        for (int m = 0; !out && m < g->size; m++)
            nf += nx[m] != m;
        for (int m = 0; out && m < g->size; m++) {
            if (nx[m] == m)
                continue;
            out[nf++] = (route_flow){unit[m], unit[nx[m]], 1.0};
            if (j->two_way)
                out[nf++] = (route_flow){unit[nx[m]], unit[m], 1.0};
        }
    }
    j->n[part] = out ? nf : nf * (1 + (size_t)j->two_way);
}

/* The flows of one wave of a pass, in nparts parts (par.h): member m of
 * every group g of the wave (g % nwaves == wave) sends one byte to next[m]
 * (and back when two-way). out has room for 2 * g->ngroups * g->size
 * flows; returns their number. */
static size_t pass_flows(const coll_groups *g, const int *next, int pass, int wave, int nwaves, int nparts,
                         route_flow *out)
{
    flows_job j = {g, next, coll_pass_two_way(pass), wave, nwaves, nparts,
                   (size_t)(g->ngroups - wave + nwaves - 1) / (size_t)nwaves, NULL, {0}, {0}};
    if (nparts > 1) {
        par_run(nparts, flows_range, &j);
        for (int k = 1; k < nparts; k++)
            j.at[k] = j.at[k - 1] + j.n[k - 1];
    }
    j.out = out;
    par_run(nparts, flows_range, &j);
    return j.at[nparts - 1] + j.n[nparts - 1];
}

static int find_pattern(const sim_result *r, int kind, int pass, route_mode mode, int wave, int nwaves)
{
    for (int i = 0; i < r->npatterns; i++) {
        const sim_pattern *p = &r->patterns[i];
        if (p->kind == kind && p->pass == pass && p->mode == mode && p->wave == wave && p->nwaves == nwaves)
            return i;
    }
    return -1;
}

/* Room for one more pattern in r. */
static int reserve_pattern(sim_result *r, wt_err *e)
{
    if (r->npatterns < r->cap_patterns)
        return WT_OK;
    int cap = r->cap_patterns ? 2 * r->cap_patterns : 16;
    sim_pattern *grown = realloc(r->patterns, sizeof *grown * (size_t)cap);
    if (!grown)
        return wt_oom(e, "patterns");
    r->patterns = grown;
    r->cap_patterns = cap;
    return WT_OK;
}

/* Makes the routed list sp (its arrays taken over, freed on error) with
 * stats st a new pattern of r for (kind, pass, mode, wave of nwaves), some
 * of whose flows turn when turns; *index its index. */
static int add_pattern(build *b, route_sparse *sp, const route_stats *st, int turns, int kind, int pass,
                       route_mode mode, int wave, int nwaves, int *index, wt_err *e)
{
    sim_result *r = b->r;
    int rc = reserve_pattern(r, e);
    if (rc != WT_OK) {
        free(sp->link);
        free(sp->load);
        return rc;
    }
    sim_pattern *p = &r->patterns[r->npatterns];
    memset(p, 0, sizeof *p);
    p->link = sp->link;
    p->load = sp->load;
    p->nnz = (int)sp->n;
    /* A pattern of a wafer's size leaves its free rate (0: unknown) to
     * the solves, which take it over its classes (sim_pattern_solved). */
    flow_busy busy;
    if (p->nnz >= SIM_CLASSES_MIN)
        busy = flow_busiest(p->link, p->load, p->nnz, &b->c->bw);
    else
        p->free_rate = flow_free_rate(p->link, p->load, p->nnz, &b->c->bw, &busy);
    p->max_busy = busy.s;
    const wafer *wf = b->c->wf;
    int edge = busy.link >= 0 && wafer_link_bw(wf, busy.link / WAFER_NDIR, busy.link % WAFER_NDIR) < wf->link_bw;
    p->cls = calib_class_of(kind, st->max_hops, turns, edge);
    p->calib = wf->calib.factor[p->cls];
    p->busiest = busy.link;
    p->kind = kind;
    p->pass = pass;
    p->mode = mode;
    p->wave = wave;
    p->nwaves = nwaves;
    p->max_hops = st->max_hops;
    p->max_lat = st->max_latency;
    p->send_factor = coll_pass_two_way(pass) ? 2 : 1;
    *index = r->npatterns++;
    return WT_OK;
}

/* 1 when half or more of the n flows f go both along x and along y (a
 * ring in rank order across rows turns at its rows' ends alone: lines). */
static int flows_turn(const wafer *wf, const route_flow *f, size_t n)
{
    size_t turning = 0;
    for (size_t i = 0; i < n; i++)
        turning += wafer_x(wf, f[i].src) != wafer_x(wf, f[i].dst) && wafer_y(wf, f[i].src) != wafer_y(wf, f[i].dst);
    return n > 0 && 2 * turning >= n;
}

/* Routes the nf flows in c->flows as a new pattern of r (add_pattern). */
static int route_pattern(build *b, size_t nf, int kind, int pass, route_mode mode, int wave, int nwaves, int *index,
                         wt_err *e)
{
    route_stats st;
    /* Rings and shifts load about one or two links per flow: reserve that
     * much so the list rarely grows. */
    route_sparse sp = {0};
    sp.cap = 2 * nf + 64;
    sp.link = malloc(sp.cap * sizeof *sp.link);
    sp.load = malloc(sp.cap * sizeof *sp.load);
    int rc = sp.link && sp.load ? route_flows_sparse(b->c->rc, b->c->flows, nf, mode, &sp, &st, e)
                                : wt_oom(e, "pattern loads");
    if (rc != WT_OK) {
        free(sp.link);
        free(sp.load);
        return rc;
    }
    return add_pattern(b, &sp, &st, flows_turn(b->r->wf, b->c->flows, nf), kind, pass, mode, wave, nwaves, index,
                       e);
}

/* The pass of the next[] of c as lines (route_lines_sparse) when every
 * group of the wave lies on a row or column in member order, its members
 * equally spaced, and sends alike: *covered 1 and the pattern made, else
 * *covered 0. */
static int line_pattern(build *b, const coll_groups *g, int kind, int pass, route_mode mode, int wave, int nwaves,
                        int *index, int *covered, wt_err *e)
{
    sim_ctx *c = b->c;
    const wafer *wf = b->r->wf;
    int step = coll_groups_step(g), n = g->size, nl = 0;
    /* a step below the width runs along a row (route_lines_sparse checks
     * that the lines stay on it), a multiple of it down a column */
    int column = step >= wf->w, stride = column ? step / wf->w : step;
    *covered = 0;
    if (step <= 0 || (column && step % wf->w))
        return WT_OK;
    const int *to = c->next + (size_t)wave * (size_t)n;
    for (int grp = wave; grp < g->ngroups; grp += nwaves) {
        if (memcmp(c->next + (size_t)grp * (size_t)n, to, (size_t)n * sizeof *to))
            return WT_OK;
        c->origin[nl++] = g->unit[(size_t)grp * (size_t)n];
    }
    route_lines L = {c->origin, nl, n, column, to, coll_pass_two_way(pass), stride};
    route_sparse sp = {0};
    route_stats st;
    int rc = route_lines_sparse(c->rc, &L, &sp, &st, covered, e);
    if (rc != WT_OK || !*covered) {
        free(sp.link);
        free(sp.load);
        return rc;
    }
    return add_pattern(b, &sp, &st, 0, kind, pass, mode, wave, nwaves, index, e);
}

/* The routed pattern for (kind, pass, mode, wave), routed on first use:
 * returns WT_OK with *index its index in r->patterns, or -1 when the pass
 * does not exist for these groups (an uneven hierarchical split); or an
 * error code, and *index is then undefined. The answer and the error are
 * kept apart: an error is never read as "no such pass". */
static int pattern_get(build *b, int kind, int pass, route_mode mode, int wave, int nwaves, int *index,
                       wt_err *e)
{
    sim_result *r = b->r;
    sim_ctx *c = b->c;
    *index = find_pattern(r, kind, pass, mode, wave, nwaves);
    if (*index >= 0)
        return WT_OK;
    const coll_groups *g = groups_of(b, kind, e);
    if (!g)
        return WT_EINTERNAL;
    int q = coll_pass_next(g, pass, r->wf, r->s.sub_w, r->s.sub_h, c->next);
    if (q == -2)
        return wt_oom(e, "pass");
    if (pass == PASS_INNER || pass == PASS_OUTER) {
        b->inner[kind] = q;
        if (q < 0)
            return WT_OK; /* no such pass: *index is -1 */
    }
    int covered, rc = line_pattern(b, g, kind, pass, mode, wave, nwaves, index, &covered, e);
    if (rc != WT_OK || covered)
        return rc;
    size_t members = (size_t)g->ngroups * (size_t)g->size;
    size_t nf = pass_flows(g, c->next, pass, wave, nwaves, route_ctx_parts(c->rc, members), c->flows);
    return route_pattern(b, nf, kind, pass, mode, wave, nwaves, index, e);
}

/* The store pattern of direction dir_out (pass PASS_STORE_IN or
 * PASS_STORE_OUT), by rows when every port is on its unit's row, else its
 * flows routed; *index its index. */
static int store_pattern(build *b, int pass, int dir_out, int *index, wt_err *e)
{
    sim_result *r = b->r;
    int *port_x = malloc(sizeof *port_x * (size_t)r->wf->w), covered = 0, rc = WT_OK;
    if (!port_x)
        return wt_oom(e, "store ports");
    route_sparse sp = {0};
    route_stats st;
    if (stream_port_columns(r, port_x))
        rc = route_rows_sparse(b->c->rc, r->plan.rank, port_x, !dir_out, &sp, &st, &covered, e);
    free(port_x);
    if (rc == WT_OK && covered)
        return add_pattern(b, &sp, &st, 0, CG_STORE, pass, b->mode, 0, 1, index, e);
    free(sp.link);
    free(sp.load);
    if (rc != WT_OK)
        return rc;
    return route_pattern(b, stream_flows(r, dir_out, b->c->flows), CG_STORE, pass, b->mode, 0, 1, index, e);
}

/* The term of a store op (weight streaming, stream.h): its pattern, routed
 * on first use (pass PASS_STORE_IN or PASS_STORE_OUT), with the store's
 * bandwidth as a bound on its rate and the store's latency on its paths;
 * each rank moves its shard, bytes / (TP * TATP). */
static int store_term(build *b, const sim_op *op, sim_term *out, wt_err *e)
{
    sim_result *r = b->r;
    int dir_out = op->op == OP_REDUCESCATTER, pass = dir_out ? PASS_STORE_OUT : PASS_STORE_IN;
    int pat = find_pattern(r, CG_STORE, pass, b->mode, 0, 1);
    if (pat < 0) {
        int rc = store_pattern(b, pass, dir_out, &pat, e);
        if (rc != WT_OK)
            return rc;
        sim_pattern *p = &r->patterns[pat];
        p->store_s = stream_store_s(r, dir_out);
        p->max_lat += r->wf->store_lat;
    }
    *out = (sim_term){pat, op->bytes / ((double)r->s.tp * r->s.tatp), 1};
    return WT_OK;
}

/* Turns collective op into routed terms with algorithm a, each pass once
 * per wave (the waves run one after another); returns the count or a
 * negative error. Falls back to a ring when a's passes do not exist. */
static int expand_op(build *b, const sim_op *op, coll_algo a, sim_term *out, wt_err *e)
{
    coll_term ct[COLL_MAX_TERMS];
    int n, kind = op->op < 0 ? CG_PP : op->kind;
    const coll_groups *g = groups_of(b, kind, e);
    if (!g)
        return WT_EINTERNAL;
    /* a wave needs a group of its own; more waves than groups change nothing */
    int waves = b->waves < g->ngroups ? b->waves : g->ngroups;
    if (op->op < 0) { /* pipeline shift: activations forward, gradients back */
        ct[0] = (coll_term){PASS_SHIFT, op->bytes, 1};
        n = 1;
    } else {
        if (a == COLL_HIER && !b->inner[op->kind]) {
            int pat, rc = pattern_get(b, op->kind, PASS_INNER, b->mode, 0, 1, &pat, e);
            if (rc != WT_OK)
                return rc;
        }
        n = coll_expand(g, a, op->op, op->bytes, b->inner[op->kind], ct);
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        for (int w = 0; w < waves; w++) {
            int pat, rc = pattern_get(b, kind, ct[i].pass, b->mode, w, waves, &pat, e);
            if (rc != WT_OK)
                return rc;
            if (pat < 0) { /* a ring's passes always exist: one fallback at most */
                assert(a != COLL_RING);
                return expand_op(b, op, COLL_RING, out, e);
            }
            out[k++] = (sim_term){pat, ct[i].coef, ct[i].steps};
        }
    }
    return k;
}

/* The algorithm for op: hierarchical by wafer for groups spanning wafers,
 * the one the network model times shortest for auto, else the strategy's. */
static int resolve_op(build *b, sim_phase *ph, const sim_op *op, wt_err *e)
{
    sim_result *r = b->r;
    coll_algo a = r->s.collective;
    if (op->op >= 0 && op->kind != CG_STORE) {
        const coll_groups *g = groups_of(b, op->kind, e);
        if (!g)
            return WT_EINTERNAL;
        if (g->wafers)
            a = COLL_HIER;
    }
    sim_term best[COLL_MAX_TERMS * SIM_MAX_WAVES];
    int nbest;
    if (op->kind == CG_STORE) {
        int rc = store_term(b, op, best, e);
        if (rc != WT_OK)
            return rc;
        nbest = 1;
    } else if (a == COLL_AUTO && op->op >= 0) {
        double best_s = INFINITY;
        nbest = 0;
        for (int c = 0; c < COLL_NALGOS; c++) {
            if (!(choice_at(coll_algo_table(), c)->flags & CHOICE_AUTO))
                continue;
            sim_term t[COLL_MAX_TERMS * SIM_MAX_WAVES];
            int n = expand_op(b, op, (coll_algo)c, t, e);
            if (n < 0)
                return n;
            double s = b->net->passes_s(r, t, n);
            if (s < best_s) {
                best_s = s;
                memcpy(best, t, sizeof t);
                nbest = n;
            }
        }
    } else {
        nbest = expand_op(b, op, a, best, e);
        if (nbest < 0)
            return nbest;
    }
    if (ph->nterms + nbest > SIM_MAX_TERMS) {
        wt_fail(e, "phase %s: too many passes (%d waves)", ph->name, b->waves);
        return WT_EINPUT;
    }
    for (int i = 0; i < nbest; i++)
        ph->terms[ph->nterms++] = best[i];
    return WT_OK;
}

int traffic_build(sim_ctx *c, sim_result *r, const sim_tuning *t, const net_model *net, wt_err *e)
{
    int rc = sim_ctx_reserve(c, r->plan.nranks, e);
    build b = {.r = r, .c = c, .net = net};
    for (int i = 0; i < r->nphases && rc == WT_OK; i++) {
        sim_phase *ph = &r->phases[i];
        const sim_phase_tune *pt = sim_tuning_find(t, ph->name);
        b.mode = pt && pt->routing >= 0 ? (route_mode)pt->routing : r->s.routing;
        b.waves = pt && pt->waves > 1 ? (pt->waves < SIM_MAX_WAVES ? pt->waves : SIM_MAX_WAVES) : 1;
        ph->nterms = 0;
        for (int j = 0; j < ph->nops && rc == WT_OK; j++)
            rc = resolve_op(&b, ph, &ph->ops[j], e);
    }
    build_free(&b);
    return rc;
}

int traffic_flows(const sim_result *r, int p, route_flow **out, size_t *n, wt_err *e)
{
    const sim_pattern *pat = &r->patterns[p];
    if (pat->kind == CG_STORE) {
        *out = malloc(sizeof **out * (size_t)r->plan.nranks + 1);
        if (!*out)
            return wt_oom(e, "flows");
        *n = stream_flows(r, pat->pass == PASS_STORE_OUT, *out);
        return WT_OK;
    }
    coll_groups g;
    int rc = coll_groups_build(&g, pat->kind, &r->plan, r->wf, e);
    if (rc != WT_OK)
        return rc;
    size_t members = (size_t)g.ngroups * (size_t)g.size;
    int *next = malloc(members * sizeof *next);
    route_flow *flows = malloc(2 * members * sizeof *flows + 1);
    if (!next || !flows || coll_pass_next(&g, pat->pass, r->wf, r->s.sub_w, r->s.sub_h, next) == -2) {
        free(next);
        free(flows);
        coll_groups_free(&g);
        return wt_oom(e, "flows");
    }
    *n = pass_flows(&g, next, pat->pass, pat->wave, pat->nwaves, 1, flows);
    *out = flows;
    free(next);
    coll_groups_free(&g);
    return WT_OK;
}
