/* The screen's memory stays flat on a long run (tui/ui.h): the step path of
 * the live screen (ui_step, then what a frame needs), headless, on the
 * `make run` scenario with jitter and stragglers, with a policy acting
 * between steps. A monitor is left open for days, so the heap in use at
 * step 20,000 must be that of step 2,000, within 1 MB, and neither more
 * than 1 MB above the heap after the first step (what the screen keeps is
 * bounded and small: README.md, "What the screen keeps").
 *
 * The heap in use: glibc's mallinfo2(); under AddressSanitizer (make test's
 * second pass), whose allocator keeps freed blocks in quarantine, its count
 * of live bytes instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#if defined(__SANITIZE_ADDRESS__)
#if defined(__has_include)
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#define HAVE_ALLOCATOR_INTERFACE 1
#endif
#endif
#ifndef HAVE_ALLOCATOR_INTERFACE
/* GCC ships no header for it; its libasan has the function all the same. */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif
#else
#include <malloc.h>
#endif

#include "ui.h"

#define STEPS 20000
#define EARLY 2000
/* Steps over which the most heap in use is taken: the Lua collector's
 * sawtooth, so that one sample cannot land on a trough. */
#define WINDOW 1000
#define MAX_GROWTH ((size_t)1 << 20)

/* Bytes of heap the program holds now. */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#endif
}

/* A screen on the `make run` scenario with jitter and stragglers, running
 * policy (a name or a file), as `wafertop ui ... --policy P` starts it. */
static ui *open_screen(const char *policy)
{
    char *words[] = {"--layout", "default", "--model", "gpt3-6.7b", "--strategy", "DP8,TP32",
                     "--placement", "linear", "--checkpoint", "full", "--mem", "zero,act_int8,grad_fp8",
                     "--jitter", "0.05", "--straggler", "0.01"};
    ui *u = ui_new(".");
    assert_non_null(u);
    wt_err e;
    if (cli_parse((int)(sizeof words / sizeof words[0]), words, CLI_TUNE | CLI_UI, ".", &u->o, &e) != WT_OK ||
        ui_load(u, u->o.layout, u->o.model, 0, NULL, &e) != WT_OK || ui_set_policy(u, policy, &e) != WT_OK)
        fail_msg("%s: %s", policy, e.msg);
    ui_load_themes(u, NULL);
    ui_step(u); /* the first frame's step */
    return u;
}

/* The heap in use: after the first step and its frame, and the most over
 * the WINDOW steps up to EARLY and up to STEPS. */
typedef struct heap_marks {
    size_t start, early, late;
} heap_marks;

/* Steps the screen as its loop does (a step, the cursor of time moved to
 * the next phase start and its window coloured, a frame now and then) up to
 * STEPS. */
static void run_screen(ui *u, heap_marks *m)
{
    assert_int_equal(canvas_resize(&u->cv, 120, 40), 0);
    ui_sync_view(u);
    view_draw(&u->cv, &u->v);
    m->start = heap_in_use();
    m->early = m->late = 0;
    for (int i = 2; i <= STEPS; i++) {
        ui_step(u);
        ui_play_jump(u, 1);
        ui_sync_view(u);
        if (i % 100 == 0)
            view_draw(&u->cv, &u->v);
        size_t *peak = i > EARLY - WINDOW && i <= EARLY ? &m->early : i > STEPS - WINDOW ? &m->late : NULL;
        if (peak) {
            size_t now = heap_in_use();
            *peak = now > *peak ? now : *peak;
        }
    }
    if (!u->policy[0]) /* a policy that stopped would prove nothing */
        fail_msg("the policy stopped: %s", u->status);
    assert_int_equal(u->S->steps, STEPS);
}

static void check_flat(const char *policy, const heap_marks *m)
{
    print_message("%s: heap %.2f MB after step 1, %.2f MB at step %d, %.2f MB at step %d\n", policy,
                  m->start / 1048576.0, m->early / 1048576.0, EARLY, m->late / 1048576.0, STEPS);
    if (m->late > m->early + MAX_GROWTH || m->early > m->late + MAX_GROWTH)
        fail_msg("%s: the heap went from %zu bytes at step %d to %zu at step %d (%+.0f bytes a step)", policy,
                 m->early, EARLY, m->late, STEPS, ((double)m->late - (double)m->early) / (STEPS - EARLY));
    if (m->early > m->start + MAX_GROWTH || m->late > m->start + MAX_GROWTH)
        fail_msg("%s: the heap went from %zu bytes after step 1 to %zu", policy, m->start,
                 m->early > m->late ? m->early : m->late);
}

/* Frees the test's screen, also after a failure, so that the next test
 * starts from the same heap. */
static int close_screen(void **state)
{
    if (*state)
        ui_free(*state);
    return 0;
}

/* reroute tries its moves on the hottest link in the first steps, then
 * only judges. */
static void test_reroute(void **state)
{
    ui *u = *state = open_screen("reroute");
    heap_marks m;
    run_screen(u, &m);
    check_flat("reroute", &m);
}

/* A policy that changes the setup at every step: the session evaluates
 * again every step, and the output pane gets a line every step. */
static void test_every_step(void **state)
{
    ui *u = *state = open_screen("tests/fixtures/policies/churn.lua");
    heap_marks m;
    run_screen(u, &m);
    assert_true(u->out_total >= STEPS);
    assert_int_equal(u->nout, VIEW_OUTPUT);
    check_flat("churn", &m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_reroute, close_screen),
        cmocka_unit_test_teardown(test_every_step, close_screen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
