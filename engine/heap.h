/*
 * heap.h - how the allocator keeps memory between evaluations.
 *
 * An evaluation of a wafer allocates a few hundred MB in arrays of a few
 * to 30 MB each and frees them at the end. By default glibc maps the
 * largest afresh and hands freed memory back to the system, so every
 * evaluation of a process (the screen's, tune's, the bench's) page-faults
 * all of it in again, and with the walks' helper threads alive each fault
 * may cost the other cores a TLB flush. Even once, a fault per 4 KB is
 * dear: on a virtual machine a fault costs microseconds, and wse2's first
 * evaluation took some 100,000 of them.
 */
#ifndef WT_HEAP_H
#define WT_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* The heap grown at start and backed by huge pages: above a search's peak
 * on the stock wafers (wse2's with gpt3-13b: 2 GB); 1 GB where a size_t
 * has 32 bits. */
#if SIZE_MAX > 0xffffffffu
#define HEAP_HUGE_BYTES ((size_t)4 << 30)
#else
#define HEAP_HUGE_BYTES ((size_t)1 << 30)
#endif

/* Asks the C library's allocator (glibc's; elsewhere, and under a
 * sanitizer's allocator (ASan, TSan, MSan), it does nothing) to
 * - serve blocks from its heap, and the blocks of every thread from the one
 *   heap (it maps a block of 32 MB or more afresh only when the heap has no
 *   room for it);
 * - keep freed memory rather than give it back: a process then stays at the
 *   size of its largest evaluation so far, and the next evaluation reuses
 *   it. A calloc from kept memory (and, once the heap has grown below, from
 *   any of it) clears it whole: the largest arrays that stay zero but at
 *   a few links come from heap_map_sparse instead;
 * - grow the heap at once by up to HEAP_HUGE_BYTES (as much as the system
 *   gives), not yet touched, that the kernel is asked to back with
 *   transparent huge pages: an evaluation's fresh memory then costs a fault
 *   per 2 MB instead of per 4 KB. Not under a limit on the process's
 *   address space or data (ulimit -v, -d), where the grown heap would count
 *   against it, nor under strict overcommit or glibc's perturbed blocks
 *   (MALLOC_PERTURB_), which would fill it.
 * Call once at program start, before any thread. */
void heap_keep_freed(void);

/* n bytes of zeros mapped afresh in 4 KB pages, for arrays written at
 * few of their entries (a calloc from the kept heap would clear them whole,
 * and huge pages would bring in 2 MB around each entry): only the pages
 * written come in. NULL when the system refuses. Under a sanitizer, a
 * calloc, so that its redzones and leak checks cover the block. */
void *heap_map_sparse(size_t n);

/* Gives back a block of heap_map_sparse(n); p NULL does nothing. */
void heap_unmap_sparse(void *p, size_t n);

#endif
