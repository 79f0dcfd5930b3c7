/*
 * term.c - the ncurses layer (see term.h).
 *
 * Colour pairs are made on demand for each (foreground, background) pair of
 * terminal colours a frame uses; when the terminal's pairs run out, the rest
 * of the frame uses the default pair and the next frame starts afresh.
 */
#include "term.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* Seconds the loop has after a stop signal to give the terminal back. */
#define STOP_GRACE_S 1

/* Set by the signal handlers, read by term_read. */
static volatile sig_atomic_t stop_signal;

/* What a crash restores with async-signal-safe calls only: the terminal's
 * modes as they were before the screen opened, and the bytes that leave
 * the screen (attributes off, cursor shown, keypad and mouse reports off,
 * the alternate screen left), taken from terminfo at opening. */
static struct termios saved_modes;
static int have_modes;
static char restore_bytes[256];
static size_t restore_len;

static struct {
    SCREEN *screen;
    int open, ncolours, utf8, repaint, pairs_full;
    int map[TC_COUNT];          /* logical colour -> terminal colour */
    short *pair;                /* [fg * 256 + bg] -> pair, 0 = none yet */
    int npairs, max_pairs;
    canvas shown;               /* what the terminal shows */
} T;

/* Gives the terminal back from a signal handler: endwin may lock or
 * allocate, which deadlocks a signal that arrives inside malloc (seen
 * under AddressSanitizer); write and tcsetattr cannot. */
static void restore_now(void)
{
    if (!T.open)
        return;
    if (restore_len && write(STDOUT_FILENO, restore_bytes, restore_len) < 0)
        restore_len = 0; /* nothing more to do about it */
    if (have_modes)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_modes);
}

/* The last resort after a stop signal (SIGALRM, STOP_GRACE_S later): the
 * main loop did not end the screen in time (it is inside a long C call), so
 * the terminal is given back with async-signal-safe calls and the program
 * exits as the loop would have. */
static void on_late(int sig)
{
    (void)sig;
    restore_now();
    _exit(128 + stop_signal);
}

/* Ctrl-C, SIGTERM, SIGHUP: the loop ends the screen at its next key read,
 * and a running script at its next hook (wtlua_opts.interrupt); the alarm
 * makes sure of it within STOP_GRACE_S whatever runs. */
static void on_stop(int sig)
{
    if (!stop_signal && T.open)
        alarm(STOP_GRACE_S);
    stop_signal = sig;
}

/* A crash (or Ctrl-\): give the terminal back, then die of the same signal. */
static void on_fatal(int sig)
{
    restore_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Appends terminfo capability cap (when the terminal has one) to the crash
 * restore bytes. */
static void add_restore(const char *cap)
{
    const char *v = tigetstr(cap);
    if (!v || v == (const char *)-1)
        return;
    size_t n = strlen(v);
    if (restore_len + n < sizeof restore_bytes) {
        memcpy(restore_bytes + restore_len, v, n);
        restore_len += n;
    }
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_late;
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaction(fatal[i], &sa, NULL);
}

static void at_exit(void)
{
    term_close();
}

int term_open(int *ncolours, wt_err *e)
{
    setlocale(LC_ALL, "");
    T.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return wt_fail(e, "the screen needs a terminal (stdin and stdout are not both one); "
                          "for headless use see wafertop eval, tune or ui --bench-frames");
    have_modes = tcgetattr(STDIN_FILENO, &saved_modes) == 0;
    if (!(T.screen = newterm(NULL, stdout, stdin)))
        return wt_fail(e, "cannot open the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "unset");
    restore_len = 0;
    add_restore("sgr0");
    add_restore("cnorm");
    add_restore("rmkx");
    static const char mouse_off[] = "\033[?1000l\033[?1006l"; /* the xterm reports ncurses turns on */
    if (restore_len + sizeof mouse_off - 1 < sizeof restore_bytes) {
        memcpy(restore_bytes + restore_len, mouse_off, sizeof mouse_off - 1);
        restore_len += sizeof mouse_off - 1;
    }
    add_restore("rmcup");
    T.open = 1;
    atexit(at_exit);
    install_signals();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    const char *no_colour = getenv("NO_COLOR");
    T.ncolours = 0;
    if (has_colors() && !(no_colour && *no_colour)) {
        start_color();
        T.ncolours = COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : COLORS >= 8 ? 8 : 0;
        T.max_pairs = COLOR_PAIRS - 1 < 32767 ? COLOR_PAIRS - 1 : 32767;
        T.pair = calloc(256 * 256, sizeof *T.pair);
        if (!T.pair) {
            term_close();
            return wt_oom(e, "colour pairs");
        }
    }
    *ncolours = T.ncolours;
    T.repaint = 1;
    return WT_OK;
}

void term_close(void)
{
    if (!T.open)
        return;
    T.open = 0;
    endwin();
    delscreen(T.screen);
    free(T.pair);
    T.pair = NULL;
    canvas_free(&T.shown);
}

void term_size(int *w, int *h)
{
    getmaxyx(stdscr, *h, *w);
}

void term_set_theme(const theme *th)
{
    for (int i = 0; i < TC_COUNT; i++)
        T.map[i] = T.ncolours ? theme_nearest(th->colour[i], T.ncolours) : 0;
    T.repaint = 1;
}

/* The pair for two terminal colours, made when first needed. */
static short pair_for(int fg, int bg)
{
    short *p = &T.pair[fg * 256 + bg];
    if (*p)
        return *p;
    if (T.npairs >= T.max_pairs) {
        T.pairs_full = 1;
        return 0;
    }
    *p = (short)++T.npairs;
    init_pair(*p, (short)fg, (short)bg);
    return *p;
}

/* A glyph the locale can show: without UTF-8, the canvas's block and line
 * glyphs become their nearest ASCII. */
static wchar_t glyph(uint32_t ch)
{
    if (T.utf8 || ch < 0x80)
        return (wchar_t)ch;
    switch (ch) {
    case 0x2500: return '-';
    case 0x2591: case 0x00B7: return '.';
    case 0x2592: return ':';
    case 0x2593: return '%';
    case 0x2715: return 'x';
    case 0x2580: return '"';
    default: return ch >= 0x2581 && ch <= 0x2588 ? "_.-~=*#@"[ch - 0x2581] : '?';
    }
}

void term_show(const canvas *c)
{
    if (T.pairs_full) { /* start the pairs afresh */
        memset(T.pair, 0, 256 * 256 * sizeof *T.pair);
        T.npairs = 0;
        T.pairs_full = 0;
        T.repaint = 1;
    }
    if (T.shown.w != c->w || T.shown.h != c->h) {
        if (canvas_resize(&T.shown, c->w, c->h) != 0)
            T.shown.w = T.shown.h = 0;
        T.repaint = 1;
    }
    int keep = !T.repaint && T.shown.w == c->w;
    for (int y = 0; y < c->h; y++) {
        for (int x = 0; x < c->w; x++) {
            const canvas_cell *cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
            if (keep && !memcmp(cell, &T.shown.cells[(size_t)y * (size_t)c->w + (size_t)x], sizeof *cell))
                continue;
            attr_t a = (cell->attr & CA_BOLD ? A_BOLD : 0) | (cell->attr & CA_REVERSE ? A_REVERSE : 0) |
                       (cell->attr & CA_UNDERLINE ? A_UNDERLINE : 0);
            short pair = 0;
            if (T.ncolours)
                pair = pair_for(T.map[cell->fg], T.map[cell->bg]);
            else if (cell->fg == TC_HOT)
                a |= A_BOLD;
            wchar_t wch[2] = {glyph(cell->ch), 0};
            cchar_t cc;
            setcchar(&cc, wch, a, pair, NULL);
            mvwadd_wch(stdscr, y, x, &cc); /* the last cell reports ERR: it cannot scroll */
        }
    }
    if (T.shown.w == c->w && T.shown.h == c->h)
        memcpy(T.shown.cells, c->cells, (size_t)c->w * (size_t)c->h * sizeof *c->cells);
    T.repaint = T.pairs_full;
    wnoutrefresh(stdscr);
    doupdate();
}

void term_mouse(int on)
{
    mousemask(on ? BUTTON1_PRESSED | BUTTON1_CLICKED : 0, NULL);
    mouseinterval(0);
}

/* A curses key code as a TK_* key. */
static int special(int k)
{
    switch (k) {
    case KEY_UP: return TK_UP;
    case KEY_DOWN: return TK_DOWN;
    case KEY_LEFT: return TK_LEFT;
    case KEY_RIGHT: return TK_RIGHT;
    case KEY_HOME: return TK_HOME;
    case KEY_END: return TK_END;
    case KEY_PPAGE: return TK_PGUP;
    case KEY_NPAGE: return TK_PGDN;
    case KEY_BACKSPACE: return TK_BACKSPACE;
    case KEY_DC: return TK_DELETE;
    case KEY_ENTER: return TK_ENTER;
    case KEY_F(1): return TK_F1;
    case KEY_F(10): return TK_F10;
    case KEY_RESIZE: return TK_RESIZE;
    default: return TK_NONE;
    }
}

void term_read(int timeout_ms, key_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (stop_signal) {
        ev->key = TK_SIGNAL;
        return;
    }
    wtimeout(stdscr, timeout_ms);
    wint_t ch;
    int rc = wget_wch(stdscr, &ch);
    if (stop_signal) {
        ev->key = TK_SIGNAL;
    } else if (rc == ERR) {
        ev->key = TK_TIMEOUT;
    } else if (rc == KEY_CODE_YES && ch == KEY_MOUSE) {
        MEVENT m;
        ev->key = getmouse(&m) == OK ? TK_MOUSE : TK_NONE;
        ev->mx = m.x;
        ev->my = m.y;
    } else if (rc == KEY_CODE_YES) {
        ev->key = special((int)ch);
    } else {
        switch (ch) {
        case '\r': case '\n': ev->key = TK_ENTER; break;
        case 27: ev->key = TK_ESC; break;
        case '\t': ev->key = TK_TAB; break;
        case 127: case 8: ev->key = TK_BACKSPACE; break;
        default: ev->key = (int)ch;
        }
    }
}

int term_signal(void)
{
    return stop_signal;
}

const volatile sig_atomic_t *term_stop_flag(void)
{
    return &stop_signal;
}
