/*
 * sweep_mpi.h - a sweep's points over the ranks of an MPI job (`mpirun -n N
 * wafertop sweep FILE.yaml`). Rank 0 hands the points out one at a time as
 * ranks ask for them, so long searches and short evaluations mix, keeps the
 * rows they send back and writes the table; it runs points too. The other
 * ranks run the points they are given until told there are none left.
 * MPI's start and end: mpi_job.h.
 */
#ifndef WT_SWEEP_MPI_H
#define WT_SWEEP_MPI_H

/* What rank 0 does with the job's messages: take gives the next point (-1:
 * none), keep takes a row (text owned, failed: it has an error). */
typedef struct sweep_mpi_hub {
    long (*take)(void *ud);
    void (*keep)(void *ud, long i, char *text, int failed);
    void *ud;
    int active;        /* ranks not yet told that no point is left (size - 1 at first) */
} sweep_mpi_hub;

/* Rank 0: answers every message that has arrived, without waiting. */
void sweep_mpi_serve(sweep_mpi_hub *h);

/* Another rank: asks for a point, runs it (run returns its row, or NULL
 * when the sweep stopped), sends the row, until rank 0 says none is left. */
void sweep_mpi_work(char *(*run)(void *ud, long i, int *failed), void *ud);

#endif
