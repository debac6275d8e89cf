/* The L1 side of the L1/shared carveout: random reads from a table a few hundred KiB at most, no
 * shared memory, so its speed comes from how much of the table L1 holds, i.e. from what the
 * carveout leaves to L1 (footprint.cu is the shared-memory side). Each thread keeps
 * SMEM_GATHER_UNROLL independent gathers in flight. */
#include <cstdint>

#include "clock.cuh"
#include "gather_launch.h"

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
