/*
 * group.c - which group loads what (group.h).
 *
 * Each pattern of r is rebuilt as traffic.c routed it: the groups of its
 * kind, the successor of every member in its pass (coll_pass_next), one
 * byte per member (and back for two-way passes), only the groups of its
 * wave. A flow crosses a link when the link lies on its dimension-order
 * path: on a mesh without faults that is a test on coordinates; with faults
 * the path is walked and taken as route.c does while it is usable (its own
 * order, else the other), and a flow neither order can take is untraced.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "group.h"

/* One pass of r's kind rebuilt: its groups and every member's successor. */
typedef struct pass_groups {
    coll_groups g;
    int *next;
} pass_groups;

static void pass_free(pass_groups *p)
{
    coll_groups_free(&p->g);
    free(p->next);
    p->next = NULL;
}

static int pass_build(const sim_result *r, int kind, int pass, pass_groups *p, wt_err *e)
{
    memset(p, 0, sizeof *p);
    int rc = coll_groups_build(&p->g, kind, &r->plan, r->wf, e);
    if (rc != WT_OK)
        return rc;
    p->next = malloc((size_t)p->g.ngroups * (size_t)p->g.size * sizeof *p->next + 1);
    if (!p->next || coll_pass_next(&p->g, pass, r->wf, r->s.sub_w, r->s.sub_h, p->next) == -2) {
        pass_free(p);
        return wt_oom(e, "a pass's groups");
    }
    return WT_OK;
}

/* 1 when the mesh has a dead unit or link. */
static int mesh_faulty(const wafer *wf)
{
    if (wf->dead_units)
        return 1;
    for (size_t l = 0; l < wafer_nlinks(wf); l++)
        if (wf->link_dead[l])
            return 1;
    return 0;
}

/* Calls visit for every link slot on the path from s to d, x first or y
 * first, and returns 1; 0 (having visited some) when a link on it is not
 * usable. visit may be NULL. */
typedef void (*link_visit)(void *ud, size_t slot);

static int walk(const wafer *wf, int s, int d, int y_first, link_visit visit, void *ud)
{
    int x = wafer_x(wf, s), y = wafer_y(wf, s), dx = wafer_x(wf, d), dy = wafer_y(wf, d);
    for (int leg = 0; leg < 2; leg++) {
        int along_y = (leg == 0) == y_first;
        while (along_y ? y != dy : x != dx) {
            int dir = along_y ? (dy > y ? WAFER_S : WAFER_N) : (dx > x ? WAFER_E : WAFER_W);
            int u = wafer_unit(wf, x, y);
            if (!wafer_link_usable(wf, u, dir))
                return 0;
            if (visit)
                visit(ud, (size_t)u * WAFER_NDIR + (size_t)dir);
            if (along_y)
                y += dy > y ? 1 : -1;
            else
                x += dx > x ? 1 : -1;
        }
    }
    return 1;
}

/* On a mesh without faults: 1 when link (a, dir) is on the path s -> d. */
static int on_path(const wafer *wf, int s, int d, int y_first, int a, int dir)
{
    int sx = wafer_x(wf, s), sy = wafer_y(wf, s), dx = wafer_x(wf, d), dy = wafer_y(wf, d);
    int ax = wafer_x(wf, a), ay = wafer_y(wf, a);
    int row = y_first ? dy : sy, col = y_first ? sx : dx; /* the x leg's row, the y leg's column */
    switch (dir) {
    case WAFER_E: return ay == row && sx <= ax && ax < dx;
    case WAFER_W: return ay == row && dx < ax && ax <= sx;
    case WAFER_S: return ax == col && sy <= ay && ay < dy;
    default: return ax == col && dy < ay && ay <= sy;
    }
}

typedef struct find_link {
    size_t slot;
    int hit;
} find_link;

static void find_visit(void *ud, size_t slot)
{
    find_link *f = ud;
    f->hit |= slot == f->slot;
}

/* The share (0, 1/2 or 1) of a flow s -> d routed with mode over link slot
 * l; -1 when the flow detours (faulty meshes only). */
static double flow_share(const wafer *wf, int faulty, int s, int d, route_mode mode, size_t l)
{
    int a = (int)(l / WAFER_NDIR), dir = (int)(l % WAFER_NDIR);
    double share = 0;
    for (int y_first = 0; y_first < 2; y_first++) {
        if (mode != ROUTE_BALANCED && y_first != (mode == ROUTE_YX))
            continue;
        double part = mode == ROUTE_BALANCED ? 0.5 : 1;
        if (!faulty) {
            share += part * on_path(wf, s, d, y_first, a, dir);
            continue;
        }
        find_link f = {l, 0};
        int order = y_first; /* route.c: its own order while usable, else the other */
        if (!walk(wf, s, d, order, NULL, NULL) && !walk(wf, s, d, order = !order, NULL, NULL))
            return -1;
        walk(wf, s, d, order, find_visit, &f);
        share += part * f.hit;
    }
    return share;
}

/* A growing list of loads. */
typedef struct load_list {
    group_load *at;
    int n, cap;
} load_list;

static int add_load(load_list *L, int phase, int kind, int grp, double bytes, wt_err *e)
{
    for (int i = L->n - 1; i >= 0 && L->at[i].phase == phase; i--)
        if (L->at[i].kind == kind && L->at[i].group == grp) {
            L->at[i].bytes += bytes;
            return WT_OK;
        }
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 16;
        group_load *at = realloc(L->at, (size_t)cap * sizeof *at);
        if (!at)
            return wt_oom(e, "link loads");
        L->at = at;
        L->cap = cap;
    }
    L->at[L->n++] = (group_load){phase, kind, grp, bytes};
    return WT_OK;
}

/* The load of pattern p on link slot l, bytes per byte of coef. */
static double pattern_load(const sim_pattern *p, size_t l)
{
    int lo = 0, hi = p->nnz;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((size_t)p->link[mid] < l)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nnz && (size_t)p->link[lo] == l ? p->load[lo] : 0;
}

/* The groups of pattern pi whose flows cross link slot l, each with its
 * share (flows, halves for balanced routing), into *out (allocated, the
 * caller frees it); the store's pattern is one entry of group -1. */
typedef struct group_share {
    int group;
    double share;
} group_share;

static int pattern_shares(const sim_result *r, int pi, size_t l, int faulty, group_share **out, int *n, wt_err *e)
{
    const sim_pattern *p = &r->patterns[pi];
    *out = NULL;
    *n = 0;
    double load = pattern_load(p, l);
    if (load == 0)
        return WT_OK;
    if (p->kind == CG_STORE) {
        if (!(*out = malloc(sizeof **out)))
            return wt_oom(e, "link loads");
        (*out)[(*n)++] = (group_share){-1, load};
        return WT_OK;
    }
    pass_groups pg;
    int rc = pass_build(r, p->kind, p->pass, &pg, e);
    if (rc == WT_OK && !(*out = malloc((size_t)pg.g.ngroups * sizeof **out + 1)))
        rc = wt_oom(e, "link loads");
    int two_way = coll_pass_two_way(p->pass);
    for (int grp = p->wave; rc == WT_OK && grp < pg.g.ngroups; grp += p->nwaves) {
        const int *unit = pg.g.unit + (size_t)grp * (size_t)pg.g.size;
        const int *nx = pg.next + (size_t)grp * (size_t)pg.g.size;
        double share = 0;
        for (int m = 0; m < pg.g.size; m++)
            for (int back = 0; nx[m] != m && back <= two_way; back++) {
                double f = back ? flow_share(r->wf, faulty, unit[nx[m]], unit[m], p->mode, l)
                                : flow_share(r->wf, faulty, unit[m], unit[nx[m]], p->mode, l);
                share += f > 0 ? f : 0; /* a detour: untraced */
            }
        if (share > 0)
            (*out)[(*n)++] = (group_share){grp, share};
    }
    pass_free(&pg);
    return rc;
}

static int load_order(const void *a, const void *b)
{
    const group_load *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->phase != y->phase)
        return x->phase - y->phase;
    return x->group - y->group;
}

int group_link_loads(const sim_result *r, size_t l, group_load *out, int max, int *n, double *untraced,
                     wt_err *e)
{
    load_list L = {0};
    group_share **shares = calloc((size_t)r->npatterns + 1, sizeof *shares);
    int *nshares = calloc((size_t)r->npatterns + 1, sizeof *nshares);
    int faulty = mesh_faulty(r->wf), rc = shares && nshares ? WT_OK : wt_oom(e, "link loads");
    for (int pi = 0; rc == WT_OK && pi < r->npatterns; pi++)
        rc = pattern_shares(r, pi, l, faulty, &shares[pi], &nshares[pi], e);
    double traced = 0, total = 0;
    for (int ph = 0; rc == WT_OK && ph < r->nphases; ph++) {
        const sim_phase *phase = &r->phases[ph];
        for (int t = 0; rc == WT_OK && t < phase->nterms; t++) {
            int pi = phase->terms[t].pattern, kind = r->patterns[pi].kind;
            double scale = phase->terms[t].coef * phase->count;
            total += scale * pattern_load(&r->patterns[pi], l);
            for (int k = 0; rc == WT_OK && k < nshares[pi]; k++) {
                traced += scale * shares[pi][k].share;
                rc = add_load(&L, ph, kind, shares[pi][k].group, scale * shares[pi][k].share, e);
            }
        }
    }
    if (rc == WT_OK) {
        *untraced = total - traced > 1e-9 * total ? total - traced : 0;
        *n = L.n;
        if (L.n) { /* qsort and memcpy take no NULL, even for nothing */
            qsort(L.at, (size_t)L.n, sizeof *L.at, load_order);
            memcpy(out, L.at, (size_t)(L.n < max ? L.n : max) * sizeof *out);
        }
    }
    for (int pi = 0; shares && pi < r->npatterns; pi++)
        free(shares[pi]);
    free(shares);
    free(nshares);
    free(L.at);
    return rc;
}

/* Link slots, appended. */
typedef struct slot_list {
    int *at;
    int n, cap, failed;
} slot_list;

static void slot_visit(void *ud, size_t slot)
{
    slot_list *s = ud;
    if (s->failed)
        return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        int *at = realloc(s->at, (size_t)cap * sizeof *at);
        if (!at) {
            s->failed = 1;
            return;
        }
        s->at = at;
        s->cap = cap;
    }
    s->at[s->n++] = (int)slot;
}

static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The links group grp's flows load in pattern p (with its routing), into S. */
static void group_pattern_links(const sim_result *r, const sim_pattern *p, const pass_groups *pg, int grp,
                                slot_list *S)
{
    const int *unit = pg->g.unit + (size_t)grp * (size_t)pg->g.size;
    const int *nx = pg->next + (size_t)grp * (size_t)pg->g.size;
    int two_way = coll_pass_two_way(p->pass);
    for (int m = 0; m < pg->g.size; m++) {
        if (nx[m] == m)
            continue;
        for (int back = 0; back <= two_way; back++) {
            int s = back ? unit[nx[m]] : unit[m], d = back ? unit[m] : unit[nx[m]];
            for (int y_first = 0; y_first < 2; y_first++) {
                if (p->mode != ROUTE_BALANCED && y_first != (p->mode == ROUTE_YX))
                    continue;
                int order = y_first;
                if (!walk(r->wf, s, d, order, NULL, NULL))
                    order = !order;
                walk(r->wf, s, d, order, slot_visit, S);
            }
        }
    }
}

const char *group_kind_name(int kind)
{
    static const char *const outlines[] = {"tatp", "stage", "subgroup"};
    return kind < CG_NKIND ? coll_kind_name(kind) : outlines[kind - CG_NKIND];
}

/* The collective's group of kind around unit u: its index into g, its
 * members in ring order. */
static int coll_members(const sim_result *r, int u, int kind, group *g, wt_err *e)
{
    coll_groups cg;
    int rc = coll_groups_build(&cg, kind, &r->plan, r->wf, e);
    if (rc != WT_OK)
        return rc;
    int at = 0, members = cg.ngroups * cg.size;
    while (at < members && cg.unit[at] != u)
        at++;
    if (cg.size < 2 || at == members) {
        coll_groups_free(&cg);
        return wt_fail(e, "%s groups have one member", coll_kind_name(kind));
    }
    g->index = at / cg.size;
    g->size = cg.size;
    if (!(g->units = malloc((size_t)cg.size * sizeof *g->units)))
        rc = wt_oom(e, "a group");
    for (int i = 0; g->units && i < cg.size; i++)
        g->units[i] = cg.unit[(size_t)g->index * (size_t)cg.size + (size_t)cg.ring[i]];
    coll_groups_free(&cg);
    return rc;
}

/* An outline's members in rank order: the ranks whose indices equal
 * rank's in every dimension of `same` (bit per place_dim), or, for the
 * subgroup window, the ranked units of the sub_w x sub_h window around u. */
static int outline_members(const sim_result *r, int u, int rank, int kind, group *g, wt_err *e)
{
    const plan *p = &r->plan;
    int mine[NDIM], idx[NDIM], x0 = wafer_x(r->wf, u) / r->s.sub_w * r->s.sub_w,
                               y0 = wafer_y(r->wf, u) / r->s.sub_h * r->s.sub_h;
    unsigned same = kind == GROUP_TATP ? ~(1u << DIM_TATP) : 1u << DIM_PP;
    place_index_of(p, rank, mine);
    if (kind == GROUP_STAGE && p->size[DIM_PP] < 2)
        return wt_fail(e, "there is one pipeline stage");
    if (!(g->units = malloc((size_t)p->nranks * sizeof *g->units)))
        return wt_oom(e, "a group");
    for (int k = 0; k < p->nranks; k++) {
        int v = p->unit[k], in = 1;
        if (kind == GROUP_SUBGROUP) {
            int x = wafer_x(r->wf, v), y = wafer_y(r->wf, v);
            in = x >= x0 && x < x0 + r->s.sub_w && y >= y0 && y < y0 + r->s.sub_h;
        } else {
            place_index_of(p, k, idx);
            for (int d = 0; d < NDIM && in; d++)
                in = !(same >> d & 1) || idx[d] == mine[d];
        }
        if (in)
            g->units[g->size++] = v;
    }
    if (g->size < 2)
        return wt_fail(e, kind == GROUP_TATP ? "the TATP grid has one member"
                                             : "the subgroup window holds one ranked unit");
    g->index = kind == GROUP_STAGE ? mine[DIM_PP] : kind == GROUP_TATP ? rank / p->size[DIM_TATP] : 0;
    return WT_OK;
}

/* The links of the groups of pattern p whose first member is marked. */
static int marked_links(const sim_result *r, const sim_pattern *p, const unsigned char *mark, slot_list *S,
                        wt_err *e)
{
    pass_groups pg;
    int rc = pass_build(r, p->kind, p->pass, &pg, e);
    for (int grp = p->wave; rc == WT_OK && grp < pg.g.ngroups; grp += p->nwaves)
        if (mark[pg.g.unit[(size_t)grp * (size_t)pg.g.size]])
            group_pattern_links(r, p, &pg, grp, S);
    pass_free(&pg);
    return rc;
}

int group_of_unit(const sim_result *r, int u, int kind, group *g, wt_err *e)
{
    memset(g, 0, sizeof *g);
    g->kind = kind;
    int rank = r->plan.rank ? r->plan.rank[u] : -1;
    if (rank < 0)
        return wt_fail(e, "unit %d,%d has no rank", wafer_x(r->wf, u), wafer_y(r->wf, u));
    int rc = kind < CG_NKIND ? coll_members(r, u, kind, g, e) : outline_members(r, u, rank, kind, g, e);
    /* the links: a collective's group's own; the TATP grid's rows' and columns' */
    unsigned char *mark = rc == WT_OK && kind == GROUP_TATP ? calloc(wafer_nunits(r->wf), 1) : NULL;
    if (rc == WT_OK && kind == GROUP_TATP && !mark)
        rc = wt_oom(e, "a group");
    for (int i = 0; mark && i < g->size; i++)
        mark[g->units[i]] = 1;
    slot_list S = {0};
    for (int pi = 0; rc == WT_OK && pi < r->npatterns; pi++) {
        const sim_pattern *p = &r->patterns[pi];
        if (mark && (p->kind == CG_TATP_ROW || p->kind == CG_TATP_COL)) {
            rc = marked_links(r, p, mark, &S, e);
            continue;
        }
        if (p->kind != kind || g->index % p->nwaves != p->wave)
            continue;
        pass_groups pg;
        if ((rc = pass_build(r, kind, p->pass, &pg, e)) != WT_OK)
            break;
        group_pattern_links(r, p, &pg, g->index, &S);
        pass_free(&pg);
    }
    free(mark);
    if (rc == WT_OK && S.failed)
        rc = wt_oom(e, "a group's links");
    if (rc != WT_OK) {
        free(S.at);
        group_free(g);
        return rc;
    }
    if (S.n)
        qsort(S.at, (size_t)S.n, sizeof *S.at, int_order);
    int n = 0;
    for (int i = 0; i < S.n; i++)
        if (!n || S.at[i] != S.at[n - 1])
            S.at[n++] = S.at[i];
    g->links = S.at;
    g->nlinks = n;
    return WT_OK;
}

void group_free(group *g)
{
    free(g->units);
    free(g->links);
    memset(g, 0, sizeof *g);
}
