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
 *
 * The step played in time (sim_link_window_util and what follows it) reads
 * the same slot layout without building sequences: the seconds each phase
 * runs inside a window are the same for every link, found from the slots'
 * and layers' arithmetic in O(phases), and each link's busy time is its
 * phases' utilisations weighed by them, scattered from the phases' patterns;
 * only where the window meets the hidden DP all-reduce does the cap at 1
 * need both utilisations of a link at once. A screen that plays the step
 * over a wafer whose links are all loaded reads it by class instead
 * (sim_link_classes: links whose loads and bandwidth are alike, the same
 * classes as the sweep's): a class's figure is one of its links' with the
 * same arithmetic in the same order, so the same to the bit, in O(its
 * loads) instead of O(the phases' loads).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "sim_int.h"

/* What every link's sequence shares: the offsets of the phases in a slot. */
typedef struct win_plan {
    int layers;           /* layers of the slot's stage */
    double fwd_layer_s;   /* one layer's forward phases, s */
    double bwd_layer_s;   /* one layer's backward phases */
    double mid_s;         /* the slot phases between them (logits, pipeline) */
    double at[SIM_MAX_PHASES];  /* a phase's start in its block (a layer's, or the middle) */
    double len[SIM_MAX_PHASES]; /* one run of it there: rep occurrences, or per_mb */
    /* the time one run's bytes take, ending with the run: len, or longer
     * for a ZeRO gather the fluid model prefetched beside the layer before
     * (its time is what it exposes, its comm what it takes alone) */
    double span[SIM_MAX_PHASES];
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
            p->span[i] = ph->rep * fmax(ph->time_s, ph->comm_s);
            *block_s += p->len[i];
        } else {
            p->block[i] = 1;
            p->at[i] = p->mid_s;
            p->len[i] = per_mb * ph->time_s;
            p->span[i] = p->len[i];
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

/* Lays u over [end - len, end) of the sequence (the hidden DP all-reduce,
 * a prefetched gather), adding to what runs there and capping at 1. */
static int seq_overlay(win_seq *s, double end, double len, double u)
{
    double from = fmax(0, end - len);
    if (!(len > 0 && u > 0))
        return 0;
    if (seq_add(s, end, end, 0) || seq_grow(s, s->n + 2))
        return -1;
    int i = s->n - 1; /* the stretch holding from: near the end */
    while (i > 0 && s->x[i] > from)
        i--;
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
                double from = base + j * step + p->at[ph], len = p->len[ph], span = p->span[ph];
                /* a prefetched gather: its bytes over the time it takes,
                 * laid over what ran before it */
                if (span > len ? seq_overlay(s, from + len, span, ld[k].u * len / span)
                               : seq_add(s, from, from + len, ld[k].u))
                    return -1;
            }
    }
    return seq_add(s, *end, *end, 0);
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

/* Calls fn once for every link phase i loads, with the link's utilisation
 * while the phase runs: one occurrence's busy time on it over the phase's
 * time, its terms summed link by link in sum (zero on entry and on return). */
typedef void (*link_fn)(void *ctx, int link, double u);

static void phase_links(const sim_result *r, int i, double *sum, link_fn fn, void *ctx)
{
    const sim_phase *ph = &r->phases[i];
    for (int t = 0; t < ph->nterms; t++) {
        const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
        for (int k = 0; k < pat->nnz; k++)
            sum[pat->link[k]] += ph->terms[t].coef * pat->load[k];
    }
    for (int t = 0; t < ph->nterms; t++) {
        const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
        for (int k = 0; k < pat->nnz; k++) {
            int l = pat->link[k];
            if (sum[l] != 0) { /* once per link: the sum is whole by now */
                fn(ctx, l, sum[l] * sim_link_inv_bw(r->wf, (size_t)l) / ph->time_s);
                sum[l] = 0;
            }
        }
    }
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
        int ph = ld[k].phase, b = p->block[ph];
        double span = p->span[ph]; /* a run's bytes take that long, at u len / span */
        if (b < 0 || ld[k].u * p->len[ph] / span < frac * (1 - 1e-12))
            continue;
        double per_slot = span * (b == 1 ? 1 : p->layers);
        hot += (r->slots - p->kept) * per_slot;
        if (b != 1)
            hot += span * (b == 0 ? squeezed_fwd : squeezed_bwd);
    }
    return hot;
}

/* Class k's sum of its loads from phase i, each times its term's coef, in
 * term order (as phase_links sums a link's); 0 when i does not load it. */
static double class_phase_sum(const sim_result *r, const sim_link_classes *c, int k, int i)
{
    double sum = 0;
    for (int j = c->start[k]; j < c->start[k + 1]; j++)
        if (c->load[j].phase == i)
            sum += r->phases[i].terms[c->load[j].term].coef * c->load[j].load;
    return sum;
}

/* The loaded phases of class k, as phase_links finds them for its links:
 * each timed phase's utilisation while it runs. Returns their number. */
static int class_loads(const sim_result *r, const sim_link_classes *c, int k, win_load *ld)
{
    int n = 0;
    for (int i = 0; i < r->nphases; i++) {
        double sum = r->phases[i].time_s > 0 ? class_phase_sum(r, c, k, i) : 0;
        if (sum != 0)
            ld[n++] = (win_load){i, sum * c->inv[k] / r->phases[i].time_s};
    }
    return n;
}

/* Each class's figures, swept on first need: its busiest window (fraction)
 * and hot time, and whether it carries some timed phase; and a link's
 * peak for the step bytes last met on one of its links (a class's links
 * mostly carry the same bytes: one division for all of them). */
typedef struct win_class {
    double peak, hot;
    double last_bytes, last_peak;
    char swept, loaded, has_last;
} win_class;

typedef struct win_sweep {
    const sim_result *r;
    const sim_link_classes *c;
    win_plan p;
    win_seq s;
    win_class *cls;  /* c->n */
    double w, hot_frac;
} win_sweep;

/* One link's (slot l's) figures in *peak and *hot_s (when not NULL): those
 * of its class, never below the step's average when it is loaded (the
 * busiest window carries at least that, where the timeline's slots or the
 * cap at 1 hold fewer bytes than the step moves). */
static int sweep_class(win_sweep *sw, int k, int hot)
{
    win_class *c = &sw->cls[k];
    win_load ld[SIM_MAX_PHASES];
    int n = class_loads(sw->r, sw->c, k, ld);
    c->swept = 1;
    c->loaded = n > 0;
    if (n) {
        if (seq_link(&sw->s, sw->r, &sw->p, ld, n, sw->p.kept))
            return -1;
        c->peak = fmin(1, seq_max_window(&sw->s, sw->w) / sw->w); /* a busy fraction: rounding may pass 1 */
        if (sw->hot_frac > 0 && hot)
            c->hot = seq_hot(&sw->s, sw->hot_frac) + dropped_hot(sw->r, &sw->p, ld, n, sw->hot_frac);
    }
    return 0;
}

static inline int sweep_link(win_sweep *sw, size_t l, double *peak, double *hot_s)
{
    int k = sw->c->of[l];
    win_class *c = &sw->cls[k];
    if (k && !c->swept && sweep_class(sw, k, hot_s != NULL))
        return -1;
    *peak = c->peak;
    if (hot_s)
        *hot_s = c->hot;
    if (c->loaded && sw->r->step_time_s > 0) { /* as sim_link_util */
        double b = sw->r->link_bytes[l];
        if (!c->has_last || b != c->last_bytes) {
            c->last_bytes = b;
            c->last_peak = fmax(c->peak, b * sw->c->inv[k] / sw->r->step_time_s);
            c->has_last = 1;
        }
        *peak = c->last_peak;
    }
    return 0;
}

/* sim_link_windows for the n link slots links[] (ascending or not), into
 * peak[i] and hot_s[i] for the i-th, or peak[links[i]] and hot_s[links[i]]
 * when scatter is set, from r's classes c: a class is swept once for all
 * its links. */
static int windows_at(const sim_result *r, const sim_link_classes *c, double window_s, double hot_frac,
                      const int *links, int n, int scatter, double *peak, double *hot_s, wt_err *e)
{
    if (!(window_s > 0) || !isfinite(window_s))
        return wt_fail(e, "window %g s: must be a positive time", window_s);
    win_sweep sw = {.r = r, .c = c, .w = fmin(window_s, r->step_time_s), .hot_frac = hot_frac};
    plan_build(r, sw.w, &sw.p);
    sw.cls = calloc((size_t)c->n, sizeof *sw.cls);
    int rc = !sw.cls;
    for (int i = 0; i < n && !rc; i++) {
        size_t l = (size_t)links[i], at = scatter ? l : (size_t)i;
        rc = sweep_link(&sw, l, &peak[at], hot_s ? &hot_s[at] : NULL);
    }
    free(sw.s.x);
    free(sw.s.u);
    free(sw.cls);
    return rc ? wt_oom(e, "link windows") : WT_OK;
}

/* windows_at over r's classes, made for the call when r keeps none. */
static int windows_of(const sim_result *r, double window_s, double hot_frac, const int *links, int n, int scatter,
                      double *peak, double *hot_s, wt_err *e)
{
    sim_link_classes own;
    if (!r->classes) {
        int rc = sim_link_classes_new(r, &own, e);
        if (rc != WT_OK)
            return rc;
    }
    int rc = windows_at(r, r->classes ? r->classes : &own, window_s, hot_frac, links, n, scatter, peak, hot_s, e);
    if (!r->classes)
        sim_link_classes_free(&own);
    return rc;
}

int sim_link_windows(const sim_result *r, double window_s, double hot_frac, double *peak, double *hot_s, wt_err *e)
{
    size_t nl = wafer_nlinks(r->wf);
    memset(peak, 0, nl * sizeof *peak);
    if (hot_s)
        memset(hot_s, 0, nl * sizeof *hot_s);
    return windows_of(r, window_s, hot_frac, r->loaded, r->nloaded, 1, peak, hot_s, e);
}

int sim_link_windows_at(const sim_result *r, double window_s, double hot_frac, const int *links, int n,
                        double *peak, double *hot_s, wt_err *e)
{
    return windows_of(r, window_s, hot_frac, links, n, 0, peak, hot_s, e);
}

/* The busiest windows of ranges of r's loaded links, each a copy of its
 * class's (val[], by class of r->reps), with their count at or above
 * SIM_HOT and largest value (sums and maxima of counts and values: the
 * same whatever the split). */
typedef struct peak_job {
    sim_result *r;
    const double *val;
    int nparts;
    int hot[PAR_MAX];
    double max[PAR_MAX];
} peak_job;

static void peak_part(void *ctx, int part)
{
    peak_job *j = ctx;
    const sim_result *r = j->r;
    const int *of = r->reps->cl.of;
    size_t i0, i1;
    par_range((size_t)r->nloaded, part, j->nparts, &i0, &i1);
    sim_zero_slots(r, r->link_peak, sizeof *r->link_peak, part, j->nparts);
    int hot = 0;
    double max = 0;
    for (size_t i = i0; i < i1; i++) {
        double u = j->val[of[r->loaded[i]]];
        r->link_peak[r->loaded[i]] = u;
        hot += u >= SIM_HOT;
        if (u > max) /* not fmax: a libm call per link */
            max = u;
    }
    j->hot[part] = hot;
    j->max[part] = max;
}

/* windows_at for every loaded link of a wafer: the links of a class of
 * r->reps carry the same bytes and are in one of r's classes, so one link
 * of each (its first) stands for all of them, and the rest is a copy; with
 * r's count of hot links and its busiest window. */
static int reps_windows(sim_result *r, double window_s, wt_err *e)
{
    const sim_reps *s = r->reps;
    double *v = malloc((size_t)s->cl.n * sizeof *v);
    if (!v)
        return wt_oom(e, "link windows");
    int rc = windows_at(r, r->classes, window_s, 0, s->cl.first + 1, s->cl.n - 1, 0, v + 1, NULL, e);
    peak_job j = {.r = r, .val = v, .nparts = par_chunks((size_t)r->nloaded)};
    if (rc == WT_OK)
        par_run(j.nparts, peak_part, &j);
    for (int part = 0; part < j.nparts && rc == WT_OK; part++) {
        r->hot_links += j.hot[part];
        r->max_peak_util = j.max[part] > r->max_peak_util ? j.max[part] : r->max_peak_util;
    }
    free(v);
    return rc;
}

int sim_window_figures(sim_result *r, double window_s, wt_err *e)
{
    size_t nl = wafer_nlinks(r->wf);
    /* by class the ranges clear their own slots (peak_part); else calloc:
     * the pages of the links no pattern loads are never touched. A result
     * timed again (sim_retime) keeps its patterns, so its peaks are 0 but
     * at the links the list holds again */
    double *peak = r->link_peak ? r->link_peak : r->reps ? sim_links_alloc(r, sizeof *peak) : calloc(nl, sizeof *peak);
    int rc = peak ? sim_result_classes(r, e) : wt_oom(e, "link windows");
    if (rc != WT_OK) {
        free(peak);
        r->link_peak = NULL;
        return rc;
    }
    r->link_peak = peak;
    r->hot_links = 0;
    r->max_peak_util = 0;
    if (r->reps)
        rc = reps_windows(r, window_s, e);
    else {
        rc = windows_at(r, r->classes, window_s, 0, r->loaded, r->nloaded, 1, peak, NULL, e);
        for (int i = 0; i < r->nloaded && rc == WT_OK; i++) {
            double u = peak[r->loaded[i]];
            r->hot_links += u >= SIM_HOT;
            if (u > r->max_peak_util) /* not fmax: a libm call per link */
                r->max_peak_util = u;
        }
    }
    if (rc != WT_OK) { /* no peaks rather than some: an uncleared array's others are garbage */
        free(r->link_peak);
        r->link_peak = NULL;
        return rc;
    }
    r->window_s = fmin(window_s, r->step_time_s);
    return WT_OK;
}

/* ---- the step played in time ------------------------------------------- */

/* Seconds [s, s + len) shares with [lo, hi). */
static double overlap(double s, double len, double lo, double hi)
{
    double a = s > lo ? s : lo, b = s + len < hi ? s + len : hi;
    return b > a ? b - a : 0;
}

/* Seconds of [lo, hi) phase i runs in the tooth (a slot or a layer)
 * starting at s. */
typedef double (*tooth_fn)(const win_plan *p, int i, double s, double lo, double hi);

/* Seconds of [lo, hi) phase i runs in n teeth starting at s0, s0 + per, ...,
 * each running it for whole seconds in all: the teeth at either end of
 * [lo, hi) are measured, the ones between count whole. Two teeth are
 * measured at each end, so that a floor off by one at a boundary costs
 * nothing, and the one after, whose span may reach back into [lo, hi). */
static double comb(const win_plan *p, int i, tooth_fn f, double s0, double per, int n, double whole, double lo,
                   double hi)
{
    if (n <= 0 || !(hi > lo))
        return 0;
    double fa = per > 0 ? floor((lo - s0) / per) : 0, fb = per > 0 ? floor((hi - s0) / per) : 0;
    int a = fa < 0 ? 0 : fa > n - 1 ? n - 1 : (int)fa, b = fb < 0 ? 0 : fb > n - 1 ? n - 1 : (int)fb;
    double sum = f(p, i, s0 + a * per, lo, hi);
    if (b > a)
        sum += f(p, i, s0 + b * per, lo, hi);
    if (b > a + 1)
        sum += f(p, i, s0 + (a + 1) * per, lo, hi);
    if (b > a + 2)
        sum += f(p, i, s0 + (b - 1) * per, lo, hi);
    if (b > a + 3)
        sum += (b - a - 3) * whole;
    if (b + 1 < n && p->span[i] > p->len[i]) /* a prefetched gather's span reaches back from the tooth after */
        sum += f(p, i, s0 + (b + 1) * per, lo, hi);
    return sum;
}

/* One run of phase i in a layer (or the middle) starting at s: its span,
 * which ends with the run. */
static double run_tooth(const win_plan *p, int i, double s, double lo, double hi)
{
    return overlap(s + p->at[i] + p->len[i] - p->span[i], p->span[i], lo, hi);
}

static double slot_len(const win_plan *p)
{
    return p->layers * (p->fwd_layer_s + p->bwd_layer_s) + p->mid_s;
}

/* Where block b of a slot starts in it, and how far apart its runs are. */
static double block_at(const win_plan *p, int b)
{
    return b == 0 ? 0 : b == 1 ? p->layers * p->fwd_layer_s : p->layers * p->fwd_layer_s + p->mid_s;
}

static double block_per(const win_plan *p, int b)
{
    return b == 0 ? p->fwd_layer_s : b == 2 ? p->bwd_layer_s : 0;
}

/* Phase i's runs in the slot starting at s. */
static double slot_tooth(const win_plan *p, int i, double s, double lo, double hi)
{
    int b = p->block[i];
    return comb(p, i, run_tooth, s + block_at(p, b), block_per(p, b), b == 1 ? 1 : p->layers, p->span[i], lo, hi);
}

/* Seconds of [lo, hi) phase i runs in the slots (as seq_slot lays them out,
 * none squeezed). */
static double slots_time(const win_plan *p, const sim_result *r, int i, double lo, double hi)
{
    int b = p->block[i];
    if (b < 0)
        return 0;
    return comb(p, i, slot_tooth, 0, slot_len(p), r->slots, p->span[i] * (b == 1 ? 1 : p->layers), lo, hi);
}

/* The tail's slices start this much later than the timeline says: the
 * slots' end as laid out here less the timeline's. */
static double tail_shift(const win_plan *p, const sim_result *r)
{
    return r->slots * slot_len(p) - r->slots * r->slot_s;
}

/* Adds phase i's utilisation of every link it loads, times k, to util. */
static void add_phase(const sim_result *r, int i, double k, double *util)
{
    const sim_phase *ph = &r->phases[i];
    if (!(k > 0) || !(ph->time_s > 0))
        return;
    for (int t = 0; t < ph->nterms; t++) {
        const sim_pattern *pat = &r->patterns[ph->terms[t].pattern];
        double c = ph->terms[t].coef * k / ph->time_s;
        for (int j = 0; j < pat->nnz; j++)
            util[pat->link[j]] += c * pat->load[j] * sim_link_inv_bw(r->wf, (size_t)pat->link[j]);
    }
}

/* Under the hidden DP all-reduce a link runs at min(1, u + u_dp): what the
 * cap takes off, times k, for the links a phase loads. */
typedef struct cap_ctx {
    const double *dp_u;
    double *util;
    double k;
    double thin;    /* the phase's share of its utilisation while it runs (prefetched gathers) */
} cap_ctx;

static void store_u(void *ctx, int l, double u)
{
    ((double *)ctx)[l] = u;
}

static void cap_u(void *ctx, int l, double u)
{
    cap_ctx *c = ctx;
    double over = u * c->thin + c->dp_u[l] - 1;
    if (over > 0)
        c->util[l] -= over * c->k;
}

/* Adds the hidden DP all-reduce (phase dp, k of the window) to util, and
 * takes off what the cap at 1 takes from each phase it lies over (under[i]
 * of the window, thin[i] of its utilisation). */
static int add_hidden_dp(const sim_result *r, int dp, double k, const double *under, const double *thin,
                         double *util, wt_err *e)
{
    size_t nl = wafer_nlinks(r->wf);
    add_phase(r, dp, k, util);
    double *dp_u = calloc(nl, sizeof *dp_u), *sum = calloc(nl, sizeof *sum);
    if (!dp_u || !sum) {
        free(dp_u);
        free(sum);
        return wt_oom(e, "window at a time");
    }
    phase_links(r, dp, sum, store_u, dp_u);
    for (int i = 0; i < r->nphases; i++)
        if (under[i] > 0 && i != dp) {
            cap_ctx c = {dp_u, util, under[i], thin[i]};
            phase_links(r, i, sum, cap_u, &c);
        }
    free(dp_u);
    free(sum);
    return WT_OK;
}

/* What a window takes from each phase: the same for every link. k[i] is
 * phase i's weight (its seconds in the window over the window, times
 * thin[i]: a prefetched gather's bytes take its span, at len / span of its
 * utilisation over its own slice), under[i] its seconds under the hidden DP
 * all-reduce over the window, dp_k the hidden part's, stretched whether some
 * phase is thinned (a link's figure is then capped at 1). */
typedef struct win_weights {
    double k[SIM_MAX_PHASES], under[SIM_MAX_PHASES], thin[SIM_MAX_PHASES];
    double dp_k;
    int dp, stretched;
} win_weights;

/* The weights of the window [t0, t0 + window_s] moved into r's step; all
 * zero when the step has no length. */
static int window_weights(const sim_result *r, double t0, double window_s, win_weights *ww, wt_err *e)
{
    if (!(window_s > 0) || !isfinite(window_s) || !isfinite(t0))
        return wt_fail(e, "window %g s at %g s: must be a positive time at a finite one", window_s, t0);
    memset(ww, 0, sizeof *ww);
    ww->dp = -1;
    double T = r->step_time_s, w = fmin(window_s, T);
    if (!(w > 0))
        return WT_OK;
    double lo = fmin(fmax(t0, 0), T - w), hi = lo + w;
    win_plan p;
    plan_build(r, w, &p);
    double pipe = r->slots * slot_len(&p), from = pipe - p.hidden_s, shift = tail_shift(&p, r);
    for (int i = 0; i < r->nphases; i++) {
        double in = slots_time(&p, r, i, lo, fmin(hi, from));
        double under = slots_time(&p, r, i, fmax(lo, from), hi);
        for (int k = 0; k < r->ntimeline; k++) {
            const sim_slice *sl = &r->timeline[k];
            if (sl->phase == i && sl->end_s > r->slot_s) /* the tail */
                in += overlap(sl->start_s + shift, sl->end_s - sl->start_s, lo, hi);
        }
        ww->thin[i] = p.span[i] > p.len[i] ? p.len[i] / p.span[i] : 1;
        ww->stretched |= ww->thin[i] < 1;
        ww->k[i] = (in + under) / w * ww->thin[i];
        ww->under[i] = under / w;
    }
    double dp_s = p.dp >= 0 ? overlap(from, p.hidden_s, lo, hi) : 0;
    if (dp_s > 0) {
        ww->dp = p.dp;
        ww->dp_k = dp_s / w;
    }
    return WT_OK;
}

int sim_link_window_util(const sim_result *r, double t0, double window_s, double *util, wt_err *e)
{
    win_weights ww;
    int rc = window_weights(r, t0, window_s, &ww, e);
    if (rc != WT_OK)
        return rc;
    size_t nl = wafer_nlinks(r->wf);
    memset(util, 0, nl * sizeof *util);
    for (int i = 0; i < r->nphases; i++)
        add_phase(r, i, ww.k[i], util);
    if (ww.dp >= 0)
        rc = add_hidden_dp(r, ww.dp, ww.dp_k, ww.under, ww.thin, util, e);
    /* beside the layer before, a link carries at most its bandwidth: the
     * cap on the window's average, at least the average of the capped sum */
    for (size_t l = 0; ww.stretched && l < nl; l++)
        util[l] = fmin(util[l], 1);
    return rc;
}

/* ---- the step played in time, by class of links --------------------------- */

/* Class k's figure in the window of weights ww: sim_link_window_util's
 * arithmetic for one of its links, step by step. */
static double class_util(const sim_result *r, const sim_link_classes *c, int k, const win_weights *ww)
{
    double u = 0, inv = c->inv[k];
    for (int j = c->start[k]; j < c->start[k + 1]; j++) { /* add_phase */
        const sim_phase *ph = &r->phases[c->load[j].phase];
        double w = ww->k[c->load[j].phase];
        if (w > 0)
            u += ph->terms[c->load[j].term].coef * w / ph->time_s * c->load[j].load * inv;
    }
    if (ww->dp >= 0) { /* add_hidden_dp */
        const sim_phase *dp = &r->phases[ww->dp];
        for (int j = c->start[k]; j < c->start[k + 1]; j++)
            if (c->load[j].phase == ww->dp)
                u += dp->terms[c->load[j].term].coef * ww->dp_k / dp->time_s * c->load[j].load * inv;
        double dp_sum = class_phase_sum(r, c, k, ww->dp), dp_u = dp_sum != 0 ? dp_sum * inv / dp->time_s : 0;
        for (int i = 0; i < r->nphases; i++) {
            double sum = ww->under[i] > 0 && i != ww->dp ? class_phase_sum(r, c, k, i) : 0;
            double over = sum != 0 ? sum * inv / r->phases[i].time_s * ww->thin[i] + dp_u - 1 : 0;
            if (over > 0)
                u -= over * ww->under[i];
        }
    }
    return ww->stretched ? fmin(u, 1) : u;
}

int sim_class_window_util(const sim_result *r, const sim_link_classes *c, double t0, double window_s, double *util,
                          wt_err *e)
{
    win_weights ww;
    int rc = window_weights(r, t0, window_s, &ww, e);
    if (rc != WT_OK)
        return rc;
    util[0] = 0;
    for (int k = 1; k < c->n; k++)
        util[k] = class_util(r, c, k, &ww);
    return WT_OK;
}

/* The phase of the slots running at t (0 <= t < the slots' end): in its
 * slot's block, the one whose run started last at or before t. */
static int slot_phase_at(const win_plan *p, const sim_result *r, double t)
{
    double len = slot_len(p), o = t - floor(t / len) * len;
    int b = o < block_at(p, 1) ? 0 : o < block_at(p, 2) ? 1 : 2;
    o -= block_at(p, b);
    if (block_per(p, b) > 0)
        o -= floor(o / block_per(p, b)) * block_per(p, b);
    int best = -1;
    for (int i = 0; i < r->nphases; i++)
        if (p->block[i] == b && p->at[i] <= o && (best < 0 || p->at[i] > p->at[best]))
            best = i;
    return best;
}

int sim_running_at(const sim_result *r, double t, int *out, int max)
{
    if (!(t >= 0 && t < r->step_time_s) || max < 1)
        return 0;
    win_plan p;
    plan_build(r, 0, &p);
    double pipe = r->slots * slot_len(&p), shift = tail_shift(&p, r);
    int n = 0;
    if (t < pipe) {
        int i = slot_phase_at(&p, r, t);
        if (i >= 0)
            out[n++] = i;
        if (p.dp >= 0 && t >= pipe - p.hidden_s && p.hidden_s > 0 && n < max)
            out[n++] = p.dp;
        return n;
    }
    for (int k = 0; k < r->ntimeline; k++) {
        const sim_slice *sl = &r->timeline[k];
        if (sl->end_s > r->slot_s && t >= sl->start_s + shift && t < sl->end_s + shift)
            out[n++] = sl->phase;
        if (n)
            break;
    }
    return n;
}

/* Keeps s in *best when it is nearer t on the side dir than *best. */
static void nearer(double s, double t, int dir, double *best)
{
    if (dir > 0 ? s > t && s < *best : s < t && s > *best)
        *best = s;
}

double sim_start_near(const sim_result *r, double t, int dir)
{
    win_plan p;
    plan_build(r, 0, &p);
    double len = slot_len(&p), pipe = r->slots * len, shift = tail_shift(&p, r);
    double best = dir > 0 ? INFINITY : -INFINITY;
    /* every run's start in the slots either side of t's, enough to find
     * the nearest: a slot starts with a run */
    double fj = len > 0 ? fmin(fmax(floor(t / len), 0), r->slots - 1) : 0;
    for (int d = -1; d <= 1; d++) {
        double j = fj + d;
        if (j < 0 || j >= r->slots)
            continue;
        for (int i = 0; i < r->nphases; i++) {
            int b = p.block[i];
            for (int k = 0; b >= 0 && k < (b == 1 ? 1 : p.layers); k++)
                nearer(j * len + block_at(&p, b) + k * block_per(&p, b) + p.at[i], t, dir, &best);
        }
    }
    if (p.dp >= 0 && p.hidden_s > 0)
        nearer(pipe - p.hidden_s, t, dir, &best);
    for (int k = 0; k < r->ntimeline; k++)
        if (r->timeline[k].end_s > r->slot_s)
            nearer(r->timeline[k].start_s + shift, t, dir, &best);
    return isfinite(best) && best < r->step_time_s ? best : -1;
}

double sim_phase_first(const sim_result *r, int phase)
{
    win_plan p;
    plan_build(r, 0, &p);
    double pipe = r->slots * slot_len(&p), shift = tail_shift(&p, r);
    if (phase < 0 || phase >= r->nphases)
        return -1;
    if (p.block[phase] >= 0 && r->slots > 0)
        return block_at(&p, p.block[phase]) + p.at[phase];
    if (phase == p.dp && p.hidden_s > 0)
        return pipe - p.hidden_s;
    for (int k = 0; k < r->ntimeline; k++)
        if (r->timeline[k].phase == phase && r->timeline[k].end_s > r->slot_s)
            return r->timeline[k].start_s + shift;
    return -1;
}
