/* Shared-memory atomics under contention: the lanes of a warp request in groups of `lanes` that add
 * to one counter each, the groups' counters consecutive words (distinct banks), so the only conflict
 * is the same address, and the number of lanes behind one address is the axis. The adds are volatile
 * inline PTX (red: no value returned; atom: the old value, kept live through a runtime-false store)
 * that the compiler can neither merge, reorder nor drop. */
#include <cstdint>

#include "atomics_launch.h"
#include "clock.cuh"

template <int OP>
__global__ void __launch_bounds__(SMEM_ATOMICS_BLOCK)
atomics_kernel(int lanes, int iters, uint32_t *out, smem_clock *clk)
{
    __shared__ uint32_t counter[SMEM_ATOMICS_COUNTERS];
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(counter);
    uint32_t addr[SMEM_ATOMICS_UNROLL], acc = 0;

    for (uint32_t i = threadIdx.x; i < SMEM_ATOMICS_COUNTERS; i += blockDim.x)
        counter[i] = 0;
#pragma unroll
    for (int u = 0; u < SMEM_ATOMICS_UNROLL; u++)
        addr[u] = base + 4 * ((32 * (warp + u) + lane / lanes) % SMEM_ATOMICS_COUNTERS);
    __syncthreads();   /* every counter is zero before anyone adds */
    smem_clock_mark(clk, false);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < SMEM_ATOMICS_UNROLL; u++) {
            if (OP == SMEM_ATOMICS_RED) {
                asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr[u]) : "memory");
            } else {
                uint32_t old;
                asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(addr[u]) : "memory");
                acc ^= old;
            }
        }
    }
    __syncthreads();   /* every add has landed */
    smem_clock_mark(clk, true);
    for (uint32_t i = threadIdx.x; i < SMEM_ATOMICS_COUNTERS; i += blockDim.x)
        out[blockIdx.x * SMEM_ATOMICS_COUNTERS + i] = counter[i];
    if (iters < 0)   /* never: keeps atom's results live without a store per thread */
        out[0] = acc;
}

typedef void (*atomics_fn_t)(int, int, uint32_t *, smem_clock *);

static atomics_fn_t pick(int op)
{
    return op == SMEM_ATOMICS_ATOM ? atomics_kernel<SMEM_ATOMICS_ATOM> : atomics_kernel<SMEM_ATOMICS_RED>;
}

extern "C" const void *smem_atomics_fn(int op)
{
    return (const void *)pick(op);
}

extern "C" int smem_atomics_launch(int op, unsigned grid, unsigned block, int lanes, int iters, uint32_t *out,
                                   smem_clock *clk, void *stream)
{
    pick(op)<<<grid, block, 0, (cudaStream_t)stream>>>(lanes, iters, out, clk);
    return (int)cudaGetLastError();
}
