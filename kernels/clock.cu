/* A clock probe for kernels that cannot carry their own marks: one thread spins for spin_ns of
 * %globaltimer and records the cycles that passed. */
#include "clock.cuh"
#include "clock_launch.h"

__global__ void clock_kernel(unsigned long long spin_ns, smem_clock *clk)
{
    smem_clock_mark(clk, false);
    unsigned long long t0 = smem_globaltimer();
    while (smem_globaltimer() - t0 < spin_ns)
        ;
    smem_clock_mark(clk, true);
}

extern "C" int smem_clock_launch(unsigned long long spin_ns, smem_clock *clk, void *stream)
{
    clock_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(spin_ns, clk);
    return (int)cudaGetLastError();
}
