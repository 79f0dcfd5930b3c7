/*
 * flow_pair.c - two classes sharing links, filled without per-link state
 * (contract in flow_int.h).
 *
 * flow.c's fill_level on one level of two loading classes a and b (a first)
 * takes two iterations at most, each freezing one class at least:
 *   1. sum(l) = 0 + la + lb (each when positive); rem(l) = 1 / inv(l); the
 *      step delta is the smallest rem / sum met walking a's links, then b's
 *      (a cap first for each); then rem -= delta * la over a's links, then
 *      rem -= delta * lb over b's; the link that set the step is emptied.
 *      b freezes on a full link of its own, a on one of its own after both
 *      subtractions (or either on its cap, or as the one that set the step).
 *   2. if one class r is left, the other's loads come off sum, and r's
 *      rate is t plus the smallest rem / sum over its links (or its cap).
 * Every value of a link is a function of la, lb and inv at that link, so
 * each walk of one list reads the other's load at the same link through a
 * cursor that only moves forward (pair_walk): the same arithmetic in the
 * same order, and nothing per link to allocate, fault in or clear.
 */
#include "flow_int.h"

#include <math.h>

#include "hot.h"

/* One list walked in order over its loaded links, the other's load at
 * each found by a cursor that only moves forward. */
typedef struct pair_walk {
    const net_bw *bw;
    const flow_class *x, *o; /* walked, other */
    int k, ko;               /* next entry of x; o's first entry not below it */
    int l, on;               /* the link reached, and whether o is on it */
    double lx, lo;           /* x's load there, o's (0 when not on it) */
    double inv, r0;          /* its 1 / bandwidth, and its bandwidth as a solve
                                sets it: 1 / inv, 0 unusable (a division only
                                where inv changes: most links share it) */
} pair_walk;

static pair_walk walk_of(const net_bw *bw, const flow_class *x, const flow_class *o)
{
    pair_walk w = {bw, x, o, 0, 0, -1, 0, 0, 0, -1, 0};
    return w;
}

/* Each walk's loop must hold the walk in registers (WT_HOT). */

/* Moves to x's next link with a positive load; 0 at the end. */
WT_HOT int walk_next(pair_walk *w)
{
    while (w->k < w->x->nnz && !(w->x->load[w->k] > 0))
        w->k++;
    if (w->k == w->x->nnz)
        return 0;
    w->l = w->x->link[w->k];
    w->lx = w->x->load[w->k++];
    while (w->ko < w->o->nnz && w->o->link[w->ko] < w->l)
        w->ko++;
    w->on = w->ko < w->o->nnz && w->o->link[w->ko] == w->l;
    w->lo = w->on ? w->o->load[w->ko] : 0;
    double inv = net_bw_inv(w->bw, (size_t)w->l);
    if (inv != w->inv) {
        w->inv = inv;
        w->r0 = inv > 0 ? 1 / inv : 0;
    }
    return 1;
}

/* sum(l) after step 1's adds: a's load, then b's, each when positive. */
static double sum0(double la, double lb)
{
    double s = 0;
    if (la > 0)
        s += la;
    if (lb > 0)
        s += lb;
    return s;
}

/* rem(l) at the walk's link after step 1: a's subtraction where a is on
 * l, then b's. */
static double rem1(const pair_walk *w, double delta, double la, int on_a, double lb, int on_b, int arg_link)
{
    if (w->l == arg_link)
        return 0;
    double r = w->r0;
    if (on_a)
        r -= delta * la;
    if (on_b)
        r -= delta * lb;
    return r;
}

/* 1 when the list is strictly ascending within 0..nlinks-1. */
static int sorted(const flow_class *c, size_t nlinks)
{
    for (int k = 0; k < c->nnz; k++)
        if (c->link[k] < 0 || (size_t)c->link[k] >= nlinks || (k > 0 && c->link[k] <= c->link[k - 1]))
            return 0;
    return 1;
}

/* Step 1's walk of one class x (a when is_a): the cap, then every loaded
 * link's rem / sum, lowering *delta as fill_level does. */
static void walk_delta(const net_bw *bw, const flow_class *x, const flow_class *o, int is_a, double t,
                       double *delta, int *arg_link, int *arg_cls, int who)
{
    if (x->max_rate > 0 && x->max_rate - t < *delta) {
        *delta = x->max_rate - t;
        *arg_cls = who;
        *arg_link = -1;
    }
    for (pair_walk w = walk_of(bw, x, o); walk_next(&w);) {
        double s = is_a ? sum0(w.lx, w.lo) : sum0(w.lo, w.lx), r = w.r0;
        if (r < *delta * s) {
            *delta = r / s;
            *arg_link = w.l;
            *arg_cls = -1;
        }
    }
}

/* Whether a full link of x's (a when is_a) freezes it after step 1. */
static int walk_full(const net_bw *bw, const flow_class *x, const flow_class *o, int is_a, double delta,
                     int arg_link)
{
    for (pair_walk w = walk_of(bw, x, o); walk_next(&w);) {
        double left = is_a ? rem1(&w, delta, w.lx, 1, w.lo, w.on, arg_link)
                           : rem1(&w, delta, w.lo, w.on, w.lx, 1, arg_link);
        if (left * w.inv <= FLOW_EPS)
            return 1;
    }
    return 0;
}

/* Step 2: the rate of x (a when is_a), the one left, the other frozen. */
static double walk_last(const net_bw *bw, const flow_class *x, const flow_class *o, int is_a, double delta1,
                        int arg_link, double t)
{
    double delta = INFINITY;
    if (x->max_rate > 0 && x->max_rate - t < delta)
        delta = x->max_rate - t;
    for (pair_walk w = walk_of(bw, x, o); walk_next(&w);) {
        double la = is_a ? w.lx : w.lo, lb = is_a ? w.lo : w.lx;
        double s = sum0(la, lb), r = rem1(&w, delta1, la, is_a || w.on, lb, !is_a || w.on, arg_link);
        if (w.on)
            s -= w.lo; /* the frozen class's loads come off */
        if (r < delta * s)
            delta = r / s;
    }
    delta = fmax(delta, 0);
    t += delta;
    return x->max_rate > 0 ? fmin(t, x->max_rate) : t;
}

int flow_pair_solve(const net_bw *bw, size_t nlinks, const flow_class *a, const flow_class *b, double *ra,
                    double *rb)
{
    if (!sorted(a, nlinks) || !sorted(b, nlinks))
        return -1;
    double t = 0, delta = INFINITY;
    int arg_link = -1, arg_cls = -1;
    walk_delta(bw, a, b, 1, t, &delta, &arg_link, &arg_cls, 0);
    walk_delta(bw, b, a, 0, t, &delta, &arg_link, &arg_cls, 1);
    delta = fmax(delta, 0);
    t += delta;
    int frozen_b = arg_cls == 1 || (b->max_rate > 0 && t >= b->max_rate * (1 - FLOW_EPS)) ||
                   walk_full(bw, b, a, 0, delta, arg_link);
    int frozen_a = arg_cls == 0 || (a->max_rate > 0 && t >= a->max_rate * (1 - FLOW_EPS)) ||
                   walk_full(bw, a, b, 1, delta, arg_link);
    double at_t_a = a->max_rate > 0 ? fmin(t, a->max_rate) : t, at_t_b = b->max_rate > 0 ? fmin(t, b->max_rate) : t;
    *ra = frozen_a ? at_t_a : walk_last(bw, a, b, 1, delta, arg_link, t);
    *rb = frozen_b ? at_t_b : walk_last(bw, b, a, 0, delta, arg_link, t);
    return 0;
}
