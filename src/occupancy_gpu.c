/* Occupancy read off the device: the runtime API on the real function, and the residency probe. */
#include "occupancy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_status.h"
#include "residency_launch.h"

int smem_occupancy_api(const void *fn, int block, size_t dyn, int *blocks_per_sm)
{
    int rc = SMEM_OK;

    *blocks_per_sm = -1;
    SMEM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, fn, block, dyn));
    return SMEM_OK;
fail:
    *blocks_per_sm = -1;
    return rc;
}

int smem_occupancy_clusters(const void *fn, unsigned cluster, unsigned block, size_t dyn, int *clusters, char *why,
                            size_t why_len)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t e;

    *clusters = 0;
    if (cluster > 8 && (e = cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1))) {
        int rc = smem_cuda_fail(e, "cudaFuncSetAttribute(NonPortableClusterSizeAllowed)", __FILE__, __LINE__);
        if (rc == SMEM_ESTICKY)
            return rc;
        smem_fmt(why, why_len, "the device refuses clusters of %u blocks (more than the portable 8): %s", cluster,
                 smem_cuda_last_error());
        return SMEM_ESKIP;
    }
    memset(&cfg, 0, sizeof(cfg));
    memset(&attr, 0, sizeof(attr));
    cfg.gridDim.x = cluster;
    cfg.gridDim.y = cfg.gridDim.z = 1;
    cfg.blockDim.x = block;
    cfg.blockDim.y = cfg.blockDim.z = 1;
    cfg.dynamicSmemBytes = dyn;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    if ((e = cudaOccupancyMaxActiveClusters(clusters, fn, &cfg))) {
        int rc = smem_cuda_fail(e, "cudaOccupancyMaxActiveClusters", __FILE__, __LINE__);
        *clusters = 0;
        if (rc == SMEM_ESTICKY)
            return rc;
        smem_fmt(why, why_len, "no cluster of %u blocks of %u threads and %zu bytes of shared memory can be resident: "
                 "%s", cluster, block, dyn, smem_cuda_last_error());
        return SMEM_ESKIP;
    }
    if (*clusters <= 0) {
        smem_fmt(why, why_len, "no cluster of %u blocks of %u threads and %zu bytes of shared memory can be resident "
                 "(cudaOccupancyMaxActiveClusters: 0)", cluster, block, dyn);
        return SMEM_ESKIP;
    }
    return SMEM_OK;
}

int smem_occupancy_func(const void *fn, struct smem_func *f)
{
    struct cudaFuncAttributes a;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaFuncGetAttributes(&a, fn));
    f->regs = a.numRegs;
    f->static_smem = a.sharedSizeBytes;
    f->max_dyn_smem = (size_t)a.maxDynamicSharedSizeBytes;
    f->max_threads_per_block = a.maxThreadsPerBlock;
    f->ptx_version = a.ptxVersion;
    return SMEM_OK;
fail:
    return rc;
}

/* The probe spins this long per block: far above %globaltimer's resolution and the launch skew
 * between blocks of one wave, short enough that a probe costs well under a millisecond. */
#define PROBE_SPIN_NS 40000ull

static int variant_regs[64];
static int n_variants;
static pthread_once_t variants_once = PTHREAD_ONCE_INIT;

/* Register counts of the probe variants (the same binary on every device). */
static void read_variants(void)
{
    for (int v = 0; v < smem_residency_variants() && v < 64; v++) {
        struct cudaFuncAttributes a;
        variant_regs[v] = cudaFuncGetAttributes(&a, smem_residency_fn(v)) == cudaSuccess ? a.numRegs : 0;
    }
    n_variants = smem_residency_variants();
}

/* The probe variant with the fewest registers that still has at least regs. */
static int probe_variant(int regs, int *probe_regs)
{
    int n, best = -1;

    pthread_once(&variants_once, read_variants);
    n = n_variants;
    for (int v = 0; v < n; v++)
        if (variant_regs[v] >= regs && (best < 0 || variant_regs[v] < variant_regs[best]))
            best = v;
    if (best < 0)   /* more registers than any variant: the largest */
        for (int v = 0; v < n; v++)
            if (best < 0 || variant_regs[v] > variant_regs[best])
                best = v;
    *probe_regs = variant_regs[best];
    return best;
}

int smem_occupancy_measure(const struct smem_device *d, int block, size_t smem_bytes, int carveout_pct, int regs,
                           struct smem_residency *out, char *why, size_t why_len)
{
    int api = 0, rc = SMEM_OK, used = 0;
    int variant = probe_variant(regs, &out->probe_regs);
    const void *fn = smem_residency_fn(variant);
    unsigned grid;
    uint32_t *smid = NULL, *h_smid = NULL;
    unsigned long long *start = NULL, *end = NULL, *h_start = NULL, *h_end = NULL;

    out->blocks_per_sm = -1;
    out->sms_used = 0;
    SMEM_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         carveout_pct < 0 ? cudaSharedmemCarveoutDefault : carveout_pct));
    SMEM_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)(smem_bytes > (size_t)d->smem_per_block ? smem_bytes : (size_t)d->smem_per_block)));
    SMEM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, fn, block, smem_bytes));
    if (api <= 0) {
        smem_fmt(why, why_len, "the probe cannot be resident with %zu bytes of shared memory", smem_bytes);
        return SMEM_ESKIP;
    }
    /* two blocks more per SM than fit, so every SM is full and the surplus has to wait */
    grid = (unsigned)d->sm_count * (unsigned)(api + 2);
    SMEM_CUDA_CHECK(cudaMalloc((void **)&smid, grid * sizeof(*smid)));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&start, grid * sizeof(*start)));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&end, grid * sizeof(*end)));
    SMEM_CUDA_CHECK(smem_residency_launch(variant, grid, (unsigned)block, smem_bytes, PROBE_SPIN_NS, smid, start, end,
                                          NULL));
    SMEM_CUDA_CHECK(cudaDeviceSynchronize());
    h_smid = malloc(grid * sizeof(*h_smid));
    h_start = malloc(grid * sizeof(*h_start));
    h_end = malloc(grid * sizeof(*h_end));
    if (!h_smid || !h_start || !h_end) {
        rc = SMEM_ENOMEM;
        goto fail;
    }
    SMEM_CUDA_CHECK(cudaMemcpy(h_smid, smid, grid * sizeof(*h_smid), cudaMemcpyDeviceToHost));
    SMEM_CUDA_CHECK(cudaMemcpy(h_start, start, grid * sizeof(*h_start), cudaMemcpyDeviceToHost));
    SMEM_CUDA_CHECK(cudaMemcpy(h_end, end, grid * sizeof(*h_end), cudaMemcpyDeviceToHost));
    rc = smem_occupancy_max_overlap(h_smid, h_start, h_end, grid, d->sm_count, &used);
    out->sms_used = used;
    if (rc >= 0) {
        out->blocks_per_sm = rc;
        rc = SMEM_OK;
    }
fail:
    if (rc && rc != SMEM_ENOMEM)
        smem_fmt(why, why_len, "residency probe: %s", smem_cuda_last_error());
    free(h_smid);
    free(h_start);
    free(h_end);
    cudaFree(smid);
    cudaFree(start);
    cudaFree(end);
    return rc;
}
