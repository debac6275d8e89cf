/* Shared-memory atomic throughput, local and across the cluster. Each warp request adds 1 to 32
 * distinct counters in 32 distinct banks (lane l of warp w, update u: counter (32 w + l + 32 u) mod
 * 1024), so nothing but the atomic unit limits it, and every counter receives the same number of
 * adds from exactly one block. The adds are `red` (no value returned) in volatile inline PTX, which
 * the compiler can neither merge nor drop. The cluster barrier after the loop orders every add
 * before the copy-out (release/acquire at cluster scope) and keeps each block alive while others
 * still add into it; one block per SM, as in dsm_bandwidth. */
#include <cstdint>

#include "clock.cuh"
#include "cluster.cuh"
#include "dsm_atomics_launch.h"

template <int PATH>
__global__ void __launch_bounds__(SMEM_DSM_ATOMICS_BLOCK)
dsm_atomics_kernel(uint32_t *out, int iters, smem_clock *clk)
{
    extern __shared__ __align__(16) uint32_t counter[];
#if SMEM_CLUSTER_DEVICE
    const uint32_t rank = smem_cluster_rank();
    const uint32_t local = (uint32_t)__cvta_generic_to_shared(counter);
    const uint32_t target = PATH == SMEM_DSM_REMOTE ? (rank + 1) % smem_cluster_size() : rank;
    const uint32_t base = PATH == SMEM_DSM_LOCAL ? local : smem_mapa(local, target);
    uint32_t addr[SMEM_DSM_ATOMICS_UNROLL];

    for (uint32_t i = threadIdx.x; i < SMEM_DSM_ATOMICS_COUNTERS; i += blockDim.x)
        counter[i] = 0;
#pragma unroll
    for (int u = 0; u < SMEM_DSM_ATOMICS_UNROLL; u++)
        addr[u] = base + 4 * ((threadIdx.x + 32 * u) % SMEM_DSM_ATOMICS_COUNTERS);
    smem_cluster_sync();   /* every counter is zero before anyone adds */
    smem_clock_mark(clk, false);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < SMEM_DSM_ATOMICS_UNROLL; u++) {
            if (PATH == SMEM_DSM_LOCAL)
                asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr[u]) : "memory");
            else
                asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(addr[u]) : "memory");
        }
    }
    smem_cluster_sync();   /* every add has landed, and no block has left */
    smem_clock_mark(clk, true);
    for (uint32_t i = threadIdx.x; i < SMEM_DSM_ATOMICS_COUNTERS; i += blockDim.x)
        out[blockIdx.x * SMEM_DSM_ATOMICS_COUNTERS + i] = counter[i];
#else
    (void)iters, (void)clk, (void)counter;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = SMEM_NOT_BUILT_MARK;
#endif
}

typedef void (*dsm_atomics_fn_t)(uint32_t *, int, smem_clock *);

static dsm_atomics_fn_t pick(int path)
{
    switch (path) {
    case SMEM_DSM_LOCAL: return dsm_atomics_kernel<SMEM_DSM_LOCAL>;
    case SMEM_DSM_SELF: return dsm_atomics_kernel<SMEM_DSM_SELF>;
    case SMEM_DSM_REMOTE: return dsm_atomics_kernel<SMEM_DSM_REMOTE>;
    }
    return nullptr;
}

extern "C" const void *smem_dsm_atomics_fn(int path)
{
    return (const void *)pick(path);
}

extern "C" int smem_dsm_atomics_launch(int path, unsigned grid, unsigned cluster, size_t dyn_bytes, uint32_t *out,
                                       int iters, smem_clock *clk, void *stream)
{
    dsm_atomics_fn_t k = pick(path);

    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)smem_cluster_launch(k, grid, SMEM_DSM_ATOMICS_BLOCK, cluster, dyn_bytes, stream, out, iters, clk);
}
