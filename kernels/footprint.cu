/* The shared-memory side of the L1/shared carveout: each block stages one tile of global memory in
 * its shared allocation and writes it back combined with the tile reversed, so its speed comes from
 * how many tiles (blocks) an SM holds at once, i.e. from the carveout (gather.cu is the L1 side). */
#include <cstdint>

#include "arch_limits.cuh"
#include "clock.cuh"
#include "footprint_launch.h"

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
