/* Global memory read bandwidth, the ceiling any global -> shared staging is held against. Each
 * thread keeps SMEM_GLOBAL_READ_UNROLL independent 16-byte loads in flight (grid-strided, so every
 * warp reads 512 contiguous bytes per load) and the sum of what it read is written out, so no load
 * can be dropped; nothing touches shared memory. */
#include <cstdint>

#include "clock.cuh"
#include "global_read_launch.h"

__device__ __forceinline__ uint32_t words(uint4 v)
{
    return v.x + v.y + v.z + v.w;
}

__global__ void __launch_bounds__(SMEM_GLOBAL_READ_BLOCK)
global_read_kernel(const uint4 *__restrict__ in, size_t n16, uint32_t *out, smem_clock *clk)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t acc = 0;

    smem_clock_mark(clk, false);
    for (; i + (SMEM_GLOBAL_READ_UNROLL - 1) * stride < n16; i += SMEM_GLOBAL_READ_UNROLL * stride) {
        uint4 v[SMEM_GLOBAL_READ_UNROLL];
#pragma unroll
        for (int u = 0; u < SMEM_GLOBAL_READ_UNROLL; u++)
            v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < SMEM_GLOBAL_READ_UNROLL; u++)
            acc += words(v[u]);
    }
    for (; i < n16; i += stride)
        acc += words(in[i]);
    smem_clock_mark(clk, true);
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" const void *smem_global_read_fn(void)
{
    return (const void *)global_read_kernel;
}

extern "C" int smem_global_read_launch(unsigned grid, const uint32_t *in, size_t n16, uint32_t *out, smem_clock *clk,
                                       void *stream)
{
    global_read_kernel<<<grid, SMEM_GLOBAL_READ_BLOCK, 0, (cudaStream_t)stream>>>((const uint4 *)in, n16, out, clk);
    return (int)cudaGetLastError();
}
