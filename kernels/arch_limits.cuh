/* Per-architecture limits as compile-time constants, for launch bounds: every -gencode compiles the
 * kernels once with its own __CUDA_ARCH__, so a bound derived from these fits the architecture it
 * is compiled for (a bound asking for more threads per SM than the SM holds is a ptxas error under
 * -Werror). The values restate max_threads_per_sm of core/arch.c (CUDA C++ Programming Guide,
 * Table 27; for 8.8, 10.3, 11.0 and 12.1 also what ptxas accepts), and tests/unit/test_arch.c
 * holds the two together. Only the minimum-blocks argument of __launch_bounds__ may depend on
 * these: the host pass sees no __CUDA_ARCH__, and the threads-per-block argument must be the same
 * in both passes. Plain preprocessor, so the unit test can include it from C. */
#ifndef SMEM_ARCH_LIMITS_CUH
#define SMEM_ARCH_LIMITS_CUH

/* Resident threads per SM of __CUDA_ARCH__ value a (750 = 7.5): 1024 on 7.5; 1536 on 8.6, 8.7,
 * 8.8, 8.9, 11.0 and 12.x (PTX of the newest carries this to later parts, where a minimum the JIT
 * finds too high is only a warning); 2048 on 8.0, 9.0, 10.0 and 10.3. */
#define SMEM_ARCH_THREADS_PER_SM_OF(a) \
    ((a) == 750 ? 1024 : (((a) >= 860 && (a) < 900) || (a) == 1100 || (a) >= 1200) ? 1536 : 2048)

#ifdef __CUDA_ARCH__
#define SMEM_ARCH_MAX_THREADS_PER_SM SMEM_ARCH_THREADS_PER_SM_OF(__CUDA_ARCH__)
#else
/* the host pass never reaches ptxas */
#define SMEM_ARCH_MAX_THREADS_PER_SM 2048
#endif

/* Blocks of `threads` threads that fill one SM's thread slots less one: the residency a kernel
 * sized by shared memory should reach without registers getting in the way. */
#define SMEM_ARCH_BLOCKS_BELOW_FULL(threads) (SMEM_ARCH_MAX_THREADS_PER_SM / (threads) - 1)

#endif
