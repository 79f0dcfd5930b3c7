/*
 * search_mpi.h - one search's candidates over the ranks of an MPI job
 * (`mpirun -n N wafertop search ...`).
 *
 * Every rank searches a shard of the space (search_run_shard: the
 * grids, a 5-tuple on one TATP grid each, numbered rank mod N) and
 * tells the others its K-th best whenever it improves, which prunes theirs
 * as their own would. Rank 0 gathers the shards' tops and merges them
 * (search_merge): the same answer as one process's, whatever N. MPI's
 * start and end: mpi_job.h.
 */
#ifndef WT_SEARCH_MPI_H
#define WT_SEARCH_MPI_H

#include "search.h"

/* This rank's shard of opts' space, the others', and on rank 0 the merge
 * into r (the caller frees it with search_free); on the other ranks r is
 * left empty and WT_OK means their part is done (rank 0 reports errors,
 * theirs included). Every rank must call it. */
int search_mpi_run(const wafer *wf, const model *m, const search_opts *opts, int rank, int size,
                   search_result *r, wt_err *e);

#endif
