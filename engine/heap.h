/*
 * heap.h - how the allocator keeps memory between evaluations.
 *
 * An evaluation of a wafer allocates a few hundred MB in arrays of a few
 * to 30 MB each and frees them at the end. By default glibc maps the
 * largest afresh and hands freed memory back to the system, so every
 * evaluation of a process (the screen's, tune's, the bench's) page-faults
 * all of it in again, and with the walks' helper threads alive each fault
 * may cost the other cores a TLB flush.
 */
#ifndef WT_HEAP_H
#define WT_HEAP_H

/* Freed memory kept at the top of the heap for the next evaluation. */
#define HEAP_KEEP_BYTES (1024u << 20)

/* Asks the C library's allocator (glibc's; elsewhere it does nothing) to
 * serve blocks up to 32 MB, a wafer's per-link array of doubles, from its
 * heap and to keep up to HEAP_KEEP_BYTES of freed memory rather than give
 * it back: a process then stays at the size of its largest evaluation so
 * far, and the next evaluation reuses it. A calloc from kept memory clears
 * it whole: an array that stays zero but at a few links is better larger
 * than 32 MB, mapped afresh (net/flow.c's per-link scratch is one block).
 * Call once at program start. */
void heap_keep_freed(void);

#endif
