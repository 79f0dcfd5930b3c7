#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "net.h"
#include "rng.h"

static double next_unit(session *S) { return rng_unit(&S->rng); }

/* Appends an action to the log. */
static void note(session *S, const char *fmt, ...)
{
    size_t len = strlen(S->log);
    if (len && len + 2 < sizeof S->log) {
        strcat(S->log, "; ");
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S->log + len, sizeof S->log - len, fmt, ap);
    va_end(ap);
}

static int save_setup(const session *S, session_setup *to, int held, wt_err *e);

int session_new(session *S, const wafer *wf, const model *m, const strategy *s, const session_opts *o, wt_err *e)
{
    memset(S, 0, sizeof *S);
    /* written so that NaN fails too: it would time every step as NaN */
    if (!(o->jitter >= 0 && o->jitter < 1))
        return wt_fail(e, "jitter %g must be in [0, 1)", o->jitter);
    if (!(o->straggler >= 0 && o->straggler <= 1))
        return wt_fail(e, "straggler probability %g must be in [0, 1]", o->straggler);
    int rc = wafer_copy(&S->base, wf, e);
    if (rc != WT_OK)
        return rc;
    if ((rc = wafer_copy(&S->wf, wf, e)) != WT_OK) {
        wafer_free(&S->base);
        return rc;
    }
    if ((rc = sim_ctx_new(&S->ctx, &S->wf, e)) != WT_OK) {
        wafer_free(&S->base);
        wafer_free(&S->wf);
        return rc;
    }
    S->m = *m;
    S->s = *s;
    S->o = *o;
    if (!S->o.net)
        S->o.net = net_model_default();
    if (!(S->o.window_s > 0))
        S->o.window_s = SIM_WINDOW_S;
    sim_ctx_set_net(S->ctx, S->o.net);
    sim_ctx_set_window(S->ctx, S->o.window_s);
    S->rng = o->seed ? o->seed : 1;
    S->dirty = 1;
    if ((rc = save_setup(S, &S->origin, 0, e)) != WT_OK)
        session_free(S);
    return rc;
}

void session_free(session *S)
{
    if (S->evaluated)
        sim_free(&S->res);
    sim_ctx_free(S->ctx);
    wafer_free(&S->wf);
    wafer_free(&S->base);
    wafer_free(&S->origin.wf);
    if (S->marked)
        wafer_free(&S->mark.wf);
    memset(S, 0, sizeof *S);
}

/* This step's pace: the slowest used unit's factor. */
static double step_factor(session *S, int units)
{
    double f = 1;
    if (S->o.jitter <= 0 && S->o.straggler <= 0)
        return f;
    for (int u = 0; u < units; u++) {
        double x = 1 + S->o.jitter * (2 * next_unit(S) - 1);
        if (S->o.straggler > 0 && next_unit(S) < S->o.straggler)
            x *= 2;
        if (x > f || u == 0)
            f = x;
    }
    return f;
}

int session_step(session *S, const sim_result **out, wt_err *e)
{
    if (S->refault) {
        sim_ctx *c;
        int rc = sim_ctx_new(&c, &S->wf, e);
        if (rc != WT_OK)
            return rc;
        sim_ctx_set_net(c, S->o.net);
        sim_ctx_set_window(c, S->o.window_s);
        sim_ctx_free(S->ctx);
        S->ctx = c;
        S->refault = 0;
    }
    int fresh = S->dirty || !S->evaluated;
    if (fresh) {
        sim_result r;
        int rc = sim_eval_tuned(S->ctx, &r, &S->m, &S->s, &S->tune, e);
        if (rc != WT_OK)
            return rc;
        if (S->evaluated)
            sim_free(&S->res);
        S->res = r;
        S->evaluated = 1;
        S->dirty = 0;
    }
    /* an evaluation times its step at factor 1: the same again is skipped */
    double factor = step_factor(S, S->res.units_used);
    int rc = fresh && factor == S->res.compute_scale ? WT_OK : sim_retime(S->ctx, &S->res, factor, e);
    if (rc != WT_OK) {
        S->dirty = 1; /* its figures are half done: the next step evaluates again */
        return rc;
    }
    S->steps++;
    *out = &S->res;
    return WT_OK;
}

/* Resolves a strategy on the session's wafer and model into spec (its
 * phases, without routing anything). */
static int check(session *S, const strategy *s, sim_result *spec, wt_err *e)
{
    memset(spec, 0, sizeof *spec);
    return sim_spec(spec, &S->wf, &S->m, s, e);
}

/* The parts of a setup an action changes. */
typedef struct setup_ref {
    strategy *s;
    sim_tuning *tune;
    wafer *wf;
} setup_ref;

/* The setups an action changes: the current one, and the running policy's
 * mark when the user acts (so that undoing the policy keeps the user's
 * action). Returns how many. */
static int targets(session *S, setup_ref t[2])
{
    t[0] = (setup_ref){&S->s, &S->tune, &S->wf};
    if (!S->marked || S->actor != SESSION_USER)
        return 1;
    t[1] = (setup_ref){&S->mark.s, &S->mark.tune, &S->mark.wf};
    return 2;
}

int session_set_strategy(session *S, const strategy *s, wt_err *e)
{
    sim_result spec;
    int rc = check(S, s, &spec, e);
    if (rc != WT_OK)
        return rc;
    setup_ref t[2];
    for (int i = targets(S, t); i-- > 0;)
        *t[i].s = *s;
    S->dirty = 1;
    char text[64];
    note(S, "strategy %s", strategy_format(s, text, sizeof text));
    return WT_OK;
}

int session_set_placement(session *S, place_kind p, wt_err *e)
{
    (void)e;
    setup_ref t[2];
    for (int i = targets(S, t); i-- > 0;)
        t[i].s->placement = p;
    S->dirty = 1;
    note(S, "placement %s", place_kind_name(p));
    return WT_OK;
}

int session_set_subgroup(session *S, int wx, int wy, wt_err *e)
{
    if (wx < 1 || wy < 1)
        return wt_fail(e, "subgroup %dx%d must be at least 1x1", wx, wy);
    setup_ref t[2];
    for (int i = targets(S, t); i-- > 0;) {
        t[i].s->sub_w = wx;
        t[i].s->sub_h = wy;
        t[i].s->collective = COLL_HIER;
    }
    S->dirty = 1;
    note(S, "subgroup %dx%d", wx, wy);
    return WT_OK;
}

/* The tuning entry of a phase of the current setup, made on first use. The
 * setup's own phases, not the last step's: those are stale after a strategy
 * change and gone after a fault, and an entry once made is never dropped. */
static sim_phase_tune *phase_entry(session *S, sim_tuning *tune, const char *phase, wt_err *e)
{
    sim_result spec;
    wt_err why;
    if (check(S, &S->s, &spec, &why) != WT_OK) {
        wt_fail(e, "cannot tune phase '%s': %s", phase, why.msg);
        return NULL;
    }
    if (sim_phase_find(&spec, phase) < 0) {
        char list[512] = "";
        for (int i = 0; i < spec.nphases; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", spec.phases[i].name);
        wt_fail(e, "no phase '%s' (phases: %s)", phase, list);
        return NULL;
    }
    const sim_phase_tune *had = sim_tuning_find(tune, phase);
    if (had)
        return &tune->phase[had - tune->phase];
    if (tune->nphases == SIM_MAX_PHASES || strlen(phase) >= sizeof tune->phase[0].phase) {
        wt_fail(e, "cannot tune phase '%s'", phase);
        return NULL;
    }
    sim_phase_tune *t = &tune->phase[tune->nphases++];
    *t = (sim_phase_tune){"", -1, 1, 0};
    snprintf(t->phase, sizeof t->phase, "%s", phase);
    return t;
}

int session_set_routing(session *S, const char *phase, route_mode mode, wt_err *e)
{
    setup_ref t[2];
    for (int i = 0, n = targets(S, t); i < n; i++) {
        if (!phase || !strcmp(phase, "all")) {
            t[i].s->routing = mode;
            for (int k = 0; k < t[i].tune->nphases; k++)
                t[i].tune->phase[k].routing = -1;
            continue;
        }
        sim_phase_tune *p = phase_entry(S, t[i].tune, phase, e);
        if (!p)
            return WT_EINPUT;
        p->routing = (int)mode;
    }
    S->dirty = 1;
    note(S, "routing %s %s", phase ? phase : "all", route_mode_name(mode));
    return WT_OK;
}

int session_delay(session *S, const char *phase, int waves, wt_err *e)
{
    if (waves < 1 || waves > SIM_MAX_WAVES)
        return wt_fail(e, "waves %d must be 1 to %d", waves, SIM_MAX_WAVES);
    setup_ref t[2];
    for (int i = 0, n = targets(S, t); i < n; i++) {
        sim_phase_tune *p = phase_entry(S, t[i].tune, phase, e);
        if (!p)
            return WT_EINPUT;
        p->waves = waves;
    }
    S->dirty = 1;
    note(S, "delay %s %d waves", phase, waves);
    return WT_OK;
}

int session_set_priority(session *S, const char *phase, int level, wt_err *e)
{
    setup_ref t[2];
    for (int i = 0, n = targets(S, t); i < n; i++) {
        if (!phase) {
            for (int k = 0; k < t[i].tune->nphases; k++)
                t[i].tune->phase[k].priority = 0;
            continue;
        }
        sim_phase_tune *p = phase_entry(S, t[i].tune, phase, e);
        if (!p)
            return WT_EINPUT;
        p->priority = level;
    }
    S->dirty = 1;
    if (phase)
        note(S, "priority %s %d", phase, level);
    else
        note(S, "priority cleared");
    return WT_OK;
}

/* The wafer's faults changed: the next step builds a context that follows
 * them (so that an action never fails after changing the wafer). The last
 * step's result stays (the screen and a policy's hooks still show it) until
 * then: it borrows S->wf, whose arrays keep their sizes, and reads the new
 * faults (a link that just died shows its old bytes and no bandwidth). */
static void refault(session *S)
{
    S->refault = 1;
    S->dirty = 1;
}

int session_fail_link(session *S, int x, int y, int dir, wt_err *e)
{
    setup_ref t[2];
    for (int i = 0, n = targets(S, t); i < n; i++) {
        int rc = wafer_fail_link(t[i].wf, x, y, dir, e);
        if (rc != WT_OK)
            return rc; /* the first fails before changing anything: the mark has the same mesh */
    }
    refault(S);
    note(S, "fail link %d,%d,%c", x, y, wafer_dir_char(dir));
    return WT_OK;
}

int session_fail_unit(session *S, int x, int y, wt_err *e)
{
    setup_ref t[2];
    for (int i = 0, n = targets(S, t); i < n; i++) {
        int rc = wafer_fail_unit(t[i].wf, x, y, e);
        if (rc != WT_OK)
            return rc;
    }
    refault(S);
    note(S, "fail unit %d,%d", x, y);
    return WT_OK;
}

/* Replaces *to with a copy of from (*to unchanged on error). */
static int copy_over(wafer *to, const wafer *from, wt_err *e)
{
    wafer w;
    int rc = wafer_copy(&w, from, e);
    if (rc != WT_OK)
        return rc;
    wafer_free(to);
    *to = w;
    return WT_OK;
}

int session_repair(session *S, wt_err *e)
{
    setup_ref t[2];
    for (int i = 0, n = targets(S, t); i < n; i++) {
        int rc = copy_over(t[i].wf, &S->base, e);
        if (rc != WT_OK)
            return rc;
    }
    refault(S);
    note(S, "repair");
    return WT_OK;
}

int session_switch(session *S, const strategy *s, int microbatch, wt_err *e)
{
    model m = S->m;
    m.microbatch = microbatch ? microbatch : S->origin.microbatch;
    sim_result spec;
    memset(&spec, 0, sizeof spec);
    int rc = sim_spec(&spec, &S->wf, &m, s, e);
    if (rc != WT_OK)
        return rc;
    setup_ref t[2];
    for (int i = targets(S, t); i-- > 0;) {
        *t[i].s = *s;
        t[i].tune->nphases = 0;
    }
    if (S->marked && S->actor == SESSION_USER)
        S->mark.microbatch = m.microbatch;
    S->m.microbatch = m.microbatch;
    S->dirty = 1;
    char text[64];
    note(S, "strategy %s, micro-batch %d", strategy_format(s, text, sizeof text), m.microbatch);
    return WT_OK;
}

/* The setup now into *to (whose wafer, if held, is replaced). */
static int save_setup(const session *S, session_setup *to, int held, wt_err *e)
{
    wafer w;
    int rc = wafer_copy(&w, &S->wf, e);
    if (rc != WT_OK)
        return rc;
    if (held)
        wafer_free(&to->wf);
    *to = (session_setup){S->s, S->m.microbatch, S->tune, w};
    return WT_OK;
}

/* from becomes the setup now. */
static int restore_setup(session *S, const session_setup *from, wt_err *e)
{
    int rc = copy_over(&S->wf, &from->wf, e);
    if (rc != WT_OK)
        return rc;
    S->s = from->s;
    S->m.microbatch = from->microbatch;
    S->tune = from->tune;
    refault(S);
    return WT_OK;
}

int session_mark_opened(session *S, wt_err *e)
{
    return save_setup(S, &S->origin, 1, e);
}

int session_reset(session *S, wt_err *e)
{
    int rc = restore_setup(S, &S->origin, e);
    if (rc == WT_OK && S->marked)
        rc = save_setup(S, &S->mark, 1, e);
    if (rc == WT_OK)
        note(S, "reset");
    return rc;
}

void session_set_actor(session *S, int actor)
{
    S->actor = actor;
}

int session_policy_start(session *S, wt_err *e)
{
    int rc = save_setup(S, &S->mark, S->marked, e);
    if (rc == WT_OK)
        S->marked = 1;
    return rc;
}

int session_policy_keep(session *S, wt_err *e)
{
    if (!S->marked)
        return wt_fail(e, "keep: no policy is running");
    return save_setup(S, &S->mark, 1, e);
}

int session_policy_end(session *S, int keep, wt_err *e)
{
    if (!S->marked)
        return WT_OK;
    if (!keep) {
        int rc = restore_setup(S, &S->mark, e);
        if (rc != WT_OK)
            return rc;
        note(S, "the policy's actions undone");
    }
    wafer_free(&S->mark.wf);
    S->marked = 0;
    return WT_OK;
}

const char *session_take_log(session *S, char *buf, size_t n)
{
    snprintf(buf, n, "%s", S->log);
    S->log[0] = '\0';
    return buf;
}
