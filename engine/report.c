#include "report.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dram.h"
#include "net.h"
#include "stream.h"

/* A field is read from a struct by offset (double, int, bool-as-int) or
 * computed by a function of the result (F_FN) or of one phase (F_PHASE).
 * The struct is the section's: sim_result for the top and the strategy,
 * mem_usage for memory, sim_phase for phases. */
typedef enum field_type { F_DBL, F_INT, F_BOOL, F_FN, F_PHASE } field_type;

typedef struct field {
    const char *name;
    field_type type;
    size_t offset;
    union {
        void (*top)(const sim_result *r, report_value *v);                       /* F_FN */
        void (*phase)(const sim_result *r, const sim_phase *ph, report_value *v); /* F_PHASE */
    } fn;
} field;

static void str(report_value *v, const char *s)
{
    v->kind = REPORT_STR;
    v->str = s;
}

static void f_layout(const sim_result *r, report_value *v) { str(v, r->wf->name); }
static void f_model(const sim_result *r, report_value *v) { str(v, r->m.name); }
static void f_net(const sim_result *r, report_value *v) { str(v, r->net->c.name); }
static void f_bottleneck(const sim_result *r, report_value *v)
{
    str(v, r->nphases ? r->phases[r->bottleneck].name : "");
}
static void f_text(const sim_result *r, report_value *v) { str(v, strategy_format(&r->s, v->buf, sizeof v->buf)); }
static void f_grid(const sim_result *r, report_value *v)
{
    snprintf(v->buf, sizeof v->buf, "%dx%d", r->s.tatp_w, r->s.tatp_h);
    str(v, v->buf);
}
static void f_placement(const sim_result *r, report_value *v) { str(v, place_kind_name(r->s.placement)); }
static void f_collective(const sim_result *r, report_value *v) { str(v, coll_algo_name(r->s.collective)); }
static void f_routing(const sim_result *r, report_value *v) { str(v, route_mode_name(r->s.routing)); }
static void f_checkpoint(const sim_result *r, report_value *v) { str(v, recompute_name(r->s.checkpoint)); }
static void f_mem(const sim_result *r, report_value *v) { str(v, mem_switches_format(r->s.mem, v->buf, sizeof v->buf)); }
static void f_grad(const sim_result *r, report_value *v) { str(v, grad_compress_name(r->s.grad)); }
static void f_subgroup(const sim_result *r, report_value *v)
{
    snprintf(v->buf, sizeof v->buf, "%dx%d", r->s.sub_w, r->s.sub_h);
    str(v, v->buf);
}

static void f_exec(const sim_result *r, report_value *v) { str(v, exec_mode_name(r->s.exec)); }

static void num(report_value *v, double x)
{
    v->kind = REPORT_NUM;
    v->num = x;
}
static void f_stream_in(const sim_result *r, report_value *v)
{
    double store, mesh;
    stream_step_s(r, 0, &store, &mesh);
    num(v, store);
}
static void f_stream_out(const sim_result *r, report_value *v)
{
    double store, mesh;
    stream_step_s(r, 1, &store, &mesh);
    num(v, store);
}
static void f_stream_bound(const sim_result *r, report_value *v) { str(v, stream_bound(r)); }
static void f_dram(const sim_result *r, report_value *v) { num(v, dram_step_s(r, 0)); }
static void f_dram_stall(const sim_result *r, report_value *v) { num(v, dram_step_s(r, 1)); }
static void f_phase_dram(const sim_result *r, const sim_phase *ph, report_value *v) { num(v, dram_phase_s(r, ph)); }

static void f_phase_name(const sim_result *r, const sim_phase *ph, report_value *v)
{
    (void)r;
    str(v, ph->name);
}
/* "x,y,DIR" of the phase's busiest link, "-" without traffic. */
static void f_busiest(const sim_result *r, const sim_phase *ph, report_value *v)
{
    str(v, wafer_link_format(r->wf, ph->busiest_link, v->buf, sizeof v->buf));
}

#define R(f) offsetof(sim_result, f)
#define MODEL(f) (offsetof(sim_result, m) + offsetof(model, f))
#define S(f) (offsetof(sim_result, s) + offsetof(strategy, f))
#define M(f) offsetof(mem_usage, f)
#define P(f) offsetof(sim_phase, f)

static const field top_fields[] = {
    {"layout", F_FN, 0, {f_layout}},
    {"model", F_FN, 0, {f_model}},
    {"seq", F_INT, MODEL(seq), {NULL}},
    {"batch", F_INT, MODEL(batch), {NULL}},
    {"microbatch", F_INT, MODEL(microbatch), {NULL}},
    {"net", F_FN, 0, {f_net}},
    {"units_total", F_INT, R(units_total), {NULL}},
    {"units_live", F_INT, R(units_live), {NULL}},
    {"units_used", F_INT, R(units_used), {NULL}},
    {"units_idle", F_INT, R(units_idle), {NULL}},
    {"micro_batches", F_INT, R(micro_batches), {NULL}},
    {"params", F_DBL, R(params), {NULL}},
    {"flops_per_step", F_DBL, R(flops_per_step), {NULL}},
    {"model_flops_per_step", F_DBL, R(model_flops_per_step), {NULL}},
    {"step_time_s", F_DBL, R(step_time_s), {NULL}},
    {"tokens_per_s", F_DBL, R(tokens_per_s), {NULL}},
    {"mfu", F_DBL, R(mfu), {NULL}},
    {"hfu", F_DBL, R(hfu), {NULL}},
    {"idle_fraction", F_DBL, R(idle_fraction), {NULL}},
    {"max_link_util", F_DBL, R(max_link_util), {NULL}},
    {"mean_link_util", F_DBL, R(mean_link_util), {NULL}},
    {"hot_links", F_INT, R(hot_links), {NULL}},
    {"max_peak_util", F_DBL, R(max_peak_util), {NULL}},
    {"window_s", F_DBL, R(window_s), {NULL}},
    {"bottleneck_phase", F_FN, 0, {f_bottleneck}},
    {"stage_time_s", F_DBL, R(stage_time_s), {NULL}},
    {"dp_time_s", F_DBL, R(dp_time_s), {NULL}},
    {"dp_exposed_s", F_DBL, R(dp_exposed_s), {NULL}},
    {"optimizer_s", F_DBL, R(optimizer_s), {NULL}},
    {"stream_in_s", F_FN, 0, {f_stream_in}},
    {"stream_out_s", F_FN, 0, {f_stream_out}},
    {"stream_bound", F_FN, 0, {f_stream_bound}},
    {"dram_s", F_FN, 0, {f_dram}},
    {"dram_stall_s", F_FN, 0, {f_dram_stall}},
};

static const field strategy_fields[] = {
    {"text", F_FN, 0, {f_text}},
    {"dp", F_INT, S(dp), {NULL}},
    {"tp", F_INT, S(tp), {NULL}},
    {"sp", F_INT, S(sp), {NULL}},
    {"pp", F_INT, S(pp), {NULL}},
    {"tatp", F_INT, S(tatp), {NULL}},
    {"tatp_grid", F_FN, 0, {f_grid}},
    {"placement", F_FN, 0, {f_placement}},
    {"collective", F_FN, 0, {f_collective}},
    {"routing", F_FN, 0, {f_routing}},
    {"checkpoint", F_FN, 0, {f_checkpoint}},
    {"mem", F_FN, 0, {f_mem}},
    {"grad_compress", F_FN, 0, {f_grad}},
    {"chunk", F_DBL, S(chunk), {NULL}},
    {"subgroup", F_FN, 0, {f_subgroup}},
    {"tp_seqpar", F_BOOL, S(tp_seqpar), {NULL}},
    {"exec", F_FN, 0, {f_exec}},
};

static const field memory_fields[] = {
    {"params", F_DBL, M(params), {NULL}},
    {"grads", F_DBL, M(grads), {NULL}},
    {"optimizer", F_DBL, M(optimizer), {NULL}},
    {"activations", F_DBL, M(activations), {NULL}},
    {"activations_per_layer", F_DBL, M(activations_per_layer), {NULL}},
    {"buffers", F_DBL, M(buffers), {NULL}},
    {"total", F_DBL, M(total), {NULL}},
    {"capacity", F_DBL, M(capacity), {NULL}},
    {"fits", F_BOOL, M(fits), {NULL}},
    {"sram", F_DBL, M(sram), {NULL}},
    {"dram", F_DBL, M(dram), {NULL}},
    {"dram_buffers", F_DBL, M(dram_buffers), {NULL}},
    {"dram_params", F_DBL, M(dram_params), {NULL}},
    {"dram_grads", F_DBL, M(dram_grads), {NULL}},
    {"dram_activations", F_DBL, M(dram_activations), {NULL}},
    {"dram_optimizer", F_DBL, M(dram_optimizer), {NULL}},
};

static const field phase_fields[] = {
    {"name", F_PHASE, 0, {.phase = f_phase_name}},
    {"count", F_DBL, P(count), {NULL}},
    {"compute_s", F_DBL, P(compute_s), {NULL}},
    {"comm_s", F_DBL, P(comm_s), {NULL}},
    {"time_s", F_DBL, P(time_s), {NULL}},
    {"max_link_util", F_DBL, P(max_link_util), {NULL}},
    {"bytes_per_unit", F_DBL, P(send_bytes), {NULL}},
    {"bw_ratio", F_DBL, P(bw_ratio), {NULL}},
    {"share", F_DBL, P(share), {NULL}},
    {"busiest_link", F_PHASE, 0, {.phase = f_busiest}},
    {"dram_s", F_PHASE, 0, {.phase = f_phase_dram}},
};

#define N(a) ((int)(sizeof a / sizeof a[0]))

static const struct {
    const char *key;
    const field *fields;
    int n;
} sections[] = {
    {NULL, top_fields, N(top_fields)},
    {"strategy", strategy_fields, N(strategy_fields)},
    {"memory", memory_fields, N(memory_fields)},
    {"phases", phase_fields, N(phase_fields)},
};

const char *report_section_key(report_section s) { return sections[s].key; }
int report_nfields(report_section s) { return sections[s].n; }
const char *report_field_name(report_section s, int i) { return sections[s].fields[i].name; }

int report_field_find(report_section s, const char *name)
{
    for (int i = 0; i < sections[s].n; i++)
        if (!strcmp(sections[s].fields[i].name, name))
            return i;
    return -1;
}

void report_get(const sim_result *r, report_section s, int i, int index, report_value *v)
{
    const field *f = &sections[s].fields[i];
    const char *base = s == REPORT_MEMORY  ? (const char *)&r->mem
                       : s == REPORT_PHASE ? (const char *)&r->phases[index]
                                           : (const char *)r;
    switch (f->type) {
    case F_DBL:
        v->kind = REPORT_NUM;
        v->num = *(const double *)(base + f->offset);
        break;
    case F_INT:
    case F_BOOL:
        v->kind = f->type == F_INT ? REPORT_INT : REPORT_BOOL;
        v->num = *(const int *)(base + f->offset);
        break;
    case F_FN:
        f->fn.top(r, v);
        break;
    case F_PHASE:
        f->fn.phase(r, &r->phases[index], v);
        break;
    }
}
