/* The cluster family's common plan and the residency count of the cluster probe. */
#include "cluster_family.h"

#include <stdlib.h>

#include "smem.h"

const int64_t smem_cluster_sizes[5] = { 1, 2, 4, 8, 16 };
const int64_t smem_cluster_quick_sizes[2] = { 2, 8 };
const int64_t smem_dsm_paths[3] = { SMEM_DSM_LOCAL, SMEM_DSM_SELF, SMEM_DSM_REMOTE };

int smem_cluster_plan(int64_t size, unsigned block, const struct smem_device *dev, struct smem_plan *p, char *why,
                      size_t len)
{
    if (dev->is_model) {
        smem_fmt(why, len, "the occupancy calculator has no thread block clusters: cluster points need a GPU "
                 "(cudaOccupancyMaxActiveClusters)");
        return SMEM_ESKIP;
    }
    p->block = block;
    p->cluster = (unsigned)size;
    /* more than half of the SM's shared memory: one block per SM, so every other block of a cluster
     * is on another SM and a "remote" access really leaves the SM */
    p->dyn_smem = (size_t)dev->smem_per_block_optin;
    p->optin = p->dyn_smem > (size_t)dev->smem_per_block;
    p->regs = 32;
    return SMEM_OK;
}

int smem_dsm_path_plan(int64_t path, int64_t size, char *why, size_t len)
{
    if (path == SMEM_DSM_REMOTE && size < 2) {
        smem_fmt(why, len, "a cluster of 1 block has no other block to reach; path=1 is its own block through the "
                 "cluster window");
        return SMEM_ESKIP;
    }
    return SMEM_OK;
}

struct span {
    unsigned long long t;
    int delta;  /* +1 a cluster becomes resident, -1 it stops being */
};

static int by_time(const void *a, const void *b)
{
    const struct span *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta - y->delta;   /* an end before a start at the same instant: [start, end) */
}

int smem_cluster_resident(const struct smem_cluster_record *rec, size_t n, unsigned cluster, bool timed, int *resident,
                          char *why, size_t len)
{
    size_t n_clusters = cluster ? n / cluster : 0;
    struct span *ev;
    int now = 0, most = 0;

    *resident = 0;
    if (!cluster || n % cluster || !n) {
        smem_fmt(why, len, "%zu blocks do not make whole clusters of %u", n, cluster);
        return SMEM_EVERIFY;
    }
    if (!(ev = malloc(2 * n_clusters * sizeof(*ev))))
        return SMEM_ENOMEM;
    for (size_t k = 0; k < n_clusters; k++) {
        unsigned long long first_end = ~0ull, last_start = 0;
        for (size_t r = 0; r < cluster; r++) {
            const struct smem_cluster_record *b = &rec[k * cluster + r];
            size_t i = k * cluster + r;
            if (b->nranks != cluster || b->cluster != k || b->rank != r || b->end < b->start) {
                smem_fmt(why, len, "block %zu recorded cluster %u rank %u of %u (start %llu, end %llu); expected "
                         "cluster %zu rank %zu of %u", i, b->cluster, b->rank, b->nranks, b->start, b->end, k, r,
                         cluster);
                free(ev);
                return SMEM_EVERIFY;
            }
            last_start = b->start > last_start ? b->start : last_start;
            first_end = b->end < first_end ? b->end : first_end;
        }
        if (timed && last_start >= first_end) {
            smem_fmt(why, len, "the blocks of cluster %zu never all ran at once (last start %llu, first end %llu): "
                     "a cluster's blocks are co-scheduled", k, last_start, first_end);
            free(ev);
            return SMEM_EVERIFY;
        }
        ev[2 * k] = (struct span){ last_start, +1 };
        ev[2 * k + 1] = (struct span){ first_end, -1 };
    }
    if (!timed) {
        free(ev);
        return SMEM_OK;
    }
    qsort(ev, 2 * n_clusters, sizeof(*ev), by_time);
    for (size_t i = 0; i < 2 * n_clusters; i++) {
        now += ev[i].delta;
        most = now > most ? now : most;
    }
    free(ev);
    *resident = most;
    return SMEM_OK;
}

unsigned smem_cluster_probe_clusters(const struct smem_device *dev, unsigned cluster, unsigned block, size_t smem)
{
    int64_t per_sm = dev->max_blocks_per_sm;

    if (block && dev->max_threads_per_sm / (int64_t)block < per_sm)
        per_sm = dev->max_threads_per_sm / (int64_t)block;
    if (smem && dev->smem_per_sm / ((int64_t)smem + dev->reserved_smem_per_block) < per_sm)
        per_sm = dev->smem_per_sm / ((int64_t)smem + dev->reserved_smem_per_block);
    if (per_sm < 1)
        per_sm = 1;
    return (unsigned)((dev->sm_count * per_sm + cluster - 1) / cluster) + 2;
}
