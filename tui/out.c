#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dram.h"
#include "json.h"
#include "net.h"
#include "qty.h"
#include "report.h"
#include "stream.h"

static void json_value(json_writer *w, const report_value *v)
{
    switch (v->kind) {
    case REPORT_STR: json_string(w, v->str); break;
    case REPORT_INT: json_int(w, (long long)v->num); break;
    case REPORT_BOOL: json_bool(w, v->num != 0); break;
    default: json_number(w, v->num); break;
    }
}

void out_json_section(json_writer *w, const sim_result *r, report_section s, int index)
{
    json_begin_object(w);
    for (int i = 0; i < report_nfields(s); i++) {
        report_value v;
        report_get(r, s, i, index, &v);
        json_key(w, report_field_name(s, i));
        json_value(w, &v);
    }
    json_end_object(w);
}

void out_eval_object(json_writer *w, const sim_result *r)
{
    json_begin_object(w);
    for (int i = 0; i < report_nfields(REPORT_TOP); i++) {
        report_value v;
        report_get(r, REPORT_TOP, i, 0, &v);
        json_key(w, report_field_name(REPORT_TOP, i));
        json_value(w, &v);
    }
    json_key(w, report_section_key(REPORT_STRATEGY));
    out_json_section(w, r, REPORT_STRATEGY, 0);
    json_key(w, report_section_key(REPORT_MEMORY));
    out_json_section(w, r, REPORT_MEMORY, 0);
    json_key(w, report_section_key(REPORT_PHASE));
    json_begin_array(w);
    for (int p = 0; p < r->nphases; p++)
        out_json_section(w, r, REPORT_PHASE, p);
    json_end_array(w);
    const calib *c = &r->wf->calib;
    if (c->path[0]) { /* only with a calibration file: without, the document is as before */
        json_key(w, "calibration");
        json_begin_object(w);
        json_key(w, "file");
        json_string(w, c->path);
        for (int k = 0; k < CALIB_NCLASS; k++) {
            json_key(w, calib_class_name(k));
            json_number(w, c->factor[k]);
        }
        json_end_object(w);
    }
    json_end_object(w);
}

void out_eval_json(FILE *f, const sim_result *r)
{
    json_writer w;
    json_init(&w, f);
    out_eval_object(&w, r);
}

void out_csv_text(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void out_csv_value(FILE *f, const report_value *v)
{
    if (v->kind == REPORT_STR)
        out_csv_text(f, v->str);
    else if (v->kind == REPORT_BOOL)
        fputs(v->num ? "true" : "false", f);
    else if (v->kind == REPORT_INT)
        fprintf(f, "%lld", (long long)v->num);
    else
        fprintf(f, "%.10g", v->num);
}

/* A header line and one row: the top figures, then strategy.* and memory.*. */
void out_eval_csv(FILE *f, const sim_result *r)
{
    static const report_section secs[] = {REPORT_TOP, REPORT_STRATEGY, REPORT_MEMORY};
    for (int pass = 0; pass < 2; pass++) {
        int col = 0;
        for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++) {
            for (int i = 0; i < report_nfields(secs[s]); i++) {
                if (col++)
                    fputc(',', f);
                if (pass == 0) {
                    const char *key = report_section_key(secs[s]);
                    fprintf(f, "%s%s%s", key ? key : "", key ? "." : "", report_field_name(secs[s], i));
                } else {
                    report_value v;
                    report_get(r, secs[s], i, 0, &v);
                    out_csv_value(f, &v);
                }
            }
        }
        fputc('\n', f);
    }
}

static const char *bytes_str(double v, char *buf, size_t n) { return qty_format(v, QTY_BYTES, buf, n); }
static const char *time_str(double v, char *buf, size_t n) { return qty_format(v, QTY_TIME, buf, n); }

void out_eval_table(FILE *f, const sim_result *r)
{
    char a[32], b[32], c[32], d[32], strat[64], mem[64], win[32];
    const strategy *s = &r->s;
    const wafer *wf = r->wf;
    fprintf(f, "layout    %s: %dx%d mesh (%dx%d wafers), %d units, %d live\n", wf->name, wf->w, wf->h,
            wf->wafers_x, wf->wafers_y, r->units_total, r->units_live);
    fprintf(f, "model     %s: %.2f B parameters, seq %d, batch %d, micro-batch %d (%d per step)\n", r->m.name,
            r->params / 1e9, r->m.seq, r->m.batch, r->m.microbatch, r->micro_batches);
    fprintf(f, "strategy  %s  (DP %d, TP %d, SP %d, PP %d, TATP %d as %dx%d)\n", strategy_format(s, strat, sizeof strat),
            s->dp, s->tp, s->sp, s->pp, s->tatp, s->tatp_w, s->tatp_h);
    fprintf(f, "options   placement %s, collective %s, routing %s, checkpoint %s, mem %s, grad %s, chunk %s, "
               "subgroup %dx%d, tp-seqpar %s, exec %s\n",
            place_kind_name(s->placement), coll_algo_name(s->collective), route_mode_name(s->routing),
            recompute_name(s->checkpoint), mem_switches_format(s->mem, mem, sizeof mem),
            grad_compress_name(s->grad), s->chunk > 0 ? bytes_str(s->chunk, a, sizeof a) : "off", s->sub_w,
            s->sub_h, s->tp_seqpar ? "on" : "off", exec_mode_name(s->exec));
    fprintf(f, "net       %s: %s\n", r->net->c.name, r->net->summary);
    if (wf->calib.path[0]) {
        fprintf(f, "calib     %s: bandwidth time x", wf->calib.path);
        for (int k = 0; k < CALIB_NCLASS; k++)
            fprintf(f, " %s %.3f", calib_class_name(k), wf->calib.factor[k]);
        fputc('\n', f);
    }
    fprintf(f, "units     %d used, %d idle\n", r->units_used, r->units_idle);
    fprintf(f, "step      %s   %s   MFU %.1f %%   HFU %.1f %%   idle %.1f %%\n", time_str(r->step_time_s, a, sizeof a),
            qty_format(r->tokens_per_s, QTY_TOKEN_RATE, b, sizeof b), 100 * r->mfu, 100 * r->hfu,
            100 * r->idle_fraction);
    fprintf(f, "          stage %s x %d + DP exposed %s (of %s) + optimizer %s\n",
            time_str(r->stage_time_s, a, sizeof a), r->micro_batches + s->pp - 1,
            time_str(r->dp_exposed_s, b, sizeof b), time_str(r->dp_time_s, c, sizeof c),
            time_str(r->optimizer_s, d, sizeof d));
    if (s->exec == EXEC_STREAM) {
        double si, so, mesh;
        stream_step_s(r, 0, &si, &mesh);
        stream_step_s(r, 1, &so, &mesh);
        fprintf(f, "stream    store alone: in %s, out %s per step; bound by the %s\n", time_str(si, a, sizeof a),
                time_str(so, b, sizeof b), stream_bound(r));
    }
    fprintf(f, "links     max util %.1f %%   mean %.1f %%   hot (%s peak >= %.0f %%) %d   bottleneck %s\n",
            100 * r->max_link_util, 100 * r->mean_link_util, time_str(r->window_s, win, sizeof win),
            100 * SIM_HOT, r->hot_links,
            r->nphases ? r->phases[r->bottleneck].name : "-");
    const mem_usage *m = &r->mem;
    fprintf(f, "memory    fullest unit %s of %s: %s\n", bytes_str(m->total, a, sizeof a),
            bytes_str(m->capacity, b, sizeof b), m->fits ? "fits" : "DOES NOT FIT");
    fprintf(f, "          params %s, grads %s, ", bytes_str(m->params, a, sizeof a), bytes_str(m->grads, b, sizeof b));
    fprintf(f, "optimizer %s, activations %s ", bytes_str(m->optimizer, a, sizeof a),
            bytes_str(m->activations, b, sizeof b));
    fprintf(f, "(%s per layer), buffers %s\n", bytes_str(m->activations_per_layer, a, sizeof a),
            bytes_str(m->buffers, b, sizeof b));
    if (wf->dram_bytes > 0) {
        fprintf(f, "          in SRAM %s; in DRAM %s: ", bytes_str(m->sram, a, sizeof a), bytes_str(m->dram, b, sizeof b));
        fprintf(f, "params %s, grads %s, ", bytes_str(m->dram_params, a, sizeof a), bytes_str(m->dram_grads, b, sizeof b));
        fprintf(f, "activations %s, optimizer %s, ", bytes_str(m->dram_activations, a, sizeof a),
                bytes_str(m->dram_optimizer, b, sizeof b));
        fprintf(f, "buffers %s\n", bytes_str(m->dram_buffers, a, sizeof a));
        fprintf(f, "dram      traffic %s per step at %s/s, %s of it beyond compute\n", time_str(dram_step_s(r, 0), a, sizeof a),
                bytes_str(wf->dram_bw, b, sizeof b), time_str(dram_step_s(r, 1), c, sizeof c));
    }
    fprintf(f, "\n%-16s %9s %10s %10s %10s %6s %9s %-10s %8s\n", "phase", "count", "compute", "comm", "time",
            "share", "link util", " busiest", "bw ratio");
    for (int p = 0; p < r->nphases; p++) {
        const sim_phase *ph = &r->phases[p];
        fprintf(f, "%-16s %9.0f %10s %10s %10s %5.1f%% %8.1f%% %-10s %8.2f\n", ph->name, ph->count,
                time_str(ph->compute_s, a, sizeof a), time_str(ph->comm_s, b, sizeof b),
                time_str(ph->time_s, c, sizeof c), 100 * ph->share, 100 * ph->max_link_util,
                wafer_link_format(r->wf, ph->busiest_link, d, sizeof d), ph->bw_ratio);
    }
}

/* A links output's start: JSON's array opened, or the header of the table
 * or the CSV: x, y, dir, bytes, busy_s, util, then columns a and b. */
static void links_begin(FILE *f, int json, int table, json_writer *w, const char *a, const char *b)
{
    if (json) {
        json_init(w, f);
        json_begin_array(w);
        return;
    }
    fprintf(f, table ? "%5s %5s %3s %14s %12s %8s %11s %12s\n" : "%s,%s,%s,%s,%s,%s,%s,%s\n", "x", "y", "dir",
            "bytes", "busy_s", "util", a, b);
}

/* A link's JSON object opened, with the fields every links output has. */
static void links_row(json_writer *w, int x, int y, const char *dir, double bytes, double busy, double util)
{
    json_begin_object(w);
    json_key(w, "x"); json_int(w, x);
    json_key(w, "y"); json_int(w, y);
    json_key(w, "dir"); json_string(w, dir);
    json_key(w, "bytes"); json_number(w, bytes);
    json_key(w, "busy_s"); json_number(w, busy);
    json_key(w, "util"); json_number(w, util);
}

int out_links(FILE *f, const sim_result *r, int phase, const char *format)
{
    const wafer *wf = r->wf;
    size_t nl = wafer_nlinks(wf);
    const double *bytes = r->link_bytes;
    double *own = NULL, span = r->step_time_s;
    /* the busiest window and hot time are the whole step's, with or
     * without a phase */
    double *peak = malloc(2 * nl * sizeof *peak);
    wt_err e;
    if (!peak || sim_link_windows(r, r->window_s > 0 ? r->window_s : SIM_WINDOW_S, SIM_HOT, peak, peak + nl, &e)) {
        free(peak);
        return -1;
    }
    if (phase >= 0) {
        own = malloc(nl * sizeof *own);
        if (!own) {
            free(peak);
            return -1;
        }
        sim_phase_link_bytes(r, phase, own);
        bytes = own;
        /* a prefetched gather runs for its comm_s beside the layer before:
         * its links are busy over that, not over the part it exposes */
        span = r->phases[phase].count * fmax(r->phases[phase].time_s, r->phases[phase].comm_s);
    }
    int json = !strcmp(format, "json"), table = !strcmp(format, "table");
    json_writer w;
    links_begin(f, json, table, &w, "peak_util", "hot_s");
    for (size_t l = 0; l < nl; l++) {
        int u = (int)(l / WAFER_NDIR), dir = (int)(l % WAFER_NDIR);
        if (wafer_neighbor(wf, u, dir) < 0)
            continue;
        double inv_bw = sim_link_inv_bw(wf, l);
        double busy = bytes[l] * inv_bw, util = span > 0 ? busy / span : 0;
        char dirs[2] = {wafer_dir_char(dir), '\0'};
        if (json) {
            links_row(&w, wafer_x(wf, u), wafer_y(wf, u), dirs, bytes[l], busy, util);
            json_key(&w, "peak_util"); json_number(&w, peak[l]);
            json_key(&w, "hot_s"); json_number(&w, peak[nl + l]);
            json_key(&w, "dead"); json_bool(&w, inv_bw <= 0);
            json_end_object(&w);
        } else {
            fprintf(f, table ? "%5d %5d %3s %14.6g %12.6g %8.4f %11.4f %12.6g\n"
                             : "%d,%d,%s,%.10g,%.10g,%.10g,%.10g,%.10g\n",
                    wafer_x(wf, u), wafer_y(wf, u), dirs, bytes[l], busy, util, peak[l], peak[nl + l]);
        }
    }
    if (json)
        json_end_array(&w);
    free(own);
    free(peak);
    return 0;
}

char *out_flit_summary(char *buf, size_t n, const sim_result *r, int phase, const flit_phase_out *o)
{
    const sim_phase *ph = &r->phases[phase];
    char t[32], tf[32], tc[32], bw[32], calibrated[96] = "";
    if (r->wf->calib.path[0])
        snprintf(calibrated, sizeof calibrated, ", calibrated %s (%+.1f %%)",
                 qty_format(o->calib_s, QTY_TIME, tc, sizeof tc), 100 * (o->time_s / o->calib_s - 1));
    snprintf(buf, n,
             "flit level: %s, one occurrence: %s, flow level %s (%+.1f %%)%s; window %d,%d %dx%d, %lld flows "
             "(%lld left out: they leave the window), %d passes, %lld cycles of %d B at %s, bytes scaled down "
             "up to %.4g times",
             ph->name, qty_format(o->time_s, QTY_TIME, t, sizeof t), qty_format(o->flow_s, QTY_TIME, tf, sizeof tf),
             o->flow_s > 0 ? 100 * (o->time_s / o->flow_s - 1) : 0, calibrated, o->x0, o->y0, o->w, o->h, o->flows,
             o->flows_out, o->passes, o->cycles, r->wf->flit_bytes,
             qty_format(r->wf->link_bw, QTY_BANDWIDTH, bw, sizeof bw), o->scale);
    return buf;
}

int out_flit_links(FILE *f, const sim_result *r, const flit_phase_out *o, const char *format)
{
    const wafer *wf = r->wf;
    int json = !strcmp(format, "json"), table = !strcmp(format, "table");
    json_writer w;
    links_begin(f, json, table, &w, "buffer_mean", "buffer_peak");
    for (int wy = 0; wy < o->h; wy++)
        for (int wx = 0; wx < o->w; wx++)
            for (int dir = 0; dir < WAFER_NDIR; dir++) {
                int x = o->x0 + wx, y = o->y0 + wy, v = wafer_neighbor(wf, wafer_unit(wf, x, y), dir);
                if (v < 0 || wafer_x(wf, v) < o->x0 || wafer_x(wf, v) >= o->x0 + o->w || wafer_y(wf, v) < o->y0 ||
                    wafer_y(wf, v) >= o->y0 + o->h)
                    continue;
                size_t l = ((size_t)wy * (size_t)o->w + (size_t)wx) * WAFER_NDIR + (size_t)dir;
                char dirs[2] = {wafer_dir_char(dir), '\0'};
                double busy = o->util[l] * o->time_s;
                if (json) {
                    links_row(&w, x, y, dirs, o->bytes[l], busy, o->util[l]);
                    json_key(&w, "buffer_mean"); json_number(&w, o->buffer_mean[l]);
                    json_key(&w, "buffer_peak"); json_int(&w, o->buffer_peak[l]);
                    json_end_object(&w);
                } else {
                    fprintf(f, table ? "%5d %5d %3s %14.6g %12.6g %8.4f %11.4f %12d\n" : "%d,%d,%s,%.10g,%.10g,%.10g,%.10g,%d\n",
                            x, y, dirs, o->bytes[l], busy, o->util[l], o->buffer_mean[l], o->buffer_peak[l]);
                }
            }
    if (json)
        json_end_array(&w);
    return 0;
}
