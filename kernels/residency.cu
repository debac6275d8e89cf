/* Residency probe: launched with the benchmark kernel's block size, shared-memory footprint and
 * carveout, each block records the SM it ran on and when it started and ended, spinning long
 * enough that every block the SM can hold at once overlaps; the host counts the overlap. */
#include <cstdint>

#include "clock.cuh"
#include "kernels.h"

__global__ void residency_kernel(unsigned long long spin_ns, uint32_t *smid, unsigned long long *start,
                                 unsigned long long *end)
{
    extern __shared__ uint32_t footprint[];

    if (threadIdx.x != 0)
        return;
    unsigned long long t0 = smem_globaltimer(), t = t0;
    while (t - t0 < spin_ns)
        t = smem_globaltimer();
    smid[blockIdx.x] = smem_smid();
    start[blockIdx.x] = t0;
    end[blockIdx.x] = t;
    (void)footprint;
}

extern "C" const void *smem_residency_fn(void)
{
    return (const void *)residency_kernel;
}

extern "C" int smem_residency_launch(unsigned grid, unsigned block, size_t dyn_bytes, unsigned long long spin_ns,
                                     uint32_t *smid, unsigned long long *start, unsigned long long *end,
                                     void *stream)
{
    residency_kernel<<<grid, block, dyn_bytes, (cudaStream_t)stream>>>(spin_ns, smid, start, end);
    return (int)cudaGetLastError();
}
