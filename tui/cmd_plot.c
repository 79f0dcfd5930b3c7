/*
 * cmd_plot.c - wafertop plot TABLE.csv --x AXIS --y FIGURE [--by AXIS]
 * [--out FILE.svg|png]: a sweep's table (cmd_sweep.c) as lines, one per
 * value of --by, y against x; drawn with the picture code the snapshots
 * use (picture.h: axes, ticks, labels, a legend), or as text on stdout
 * without --out.
 *
 * A cell is a number ("2048", "0.53"), or a quantity ("2TB/s", "440 MB",
 * "1.5 us": its SI value), else a category: an axis of categories places
 * them evenly in the order they first appear. Rows whose y is empty (a
 * point with an error) are left out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "picture.h"
#include "qty.h"

#define PLOT_MAX_COLS 64
#define PLOT_MAX_GROUPS 12
#define PLOT_MAX_CATS 256
#define PLOT_MAX_TICKS 64

typedef struct table {
    int ncols;
    char *col[PLOT_MAX_COLS];  /* the header's names, owned */
    long nrows;
    char **cell;               /* nrows x ncols, owned */
} table;

static void table_free(table *t)
{
    for (int c = 0; c < t->ncols; c++)
        free(t->col[c]);
    for (long i = 0; i < t->nrows * t->ncols; i++)
        free(t->cell[i]);
    free(t->cell);
}

/* One CSV record of line (RFC 4180 quotes, within a line) into cells[max];
 * returns the count, or -1 for a malformed one. */
static int csv_record(const char *line, char **cells, int max)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        size_t cap = strlen(p) + 1, k = 0;
        char *v = malloc(cap);
        if (!v || n == max) {
            free(v);
            goto bad;
        }
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;
                v[k++] = *p;
            }
            if (*p != '"') {
                free(v);
                goto bad;
            }
            p++;
        } else {
            while (*p && *p != ',')
                v[k++] = *p++;
        }
        v[k] = '\0';
        cells[n++] = v;
        if (*p != ',')
            break;
        p++;
    }
    if (*p == '\0')
        return n;
bad:
    while (n > 0)
        free(cells[--n]);
    return -1;
}

static int table_read(const char *path, table *t, wt_err *e)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return wt_fail(e, "%s: cannot open it", path);
    char *line = NULL, *cells[PLOT_MAX_COLS];
    size_t cap = 0;
    long lineno = 0, rows_cap = 0;
    ssize_t len;
    int rc = WT_OK;
    while (rc == WT_OK && (len = getline(&line, &cap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        lineno++;
        if (len == 0 && lineno > 1)
            continue; /* a blank line */
        int n = csv_record(line, cells, PLOT_MAX_COLS);
        if (n < 0 && lineno == 1)
            rc = wt_fail(e, "%s:1: not a CSV header of at most %d columns", path, PLOT_MAX_COLS);
        else if (n < 0 || (lineno > 1 && n != t->ncols))
            rc = wt_fail(e, "%s:%ld: not a row of the table's %d columns (plot reads the CSV sweep writes)", path,
                         lineno, t->ncols);
        if (rc != WT_OK) {
            while (n > 0)
                free(cells[--n]);
            break;
        }
        if (lineno == 1) {
            memcpy(t->col, cells, sizeof *cells * (size_t)n);
            t->ncols = n;
            continue;
        }
        if (t->nrows == rows_cap) {
            rows_cap = rows_cap ? 2 * rows_cap : 64;
            char **grown = realloc(t->cell, sizeof *grown * (size_t)(rows_cap * t->ncols));
            if (!grown) {
                while (n > 0)
                    free(cells[--n]);
                rc = wt_oom(e, "plot");
                break;
            }
            t->cell = grown;
        }
        memcpy(t->cell + t->nrows * t->ncols, cells, sizeof *cells * (size_t)n);
        t->nrows++;
    }
    free(line);
    fclose(f);
    if (rc == WT_OK && lineno == 0)
        rc = wt_fail(e, "%s: empty: no header", path);
    if (rc != WT_OK)
        table_free(t);
    return rc;
}

static int column_of(const table *t, const char *flag, const char *name, wt_err *e)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->col[c], name))
            return c;
    char cols[1024] = "";
    for (int c = 0; c < t->ncols; c++)
        snprintf(cols + strlen(cols), sizeof cols - strlen(cols), "%s%s", c ? ", " : "", t->col[c]);
    return wt_fail(e, "%s: no column '%s' (the table's: %s)", flag, name, cols) * 0 - 1;
}

static const qty_kind quantity_kinds[] = {QTY_BYTES, QTY_BANDWIDTH, QTY_TIME, QTY_FLOPS};
#define NKINDS (int)(sizeof quantity_kinds / sizeof quantity_kinds[0])

/* A cell's number: plain (returns 1), or a quantity's SI value (returns 2
 * + its index in quantity_kinds); 0 when it is neither. */
static int cell_number(const char *s, double *x)
{
    char why[64];
    if (!*s)
        return 0;
    if (qty_number(s, x) == 0)
        return 1;
    for (int k = 0; k < NKINDS; k++)
        if (qty_parse(s, quantity_kinds[k], x, why, sizeof why) == 0)
            return 2 + k;
    return 0;
}

/* The points of one line. */
typedef struct series {
    const char *name;         /* the --by cell's text, borrowed from the table */
    int n;
    double *x, *y;   /* owned, by x */
} series;

typedef struct plot {
    int nseries;
    series s[PLOT_MAX_GROUPS];
    double x0, x1, y0, y1;
    int xcat;                 /* x holds categories: their index */
    int xkind;                /* x holds quantities of quantity_kinds[xkind - 2] (ticks in its units), else 1 */
    int logx;                 /* x on a log scale (--logx) */
    int ncat;
    const char *cat[PLOT_MAX_CATS]; /* borrowed from the table */
    const char *xname, *yname, *byname;
} plot;

static int by_x(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

/* --where COLUMN=VALUE: the rows kept. */
typedef struct where {
    int n;
    int col[4];
    const char *value[4];
} where;

static int kept(const table *t, long r, const where *w)
{
    for (int k = 0; k < w->n; k++)
        if (strcmp(t->cell[r * t->ncols + w->col[k]], w->value[k]))
            return 0;
    return 1;
}

/* The table's rows that w keeps as series: x, y by group (all one without
 * by). */
static int plot_build(const table *t, int xc, int yc, int bc, const where *w, plot *p, wt_err *e)
{
    p->xcat = 0;
    p->xkind = -1;
    for (long r = 0; r < t->nrows; r++) {
        double x;
        const char *xs = t->cell[r * t->ncols + xc];
        int k = *xs ? cell_number(xs, &x) : -1;
        if (k > 0 && x <= 0 && p->logx)
            return wt_fail(e, "--logx: '%s' in row %ld is not above 0", xs, r + 1);
        if (k == 0)
            p->xcat = 1;
        if (k > 0)
            p->xkind = p->xkind < 0 || p->xkind == k ? k : 1; /* mixed kinds: plain numbers */
    }
    double *pts = malloc(sizeof *pts * 2 * (size_t)(t->nrows + 1));
    int *grp = malloc(sizeof *grp * (size_t)(t->nrows + 1));
    if (!pts || !grp) {
        free(pts);
        free(grp);
        return wt_oom(e, "plot");
    }
    int rc = WT_OK;
    for (long r = 0; r < t->nrows; r++) {
        const char *xs = t->cell[r * t->ncols + xc], *ys = t->cell[r * t->ncols + yc];
        const char *g = bc >= 0 ? t->cell[r * t->ncols + bc] : "";
        grp[r] = -1;
        if (!kept(t, r, w))
            continue;
        double x, y;
        if (!cell_number(ys, &y)) {
            if (*ys)
                rc = wt_fail(e, "--y: '%s' in row %ld is not a number", ys, r + 1);
            continue;
        }
        if (p->xcat) {
            int k = 0;
            while (k < p->ncat && strcmp(p->cat[k], xs))
                k++;
            if (k == p->ncat && p->ncat == PLOT_MAX_CATS) {
                rc = wt_fail(e, "--x: more than %d values that are not numbers", PLOT_MAX_CATS);
                break;
            }
            if (k == p->ncat)
                p->cat[p->ncat++] = xs;
            x = k;
        } else if (!cell_number(xs, &x)) {
            continue;
        }
        int k = 0;
        while (k < p->nseries && strcmp(p->s[k].name, g))
            k++;
        if (k == p->nseries) {
            if (p->nseries == PLOT_MAX_GROUPS) {
                rc = wt_fail(e, "--by: more than %d groups", PLOT_MAX_GROUPS);
                break;
            }
            p->s[p->nseries++].name = g;
        }
        grp[r] = k;
        pts[2 * r] = x, pts[2 * r + 1] = y;
    }
    for (int k = 0; rc == WT_OK && k < p->nseries; k++) {
        series *s = &p->s[k];
        double *own = malloc(sizeof *own * 2 * (size_t)(t->nrows + 1));
        if (!own) {
            rc = wt_oom(e, "plot");
            break;
        }
        for (long r = 0; r < t->nrows; r++)
            if (grp[r] == k)
                own[2 * s->n] = pts[2 * r], own[2 * s->n + 1] = pts[2 * r + 1], s->n++;
        qsort(own, (size_t)s->n, 2 * sizeof *own, by_x);
        s->x = own; /* x and y interleaved: x[2i], x[2i + 1] */
        s->y = NULL;
    }
    free(pts);
    free(grp);
    if (rc == WT_OK && p->nseries == 0)
        rc = wt_fail(e, "plot: no row%s has a number for --y", w->n ? " --where keeps" : "");
    p->x0 = p->y0 = INFINITY, p->x1 = p->y1 = -INFINITY;
    for (int k = 0; rc == WT_OK && k < p->nseries; k++)
        for (int i = 0; i < p->s[k].n; i++) {
            double x = p->s[k].x[2 * i], y = p->s[k].x[2 * i + 1];
            p->x0 = fmin(p->x0, x), p->x1 = fmax(p->x1, x), p->y0 = fmin(p->y0, y), p->y1 = fmax(p->y1, y);
        }
    if (rc == WT_OK) {
        /* y spans the values with a twentieth of their range around them:
         * the differences a sweep is about show (the tick labels say where
         * 0 is not) */
        double pad = (p->y1 - p->y0) / 20;
        pad = pad > 0 ? pad : fabs(p->y1) / 20 + (p->y1 == 0);
        p->y0 -= pad, p->y1 += pad;
        if (p->xcat)
            p->logx = 0;
        if (p->logx)
            p->x0 = log10(p->x0), p->x1 = log10(p->x1);
        if (p->x1 <= p->x0)
            p->x0 -= 0.5, p->x1 += 0.5;
    }
    return rc;
}

static void plot_free(plot *p)
{
    for (int k = 0; k < p->nseries; k++)
        free(p->s[k].x);
}

/* A tick step of about (hi - lo) / 5: 1, 2 or 5 times a power of 10. */
static double tick_step(double lo, double hi)
{
    double raw = (hi - lo) / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void tick_label(double v, char *buf, size_t n)
{
    snprintf(buf, n, "%.8g", fabs(v) < 1e-12 ? 0 : v);
}

/* The x label of value v: a category's text or the number. */
static void x_label(const plot *p, double v, char *buf, size_t n)
{
    double x = p->logx ? pow(10, v) : v;
    if (p->xcat)
        snprintf(buf, n, "%s", v >= 0 && v < p->ncat ? p->cat[(int)v] : "");
    else if (p->xkind >= 2)
        qty_format(x, quantity_kinds[p->xkind - 2], buf, n);
    else
        tick_label(x, buf, n);
}

/* Where a point's x goes on the axis (its log with --logx). */
static double x_pos(const plot *p, double x)
{
    return p->logx ? log10(x) : x;
}

/* The series' colours: spread over the theme's gradient. */
static rgb series_colour(const theme *th, int k, int n)
{
    return th->colour[theme_grad(n > 1 ? 0.1 + 0.85 * k / (n - 1) : 0.85)];
}

static void draw_picture(picture *pic, const plot *p, const theme *th)
{
    int W = 800, H = 500, L = 80, R = 180, T = 40, B = 60, pw = W - L - R, ph = H - T - B;
    pic_init(pic, W, H, th->colour[TC_BACKGROUND]);
    rgb text = th->colour[TC_TEXT], grid = th->colour[TC_GRID];
    char title[256], buf[64];
    snprintf(title, sizeof title, "%s by %s%s%s", p->yname, p->xname, p->byname ? ", a line per " : "",
             p->byname ? p->byname : "");
    pic_text(pic, L, 12, 2, text, title);
#define PX(v) (L + (int)lround(((v) - p->x0) / (p->x1 - p->x0) * pw))
#define PY(v) (T + ph - (int)lround(((v) - p->y0) / (p->y1 - p->y0) * ph))
    /* ticks by index: a step below the doubles' spacing would not move v */
    double ys = tick_step(p->y0, p->y1), yt = ceil(p->y0 / ys);
    for (int i = 0; i < PLOT_MAX_TICKS && (yt + i) * ys <= p->y1 + 1e-9 * ys; i++) {
        double v = (yt + i) * ys;
        pic_line(pic, L, PY(v), L + pw, PY(v), grid);
        tick_label(v, buf, sizeof buf);
        pic_text(pic, L - 8 - pic_text_width(buf, 1), PY(v) - 4, 1, text, buf);
    }
    /* a log axis: a tick at each value of the first series */
    double xs = p->xcat ? 1 : tick_step(p->x0, p->x1);
    for (int i = 0; p->logx && i < p->s[0].n; i++) {
        double v = x_pos(p, p->s[0].x[2 * i]);
        pic_line(pic, PX(v), T + ph, PX(v), T + ph + 4, text);
        x_label(p, v, buf, sizeof buf);
        pic_text(pic, PX(v) - pic_text_width(buf, 1) / 2, T + ph + 8, 1, text, buf);
    }
    double xt = ceil(p->x0 / xs);
    for (int i = 0; !p->logx && i < PLOT_MAX_TICKS && (xt + i) * xs <= p->x1 + 1e-9 * xs; i++) {
        double v = (xt + i) * xs;
        pic_line(pic, PX(v), T + ph, PX(v), T + ph + 4, text);
        x_label(p, v, buf, sizeof buf);
        pic_text(pic, PX(v) - pic_text_width(buf, 1) / 2, T + ph + 8, 1, text, buf);
    }
    pic_line(pic, L, T, L, T + ph, text);
    pic_line(pic, L, T + ph, L + pw, T + ph, text);
    pic_text(pic, L + pw / 2 - pic_text_width(p->xname, 1) / 2, H - 24, 1, text, p->xname);
    pic_text(pic, 8, T - 14, 1, text, p->yname);
    for (int k = 0; k < p->nseries; k++) {
        const series *s = &p->s[k];
        rgb c = series_colour(th, k, p->nseries);
        for (int i = 0; i < s->n; i++) {
            int x = PX(x_pos(p, s->x[2 * i])), y = PY(s->x[2 * i + 1]);
            pic_rect(pic, x - 2, y - 2, 5, 5, c);
            if (i > 0)
                pic_line(pic, PX(x_pos(p, s->x[2 * i - 2])), PY(s->x[2 * i - 1]), x, y, c);
        }
        if (p->byname) {
            int ly = T + 10 + 16 * k;
            pic_rect(pic, L + pw + 16, ly, 12, 8, c);
            snprintf(buf, sizeof buf, "%.24s", s->name); /* the legend's room */
            pic_text(pic, L + pw + 34, ly, 1, text, buf);
        }
    }
    if (p->byname)
        pic_text(pic, L + pw + 16, T - 6, 1, text, p->byname);
#undef PX
#undef PY
}

/* The plot as text, w x h characters of plotting area, a mark per series. */
static void draw_text(FILE *f, const plot *p)
{
    enum { W = 64, H = 18 };
    static const char marks[] = "*o+x#@%&=~$^";
    char grid[H][W + 1];
    for (int r = 0; r < H; r++) {
        memset(grid[r], ' ', W);
        grid[r][W] = '\0';
    }
    for (int k = 0; k < p->nseries; k++)
        for (int i = 0; i < p->s[k].n; i++) {
            double fx = (x_pos(p, p->s[k].x[2 * i]) - p->x0) / (p->x1 - p->x0);
            double fy = (p->s[k].x[2 * i + 1] - p->y0) / (p->y1 - p->y0);
            if (!(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1)) /* a span too wide for doubles */
                continue;
            int cx = (int)lround(fx * (W - 1)), cy = H - 1 - (int)lround(fy * (H - 1));
            grid[cy][cx] = marks[k % (int)(sizeof marks - 1)];
        }
    char hi[32], lo[32], a[32], b[32];
    tick_label(p->y1, hi, sizeof hi);
    tick_label(p->y0, lo, sizeof lo);
    fprintf(f, "%s by %s\n", p->yname, p->xname);
    for (int r = 0; r < H; r++)
        fprintf(f, "%10s |%s\n", r == 0 ? hi : r == H - 1 ? lo : "", grid[r]);
    fprintf(f, "%10s +", "");
    for (int c = 0; c < W; c++)
        fputc('-', f);
    x_label(p, p->x0, a, sizeof a);
    x_label(p, p->x1, b, sizeof b);
    fprintf(f, "\n%10s  %-*s%s\n%12s%s\n", "", W - (int)strlen(b), a, b, "", p->xname);
    for (int k = 0; p->byname && k < p->nseries; k++)
        fprintf(f, "%12s%c %s = %s\n", "", marks[k % (int)(sizeof marks - 1)], p->byname, p->s[k].name);
}

int cmd_plot(int argc, char **argv, const char *root)
{
    (void)root;
    const char *file = NULL, *x = NULL, *y = NULL, *by = NULL, *out = NULL, *cond[4];
    int ncond = 0, logx = 0;
    wt_err e;
    int rc = WT_OK;
    for (int i = 0; rc == WT_OK && i < argc; i++) {
        if (!strcmp(argv[i], "--logx")) {
            logx = 1;
            continue;
        }
        if (!strcmp(argv[i], "--where")) {
            if (i + 1 >= argc || !strchr(argv[i + 1], '='))
                rc = wt_fail(&e, "--where: COLUMN=VALUE is needed");
            else if (ncond == 4)
                rc = wt_fail(&e, "--where: at most 4");
            else
                cond[ncond++] = argv[++i];
            continue;
        }
        const char **into = !strcmp(argv[i], "--x") ? &x : !strcmp(argv[i], "--y") ? &y
                            : !strcmp(argv[i], "--by") ? &by : !strcmp(argv[i], "--out") ? &out : NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: wafertop plot TABLE.csv --x COLUMN --y COLUMN [--by COLUMN] [--where COLUMN=VALUE]\n"
                   "       [--logx] [--out FILE.svg|FILE.png]\n"
                   "Draws a sweep's table: y against x (--logx: on a log scale), a line per value of --by,\n"
                   "only the rows whose columns hold what --where says (up to 4); without --out, as text\n"
                   "on stdout. Quantities (2TB/s, 440MB) are read as such and label their axis.\n");
            return 0;
        }
        if (into && i + 1 >= argc)
            rc = wt_fail(&e, "%s: needs a column", argv[i]);
        else if (into)
            *into = argv[++i];
        else if (argv[i][0] == '-')
            rc = wt_fail(&e, "unknown option '%s' (plot --help)", argv[i]);
        else if (file)
            rc = wt_fail(&e, "plot: one table, not '%s' and '%s'", file, argv[i]);
        else
            file = argv[i];
    }
    if (rc == WT_OK && !file)
        rc = wt_fail(&e, "plot: which table? (wafertop plot TABLE.csv --x COLUMN --y COLUMN)");
    if (rc == WT_OK && (!x || !y))
        rc = wt_fail(&e, "%s: the column to plot is needed", x ? "--y" : "--x");
    int format = 0;
    if (rc == WT_OK && out)
        rc = pic_format_of(out, "--out", &format, &e);
    table t;
    int loaded = rc == WT_OK && (rc = table_read(file, &t, &e)) == WT_OK;
    int xc = -1, yc = -1, bc = -1;
    if (rc == WT_OK && (xc = column_of(&t, "--x", x, &e)) < 0)
        rc = WT_EINPUT;
    if (rc == WT_OK && (yc = column_of(&t, "--y", y, &e)) < 0)
        rc = WT_EINPUT;
    if (rc == WT_OK && by && (bc = column_of(&t, "--by", by, &e)) < 0)
        rc = WT_EINPUT;
    where w = {0};
    for (int k = 0; rc == WT_OK && k < ncond; k++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(cond[k], '=') - cond[k]), cond[k]);
        if ((w.col[w.n] = column_of(&t, "--where", name, &e)) < 0)
            rc = WT_EINPUT;
        w.value[w.n++] = strchr(cond[k], '=') + 1;
    }
    plot p = {.xname = x, .yname = y, .byname = by, .logx = logx};
    if (rc == WT_OK)
        rc = plot_build(&t, xc, yc, bc, &w, &p, &e);
    if (rc == WT_OK && out) {
        theme th;
        theme_default(&th);
        picture pic;
        draw_picture(&pic, &p, &th);
        rc = pic_write(&pic, out, "--out", &e);
        pic_free(&pic);
    } else if (rc == WT_OK) {
        draw_text(stdout, &p);
    }
    plot_free(&p);
    if (loaded)
        table_free(&t);
    return cmd_exit(rc, &e);
}
