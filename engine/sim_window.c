/*
 * sim_window.c - each link's busiest window and hot time over a step
 * (contract in sim.h, rules in docs/MODEL.md, "Windows").
 *
 * A link's utilisation u(t) is piecewise constant: during one occurrence of
 * phase p it is that occurrence's busy time on the link over p's time. The
 * step is the slowest stage's slot, played layer by layer, repeated `slots`
 * times, then the tail; the DP all-reduce's hidden part is laid over the end
 * of the last slot's backward. The integral of u over [t, t + W] is linear
 * in t while neither end crosses a breakpoint, so its maximum is at a t
 * where t or t + W is one: the sweep visits only those.
 *
 * A window that starts in a slot more than ceil((W + hidden) / slot) + 1
 * slots before the end sees nothing but whole slots, the same as one
 * starting in the first slot, so a link's sequence holds that many slots
 * and the tail, not all of them; the hot time of the others is a plain
 * slot's times their number. Links with the same loads (the groups of a
 * collective are alike) share one sweep. Per link only its loaded phases are
 * emitted (the gaps between them are single zero segments), so a link that
 * carries one phase costs O(layers) whatever the number of phases.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* What every link's sequence shares: the offsets of the phases in a slot. */
typedef struct win_plan {
    int layers;           /* layers of the slot's stage */
    double fwd_layer_s;   /* one layer's forward phases, s */
    double bwd_layer_s;   /* one layer's backward phases */
    double mid_s;         /* the slot phases between them (logits, pipeline) */
    double at[SIM_MAX_PHASES];  /* a phase's start in its block (a layer's, or the middle) */
    double len[SIM_MAX_PHASES]; /* one run of it there: rep occurrences, or per_mb */
    int block[SIM_MAX_PHASES];  /* 0 forward layer, 1 middle, 2 backward layer, -1 not in the slot */
    double pipe_s;        /* slots x slot */
    double hidden_s;      /* the DP all-reduce's part laid over the last backward */
    int dp;               /* the DP phase, -1 without one */
    int kept;             /* slots a link's sequence holds */
    int keep_fwd, keep_bwd; /* layers a block keeps when squeezed (see seq_slot) */
    int over;             /* the last slots the hidden DP reaches, played whole */
} win_plan;

/* A link's growing sequence of constant stretches: x[0..n] breakpoints, u[i]
 * on [x[i], x[i+1]). */
typedef struct win_seq {
    double *x, *u;
    int n, cap;
} win_seq;

static int seq_grow(win_seq *s, int need)
{
    if (need <= s->cap)
        return 0;
    int cap = s->cap ? s->cap : 64;
    while (cap < need)
        cap *= 2;
    double *x = realloc(s->x, sizeof *x * ((size_t)cap + 1));
    if (x)
        s->x = x;
    double *u = realloc(s->u, sizeof *u * (size_t)cap);
    if (u)
        s->u = u;
    if (!x || !u)
        return -1;
    s->cap = cap;
    return 0;
}

/* Appends [from, to) at utilisation u, a zero gap before it if from is past
 * the end; stretches of one value merge. */
static int seq_add(win_seq *s, double from, double to, double u)
{
    if (seq_grow(s, s->n + 2))
        return -1;
    if (from > s->x[s->n]) {
        if (s->n && s->u[s->n - 1] == 0)
            s->x[s->n] = from;
        else {
            s->u[s->n] = 0;
            s->x[++s->n] = from;
        }
    }
    if (to <= s->x[s->n])
        return 0;
    if (s->n && s->u[s->n - 1] == u)
        s->x[s->n] = to;
    else {
        s->u[s->n] = u;
        s->x[++s->n] = to;
    }
    return 0;
}

/* Layers a block of `layers` alike ones of len s each keeps for windows of
 * w: k = ceil(w / len) + 1 at each end. A window starting in a dropped
 * layer ends inside the block and sees what one starting k layers earlier
 * does; a window across the cut sees layer k - 1 then layer L - k, alike to
 * k - 1 then k: the squeezed block holds every window of the whole. */
static int keep_layers(int layers, double len, double w)
{
    if (!(len > 0))
        return layers;
    double k = 2 * (ceil(w / len) + 1);
    return k < layers ? (int)k : layers;
}

/* The slot's layout from the result's phases and timeline. */
static void plan_build(const sim_result *r, double window_s, win_plan *p)
{
    memset(p, 0, sizeof *p);
    p->layers = sim_stage_layers(r, r->slot_stage);
    p->dp = -1;
    for (int i = 0; i < r->nphases; i++) {
        const sim_phase *ph = &r->phases[i];
        p->block[i] = -1;
        if (ph->role == SIM_DP)
            p->dp = i;
        double per_mb = sim_per_mb(r, ph, r->slot_stage);
        if (per_mb <= 0 || ph->time_s <= 0)
            continue;
        if (ph->scope == SIM_LAYER) {
            double *block_s = ph->role == SIM_BACKWARD ? &p->bwd_layer_s : &p->fwd_layer_s;
            p->block[i] = ph->role == SIM_BACKWARD ? 2 : 0;
            p->at[i] = *block_s;
            p->len[i] = ph->rep * ph->time_s;
            *block_s += p->len[i];
        } else {
            p->block[i] = 1;
            p->at[i] = p->mid_s;
            p->len[i] = per_mb * ph->time_s;
            p->mid_s += p->len[i];
        }
    }
    p->pipe_s = r->slots * r->slot_s;
    if (p->dp >= 0)
        p->hidden_s = fmin(p->pipe_s, fmax(0, r->dp_time_s - r->dp_exposed_s));
    /* a window from a dropped slot ends before the hidden DP starts */
    double need = r->slot_s > 0 ? ceil((window_s + p->hidden_s) / r->slot_s) + 1 : r->slots;
    p->kept = need < r->slots ? (int)need : r->slots;
    p->keep_fwd = keep_layers(p->layers, p->fwd_layer_s, window_s);
    p->keep_bwd = keep_layers(p->layers, p->bwd_layer_s, window_s);
    p->over = p->hidden_s > 0 ? (int)ceil(p->hidden_s / r->slot_s) : 0;
}

/* One link's loaded phases: phase index and utilisation while it runs. */
typedef struct win_load {
    int phase;
    double u;
} win_load;

/* Appends one slot starting at t0 for a link with loads ld[0..n), its
 * forward and backward blocks squeezed to keep_fwd / keep_bwd layers (or
 * whole: nf, nb = layers); returns the slot's end in *end. */
static int seq_slot(win_seq *s, const win_plan *p, const win_load *ld, int n, double t0, int nf, int nb,
                    double *end)
{
    double fwd = nf * p->fwd_layer_s;
    *end = t0 + fwd + p->mid_s + nb * p->bwd_layer_s;
    for (int b = 0; b < 3; b++) {
        int reps = b == 1 ? 1 : b == 0 ? nf : nb;
        double base = t0 + (b == 2 ? fwd + p->mid_s : b == 1 ? fwd : 0);
        double step = b == 2 ? p->bwd_layer_s : p->fwd_layer_s;
        for (int j = 0; j < reps; j++)
            for (int k = 0; k < n; k++) {
                int ph = ld[k].phase;
                if (p->block[ph] != b)
                    continue;
                double from = base + j * step + p->at[ph];
                if (seq_add(s, from, from + p->len[ph], ld[k].u))
                    return -1;
            }
    }
    return seq_add(s, *end, *end, 0);
}

/* Lays the DP all-reduce (utilisation u) over [end - len, end) of the
 * sequence, adding to what runs there and capping at 1. */
static int seq_overlay(win_seq *s, double end, double len, double u)
{
    double from = fmax(0, end - len);
    if (!(len > 0 && u > 0))
        return 0;
    if (seq_add(s, end, end, 0) || seq_grow(s, s->n + 2))
        return -1;
    int i = 0;
    while (i < s->n && s->x[i + 1] <= from)
        i++;
    if (s->x[i] < from) { /* split the stretch the overlay starts in */
        memmove(&s->x[i + 2], &s->x[i + 1], sizeof *s->x * (size_t)(s->n - i));
        memmove(&s->u[i + 1], &s->u[i], sizeof *s->u * (size_t)(s->n - i));
        s->x[i + 1] = from;
        s->n++;
        i++;
    }
    for (; i < s->n && s->x[i] < end; i++)
        s->u[i] = s->u[i] + u < 1 ? s->u[i] + u : 1;
    return 0;
}

/* The largest integral of the sequence over a window of w (w <= its
 * length): candidates t = a breakpoint and t = a breakpoint - w, merged in
 * order, each end read with its own cursor. */
static double seq_max_window(const win_seq *s, double w)
{
    int n = s->n;
    double end = s->x[n] - w, best = 0;
    int a = 0, b = 0;           /* next start candidates: x[a], x[b] - w */
    int ca = 0, cb = 0;         /* stretches holding t and t + w */
    double fa = 0, fb = 0;      /* integral up to x[ca], x[cb] */
    while (b <= n && s->x[b] < w)
        b++;
    for (;;) {
        double ta = a <= n ? s->x[a] : INFINITY, tb = b <= n ? s->x[b] - w : INFINITY;
        double t = ta < tb ? ta : tb; /* not fmin: a libm call per breakpoint */
        if (!(t <= end))
            break;
        a += ta <= t;
        b += tb <= t;
        while (ca < n - 1 && s->x[ca + 1] <= t) {
            fa += s->u[ca] * (s->x[ca + 1] - s->x[ca]);
            ca++;
        }
        double hi = t + w < s->x[n] ? t + w : s->x[n];
        while (cb < n - 1 && s->x[cb + 1] <= hi) {
            fb += s->u[cb] * (s->x[cb + 1] - s->x[cb]);
            cb++;
        }
        double in = fb + s->u[cb] * (hi - s->x[cb]) - (fa + s->u[ca] * (t - s->x[ca]));
        if (in > best)
            best = in;
    }
    return best;
}

/* Time the sequence spends at or above frac. */
static double seq_hot(const win_seq *s, double frac)
{
    double hot = 0;
    for (int i = 0; i < s->n; i++)
        if (s->u[i] > 0 && s->u[i] >= frac * (1 - 1e-12))
            hot += s->x[i + 1] - s->x[i];
    return hot;
}

/* One link's sequence: `slots` slots from 0, the hidden DP over the last
 * one's end, then the timeline's tail. */
static int seq_link(win_seq *s, const sim_result *r, const win_plan *p, const win_load *ld, int n, int slots)
{
    s->n = 0;
    if (seq_grow(s, 1))
        return -1;
    s->x[0] = 0;
    double dp_u = 0;
    for (int k = 0; k < n; k++)
        if (ld[k].phase == p->dp)
            dp_u = ld[k].u;
    /* The hidden DP lies over the end of the last slots: those play whole,
     * except the forward of a last slot whose backward holds all of it. */
    int alone = p->over == 1 && p->hidden_s <= p->layers * p->bwd_layer_s;
    double t = 0;
    for (int j = 0; j < slots; j++) {
        int plain = j < slots - p->over;
        int nf = plain || alone ? p->keep_fwd : p->layers, nb = plain ? p->keep_bwd : p->layers;
        if (seq_slot(s, p, ld, n, t, nf, nb, &t))
            return -1;
    }
    if (seq_overlay(s, t, p->hidden_s, dp_u))
        return -1;
    for (int i = 0; i < r->ntimeline; i++) {
        const sim_slice *sl = &r->timeline[i];
        if (sl->end_s <= r->slot_s) /* a slot slice, played above */
            continue;
        double u = sl->phase == p->dp ? dp_u : 0;
        double off = t - r->slots * r->slot_s;
        if (seq_add(s, sl->start_s + off, sl->end_s + off, u))
            return -1;
    }
    return 0;
}

/* Per link its loaded phases: at[l]..at[l+1] in ld, from the phases'
 * patterns (a phase's terms summed link by link in scratch). */
static int loads_build(const sim_result *r, int **at_out, win_load **ld_out)
{
    size_t nl = wafer_nlinks(r->wf);
    int *at = calloc(nl + 1, sizeof *at), *stamp = malloc(nl * sizeof *stamp);
    double *sum = calloc(nl, sizeof *sum);
    win_load *ld = NULL;
    int rc = -1;
    if (!at || !stamp || !sum)
        goto out;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t l = 0; l < nl; l++)
            stamp[l] = -1;
        for (int i = 0; i < r->nphases; i++) {
            const sim_phase *ph = &r->phases[i];
            if (ph->time_s <= 0)
                continue;
            for (int t = 0; t < ph->nterms; t++) {
                const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
                for (int k = 0; k < pat->nnz; k++) {
                    int l = pat->link[k];
                    if (pass)
                        sum[l] += ph->terms[t].coef * pat->load[k];
                    else if (stamp[l] != i)
                        at[l + 1]++;
                    stamp[l] = i;
                }
            }
            if (!pass)
                continue;
            for (int t = 0; t < ph->nterms; t++) {
                const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
                for (int k = 0; k < pat->nnz; k++) {
                    int l = pat->link[k];
                    if (stamp[l] != -2 - i) { /* once per link: the sum is whole by now */
                        ld[at[l]++] = (win_load){i, sum[l] * sim_link_inv_bw(r->wf, (size_t)l) / ph->time_s};
                        sum[l] = 0;
                        stamp[l] = -2 - i;
                    }
                }
            }
        }
        if (!pass) {
            for (size_t l = 0; l < nl; l++)
                at[l + 1] += at[l];
            ld = malloc(sizeof *ld * (size_t)(at[nl] ? at[nl] : 1));
            if (!ld)
                goto out;
        }
    }
    /* the fill advanced at[l] to where l+1 starts: shift back */
    memmove(&at[1], &at[0], nl * sizeof *at);
    at[0] = 0;
    rc = 0;
out:
    free(stamp);
    free(sum);
    if (rc) {
        free(at);
        free(ld);
        return rc;
    }
    *at_out = at;
    *ld_out = ld;
    return 0;
}

/* Hot time of a link outside its sequence: the slots it drops (whole,
 * each loaded phase's occurrences at its own utilisation) and the layers
 * the kept slots squeeze out. */
static double dropped_hot(const sim_result *r, const win_plan *p, const win_load *ld, int n, double frac)
{
    int alone = p->over == 1 && p->hidden_s <= p->layers * p->bwd_layer_s;
    int squeezed_fwd = (p->kept - p->over + (alone ? p->over : 0)) * (p->layers - p->keep_fwd);
    int squeezed_bwd = (p->kept - p->over) * (p->layers - p->keep_bwd);
    double hot = 0;
    for (int k = 0; k < n; k++) {
        int b = p->block[ld[k].phase];
        if (b < 0 || ld[k].u < frac * (1 - 1e-12))
            continue;
        double per_slot = p->len[ld[k].phase] * (b == 1 ? 1 : p->layers);
        hot += (r->slots - p->kept) * per_slot;
        if (b != 1)
            hot += p->len[ld[k].phase] * (b == 0 ? squeezed_fwd : squeezed_bwd);
    }
    return hot;
}

/* A hash of a link's loads, equal for equal lists. */
static size_t loads_hash(const win_load *ld, int n)
{
    uint64_t h = 1469598103934665603u;
    for (int k = 0; k < n; k++) {
        uint64_t bits;
        memcpy(&bits, &ld[k].u, sizeof bits);
        h = (h ^ (uint64_t)ld[k].phase) * 1099511628211u;
        h = (h ^ bits) * 1099511628211u;
    }
    return (size_t)h;
}

/* The first link with the same loads as l, found or entered in the open
 * table seen[mask + 1] (-1 empty): links of symmetric groups repeat, and
 * share one sweep. */
static size_t loads_twin(int *seen, size_t mask, const int *at, const win_load *ld, size_t l)
{
    int n = at[l + 1] - at[l];
    for (size_t i = loads_hash(&ld[at[l]], n) & mask;; i = (i + 1) & mask) {
        if (seen[i] < 0) {
            seen[i] = (int)l;
            return l;
        }
        size_t o = (size_t)seen[i];
        if (at[o + 1] - at[o] == n && !memcmp(&ld[at[o]], &ld[at[l]], (size_t)n * sizeof *ld))
            return o;
    }
}

int sim_link_windows(const sim_result *r, double window_s, double hot_frac, double *peak, double *hot_s, wt_err *e)
{
    if (!(window_s > 0) || !isfinite(window_s))
        return wt_fail(e, "window %g s: must be a positive time", window_s);
    double w = fmin(window_s, r->step_time_s);
    size_t nl = wafer_nlinks(r->wf), mask = 1;
    while (mask < 2 * nl)
        mask <<= 1;
    win_plan p;
    plan_build(r, w, &p);
    int *at, *seen = malloc(mask-- * sizeof *seen);
    win_load *ld;
    if (!seen || loads_build(r, &at, &ld)) {
        free(seen);
        return wt_oom(e, "link windows");
    }
    memset(seen, -1, (mask + 1) * sizeof *seen);
    win_seq s = {0};
    int rc = WT_OK;
    for (size_t l = 0; l < nl; l++) {
        const win_load *mine = &ld[at[l]];
        int n = at[l + 1] - at[l];
        peak[l] = hot_s[l] = 0;
        if (!n)
            continue;
        size_t twin = loads_twin(seen, mask, at, ld, l);
        if (twin != l) {
            peak[l] = peak[twin];
            hot_s[l] = hot_s[twin];
        } else {
            if (seq_link(&s, r, &p, mine, n, p.kept)) {
                rc = wt_oom(e, "link windows");
                break;
            }
            peak[l] = seq_max_window(&s, w) / w;
            if (hot_frac > 0)
                hot_s[l] = seq_hot(&s, hot_frac) + dropped_hot(r, &p, mine, n, hot_frac);
        }
        /* never below the step's average: the busiest window carries at
         * least that, where the timeline's slots or the cap at 1 hold fewer
         * bytes than the step moves (twins may differ in bandwidth) */
        peak[l] = fmax(peak[l], sim_link_util(r, l));
    }
    free(s.x);
    free(s.u);
    free(seen);
    free(at);
    free(ld);
    return rc;
}

int sim_window_figures(sim_result *r, double window_s, wt_err *e)
{
    size_t nl = wafer_nlinks(r->wf);
    double *peak = malloc(2 * nl * sizeof *peak);
    if (!peak)
        return wt_oom(e, "link windows");
    int rc = sim_link_windows(r, window_s, SIM_HOT, peak, peak + nl, e);
    if (rc == WT_OK) {
        r->window_s = fmin(window_s, r->step_time_s);
        r->hot_links = 0;
        r->max_peak_util = 0;
        for (size_t l = 0; l < nl; l++) {
            r->hot_links += peak[l] >= SIM_HOT;
            r->max_peak_util = fmax(r->max_peak_util, peak[l]);
        }
    }
    free(peak);
    return rc;
}
