/*
 * sim_links.c - the walks over every loaded link that an evaluation makes
 * after routing: the list of the loaded links, and the step's bytes and
 * utilisation at each (contract in sim_int.h).
 *
 * On a wafer these are millions of entries, so each walk splits into
 * contiguous ranges of link slots on the cores at once (par.h). A link's
 * figure depends on that link alone, and its bytes add up in pattern order
 * within its range, so every figure is the one a single walk gives, to the
 * bit; the one sum over links, the mean utilisation, stays one walk in link
 * order, reading a class's figure (a few hundred of them) instead of the
 * link's bytes where the links are classed.
 */
#include <stdint.h>
#include <stdlib.h>

#include "par.h"
#include "sim_int.h"

/* ---- the loaded links ------------------------------------------------- */

/* The slots r's patterns load lie in [lo, lo + span); each part marks and
 * lists its own range of them. */
typedef struct loaded_job {
    const sim_result *r;
    unsigned char *marks;   /* the context's, zero outside a call */
    size_t lo, span;
    int nparts;
    int at[PAR_MAX + 1];    /* where each part's links go in out[]: first their counts */
    int *out;
} loaded_job;

static void loaded_range(const loaded_job *j, int part, size_t *a, size_t *b)
{
    par_range(j->span, part, j->nparts, a, b);
    *a += j->lo;
    *b += j->lo;
}

/* Marks the links of one range that some pattern loads and counts them. */
static void loaded_mark(void *ctx, int part)
{
    loaded_job *j = ctx;
    size_t a, b;
    loaded_range(j, part, &a, &b);
    for (int p = 0; p < j->r->npatterns; p++) {
        const sim_pattern *pat = &j->r->patterns[p];
        for (int k = sim_pattern_first(pat, (int)a); k < pat->nnz && (size_t)pat->link[k] < b; k++)
            j->marks[pat->link[k]] = 1;
    }
    int n = 0;
    for (size_t l = a; l < b; l++)
        n += j->marks[l];
    j->at[part + 1] = n;
}

/* Lists one range's marked links in its place of out[], clearing them. */
static void loaded_list(void *ctx, int part)
{
    loaded_job *j = ctx;
    size_t a, b;
    loaded_range(j, part, &a, &b);
    int *out = j->out + j->at[part];
    for (size_t l = a; l < b; l++)
        if (j->marks[l]) {
            *out++ = (int)l;
            j->marks[l] = 0;
        }
}

int sim_list_loaded(sim_result *r, unsigned char *marks, wt_err *e)
{
    size_t lo = SIZE_MAX, hi = 0, entries = 0;
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        entries += (size_t)pat->nnz;
        if (pat->nnz > 0) { /* the lists are sorted */
            lo = (size_t)pat->link[0] < lo ? (size_t)pat->link[0] : lo;
            hi = (size_t)pat->link[pat->nnz - 1] > hi ? (size_t)pat->link[pat->nnz - 1] : hi;
        }
    }
    loaded_job j = {.r = r, .marks = marks, .lo = lo, .span = lo != SIZE_MAX ? hi - lo + 1 : 0,
                    .nparts = par_parts(entries)};
    par_run(j.nparts, loaded_mark, &j);
    for (int part = 0; part < j.nparts; part++)
        j.at[part + 1] += j.at[part];
    j.out = malloc((size_t)j.at[j.nparts] * sizeof *j.out + 1);
    if (!j.out) {
        for (size_t l = j.lo; l < j.lo + j.span; l++)
            marks[l] = 0;
        return wt_oom(e, "loaded links");
    }
    par_run(j.nparts, loaded_list, &j);
    r->loaded = j.out;
    r->nloaded = j.at[j.nparts];
    return WT_OK;
}

/* ---- the step's bytes and utilisation --------------------------------- */

/* Each part writes the bytes of the loaded links r->loaded[i0 .. i1). */
typedef struct bytes_job {
    sim_result *r;
    const double *class_sum; /* by class of r->reps, or NULL: summed from the patterns */
    int nparts;
} bytes_job;


/* A class's sum copied to each of its links. */
static void bytes_of_classes(void *ctx, int part)
{
    bytes_job *j = ctx;
    sim_result *r = j->r;
    const int *of = r->reps->cl.of;
    size_t i0, i1;
    par_range((size_t)r->nloaded, part, j->nparts, &i0, &i1);
    for (size_t i = i0; i < i1; i++)
        r->link_bytes[r->loaded[i]] = j->class_sum[of[r->loaded[i]]];
}

/* Each link's bytes summed in pattern order over the range's link slots
 * (only the loaded links hold bytes: a result timed again keeps its
 * patterns, and starts from 0 at those). */
static void bytes_of_patterns(void *ctx, int part)
{
    bytes_job *j = ctx;
    sim_result *r = j->r;
    size_t i0, i1;
    par_range((size_t)r->nloaded, part, j->nparts, &i0, &i1);
    if (i0 == i1)
        return;
    int a = r->loaded[i0], b = r->loaded[i1 - 1] + 1;
    for (size_t i = i0; i < i1; i++)
        r->link_bytes[r->loaded[i]] = 0;
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        for (int k = sim_pattern_first(pat, a); k < pat->nnz && pat->link[k] < b; k++)
            r->link_bytes[pat->link[k]] += pat->step_coef * pat->load[k];
    }
}

/* Each class's bytes over the step, its loads in the order the patterns
 * give them (sim_reps), into sum[cl.n]. */
static void class_sums(const sim_result *r, double *sum)
{
    const sim_reps *s = r->reps;
    for (int f = 0; f < s->cl.n; f++) {
        sum[f] = 0;
        for (int j = s->cstart[f]; j < s->cstart[f + 1]; j++)
            sum[f] += r->patterns[s->cpat[j]].step_coef * s->cload[j];
    }
}

/* The mean and largest utilisation over the step, one link at a time in
 * slot order. The mean sums over every usable link with the loaded ones
 * alone: another link adds an exact 0, which leaves the sum as it is. A
 * class's links share their utilisation (util[f], negative on unusable
 * links) when the links are classed, else it is each link's own. */
static void step_utils(sim_result *r, const net_bw *bw, int usable, const double *util)
{
    double sum = 0, per_step = 1 / r->step_time_s;
    r->max_link_util = 0;
    if (util) {
        const int *of = r->reps->cl.of;
        for (int i = 0; i < r->nloaded; i++) {
            double u = util[of[r->loaded[i]]];
            sum += u >= 0 ? u : 0;
        }
        for (int f = 1; f < r->reps->cl.n; f++)
            r->max_link_util = util[f] > r->max_link_util ? util[f] : r->max_link_util;
    } else {
        for (int i = 0; i < r->nloaded; i++) {
            size_t l = (size_t)r->loaded[i];
            double inv = net_bw_inv(bw, l);
            if (inv <= 0)
                continue;
            double u = r->link_bytes[l] * inv * per_step;
            sum += u;
            if (u > r->max_link_util)
                r->max_link_util = u;
        }
    }
    r->mean_link_util = usable ? sum / usable : 0;
}

int sim_step_links(sim_result *r, const net_bw *bw, int usable, wt_err *e)
{
    const sim_reps *s = r->reps;
    double *sum = s ? malloc(2 * (size_t)s->cl.n * sizeof *sum) : NULL;
    if (s && !sum)
        return wt_oom(e, "link bytes");
    bytes_job j = {.r = r, .class_sum = sum, .nparts = par_parts(s ? (size_t)r->nloaded : sim_entries(r))};
    double *util = NULL;
    if (s) {
        class_sums(r, sum);
        util = sum + s->cl.n;
        for (int f = 0; f < s->cl.n; f++) /* as step_utils computes it at a link */
            util[f] = s->cl.inv[f] > 0 ? sum[f] * s->cl.inv[f] * (1 / r->step_time_s) : -1;
    }
    par_run(j.nparts, s ? bytes_of_classes : bytes_of_patterns, &j);
    step_utils(r, bw, usable, util);
    free(sum);
    return WT_OK;
}

size_t sim_entries(const sim_result *r)
{
    size_t n = 0;
    for (int p = 0; p < r->npatterns; p++)
        n += (size_t)r->patterns[p].nnz;
    return n;
}
