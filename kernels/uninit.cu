/* Shared memory is not cleared between kernels: whatever the previous kernel's blocks left in the
 * SM's shared memory is what a new block finds there until it writes. fill marks every word of its
 * allocation (0xC0DE in the high half); peek, launched next with the same allocation, reads its
 * allocation before writing anything, dumps it, and counts the words that still carry the mark.
 * Both go through volatile pointers: a store nobody reads and a load of memory nobody wrote are
 * otherwise the compiler's to drop. peek counts with warp shuffles and global atomics, since shared
 * memory is the thing under observation. */
#include <cstdint>

#include "clock.cuh"
#include "uninit_launch.h"

__global__ void uninit_fill_kernel(uint32_t words)
{
    extern __shared__ uint32_t s[];
    volatile uint32_t *vs = s;

    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        vs[i] = SMEM_UNINIT_MARK << 16 | (i & 0xffff);
    __syncthreads();
}

__global__ void uninit_peek_kernel(uint32_t words, uint32_t *dump, uint32_t *stale, smem_clock *clk)
{
    extern __shared__ uint32_t s[];
    volatile uint32_t *vs = s;
    uint32_t n = 0;

    smem_clock_mark(clk, false);
    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
        uint32_t v = vs[i];
        dump[(size_t)blockIdx.x * words + i] = v;
        n += (v >> 16) == SMEM_UNINIT_MARK;
    }
    for (int off = 16; off > 0; off /= 2)
        n += __shfl_down_sync(0xffffffffu, n, off);
    if (threadIdx.x % 32 == 0)
        atomicAdd(&stale[blockIdx.x], n);
    smem_clock_mark(clk, true);
}

extern "C" const void *smem_uninit_fill_fn(void)
{
    return (const void *)uninit_fill_kernel;
}

extern "C" const void *smem_uninit_peek_fn(void)
{
    return (const void *)uninit_peek_kernel;
}

extern "C" int smem_uninit_launch(unsigned grid, size_t bytes, uint32_t *dump, uint32_t *stale, smem_clock *clk,
                                  void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    uint32_t words = (uint32_t)(bytes / 4);
    cudaError_t e = cudaMemsetAsync(stale, 0, grid * sizeof(uint32_t), s);

    if (e != cudaSuccess)
        return (int)e;
    uninit_fill_kernel<<<grid, SMEM_UNINIT_BLOCK, bytes, s>>>(words);
    uninit_peek_kernel<<<grid, SMEM_UNINIT_BLOCK, bytes, s>>>(words, dump, stale, clk);
    return (int)cudaGetLastError();
}
