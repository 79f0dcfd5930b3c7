/* The two-level search (engine/search.h): the pruned search returns the
 * exhaustive answer, the bound never exceeds the fine result, threads do not
 * change anything, and the refusals say why. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_rel.h"

#include "layout.h"
#include "net.h"
#include "report.h"
#include "search.h"
#include "search_int.h"

static uint64_t rng = 88172645463325252ull;

static int rand_int(int lo, int hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int)(rng % (uint64_t)(hi - lo + 1));
}

/* wafers_x small wafers of w x h in a row, whose SRAM is set so that some
 * candidates do not fit. */
static void small_wafers(wafer *wf, int w, int h, int wafers_x, double sram)
{
    assert_int_equal(wafer_init(wf, w, h, wafers_x, 1, NULL), WT_OK);
    wf->peak_flops = 1e12;
    wf->link_bw = 1e9;
    wf->link_lat = 1e-8;
    wf->link_overhead = 2e-7;
    wf->sram_bytes = sram;
}

static void small_wafer(wafer *wf, int w, int h, double sram)
{
    small_wafers(wf, w, h, 1, sram);
}

static model small_model(int layers, int hidden, int heads, int seq, int batch)
{
    model m = {"small", layers, hidden, heads, heads, 4 * hidden, MODEL_GELU, 256, 1, seq, batch, 1};
    return m;
}

/* The figures that identify a candidate: strategy, options, micro-batch. */
static void identity(const sim_result *r, char *buf, size_t n)
{
    char s[64], mem[64];
    snprintf(buf, n, "%s %s %s %s %s %.0f b%d %s", strategy_format(&r->s, s, sizeof s),
             place_kind_name(r->s.placement), coll_algo_name(r->s.collective), recompute_name(r->s.checkpoint),
             mem_switches_format(r->s.mem, mem, sizeof mem), r->s.chunk, r->m.microbatch, exec_mode_name(r->s.exec));
}

static int popcount(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static void run(const wafer *wf, const model *m, search_opts *o, search_result *r)
{
    wt_err e;
    if (search_run(wf, m, o, r, &e) != WT_OK)
        fail_msg("search_run: %s", e.msg);
}

/* Same top K, same order, same step times, same counts where they must be. */
static void assert_same_top(const search_result *a, const search_result *b)
{
    assert_int_equal(a->ntop, b->ntop);
    for (int i = 0; i < a->ntop; i++) {
        char x[160], y[160];
        identity(&a->top[i], x, sizeof x);
        identity(&b->top[i], y, sizeof y);
        assert_string_equal(x, y);
        assert_true(a->top[i].step_time_s == b->top[i].step_time_s);
    }
}

/* Searches with o pruned, then exhaustively into full (the caller frees
 * it): the same top and the same counts where they must be. */
static void pruned_is_exhaustive(const wafer *wf, const model *m, search_opts o, search_result *full)
{
    search_result pruned;
    o.exhaustive = 0;
    run(wf, m, &o, &pruned);
    o.exhaustive = 1;
    run(wf, m, &o, full);
    print_message("%dx%d: %lld candidates, %lld fit, %lld evaluated pruned vs %lld exhaustive\n", wf->w, wf->h,
                  full->candidates, full->candidates - full->pruned_memory, pruned.evaluated, full->evaluated);
    assert_same_top(&pruned, full);
    for (int i = 0; i < full->ntop; i++) /* distinct strategies: no variant of one in an inert option */
        for (int j = 0; j < i; j++)
            assert_false(search_same_strategy(&full->top[i], &full->top[j]));
    assert_int_equal(pruned.candidates, full->candidates);
    assert_int_equal(pruned.pruned_memory, full->pruned_memory);
    assert_int_equal(full->pruned_bound, 0);
    assert_int_equal(full->evaluated, full->candidates - full->pruned_memory);
    assert_int_equal(pruned.evaluated + pruned.pruned_bound, full->evaluated);
    search_free(&pruned);
}

/* A random small scenario: wafers_x wafers of 2-6 x 2-hmax units and a
 * model; some candidates must not fit: a unit holds 1 to 4 times its share
 * of the weights and optimizer states (16 bytes a parameter). The space
 * has two memory sets and two chunks, to keep the tests quick. */
static model random_case(wafer *wf, int hmax, int wafers_x, search_opts *o)
{
    int w = rand_int(2, 6), h = rand_int(2, hmax);
    model m = small_model(rand_int(1, 4) * 2, 64 * rand_int(1, 2), 4 * rand_int(1, 2), 32 * rand_int(1, 2),
                          8 * rand_int(1, 4));
    small_wafers(wf, w, h, wafers_x, rand_int(1, 4) * 16 * model_params(&m) / (w * h));
    o->space.mems = (1u << 0) | (1u << (MEM_ZERO | MEM_ACT_INT8));
    o->space.chunks = 1u | 4u;
    return m;
}

/* Six random small scenarios: the pruned search equals the exhaustive one. */
static void test_pruned_equals_exhaustive(void **state)
{
    (void)state;
    for (int k = 0; k < 6; k++) {
        wafer wf;
        search_opts o = {.top_k = 5, .jobs = 2};
        model m = random_case(&wf, 6, 1, &o);
        search_result full;
        pruned_is_exhaustive(&wf, &m, o, &full);
        search_free(&full);
        wafer_free(&wf);
    }
}

typedef struct bound_check {
    const wafer *wf;
    sim_ctx *ctx;
    long checked, fits;
    long per_algo[COLL_NALGOS];  /* candidates checked with each collective algorithm */
} bound_check;

static void check_one(void *ud, const strategy *s, const model *m, int fits, double bound)
{
    bound_check *b = ud;
    sim_result r;
    if (sim_eval_ctx(b->ctx, &r, m, s, NULL) != WT_OK)
        return;
    assert_int_equal(fits, r.mem.fits);
    if (fits) {
        if (!(bound <= r.step_time_s * (1 + 1e-12))) {
            char id[160];
            identity(&r, id, sizeof id);
            fail_msg("bound %.17g above the step %.17g for %s", bound, r.step_time_s, id);
        }
        b->fits++;
    }
    assert_true(s->collective >= 0 && s->collective < COLL_NALGOS);
    b->per_algo[s->collective]++;
    b->checked++;
    sim_free(&r);
}

/* Every figure of a and b but their strategies' (the top, the memory,
 * every phase) is the same, to the bit. */
static int same_figures(const sim_result *a, const sim_result *b)
{
    if (a->nphases != b->nphases)
        return 0;
    const report_section sections[] = {REPORT_TOP, REPORT_MEMORY, REPORT_PHASE};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < report_nfields(sections[k]); i++)
            for (int p = 0; p < (sections[k] == REPORT_PHASE ? a->nphases : 1); p++) {
                report_value x, y;
                report_get(a, sections[k], i, p, &x);
                report_get(b, sections[k], i, p, &y);
                if (x.kind != y.kind || (x.kind == REPORT_STR ? strcmp(x.str, y.str) != 0 : x.num != y.num))
                    return 0;
            }
    return 1;
}

/* The options search_same_strategy may find inert, each set to its first
 * value: zero off, unchunked, the ring. */
enum { INERT_ZERO, INERT_CHUNK, INERT_RING, NINERT };

typedef struct inert_check {
    sim_ctx *ctx;
    long same[NINERT], apart[NINERT]; /* variants called one strategy with it, and not */
} inert_check;

static void check_inert(void *ud, const strategy *s, const model *m, int fits, double bound)
{
    (void)fits;
    (void)bound;
    inert_check *c = ud;
    sim_result r;
    if (sim_eval_ctx(c->ctx, &r, m, s, NULL) != WT_OK)
        return;
    for (int k = 0; k < NINERT; k++) {
        strategy v = *s;
        if (k == INERT_ZERO)
            v.mem &= ~MEM_ZERO;
        else if (k == INERT_CHUNK)
            v.chunk = 0;
        else
            v.collective = COLL_RING;
        if (v.mem == s->mem && v.chunk == s->chunk && v.collective == s->collective)
            continue;
        sim_result w;
        assert_int_equal(sim_eval_ctx(c->ctx, &w, m, &v, NULL), WT_OK);
        if (search_same_strategy(&r, &w)) {
            if (!same_figures(&r, &w)) {
                char id[160];
                identity(&r, id, sizeof id);
                fail_msg("%s: called one strategy with its variant %d, but the figures differ", id, k);
            }
            c->same[k]++;
        } else {
            c->apart[k]++;
        }
        assert_int_equal(search_same_strategy(&w, &r), search_same_strategy(&r, &w));
        sim_free(&w);
    }
    sim_free(&r);
}

/* search_same_strategy against the figures, over every candidate of small
 * spaces on one wafer and on two (whose spanning groups run hier whatever
 * the algorithm): a candidate and its variant with an option the rules
 * find inert have every figure the same; each rule both joins and keeps
 * apart some. */
static void test_same_strategy_same_figures(void **state)
{
    (void)state;
    const int meshes[2][3] = {{4, 2, 1}, {2, 2, 2}}; /* w, h of a wafer, wafers in x */
    for (int k = 0; k < 2; k++) {
        wafer wf;
        small_wafers(&wf, meshes[k][0], meshes[k][1], meshes[k][2], 1e9);
        model m = small_model(4, 64, 4, 48, 24);
        search_space sp = {.checkpoints = 1u << RECOMPUTE_NONE, .mems = 1u | (1u << MEM_ZERO), .chunks = 1u | 4u};
        inert_check c = {0};
        assert_int_equal(sim_ctx_new(&c.ctx, &wf, NULL), WT_OK);
        assert_int_equal(search_each(&wf, &m, &sp, check_inert, &c, NULL), WT_OK);
        for (int i = 0; i < NINERT; i++) {
            print_message("%dx%d x%d, rule %d: %ld variants one strategy, %ld apart\n", meshes[k][0],
                          meshes[k][1], meshes[k][2], i, c.same[i], c.apart[i]);
            assert_true(c.same[i] > 0 && c.apart[i] > 0);
        }
        sim_ctx_free(c.ctx);
        wafer_free(&wf);
    }
}

/* The bound is never above the fine result, over every candidate: every
 * row of the collective table the search tries, as many candidates each. */
static void test_bound_below_fine(void **state)
{
    (void)state;
    const int meshes[2][2] = {{4, 2}, {2, 3}};
    for (int k = 0; k < 2; k++) {
        wafer wf;
        small_wafer(&wf, meshes[k][0], meshes[k][1], 1e9);
        model m = small_model(4, 64, 4, 48, 24);
        search_space sp = {0};
        bound_check b = {&wf, NULL, 0, 0, {0}};
        assert_int_equal(sim_ctx_new(&b.ctx, &wf, NULL), WT_OK);
        assert_int_equal(search_each(&wf, &m, &sp, check_one, &b, NULL), WT_OK);
        print_message("mesh %dx%d: bound checked on %ld candidates\n", meshes[k][0], meshes[k][1], b.checked);
        assert_true(b.checked > 5000 && b.fits == b.checked);
        for (int a = 0; a < COLL_NALGOS; a++)
            assert_int_equal(b.per_algo[a], choice_at(coll_algo_table(), a)->flags & CHOICE_SEARCH
                                                ? b.checked / popcount(choice_mask(coll_algo_table(), CHOICE_SEARCH))
                                                : 0);
        sim_ctx_free(b.ctx);
        wafer_free(&wf);
    }
}

/* sim_bounds fills a bound for every algorithm of the table, each at most
 * the step sim_eval gives with it, on one wafer and on several. */
static void test_bound_per_algorithm(void **state)
{
    (void)state;
    static const struct {
        int w, h, wafers_x;
        const char *text;
    } cases[] = {
        {4, 4, 1, "DP16"}, {4, 4, 1, "DP2,TP2,PP2,TATP2"}, {4, 2, 1, "SP2,TATP4"}, {4, 4, 2, "DP8,TATP4"},
    };
    model m = small_model(4, 64, 4, 48, 48);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        wafer wf;
        small_wafers(&wf, cases[k].w, cases[k].h, cases[k].wafers_x, 1e9);
        sim_ctx *ctx;
        assert_int_equal(sim_ctx_new(&ctx, &wf, NULL), WT_OK);
        strategy s;
        strategy_defaults(&s);
        assert_int_equal(strategy_parse(cases[k].text, &s, NULL), WT_OK);
        sim_result spec;
        double bound[COLL_NALGOS + 1];
        bound[COLL_NALGOS] = -1; /* sim_bounds writes COLL_NALGOS, no more */
        assert_int_equal(sim_spec(&spec, &wf, &m, &s, NULL), WT_OK);
        sim_bounds(&spec, sim_ctx_link_bw(ctx), bound);
        assert_true(bound[COLL_NALGOS] == -1);
        for (int a = 0; a < COLL_NALGOS; a++) {
            sim_result r;
            s.collective = (coll_algo)a;
            assert_int_equal(sim_eval_ctx(ctx, &r, &m, &s, NULL), WT_OK);
            print_message("%s on %dx%d x%d: %-5s bound %.6g <= step %.6g\n", cases[k].text, cases[k].w, cases[k].h,
                          cases[k].wafers_x, coll_algo_name((coll_algo)a), bound[a], r.step_time_s);
            assert_true(bound[a] > 0 && bound[a] <= r.step_time_s * (1 + 1e-12));
            sim_free(&r);
        }
        sim_ctx_free(ctx);
        wafer_free(&wf);
    }
}

/* The layout of a fixture, loaded into wf. */
static void load_fixture(const char *path, wafer *wf)
{
    wt_err e;
    if (layout_load(path, wf, &e) != WT_OK)
        fail_msg("%s", e.msg);
}

/* On wf: the pruned search over the memory switches mems equals the
 * exhaustive one (its answer into *full, which the caller frees and which
 * holds a best), and the bound is at most the step for every candidate of
 * sp, of which some fit. */
static void search_and_bound(const wafer *wf, const model *m, unsigned mems, search_space sp, search_result *full)
{
    search_opts o = {.top_k = 5, .jobs = 2};
    o.space.mems = mems;
    o.space.chunks = 1u | 4u;
    pruned_is_exhaustive(wf, m, o, full);
    assert_true(full->ntop > 0);
    bound_check b = {wf, NULL, 0, 0, {0}};
    assert_int_equal(sim_ctx_new(&b.ctx, wf, NULL), WT_OK);
    assert_int_equal(search_each(wf, m, &sp, check_one, &b, NULL), WT_OK);
    print_message("%s: bound checked on %ld candidates, %ld fit\n", wf->name, b.checked, b.fits);
    assert_true(b.checked > 1000 && b.fits > 0);
    sim_ctx_free(b.ctx);
}

/* The wafers the signature bounds are checked on: k = 0 a 4x4 with a
 * store (a fixture), 1 one 8x4, 2 two 4x4, 3 an 8x4 with a dead unit and
 * two dead links. */
static void bound_wafer(int k, wafer *wf)
{
    if (k == 0) {
        load_fixture("tests/fixtures/layouts/store-4x4.yaml", wf);
        return;
    }
    assert_int_equal(wafer_init(wf, k == 2 ? 4 : 8, 4, k == 2 ? 2 : 1, 1, NULL), WT_OK);
    wf->peak_flops = 1e12;
    wf->link_bw = 1e9;
    wf->link_lat = 1e-8;
    wf->link_overhead = 2e-7;
    wf->sram_bytes = 1e9;
    if (k == 3) {
        assert_int_equal(wafer_fail_unit(wf, 5, 2, NULL), WT_OK);
        assert_int_equal(wafer_fail_link(wf, 2, 1, WAFER_E, NULL), WT_OK);
        assert_int_equal(wafer_fail_link(wf, 6, 0, WAFER_S, NULL), WT_OK);
    }
}

/* b, a signature's bound (`what`) on r's candidate, whose level-1 bound is
 * `bound`: at most r's step, never below level 1's; counted into *n, and
 * into *tighter when above level 1's. Frees r. */
static void bound_holds(const char *what, double b, double bound, sim_result *r, long *n, long *tighter)
{
    if (!(b <= r->step_time_s * (1 + 1e-12))) {
        char id[160];
        identity(r, id, sizeof id);
        fail_msg("%s bound %.17g above the step %.17g for %s", what, b, r->step_time_s, id);
    }
    assert_true(b >= bound * (1 - 1e-12));
    *tighter += b > bound * (1 + 1e-9);
    (*n)++;
    sim_free(r);
}

/* A routed sibling's bound (search_routed.c, sim_bound_routed) is never
 * above the step: every 7th candidate of a space, bounded with the profile
 * of a sibling evaluated with other options (checkpointing, int8
 * activations, chunk, micro-batch), then evaluated itself. */
typedef struct routed_check {
    const wafer *wf;
    sim_ctx *ctx;
    long n, seen, tighter;   /* checked, candidates seen, bounds above sim_bounds' */
} routed_check;

static void check_routed(void *ud, const strategy *s, const model *m, int fits, double bound)
{
    routed_check *c = ud;
    if (!fits || c->seen++ % 7)
        return;
    strategy rs = *s;
    model rm = *m;
    rs.checkpoint = (model_recompute)((s->checkpoint + 1) % RECOMPUTE_NKINDS);
    rs.mem = s->mem ^ MEM_ACT_INT8;
    rs.chunk = s->chunk > 0 ? 0 : 256e3;
    rm.microbatch = m->microbatch > 1 ? 1 : m->batch / s->dp > 1 ? 2 : 1;
    sim_result sib, spec, r;
    if (sim_eval_ctx(c->ctx, &sib, &rm, &rs, NULL) != WT_OK)
        return; /* refused by its placement: no sibling to learn from */
    search_routed p;
    search_routed_take(&p, &sib);
    sim_free(&sib);
    assert_int_equal(sim_spec(&spec, c->wf, m, s, NULL), WT_OK);
    double routed[SIM_MAX_PHASES];
    search_routed_bounds(&p, &spec, routed);
    double b = sim_bound_routed(&spec, sim_ctx_link_bw(c->ctx), routed, s->collective);
    assert_int_equal(sim_eval_ctx(c->ctx, &r, m, s, NULL), WT_OK);
    bound_holds("routed", b, bound, &r, &c->n, &c->tighter);
}

static void test_routed_bound_below_fine(void **state)
{
    (void)state;
    model m = small_model(4, 64, 4, 32, 16);
    for (int k = 0; k < 3; k++) {
        wafer wf;
        bound_wafer(k, &wf);
        search_space sp = {.mems = 1u | (1u << MEM_ACT_INT8), .chunks = 1u | 4u};
        routed_check c = {&wf, NULL, 0, 0, 0};
        assert_int_equal(sim_ctx_new(&c.ctx, &wf, NULL), WT_OK);
        assert_int_equal(search_each(&wf, &m, &sp, check_routed, &c, NULL), WT_OK);
        print_message("%dx%d x%d: routed bound checked on %ld candidates, above level 1's on %ld\n", wf.w, wf.h,
                      wf.wafers_x, c.n, c.tighter);
        assert_true(c.n > 200 && c.tighter > 0);
        sim_ctx_free(c.ctx);
        wafer_free(&wf);
    }
}

/* The placement's cuts (search_geom.c) never bound a candidate above its
 * step: every 3rd candidate of a space on each wafer and network model,
 * bounded with its own signature's cuts, then evaluated. Built for the
 * kinds its phases run collectives on alone, as the search builds it, the
 * geometry bounds it as built for every kind, and (one in two) it says
 * the candidate's collective acts exactly when search_same_strategy keeps
 * the candidate apart from its ring twin. */
typedef struct geom_check {
    const wafer *wf;
    sim_ctx *ctx;
    search_cuts cuts;
    long n, seen, tighter;   /* checked, candidates seen, bounds above sim_bounds' */
    long twins, acting;      /* candidates of another algorithm than the ring: one strategy with the ring, not */
} geom_check;

/* The kinds spec's phases run collectives on (bit coll kind). */
static unsigned spec_kinds(const sim_result *spec)
{
    unsigned kinds = 0;
    for (int i = 0; i < spec->nphases; i++)
        for (int j = 0; j < spec->phases[i].nops; j++)
            kinds |= 1u << spec->phases[i].ops[j].kind;
    return kinds;
}

/* Whether g says r's collective acts exactly when search_same_strategy
 * keeps r apart from its ring twin (evaluated here); counted into c. */
static void twin_holds(geom_check *c, const search_geom *g, const sim_result *spec, const sim_result *r)
{
    if (r->s.collective == COLL_RING)
        return;
    strategy ring = r->s;
    ring.collective = COLL_RING;
    sim_result w;
    assert_int_equal(sim_eval_ctx(c->ctx, &w, &r->m, &ring, NULL), WT_OK);
    int acts = search_geom_acts(g, r->s.collective, spec), same = search_same_strategy(r, &w);
    if (acts == same) {
        char id[160];
        identity(r, id, sizeof id);
        fail_msg("%s: the geometry says its collective %s, the evaluations say %s", id, acts ? "acts" : "is inert",
                 same ? "one strategy" : "two");
    }
    assert_true(!same || same_figures(r, &w));
    c->twins += same;
    c->acting += !same;
    sim_free(&w);
}

static void check_geom(void *ud, const strategy *s, const model *m, int fits, double bound)
{
    geom_check *c = ud;
    if (!fits || c->seen++ % 3)
        return;
    sim_result spec, r;
    assert_int_equal(sim_spec(&spec, c->wf, m, s, NULL), WT_OK);
    /* built for every algorithm at once, as the search does, and for its
     * own alone: the shared groups and passes give the same figures */
    search_geom g, own, all;
    assert_int_equal(search_geom_build(&c->cuts, &spec.s, (1u << COLL_NALGOS) - 1, spec_kinds(&spec), &g, NULL),
                     WT_OK);
    assert_int_equal(search_geom_build(&c->cuts, &spec.s, 1u << s->collective, spec_kinds(&spec), &own, NULL),
                     WT_OK);
    assert_int_equal(search_geom_build(&c->cuts, &spec.s, (1u << COLL_NALGOS) - 1, ~0u, &all, NULL), WT_OK);
    assert_memory_equal(g.s_per_byte[s->collective], own.s_per_byte[s->collective], sizeof own.s_per_byte[0]);
    /* and member by member (one check in 16 in 3 parts: threads are
     * costly under the sanitizers): groups moved cross the same
     * boundaries, and the parts add up to one walk */
    search_geom walked;
    c->cuts.by_members = 1;
    c->cuts.parts = c->seen % 48 == 1 ? 3 : 0;
    assert_int_equal(search_geom_build(&c->cuts, &spec.s, (1u << COLL_NALGOS) - 1, spec_kinds(&spec), &walked, NULL),
                     WT_OK);
    c->cuts.by_members = 0;
    c->cuts.parts = 0;
    assert_memory_equal(g.s_per_byte, walked.s_per_byte, sizeof g.s_per_byte);
    int ok = sim_eval_ctx(c->ctx, &r, m, s, NULL) == WT_OK;
    assert_int_equal(ok, g.placed); /* refused by its placement exactly when it has no cuts */
    if (!ok)
        return;
    double routed[SIM_MAX_PHASES] = {0}, routed_all[SIM_MAX_PHASES] = {0};
    search_geom_bounds(&g, s->collective, &spec, routed);
    search_geom_bounds(&all, s->collective, &spec, routed_all);
    assert_memory_equal(routed, routed_all, sizeof routed);
    if (c->n % 2 == 0) /* one candidate in two: a twin costs an evaluation */
        twin_holds(c, &g, &spec, &r);
    double b = sim_bound_routed(&spec, sim_ctx_link_bw(c->ctx), routed, s->collective);
    bound_holds("cut", b, bound, &r, &c->n, &c->tighter);
}

static void test_geom_bound_below_fine(void **state)
{
    (void)state;
    model m = small_model(4, 64, 4, 32, 16);
    for (int k = 0; k < 4; k++) {
        wafer wf;
        bound_wafer(k, &wf);
        search_space sp = {.mems = 1u | (1u << MEM_ACT_INT8), .chunks = 1u | 4u, .allow_idle = k == 3};
        for (int net = 0; net < net_model_table().n; net++) {
            geom_check c = {&wf, NULL, {0}, 0, 0, 0, 0, 0};
            assert_int_equal(sim_ctx_new(&c.ctx, &wf, NULL), WT_OK);
            sim_ctx_set_net(c.ctx, net_model_at(net));
            assert_int_equal(search_cuts_init(&c.cuts, &wf, NULL), WT_OK);
            assert_int_equal(search_each(&wf, &m, &sp, check_geom, &c, NULL), WT_OK);
            print_message("%dx%d x%d %s: cut bound checked on %ld candidates, above level 1's on %ld; "
                          "%ld ring twins, %ld collectives that act\n",
                          wf.w, wf.h, wf.wafers_x, net_model_at(net)->c.name, c.n, c.tighter, c.twins, c.acting);
            assert_true(c.n > 200 && c.tighter > 0 && c.twins > 0 && c.acting > 0);
            search_cuts_free(&c.cuts);
            sim_ctx_free(c.ctx);
        }
        wafer_free(&wf);
    }
}

/* Streaming on a 4x4 with a store on its west edge (a fixture): the pruned
 * search equals the exhaustive one over both execution modes, only
 * streaming fits (the units hold too little for resident weights), and the
 * bound is at most the step for every streaming candidate. */
static void test_stream_search(void **state)
{
    (void)state;
    wafer wf;
    load_fixture("tests/fixtures/layouts/store-4x4.yaml", &wf);
    model m = small_model(4, 64, 4, 32, 16);
    search_result full;
    search_and_bound(&wf, &m, 1u | (1u << MEM_ACT_INT8), (search_space){.execs = 1u << EXEC_STREAM}, &full);
    for (int i = 0; i < full.ntop; i++)
        assert_int_equal(full.top[i].s.exec, EXEC_STREAM);
    search_free(&full);
    wafer_free(&wf);
}

/* DRAM that bounds phases (a fixture: 200 KB of SRAM, the rest at 2 GB/s):
 * the pruned search equals the exhaustive one, its best keeps part of its
 * memory in DRAM and its optimizer pays for it, and the bound is at most
 * the step for every candidate. */
static void test_dram_search(void **state)
{
    (void)state;
    wafer wf;
    load_fixture("tests/fixtures/layouts/dram-3x2.yaml", &wf);
    model m = small_model(4, 64, 4, 32, 12);
    search_result full;
    search_and_bound(&wf, &m, 1u | (1u << MEM_ZERO), (search_space){0}, &full);
    /* the optimizer streams what lives in DRAM, in and out at 2 GB/s, far
     * longer than its FLOPs */
    const mem_usage *u = &full.top[0].mem;
    assert_true(u->dram > 0);
    assert_rel(full.top[0].optimizer_s, 2 * (u->dram_params + u->dram_grads + u->dram_optimizer) / 2e9);
    search_free(&full);
    wafer_free(&wf);
}

/* The variants are every placement times every collective algorithm the
 * search tries, placement-major, in table order; --only narrows both. */
static void test_variants_from_the_tables(void **state)
{
    (void)state;
    place_kind pl[SEARCH_MAX_VARIANTS + 1];
    coll_algo co[SEARCH_MAX_VARIANTS + 1];
    search_space sp = {0};
    int n = search_variants(&sp, pl, co, SEARCH_MAX_VARIANTS + 1), k = 0;
    for (int p = 0; p < PLACE_NKINDS; p++)
        for (int a = 0; a < COLL_NALGOS; a++) {
            if (!(choice_at(place_kind_table(), p)->flags & CHOICE_SEARCH) ||
                !(choice_at(coll_algo_table(), a)->flags & CHOICE_SEARCH))
                continue;
            assert_true(k < n);
            assert_int_equal(pl[k], p);
            assert_int_equal(co[k], a);
            k++;
        }
    assert_int_equal(n, k);
    assert_int_equal(n, popcount(choice_mask(place_kind_table(), CHOICE_SEARCH)) *
                            popcount(choice_mask(coll_algo_table(), CHOICE_SEARCH)));
    wt_err e;
    assert_int_equal(search_parse_only("placement=snake|tiles,collective=hier|ring", &sp, &e), WT_OK);
    n = search_variants(&sp, pl, co, SEARCH_MAX_VARIANTS);
    assert_int_equal(n, 4);
    const int want[4][2] = {{PLACE_SNAKE, COLL_RING}, {PLACE_SNAKE, COLL_HIER}, {PLACE_TILES, COLL_RING},
                            {PLACE_TILES, COLL_HIER}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pl[i], want[i][0]);
        assert_int_equal(co[i], want[i][1]);
    }
    assert_int_equal(search_variants(&sp, pl, co, 3), 3); /* at most max */
}

/* Any number of threads gives the same answer and the same counts. */
static void test_jobs_do_not_matter(void **state)
{
    (void)state;
    wafer wf;
    model m = small_model(4, 128, 8, 64, 32);
    small_wafer(&wf, 4, 4, 2 * 16 * model_params(&m) / 16);
    search_opts o = {.top_k = 8, .jobs = 1, .baselines = 1};
    search_result one, four;
    run(&wf, &m, &o, &one);
    o.jobs = 4;
    run(&wf, &m, &o, &four);
    assert_same_top(&one, &four);
    assert_int_equal(one.evaluated, four.evaluated);
    assert_int_equal(one.pruned_bound, four.pruned_bound);
    assert_int_equal(one.nbaselines, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(one.baselines[i].ok, four.baselines[i].ok);
        if (one.baselines[i].ok)
            assert_true(one.baselines[i].r.step_time_s == four.baselines[i].r.step_time_s);
    }
    search_free(&one);
    search_free(&four);
    wafer_free(&wf);
}

/* The baselines are what their names say, and the best is no slower. */
static void test_baselines(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf, 8, 8, 1e9);
    model m = small_model(4, 128, 8, 64, 64);
    search_opts o = {.top_k = 1, .jobs = 2, .baselines = 1};
    search_result r;
    run(&wf, &m, &o, &r);
    const search_baseline *meg = &r.baselines[0], *ds = &r.baselines[1], *nt = &r.baselines[2];
    assert_string_equal(meg->name, "megatron-tp");
    assert_true(meg->ok && meg->r.s.tp == 8 && meg->r.s.dp == 8); /* TP as large as 8 heads allow */
    assert_true(meg->r.s.placement == PLACE_LINEAR && meg->r.s.collective == COLL_RING);
    assert_string_equal(ds->name, "deepspeed-3d");
    assert_true(ds->ok && ds->r.s.dp == 2 && ds->r.s.tp == 8 && ds->r.s.pp == 4); /* 8x8x4 halved to 64 units */
    assert_string_equal(nt->name, "best-no-tatp");
    assert_true(nt->ok && nt->r.s.tatp == 1);
    for (int i = 0; i < 3; i++) {
        assert_true(r.baselines[i].r.step_time_s >= r.top[0].step_time_s);
        assert_true(fabs(r.baselines[i].speedup - r.baselines[i].r.step_time_s / r.top[0].step_time_s) < 1e-12);
    }
    search_free(&r);
    wafer_free(&wf);
}

/* dojo-tile and the search-small model: a space of 35,280 candidates. */
static void dojo_small(wafer *wf, model *m)
{
    wt_err e;
    load_fixture("layouts/dojo-tile.yaml", wf);
    if (model_load("tests/fixtures/models/search-small.yaml", m, &e) != WT_OK)
        fail_msg("%s", e.msg);
}

/* The top list: on dojo-tile, search-small's best, DP1,TATP5x5 on
 * tiles, came four times (ring, bidir, 2d and hier: 2d on its rows and
 * columns, lines, and hier, whose windows split nothing, ran the ring) and
 * again with zero (DP 1: nothing to shard), ten rows of two strategies. Now
 * each strategy comes once, the pruned top equals the exhaustive one, and
 * the ring's row stands for its inert variants. */
static void test_top_is_distinct(void **state)
{
    (void)state;
    wafer wf;
    model m;
    dojo_small(&wf, &m);
    search_opts o = {.top_k = 10, .jobs = 2};
    search_result full;
    pruned_is_exhaustive(&wf, &m, o, &full);
    assert_int_equal(full.ntop, 10);
    const strategy *best = &full.top[0].s;
    assert_true(best->dp == 1 && best->tatp == 25 && best->tatp_w == 5 && best->placement == PLACE_TILES);
    assert_true(best->collective == COLL_RING && !(best->mem & MEM_ZERO));
    for (int i = 1; i < full.ntop; i++) {
        const strategy *s = &full.top[i].s;
        if (s->dp == 1 && s->sp == 1) /* zero would not act: the row without it stands */
            assert_false(s->mem & MEM_ZERO);
        if (s->collective == COLL_2D || s->collective == COLL_HIER) { /* only where its own passes run */
            char id[160];
            identity(&full.top[i], id, sizeof id);
            fail_msg("rank %d: %s", i + 1, id);
        }
    }
    search_free(&full);
    wafer_free(&wf);
}

/* A top longer than a batch of level 2 (32): the batches while it fills
 * hold no more than a batch (they overran their arrays with --top 33 to
 * 50), and the top equals the exhaustive one. */
static void test_top_beyond_a_batch(void **state)
{
    (void)state;
    wafer wf;
    model m;
    dojo_small(&wf, &m);
    search_opts o = {.top_k = SEARCH_MAX_TOP, .jobs = 2};
    search_result full;
    pruned_is_exhaustive(&wf, &m, o, &full);
    assert_int_equal(full.ntop, SEARCH_MAX_TOP);
    search_free(&full);
    wafer_free(&wf);
}

/* deepspeed-3d grows with the machine as megatron-tp does: TP 8 x PP 4 with
 * DP filling the rest, on the default layout's 256 units and on the 4,096 of
 * multiwafer-4x4 (it stayed at 256 there, and its speed-up was 16x what the
 * machine allowed). The top is fixed to the baseline's shape to be quick. */
static void test_deepspeed_fills_the_machine(void **state)
{
    (void)state;
    static const struct {
        const char *layout, *fix;
        int live, dp;
    } cases[] = {
        {"layouts/default.yaml", "dp=8,tp=8,pp=4", 256, 8},
        {"layouts/multiwafer-4x4.yaml", "dp=128,tp=8,pp=4", 4096, 128},
    };
    model m;
    wt_err e;
    if (model_load("tests/fixtures/models/policy-small.yaml", &m, &e) != WT_OK) /* 16 heads, 4 layers, batch 256 */
        fail_msg("%s", e.msg);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        wafer wf;
        load_fixture(cases[k].layout, &wf);
        assert_int_equal(wafer_live_units(&wf), cases[k].live);
        search_opts o = {.top_k = 1, .jobs = 2, .baselines = 1};
        assert_int_equal(search_parse_fix(cases[k].fix, &o.space, &e), WT_OK);
        search_result r;
        run(&wf, &m, &o, &r);
        const search_baseline *meg = &r.baselines[0], *ds = &r.baselines[1];
        assert_true(meg->ok && ds->ok);
        const strategy *d = &ds->r.s, *t = &meg->r.s;
        print_message("%s: deepspeed-3d DP%d,TP%d,PP%d, megatron-tp DP%d,TP%d\n", cases[k].layout, d->dp, d->tp,
                      d->pp, t->dp, t->tp);
        assert_true(d->dp == cases[k].dp && d->tp == 8 && d->sp == 1 && d->pp == 4 && d->tatp == 1);
        assert_int_equal(d->dp * d->tp * d->pp, cases[k].live);
        assert_int_equal(t->dp * t->tp, cases[k].live);
        search_free(&r);
        wafer_free(&wf);
    }
}

/* Every thread's evaluations and the baselines are timed with the search's
 * network model. */
static void test_net_model(void **state)
{
    (void)state;
    net_model twin = *net_model_default(); /* the same timing under a name of its own */
    twin.c.name = "twin";
    wafer wf;
    small_wafer(&wf, 8, 8, 1e9);
    model m = small_model(4, 128, 8, 64, 64);
    search_opts o = {.top_k = 3, .jobs = 2, .baselines = 1, .net = &twin};
    search_result r;
    run(&wf, &m, &o, &r);
    assert_true(r.ntop > 0);
    for (int i = 0; i < r.ntop; i++)
        assert_ptr_equal(r.top[i].net, &twin);
    for (int i = 0; i < r.nbaselines; i++)
        if (r.baselines[i].ok)
            assert_ptr_equal(r.baselines[i].r.net, &twin);
    search_free(&r);
    wafer_free(&wf);
}

/* The 5-tuples and grids of search_cores, in its order, by brute force:
 * every product (up to the live units with idle units allowed), TATP, TP,
 * SP and PP each in increasing order over every value that divides what is
 * left and that the model allows, DP what is left, then the grids by
 * width (the fixed grid only). Writes (dims, grid) rows of 7 ints into
 * out; returns the count. */
static size_t brute_tuples(const wafer *wf, const model *m, const search_space *sp, int *out)
{
    size_t n = 0;
    int live = wafer_live_units(wf), want[5] = {sp->dp, sp->tp, sp->sp, sp->pp, sp->tatp};
    for (int units = sp->allow_idle ? 1 : live; units <= live; units++)
        for (int ta = 1; ta <= units; ta++)
            for (int tp = 1; tp <= units; tp++)
                for (int s = 1; s <= units; s++)
                    for (int pp = 1; pp <= units; pp++) {
                        long long inner = (long long)ta * tp * s * pp;
                        if (units % inner || m->heads % tp || m->kv_heads % tp || m->ffn % tp || m->seq % s ||
                            pp > m->layers)
                            continue;
                        int d[5] = {(int)(units / inner), tp, s, pp, ta}, ok = m->batch % d[0] == 0;
                        for (int k = 0; k < 5; k++)
                            ok &= !want[k] || d[k] == want[k];
                        for (int gw = 1; ok && gw <= ta; gw++)
                            if (ta % gw == 0 && gw <= wf->w && ta / gw <= wf->h &&
                                (!sp->grid_w || (gw == sp->grid_w && ta / gw == sp->grid_h))) {
                                memcpy(out + 7 * n, d, sizeof d);
                                out[7 * n + 5] = gw;
                                out[7 * n + 6] = ta / gw;
                                n++;
                            }
                    }
    return n;
}

/* search_cores walks the divisors of each product and the values the model
 * allows each dimension: the same 5-tuples and grids in the same order as
 * trying every value, free or fixed, with idle units or without. */
static void test_cores_in_order(void **state)
{
    (void)state;
    static int want[7 * 4096], got[7 * 4096];
    const search_space spaces[] = {{0}, {.allow_idle = 1}, {.tatp = 1, .allow_idle = 1}, {.pp = 2, .allow_idle = 1},
                                   {.tp = 2, .grid_w = 2, .grid_h = 2}};
    for (int k = 0; k < 3; k++) {
        wafer wf;
        small_wafer(&wf, k == 2 ? 12 : 6, k ? 4 : 6, 1e12); /* everything fits: no grid is left out */
        model m = small_model(k == 1 ? 3 : 6, 64, k ? 4 : 6, k == 2 ? 24 : 32, 24);
        for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
            size_t nw = brute_tuples(&wf, &m, &spaces[i], want), ng = 0;
            assert_true(nw < 4096);
            search_cores_out all;
            assert_int_equal(search_cores(&wf, &m, &spaces[i], NULL, &all, NULL), WT_OK);
            for (size_t c = 0; c < all.n; c++) {
                const search_core *a = &all.cores[c], *b = c ? &all.cores[c - 1] : NULL;
                if (b && !memcmp(a->dims, b->dims, sizeof a->dims) && a->gw == b->gw && a->gh == b->gh)
                    continue; /* the same tuple's options */
                assert_true(ng < nw);
                memcpy(got + 7 * ng, a->dims, sizeof a->dims);
                got[7 * ng + 5] = a->gw;
                got[7 * ng + 6] = a->gh;
                ng++;
            }
            assert_int_equal(all.skipped, 0);
            assert_int_equal(ng, nw);
            assert_memory_equal(got, want, 7 * nw * sizeof *want);
            free(all.cores);
        }
        wafer_free(&wf);
    }
}

/* The least memory of every candidate search_each lists. */
typedef struct least_check {
    const wafer *wf;
    double least;
    long n;
} least_check;

static void note_least(void *ud, const strategy *s, const model *m, int fits, double bound)
{
    (void)fits;
    (void)bound;
    least_check *c = ud;
    sim_result spec;
    if (sim_spec(&spec, c->wf, m, s, NULL) == WT_OK && spec.mem.total < c->least)
        c->least = spec.mem.total;
    c->n++;
}

/* A 3x2 mesh with room for every candidate, idle units allowed (the
 * caller sets the SRAM that decides what fits). */
static model idle_case(wafer *wf, search_opts *o, int jobs)
{
    small_wafer(wf, 3, 2, 1e12);
    *o = (search_opts){.top_k = 5, .jobs = jobs};
    o->space.allow_idle = 1;
    return small_model(4, 64, 4, 32, 16);
}

/* With idle units allowed, grids none of whose cores can fit are counted,
 * not kept (search_space.c): the candidates are as many as where everything
 * fits, the search equals the exhaustive one, and when nothing fits the
 * smallest footprint named is the least over every candidate, brute force. */
static void test_idle_grids_left_out(void **state)
{
    (void)state;
    wafer wf;
    search_opts o;
    model m = idle_case(&wf, &o, 2);
    o.space.mems = 1u | (1u << (MEM_ZERO | MEM_ACT_INT8 | MEM_GRAD_FP8)) | (1u << (MEM_ACT_INT8 | MEM_GRAD_FP8));
    o.space.chunks = 1u | 2u;
    search_result roomy, tight;
    run(&wf, &m, &o, &roomy);
    least_check c = {&wf, INFINITY, 0};
    assert_int_equal(search_each(&wf, &m, &o.space, note_least, &c, NULL), WT_OK);
    assert_true(roomy.pruned_memory == 0 && c.n == roomy.candidates);
    wf.sram_bytes = 2 * c.least; /* some grids fit, some do not */
    pruned_is_exhaustive(&wf, &m, o, &tight);
    assert_true(tight.pruned_memory > 0);
    assert_int_equal(tight.candidates, roomy.candidates);
    least_check kept = {&wf, INFINITY, 0}; /* search_each lists the kept cores only */
    assert_int_equal(search_each(&wf, &m, &o.space, note_least, &kept, NULL), WT_OK);
    print_message("3x2 idle: %ld of %ld candidates kept\n", kept.n, c.n);
    assert_true(kept.n < c.n && kept.least == c.least);
    search_free(&tight);
    search_free(&roomy);

    wf.sram_bytes = c.least / 2; /* nothing fits */
    wt_err e;
    char want[64];
    assert_int_equal(search_run(&wf, &m, &o, &tight, &e), WT_OK);
    assert_int_equal(tight.ntop, 0);
    snprintf(want, sizeof want, "the smallest footprint is %.3g GB", c.least / 1e9);
    if (!strstr(tight.nofit, want))
        fail_msg("'%s' lacks '%s'", tight.nofit, want);
    wafer_free(&wf);
}

/* The shards of an MPI job, one after another here: each is told the
 * least K-th best the shards before it reported (what a rank may have
 * heard), as share does between ranks, or a K-th best given from the
 * start. */
typedef struct board {
    double kth[8];
    double given;
    int n, me;
} board;

static double board_share(void *ud, double kth)
{
    board *b = ud;
    b->kth[b->me] = fmin(b->kth[b->me], kth);
    double least = b->given;
    for (int i = 0; i < b->n; i++)
        least = fmin(least, b->kth[i]);
    return least;
}

/* o's space in n shards, each told `given` (INFINITY: nothing) beside what
 * the others report, merged into r (the caller frees it), or the merge's
 * error; each shard's fitting count into fit[]. */
static int sharded(const wafer *wf, const model *m, search_opts o, int n, double given, long long *fit,
                   search_result *r, wt_err *e)
{
    board b = {.n = n, .given = given};
    for (int i = 0; i < n; i++)
        b.kth[i] = INFINITY;
    search_shard *sh = calloc(n > 0 ? (size_t)n : 1, sizeof *sh);
    assert_non_null(sh);
    o.nshards = n;
    o.share = board_share;
    o.share_ud = &b;
    for (int i = 0; i < n; i++) {
        o.shard = b.me = i;
        search_run_shard(wf, m, &o, &sh[i]);
        fit[i] = sh[i].main.fitting;
    }
    o.shard = o.nshards = 0;
    int rc = search_merge(wf, m, &o, sh, n, r, e);
    free(sh);
    return rc;
}

/* Split into 1 to 4 shards, pruned or exhaustive, a search merges to the
 * exhaustive one: the same top, candidates and memory prunes, every
 * candidate that fits in one shard only, and the same baselines. */
static void shards_are_whole(const wafer *wf, const model *m, search_opts o)
{
    search_result full;
    o.exhaustive = 1;
    run(wf, m, &o, &full);
    for (int n = 1; n <= 4; n++)
        for (int ex = 0; ex <= 1; ex++) {
            search_result r;
            long long fit[4], sum = 0;
            wt_err e;
            o.exhaustive = ex;
            if (sharded(wf, m, o, n, INFINITY, fit, &r, &e) != WT_OK)
                fail_msg("merge of %d: %s", n, e.msg);
            assert_same_top(&r, &full);
            assert_int_equal(r.candidates, full.candidates);
            assert_int_equal(r.pruned_memory, full.pruned_memory);
            for (int i = 0; i < n; i++)
                sum += fit[i];
            assert_int_equal(sum, full.evaluated);
            if (n == 2 && full.evaluated > 1) /* a split, not one shard with everything */
                assert_true(fit[0] > 0 && fit[1] > 0);
            assert_int_equal(r.nbaselines, full.nbaselines);
            for (int i = 0; i < r.nbaselines; i++) {
                assert_int_equal(r.baselines[i].ok, full.baselines[i].ok);
                if (r.baselines[i].ok)
                    assert_true(r.baselines[i].r.step_time_s == full.baselines[i].r.step_time_s);
            }
            print_message("%dx%dx%d %d shards%s: %lld evaluated (whole exhaustive %lld)\n", wf->w, wf->h,
                          wf->wafers_x, n, ex ? " exhaustive" : "", r.evaluated, full.evaluated);
            search_free(&r);
        }
    /* the K-th best another shard tells prunes at its very value: told it
     * from the start, the shards still find the whole top; told one ulp
     * less, they lose the K-th (a tie, broken by the order, would be lost
     * the same way if the prune were not strict) */
    if (full.ntop == o.top_k) {
        double kth = full.top[o.top_k - 1].step_time_s;
        long long fit[4];
        search_result r;
        wt_err e;
        o.exhaustive = 0;
        assert_int_equal(sharded(wf, m, o, 3, kth, fit, &r, &e), WT_OK);
        assert_same_top(&r, &full);
        search_free(&r);
        assert_int_equal(sharded(wf, m, o, 3, nextafter(kth, 0), fit, &r, &e), WT_OK);
        assert_true(r.ntop < full.ntop);
        search_free(&r);
    }
    search_free(&full);
}

static void test_shards_merge_to_exhaustive(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        wafer wf;
        search_opts o = {.top_k = 5, .jobs = 1, .baselines = k % 3 == 0}; /* one wafer and two */
        model m = random_case(&wf, 5, k == 3 ? 2 : 1, &o);
        shards_are_whole(&wf, &m, o);
        wafer_free(&wf);
    }
}

/* What the whole search answers when nothing fits, or refuses, the merge
 * of its shards answers too, word for word. */
static void test_shards_answer_alike(void **state)
{
    (void)state;
    wafer wf;
    search_opts o;
    model m = idle_case(&wf, &o, 1);
    least_check c = {&wf, INFINITY, 0};
    assert_int_equal(search_each(&wf, &m, &o.space, note_least, &c, NULL), WT_OK);
    for (int tight = 0; tight <= 1; tight++) {
        wf.sram_bytes = tight ? c.least / 2 : c.least; /* nothing fits; only the least */
        search_result whole, r;
        wt_err e;
        long long fit[4];
        run(&wf, &m, &o, &whole);
        for (int n = 2; n <= 4; n++) {
            assert_int_equal(sharded(&wf, &m, o, n, INFINITY, fit, &r, &e), WT_OK);
            assert_int_equal(r.ntop, whole.ntop);
            assert_string_equal(r.nofit, whole.nofit);
            assert_same_top(&r, &whole);
            search_free(&r);
        }
        search_free(&whole);
    }
    wt_err e1, e2;
    search_result r;
    long long fit[4];
    assert_int_equal(search_parse_fix("tp=3", &o.space, &e1), WT_OK); /* TP 3 divides nothing */
    assert_int_equal(search_run(&wf, &m, &o, &r, &e1), WT_EINPUT);
    assert_int_equal(sharded(&wf, &m, o, 3, INFINITY, fit, &r, &e2), WT_EINPUT);
    assert_string_equal(e2.msg, e1.msg);
    wafer_free(&wf);
}

static void test_refusals(void **state)
{
    (void)state;
    wafer wf;
    small_wafer(&wf, 4, 4, 1e3); /* nothing fits in 1 KB */
    model m = small_model(4, 128, 8, 64, 32);
    search_opts o = {.top_k = 5, .jobs = 1};
    search_result r;
    wt_err e;
    /* nothing fits: an answer, without baselines */
    o.baselines = 1;
    assert_int_equal(search_run(&wf, &m, &o, &r, &e), WT_OK);
    assert_int_equal(r.ntop, 0);
    assert_int_equal(r.nbaselines, 0);
    assert_true(r.candidates > 0 && r.pruned_memory == r.candidates);
    assert_non_null(strstr(r.nofit, "no candidate fits"));
    assert_non_null(strstr(r.nofit, "the units"));
    o.baselines = 0;
    wf.sram_bytes = 1e9;
    /* an empty space: TP 3 divides nothing here */
    assert_int_equal(search_parse_fix("tp=3", &o.space, &e), WT_OK);
    assert_int_equal(search_run(&wf, &m, &o, &r, &e), WT_EINPUT);
    assert_non_null(strstr(e.msg, "the search space is empty"));
    search_space sp = {0};
    assert_int_equal(search_parse_fix("dp=0", &sp, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--fix: dp=0 is not a positive whole number");
    assert_int_equal(search_parse_fix("colour=red", &sp, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--fix: unknown key 'colour' (dp, tp, sp, pp, tatp, grid, microbatch)");
    assert_int_equal(search_parse_only("placement=diagonal", &sp, &e), WT_EINPUT);
    assert_string_equal(e.msg, "--only: placement=diagonal is not a choice of the search (linear|snake|tiles)");
    assert_int_equal(search_parse_only("chunk=512KB", &sp, &e), WT_EINPUT);
    assert_int_equal(search_parse_only("placement=tiles|snake,mem=none|zero+act_int8,chunk=256KB", &sp, &e), WT_OK);
    assert_int_equal(sp.placements, (1u << PLACE_TILES) | (1u << PLACE_SNAKE));
    assert_int_equal(sp.mems, 1u | (1u << (MEM_ZERO | MEM_ACT_INT8)));
    assert_int_equal(sp.chunks, 1u << 3);
    wafer_free(&wf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pruned_equals_exhaustive),
        cmocka_unit_test(test_bound_below_fine),
        cmocka_unit_test(test_same_strategy_same_figures),
        cmocka_unit_test(test_bound_per_algorithm),
        cmocka_unit_test(test_routed_bound_below_fine),
        cmocka_unit_test(test_geom_bound_below_fine),
        cmocka_unit_test(test_stream_search),
        cmocka_unit_test(test_dram_search),
        cmocka_unit_test(test_variants_from_the_tables),
        cmocka_unit_test(test_jobs_do_not_matter),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_deepspeed_fills_the_machine),
        cmocka_unit_test(test_top_is_distinct),
        cmocka_unit_test(test_top_beyond_a_batch),
        cmocka_unit_test(test_net_model),
        cmocka_unit_test(test_cores_in_order),
        cmocka_unit_test(test_idle_grids_left_out),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_shards_merge_to_exhaustive),
        cmocka_unit_test(test_shards_answer_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
