/*
 * mpi_job.c - MPI's start and end (contract in mpi_job.h).
 */
#include "mpi_job.h"

#include <stdlib.h>

int mpi_job_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

#ifdef WT_MPI
#include <mpi.h>

int mpi_job_init(const char *cmd, int *rank, int *size, wt_err *e)
{
    int provided;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return wt_fail(e, "%s: MPI_Init failed", cmd);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return WT_OK;
}

void mpi_job_finalize(void)
{
    MPI_Finalize();
}

int mpi_job_any_failed(int rank, int failed, int *root_failed)
{
    int mine = failed ? (rank == 0 ? 3 : 1) : 0, all = 0; /* bit 0: a rank failed; bit 1: rank 0 did */
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    *root_failed = (all & 2) != 0;
    return all & 1;
}

#else

int mpi_job_init(const char *cmd, int *rank, int *size, wt_err *e)
{
    *rank = 0, *size = 1;
    return wt_fail(e, "%s: started by mpirun, but this wafertop was built without MPI (install libopenmpi-dev and "
                      "build again)",
                   cmd);
}

void mpi_job_finalize(void) {}

int mpi_job_any_failed(int rank, int failed, int *root_failed)
{
    (void)rank;
    *root_failed = failed;
    return failed;
}

#endif
