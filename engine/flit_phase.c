/*
 * flit_phase.c - one occurrence of a phase's traffic at flit level
 * (contract in flit_phase.h).
 */
#include "flit_phase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

static int fp_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The window: at most FLIT_MAX_SIDE a side, from corner x0,y0 when
 * x0 >= 0, else the whole mesh or centred on the phase's busiest link (the
 * mesh's centre without one), inside the mesh. */
static int fp_window(const sim_result *r, int busiest_link, int x0, int y0, flit_phase_out *o, wt_err *e)
{
    const wafer *wf = r->wf;
    o->w = wf->w < FLIT_MAX_SIDE ? wf->w : FLIT_MAX_SIDE;
    o->h = wf->h < FLIT_MAX_SIDE ? wf->h : FLIT_MAX_SIDE;
    if (x0 >= 0) {
        if (y0 < 0 || x0 + o->w > wf->w || y0 + o->h > wf->h)
            return wt_fail(e, "--flit-window %d,%d: a %dx%d window from there leaves the %dx%d mesh", x0, y0, o->w,
                           o->h, wf->w, wf->h);
        o->x0 = x0, o->y0 = y0;
        return WT_OK;
    }
    int cx = wf->w / 2, cy = wf->h / 2;
    if (busiest_link >= 0) {
        int u = busiest_link / WAFER_NDIR;
        cx = wafer_x(wf, u), cy = wafer_y(wf, u);
    }
    o->x0 = fp_clamp(cx - o->w / 2, 0, wf->w - o->w);
    o->y0 = fp_clamp(cy - o->h / 2, 0, wf->h - o->h);
    return WT_OK;
}

/* WT_OK when no unit of the window and no link between two of its units
 * has failed. */
static int fp_whole(const wafer *wf, const flit_phase_out *o, wt_err *e)
{
    for (int y = o->y0; y < o->y0 + o->h; y++)
        for (int x = o->x0; x < o->x0 + o->w; x++) {
            int u = wafer_unit(wf, x, y);
            if (wf->unit_dead[u])
                return wt_fail(e, "--net flit: unit %d,%d of the window %d,%d %dx%d has failed; the flit level "
                                  "routes whole meshes", x, y, o->x0, o->y0, o->w, o->h);
            for (int d = 0; d < WAFER_NDIR; d++) {
                int v = wafer_neighbor(wf, u, d);
                int vx = v < 0 ? -1 : wafer_x(wf, v), vy = v < 0 ? -1 : wafer_y(wf, v);
                int inside = vx >= o->x0 && vx < o->x0 + o->w && vy >= o->y0 && vy < o->y0 + o->h;
                if (inside && wf->link_dead[(size_t)u * WAFER_NDIR + (size_t)d])
                    return wt_fail(e, "--net flit: link %d,%d,%c of the window %d,%d %dx%d has failed; the flit "
                                      "level routes whole meshes", x, y, "EWNS"[d], o->x0, o->y0, o->w, o->h);
            }
        }
    return WT_OK;
}

/* The flows of pattern p inside the window, in its units (y * w + x from
 * its corner), each bytes x coef; counts the others in *out_of. */
static int fp_flows(const sim_result *r, int p, double coef, const flit_phase_out *o, route_flow **flows,
                    size_t *n, long long *out_of, wt_err *e)
{
    size_t all;
    int rc = traffic_flows(r, p, flows, &all, e);
    if (rc != WT_OK)
        return rc;
    const wafer *wf = r->wf;
    size_t k = 0;
    for (size_t i = 0; i < all; i++) {
        route_flow f = (*flows)[i];
        int sx = wafer_x(wf, f.src) - o->x0, sy = wafer_y(wf, f.src) - o->y0;
        int dx = wafer_x(wf, f.dst) - o->x0, dy = wafer_y(wf, f.dst) - o->y0;
        if (sx < 0 || sy < 0 || dx < 0 || dy < 0 || sx >= o->w || sy >= o->h || dx >= o->w || dy >= o->h) {
            (*out_of)++;
            continue;
        }
        (*flows)[k++] = (route_flow){sy * o->w + sx, dy * o->w + dx, f.bytes * coef};
    }
    *n = k;
    return WT_OK;
}

/* The packets of flows f[0..n) routed by mode at `scale` bytes per byte
 * simulated: a flow of b bytes is round(b / (scale x flit_bytes)) flits (at
 * least one), half of them X first and half Y first when balanced, in
 * packets of FLIT_PHASE_PACKET, its k-th packet created in cycle k, so
 * that a unit sending several flows takes turns between them. */
static flit_packet *fp_packets(const route_flow *f, size_t n, route_mode mode, double scale, int flit_bytes,
                               int *np)
{
    int halves = mode == ROUTE_BALANCED ? 2 : 1;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        long long flits = llround(f[i].bytes / halves / (scale * flit_bytes));
        count += (size_t)halves * (size_t)(((flits < 1 ? 1 : flits) + FLIT_PHASE_PACKET - 1) / FLIT_PHASE_PACKET);
    }
    flit_packet *p = count <= (size_t)1 << 28 ? malloc((count + 1) * sizeof *p) : NULL;
    if (!p)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (int h = 0; h < halves; h++) {
            long long flits = llround(f[i].bytes / halves / (scale * flit_bytes));
            flits = flits < 1 ? 1 : flits;
            for (long long c = 0; flits > 0; c++, flits -= FLIT_PHASE_PACKET)
                p[k++] = (flit_packet){.src = f[i].src,
                                       .dst = f[i].dst,
                                       .flits = (int)(flits < FLIT_PHASE_PACKET ? flits : FLIT_PHASE_PACKET),
                                       .yx = halves == 2 ? h : mode == ROUTE_YX,
                                       .created = c};
        }
    *np = (int)k;
    return p;
}

int flit_window_rates(const wafer *wf, int x0, int y0, int w, int h, double *bw, double *rate, double *top)
{
    *top = 0;
    for (int pass = 0; pass < 2; pass++) /* the fastest link, then each one's rate */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int d = 0; d < WAFER_NDIR; d++) {
                    size_t l = ((size_t)y * (size_t)w + (size_t)x) * WAFER_NDIR + (size_t)d;
                    int nx = x + (d == WAFER_E) - (d == WAFER_W), ny = y + (d == WAFER_S) - (d == WAFER_N);
                    int inside = nx >= 0 && ny >= 0 && nx < w && ny < h;
                    /* a link out of the window carries nothing: the on-wafer rate */
                    bw[l] = inside ? wafer_link_bw(wf, wafer_unit(wf, x0 + x, y0 + y), d) : wf->link_bw;
                    if (pass == 0)
                        *top = bw[l] > *top ? bw[l] : *top;
                    else
                        rate[l] = bw[l] / *top;
                }
    int slow = 0;
    for (size_t l = 0; l < (size_t)w * (size_t)h * WAFER_NDIR; l++)
        slow |= rate[l] < 1;
    return slow;
}

/* One pass: its flows' busiest link fixes the scale; the flit level's
 * figures add into the window's, weighted by the pass's scaled cycles.
 * bw and rate: flit_window_rates' (rate NULL when every link runs at one
 * flit a cycle). */
static int fp_pass(const sim_result *r, const route_flow *f, size_t n, const sim_pattern *pat,
                   const flit_phase_opts *opts, int link_flits, const double *bw, const double *rate,
                   flit_phase_out *o, double *load, double *busy, double *area, double *scaled, wt_err *e)
{
    const wafer *wf = r->wf;
    size_t nl = (size_t)o->w * (size_t)o->h * WAFER_NDIR;
    memset(load, 0, nl * sizeof *load);
    route_mode mode = pat->mode;
    double busiest = 0;
    int halves = mode == ROUTE_BALANCED ? 2 : 1;
    for (size_t i = 0; i < n; i++)
        for (int h = 0; h < halves; h++)
            flit_route_add(o->w, halves == 2 ? h : mode == ROUTE_YX, f[i].src, f[i].dst, f[i].bytes / halves, load);
    double bound = 0;
    for (size_t l = 0; l < nl; l++) {
        busiest = load[l] > busiest ? load[l] : busiest;
        bound = load[l] / bw[l] > bound ? load[l] / bw[l] : bound;
    }
    double scale = busiest / ((double)wf->flit_bytes * link_flits);
    scale = scale > 1 ? scale : 1;
    int np;
    flit_packet *p = fp_packets(f, n, mode, scale, wf->flit_bytes, &np);
    if (!p)
        return wt_oom(e, "flit level packets");
    flit_stats st;
    wt_err why;
    flit_run_opts ro = {opts->stop, rate};
    int rc = flit_run_with(o->w, o->h, &wf->router, p, np, 1LL << 40, &ro, &st, &why);
    free(p);
    if (rc != WT_OK) /* the layout's routers cannot take the pass (balanced on one VC) */
        return rc == WT_EINPUT ? wt_fail(e, "--net flit: %s", why.msg) : wt_oom(e, "flit level");
    double weight = (double)st.cycles * scale;
    for (size_t l = 0; l < nl; l++) {
        o->bytes[l] += (double)st.flits[l] * scale * wf->flit_bytes;
        busy[l] += (double)st.flits[l] * scale / (rate ? rate[l] : 1);
        area[l] += st.buffer_mean[l] * weight;
        o->buffer_peak[l] = st.buffer_peak[l] > o->buffer_peak[l] ? st.buffer_peak[l] : o->buffer_peak[l];
    }
    o->cycles += st.cycles;
    o->scale = scale > o->scale ? scale : o->scale;
    o->flow_s += bound;
    o->calib_s += pat->calib * bound;
    *scaled += weight;
    flit_stats_free(&st);
    return WT_OK;
}

void flit_phase_free(flit_phase_out *o)
{
    free(o->bytes);
    free(o->util);
    free(o->buffer_mean);
    free(o->buffer_peak);
    o->bytes = o->util = o->buffer_mean = NULL;
    o->buffer_peak = NULL;
}

/* The passes terms[0..n) of `what` (a phase's name, for messages) with
 * busiest link `busiest` (-1: none) into o, as flit_phase_run. */
static int fp_run(const sim_result *r, const sim_term *terms, int n, const char *what, int busiest,
                  const flit_phase_opts *opts, flit_phase_out *o, wt_err *e)
{
    memset(o, 0, sizeof *o);
    flit_phase_opts d = {FLIT_PHASE_LINK_FLITS, -1, -1, NULL};
    opts = opts ? opts : &d;
    int link_flits = opts->link_flits > 0 ? opts->link_flits : FLIT_PHASE_LINK_FLITS;
    int rc = fp_window(r, busiest, opts->x0, opts->y0, o, e);
    if (rc == WT_OK)
        rc = fp_whole(r->wf, o, e);
    if (rc != WT_OK)
        return rc;
    size_t nl = (size_t)o->w * (size_t)o->h * WAFER_NDIR;
    double *load = malloc(nl * sizeof *load), *busy = calloc(nl, sizeof *busy), *area = calloc(nl, sizeof *area);
    double *bw = malloc(nl * sizeof *bw), *rate = malloc(nl * sizeof *rate);
    o->bytes = calloc(nl, sizeof *o->bytes);
    o->util = calloc(nl, sizeof *o->util);
    o->buffer_mean = calloc(nl, sizeof *o->buffer_mean);
    o->buffer_peak = calloc(nl, sizeof *o->buffer_peak);
    double scaled = 0;
    if (!load || !busy || !area || !bw || !rate || !o->bytes || !o->util || !o->buffer_mean || !o->buffer_peak)
        rc = wt_oom(e, "flit level");
    double top = r->wf->link_bw;
    const double *slow =
        rc == WT_OK && flit_window_rates(r->wf, o->x0, o->y0, o->w, o->h, bw, rate, &top) ? rate : NULL;
    for (int t = 0; rc == WT_OK && t < n; t++) {
        const sim_pattern *pat = &r->patterns[terms[t].pattern];
        route_flow *f = NULL;
        size_t nf = 0;
        rc = fp_flows(r, terms[t].pattern, terms[t].coef, o, &f, &nf, &o->flows_out, e);
        if (rc == WT_OK && nf > 0) {
            rc = fp_pass(r, f, nf, pat, opts, link_flits, bw, slow, o, load, busy, area, &scaled, e);
            o->passes++;
            o->flows += (long long)nf;
        }
        free(f);
    }
    if (rc == WT_OK && !o->passes)
        rc = wt_fail(e, "--net flit: %s moves no bytes between units of the window %d,%d %dx%d", what, o->x0,
                     o->y0, o->w, o->h);
    if (rc == WT_OK) {
        o->cycle_s = r->wf->flit_bytes / top;
        o->time_s = scaled * o->cycle_s;
        for (size_t l = 0; l < nl; l++) {
            o->util[l] = busy[l] / scaled;
            o->buffer_mean[l] = area[l] / scaled;
        }
    }
    free(load);
    free(busy);
    free(area);
    free(bw);
    free(rate);
    if (rc != WT_OK)
        flit_phase_free(o);
    return rc;
}

int flit_phase_run(const sim_result *r, int phase, const flit_phase_opts *opts, flit_phase_out *o, wt_err *e)
{
    const sim_phase *ph = &r->phases[phase];
    return fp_run(r, ph->terms, ph->nterms, ph->name, ph->busiest_link, opts, o, e);
}

int flit_pattern_run(const sim_result *r, int pattern, flit_phase_out *o, wt_err *e)
{
    const sim_term one = {pattern, FLIT_PATTERN_COEF, 1};
    char what[32];
    snprintf(what, sizeof what, "pattern %d", pattern);
    return fp_run(r, &one, 1, what, r->patterns[pattern].busiest, NULL, o, e);
}
