/*
 * session.h - a live training run: steps go by, a policy or the user acts
 * between them, faults come and go (docs/MODEL.md section 13).
 *
 * The session holds the layout (as loaded, and with run-time faults), the
 * model, the strategy and the run-time tuning. A step evaluates the current
 * setup when something changed since the last one, then scales its compute
 * by this step's variation: every used unit draws a factor within +-jitter,
 * and doubles with probability straggler; the slowest unit sets the pace of
 * its synchronised step. The same seed gives the same run.
 */
#ifndef WT_SESSION_H
#define WT_SESSION_H

#include <stdint.h>

#include "sim.h"

typedef struct session_opts {
    uint64_t seed;      /* 0 means 1 */
    double jitter;      /* 0..1 */
    double straggler;   /* probability per unit and step, 0..1 */
    const struct net_model *net; /* what times every step (net.h); NULL: net_model_default() */
    double window_s;    /* every step's windowed figures (sim.h), s; 0: SIM_WINDOW_S */
} session_opts;

#define SESSION_LOG 256

/* What a step simulates beyond the layout and the model's shape: what
 * session_reset and session_policy_end restore. */
typedef struct session_setup {
    strategy s;
    int microbatch;         /* sequences per micro-batch */
    sim_tuning tune;
    wafer wf;               /* the layout with its run-time faults, owned */
} session_setup;

/* Who acts: the user (or a script that owns its session), or the running
 * policy, whose actions session_policy_end can undo. */
enum session_actor { SESSION_USER = 0, SESSION_POLICY };

typedef struct session {
    wafer base;             /* the layout as loaded, owned */
    wafer wf;               /* with run-time faults, owned */
    sim_ctx *ctx;           /* for wf as it was at the last step */
    int refault;            /* wf's faults changed since ctx was built: rebuild it first */
    model m;
    strategy s;             /* as set: dimensions may be left to fill */
    sim_tuning tune;
    session_opts o;         /* as given, with o.net never NULL */
    uint64_t rng;
    int steps;              /* steps taken */
    int dirty;              /* the setup changed since `res` was evaluated */
    int evaluated;          /* res holds the last evaluation; kept when faults change until the next
                               step, it borrows wf and so shows the new faults over its old loads */
    sim_result res;         /* the current setup, retimed for the last step, owned */
    char log[SESSION_LOG];  /* the actions since the last step, "; "-joined */
    session_setup origin;   /* as opened (session_mark_opened): what session_reset restores */
    session_setup mark;     /* before the running policy's actions, with the user's since */
    int marked;             /* a policy runs: mark holds */
    int actor;              /* enum session_actor: who the actions are now */
} session;

/* Copies the layout, model and strategy; the caller keeps its own. */
int session_new(session *S, const wafer *wf, const model *m, const strategy *s, const session_opts *o, wt_err *e);
void session_free(session *S);

/* Takes a step. On success *out points to the session's result, valid until
 * the next step or action. An error (a strategy that no longer fits after a
 * fault, say) leaves the session as it was, ready for another action. */
int session_step(session *S, const sim_result **out, wt_err *e);

/* Actions; each changes what the next step simulates and is noted in the
 * log. Errors say why and change nothing. */
int session_set_strategy(session *S, const strategy *s, wt_err *e);
int session_set_placement(session *S, place_kind p, wt_err *e);
/* Collectives of groups larger than wx x wy become hierarchical. */
int session_set_subgroup(session *S, int wx, int wy, wt_err *e);
/* A phase is one of the setup the next step runs (the strategy as set);
 * phase NULL or "all": every phase. */
int session_set_routing(session *S, const char *phase, route_mode mode, wt_err *e);
/* Splits the phase's groups into waves (1 undoes it). */
int session_delay(session *S, const char *phase, int waves, wt_err *e);
/* The phase's priority level where its traffic overlaps another phase's
 * (higher first, equal levels share fairly; 0 is the default); phase NULL:
 * every level back to 0. */
int session_set_priority(session *S, const char *phase, int level, wt_err *e);
int session_fail_link(session *S, int x, int y, int dir, wt_err *e);
int session_fail_unit(session *S, int x, int y, wt_err *e);
/* Back to the layout's own faults. */
int session_repair(session *S, wt_err *e);

/* A new strategy from the user, with micro-batch microbatch (0: the opening
 * one): the run-time tuning goes (it tuned the old strategy's phases), the
 * faults stay. */
int session_switch(session *S, const strategy *s, int microbatch, wt_err *e);

/* The setup as it is now is the one the session was opened with (after the
 * opening faults and tuning): what session_reset restores and
 * session_changes compares with. session_new marks its own setup. */
int session_mark_opened(session *S, wt_err *e);
/* Back to the setup as opened (a running policy's mark too). */
int session_reset(session *S, wt_err *e);

/* Whose the next actions are (enum session_actor). While a policy runs, a
 * user's action changes its mark too, so that undoing the policy keeps it. */
void session_set_actor(session *S, int actor);
/* A policy starts: the setup now is what session_policy_end restores. */
int session_policy_start(session *S, wt_err *e);
/* The policy's actions so far stay when it ends (`:keep`). */
int session_policy_keep(session *S, wt_err *e);
/* The policy ends: its actions since it started (or since the last keep)
 * are undone unless keep. */
int session_policy_end(session *S, int keep, wt_err *e);

/* What the setup now changes, "; "-joined into buf ("" when nothing):
 * since SESSION_SINCE_OPENED (session_mark_opened) or SESSION_SINCE_POLICY
 * (the running policy's mark; "" when none runs). Returns how many. */
enum session_since { SESSION_SINCE_OPENED = 0, SESSION_SINCE_POLICY };
int session_changes(const session *S, int since, char *buf, size_t n);

/* Takes the log of actions since the last call ("" when none). */
const char *session_take_log(session *S, char *buf, size_t n);

#endif
