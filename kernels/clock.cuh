/* Clock marks for the SM clock: thread (0,0,0) of block (0,0,0) reads clock64 and %globaltimer at
 * a kernel's start and end; cycles over nanoseconds is the clock the kernel really ran at. Exactly
 * one thread of the grid, in every dimension: clock64 is per SM, so marks from two blocks would
 * mix two counters. */
#ifndef SMEM_CLOCK_CUH
#define SMEM_CLOCK_CUH

#include "clock_launch.h"

__device__ __forceinline__ unsigned long long smem_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned smem_smid(void)
{
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

__device__ __forceinline__ void smem_clock_mark(struct smem_clock *clk, bool end)
{
    if (!clk || (blockIdx.x | blockIdx.y | blockIdx.z | threadIdx.x | threadIdx.y | threadIdx.z) != 0)
        return;
    /* the timer first at the start and last at the end, so the cycles are inside the window */
    if (!end) {
        clk->ns0 = smem_globaltimer();
        clk->cycles0 = clock64();
    } else {
        clk->cycles1 = clock64();
        clk->ns1 = smem_globaltimer();
    }
}

#endif
