/*
 * test_sysmem.c - an evaluation's memory by hand, and the check against
 * what the process can have, under no limit and under an address-space
 * limit (set in a child, so the test runner keeps its own).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sysmem.h"

/* 48 bytes per link slot and 10 per unit (sysmem.c lists the arrays). */
static void test_eval_bytes(void **state)
{
    (void)state;
    wafer wf;
    wt_err e;
    assert_int_equal(wafer_init(&wf, 16, 16, 1, 1, &e), WT_OK);
    /* 256 units, 1024 slots: 1024 x 48 + 256 x 10 */
    assert_true(sysmem_eval_bytes(&wf) == 49152 + 2560);
    wafer_free(&wf);
    /* the largest mesh, 8192 x 8192 over 2 x 4 wafers: 2^26 units, 2^28
     * slots: 2^28 x 48 + 2^26 x 10 = 13,555,990,528 */
    assert_int_equal(wafer_init(&wf, 4096, 2048, 2, 4, &e), WT_OK);
    assert_true(sysmem_eval_bytes(&wf) == 13555990528.0);
    wafer_free(&wf);
}

/* Without limits the bound is the physical memory, to the byte. */
static void test_limit_physical(void **state)
{
    (void)state;
    struct rlimit as, data;
    assert_int_equal(getrlimit(RLIMIT_AS, &as), 0);
    assert_int_equal(getrlimit(RLIMIT_DATA, &data), 0);
    const char *what = NULL;
    double have = sysmem_limit(&what);
    if (as.rlim_cur == RLIM_INFINITY && data.rlim_cur == RLIM_INFINITY) {
        assert_string_equal(what, "physical memory");
        assert_true(have == (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE));
    }
    wt_err e;
    assert_int_equal(sysmem_check(1, "one byte", &e), WT_OK);
    assert_int_equal(sysmem_check(have * 2, "twice that", &e), WT_EINPUT);
    assert_memory_equal(e.msg, "twice that needs ", 17);
    assert_non_null(strstr(e.msg, " of memory; this process can have "));
    char tail[80];
    snprintf(tail, sizeof tail, " (%s)", what);
    assert_string_equal(e.msg + strlen(e.msg) - strlen(tail), tail);
}

/* Bytes the process maps now, as sysmem.c reads them. */
static double mapped_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    return (double)pages * (double)sysconf(_SC_PAGESIZE);
}

/* Under `ulimit -v`, what is left beyond the mappings bounds it: a child
 * allowed 64 MiB more than it maps refuses 13.6 GB and names the limit.
 * (The e2e test cannot set ulimit -v for a sanitizer build: its shadow
 * memory is address space; this child's limit comes after it.) */
static void test_limit_address_space(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        double cap = mapped_now() + 64.0 * 1024 * 1024;
        struct rlimit rl = {(rlim_t)cap, (rlim_t)cap};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(10);
        const char *what;
        double have = sysmem_limit(&what);
        if (strcmp(what, "address-space limit, ulimit -v") || have > 64.0 * 1024 * 1024 || have < 32.0 * 1024 * 1024)
            _exit(11);
        wt_err e;
        if (sysmem_check(13555990528.0, "an evaluation of the 8192x8192 mesh", &e) != WT_EINPUT)
            _exit(12);
        const char *want = "an evaluation of the 8192x8192 mesh needs 13.6 GB of memory; this process can have ";
        const char *tail = " (address-space limit, ulimit -v)";
        size_t n = strlen(e.msg);
        if (strncmp(e.msg, want, strlen(want)) || n < strlen(tail) || strcmp(e.msg + n - strlen(tail), tail))
            _exit(13);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_bytes),
        cmocka_unit_test(test_limit_physical),
        cmocka_unit_test(test_limit_address_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
