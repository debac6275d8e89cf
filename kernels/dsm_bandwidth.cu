/* Distributed-shared-memory load throughput. One block per SM (the descriptor asks for more than half
 * of the SM's shared memory), so the next block of the cluster is on another SM and the buffer a
 * block reads is read by nobody else: every SM issues and serves the same bytes. Each thread keeps
 * SMEM_DSM_BW_UNROLL independent loads in flight per iteration; the loads are volatile inline PTX,
 * so ptxas can neither drop them nor hoist them out of the loop although their addresses repeat, and
 * their sum is written out (and checked). The closing cluster barrier keeps every buffer alive until
 * its reader is done, and is inside the clock window: a block's time ends when its cluster's does. */
#include <cstdint>

#include "clock.cuh"
#include "cluster.cuh"
#include "dsm_bandwidth.h"

#if SMEM_CLUSTER_DEVICE
template <int W, int PATH> __device__ __forceinline__ uint32_t dsm_load(uint32_t addr)
{
    uint32_t x, y, z, w;

    if constexpr (PATH == SMEM_DSM_LOCAL) {
        if constexpr (W == 4) {
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr));
            return x;
        } else if constexpr (W == 8) {
            asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr));
            return x + y;
        } else {
            asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
            return x + y + z + w;
        }
    } else {
        if constexpr (W == 4) {
            asm volatile("ld.volatile.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(addr));
            return x;
        } else if constexpr (W == 8) {
            asm volatile("ld.volatile.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr));
            return x + y;
        } else {
            asm volatile("ld.volatile.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
            return x + y + z + w;
        }
    }
}
#endif

template <int W, int PATH>
__global__ void __launch_bounds__(SMEM_DSM_BW_BLOCK)
dsm_bandwidth_kernel(const uint32_t *in, uint32_t *out, uint32_t *smid, int iters, smem_clock *clk)
{
    extern __shared__ __align__(16) uint32_t buf[];
#if SMEM_CLUSTER_DEVICE
    const uint32_t rank = smem_cluster_rank();
    const uint32_t local = (uint32_t)__cvta_generic_to_shared(buf);
    const uint32_t target = PATH == SMEM_DSM_REMOTE ? (rank + 1) % smem_cluster_size() : rank;
    const uint32_t base = PATH == SMEM_DSM_LOCAL ? local : smem_mapa(local, target);
    uint32_t acc = 0, addr[SMEM_DSM_BW_UNROLL];

    for (uint32_t i = threadIdx.x; i < SMEM_DSM_BW_WORDS; i += blockDim.x)
        buf[i] = in[rank * SMEM_DSM_BW_WORDS + i];
#pragma unroll
    for (int u = 0; u < SMEM_DSM_BW_UNROLL; u++)
        addr[u] = base + smem_dsm_bw_offset(threadIdx.x, (uint32_t)u, W);
    smem_cluster_sync();   /* every buffer is filled before anyone reads it */
    smem_clock_mark(clk, false);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < SMEM_DSM_BW_UNROLL; u++)
            acc += dsm_load<W, PATH>(addr[u]);
    }
    smem_cluster_sync();   /* no block leaves while its buffer is still being read */
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0)
        smid[blockIdx.x] = smem_smid();
#else
    (void)in, (void)smid, (void)iters, (void)clk, (void)buf;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = SMEM_NOT_BUILT_MARK;
#endif
}

typedef void (*dsm_bandwidth_fn_t)(const uint32_t *, uint32_t *, uint32_t *, int, smem_clock *);

static dsm_bandwidth_fn_t pick(int width, int path)
{
#define PATHS(W)                                                                  \
    switch (path) {                                                               \
    case SMEM_DSM_LOCAL: return dsm_bandwidth_kernel<W, SMEM_DSM_LOCAL>;          \
    case SMEM_DSM_SELF: return dsm_bandwidth_kernel<W, SMEM_DSM_SELF>;            \
    case SMEM_DSM_REMOTE: return dsm_bandwidth_kernel<W, SMEM_DSM_REMOTE>;        \
    }                                                                             \
    return nullptr;
    switch (width) {
    case 4: PATHS(4)
    case 8: PATHS(8)
    case 16: PATHS(16)
    }
#undef PATHS
    return nullptr;
}

extern "C" const void *smem_dsm_bandwidth_fn(int width, int path)
{
    return (const void *)pick(width, path);
}

extern "C" int smem_dsm_bandwidth_launch(int width, int path, unsigned grid, unsigned cluster, size_t dyn_bytes,
                                         const uint32_t *in, uint32_t *out, uint32_t *smid, int iters,
                                         smem_clock *clk, void *stream)
{
    dsm_bandwidth_fn_t k = pick(width, path);

    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)smem_cluster_launch(k, grid, SMEM_DSM_BW_BLOCK, cluster, dyn_bytes, stream, in, out, smid, iters, clk);
}
