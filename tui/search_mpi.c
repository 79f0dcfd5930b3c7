/*
 * search_mpi.c - one search over MPI ranks (contract in search_mpi.h).
 *
 * Messages: a rank's K-th best, a double, to every other rank whenever it
 * improves (TAG_KTH), and -1 when its shard is done; a rank has every
 * K-th best another sent once it has that rank's -1 (MPI does not let
 * messages of one sender and tag overtake each other). Then the shards'
 * answers, fixed-size, are gathered on rank 0.
 */
#include "search_mpi.h"

#include <string.h>

#ifdef WT_MPI
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

enum { TAG_KTH = 21 };

typedef struct board {
    int rank, size;
    double sent;    /* the least this rank has sent */
    double heard;   /* the least the others have sent */
    int done;       /* the other ranks whose -1 has come */
} board;

/* Takes one K-th best message. */
static void hear(board *b, int source)
{
    double v;
    MPI_Recv(&v, 1, MPI_DOUBLE, source, TAG_KTH, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (v < 0)
        b->done++;
    else
        b->heard = fmin(b->heard, v);
}

static void tell(board *b, double v)
{
    for (int i = 0; i < b->size; i++)
        if (i != b->rank)
            MPI_Send(&v, 1, MPI_DOUBLE, i, TAG_KTH, MPI_COMM_WORLD);
}

/* search_opts.share: says kth when it improves, takes what has come. */
static double share(void *ud, double kth)
{
    board *b = ud;
    if (kth < b->sent) {
        tell(b, kth);
        b->sent = kth;
    }
    int flag;
    MPI_Status st;
    while (MPI_Iprobe(MPI_ANY_SOURCE, TAG_KTH, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag)
        hear(b, st.MPI_SOURCE);
    return fmin(b->heard, kth);
}

int search_mpi_run(const wafer *wf, const model *m, const search_opts *opts, int rank, int size,
                   search_result *r, wt_err *e)
{
    memset(r, 0, sizeof *r);
    board b = {rank, size, INFINITY, INFINITY, 0};
    search_opts o = *opts;
    o.shard = rank;
    o.nshards = size;
    o.share = share;
    o.share_ud = &b;
    search_shard *mine = malloc(sizeof *mine), *all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
    if (!mine || (rank == 0 && !all)) { /* the others wait for this rank: end the job */
        fprintf(stderr, "search: out of memory for rank %d's shard\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    search_run_shard(wf, m, &o, mine);
    tell(&b, -1);
    while (b.done < size - 1)
        hear(&b, MPI_ANY_SOURCE);
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(mine);
    if (rank != 0)
        return WT_OK;
    search_opts merged = *opts;
    merged.progress = NULL;
    int rc = search_merge(wf, m, &merged, all, size, r, e);
    free(all);
    return rc;
}

#else

int search_mpi_run(const wafer *wf, const model *m, const search_opts *opts, int rank, int size,
                   search_result *r, wt_err *e)
{
    (void)rank;
    (void)size;
    return search_run(wf, m, opts, r, e); /* mpi_job_init refused it before */
}

#endif
