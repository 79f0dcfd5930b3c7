/*
 * mpi_job.h - whether this process is a rank of an MPI job, and MPI's
 * start and end for the commands that shard their work over ranks (sweep:
 * sweep_mpi.h; search: search_mpi.h).
 *
 * MPI_Init runs only when the program was started by mpirun (its
 * environment says so): a plain run, valgrind and LeakSanitizer never see
 * MPI. Built with MPI when the Makefile finds OpenMPI (pkg-config ompi-c);
 * without, a run under mpirun is refused.
 */
#ifndef WT_MPI_JOB_H
#define WT_MPI_JOB_H

#include "err.h"

/* 1 when mpirun (OpenMPI, or a PMI launcher such as Slurm's srun) started
 * this process. */
int mpi_job_launched(void);

/* MPI_Init (threads funnelled: only the calling thread uses MPI) and this
 * rank and the job's size; errors start with cmd; WT_EINPUT without MPI in
 * the build. */
int mpi_job_init(const char *cmd, int *rank, int *size, wt_err *e);
void mpi_job_finalize(void);

/* Whether any rank failed (failed: this one did), every rank calling it at
 * the same point; *root_failed gets whether rank 0 did. Ranks that meet an
 * error the others do not (a file only one node has) would otherwise wait
 * for each other forever. */
int mpi_job_any_failed(int rank, int failed, int *root_failed);

#endif
