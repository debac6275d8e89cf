/* cp.async (cc 8.0) as the staging sweep and the SGEMM use it: one thread's asynchronous copy of 4,
 * 8 or 16 bytes from global to shared memory, and the wait for its commit groups. */
#ifndef SMEM_KERNELS_CP_ASYNC_CUH
#define SMEM_KERNELS_CP_ASYNC_CUH

#include <cstdint>

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800   /* and the host pass, which only parses them */
/* 16-byte copies bypass L1 (.cg, the only size it takes); 4 and 8 can only use .ca */
template <int W> __device__ __forceinline__ void smem_cp_async(uint32_t dst, const void *src)
{
    if constexpr (W == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(W) : "memory");
}

/* Ends this thread's current commit group. */
__device__ __forceinline__ void smem_cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* wait_group takes an immediate: at most `pending` (0-7) of this thread's groups may still be in
 * flight when it returns */
__device__ __forceinline__ void smem_cp_async_wait(int pending)
{
    switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
    }
}
#endif

#endif
