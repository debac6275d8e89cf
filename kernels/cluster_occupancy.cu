/* Cluster residency probe: like residency.cu, but launched in clusters and recording the cluster
 * special registers as well as %smid and %globaltimer. Each block spins long enough (far above the
 * launch skew of a wave) that every cluster the GPU can hold at once overlaps in time with the
 * others; the dynamic allocation is the footprint under test and is never touched. */
#include <cstdint>

#include "clock.cuh"
#include "cluster.cuh"
#include "cluster_occupancy_launch.h"

__global__ void __launch_bounds__(SMEM_CLUSTER_OCC_BLOCK)
cluster_occupancy_kernel(unsigned long long spin_ns, smem_cluster_record *rec)
{
#if SMEM_CLUSTER_DEVICE
    unsigned long long t0 = smem_globaltimer(), t = t0;

    while (t - t0 < spin_ns)
        t = smem_globaltimer();
    if (threadIdx.x == 0) {
        smem_cluster_record r = { smem_smid(), smem_cluster_id(), smem_cluster_rank(), smem_cluster_size(), t0, t };
        rec[blockIdx.x] = r;
    }
#else
    (void)spin_ns;
    if (threadIdx.x == 0)
        rec[blockIdx.x].nranks = SMEM_NOT_BUILT_MARK;
#endif
}

extern "C" const void *smem_cluster_occupancy_fn(void)
{
    return (const void *)cluster_occupancy_kernel;
}

extern "C" int smem_cluster_occupancy_launch(unsigned grid, unsigned cluster, size_t dyn_bytes,
                                             unsigned long long spin_ns, smem_cluster_record *rec, void *stream)
{
    return (int)smem_cluster_launch(cluster_occupancy_kernel, grid, SMEM_CLUSTER_OCC_BLOCK, cluster, dyn_bytes, stream,
                                    spin_ns, rec);
}
