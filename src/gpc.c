/* The SM -> GPC map of a cc 9.0+ device, found by launching the cluster residency probe: the blocks of
 * one thread block cluster are always co-scheduled on one GPC (CUDA Programming Guide, "Thread Block
 * Clusters"), so the SMs that ran the blocks of one cluster are in one GPC. One block per SM (the
 * opt-in allocation) and clusters of several sizes (16 where the device allows it, then 8, 6, 4, 3,
 * 2) cover every SM; the connected groups of SMs are the GPCs. Units of one model differ in the TPCs
 * fused off, so their GPCs hold different numbers of SMs, and the clusters that fit at once differ. */
#include "gpc.h"

#include <stdlib.h>
#include <string.h>

#include "cluster_occupancy_launch.h"
#include "cuda_status.h"
#include "occupancy.h"
#include "portable.h"

#define SPIN_NS 200000ull   /* far above a wave's launch skew: every cluster of the wave is resident at once */

static int root(int *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* One launch of clusters of `size` blocks, one block per SM; joins the SMs of each cluster in parent. */
static int probe(const void *fn, unsigned size, size_t dyn, int *parent, bool *seen, int sm_count, char *why,
                 size_t why_len)
{
    struct smem_cluster_record *d_rec = NULL, *rec = NULL;
    int clusters = 0, rc;

    rc = smem_occupancy_clusters(fn, size, SMEM_CLUSTER_OCC_BLOCK, dyn, &clusters, why, why_len);
    if (rc)
        return rc;
    unsigned grid = (unsigned)clusters * size;
    rc = SMEM_OK;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&d_rec, grid * sizeof(*d_rec)));
    SMEM_CUDA_CHECK(cudaMemset(d_rec, 0, grid * sizeof(*d_rec)));
    SMEM_CUDA_CHECK(smem_cluster_occupancy_launch(grid, size, dyn, SPIN_NS, d_rec, NULL));
    SMEM_CUDA_CHECK(cudaDeviceSynchronize());
    rec = malloc(grid * sizeof(*rec));
    if (!rec) {
        rc = SMEM_ENOMEM;
        goto fail;
    }
    SMEM_CUDA_CHECK(cudaMemcpy(rec, d_rec, grid * sizeof(*rec), cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < grid; b++) {
        if (rec[b].nranks == SMEM_NOT_BUILT_MARK) {
            smem_fmt(why, why_len, "this binary's cluster code was compiled for below cc 9.0 (PTX): build for this "
                     "device");
            rc = SMEM_ESKIP;
            goto fail;
        }
        if (rec[b].nranks != size || rec[b].smid >= (unsigned)sm_count) {
            smem_fmt(why, why_len, "the cluster probe's block %u recorded %u ranks on SM %u (expected %u ranks, "
                     "SMs 0..%d): this binary's cluster code does not run on this device", b, rec[b].nranks,
                     rec[b].smid, size, sm_count - 1);
            rc = SMEM_ESKIP;
            goto fail;
        }
        seen[rec[b].smid] = true;
        /* a 1-D grid of clusters: blocks [k size, (k + 1) size) are cluster k */
        unsigned first = b - b % size;
        int a = root(parent, (int)rec[first].smid), c = root(parent, (int)rec[b].smid);
        if (a != c)
            parent[c] = a;
    }
fail:
    free(rec);
    cudaFree(d_rec);
    return rc;
}

int smem_gpc_probe(const struct smem_device *dev, struct smem_gpc_map *map)
{
    static const unsigned sizes[] = { 16, 8, 6, 4, 3, 2 };
    const void *fn = smem_cluster_occupancy_fn();
    int parent[SMEM_MAX_SMS], group_of_root[SMEM_MAX_SMS], n = dev->sm_count, rc = SMEM_OK;
    bool seen[SMEM_MAX_SMS] = { false };
    size_t dyn = (size_t)dev->smem_per_block_optin;
    char why[128] = "";

    memset(map, 0, sizeof(*map));
    if (dev->cc_major < 9) {
        smem_fmt(map->why, sizeof(map->why), "thread block clusters need cc 9.0 (this device is %d.%d)", dev->cc_major,
                 dev->cc_minor);
        return SMEM_ESKIP;
    }
    if (n <= 0 || n > SMEM_MAX_SMS) {
        smem_fmt(map->why, sizeof(map->why), "%d SMs: the map holds 1..%d", n, SMEM_MAX_SMS);
        return SMEM_ESKIP;
    }
    /* one block per SM: the probe's block asks for the whole opt-in allocation */
    SMEM_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
    for (int i = 0; i < n; i++)
        parent[i] = i;
    for (size_t s = 0; s < SMEM_ARRAY_LEN(sizes); s++) {
        rc = probe(fn, sizes[s], dyn, parent, seen, n, why, sizeof(why));
        if (rc == SMEM_ESTICKY)
            return rc;
        if (rc != SMEM_OK && (rc != SMEM_ESKIP || sizes[s] <= 8))   /* only the non-portable 16 may be refused */
            goto fail;
    }
    rc = SMEM_OK;
    for (int i = 0; i < n; i++)
        group_of_root[i] = -1;
    for (int i = 0; i < n; i++) {
        if (!seen[i]) {
            map->sm_gpc[i] = -1;
            map->unresolved++;
            continue;
        }
        int r = root(parent, i);
        if (group_of_root[r] < 0) {
            if (map->count == SMEM_MAX_GPCS) {
                smem_fmt(map->why, sizeof(map->why), "more than %d groups of SMs", SMEM_MAX_GPCS);
                map->count = 0;
                return SMEM_ESKIP;
            }
            group_of_root[r] = map->count++;
        }
        map->sm_gpc[i] = (short)group_of_root[r];
        map->sms[group_of_root[r]]++;
    }
    /* an SM alone in its group never shared a cluster: its GPC is not known */
    for (int i = 0; i < n; i++)
        if (map->sm_gpc[i] >= 0 && map->sms[map->sm_gpc[i]] == 1)
            map->unresolved++;
    return SMEM_OK;
fail:
    memset(map, 0, sizeof(*map));
    smem_fmt(map->why, sizeof(map->why), "%s", why[0] ? why : smem_cuda_last_error());
    return rc;
}
