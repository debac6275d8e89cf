/* smem_parallel_for (bench/parallel_for.h). */
#define _POSIX_C_SOURCE 200809L
#include "parallel_for.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "smem.h"

/* Host references over hundreds of MiB (a transpose, a staging hash, a stream's sums) ran on one
 * core while the GPU host had sixteen: split into contiguous ranges, each on its own thread. */
#define PARALLEL_MAX_THREADS 16

struct range {
    int (*fn)(void *arg, size_t begin, size_t end, char *why, size_t why_len);
    void *arg;
    size_t begin, end;
    int rc;
    char why[256];
};

static void *run_range(void *p)
{
    struct range *r = p;

    r->rc = r->fn(r->arg, r->begin, r->end, r->why, sizeof(r->why));
    return NULL;
}

int smem_parallel_for(size_t n, int (*fn)(void *arg, size_t begin, size_t end, char *why, size_t why_len),
                      void *arg, char *why, size_t why_len)
{
    struct range r[PARALLEL_MAX_THREADS];
    pthread_t t[PARALLEL_MAX_THREADS];
    bool started[PARALLEL_MAX_THREADS] = { false };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = cpus < 1 ? 1 : cpus > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : (size_t)cpus;

    if (k > n)
        k = n ? n : 1;
    for (size_t i = 0; i < k; i++) {
        r[i] = (struct range){ .fn = fn, .arg = arg, .begin = n * i / k, .end = n * (i + 1) / k };
        r[i].why[0] = '\0';
        /* the first range on this thread; a thread that cannot start has its range run here too */
        started[i] = i > 0 && !pthread_create(&t[i], NULL, run_range, &r[i]);
    }
    for (size_t i = 0; i < k; i++)
        if (!started[i])
            run_range(&r[i]);
    for (size_t i = 0; i < k; i++)
        if (started[i])
            pthread_join(t[i], NULL);
    /* the first failure in index order, whichever thread found it first */
    for (size_t i = 0; i < k; i++)
        if (r[i].rc) {
            if (why && why_len)
                smem_fmt(why, why_len, "%s", r[i].why);
            return r[i].rc;
        }
    return SMEM_OK;
}
