/*
 * par.c - a walk split into parts on threads (contract in par.h).
 */
#include "par.h"

#include <pthread.h>
#include <unistd.h>

/* Work below this many link entries per part stays on one thread. */
#define PAR_MIN_WORK 200000

int par_parts(size_t work)
{
    if (work < 2 * (size_t)PAR_MIN_WORK)
        return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = cores > 1 ? (size_t)cores : 1, most = work / PAR_MIN_WORK;
    n = n < most ? n : most;
    return n < PAR_MAX ? (int)n : PAR_MAX;
}

typedef struct par_job {
    void (*fn)(void *ctx, int part);
    void *ctx;
    int part;
} par_job;

static void *par_main(void *arg)
{
    par_job *j = arg;
    j->fn(j->ctx, j->part);
    return NULL;
}

void par_run(int nparts, void (*fn)(void *ctx, int part), void *ctx)
{
    par_job job[PAR_MAX];
    pthread_t t[PAR_MAX];
    int started[PAR_MAX] = {0};
    nparts = nparts < 1 ? 1 : nparts > PAR_MAX ? PAR_MAX : nparts;
    for (int k = 1; k < nparts; k++) {
        job[k] = (par_job){fn, ctx, k};
        started[k] = pthread_create(&t[k], NULL, par_main, &job[k]) == 0;
    }
    fn(ctx, 0);
    for (int k = 1; k < nparts; k++) {
        if (started[k])
            pthread_join(t[k], NULL);
        else
            fn(ctx, k); /* no thread: its part here */
    }
}

size_t par_first(size_t n, int part, int nparts)
{
    return n / (size_t)nparts * (size_t)part + (n % (size_t)nparts) * (size_t)part / (size_t)nparts;
}
