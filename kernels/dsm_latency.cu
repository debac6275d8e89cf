/* Load-to-use latency of distributed shared memory. Block rank 0 writes the chain into the target
 * block's memory (remote stores when the target is another block) and one of its threads follows it,
 * each slot holding the shared::cluster address of the next, so a load's result is the next load's
 * address with nothing in between (as in latency.cu's address chase). The three cluster barriers:
 * every block has started before its memory is mapped, the chain is visible before the chase, and
 * the target stays alive until the chase is over. The loads are volatile inline PTX, unrolled so the
 * loop branch stays off the dependent path; clock64 brackets only the chase. */
#include <cstdint>

#include "clock.cuh"
#include "cluster.cuh"
#include "dsm_latency_launch.h"

template <int PATH>
__global__ void __launch_bounds__(SMEM_DSM_LATENCY_BLOCK)
dsm_latency_kernel(const uint32_t *next, uint32_t n_slots, uint32_t steps, uint32_t *out, smem_clock *clk)
{
    extern __shared__ __align__(16) uint32_t slot[];
#if SMEM_CLUSTER_DEVICE
    const uint32_t rank = smem_cluster_rank();
    const uint32_t local = (uint32_t)__cvta_generic_to_shared(slot);
    const uint32_t target = PATH == SMEM_DSM_REMOTE ? smem_cluster_size() - 1 : rank;
    const uint32_t base = PATH == SMEM_DSM_LOCAL ? local : smem_mapa(local, target);

    smem_cluster_sync();
    if (rank == 0)
        for (uint32_t i = threadIdx.x; i < n_slots; i += blockDim.x) {
            if (PATH == SMEM_DSM_LOCAL)
                slot[i] = base + 4 * next[i];
            else
                smem_st_cluster(base + 4 * i, base + 4 * next[i]);
        }
    smem_cluster_sync();
    if (rank == 0 && threadIdx.x == 0) {
        uint32_t j = base;
        smem_clock_mark(clk, false);
        for (uint32_t i = 0; i < steps; i += SMEM_DSM_LATENCY_UNROLL) {
#pragma unroll
            for (int u = 0; u < SMEM_DSM_LATENCY_UNROLL; u++) {
                if (PATH == SMEM_DSM_LOCAL)
                    asm volatile("ld.volatile.shared.u32 %0, [%0];" : "+r"(j));
                else
                    asm volatile("ld.volatile.shared::cluster.u32 %0, [%0];" : "+r"(j));
            }
        }
        smem_clock_mark(clk, true);
        out[0] = (j - base) / 4;
    }
    smem_cluster_sync();
#else
    (void)next, (void)n_slots, (void)steps, (void)clk, (void)slot;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = SMEM_NOT_BUILT_MARK;
#endif
}

extern "C" const void *smem_dsm_latency_fn(int path)
{
    switch (path) {
    case SMEM_DSM_LOCAL: return (const void *)dsm_latency_kernel<SMEM_DSM_LOCAL>;
    case SMEM_DSM_SELF: return (const void *)dsm_latency_kernel<SMEM_DSM_SELF>;
    case SMEM_DSM_REMOTE: return (const void *)dsm_latency_kernel<SMEM_DSM_REMOTE>;
    }
    return nullptr;
}

extern "C" int smem_dsm_latency_launch(int path, unsigned cluster, size_t dyn_bytes, const uint32_t *next,
                                       uint32_t n_slots, uint32_t steps, uint32_t *out, smem_clock *clk, void *stream)
{
    void (*k)(const uint32_t *, uint32_t, uint32_t, uint32_t *, smem_clock *);

    switch (path) {
    case SMEM_DSM_LOCAL: k = dsm_latency_kernel<SMEM_DSM_LOCAL>; break;
    case SMEM_DSM_SELF: k = dsm_latency_kernel<SMEM_DSM_SELF>; break;
    case SMEM_DSM_REMOTE: k = dsm_latency_kernel<SMEM_DSM_REMOTE>; break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)smem_cluster_launch(k, cluster, SMEM_DSM_LATENCY_BLOCK, cluster, dyn_bytes, stream, next, n_slots,
                                    steps, out, clk);
}
