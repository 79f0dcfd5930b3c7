/*
 * sim_busiest.c - each phase's busiest link: the link whose bytes of one
 * occurrence (its terms summed link by link) take longest at its bandwidth.
 *
 * Terms on patterns that share no link peak separately: the largest of
 * each pattern's own peak (kept from routing) times its coefficient.
 * Otherwise the patterns' sorted lists are merged, so each link's sum is
 * gathered in one place, in ascending slot order and pattern order, with
 * nothing per link to fault in or clear on a wafer. Phases with the same
 * patterns in the same order (a layer's forward and backward passes beside
 * the same stream, with other bytes) share one merge: its cost is the
 * walking, not the arithmetic each phase repeats.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
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

/* 1 when two patterns load no common link (their link lists are sorted). */
static int patterns_disjoint(const sim_pattern *a, const sim_pattern *b)
{
    int i = 0, j = 0;
    while (i < a->nnz && j < b->nnz) {
        if (a->link[i] == b->link[j])
            return 0;
        if (a->link[i] < b->link[j])
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
        return patterns_disjoint(&r->patterns[a], &r->patterns[b]);
    unsigned char *o = &ov[(size_t)a * (size_t)r->npatterns + (size_t)b];
    if (!*o)
        *o = patterns_disjoint(&r->patterns[a], &r->patterns[b]) ? 1 : 2;
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

int sim_pattern_first(const sim_pattern *p, int lo)
{
    int a = 0, b = p->nnz;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (p->link[mid] < lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* A merge's figures over one range of links: for phase j and pattern k,
 * the first link met first in pattern k with the largest busy time of
 * phase j (at[j][k], -1 for none) and that time. */
typedef struct merge_part {
    int at[SIM_MAX_PHASES][SIM_MAX_TERMS];
    double most[SIM_MAX_PHASES][SIM_MAX_TERMS];
} merge_part;

typedef struct merge_job {
    const sim_result *r;
    const sim_ctx *c;
    const phase_sum *const *s;
    int m, nparts;
    merge_part part[PAR_MAX];
} merge_job;

/* The merge of the patterns' links in part `part` of the link slots. */
static void merge_range(void *ctx, int part)
{
    merge_job *job = ctx;
    const sim_result *r = job->r;
    const phase_sum *const *s = job->s;
    int n = s[0]->n, m = job->m;
    size_t nl = wafer_nlinks(r->wf);
    int lo = (int)par_first(nl, part, job->nparts), hi = (int)par_first(nl, part + 1, job->nparts);
    const int *li[SIM_MAX_TERMS], *end[SIM_MAX_TERMS];
    const double *ld[SIM_MAX_TERMS];
    int(*at)[SIM_MAX_TERMS] = job->part[part].at;
    double(*most)[SIM_MAX_TERMS] = job->part[part].most;
    for (int k = 0; k < n; k++) {
        const sim_pattern *p = &r->patterns[s[0]->pat[k]];
        int first = sim_pattern_first(p, lo);
        li[k] = p->link + first;
        end[k] = p->link + sim_pattern_first(p, hi);
        ld[k] = p->load + first;
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
        double inv = net_bw_inv(&job->c->bw, (size_t)l);
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
}

/*
 * The busiest link of each of m phases s[0..m) over the same patterns in
 * the same order, into best[j] (busy time) and busiest[j]. For each phase,
 * the first link of the largest busy time in the order a walk of the
 * patterns one after another meets them (pattern 0's links, then pattern
 * 1's not met before, ...) wins, so ties go where that walk sends them:
 * the best of the links each pattern meets first, then the first pattern
 * with the best of those. A wafer's merge splits into ranges of links
 * merged side by side (par.h), whose bests join in link order.
 */
static void merged_busiest(const sim_result *r, const sim_ctx *c, const phase_sum *const *s, int m, double *best,
                           int *busiest)
{
    merge_job job = {.r = r, .c = c, .s = s, .m = m};
    size_t entries = 0;
    for (int k = 0; k < s[0]->n; k++)
        entries += (size_t)r->patterns[s[0]->pat[k]].nnz;
    job.nparts = par_parts(entries);
    par_run(job.nparts, merge_range, &job);
    for (int j = 0; j < m; j++) {
        best[j] = 0;
        busiest[j] = -1;
        for (int k = 0; k < s[0]->n; k++)
            for (int part = 0; part < job.nparts; part++) { /* in link order: the first of equals stays */
                const merge_part *mp = &job.part[part];
                if (mp->at[j][k] >= 0 && (mp->most[j][k] > best[j] || busiest[j] < 0)) {
                    best[j] = mp->most[j][k];
                    busiest[j] = mp->at[j][k];
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

void sim_busiest_links(sim_result *r, const sim_ctx *c, unsigned char *ov)
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
        int who[SIM_MAX_PHASES], m = 0;
        for (int j = i; j < r->nphases; j++)
            if (merge[j] && sums[j].n == sums[i].n &&
                !memcmp(sums[j].pat, sums[i].pat, (size_t)sums[i].n * sizeof *sums[i].pat)) {
                group[m] = &sums[j];
                who[m++] = j;
                merge[j] = 0;
            }
        double best[SIM_MAX_PHASES];
        int busiest[SIM_MAX_PHASES];
        merged_busiest(r, c, group, m, best, busiest);
        for (int j = 0; j < m; j++)
            phase_set(&r->phases[who[j]], best[j], busiest[j]);
    }
}
