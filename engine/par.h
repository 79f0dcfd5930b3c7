/*
 * par.h - one large walk over the links split into parts, run on threads.
 *
 * An evaluation of a whole wafer walks millions of link entries several
 * times; where each link's figure depends on that link alone (or parts
 * combine in link order), the walk splits into contiguous ranges of links
 * that run on the cores at once, with results equal to the bit to one
 * walk's. Small walks stay on the caller's thread: a thread costs tens of
 * microseconds, and the search runs its own evaluations side by side.
 * The threads take the parts in order as each finishes one, so a walk
 * split into more parts than cores (par_chunks) still ends on time when a
 * core is busy with something else: the others take its share.
 */
#ifndef WT_PAR_H
#define WT_PAR_H

#include <stddef.h>

/* Most parts a walk splits into, and most threads it runs on. */
enum { PAR_MAX = 32, PAR_THREADS = 8 };

/* The parts a walk of `work` link entries splits into: 1 below a few
 * hundred thousand, else one per online core (at most PAR_THREADS). */
int par_parts(size_t work);

/* As par_parts, but 4 parts per core where there is more than one (at
 * most PAR_MAX): for walks whose parts are cheap to join. */
int par_chunks(size_t work);

/* Runs fn(ctx, part) once for each part < nparts on at most one thread
 * per online core, the caller's among them, each taking the next part
 * not yet taken (the caller's all when no thread can be made); returns
 * when all are done. */
void par_run(int nparts, void (*fn)(void *ctx, int part), void *ctx);

/* The first index of part `part` when n items split into nparts
 * contiguous ranges (part nparts gives n). */
size_t par_first(size_t n, int part, int nparts);

/* Part `part`'s range [*first, *end) of n items split as par_first does. */
static inline void par_range(size_t n, int part, int nparts, size_t *first, size_t *end)
{
    *first = par_first(n, part, nparts);
    *end = par_first(n, part + 1, nparts);
}

#endif
