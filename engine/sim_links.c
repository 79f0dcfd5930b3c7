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
#include <string.h>

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

/* The marks (0 or 1 each) among the n at m, eight at a time: a word's
 * bytes summed by one multiplication. */
static int count_marks(const unsigned char *m, size_t n)
{
    int count = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, m + i, 8);
        count += (int)((w * 0x0101010101010101u) >> 56);
    }
    for (; i < n; i++)
        count += m[i];
    return count;
}

/* Marks the links of one range that some pattern loads and counts them. */
static void loaded_mark(void *ctx, int part)
{
    loaded_job *j = ctx;
    size_t a, b;
    loaded_range(j, part, &a, &b);
    unsigned char *marks = j->marks;
    for (int p = 0; p < j->r->npatterns; p++) {
        const sim_pattern *pat = &j->r->patterns[p];
        const int *link = pat->link;
        int end = sim_pattern_first(pat, (int)b);
        for (int k = sim_pattern_first(pat, (int)a); k < end; k++)
            marks[link[k]] = 1;
    }
    j->at[part + 1] = count_marks(j->marks + a, b - a);
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
                    .nparts = par_chunks(entries)};
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

/* The mean utilisation sums over every usable link in slot order with the
 * loaded ones alone: another link adds an exact 0, which leaves the sum as
 * it is. That sum is one walk, which cannot split; the rest can. */
typedef struct bytes_job {
    sim_result *r;
    const double *class_sum; /* by class of r->reps: bytes, then utilisation */
    const double *class_util; /* (negative on unusable links) */
    int nparts;
} bytes_job;

/* Each link's bytes summed in pattern order over the range's link slots
 * (only the loaded links hold bytes: a result timed again keeps its
 * patterns, and starts from 0 at those, or at every slot of the range
 * where its array came uncleared). */
static void bytes_of_patterns(void *ctx, int part)
{
    bytes_job *j = ctx;
    sim_result *r = j->r;
    size_t i0, i1;
    par_range((size_t)r->nloaded, part, j->nparts, &i0, &i1);
    int cleared = sim_zero_slots(r, r->link_bytes, sizeof *r->link_bytes, part, j->nparts);
    if (i0 == i1)
        return;
    int a = r->loaded[i0], b = r->loaded[i1 - 1] + 1;
    for (size_t i = i0; i < i1 && !cleared; i++)
        r->link_bytes[r->loaded[i]] = 0;
    for (int p = 0; p < r->npatterns; p++) {
        const sim_pattern *pat = &r->patterns[p];
        for (int k = sim_pattern_first(pat, a); k < pat->nnz && pat->link[k] < b; k++)
            r->link_bytes[pat->link[k]] += pat->step_coef * pat->load[k];
    }
}

/* The mean and largest utilisation from each link's bytes. */
static void utils_of_links(sim_result *r, const net_bw *bw, int usable)
{
    double sum = 0, per_step = 1 / r->step_time_s;
    r->max_link_util = 0;
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
    r->mean_link_util = usable ? sum / usable : 0;
}

/* By class: part 0 sums the utilisation of each link's class, the others
 * copy each class's bytes to its links; alone, part 0 does both in one
 * walk. */
static void bytes_of_classes(void *ctx, int part)
{
    bytes_job *j = ctx;
    sim_result *r = j->r;
    const int *of = r->reps->cl.of;
    int alone = j->nparts == 1;
    if (alone)
        sim_zero_slots(r, r->link_bytes, sizeof *r->link_bytes, 0, 1);
    if (part == 0) {
        double sum = 0;
        for (int i = 0; i < r->nloaded; i++) {
            int f = of[r->loaded[i]];
            if (alone)
                r->link_bytes[r->loaded[i]] = j->class_sum[f];
            sum += j->class_util[f] >= 0 ? j->class_util[f] : 0;
        }
        r->mean_link_util = sum;
        return;
    }
    size_t i0, i1;
    par_range((size_t)r->nloaded, part - 1, j->nparts - 1, &i0, &i1);
    sim_zero_slots(r, r->link_bytes, sizeof *r->link_bytes, part - 1, j->nparts - 1);
    for (size_t i = i0; i < i1; i++)
        r->link_bytes[r->loaded[i]] = j->class_sum[of[r->loaded[i]]];
}

/* Each class's bytes over the step, its loads in the order the patterns
 * give them (sim_reps), into sum[cl.n], and its utilisation as
 * utils_of_links computes it at a link into util[cl.n]. */
static void class_sums(const sim_result *r, double *sum, double *util)
{
    const sim_reps *s = r->reps;
    for (int f = 0; f < s->cl.n; f++) {
        sum[f] = 0;
        for (int j = s->cstart[f]; j < s->cstart[f + 1]; j++)
            sum[f] += r->patterns[s->cpat[j]].step_coef * s->cload[j];
        util[f] = s->cl.inv[f] > 0 ? sum[f] * s->cl.inv[f] * (1 / r->step_time_s) : -1;
    }
}

int sim_step_links(sim_result *r, const net_bw *bw, int usable, wt_err *e)
{
    const sim_reps *s = r->reps;
    if (!s) {
        bytes_job j = {.r = r, .nparts = par_chunks(sim_entries(r))};
        par_run(j.nparts, bytes_of_patterns, &j);
        utils_of_links(r, bw, usable);
        return WT_OK;
    }
    double *sum = malloc(2 * (size_t)s->cl.n * sizeof *sum);
    if (!sum)
        return wt_oom(e, "link bytes");
    bytes_job j = {.r = r, .class_sum = sum, .class_util = sum + s->cl.n, .nparts = par_chunks((size_t)r->nloaded)};
    class_sums(r, sum, sum + s->cl.n);
    par_run(j.nparts, bytes_of_classes, &j);
    r->mean_link_util = usable ? r->mean_link_util / usable : 0;
    r->max_link_util = 0;
    for (int f = 1; f < s->cl.n; f++) /* every class has loaded links */
        r->max_link_util = j.class_util[f] > r->max_link_util ? j.class_util[f] : r->max_link_util;
    free(sum);
    return WT_OK;
}

/* 1 when sim_links_alloc's arrays come uncleared: at least half the links
 * loaded. */
static int links_dense(const sim_result *r)
{
    return 2 * (size_t)r->nloaded >= wafer_nlinks(r->wf);
}

void *sim_links_alloc(const sim_result *r, size_t size)
{
    size_t nl = wafer_nlinks(r->wf);
    return links_dense(r) ? malloc(nl * size) : calloc(nl, size);
}

/* The slot where the part of the loaded links from index i on begins. */
static size_t slot_from(const sim_result *r, size_t i)
{
    return i < (size_t)r->nloaded ? (size_t)r->loaded[i] : wafer_nlinks(r->wf);
}

int sim_zero_slots(const sim_result *r, void *a, size_t size, int part, int nparts)
{
    if (!links_dense(r))
        return 0;
    size_t n = (size_t)r->nloaded;
    size_t lo = part == 0 ? 0 : slot_from(r, par_first(n, part, nparts));
    size_t hi = part == nparts - 1 ? wafer_nlinks(r->wf) : slot_from(r, par_first(n, part + 1, nparts));
    memset((char *)a + lo * size, 0, (hi - lo) * size);
    return 1;
}

size_t sim_entries(const sim_result *r)
{
    size_t n = 0;
    for (int p = 0; p < r->npatterns; p++)
        n += (size_t)r->patterns[p].nnz;
    return n;
}
