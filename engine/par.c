/*
 * par.c - a walk split into parts on threads (contract in par.h).
 */
#include "par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* Work below this many link entries per part stays on one thread. */
#define PAR_MIN_WORK 200000
/* Parts per core of a walk split into chunks. */
#define PAR_PER_CORE 4

static int online_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 1 ? (cores < PAR_THREADS ? (int)cores : PAR_THREADS) : 1;
}

int par_parts(size_t work)
{
    if (work < 2 * (size_t)PAR_MIN_WORK)
        return 1;
    size_t n = (size_t)online_cores(), most = work / PAR_MIN_WORK;
    return (int)(n < most ? n : most);
}

int par_chunks(size_t work)
{
    int n = par_parts(work);
    return n > 1 ? (n * PAR_PER_CORE < PAR_MAX ? n * PAR_PER_CORE : PAR_MAX) : 1;
}

typedef struct par_job {
    void (*fn)(void *ctx, int part);
    void *ctx;
    int nparts;
    atomic_int next; /* the next part no thread has taken */
} par_job;

static void *par_take(void *arg)
{
    par_job *j = arg;
    for (int part; (part = atomic_fetch_add(&j->next, 1)) < j->nparts;)
        j->fn(j->ctx, part);
    return NULL;
}

void par_run(int nparts, void (*fn)(void *ctx, int part), void *ctx)
{
    nparts = nparts < 1 ? 1 : nparts > PAR_MAX ? PAR_MAX : nparts;
    if (nparts == 1) {
        fn(ctx, 0);
        return;
    }
    par_job job = {fn, ctx, nparts, 0};
    pthread_t t[PAR_THREADS];
    int cores = online_cores(), nt = 0;
    while (nt < cores - 1 && nt < nparts - 1 && pthread_create(&t[nt], NULL, par_take, &job) == 0)
        nt++;
    par_take(&job);
    for (int k = 0; k < nt; k++)
        pthread_join(t[k], NULL);
}

size_t par_first(size_t n, int part, int nparts)
{
    return n / (size_t)nparts * (size_t)part + (n % (size_t)nparts) * (size_t)part / (size_t)nparts;
}
