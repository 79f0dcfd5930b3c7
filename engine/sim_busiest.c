/*
 * sim_busiest.c - each phase's busiest link: the link whose bytes of one
 * occurrence (its terms summed link by link) take longest at its bandwidth.
 *
 * Terms on patterns that share no link peak separately: the largest of
 * each pattern's own peak (kept from routing) times its coefficient.
 * Otherwise, on a wafer, the result's link classes (sim_classes.c) hold
 * each link's loads from every timed pattern and its bandwidth: a class's
 * sum is its links', and its lowest link the one the ties go to, so the
 * classes (hundreds) are summed instead of the links (millions). Else the
 * patterns' sorted lists are merged, so each link's sum is gathered in one
 * place, in ascending slot order and pattern order, with nothing per link
 * to fault in or clear. Phases with the same patterns in the same order (a
 * layer's forward and backward passes beside the same stream, with other
 * bytes) share one merge or one walk of the classes: its cost is the
 * walking, not the arithmetic each phase repeats.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* A phase's terms by pattern: its distinct patterns in the order of its
 * terms, each with its coefficients summed. */
typedef struct phase_sum {
    int n;
    int pat[SIM_MAX_TERMS];
    double coef[SIM_MAX_TERMS];
} phase_sum;

static void phase_gather(const sim_phase *ph, phase_sum *s)
{
    s->n = 0;
    for (int i = 0; i < ph->nterms; i++) {
        int k = 0;
        while (k < s->n && s->pat[k] != ph->terms[i].pattern)
            k++;
        if (k == s->n) {
            s->pat[s->n] = ph->terms[i].pattern;
            s->coef[s->n++] = 0;
        }
        s->coef[k] += ph->terms[i].coef;
    }
}

/* 1 when patterns a and b of r load no common link: their solved lists
 * (sim_pattern_solved, sorted) share no slot, as a class is all of its
 * links' patterns. */
static int patterns_disjoint(const sim_result *r, int a, int b)
{
    const int *la, *lb;
    const double *wa, *wb;
    int na, nb, i = 0, j = 0;
    sim_pattern_solved(r, a, &la, &wa, &na);
    sim_pattern_solved(r, b, &lb, &wb, &nb);
    while (i < na && j < nb) {
        if (la[i] == lb[j])
            return 0;
        if (la[i] < lb[j])
            i++;
        else
            j++;
    }
    return 1;
}

/* Pairwise overlap of patterns a and b, computed on first need and kept in
 * ov[a * npatterns + b] (0 unknown, 1 disjoint, 2 overlapping) when ov is
 * not NULL. */
static int disjoint_pair(const sim_result *r, unsigned char *ov, int a, int b)
{
    if (!ov)
        return patterns_disjoint(r, a, b);
    unsigned char *o = &ov[(size_t)a * (size_t)r->npatterns + (size_t)b];
    if (!*o)
        *o = patterns_disjoint(r, a, b) ? 1 : 2;
    return *o == 1;
}

static int sum_disjoint(const sim_result *r, unsigned char *ov, const phase_sum *s)
{
    for (int a = 0; a < s->n; a++)
        for (int b = a + 1; b < s->n; b++)
            if (!disjoint_pair(r, ov, s->pat[a], s->pat[b]))
                return 0;
    return 1;
}

/*
 * The busiest link of each of m phases s[0..m) over the same patterns in
 * the same order, into best[j] (busy time) and busiest[j]. For each phase,
 * the first link of the largest busy time in the order a walk of the
 * patterns one after another meets them (pattern 0's links, then pattern
 * 1's not met before, ...) wins, so ties go where that walk sends them:
 * the best of the links each pattern meets first, then the first pattern
 * with the best of those.
 */
static void merged_busiest(const sim_result *r, const sim_ctx *c, const phase_sum *const *s, int m, double *best,
                           int *busiest)
{
    int n = s[0]->n;
    const int *li[SIM_MAX_TERMS], *end[SIM_MAX_TERMS];
    const double *ld[SIM_MAX_TERMS];
    int at[SIM_MAX_PHASES][SIM_MAX_TERMS];
    double most[SIM_MAX_PHASES][SIM_MAX_TERMS];
    for (int k = 0; k < n; k++) {
        const sim_pattern *p = &r->patterns[s[0]->pat[k]];
        li[k] = p->link;
        end[k] = p->link + p->nnz;
        ld[k] = p->load;
        for (int j = 0; j < m; j++) {
            at[j][k] = -1;
            most[j][k] = 0;
        }
    }
    for (;;) {
        int l = INT_MAX, q = 0, on[SIM_MAX_TERMS];
        double load[SIM_MAX_TERMS];
        for (int k = 0; k < n; k++)
            if (li[k] < end[k] && *li[k] < l)
                l = *li[k];
        if (l == INT_MAX)
            break;
        for (int k = 0; k < n; k++)
            if (li[k] < end[k] && *li[k] == l) {
                on[q] = k;
                load[q++] = *ld[k]++;
                li[k]++;
            }
        double inv = net_bw_inv(&c->bw, (size_t)l);
        int first = on[0];
        for (int j = 0; j < m; j++) {
            double sum = 0;
            for (int i = 0; i < q; i++)
                sum += s[j]->coef[on[i]] * load[i];
            double busy = sum * inv;
            if (busy > most[j][first] || at[j][first] < 0) { /* not fmax: a libm call per link */
                most[j][first] = busy;
                at[j][first] = l;
            }
        }
    }
    for (int j = 0; j < m; j++) {
        best[j] = 0;
        busiest[j] = -1;
        for (int k = 0; k < n; k++)
            if (at[j][k] >= 0 && (most[j][k] > best[j] || busiest[j] < 0)) {
                best[j] = most[j][k];
                busiest[j] = at[j][k];
            }
    }
}

/*
 * merged_busiest over r's link classes c: a class's links have the same
 * loads from each pattern, the same 1 / bandwidth and so the same busy
 * time in every phase (the same sum in the same order) and the same first
 * pattern; of the links of the largest busy time the merge keeps those of
 * the first pattern, then the lowest slot, so the classes of that time
 * give the same link: the first pattern's class with the lowest first
 * link. The phases' patterns must be timed ones (the classes hold no
 * other).
 */
static void class_busiest(const sim_result *r, const sim_link_classes *c, const phase_sum *const *s, int m,
                          double *best, int *busiest)
{
    int n = s[0]->n, top[SIM_MAX_PHASES]; /* the first pattern of the class holding busiest[j] */
    for (int j = 0; j < m; j++) {
        best[j] = 0;
        busiest[j] = -1;
        top[j] = n;
    }
    for (int k = 1; k < c->n; k++) {
        int q = 0, on[SIM_MAX_TERMS];
        double load[SIM_MAX_TERMS];
        for (int i = 0; i < n; i++) /* the patterns on the class, in the merge's order */
            for (int x = c->start[k]; x < c->start[k + 1]; x++) {
                const struct sim_class_load *cl = &c->load[x];
                if (r->phases[cl->phase].terms[cl->term].pattern == s[0]->pat[i]) {
                    on[q] = i;
                    load[q++] = cl->load;
                    break;
                }
            }
        for (int j = 0; j < m && q; j++) {
            double sum = 0;
            for (int i = 0; i < q; i++)
                sum += s[j]->coef[on[i]] * load[i];
            double busy = sum * c->inv[k];
            if (busiest[j] < 0 || busy > best[j] ||
                (busy == best[j] && (on[0] < top[j] || (on[0] == top[j] && c->first[k] < busiest[j])))) {
                best[j] = busy;
                busiest[j] = c->first[k];
                top[j] = on[0];
            }
        }
    }
}

/* A phase's busy time at its busiest link over the time it runs. */
static void phase_set(sim_phase *ph, double best, int busiest)
{
    ph->busiest_link = busiest;
    ph->max_link_util = ph->time_s > 0 ? best / fmax(ph->time_s, ph->comm_s) : 0;
}

int sim_busiest_links(sim_result *r, const sim_ctx *c, unsigned char *ov, wt_err *e)
{
    phase_sum sums[SIM_MAX_PHASES];
    int merge[SIM_MAX_PHASES]; /* 1: waits for a merge */
    for (int i = 0; i < r->nphases; i++) {
        sim_phase *ph = &r->phases[i];
        phase_sum *s = &sums[i];
        phase_gather(ph, s);
        merge[i] = s->n > 0 && !sum_disjoint(r, ov, s);
        if (merge[i] || !s->n) {
            phase_set(ph, 0, -1);
            continue;
        }
        double best = 0;
        int top = -1;
        for (int k = 0; k < s->n; k++)
            if (s->coef[k] * r->patterns[s->pat[k]].max_busy > best || top < 0) {
                best = s->coef[k] * r->patterns[s->pat[k]].max_busy;
                top = k;
            }
        phase_set(ph, best, r->patterns[s->pat[top]].busiest);
    }
    for (int i = 0; i < r->nphases; i++) {
        if (!merge[i])
            continue;
        const phase_sum *group[SIM_MAX_PHASES];
        int who[SIM_MAX_PHASES], m = 0, timed = 0;
        size_t entries = 0;
        for (int j = i; j < r->nphases; j++)
            if (merge[j] && sums[j].n == sums[i].n &&
                !memcmp(sums[j].pat, sums[i].pat, (size_t)sums[i].n * sizeof *sums[i].pat)) {
                group[m] = &sums[j];
                who[m++] = j;
                merge[j] = 0;
                timed |= r->phases[j].time_s > 0; /* then the classes hold all its patterns */
            }
        for (int k = 0; k < sums[i].n; k++)
            entries += (size_t)r->patterns[sums[i].pat[k]].nnz;
        double best[SIM_MAX_PHASES];
        int busiest[SIM_MAX_PHASES];
        if (timed && entries >= SIM_CLASSES_MIN) {
            int rc = sim_result_classes(r, e);
            if (rc != WT_OK)
                return rc;
            class_busiest(r, r->classes, group, m, best, busiest);
        } else
            merged_busiest(r, c, group, m, best, busiest);
        for (int j = 0; j < m; j++)
            phase_set(&r->phases[who[j]], best[j], busiest[j]);
    }
    return WT_OK;
}
