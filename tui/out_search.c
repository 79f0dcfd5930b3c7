/*
 * out_search.c - printing a search: the counts, the best candidates with
 * their options and figures, and the baselines with their speed-ups.
 */
#include <math.h>
#include <string.h>

#include "out.h"
#include "qty.h"

/* The columns of one candidate, as text. */
typedef struct row {
    char strategy[64], placement[16], collective[16], checkpoint[16], mem[40], chunk[16], exec[16], seqpar[8];
    char microbatch[16], step[24], tokens[24], mfu[16], link[16], memory[24];
} row;

static void fill_row(row *w, const sim_result *r, int csv)
{
    const strategy *s = &r->s;
    strategy_format(s, w->strategy, sizeof w->strategy);
    snprintf(w->placement, sizeof w->placement, "%s", place_kind_name(s->placement));
    snprintf(w->collective, sizeof w->collective, "%s", coll_algo_name(s->collective));
    snprintf(w->checkpoint, sizeof w->checkpoint, "%s", recompute_name(s->checkpoint));
    mem_switches_format(s->mem, w->mem, sizeof w->mem);
    snprintf(w->exec, sizeof w->exec, "%s", exec_mode_name(s->exec));
    snprintf(w->seqpar, sizeof w->seqpar, "%s", s->tp_seqpar ? "on" : "off");
    if (csv) {
        snprintf(w->chunk, sizeof w->chunk, "%.0f", s->chunk);
        snprintf(w->step, sizeof w->step, "%.10g", r->step_time_s);
        snprintf(w->tokens, sizeof w->tokens, "%.10g", r->tokens_per_s);
        snprintf(w->mfu, sizeof w->mfu, "%.6f", r->mfu);
        snprintf(w->link, sizeof w->link, "%.6f", r->max_link_util);
        snprintf(w->memory, sizeof w->memory, "%.0f", r->mem.total);
    } else {
        if (s->chunk > 0)
            qty_format(s->chunk, QTY_BYTES, w->chunk, sizeof w->chunk);
        else
            snprintf(w->chunk, sizeof w->chunk, "off");
        qty_format(r->step_time_s, QTY_TIME, w->step, sizeof w->step);
        snprintf(w->tokens, sizeof w->tokens, "%.4g", r->tokens_per_s);
        snprintf(w->mfu, sizeof w->mfu, "%.1f%%", 100 * r->mfu);
        snprintf(w->link, sizeof w->link, "%.1f%%", 100 * r->max_link_util);
        qty_format(r->mem.total, QTY_BYTES, w->memory, sizeof w->memory);
    }
    snprintf(w->microbatch, sizeof w->microbatch, "%d", r->m.microbatch);
}

static void search_table(FILE *f, const search_result *s, const wafer *wf, const model *m)
{
    fprintf(f, "search on %s (%dx%d, %d live units) for %s, seq %d, batch %d\n", wf->name, wf->w, wf->h,
            wafer_live_units(wf), m->name, m->seq, m->batch);
    fprintf(f, "candidates %lld: %lld pruned by memory, %lld by the bound, %lld evaluated (%lld refused) in %.3g s\n",
            s->candidates, s->pruned_memory, s->pruned_bound, s->evaluated, s->invalid, s->elapsed_s);
    if (!s->ntop) {
        fprintf(f, "nothing fits: %s\n", s->nofit);
        return;
    }
    fputc('\n', f);
    fprintf(f, "%-4s %-24s %-9s %-10s %-10s %-24s %-7s %-8s %-6s %3s %10s %10s %6s %6s %9s\n", "rank", "strategy",
            "placement", "collective", "checkpoint", "mem", "chunk", "exec", "seqpar", "mbs", "step", "tokens/s", "MFU",
            "link", "memory");
    for (int i = 0; i < s->ntop; i++) {
        row w;
        fill_row(&w, &s->top[i], 0);
        fprintf(f, "%-4d %-24s %-9s %-10s %-10s %-24s %-7s %-8s %-6s %3s %10s %10s %6s %6s %9s\n", i + 1, w.strategy,
                w.placement, w.collective, w.checkpoint, w.mem, w.chunk, w.exec, w.seqpar, w.microbatch, w.step,
                w.tokens, w.mfu, w.link, w.memory);
    }
    if (!s->nbaselines)
        return;
    fprintf(f, "\nbaselines (the best of each's options that fits; speedup = its step / the best step):\n");
    for (int i = 0; i < s->nbaselines; i++) {
        const search_baseline *b = &s->baselines[i];
        if (!b->ok) {
            fprintf(f, "%-13s n/a: %s\n", b->name, b->why);
            continue;
        }
        row w;
        fill_row(&w, &b->r, 0);
        fprintf(f, "%-13s %-24s %-9s %-10s %-10s %-24s step %s, speedup %.2fx%s%s%s\n", b->name, w.strategy,
                w.placement, w.collective, w.checkpoint, w.mem, w.step, b->speedup, b->note[0] ? " (" : "",
                b->note, b->note[0] ? ")" : "");
    }
}

static void csv_row(FILE *f, const char *kind, int rank, const sim_result *r, double speedup)
{
    row w;
    fill_row(&w, r, 1);
    const char *cells[] = {kind, w.strategy, w.placement, w.collective, w.checkpoint, w.mem, w.chunk, w.exec,
                           w.seqpar, w.microbatch, w.step, w.tokens, w.mfu, w.link, w.memory};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        out_csv_text(f, cells[i]);
        fputc(',', f);
        if (i == 0)
            fprintf(f, "%d,", rank);
    }
    fprintf(f, "%.6g\n", speedup);
}

/* One table: the top rows, then the baselines; the counts on stderr. */
static void search_csv(FILE *f, const search_result *s)
{
    /* CSV is the rows alone (tools read it as is): the counts go to stderr */
    fprintf(stderr, "candidates=%lld,pruned_memory=%lld,pruned_bound=%lld,evaluated=%lld,elapsed_s=%.6g\n",
            s->candidates, s->pruned_memory, s->pruned_bound, s->evaluated, s->elapsed_s);
    fprintf(f, "kind,rank,strategy,placement,collective,checkpoint,mem,chunk,exec,tp_seqpar,microbatch,step_time_s,"
               "tokens_per_s,mfu,max_link_util,memory_total,speedup\n");
    for (int i = 0; i < s->ntop; i++)
        csv_row(f, "top", i + 1, &s->top[i], s->top[i].step_time_s / s->top[0].step_time_s);
    for (int i = 0; i < s->nbaselines; i++)
        if (s->baselines[i].ok)
            csv_row(f, s->baselines[i].name, 0, &s->baselines[i].r, s->baselines[i].speedup);
}

static void search_json(FILE *f, const search_result *s)
{
    json_writer w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "candidates");
    json_int(&w, s->candidates);
    json_key(&w, "pruned_memory");
    json_int(&w, s->pruned_memory);
    json_key(&w, "pruned_bound");
    json_int(&w, s->pruned_bound);
    json_key(&w, "evaluated");
    json_int(&w, s->evaluated);
    json_key(&w, "elapsed_s");
    json_number(&w, s->elapsed_s);
    json_key(&w, "fits");
    json_bool(&w, s->ntop > 0);
    if (!s->ntop) {
        json_key(&w, "why");
        json_string(&w, s->nofit);
    }
    json_key(&w, "best");
    if (s->ntop)
        out_eval_object(&w, &s->top[0]);
    else
        json_null(&w);
    json_key(&w, "top");
    json_begin_array(&w);
    for (int i = 0; i < s->ntop; i++)
        out_eval_object(&w, &s->top[i]);
    json_end_array(&w);
    json_key(&w, "baselines");
    json_begin_array(&w);
    for (int i = 0; i < s->nbaselines; i++) {
        const search_baseline *b = &s->baselines[i];
        char text[64];
        json_begin_object(&w);
        json_key(&w, "name");
        json_string(&w, b->name);
        json_key(&w, "strategy");
        if (b->ok)
            json_string(&w, strategy_format(&b->r.s, text, sizeof text));
        else
            json_string(&w, "");
        json_key(&w, "step_time_s");
        json_number(&w, b->ok ? b->r.step_time_s : NAN);
        json_key(&w, "speedup");
        json_number(&w, b->ok ? b->speedup : NAN);
        if (!b->ok) {
            json_key(&w, "why");
            json_string(&w, b->why);
        }
        if (b->note[0]) {
            json_key(&w, "note");
            json_string(&w, b->note);
        }
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
}

void out_search(FILE *f, const search_result *s, const wafer *wf, const model *m, const char *format)
{
    if (!strcmp(format, "json"))
        search_json(f, s);
    else if (!strcmp(format, "csv"))
        search_csv(f, s);
    else
        search_table(f, s, wf, m);
}
