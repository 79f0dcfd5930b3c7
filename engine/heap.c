/*
 * heap.c - the allocator's policy (contract in heap.h).
 */
/* MAP_ANONYMOUS, madvise and MADV_(NO)HUGEPAGE are Linux's, beyond POSIX */
#define _DEFAULT_SOURCE
#include "heap.h"

#include <stdint.h>
#include <stdlib.h> /* defines __GLIBC__ on glibc */

#include <sys/mman.h>

/* a sanitizer's allocator: its own policy, and redzones around each block */
#if defined __SANITIZE_ADDRESS__ || defined __SANITIZE_THREAD__
#define HEAP_SANITIZED 1
#elif defined __has_feature
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HEAP_SANITIZED 1
#endif
#endif

#if defined __GLIBC__ && !defined HEAP_SANITIZED
#define HEAP_GLIBC 1
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#endif

#ifdef HEAP_GLIBC
/* glibc's largest threshold for serving a block from the heap */
#define HEAP_MMAP_AT (32u << 20)
/* glibc's default for M_MMAP_MAX, the most blocks it maps at once */
#define HEAP_MMAP_MAX 65536
/* the heap's growth at start in blocks of this size (valgrind warns of a
 * larger block) */
#define HEAP_STEP ((size_t)128 << 20)
/* the size of a transparent huge page on x86-64 and arm64 */
#define HUGE_PAGE ((uintptr_t)2u << 20)

/* 1 when the soft limit res is set */
static int limited(int res)
{
    struct rlimit rl;
    return getrlimit(res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

/* 1 when the system counts every byte mapped against a commit limit
 * (vm.overcommit_memory 2, common on clusters): the grown heap would take
 * 4 GB of it from every process, MPI ranks and all. */
static int strict_overcommit(void)
{
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = 0;
        fclose(f);
    }
    return mode == 2;
}

/* 1 when glibc fills every block it hands out or takes back
 * (MALLOC_PERTURB_, glibc.malloc.perturb): it would fill the grown heap. */
static int perturbed(void)
{
    const char *p = getenv("MALLOC_PERTURB_"), *t = getenv("GLIBC_TUNABLES");
    return (p && *p && strcmp(p, "0")) || (t && strstr(t, "glibc.malloc.perturb"));
}

/* Grows the heap by blocks of HEAP_STEP, as many as the system gives up to
 * HEAP_HUGE_BYTES, asks the kernel to back each block's whole 2 MB spans
 * with huge pages when touched, and frees them to the top of the heap,
 * which is kept. Only the blocks' headers are written, each in a span
 * between two blocks that keeps 4 KB pages (once a 4 KB page of a span is
 * in, the rest of it would come in 4 KB pages, or the kernel's khugepaged
 * would bring in the whole span), so nothing of the huge spans is
 * resident. */
static void heap_grow_huge(void)
{
    if (limited(RLIMIT_AS) || limited(RLIMIT_DATA) || strict_overcommit() || perturbed())
        return;
    void *block[HEAP_HUGE_BYTES / HEAP_STEP];
    size_t n = 0;
    mallopt(M_MMAP_MAX, 0); /* from the heap, however large */
    for (; n < HEAP_HUGE_BYTES / HEAP_STEP && (block[n] = malloc(HEAP_STEP)); n++) {
        uintptr_t at = (uintptr_t)block[n];
        uintptr_t start = (at + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), end = (at + HEAP_STEP) & ~(HUGE_PAGE - 1);
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
    mallopt(M_MMAP_MAX, HEAP_MMAP_MAX);
    while (n > 0) /* the last first: each joins the free top of the heap */
        free(block[--n]);
}
#endif

void heap_keep_freed(void)
{
#ifdef HEAP_GLIBC
    mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_AT);
    mallopt(M_TRIM_THRESHOLD, -1); /* never give the heap back */
    mallopt(M_ARENA_MAX, 1);
    heap_grow_huge();
#endif
}

#ifdef HEAP_SANITIZED
/* from the sanitizer's allocator, which guards and tracks its blocks */
void *heap_map_sparse(size_t n)
{
    return calloc(1, n ? n : 1);
}

void heap_unmap_sparse(void *p, size_t n)
{
    (void)n;
    free(p);
}
#else
void *heap_map_sparse(size_t n)
{
    n = n ? n : 1; /* mmap maps no empty block */
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_NOHUGEPAGE
    (void)madvise(p, n, MADV_NOHUGEPAGE); /* where THP is on for every mapping */
#endif
    return p;
}

void heap_unmap_sparse(void *p, size_t n)
{
    if (p)
        (void)munmap(p, n ? n : 1);
}
#endif
