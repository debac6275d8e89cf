/* The mbarrier wait that bulk copies complete on (cc 9.0): the staging sweep's cp.async.bulk and the
 * swizzle sweep's TMA tensor copies land their tiles on one and wait on its phase parity. */
#ifndef SMEM_KERNELS_MBARRIER_CUH
#define SMEM_KERNELS_MBARRIER_CUH

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* Spins until the mbarrier at shared address bar has completed the phase of that parity. */
__device__ __forceinline__ void smem_mbarrier_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;

    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
}
#endif

#endif
