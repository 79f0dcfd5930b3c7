/*
 * cmd_sweep.c - wafertop sweep FILE.yaml: every point of a design space
 * (sweep.h) evaluated or searched, on the local cores (--jobs), into one
 * table: a row per point with its axes and figures, CSV or JSON by the
 * extension of --out (CSV on stdout without it).
 *
 * The table is written atomically (atomic.h) as points finish, at most
 * once a second, and at the end; Ctrl-C stops taking points and writes
 * what is done; --resume keeps the rows the file already holds and runs
 * the others. A point whose scenario is invalid is a row with its reason
 * in `error`, and the sweep goes on. Progress on a terminal.
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "clock.h"
#include "cmd.h"
#include "json.h"
#include "mpi_job.h"
#include "out.h"
#include "sweep.h"
#include "sweep_mpi.h"

/* A point's figures: the evaluation's, or the search's best. */
typedef struct point_fig {
    char strategy[128];
    int fits, ok;
    double step_s, tokens_s, mfu, mem_bytes, max_link_util;
    char error[400];
} point_fig;

typedef struct sweep_run {
    const sweep *s;
    const char *root;
    int json;
    char **row;            /* npoints: each done point's row text, owned, or NULL */
    atomic_long next;      /* the next point to take */
    atomic_long done;      /* points finished in this run */
    atomic_long failed;    /* and of those, points with an error */
    pthread_mutex_t lock;  /* guards row[] */
} sweep_run;

/* The signal that stopped the sweep, or 0: set by the handler (a lock-free
 * atomic store is async-signal-safe), read by the workers and the search
 * each runs (search_opts.stop). */
static atomic_int sweep_stop;

static void on_signal(int sig)
{
    atomic_store(&sweep_stop, sig);
}

/* Evaluates (or searches) the scenario o describes into f. */
static void run_scenario(const sweep *s, const cli_opts *o, const char *root, point_fig *f)
{
    wt_err e;
    wtlua *L = NULL;
    wafer wf;
    model m;
    strategy st;
    sim_result r;
    const sim_result *best = NULL;
    search_result res;
    int searched = 0, evaluated = 0, loaded = 0, rc;
    if (s->search) {
        search_opts so;
        rc = cli_search_opts(o, &so, &e);
        so.jobs = 1; /* the points share the cores */
        so.baselines = 0;
        so.top_k = 1;
        so.stop = &sweep_stop;
        if (rc == WT_OK && (rc = cli_load_hardware(o, root, &wf, &m, &e)) == WT_OK) {
            loaded = 1;
            if ((rc = search_run(&wf, &m, &so, &res, &e)) == WT_OK) {
                searched = 1;
                best = res.ntop ? &res.top[0] : NULL;
                if (!best)
                    snprintf(f->error, sizeof f->error, "nothing fits: %.380s", res.nofit);
            }
        }
    } else if ((rc = cli_load(o, root, &L, &wf, &m, &st, &e)) == WT_OK) {
        loaded = 1;
        if ((rc = sim_eval_net(&r, &wf, o->net, &m, &st, &e)) == WT_OK)
            best = &r, evaluated = 1;
    }
    if (rc != WT_OK)
        snprintf(f->error, sizeof f->error, "%.399s", e.msg);
    if (best) {
        f->ok = 1;
        strategy_format(&best->s, f->strategy, sizeof f->strategy);
        f->fits = best->mem.fits;
        f->step_s = best->step_time_s;
        f->tokens_s = best->tokens_per_s;
        f->mfu = best->mfu;
        f->mem_bytes = best->mem.total;
        f->max_link_util = best->max_link_util;
    }
    if (evaluated)
        sim_free(&r);
    if (searched)
        search_free(&res);
    wtlua_free(L); /* before the wafer: Lua results borrow it */
    if (loaded)
        wafer_free(&wf);
}

/* run_strategy: the one the point ran, the search's best or the
 * scenario's resolved (an axis may be named strategy) */
static const char *const fig_names[] = {"run_strategy", "fits", "step_time_s",   "tokens_per_s",
                                        "mfu",          "mem_bytes", "max_link_util", "error"};
#define NFIGS (sizeof fig_names / sizeof fig_names[0])

/* Point i's first cells, its number and its axes' values, as its row
 * starts (what --resume checks a kept row against); json: w's object left
 * open. */
static void put_point(FILE *m, json_writer *w, const sweep *s, long i, int json)
{
    if (json) {
        json_init(w, m);
        json_begin_object(w);
        json_key(w, "point");
        json_int(w, i);
        for (int k = 0; k < s->naxes; k++) {
            json_key(w, s->axes[k].key);
            json_string(w, sweep_value(s, i, k));
        }
        return;
    }
    fprintf(m, "%ld", i);
    for (int k = 0; k < s->naxes; k++) {
        fputc(',', m);
        out_csv_text(m, sweep_value(s, i, k));
    }
}

/* Point i's row (f NULL: its first cells alone), CSV or one line of JSON,
 * into a new string; NULL out of memory. */
static char *row_text(const sweep *s, long i, const point_fig *f, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    json_writer w;
    put_point(m, &w, s, i, json);
    if (f && json) {
        double num[] = {f->step_s, f->tokens_s, f->mfu, f->mem_bytes, f->max_link_util};
        json_key(&w, fig_names[0]);
        f->ok ? json_string(&w, f->strategy) : json_null(&w);
        json_key(&w, "fits");
        f->ok ? json_bool(&w, f->fits) : json_null(&w);
        for (int k = 0; k < 5; k++) {
            json_key(&w, fig_names[2 + k]);
            json_number(&w, f->ok ? num[k] : NAN);
        }
        json_key(&w, "error");
        f->error[0] ? json_string(&w, f->error) : json_null(&w);
        json_end_object(&w);
    } else if (f) {
        double num[] = {f->step_s, f->tokens_s, f->mfu, f->mem_bytes, f->max_link_util};
        fputc(',', m);
        out_csv_text(m, f->ok ? f->strategy : "");
        fprintf(m, ",%s", f->ok ? (f->fits ? "true" : "false") : "");
        for (int k = 0; k < 5; k++)
            f->ok ? fprintf(m, ",%.9g", num[k]) : fprintf(m, ",");
        fputc(',', m);
        out_csv_text(m, f->error);
    }
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void csv_header(FILE *f, const sweep *s)
{
    fprintf(f, "point");
    for (int k = 0; k < s->naxes; k++) {
        fputc(',', f);
        out_csv_text(f, s->axes[k].key);
    }
    for (size_t k = 0; k < NFIGS; k++)
        fprintf(f, ",%s", fig_names[k]);
    fputc('\n', f);
}

/* The next point no row holds yet, or -1 when none is left or the sweep
 * stops. A kept row (--resume) is set before any point is taken, and a
 * taken point's row only by its taker, so the look needs no lock. */
static long take_point(sweep_run *w)
{
    for (;;) {
        long i = atomic_fetch_add(&w->next, 1);
        if (i >= w->s->npoints || atomic_load(&sweep_stop))
            return -1;
        if (!w->row[i])
            return i;
    }
}

/* Point i run: its row, a new string; NULL when the sweep stopped meanwhile
 * (--resume runs it again) or out of memory. *failed: it has an error. */
static char *run_point(const sweep_run *w, long i, int *failed)
{
    const sweep *s = w->s;
    point_fig f = {0};
    char *argv[SWEEP_MAX_BASE + 2 * SWEEP_MAX_AXES];
    int argc = sweep_argv(s, i, argv, (int)(sizeof argv / sizeof argv[0]));
    cli_opts o;
    wt_err e;
    if (argc < 0)
        snprintf(f.error, sizeof f.error, "out of memory");
    else if (cli_parse(argc, argv, s->search ? CLI_SEARCH : 0, w->root, &o, &e) != WT_OK)
        snprintf(f.error, sizeof f.error, "%.399s", e.msg);
    else
        run_scenario(s, &o, w->root, &f);
    if (argc >= 0)
        sweep_argv_free(s, argv, argc);
    if (atomic_load(&sweep_stop)) /* a search the signal stopped */
        return NULL;
    /* a row is a line: a message's own line breaks (a Lua traceback's) become spaces */
    for (char *c = f.error; *c; c++)
        *c = *c == '\n' || *c == '\r' || *c == '\t' ? ' ' : *c;
    *failed = f.error[0] != '\0';
    return row_text(s, i, &f, w->json);
}

/* Keeps point i's row (this rank's or another's). */
static void keep_row(sweep_run *w, long i, char *text, int failed)
{
    if (failed)
        atomic_fetch_add(&w->failed, 1);
    pthread_mutex_lock(&w->lock);
    w->row[i] = text;
    pthread_mutex_unlock(&w->lock);
    atomic_fetch_add(&w->done, 1);
}

/* The same, as sweep_mpi.h's hub and workers take them. */
static long take_point_of(void *ud)
{
    return take_point(ud);
}

/* No point: what rank 0 hands out when it cannot run the sweep. */
static long take_none(void *ud)
{
    (void)ud;
    return -1;
}

static void keep_row_of(void *ud, long i, char *text, int failed)
{
    keep_row(ud, i, text, failed);
}

static char *run_point_of(void *ud, long i, int *failed)
{
    return run_point(ud, i, failed);
}

static void *worker(void *arg)
{
    sweep_run *w = arg;
    long i;
    while ((i = take_point(w)) >= 0) {
        int failed = 0;
        char *text = run_point(w, i, &failed);
        if (!text)
            return NULL;
        keep_row(w, i, text, failed);
    }
    return NULL;
}

/* The table: every row done, in point order. */
static int put_table(FILE *f, void *ud, wt_err *e)
{
    (void)e;
    sweep_run *w = ud;
    pthread_mutex_lock(&w->lock);
    /* JSON: a row a line, each after the first led by its comma (what
     * resume_rows reads back) */
    if (w->json)
        fprintf(f, "[\n");
    else
        csv_header(f, w->s);
    int first = 1;
    for (long i = 0; i < w->s->npoints; i++) {
        if (!w->row[i])
            continue;
        fprintf(f, "%s%s\n", w->json && !first ? "," : "", w->row[i]);
        first = 0;
    }
    if (w->json)
        fprintf(f, "]\n");
    pthread_mutex_unlock(&w->lock);
    return WT_OK;
}

/* --resume: the rows out already holds, kept as they are; a file of another
 * sweep (its header, or a row's point, does not match) is refused. */
static int resume_rows(sweep_run *w, const char *out, wt_err *e)
{
    FILE *in = fopen(out, "r");
    if (!in)
        return access(out, F_OK) == 0 ? wt_fail(e, "--resume: %s: cannot read it", out) : WT_OK; /* none yet */
    char *head = NULL, *line = NULL;
    size_t hlen = 0, cap = 0;
    FILE *m = open_memstream(&head, &hlen);
    if (!m) {
        fclose(in);
        return wt_oom(e, "resume");
    }
    csv_header(m, w->s);
    fclose(m);
    head[hlen - 1] = '\0'; /* its newline */
    int rc = WT_OK;
    long lineno = 0;
    ssize_t n;
    while (rc == WT_OK && (n = getline(&line, &cap, in)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        lineno++;
        long i = -1;
        const char *row = NULL;
        if (lineno == 1 && !w->json && strcmp(line, head) != 0)
            rc = wt_fail(e, "--resume: %s holds another sweep's table (its header differs)", out);
        else if (lineno > 1 && !w->json && *line && sscanf(line, "%ld", &i) == 1)
            row = line;
        else if (w->json && sscanf(line, ",{\"point\":%ld", &i) == 1)
            row = line + 1;
        else if (w->json && sscanf(line, "{\"point\":%ld", &i) == 1)
            row = line;
        if (rc != WT_OK || !row)
            continue;
        char *want = i >= 0 && i < w->s->npoints ? row_text(w->s, i, NULL, w->json) : NULL;
        size_t wl = want ? strlen(want) : 0;
        if (i < 0 || i >= w->s->npoints)
            rc = wt_fail(e, "--resume: %s:%ld: point %ld is not one of this sweep's %ld", out, lineno, i,
                         w->s->npoints);
        else if (!want)
            rc = wt_oom(e, "resume");
        else if (strncmp(row, want, wl) != 0 || row[wl] != ',')
            rc = wt_fail(e, "--resume: %s:%ld: point %ld's axes are not this sweep's (another sweep's table?)", out,
                         lineno, i);
        else if (w->row[i])
            rc = wt_fail(e, "--resume: %s:%ld: point %ld twice", out, lineno, i);
        else if (!(w->row[i] = strdup(row)))
            rc = wt_oom(e, "resume");
        free(want);
    }
    free(line);
    free(head);
    fclose(in);
    return rc;
}

static void progress(long done, long all, double elapsed, long todo)
{
    char eta[48] = "";
    if (done > 0 && done < todo)
        snprintf(eta, sizeof eta, ", about %.0f s left", elapsed / (double)done * (double)(todo - done));
    fprintf(stderr, "\rsweep: %ld of %ld points, %.1f s%s   ", all - todo + done, all, elapsed, eta);
}

int cmd_sweep(int argc, char **argv, const char *root)
{
    const char *file = NULL, *out = NULL;
    int resume = 0, jobs = 0, quiet = 0;
    wt_err e;
    int rc = WT_OK;
    for (int i = 0; rc == WT_OK && i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: wafertop sweep FILE.yaml [--out FILE.csv|FILE.json] [--resume] [--jobs N] [--quiet]\n"
                   "Runs every point of a design space (the product of the file's axes) and writes one\n"
                   "table: a row per point with its axes, the strategy and its figures (the search's best\n"
                   "with run: search), and why a point failed. The file:\n\n"
                   "  run: eval                 # or search\n"
                   "  scenario: {layout: default, model: gpt3-6.7b}   # every point's flags\n"
                   "  axes:                     # the first varies slowest\n"
                   "    link.bandwidth: [1TB/s, 2TB/s]                # a layout field (--set)\n"
                   "    seq: {from: 1024, to: 8192, times: 2}         # a flag; or step: to add\n\n"
                   "--out is written atomically as points finish; Ctrl-C keeps what is done, --resume\n"
                   "runs only the points the file lacks. --jobs: points at once (default: the cores).\n");
            return 0;
        }
        if (!strcmp(argv[i], "--resume"))
            resume = 1;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if ((!strcmp(argv[i], "--out") || !strcmp(argv[i], "--jobs")) && i + 1 >= argc)
            rc = wt_fail(&e, "%s: needs a value", argv[i]);
        else if (!strcmp(argv[i], "--out"))
            out = argv[++i];
        else if (!strcmp(argv[i], "--jobs")) {
            char *end;
            long j = strtol(argv[++i], &end, 10);
            if (*end || j < 1 || j > 1024)
                rc = wt_fail(&e, "--jobs: '%s' is not a count from 1 to 1024", argv[i]);
            jobs = (int)j;
        } else if (argv[i][0] == '-')
            rc = wt_fail(&e, "unknown option '%s' (sweep --help)", argv[i]);
        else if (file)
            rc = wt_fail(&e, "sweep: one file, not '%s' and '%s'", file, argv[i]);
        else
            file = argv[i];
    }
    if (rc == WT_OK && !file)
        rc = wt_fail(&e, "sweep: which file? (wafertop sweep FILE.yaml)");
    if (rc == WT_OK && resume && !out)
        rc = wt_fail(&e, "--resume: only with --out FILE, the table it continues");
    size_t olen = out ? strlen(out) : 0;
    int json = olen > 5 && !strcmp(out + olen - 5, ".json");
    if (rc == WT_OK && out && !json && !(olen > 4 && !strcmp(out + olen - 4, ".csv")))
        rc = wt_fail(&e, "--out: '%s': FILE.csv or FILE.json", out);
    /* under mpirun: rank 0 as below, serving the others; they run points */
    int rank = 0, size = 1, mpi = rc == WT_OK && mpi_job_launched();
    if (mpi && (rc = mpi_job_init("sweep", &rank, &size, &e)) != WT_OK)
        mpi = 0;
    sweep s;
    int loaded = rc == WT_OK && (rc = sweep_load(file, &s, &e)) == WT_OK;
    sweep_run w = {.s = &s, .root = root, .json = json};
    pthread_mutex_init(&w.lock, NULL);
    if (loaded && !(w.row = calloc((size_t)s.npoints, sizeof *w.row)))
        rc = wt_oom(&e, "sweep");
    if (rc == WT_OK && rank > 0) {
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sweep_mpi_work(run_point_of, &w);
    }
    if (rc == WT_OK && resume && rank == 0 && (rc = resume_rows(&w, out, &e)) != WT_OK && size > 1) {
        /* the other ranks wait for points: none */
        sweep_mpi_hub none = {take_none, keep_row_of, &w, size - 1};
        while (none.active > 0)
            sweep_mpi_serve(&none);
    }
    long kept = 0;
    for (long i = 0; rc == WT_OK && i < s.npoints; i++)
        kept += w.row[i] != NULL;
    if (rc == WT_OK && rank == 0) {
        if (!jobs && mpi) /* under mpirun, a core a rank */
            jobs = 1;
        if (!jobs) {
            long cores = sysconf(_SC_NPROCESSORS_ONLN);
            jobs = cores > 1024 ? 1024 : cores > 0 ? (int)cores : 1;
        }
        jobs = jobs > s.npoints - kept ? (int)(s.npoints - kept > 0 ? s.npoints - kept : 1) : jobs;
        atomic_store(&sweep_stop, 0);
        struct sigaction sa = {0}, old_int, old_term;
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends it at once */
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        pthread_t th[1024];
        int started = 0;
        for (; started < jobs; started++)
            if (pthread_create(&th[started], NULL, worker, &w) != 0)
                break;
        if (!started)
            rc = wt_fail(&e, "sweep: cannot start a thread");
        double t0 = wt_clock_s(), last_write = t0;
        long written = 0, todo = s.npoints - kept;
        int tty = isatty(2) && !quiet;
        sweep_mpi_hub hub = {take_point_of, keep_row_of, &w, size - 1};
        while (rc == WT_OK && atomic_load(&w.done) < todo && !atomic_load(&sweep_stop)) {
            /* the other ranks' messages at once; else the progress and the file a few times a second */
            nanosleep(&(struct timespec){0, size > 1 ? 1000000 : 50000000}, NULL);
            if (size > 1)
                sweep_mpi_serve(&hub);
            long d = atomic_load(&w.done);
            if (tty)
                progress(d, s.npoints, wt_clock_s() - t0, todo);
            if (out && d > written && wt_clock_s() - last_write >= 1) {
                if ((rc = atomic_write(out, "--out", put_table, &w, &e)) != WT_OK)
                    atomic_store(&sweep_stop, SIGTERM);
                written = d, last_write = wt_clock_s();
            }
        }
        while (hub.active > 0) { /* every rank told that no point is left, its last row taken */
            nanosleep(&(struct timespec){0, 1000000}, NULL);
            sweep_mpi_serve(&hub);
        }
        for (int j = 0; j < started; j++)
            pthread_join(th[j], NULL);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        long d = atomic_load(&w.done);
        if (tty)
            progress(d, s.npoints, wt_clock_s() - t0, todo), fputc('\n', stderr);
        if (rc == WT_OK)
            rc = out ? atomic_write(out, "--out", put_table, &w, &e) : put_table(stdout, &w, &e);
        if (rc == WT_OK && !quiet)
            fprintf(stderr, "sweep: %ld of %ld points done (%ld kept from %s), %ld of this run's with an error, "
                            "%.2f s\n",
                    kept + d, s.npoints, kept, out ? out : "-", atomic_load(&w.failed), wt_clock_s() - t0);
        /* make bench: WAFERTOP_BENCH=SECONDS, the sweep's target */
        const char *target = getenv("WAFERTOP_BENCH");
        double took = wt_clock_s() - t0, want = target ? atof(target) : 0;
        if (rc == WT_OK && want > 0)
            fprintf(stderr, "bench sweep_%ld_%s %.2f s target<%g %s\n", s.npoints, s.search ? "search" : "eval",
                    took, want, took < want ? "pass" : "FAIL");
        int sig = atomic_load(&sweep_stop);
        if (rc == WT_OK && sig) {
            fprintf(stderr, "sweep: interrupted: %s keeps the %ld points done; --resume runs the rest\n",
                    out ? out : "stdout", kept + d);
            rc = 128 + sig;
        }
    }
    for (long i = 0; loaded && w.row && i < s.npoints; i++)
        free(w.row[i]);
    free(w.row);
    pthread_mutex_destroy(&w.lock);
    if (loaded)
        sweep_free(&s);
    if (mpi)
        mpi_job_finalize();
    return rc > 128 ? rc : cmd_exit(rc, rank == 0 ? &e : NULL); /* rank 0 alone says what went wrong */
}
