/*
 * view.c - the layout of the screen and everything but the mesh: the title,
 * the panels, the output pane, the status or command line, the help overlay.
 */
#include "view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "par.h"
#include "qty.h"

const char *const view_help_lines[] = {
    "keys",
    "  arrows, hjkl    move the cursor (the view follows)",
    "  H J K L         pan the view a quarter of the mesh area",
    "  + - =           zoom in, out (blocks of units), fit the window",
    "  x               blocks show max or mean",
    "  v               next view: links, compute, memory",
    "  a               links: the window at the cursor of time or the step average",
    "  c               link colours: 0 .. the highest shown, or 0-100%",
    "  p               the cursor of time: play or stop",
    "  , .             the cursor plays slower, faster",
    "  [ ]             the cursor to the previous or next phase start (stops it)",
    "  space           steps: pause or run",
    "  n               one step",
    "  < >             fewer, more steps per second",
    "  Enter           inspect the unit and links under the cursor",
    "  /               find a unit: x,y",
    "  g               the group around the cursor: next kind (tatp rows, cols, tp, sp, dp, pp, the tatp",
    "                  grid, the pipeline stage, the subgroup window), off",
    "  t               next theme",
    "  m               mouse on or off (click selects a unit)",
    "  PgUp PgDn End   scroll the output pane",
    "  o               the output pane: tall (half the screen) or short",
    "  y               apply the best strategy a search found",
    "  d               a comparison: side by side or the difference B - A",
    "  f               the phase at the cursor of time at flit level (in a thread; f again stops it):",
    "                  its links' utilisation beside its buffers' mean occupancy; f again: off",
    "  :               command line (up/down history, Tab completes, Esc cancels)",
    "  ? F1            this help",
    "  q F10           quit",
    "commands",
    "  help [NAME]            the Lua commands and their flags (Tab completes the names)",
    "  strategy S [--opt V]   layout NAME [S]   model NAME [S]",
    "  policy NAME|off        start a policy; off stops it and undoes what it did",
    "  keep                   keep what the running policy did (off then leaves it)",
    "  reset                  back to the scenario as opened (the panel's \"changed\" line)",
    "  search [--fix ..] [--only ..] | search stop",
    "  fail x,y[,DIR]         repair            save FILE         quit",
    "  export FILE.png|.svg   the heatmap as shown, as a picture",
    "  at PHASE|TIME          the cursor of time to where PHASE first runs, or to TIME",
    "  group KIND|off         the group of KIND around the cursor (tatp.rows tatp.cols tp sp dp pp tatp",
    "                         stage subgroup)",
    "  compare S [--opt V]    S beside the session's strategy (step averages) | compare off",
    NULL,
};

void view_layout_for(int w, int h, int output_tall, view_layout *l)
{
    memset(l, 0, sizeof *l);
    if (w < VIEW_MIN_W || h < VIEW_MIN_H) {
        l->too_small = 1;
        return;
    }
    int panel = w * 36 / 100;
    panel = panel < 34 ? 34 : panel > 48 ? 48 : panel;
    int out = output_tall ? (h - 1) / 2 : h / 5;
    out = out < 4 ? 4 : out > 10 && !output_tall ? 10 : out;
    l->title = (view_rect){0, 0, w, 1};
    l->status = (view_rect){0, h - 1, w, 1};
    l->output = (view_rect){0, h - 1 - out, w, out};
    int body = l->output.y - 1, left = VIEW_GUTTER + 1;
    l->xaxis = (view_rect){left, 1, w - panel - left - 1, 1};
    l->yaxis = (view_rect){0, 2, VIEW_GUTTER, body - 2};
    l->mesh = (view_rect){left, 2, w - panel - left - 1, body - 2};
    l->legend = (view_rect){1, body, w - 2, 1}; /* under mesh and panel: it always has room */
    l->panel = (view_rect){w - panel, 1, panel, body - 1};
    if (w < VIEW_WIDE_W || output_tall)
        return;
    /* Wide: a mesh is as wide as its height allows, so it takes the whole
     * height, and the output pane goes under the panel, a third of it. */
    int side = h - 2, pane = side / 3 < 4 ? 4 : side / 3;
    l->output = (view_rect){w - panel, h - 1 - pane, panel, pane};
    l->panel.h = side - pane;
    l->yaxis.h = l->mesh.h = h - 4;
    l->legend = (view_rect){1, h - 2, w - panel - 2, 1};
}

static void title(canvas *c, const view_state *v, view_rect a)
{
    canvas_fill(c, a.x, a.y, a.w, 1, ' ', TC_BACKGROUND, TC_ACCENT);
    const sim_result *r = v->r;
    if (!r) {
        canvas_text(c, a.x + 1, a.y, a.w - 2, "wafertop", TC_BACKGROUND, TC_ACCENT, CA_BOLD);
        return;
    }
    char text[64];
    canvas_printf(c, a.x + 1, a.y, a.w - 2, TC_BACKGROUND, TC_ACCENT, CA_BOLD,
                  "wafertop  %s %dx%d  %s  %s  step %d  %s %.3g/s  %s: %s", r->wf->name, r->wf->w, r->wf->h,
                  r->m.name, strategy_format(&r->s, text, sizeof text), v->steps, v->paused ? "paused" : "running",
                  v->speed, v->mode == VIEW_LINKS ? "links" : v->mode == VIEW_COMPUTE ? "compute" : "memory",
                  v->util_label ? v->util_label : "step average");
}

/* The bytes of the first n code points of s (all of it when shorter). */
static size_t utf8_prefix(const char *s, int n)
{
    size_t i = 0;
    for (int k = 0; s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && k++ == n) /* a lead byte starts a code point */
            break;
    return i;
}

/* UTF-8 text in rows of at most w columns (a code point a column) broken
 * at spaces where a row has one, at most max rows from y down (the last
 * ending in "..." when the text goes on); returns the rows, drawn only
 * when draw. */
static int wrapped(canvas *c, int x, int y, int w, int max, const char *text, uint8_t fg, uint8_t bg, uint8_t attr,
                   int draw)
{
    int rows = 0;
    while (*text && rows < max && w > 3) {
        size_t n = utf8_prefix(text, w);
        if (text[n]) { /* more follows: break after the row's last space, if it has one */
            size_t sp = n;
            while (sp > 0 && text[sp] != ' ')
                sp--;
            n = sp > 0 ? sp : n;
        }
        int cut = rows + 1 == max && text[n];
        char line[1024];
        size_t keep = cut ? utf8_prefix(text, w - 3) : n;
        keep = keep < n ? keep : n;
        snprintf(line, sizeof line, "%.*s%s", (int)(keep < sizeof line - 4 ? keep : sizeof line - 4), text,
                 cut ? "..." : "");
        if (draw)
            canvas_text(c, x, y + rows, w, line, fg, bg, attr);
        rows++;
        text += n;
        while (*text == ' ')
            text++;
    }
    return rows;
}

/* A bar of n cells filled to a fraction. */
static void bar(canvas *c, int x, int y, int n, double f, uint8_t colour)
{
    int fill = (int)(f * n + 0.5);
    for (int i = 0; i < n; i++)
        canvas_put(c, x + i, y, i < fill ? 0x2588u : 0x2591u, i < fill ? colour : TC_GRID, TC_BACKGROUND, 0);
}

/* A heading line; returns the next row. */
static int heading(canvas *c, view_rect a, int y, const char *text)
{
    canvas_fill(c, a.x, y, a.w, 1, 0x2500u, TC_GRID, TC_BACKGROUND);
    canvas_printf(c, a.x + 1, y, a.w - 2, TC_ACCENT, TC_BACKGROUND, CA_BOLD, " %s ", text);
    return y + 1;
}

static int figures(canvas *c, const view_state *v, view_rect a, int y)
{
    const sim_result *r = v->r;
    char s1[32], s2[32], text[64], mem[48];
    int w = a.w - 1;
    y = heading(c, a, y, "figures");
    canvas_printf(c, a.x, y++, w, TC_TEXT, TC_BACKGROUND, CA_BOLD, "%s  %s %s %s", strategy_format(&r->s, text, sizeof text),
                  place_kind_name(r->s.placement), coll_algo_name(r->s.collective), route_mode_name(r->s.routing));
    canvas_printf(c, a.x, y++, w, TC_TEXT, TC_BACKGROUND, 0, "step %-10s %s", qty_format(r->step_time_s, QTY_TIME, s1, sizeof s1),
                  qty_format(r->tokens_per_s, QTY_TOKEN_RATE, s2, sizeof s2));
    canvas_printf(c, a.x, y++, w, TC_TEXT, TC_BACKGROUND, 0, "MFU  %-10s idle %.1f%%", (snprintf(s2, sizeof s2, "%.1f%%", 100 * r->mfu), s2),
                  100 * r->idle_fraction);
    canvas_printf(c, a.x, y++, w, r->hot_links ? TC_HOT : TC_TEXT, TC_BACKGROUND, 0,
                  "links max %.1f%% mean %.1f%% hot %d", 100 * r->max_link_util, 100 * r->mean_link_util,
                  r->hot_links);
    canvas_printf(c, a.x, y++, w, TC_TEXT, TC_BACKGROUND, 0, "bottleneck %s",
                  r->nphases ? r->phases[r->bottleneck].name : "-");
    double fill = r->mem.capacity > 0 ? r->mem.total / r->mem.capacity : 0;
    int n = canvas_printf(c, a.x, y, w, TC_TEXT, TC_BACKGROUND, 0, "memory ");
    bar(c, a.x + n, y, 10, fmin(1, fill), r->mem.fits ? TC_ACCENT : TC_HOT);
    canvas_printf(c, a.x + n + 11, y++, w - n - 11, r->mem.fits ? TC_TEXT : TC_HOT, TC_BACKGROUND, 0, "%s %s",
                  qty_format(r->mem.total, QTY_BYTES, s1, sizeof s1), r->mem.fits ? "" : "(too big)");
    canvas_printf(c, a.x, y++, w, TC_TEXT, TC_BACKGROUND, 0, "mem %s  policy %s", mem_switches_format(r->s.mem, mem, sizeof mem),
                  v->policy ? v->policy : "none");
    if (!v->nchanges) /* as opened: the rows go to the sections below */
        return y;
    char line[600];
    snprintf(line, sizeof line, "changed %d: %s", v->nchanges, v->changes ? v->changes : "");
    return y + wrapped(c, a.x, y, w, 3, line, TC_HOT, TC_BACKGROUND, 0, 1);
}

/* 1 when peak u would enter the top list val (n of rows): ties go to the
 * first offered. */
static int hot_wants(const double *val, int n, int rows, double u)
{
    return n < rows || u > val[n - 1];
}

/* Offers link l of peak u to the top list (val, top; *n of rows): after
 * the entries of its peak or more, so that ties keep the order offered. */
static void hot_offer(double *val, size_t *top, int *n, int rows, double u, size_t l)
{
    if (!hot_wants(val, *n, rows, u))
        return;
    int k = *n < rows ? (*n)++ : rows - 1;
    for (; k > 0 && val[k - 1] < u; k--) {
        val[k] = val[k - 1];
        top[k] = top[k - 1];
    }
    val[k] = u;
    top[k] = l;
}

/* The hottest walk split into ranges of the links (par.h), each with its
 * own top list. */
typedef struct hot_job {
    const wafer *wf;
    const double *peak;
    const int *at;
    size_t nl;
    int rows, nparts;
    int n[PAR_MAX];
    double val[PAR_MAX][VIEW_HOT_ROWS];
    size_t top[PAR_MAX][VIEW_HOT_ROWS];
} hot_job;

static void hot_range(void *ctx, int part)
{
    hot_job *j = ctx;
    size_t i0, i1;
    par_range(j->nl, part, j->nparts, &i0, &i1);
    j->n[part] = 0;
    for (size_t i = i0; i < i1; i++) {
        size_t l = j->at ? (size_t)j->at[i] : i;
        double u = j->peak[l];
        if (u > 0 && hot_wants(j->val[part], j->n[part], j->rows, u) && sim_link_inv_bw(j->wf, l) > 0)
            hot_offer(j->val[part], j->top[part], &j->n[part], j->rows, u, l);
    }
}

int view_hottest(const wafer *wf, const double *peak, const int *at, size_t nat, size_t *top, int rows)
{
    size_t nl = at ? nat : wafer_nlinks(wf);
    hot_job j = {.wf = wf, .peak = peak, .at = at, .nl = nl, .nparts = par_parts(nl),
                  .rows = rows < VIEW_HOT_ROWS ? rows : VIEW_HOT_ROWS};
    if (j.rows <= 0)
        return 0;
    par_run(j.nparts, hot_range, &j);
    /* the ranges' lists in link order: ties still go to the first offered */
    double val[VIEW_HOT_ROWS];
    int n = 0;
    for (int p = 0; p < j.nparts; p++)
        for (int i = 0; i < j.n[p]; i++)
            hot_offer(val, top, &n, j.rows, j.val[p][i], j.top[p][i]);
    return n;
}

/* The hottest links by their busiest window in the step. */
static int hot_links(canvas *c, const view_state *v, view_rect a, int y, int rows)
{
    const wafer *wf = v->r->wf;
    char s[32], text[64];
    snprintf(text, sizeof text, "hottest links (peak %s)", qty_format(v->window_s, QTY_TIME, s, sizeof s));
    y = heading(c, a, y, text);
    int n = v->nhot < rows ? v->nhot : rows;
    for (int i = 0; i < n; i++) {
        int u = (int)(v->hot[i] / WAFER_NDIR);
        double val = v->link_peak[v->hot[i]];
        canvas_printf(c, a.x, y + i, a.w - 1, val >= SIM_HOT ? TC_HOT : TC_TEXT, TC_BACKGROUND, 0,
                      "%3d,%-3d %c %5.1f%%", wafer_x(wf, u), wafer_y(wf, u), wafer_dir_char((int)(v->hot[i] % WAFER_NDIR)),
                      100 * val);
        bar(c, a.x + 17, y + i, a.w - 18, val, theme_grad(val));
    }
    if (!n)
        canvas_text(c, a.x, y, a.w - 1, "(no traffic)", TC_GRID, TC_BACKGROUND, 0);
    return y + rows;
}

/* The unit the cursor of time is shown in (the step's), and the digits
 * that tell phase starts apart (a hundredth of a window): "1.234567 s". */
static const char *time_unit(const view_state *v, double *unit, int *digits)
{
    double T = v->r->step_time_s;
    *unit = T >= 1 ? 1 : T >= 1e-3 ? 1e-3 : T >= 1e-6 ? 1e-6 : 1e-9;
    double d = v->window_s > 0 ? ceil(-log10(v->window_s / 100 / *unit)) : 0;
    *digits = d < 0 ? 0 : d > 9 ? 9 : (int)d;
    return *unit == 1 ? "s" : *unit == 1e-3 ? "ms" : *unit == 1e-6 ? "us" : "ns";
}

/* Whether phase p runs at the cursor. */
static int running(const view_state *v, int p)
{
    for (int i = 0; i < v->nrunning; i++)
        if (v->running[i] == p)
            return 1;
    return 0;
}

/* The cursor of time (where it is in the step, how fast it plays, what
 * runs there), then the phases in the order the step plays them (a slot's
 * phases, repeated for every micro-batch, then the exposed DP all-reduce and
 * the optimizer), each with its share of the step and its busiest link,
 * those running at the cursor reversed, in rows rows below the cursor's
 * two. Scrolls to keep the last of them shown (the hidden DP all-reduce
 * plays last, a few rows below the backward it lies over). */
static int timeline(canvas *c, const view_state *v, view_rect a, int y, int rows)
{
    const sim_result *r = v->r;
    char sp[32];
    double unit;
    int d;
    const char *name = time_unit(v, &unit, &d);
    y = heading(c, a, y, "step timeline   share  link");
    int n = canvas_printf(c, a.x, y, a.w - 1, TC_ACCENT, TC_BACKGROUND, CA_BOLD, "%s %.*f",
                          v->playing ? "\xe2\x96\xb6" : "\xe2\x96\xa0", d, v->t / unit);
    canvas_printf(c, a.x + n, y++, a.w - 1 - n, TC_TEXT, TC_BACKGROUND, 0, " of %.*f %s  %s/s", d, r->step_time_s / unit,
                  name, qty_format(v->play_speed, QTY_TIME, sp, sizeof sp));
    n = canvas_text(c, a.x, y, a.w - 1, "at", TC_GRID, TC_BACKGROUND, 0);
    for (int i = 0; i < v->nrunning; i++)
        n += 1 + canvas_printf(c, a.x + n + 1, y, a.w - 2 - n, TC_ACCENT, TC_BACKGROUND, 0, "%s%s",
                               r->phases[v->running[i]].name, i + 1 < v->nrunning ? " +" : "");
    y++;
    int first = 0;
    for (int i = 0; i < v->nplay; i++)
        if (running(v, v->play[i]))
            first = i >= rows ? i - rows + 1 : 0;
    for (int i = first; i < v->nplay && i < first + rows; i++) {
        const sim_phase *ph = &r->phases[v->play[i]];
        double share = ph->share;
        int on = running(v, v->play[i]), row = y + i - first;
        canvas_printf(c, a.x, row, 17, on ? TC_ACCENT : TC_TEXT, TC_BACKGROUND, on ? CA_REVERSE : 0, "%-16s",
                      ph->name);
        bar(c, a.x + 17, row, a.w - 30, fmin(1, fmax(0, share)), on ? TC_ACCENT : TC_GRID);
        if (share > 0)
            canvas_printf(c, a.x + a.w - 13, row, 6, TC_TEXT, TC_BACKGROUND, 0, "%5.1f%%", 100 * share);
        else
            canvas_text(c, a.x + a.w - 13, row, 6, "hidden", TC_GRID, TC_BACKGROUND, 0); /* overlapped */
        canvas_printf(c, a.x + a.w - 6, row, 5, ph->max_link_util >= SIM_HOT ? TC_HOT : theme_grad(ph->max_link_util),
                      TC_BACKGROUND, 0, "%4.0f%%", 100 * ph->max_link_util);
    }
    return y + rows;
}

static void sparkline(canvas *c, const view_state *v, view_rect a, int y)
{
    static const uint32_t ticks[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
    y = heading(c, a, y, "step time");
    int n = v->nhistory < a.w - 1 ? v->nhistory : a.w - 1, first = v->nhistory - n;
    double lo = INFINITY, hi = 0;
    for (int i = first; i < v->nhistory; i++) {
        lo = fmin(lo, v->history[i]);
        hi = fmax(hi, v->history[i]);
    }
    for (int i = 0; i < n; i++) {
        double f = hi > lo ? (v->history[first + i] - lo) / (hi - lo) : 0.5;
        canvas_put(c, a.x + i, y, ticks[(int)(f * 7 + 0.5)], TC_ACCENT, TC_BACKGROUND, 0);
    }
    char s1[32], s2[32];
    if (n)
        canvas_printf(c, a.x, y + 1, a.w - 1, TC_TEXT, TC_BACKGROUND, 0, "min %s  max %s",
                      qty_format(lo, QTY_TIME, s1, sizeof s1), qty_format(hi, QTY_TIME, s2, sizeof s2));
}

static void panel(canvas *c, const view_state *v, view_rect a)
{
    int y = v->compare && !v->compare->one_result ? view_compare_figures(c, v, a, a.y) : figures(c, v, a, a.y);
    int rest = a.y + a.h - y - 3 /* sparkline */ - 2 /* headings */ - 2 /* the cursor of time */;
    if (rest < 2) { /* a short panel (60x20): the sections would overlap, keep the hottest links */
        hot_links(c, v, a, y, a.y + a.h - y - 1);
        return;
    }
    int hot = rest / 3 < 3 ? 3 : rest / 3;
    hot = hot > rest - 1 ? rest - 1 : hot;
    y = hot_links(c, v, a, y, hot);
    y = timeline(c, v, a, y, rest - hot);
    sparkline(c, v, a, y);
}

/* Rows line s takes in the output pane a. */
static int pane_rows(const char *s, view_rect a)
{
    int n = wrapped(NULL, 0, 0, a.w - 2, a.h, s, 0, 0, 0, 0);
    return n ? n : 1; /* an empty line is a row */
}

int view_output_end(const view_state *v, view_rect a)
{
    int rows = a.h - 1, used = 0, first = v->noutput;
    while (first > 0 && used + pane_rows(v->output[first - 1], a) <= rows)
        used += pane_rows(v->output[--first], a);
    return first == v->noutput && first > 0 ? first - 1 : first; /* a line longer than the pane: its start */
}

/* Why steps fail and what would fit: its lines wrapped, at the foot of the
 * mesh (the dead units stay in sight above it). */
static void banner(canvas *c, const view_state *v, view_rect a)
{
    char text[1024];
    snprintf(text, sizeof text, "%s", v->banner);
    char *second = strchr(text, '\n');
    if (second)
        *second++ = '\0';
    int max = a.h / 2, n1 = wrapped(c, 0, 0, a.w - 2, max, text, 0, 0, 0, 0);
    int n2 = second ? wrapped(c, 0, 0, a.w - 2, max - n1, second, 0, 0, 0, 0) : 0, y = a.y + a.h - n1 - n2;
    canvas_fill(c, a.x, y, a.w, n1 + n2, ' ', TC_BACKGROUND, TC_HOT);
    wrapped(c, a.x + 1, y, a.w - 2, n1, text, TC_BACKGROUND, TC_HOT, CA_BOLD, 1);
    if (second)
        wrapped(c, a.x + 1, y + n1, a.w - 2, n2, second, TC_BACKGROUND, TC_HOT, 0, 1);
}

static void output_pane(canvas *c, const view_state *v, view_rect a)
{
    int last = view_output_end(v, a);
    int first = v->output_top < 0 || v->output_top > last ? last : v->output_top;
    if (first < last)
        heading(c, a, a.y, "output (PgUp PgDn scroll, End follows, o taller)");
    else
        heading(c, a, a.y, first > 0 ? "output (PgUp scrolls, o taller)" : "output");
    for (int i = first, y = a.y + 1; i < v->noutput && y < a.y + a.h; i++) { /* long lines wrap */
        int n = wrapped(c, a.x + 1, y, a.w - 2, a.y + a.h - y, v->output[i], TC_TEXT, TC_BACKGROUND, 0, 1);
        y += n ? n : 1;
    }
}

static void status_line(canvas *c, const view_state *v, view_rect a)
{
    canvas_fill(c, a.x, a.y, a.w, 1, ' ', TC_TEXT, TC_BACKGROUND);
    if (v->cmdline) {
        canvas_put(c, a.x, a.y, (uint32_t)(v->cmdprompt ? v->cmdprompt : ':'), TC_ACCENT, TC_BACKGROUND, CA_BOLD);
        int n = canvas_text(c, a.x + 1, a.y, a.w - 2, v->cmdline, TC_TEXT, TC_BACKGROUND, 0);
        if (v->cmdhint) /* Tab's candidates after the line */
            canvas_text(c, a.x + n + 4, a.y, a.w - n - 5, v->cmdhint, TC_GRID, TC_BACKGROUND, 0);
        canvas_attr(c, a.x + 1 + v->cmdcursor, a.y, 1, 1, CA_REVERSE);
        return;
    }
    if (v->status)
        canvas_text(c, a.x, a.y, a.w, v->status, v->status_error ? TC_HOT : TC_TEXT, TC_BACKGROUND,
                    v->status_error ? CA_BOLD : 0);
    else
        canvas_text(c, a.x, a.y, a.w,
                    "space pause  n step  : command  ? help  q quit  |  :search finds a faster strategy  "
                    ":policy shrink_groups cools it",
                    TC_GRID, TC_BACKGROUND, 0);
}

/* The help, centred; on a short screen it shows the lines that fit from
 * v->help_top (kept in range here) and the arrows scroll it. */
static void help_overlay(canvas *c, view_state *v)
{
    int n = 0, w = 0;
    for (; view_help_lines[n]; n++)
        w = (int)strlen(view_help_lines[n]) > w ? (int)strlen(view_help_lines[n]) : w;
    w += 4;
    int rows = n < c->h - 2 ? n : c->h - 2, most = n - rows;
    v->help_top = v->help_top < 0 ? 0 : v->help_top > most ? most : v->help_top;
    int x = (c->w - w) / 2 > 0 ? (c->w - w) / 2 : 0, y = (c->h - rows - 2) / 2;
    canvas_fill(c, x, y, w, rows + 2, ' ', TC_TEXT, TC_BACKGROUND);
    canvas_fill(c, x, y, w, 1, 0x2500u, TC_ACCENT, TC_BACKGROUND);
    canvas_fill(c, x, y + rows + 1, w, 1, 0x2500u, TC_ACCENT, TC_BACKGROUND);
    canvas_text(c, x + 2, y, w - 4, most ? " help (up/down scroll, any other key closes) " : " help (any key closes) ",
                TC_ACCENT, TC_BACKGROUND, CA_BOLD);
    for (int i = 0; i < rows; i++) {
        const char *line = view_help_lines[v->help_top + i];
        canvas_text(c, x + 2, y + 1 + i, w - 4, line, line[0] == ' ' ? TC_TEXT : TC_ACCENT, TC_BACKGROUND,
                    line[0] == ' ' ? 0 : CA_BOLD);
    }
}

void view_draw(canvas *c, view_state *v)
{
    canvas_clear(c, TC_TEXT, TC_BACKGROUND);
    view_layout l;
    view_layout_for(c->w, c->h, v->output_tall, &l);
    if (l.too_small) {
        char size[48], need[48];
        int n = snprintf(size, sizeof size, "terminal too small: %dx%d,", c->w, c->h);
        int m = snprintf(need, sizeof need, "wafertop needs %dx%d", VIEW_MIN_W, VIEW_MIN_H);
        if (n + 1 + m <= c->w) { /* else on two lines, so that the minimum is never cut */
            canvas_printf(c, 0, c->h / 2, c->w, TC_HOT, TC_BACKGROUND, CA_BOLD, "%s %s", size, need);
            return;
        }
        canvas_text(c, 0, c->h / 2 - 1, c->w, size, TC_HOT, TC_BACKGROUND, CA_BOLD);
        canvas_text(c, 0, c->h / 2, c->w, need, TC_HOT, TC_BACKGROUND, CA_BOLD);
        return;
    }
    title(c, v, l.title);
    if (v->r && v->compare) {
        view_draw_compare(c, v, &l);
    } else if (v->r) {
        view_draw_mesh(c, v, l.mesh);
        view_draw_group(c, v, l.mesh);
        view_draw_rulers(c, v, l.xaxis, l.yaxis, l.mesh);
        view_draw_cursor(c, v, l.mesh);
        view_draw_legend(c, v, l.legend);
    }
    if (v->r)
        panel(c, v, l.panel);
    if (v->banner)
        banner(c, v, l.mesh);
    output_pane(c, v, l.output);
    status_line(c, v, l.status);
    if (v->help)
        help_overlay(c, v);
}
