/* Distributed-shared-memory load throughput. One block per SM (the descriptor asks for more than half
 * of the SM's shared memory), so the other blocks of a cluster are on other SMs and each buffer is
 * read by one block at most: the bytes per SM are what the reading SMs pulled. Each thread keeps
 * SMEM_DSM_BW_UNROLL independent loads in flight per iteration (the chain pattern: one); the loads
 * are volatile inline PTX, so ptxas can neither drop them nor hoist them out of the loop although
 * their addresses repeat, and their sum is written out (and checked). The closing cluster barrier
 * keeps every buffer alive until its reader is done, and is inside the clock window: a block's
 * time ends when its cluster's does. */
#include <cstdint>

#include "clock.cuh"
#include "cluster.cuh"
#include "dsm_bandwidth_launch.h"

#if SMEM_CLUSTER_DEVICE
/* One W-byte load of the own memory (ld.shared) or through the cluster window; returns the sum of its
 * words and, where first is not null, stores the first word there. */
template <int W, int PATH> __device__ __forceinline__ uint32_t dsm_load(uint32_t addr, uint32_t *first)
{
    uint32_t x, y = 0, z = 0, w = 0;

    if constexpr (PATH == SMEM_DSM_LOCAL) {
        if constexpr (W == 4)
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr));
        else if constexpr (W == 8)
            asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr));
        else
            asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
    } else {
        if constexpr (W == 4)
            asm volatile("ld.volatile.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(addr));
        else if constexpr (W == 8)
            asm volatile("ld.volatile.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr));
        else
            asm volatile("ld.volatile.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
    }
    if (first)
        *first = x;
    return x + y + z + w;
}
#endif

template <int W, int PATTERN>
__global__ void __launch_bounds__(SMEM_DSM_BW_BLOCK)
dsm_bandwidth_kernel(const uint32_t *in, uint32_t *out, uint32_t *rec, int iters, smem_clock *clk)
{
    extern __shared__ __align__(16) uint32_t buf[];
#if SMEM_CLUSTER_DEVICE
    constexpr int PATH = PATTERN == SMEM_DSM_LOCAL ? SMEM_DSM_LOCAL : SMEM_DSM_REMOTE;
    const uint32_t rank = smem_cluster_rank(), size = smem_cluster_size();
    const uint32_t local = (uint32_t)__cvta_generic_to_shared(buf);
    /* load u's offset is the thread's t * W plus a constant (the buffer holds a whole number of the
     * block's W-byte rows), so the patterns with one target keep one address register and fold the
     * rest into the loads' immediates: eight per-load addresses made Blackwell's ptxas spill */
    static_assert((SMEM_DSM_BW_WORDS * 4) % (SMEM_DSM_BW_BLOCK * W) == 0, "whole rows per buffer");
    const uint32_t tw = threadIdx.x * W;
    uint32_t acc = 0, base[SMEM_DSM_BW_UNROLL];
    bool reads = true;

    for (uint32_t i = threadIdx.x; i < SMEM_DSM_BW_WORDS; i += blockDim.x)
        buf[i] = in[rank * SMEM_DSM_BW_WORDS + i];
#pragma unroll
    for (int u = 0; u < SMEM_DSM_BW_UNROLL; u++) {
        const int target = smem_dsm_bw_target(PATTERN, rank, size, (uint32_t)u);
        reads = target >= 0;
        base[u] = (PATH == SMEM_DSM_LOCAL ? local : smem_mapa(local, (uint32_t)(reads ? target : rank))) + tw;
    }
    smem_cluster_sync();   /* every buffer is filled before anyone reads it */
    smem_clock_mark(clk, false);
    const long long start = clock64();
    if constexpr (PATTERN == SMEM_DSM_BW_CHAIN) {
        /* one dependent chain: the next address is the low 24 bits of the first word loaded */
        const uint32_t chain = base[0] - tw;
        uint32_t j = smem_dsm_bw_offset(threadIdx.x, 0, W), first;
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int u = 0; u < SMEM_DSM_BW_UNROLL; u++) {
                acc += dsm_load<W, PATH>(chain + j, &first);
                j = first & SMEM_DSM_BW_OFFSET_MASK;
            }
        }
    } else {
        const int n = reads ? iters : 0;   /* the serving side of one-way and fan-in loads nothing */
        for (int i = 0; i < n; i++) {
#pragma unroll
            for (int u = 0; u < SMEM_DSM_BW_UNROLL; u++)
                acc += dsm_load<W, PATH>(base[u] + smem_dsm_bw_offset(0, (uint32_t)u, W), nullptr);
        }
    }
    smem_cluster_sync();   /* no block leaves while its buffer is still being read */
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x == 0) {
        /* the block's window, between the cluster's two barriers: its cluster's time, in its SM's clock */
        rec[2 * blockIdx.x] = smem_smid();
        rec[2 * blockIdx.x + 1] = (uint32_t)(clock64() - start);
    }
#else
    (void)in, (void)rec, (void)iters, (void)clk, (void)buf;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = SMEM_NOT_BUILT_MARK;
#endif
}

typedef void (*dsm_bandwidth_fn_t)(const uint32_t *, uint32_t *, uint32_t *, int, smem_clock *);

static dsm_bandwidth_fn_t pick(int width, int pattern)
{
#define PATTERNS(W)                                                                   \
    switch (pattern) {                                                                \
    case SMEM_DSM_LOCAL: return dsm_bandwidth_kernel<W, SMEM_DSM_LOCAL>;              \
    case SMEM_DSM_SELF: return dsm_bandwidth_kernel<W, SMEM_DSM_SELF>;                \
    case SMEM_DSM_REMOTE: return dsm_bandwidth_kernel<W, SMEM_DSM_REMOTE>;            \
    case SMEM_DSM_BW_ONEWAY: return dsm_bandwidth_kernel<W, SMEM_DSM_BW_ONEWAY>;      \
    case SMEM_DSM_BW_FANIN: return dsm_bandwidth_kernel<W, SMEM_DSM_BW_FANIN>;        \
    case SMEM_DSM_BW_CHAIN: return dsm_bandwidth_kernel<W, SMEM_DSM_BW_CHAIN>;        \
    }                                                                                 \
    return nullptr;
    switch (width) {
    case 4: PATTERNS(4)
    case 8: PATTERNS(8)
    case 16: PATTERNS(16)
    }
#undef PATTERNS
    return nullptr;
}

extern "C" const void *smem_dsm_bandwidth_fn(int width, int pattern)
{
    return (const void *)pick(width, pattern);
}

extern "C" int smem_dsm_bandwidth_launch(int width, int pattern, unsigned grid, unsigned cluster, size_t dyn_bytes,
                                         const uint32_t *in, uint32_t *out, uint32_t *rec, int iters,
                                         smem_clock *clk, void *stream)
{
    dsm_bandwidth_fn_t k = pick(width, pattern);

    if (!k)
        return (int)cudaErrorInvalidValue;
    return (int)smem_cluster_launch(k, grid, SMEM_DSM_BW_BLOCK, cluster, dyn_bytes, stream, in, out, rec, iters, clk);
}
