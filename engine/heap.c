/*
 * heap.c - the allocator's policy (contract in heap.h).
 */
#include "heap.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* glibc's largest threshold for serving a block from the heap */
#define HEAP_MMAP_AT (32u << 20)

void heap_keep_freed(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_AT);
    mallopt(M_TRIM_THRESHOLD, HEAP_KEEP_BYTES);
#endif
}
