/*
 * ui.h - the screen program (`wafertop ui`): what the live screen holds and
 * the parts that act on it. Data flows one way: the session steps, its
 * result is coloured (ui_live.c), the view draws it into the canvas
 * (view*.c) and the terminal layer shows the canvas (term.c). Keys
 * (ui_keys.c) and `:` commands (ui_cmds.c) change the session or the view;
 * the search runs in a thread of its own (ui_search.c).
 */
#ifndef WT_UI_H
#define WT_UI_H

#include <pthread.h>
#include <stdatomic.h>

#include "canvas.h"
#include "cli.h"
#include "cmdline.h"
#include "flit_phase.h"
#include "group.h"
#include "keys.h"
#include "search.h"
#include "session.h"
#include "theme.h"
#include "view.h"
#include "wtlua.h"

#define UI_MAX_THEMES 16
/* Hot links a policy's on_hot_link sees per step, hottest first. */
#define UI_MAX_HOT 8

/* The background search. */
typedef struct ui_search {
    pthread_t thread;
    int running;              /* started and not joined yet */
    atomic_int done, stop, permille;
    wafer wf;                 /* copies for the thread, owned while running or offered */
    model m;
    search_opts o;
    int rc;
    wt_err e;
    search_result res;
    int offered;              /* res holds a best that `y` applies */
    char unfit[256];          /* started because the session's strategy does not fit (ui_fit.c): why;
                                 its best is then applied when done, else "" */
    strategy from;            /* the session's strategy when it started */
} ui_search;

/* The phase at the cursor of time replayed at flit level (ui_flit.c, key
 * f): a thread runs it on copies of the result and its wafer; when it is
 * done the mesh area shows the window's link utilisation beside its
 * buffers' mean occupancy, until f again. */
typedef struct ui_flit {
    pthread_t thread;
    int running;              /* started and not joined yet */
    atomic_int done, stop;
    wafer wf;                 /* copies for the thread, owned while running or shown */
    sim_result r;
    int phase, rc;
    wt_err e;
    flit_phase_opts opts;
    flit_phase_out out;
    int shown;                /* out is on the screen */
    view_compare view;
    double *util, *buf;       /* per link slot of the mesh: out's, 0 outside the window */
    int *at;                  /* the window's link slots, ascending */
    size_t nat;
    char title[2][160];
} ui_flit;

/* Phases running at one time at most: a slot's phase and the hidden DP
 * all-reduce. */
#define UI_MAX_RUNNING 4

/* A figure per link slot that is 0 but at the slots `at` lists (a copy of
 * the loaded links of the result it was last filled for): the next result
 * clears those alone, and the blocks read those alone (view_state.nonzero). */
typedef struct ui_links {
    double *val;                      /* nlinks, owned */
    int *at;                          /* ascending, nat of them, owned */
    size_t nat;
    int dense;                        /* may be non-zero anywhere (a result without loaded links) */
} ui_links;

/* The group overlay (ui_groups.c): the group of a kind around the cursor's
 * unit, made again when the unit or the result changes. */
typedef struct ui_group {
    int kind;                         /* coll_kind shown, or -1 for none */
    int unit;                         /* the unit it was made for (-1: none) */
    long gen;                         /* the result it was made for (ui_play.gen) */
    group g;
} ui_group;

/* The cursor of time and what the mesh is coloured by (ui_play.c). */
typedef struct ui_play {
    ui_links avg;                     /* utilisation over the step; filled when the average is
                                         first shown (avg_gen) */
    const sim_link_classes *classes;  /* the result's links by their loads: its own (the evaluation
                                         made them for its windows), else own, made when the window
                                         is first shown for it (window_gen); NULL before */
    sim_link_classes own;
    double *window;                   /* per class: busy fraction in the window at the cursor */
    size_t nlinks;
    long gen;                         /* bumped at every result */
    long window_gen;                  /* the gen and cursor window was computed for (-1: none) */
    long avg_gen;                     /* the gen avg was computed for (-1: none) */
    long shown;                       /* bumped whenever the colours change (view_state.values_gen) */
    long mesh;                        /* bumped at every result and fault (view_state.mesh_gen) */
    double window_t;
    double compute_now;               /* what view_state.compute_now was last (a change bumps shown) */
    size_t hot[VIEW_HOT_ROWS];        /* the links with the busiest windows, hottest first */
    int nhot;
    int order[SIM_MAX_PHASES];        /* the phases in the order the step plays them */
    int norder;
    int running[UI_MAX_RUNNING];      /* the phases running at the cursor (view_state.running) */
    int average;                      /* colour by the step average, else by the window at the cursor */
    int fixed;                        /* the colour scale is 0-100 %, else 0 .. the highest value shown */
    double t;                         /* the cursor: seconds into the step */
    int playing;                      /* the cursor plays */
    int level;                        /* the speed's entry in ui_play.c's table (step seconds per
                                         second); -1 until a session's first result picks it */
    double moved_at;                  /* wall clock, s, of the cursor's last tick */
    char label[64];                   /* what view_state.util_label points at */
} ui_play;

typedef struct ui {
    const char *root;
    cli_opts o;                       /* the options the screen started with */
    char layout[1024], model[1024];   /* the current layout and model, as named */
    char policy[64];                  /* the running policy's name, or "" */
    char policy_src[1024];            /* what loaded it, for a reload */
    char opened_policy[1024];         /* the policy the session was opened with (:reset), or "" */
    char changes[512];                /* what the setup changes since it was opened (the panel's line) */
    int nchanges;
    char stalled[512];                /* why the last step failed (the banner), or "" */
    int fit_search;                   /* the search running or offered looks for a strategy that fits */
    char banner[1024];                /* what view_state.banner points at */
    wtlua *L;                         /* lives with the session: its results borrow S's wafer */
    session *S;                       /* owned */
    const sim_result *r;              /* S's current result, or NULL when the last step failed */

    ui_play play;                     /* the cursor of time, what the mesh is coloured by */

    /* steps */
    int paused, speed_level;          /* steps per second = ui_speeds[speed_level] */
    double next_step_at;
    int step_wanted;                  /* take a step now (after an action) */

    /* screen */
    canvas cv;
    view_state v;
    theme themes[UI_MAX_THEMES];
    int nthemes, theme;
    int ncolours;                     /* 256, 16, 8, or 0 for monochrome */
    cmdline cmd, find;
    int mouse;
    char *out[VIEW_OUTPUT];           /* the output pane, oldest first, owned */
    int nout;
    long out_total;                   /* lines ever printed */
    char partial[512];                /* Lua output before its newline */
    char status[512];
    int status_error;
    char complete_buf[2048];          /* the words Tab completion offers */

    ui_search search;
    ui_group group;
    struct ui_compare *cmp;           /* `:compare`, or NULL (ui_compare.c) */
    ui_flit flit;
    int quit;
} ui;

extern const double ui_speeds[];
extern const int ui_nspeeds;

/* ui_live.c: the session and what the screen shows of it. */
/* A screen with its defaults and no session yet (ui_load starts one), or
 * NULL when out of memory; root is the data directory. ui_free frees it and
 * everything it holds. */
ui *ui_new(const char *root);
void ui_free(ui *u);
/* Starts (or restarts) the session, and the Lua state that lives with it, on
 * a layout and a model (names or files) with a strategy: argv = S [--option
 * V ...] as on the command line, or argc 0 for the current one (the
 * startup's at first). On error the old session stays. */
int ui_load(ui *u, const char *layout, const char *model, int argc, char **argv, wt_err *e);
/* Fails the unit "x,y" or its link "x,y,DIR" in the session (a run-time
 * fault: :repair undoes it); errors start with who ("fail", "--fail"). */
int ui_fail(ui *u, const char *who, const char *text, wt_err *e);
/* Words S [--option V ...] into s (not resolved), in L for lua:NAME. */
int ui_parse_strategy(ui *u, wtlua *L, int argc, char **argv, const wafer *wf, const model *m, strategy *s,
                      wt_err *e);
/* Takes a step, runs the policy, logs its actions. */
void ui_step(ui *u);
/* Points u->v at what the next frame shows (no simulation). */
void ui_sync_view(ui *u);
void ui_free_session(ui *u);
/* Appends text (lines split at newlines) to the output pane. */
void ui_print(ui *u, const char *text);
/* Shows the pane from the first line printed since out_total was start
 * (an answer longer than the pane: its start, PgDn the rest), or its end. */
void ui_show_from(ui *u, long start);
void ui_printf(ui *u, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The status line: a message, or an error (first line only). */
void ui_status(ui *u, int error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Where Lua's print goes. */
void ui_lua_out(void *ud, const char *s, size_t n);
/* Loads a policy (name or file) into the Lua state and starts it; "" or
 * "off" stops it. A policy that stops (or gives way to another) has its
 * actions undone unless `:keep` kept them (session_policy_end); the output
 * pane says which. */
int ui_set_policy(ui *u, const char *name_or_path, wt_err *e);
/* The running policy stops (why: "off", or its error), its actions undone. */
void ui_policy_stop(ui *u, const char *why);
/* The session as it stands is the one opened (after the opening faults,
 * tuning and policy): what `:reset` returns to. */
int ui_mark_opened(ui *u, wt_err *e);
/* `:reset`: back to the setup and the policy the session was opened with. */
int ui_reset(ui *u, wt_err *e);
/* u->changes again, after anything that may have changed the setup. */
void ui_note_changes(ui *u);
/* The step failed (why): the banner says so, and a search for a strategy
 * that fits starts in the background (once per failure). */
void ui_stalled(ui *u, const char *why);
/* The banner over the mesh while steps fail (u->banner), or NULL. */
const char *ui_banner(ui *u);
/* The unit and links under the cursor, into the output pane. */
void ui_inspect(ui *u);

/* ui_play.c: the cursor of time. ui_play_links makes a fresh p's link
 * array (0, or -1 out of memory, p then empty); ui_play_start moves
 * fresh's arrays into p for a new session (the cursor at 0, the speed
 * picked again; the colouring choices stay), ui_play_free frees them. */
int ui_play_links(ui_play *p, size_t nlinks);
void ui_play_start(ui_play *p, ui_play *fresh);
void ui_play_free(ui_play *p);
/* The step's result u->r is new (or NULL): the averages, the hottest
 * links, the playing order. */
void ui_play_result(ui *u);
/* Moves the cursor to the wall clock now when it plays; 1 when it moved. */
int ui_play_tick(ui *u, double now);
/* p: play or stop; , .: slower or faster; [ ]: the previous or next phase
 * start (stops the cursor, leaves the step average). */
void ui_play_toggle(ui *u);
void ui_play_speed(ui *u, int faster);
void ui_play_jump(ui *u, int dir);
/* `:at PHASE|TIME`: the cursor to where the phase first runs, or to a time
 * of the step ("2.5s", "300us"); stops it. Errors start with "at:". */
int ui_play_at(ui *u, const char *what, wt_err *e);
/* Points u->v at the cursor and the colours (links: the links are shown or
 * read, so the window at the cursor must be current). */
void ui_play_view(ui *u, int links);

/* The step average of r's links into a (allocated for nlinks): cleared
 * where it held a figure, then filled at r's loaded links (everywhere when
 * r lists none; a is then dense). */
void ui_links_average(ui_links *a, size_t nlinks, const sim_result *r);

/* ui_compare.c: `:compare S [--opt V ...]` evaluates S (with the option
 * flags the screen was opened with, then its own) on the session's mesh
 * and model and shows it beside the session's result (B beside A);
 * `:compare off` ends it. A strategy that cannot be placed is an error;
 * one that does not fit in memory is compared, and the status line says
 * so. B is evaluated again when the session's faults change; a new
 * session ends the comparison (ui_compare_end, from ui_free_session). */
int ui_compare_cmd(ui *u, int argc, char **argv, wt_err *e);
void ui_compare_end(ui *u);
/* `d`: side by side or the difference. */
void ui_compare_key(ui *u, int key);
/* Points u->v.compare at what the next frame shows (NULL: no comparison). */
void ui_compare_view(ui *u);

/* ui_keys.c: a key in the main view (not the command line). */
void ui_key(ui *u, const key_event *ev);

/* ui_cmds.c: runs a `:` command line; words for Tab completion. */
void ui_command(ui *u, const char *line);
int ui_complete_words(void *ud, const char *cmd, const char **words, int max);

/* ui_groups.c: `g` and `:group KIND|off` show the group of a kind around
 * the cursor (its members and the links its passes load); ui_group_view
 * points u->v at it, made again when the cursor or the result moved on;
 * ui_group_inspect prints what loads each link out of a unit, by phase and
 * group. */
void ui_group_key(ui *u);
int ui_group_command(ui *u, const char *kind, wt_err *e);
void ui_group_view(ui *u);
void ui_group_inspect(ui *u, int unit);
void ui_group_free(ui *u);

/* ui_search.c: a search (argv: the flags of :search) on the session's
 * wafer and model, in the background; unfit: why the session's strategy
 * does not fit (the best is then applied when done, unless the strategy
 * changed meanwhile), or NULL (it waits for `y`). */
int ui_search_begin(ui *u, int argc, char **argv, const char *unfit, wt_err *e);
/* Called every tick: progress into the status line, the result when done. */
void ui_search_poll(ui *u);
/* `y`: applies the offered best. */
void ui_search_apply(ui *u);
void ui_search_end(ui *u);
/* ui_flit.c: f starts the replay of the phase at the cursor of time, stops
 * a running one, or ends the one shown; poll takes a finished run; view
 * points the mesh area at the replay shown (after ui_compare_view); end
 * forgets it (the screen closes, the session changes). */
void ui_flit_key(ui *u, int key);
void ui_flit_poll(ui *u);
void ui_flit_view(ui *u);
void ui_flit_end(ui *u);
/* The scenario changed (layout, model, faults): a running or offered search
 * no longer applies and is dropped, with a line in the output pane. */
void ui_search_forget(ui *u);

/* ui_fit.c: checks s (not resolved) against the model and the layout. It
 * fits: unfit is "". It does not fit: unfit (n bytes) says why. It cannot
 * run here: an error naming named ("--strategy", "strategy") when the user
 * named it, else s becomes DP over every live unit and unfit says why. */
int ui_fit_check(const wafer *wf, const model *m, strategy *s, const char *named, char *unfit, size_t n, wt_err *e);
/* A new session opened on a strategy with ui_fit_check's unfit: when the
 * user named it, the status line says it does not fit; else a search in the
 * background looks for one that fits and switches to it. */
void ui_fit_opened(ui *u, const char *unfit, int named);

/* ui_themes.c: the themes of ROOT/themes and the user's, by name. */
void ui_load_themes(ui *u, const char *want);
void ui_next_theme(ui *u);

#endif
