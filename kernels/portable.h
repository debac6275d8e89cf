/* What lets one source serve every architecture: SMEM_HOST_DEVICE compiles a helper that a kernel
 * and its host reference share for both sides, and SMEM_NOT_BUILT_MARK is what a kernel's fallback
 * body (compiled for an architecture older than the feature it measures) writes instead of a
 * result. The driver skips such a point before launching it (the descriptor's min_cc against the
 * kernel's ptxVersion), so the mark only guarantees that a fallback never passes verification. */
#ifndef SMEM_PORTABLE_H
#define SMEM_PORTABLE_H

#ifndef SMEM_HOST_DEVICE
#ifdef __CUDACC__
#define SMEM_HOST_DEVICE __host__ __device__
#else
#define SMEM_HOST_DEVICE
#endif
#endif

#define SMEM_NOT_BUILT_MARK 0x0B5E0900u

#endif
