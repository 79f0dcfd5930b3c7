/*
 * heap.c - the allocator's policy (contract in heap.h).
 */
/* MAP_ANONYMOUS, madvise and MADV_(NO)HUGEPAGE are Linux's, beyond POSIX */
#define _DEFAULT_SOURCE
#include "heap.h"

#include <stdint.h>
#include <stdlib.h> /* defines __GLIBC__ on glibc */

#include <sys/mman.h>

#if defined __GLIBC__ && !defined __SANITIZE_ADDRESS__
#define HEAP_GLIBC 1
#include <malloc.h>
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

/* Grows the heap by blocks of HEAP_STEP, as many as the system gives up to
 * HEAP_HUGE_BYTES, kept once freed, and asks the kernel to back the span
 * they cover with huge pages when touched. Only the blocks' headers are
 * written (once a 4 KB page of a 2 MB span is in, the rest of that span
 * comes in 4 KB pages too: one span in 64), so nothing else is resident. */
static void heap_grow_huge(void)
{
    if (limited(RLIMIT_AS) || limited(RLIMIT_DATA))
        return;
    void *block[HEAP_HUGE_BYTES / HEAP_STEP];
    size_t n = 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    mallopt(M_MMAP_MAX, 0); /* from the heap, however large */
    for (; n < HEAP_HUGE_BYTES / HEAP_STEP && (block[n] = malloc(HEAP_STEP)); n++) {
        uintptr_t at = (uintptr_t)block[n];
        lo = at < lo ? at : lo;
        hi = at + HEAP_STEP > hi ? at + HEAP_STEP : hi;
    }
    mallopt(M_MMAP_MAX, HEAP_MMAP_MAX);
    uintptr_t start = (lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), end = hi & ~(HUGE_PAGE - 1);
    /* the blocks lie end to end in one heap; where they do not (another
     * allocator's), madvise skips the holes and says so */
    if (n > 0 && end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
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

void *heap_map_sparse(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    (void)madvise(p, n, MADV_NOHUGEPAGE); /* where THP is on for every mapping */
    return p;
}

void heap_unmap_sparse(void *p, size_t n)
{
    if (p)
        (void)munmap(p, n);
}
