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

/* The heap grown at start and backed by huge pages: above a search's peak
 * on the stock wafers (wse2's with gpt3-13b: 2 GB). */
#define HEAP_HUGE_BYTES ((size_t)4 << 30)

/* Asks the C library's allocator (glibc's; elsewhere, and under a
 * sanitizer's allocator, it does nothing) to
 * - serve blocks up to 32 MB, a wafer's per-link array of doubles, from its
 *   heap, and the blocks of every thread from the one heap;
 * - keep freed memory rather than give it back: a process then stays at the
 *   size of its largest evaluation so far, and the next evaluation reuses
 *   it. A calloc from kept memory clears it whole: an array that stays zero
 *   but at a few links is better larger than 32 MB, mapped afresh
 *   (net/flow.c's per-link scratch is one block);
 * - grow the heap at once by up to HEAP_HUGE_BYTES (as much as the system gives),
 *   not yet touched, that the kernel is asked to back with transparent huge
 *   pages: an evaluation's fresh memory then costs a fault per 2 MB instead
 *   of per 4 KB. Not under a limit on the process's address space or data
 *   (ulimit -v, -d), where the grown heap would count against it.
 * Call once at program start, before any thread. */
void heap_keep_freed(void);

#endif
