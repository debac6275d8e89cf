/* The cost of cluster.sync(): nothing but barriers between the clock marks, so cycles over barriers
 * is what one costs. The barrier is barrier.cluster.arrive + wait, the pair cooperative_groups'
 * cluster_group::sync() issues. After the marks each block stores its report into the next block's
 * memory and a last barrier publishes it, so the output proves the cluster was real (the rank
 * arrived from the neighbour) and every block passed every barrier. */
#include <cstdint>

#include "clock.cuh"
#include "cluster.cuh"
#include "cluster_sync_launch.h"

__global__ void __launch_bounds__(1024) cluster_sync_kernel(uint32_t *out, int iters, smem_clock *clk)
{
    extern __shared__ __align__(16) uint32_t box[];
#if SMEM_CLUSTER_DEVICE
    const uint32_t rank = smem_cluster_rank();
    const uint32_t next = smem_mapa((uint32_t)__cvta_generic_to_shared(box), (rank + 1) % smem_cluster_size());
    uint32_t passed = 0;

    smem_cluster_sync();   /* every block has started */
    smem_clock_mark(clk, false);
    for (int i = 0; i < iters; i++) {
        smem_cluster_sync();
        passed++;
    }
    smem_clock_mark(clk, true);
    if (threadIdx.x == 0)
        smem_st_cluster(next, rank << 24 | passed);
    smem_cluster_sync();   /* the reports have landed; nobody writes into a block after this */
    if (threadIdx.x == 0)
        out[blockIdx.x] = box[0];
#else
    (void)iters, (void)clk, (void)box;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = SMEM_NOT_BUILT_MARK;
#endif
}

extern "C" const void *smem_cluster_sync_fn(void)
{
    return (const void *)cluster_sync_kernel;
}

extern "C" int smem_cluster_sync_launch(unsigned cluster, unsigned block, size_t dyn_bytes, uint32_t *out, int iters,
                                        smem_clock *clk, void *stream)
{
    return (int)smem_cluster_launch(cluster_sync_kernel, cluster, block, cluster, dyn_bytes, stream, out, iters, clk);
}
