/*
 * flit_traffic.c - synthetic traffic for the flit level (contract in
 * flit_traffic.h).
 */
#include "flit_traffic.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

static const char *const names[FLIT_NPATTERNS] = {"uniform", "transpose", "bitcomp", "neighbor", "tornado"};

const char *flit_pattern_name(int pattern) { return pattern >= 0 && pattern < FLIT_NPATTERNS ? names[pattern] : "?"; }

int flit_pattern_find(const char *name)
{
    for (int i = 0; i < FLIT_NPATTERNS; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

const char *flit_pattern_names(void) { return "uniform, transpose, bitcomp, neighbor, tornado"; }

static int dest(int pattern, int w, int h, int src, uint64_t *rng)
{
    int x = src % w, y = src / w;
    switch (pattern) {
    case FLIT_UNIFORM: {
        int d = (int)(rng_unit(rng) * w * h);
        return d < w * h ? d : w * h - 1;
    }
    case FLIT_TRANSPOSE: return x * w + y;
    case FLIT_BITCOMP: return (h - 1 - y) * w + (w - 1 - x);
    case FLIT_NEIGHBOR: return (y + 1) % h * w + (x + 1) % w;
    default: return (y + (h + 1) / 2 - 1) % h * w + (x + (w + 1) / 2 - 1) % w;
    }
}

static int check(int w, int h, int pattern, int flits, wt_err *e)
{
    if (w < 1 || h < 1 || (long long)w * h > 1 << 24)
        return wt_fail(e, "a %dx%d mesh: 1x1 up to 16 M units", w, h);
    if (pattern < 0 || pattern >= FLIT_NPATTERNS)
        return wt_fail(e, "pattern %d: one of %s", pattern, flit_pattern_names());
    if (pattern == FLIT_TRANSPOSE && w != h)
        return wt_fail(e, "transpose: the mesh must be square, not %dx%d", w, h);
    if (flits < 1)
        return wt_fail(e, "%d flits a packet: at least 1", flits);
    return WT_OK;
}

int flit_traffic_batch(int w, int h, int pattern, int packets, int flits, uint64_t seed, flit_packet **out,
                       int *np, wt_err *e)
{
    *out = NULL;
    *np = 0;
    int rc = check(w, h, pattern, flits, e);
    if (rc != WT_OK)
        return rc;
    long long n = (long long)w * h * packets;
    if (packets < 1 || n > 1 << 28)
        return wt_fail(e, "%d packets a unit on %dx%d: 1 up to %d in all", packets, w, h, 1 << 28);
    flit_packet *p = calloc((size_t)n, sizeof *p);
    if (!p)
        return wt_oom(e, "batch traffic");
    uint64_t rng = seed ? seed : 1;
    int k = 0;
    for (int c = 0; c < packets; c++)
        for (int s = 0; s < w * h; s++)
            p[k++] = (flit_packet){.src = s, .dst = dest(pattern, w, h, s, &rng), .flits = flits, .created = c};
    *out = p;
    *np = k;
    return WT_OK;
}

int flit_traffic_rate(int w, int h, int pattern, double rate, int flits, long long cycles, uint64_t seed,
                      flit_packet **out, int *np, wt_err *e)
{
    *out = NULL;
    *np = 0;
    int rc = check(w, h, pattern, flits, e);
    if (rc != WT_OK)
        return rc;
    if (!(rate > 0 && rate <= 1) || cycles < 1 || (double)cycles * w * h > (double)(1LL << 31))
        return wt_fail(e, "rate %g over %lld cycles on %dx%d: a rate in (0, 1], at least a cycle, at most 2^31 "
                          "unit-cycles", rate, cycles, w, h);
    double expect = rate * (double)cycles * w * h;
    if (expect > (double)(1 << 27))
        return wt_fail(e, "%.0f packets expected: at most %d", expect, 1 << 27);
    int cap = (int)(expect * 1.1) + 64, k = 0;
    flit_packet *p = malloc((size_t)cap * sizeof *p);
    if (!p)
        return wt_oom(e, "rate traffic");
    uint64_t rng = seed ? seed : 1;
    for (long long t = 0; t < cycles; t++)
        for (int s = 0; s < w * h; s++) {
            if (rng_unit(&rng) >= rate)
                continue;
            if (k == cap) {
                flit_packet *grown = realloc(p, (size_t)cap * 2 * sizeof *p);
                if (!grown) {
                    free(p);
                    return wt_oom(e, "rate traffic");
                }
                p = grown;
                cap *= 2;
            }
            p[k++] = (flit_packet){.src = s, .dst = dest(pattern, w, h, s, &rng), .flits = flits, .created = t};
        }
    *out = p;
    *np = k;
    return WT_OK;
}

void flit_latency(const flit_packet *p, int np, long long from, long long to, int *n, int *arrived, double *latency,
                  double *hops)
{
    double lat = 0, hop = 0;
    int count = 0, done = 0;
    for (int i = 0; i < np; i++) {
        if (p[i].created < from || p[i].created >= to)
            continue;
        count++;
        if (p[i].arrived < 0)
            continue;
        done++;
        lat += (double)(p[i].arrived - p[i].created);
        hop += p[i].hops;
    }
    *n = count;
    *arrived = done;
    *latency = done ? lat / done : 0;
    *hops = done ? hop / done : 0;
}
