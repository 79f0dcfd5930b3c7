/*
 * sweep_mpi.c - a sweep's points over MPI ranks (contract in sweep_mpi.h).
 *
 * Messages: a rank asks (TAG_ASK), rank 0 answers with a point or -1
 * (TAG_POINT); a rank sends a point's row as the point's number (8 bytes),
 * whether it failed (1 byte) and the text, or the number alone when the
 * sweep stopped before the row was made (TAG_ROW).
 */
#include "sweep_mpi.h"

#ifdef WT_MPI
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { TAG_ASK = 1, TAG_POINT, TAG_ROW };

void sweep_mpi_serve(sweep_mpi_hub *h)
{
    int flag;
    MPI_Status st;
    while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag) {
        if (st.MPI_TAG == TAG_ASK) {
            int none;
            MPI_Recv(&none, 1, MPI_INT, st.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            long long i = h->take(h->ud);
            MPI_Send(&i, 1, MPI_LONG_LONG, st.MPI_SOURCE, TAG_POINT, MPI_COMM_WORLD);
            h->active -= i < 0;
            continue;
        }
        int n;
        MPI_Get_count(&st, MPI_CHAR, &n);
        char *buf = malloc((size_t)n + 1), sink[16];
        /* without memory the message is taken all the same (into sink, cut) */
        MPI_Recv(buf ? buf : sink, buf ? n : (int)sizeof sink, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (!buf || n <= 9) { /* stopped, or no memory to keep it: --resume runs it again */
            free(buf);
            continue;
        }
        long long i;
        memcpy(&i, buf, sizeof i);
        int failed = buf[8];
        memmove(buf, buf + 9, (size_t)n - 9);
        buf[n - 9] = '\0';
        h->keep(h->ud, (long)i, buf, failed);
    }
}

void sweep_mpi_work(char *(*run)(void *ud, long i, int *failed), void *ud)
{
    for (;;) {
        int none = 0;
        long long i;
        MPI_Send(&none, 1, MPI_INT, 0, TAG_ASK, MPI_COMM_WORLD);
        MPI_Recv(&i, 1, MPI_LONG_LONG, 0, TAG_POINT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (i < 0)
            return;
        int failed = 0;
        char *text = run(ud, (long)i, &failed);
        size_t len = text ? strlen(text) : 0;
        char *msg = malloc(9 + len);
        if (msg) {
            memcpy(msg, &i, 8);
            msg[8] = (char)failed;
            if (text)
                memcpy(msg + 9, text, len);
        }
        /* the number alone: no row (stopped, or out of memory) */
        MPI_Send(msg ? msg : (char *)&i, msg && text ? (int)(9 + len) : 8, MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD);
        free(msg);
        free(text);
    }
}

#else

void sweep_mpi_serve(sweep_mpi_hub *h)
{
    (void)h;
}

void sweep_mpi_work(char *(*run)(void *ud, long i, int *failed), void *ud)
{
    (void)run;
    (void)ud;
}

#endif
