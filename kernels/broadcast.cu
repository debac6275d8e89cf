/* The broadcast case of the bank model: all 32 lanes of a warp load the same shared word, one bank
 * and one distinct word per request, which the hardware serves in a single pass. The loads are
 * inline PTX marked volatile (the compiler can neither drop nor hoist them) and each unrolled load
 * steps by one 128-byte bank row, so every request hits bank 0 and nothing but the broadcast. */
#include <cstdint>

#include "broadcast_launch.h"
#include "clock.cuh"

__global__ void __launch_bounds__(SMEM_BROADCAST_BLOCK)
broadcast_kernel(const uint32_t *in, uint32_t *out, int iters, smem_clock *clk)
{
    __shared__ uint32_t buf[SMEM_BROADCAST_WORDS];

    for (int i = threadIdx.x; i < SMEM_BROADCAST_WORDS; i += blockDim.x)
        buf[i] = in[i];
    __syncthreads();
    smem_clock_mark(clk, false);

    /* the same address in every lane: no lane term, unlike the load family's l * stride */
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(buf);
    uint32_t acc = 0;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < SMEM_BROADCAST_UNROLL; j++) {
            uint32_t v;
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + j * SMEM_BROADCAST_ROW_WORDS * 4));
            acc += v;
        }
    }
    __syncthreads();
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" const void *smem_broadcast_fn(void)
{
    return (const void *)broadcast_kernel;
}

extern "C" int smem_broadcast_launch(unsigned grid, unsigned block, const uint32_t *in, uint32_t *out, int iters,
                                     smem_clock *clk, void *stream)
{
    broadcast_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(in, out, iters, clk);
    return (int)cudaGetLastError();
}
