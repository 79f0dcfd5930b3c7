/*
 * session_changes.c - what a session's setup changes since it was opened or
 * since its policy started, as one line: the micro-batch, each phase's
 * tuning, each fault added or repaired, the strategy and each option that
 * differs. The screen shows it so that nothing it simulates is hidden.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "place.h"
#include "session.h"

/* A "; "-joined list being written; n counts the items (past a full buffer
 * too). */
typedef struct changes {
    char *buf;
    size_t size;
    int n;
} changes;

static void item(changes *c, const char *fmt, ...)
{
    size_t len = strlen(c->buf);
    c->n++;
    if (len + 3 >= c->size)
        return;
    if (len) {
        strcpy(c->buf + len, "; ");
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->buf + len, c->size - len, fmt, ap);
    va_end(ap);
}

/* An option of a strategy as text. */
typedef void (*option_fn)(const strategy *s, char *buf, size_t n);

static void opt_placement(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", place_kind_name(s->placement)); }
static void opt_collective(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", coll_algo_name(s->collective)); }
static void opt_routing(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", route_mode_name(s->routing)); }
static void opt_checkpoint(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", recompute_name(s->checkpoint)); }
static void opt_mem(const strategy *s, char *b, size_t n) { mem_switches_format(s->mem, b, n); }
static void opt_grad(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", grad_compress_name(s->grad)); }
static void opt_chunk(const strategy *s, char *b, size_t n) { snprintf(b, n, "%.17g B", s->chunk); }
static void opt_subgroup(const strategy *s, char *b, size_t n) { snprintf(b, n, "%dx%d", s->sub_w, s->sub_h); }
static void opt_seqpar(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", s->tp_seqpar ? "on" : "off"); }
static void opt_exec(const strategy *s, char *b, size_t n) { snprintf(b, n, "%s", exec_mode_name(s->exec)); }

static const struct {
    const char *name;
    option_fn text;
} options[] = {
    {"placement", opt_placement}, {"collective", opt_collective}, {"routing", opt_routing},
    {"checkpoint", opt_checkpoint}, {"mem", opt_mem},             {"grad-compress", opt_grad},
    {"chunk", opt_chunk},         {"subgroup", opt_subgroup},     {"tp-seqpar", opt_seqpar},
    {"exec", opt_exec},
};

static void strategy_changes(changes *c, const strategy *was, const strategy *now)
{
    char a[64], b[64];
    if (strcmp(strategy_format(was, a, sizeof a), strategy_format(now, b, sizeof b)))
        item(c, "strategy %s", b);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        options[i].text(was, a, sizeof a);
        options[i].text(now, b, sizeof b);
        if (strcmp(a, b))
            item(c, "%s %s", options[i].name, b);
    }
}

/* A phase's tuning as it differs from the defaults or from was's. */
static void tuning_changes(changes *c, const sim_tuning *was, const sim_tuning *now)
{
    static const sim_phase_tune none = {"", -1, 1, 0};
    for (int i = 0; i < now->nphases; i++) {
        const sim_phase_tune *p = &now->phase[i], *q = sim_tuning_find(was, p->phase);
        q = q ? q : &none;
        if (p->waves != q->waves)
            item(c, "delay %s %d waves", p->phase, p->waves);
        if (p->priority != q->priority)
            item(c, "priority %s %d", p->phase, p->priority);
        if (p->routing != q->routing)
            item(c, "routing %s %s", p->phase, p->routing < 0 ? "as the strategy's" : route_mode_name(p->routing));
    }
    for (int i = 0; i < was->nphases; i++) { /* entries the setup now no longer has (a new strategy's) */
        const sim_phase_tune *q = &was->phase[i];
        if (!sim_tuning_find(now, q->phase) && (q->waves != 1 || q->priority || q->routing >= 0))
            item(c, "%s untuned", q->phase);
    }
}

/* Units and links (once each, from their west or north end) dead in one
 * wafer and not the other. */
static void fault_changes(changes *c, const wafer *was, const wafer *now)
{
    static const int dirs[2] = {WAFER_E, WAFER_S};
    size_t nu = wafer_nunits(now);
    if (!memcmp(now->unit_dead, was->unit_dead, nu) && !memcmp(now->link_dead, was->link_dead, nu * WAFER_NDIR))
        return; /* the usual case, and on a wafer far faster than the walk */
    for (int u = 0; u < (int)nu; u++) {
        int x = wafer_x(now, u), y = wafer_y(now, u);
        if (now->unit_dead[u] != was->unit_dead[u])
            item(c, "%s %d,%d", now->unit_dead[u] ? "fault" : "repaired", x, y);
        for (int k = 0; k < 2; k++) {
            size_t l = (size_t)u * WAFER_NDIR + (size_t)dirs[k];
            if (now->link_dead[l] != was->link_dead[l])
                item(c, "%s %d,%d,%c", now->link_dead[l] ? "fault" : "repaired", x, y, wafer_dir_char(dirs[k]));
        }
    }
}

int session_changes(const session *S, int since, char *buf, size_t n)
{
    changes c = {buf, n, 0};
    buf[0] = '\0';
    if (since == SESSION_SINCE_POLICY && !S->marked)
        return 0;
    const session_setup *was = since == SESSION_SINCE_POLICY ? &S->mark : &S->origin;
    /* the strategy last: the panel shows it in full above */
    if (S->m.microbatch != was->microbatch)
        item(&c, "micro-batch %d", S->m.microbatch);
    tuning_changes(&c, &was->tune, &S->tune);
    fault_changes(&c, &was->wf, &S->wf);
    strategy_changes(&c, &was->s, &S->s);
    return c.n;
}
