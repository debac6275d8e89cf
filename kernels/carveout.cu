/* The two sides of the L1/shared carveout. footprint: each block stages one tile of global memory
 * in its shared allocation and writes it back combined with the tile reversed, so its speed comes
 * from how many tiles (blocks) an SM holds at once, i.e. from the carveout. gather: random reads
 * from a table a few hundred KiB at most, no shared memory, so its speed comes from how much of the
 * table L1 holds, i.e. from what the carveout leaves to L1. */
#include <cstdint>

#include "arch_limits.cuh"
#include "clock.cuh"
#include "hash.h"
#include "kernels.h"

/* Registers capped so that all but one of the SM's 256-thread slots can be resident (7 blocks on
 * 2048-thread SMs, 5 on 1536, 3 on 1024): shared memory, not registers, limits. */
__global__ void __launch_bounds__(SMEM_FOOTPRINT_BLOCK, SMEM_ARCH_BLOCKS_BELOW_FULL(SMEM_FOOTPRINT_BLOCK))
footprint_kernel(const float *in, float *out, uint32_t tile_len, smem_clock *clk)
{
    extern __shared__ float tile[];
    const size_t base = (size_t)blockIdx.x * tile_len;

    smem_clock_mark(clk, false);
    for (uint32_t i = threadIdx.x; i < tile_len; i += blockDim.x)
        tile[i] = in[base + i];
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < tile_len; i += blockDim.x)
        out[base + i] = tile[i] + 2.0f * tile[tile_len - 1 - i];
    smem_clock_mark(clk, true);
}

__global__ void __launch_bounds__(SMEM_GATHER_BLOCK)
gather_kernel(const float *__restrict__ table, uint32_t table_len, uint32_t gathers, float *out,
              smem_clock *clk)
{
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[SMEM_GATHER_UNROLL] = { 0 };

    smem_clock_mark(clk, false);
    for (uint32_t g = 0; g < gathers; g += SMEM_GATHER_UNROLL) {
#pragma unroll
        for (int u = 0; u < SMEM_GATHER_UNROLL; u++) {
            acc[u] += __ldg(&table[smem_gather_index(tid, g + u, gathers, table_len)]);
        }
    }
    float sum = 0;
#pragma unroll
    for (int u = 0; u < SMEM_GATHER_UNROLL; u++)
        sum += acc[u];
    out[tid] = sum;
    smem_clock_mark(clk, true);
}

extern "C" const void *smem_footprint_fn(void)
{
    return (const void *)footprint_kernel;
}

extern "C" int smem_footprint_launch(unsigned grid, size_t tile_bytes, const float *in, float *out,
                                     smem_clock *clk, void *stream)
{
    footprint_kernel<<<grid, SMEM_FOOTPRINT_BLOCK, tile_bytes, (cudaStream_t)stream>>>(
        in, out, (uint32_t)(tile_bytes / sizeof(float)), clk);
    return (int)cudaGetLastError();
}

extern "C" const void *smem_gather_fn(void)
{
    return (const void *)gather_kernel;
}

extern "C" int smem_gather_launch(unsigned grid, const float *table, uint32_t table_len, uint32_t gathers,
                                  float *out, smem_clock *clk, void *stream)
{
    gather_kernel<<<grid, SMEM_GATHER_BLOCK, 0, (cudaStream_t)stream>>>(table, table_len, gathers, out, clk);
    return (int)cudaGetLastError();
}
