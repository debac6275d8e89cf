/* Load-to-use latency of shared memory: one thread follows a random cycle whose slots hold the
 * shared-window address of the next slot, so each load's result is the next load's address with
 * no arithmetic in between. clock64 brackets only the chase; the loads are volatile PTX so none is
 * removed, and the unroll keeps the loop branch off the dependent path. */
#include <cstdint>

#include "clock.cuh"
#include "kernels.h"

__global__ void __launch_bounds__(32)
latency_kernel(const uint32_t *next, uint32_t steps, uint32_t *out, smem_clock *clk)
{
    __shared__ uint32_t slot[SMEM_LATENCY_SLOTS];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(slot);

    for (uint32_t i = threadIdx.x; i < SMEM_LATENCY_SLOTS; i += blockDim.x)
        slot[i] = base + 4 * next[i];
    __syncthreads();
    if (threadIdx.x != 0)
        return;

    uint32_t addr = base;
    smem_clock_mark(clk, false);
    for (uint32_t i = 0; i < steps; i += SMEM_LATENCY_UNROLL) {
#pragma unroll
        for (int j = 0; j < SMEM_LATENCY_UNROLL; j++)
            asm volatile("ld.shared.u32 %0, [%0];" : "+r"(addr));
    }
    smem_clock_mark(clk, true);
    out[0] = (addr - base) / 4;
}

extern "C" const void *smem_latency_fn(void)
{
    return (const void *)latency_kernel;
}

extern "C" int smem_latency_launch(const uint32_t *next, uint32_t steps, uint32_t *out, smem_clock *clk,
                                   void *stream)
{
    latency_kernel<<<1, 32, 0, (cudaStream_t)stream>>>(next, steps, out, clk);
    return (int)cudaGetLastError();
}
