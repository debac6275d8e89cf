/* Load-to-use latency of shared memory: one thread follows a random cycle through the slots.
 * ADDR: each slot holds the shared-window address of the next slot, so a load's result is the next
 * load's address with nothing in between: the latency of the load alone. Index: each slot holds
 * the next slot's index and the chase is `j = s[j]` as ordinary code writes it, so the address
 * arithmetic (a shift and an add) sits on the dependent path too. clock64 brackets only the
 * chase; the loads are volatile so none is removed, and the unroll keeps the loop branch off the
 * dependent path. */
#include <cstdint>

#include "clock.cuh"
#include "latency_launch.h"

template <bool ADDR>
__global__ void __launch_bounds__(32)
latency_kernel(const uint32_t *next, uint32_t steps, uint32_t *out, smem_clock *clk)
{
    __shared__ uint32_t slot[SMEM_LATENCY_SLOTS];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(slot);

    for (uint32_t i = threadIdx.x; i < SMEM_LATENCY_SLOTS; i += blockDim.x)
        slot[i] = ADDR ? base + 4 * next[i] : next[i];
    __syncthreads();
    if (threadIdx.x != 0)
        return;

    uint32_t j = ADDR ? base : 0;
    volatile uint32_t *vs = slot;
    smem_clock_mark(clk, false);
    for (uint32_t i = 0; i < steps; i += SMEM_LATENCY_UNROLL) {
#pragma unroll
        for (int u = 0; u < SMEM_LATENCY_UNROLL; u++) {
            if (ADDR)
                asm volatile("ld.volatile.shared.u32 %0, [%0];" : "+r"(j));
            else
                j = vs[j];
        }
    }
    smem_clock_mark(clk, true);
    out[0] = ADDR ? (j - base) / 4 : j;
}

extern "C" const void *smem_latency_fn(int index_chase)
{
    return index_chase ? (const void *)latency_kernel<false> : (const void *)latency_kernel<true>;
}

extern "C" int smem_latency_launch(int index_chase, const uint32_t *next, uint32_t steps, uint32_t *out,
                                   smem_clock *clk, void *stream)
{
    if (index_chase)
        latency_kernel<false><<<1, 32, 0, (cudaStream_t)stream>>>(next, steps, out, clk);
    else
        latency_kernel<true><<<1, 32, 0, (cudaStream_t)stream>>>(next, steps, out, clk);
    return (int)cudaGetLastError();
}
