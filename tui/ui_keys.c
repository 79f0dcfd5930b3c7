/*
 * ui_keys.c - the keys of the main view, one table of handlers (the help
 * overlay lists the same keys: view_help_lines).
 */
#include <stdio.h>
#include <stdlib.h>

#include "term.h"
#include "ui.h"

typedef void (*key_fn)(ui *u, int key);

typedef struct key_binding {
    int key;
    key_fn fn;
} key_binding;

/* The mesh area of the current canvas. */
static view_rect mesh_area(const ui *u)
{
    view_layout l;
    view_layout_for(u->cv.w, u->cv.h, u->v.output_tall, &l);
    return l.mesh;
}

static void move_cursor(ui *u, int dx, int dy)
{
    if (!u->r)
        return;
    const wafer *wf = u->r->wf;
    int step = u->v.zoom > 1 ? u->v.zoom : 1;
    int x = u->v.cx + dx * step, y = u->v.cy + dy * step;
    u->v.cx = x < 0 ? 0 : x >= wf->w ? wf->w - 1 : x;
    u->v.cy = y < 0 ? 0 : y >= wf->h ? wf->h - 1 : y;
}

static void cursor_key(ui *u, int key)
{
    switch (key) {
    case TK_LEFT: case 'h': move_cursor(u, -1, 0); break;
    case TK_RIGHT: case 'l': move_cursor(u, 1, 0); break;
    case TK_UP: case 'k': move_cursor(u, 0, -1); break;
    default: move_cursor(u, 0, 1); break;
    }
}

/* HJKL: a quarter of the visible mesh at a time (the view follows). */
static void pan_key(ui *u, int key)
{
    view_rect a = mesh_area(u);
    int units_w = u->v.zoom > 1 ? a.w : a.w / 2, units_h = u->v.mono ? a.h : a.h * (u->v.zoom > 1 ? 2 : 1);
    int dx = units_w / 4 > 1 ? units_w / 4 : 1, dy = units_h / 4 > 1 ? units_h / 4 : 1;
    switch (key) {
    case 'H': move_cursor(u, -dx, 0); break;
    case 'L': move_cursor(u, dx, 0); break;
    case 'K': move_cursor(u, 0, -dy); break;
    default: move_cursor(u, 0, dy); break;
    }
}

static void zoom_key(ui *u, int key)
{
    if (!u->r)
        return;
    int z = u->v.zoom, most = u->r->wf->w > u->r->wf->h ? u->r->wf->w : u->r->wf->h;
    if (key == '=')
        z = 0;
    else if (key == '+')
        z = z > 1 ? z / 2 : 1;
    else
        z = z * 2 > most ? (most > 1 ? most : 1) : z * 2;
    u->v.zoom = z;
}

static void toggle_key(ui *u, int key)
{
    switch (key) {
    case 'x':
        u->v.mean = !u->v.mean;
        ui_status(u, 0, "blocks show the %s", u->v.mean ? "mean" : "max");
        break;
    case 'v':
        u->v.mode = (u->v.mode + 1) % VIEW_NMODES;
        break;
    case 'a':
        u->play.average = !u->play.average;
        break;
    case 'c':
        u->play.fixed = !u->play.fixed;
        ui_status(u, 0, "link colours %s", u->play.fixed ? "0-100%" : "0 .. the highest value shown");
        break;
    case ' ':
        u->paused = !u->paused;
        break;
    case 't':
        ui_next_theme(u);
        term_set_theme(&u->themes[u->theme]);
        break;
    case 'o':
        u->v.output_tall = !u->v.output_tall;
        ui_status(u, 0, "output pane %s", u->v.output_tall ? "tall: half the screen" : "short");
        break;
    case 'm':
        u->mouse = !u->mouse;
        term_mouse(u->mouse);
        ui_status(u, 0, "mouse %s", u->mouse ? "on: click a unit to select it" : "off");
        break;
    default: /* '?' and F1 */
        u->v.help = 1;
        u->v.help_top = 0;
    }
}

static void step_key(ui *u, int key)
{
    (void)key;
    u->paused = 1;
    if (u->S)
        ui_step(u);
}

static void speed_key(ui *u, int key)
{
    int s = u->speed_level + (key == '>' ? 1 : -1);
    u->speed_level = s < 0 ? 0 : s >= ui_nspeeds ? ui_nspeeds - 1 : s;
    ui_status(u, 0, "%g steps per second", ui_speeds[u->speed_level]);
}

/* The cursor of time: p plays or stops it, , . slower or faster, [ ] the
 * previous or next phase start. */
static void time_key(ui *u, int key)
{
    if (key == 'p')
        ui_play_toggle(u);
    else if (key == ',' || key == '.')
        ui_play_speed(u, key == '.');
    else
        ui_play_jump(u, key == ']' ? 1 : -1);
}

static void scroll_key(ui *u, int key)
{
    view_layout l;
    view_layout_for(u->cv.w, u->cv.h, u->v.output_tall, &l);
    int rows = l.output.h - 1, last = view_output_end(&u->v, l.output);
    int top = u->v.output_top < 0 ? last : u->v.output_top;
    if (key == TK_END)
        top = last;
    else
        top += key == TK_PGUP ? -rows : rows;
    top = top < 0 ? 0 : top;
    u->v.output_top = top >= last ? -1 : top;
}

static void open_key(ui *u, int key)
{
    cmdline_open(key == '/' ? &u->find : &u->cmd);
}

static void inspect_key(ui *u, int key)
{
    (void)key;
    ui_inspect(u);
}

static void group_key(ui *u, int key)
{
    (void)key;
    ui_group_key(u);
}

static void quit_key(ui *u, int key)
{
    (void)key;
    u->quit = 1;
}

static void apply_key(ui *u, int key)
{
    (void)key;
    ui_search_apply(u);
}

static const key_binding keys[] = {
    {TK_LEFT, cursor_key}, {TK_RIGHT, cursor_key}, {TK_UP, cursor_key}, {TK_DOWN, cursor_key},
    {'h', cursor_key},     {'j', cursor_key},      {'k', cursor_key},   {'l', cursor_key},
    {'H', pan_key},        {'J', pan_key},         {'K', pan_key},      {'L', pan_key},
    {'+', zoom_key},       {'-', zoom_key},        {'=', zoom_key},     {'x', toggle_key},
    {'v', toggle_key},     {'a', toggle_key},      {' ', toggle_key},   {'t', toggle_key},
    {'m', toggle_key},     {'o', toggle_key},      {'?', toggle_key},      {TK_F1, toggle_key}, {'n', step_key},
    {'<', speed_key},      {'>', speed_key},       {'p', time_key},     {',', time_key},
    {'.', time_key},       {'[', time_key},        {']', time_key},     {'c', toggle_key},
    {TK_PGUP, scroll_key}, {TK_PGDN, scroll_key},
    {TK_END, scroll_key},  {':', open_key},        {'/', open_key},     {TK_ENTER, inspect_key},
    {'q', quit_key},       {TK_F10, quit_key},     {'y', apply_key},    {'g', group_key},
    {'d', ui_compare_key}, {'f', ui_flit_key},
};

void ui_key(ui *u, const key_event *ev)
{
    if (u->v.help) { /* the arrows scroll the help, any other key closes it */
        if (ev->key == TK_UP || ev->key == TK_DOWN || ev->key == 'k' || ev->key == 'j')
            u->v.help_top += ev->key == TK_UP || ev->key == 'k' ? -1 : 1;
        else if (ev->key != TK_MOUSE)
            u->v.help = 0;
        return;
    }
    if (ev->key == TK_MOUSE) {
        int x, y;
        if (view_unit_at(&u->v, mesh_area(u), ev->mx, ev->my, &x, &y)) {
            u->v.cx = x;
            u->v.cy = y;
            ui_inspect(u);
        }
        return;
    }
    if (ev->key == TK_ESC) {
        u->status[0] = '\0';
        return;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (keys[i].key == ev->key) {
            keys[i].fn(u, ev->key);
            return;
        }
    }
}
