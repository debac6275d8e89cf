/* Shared by the dynamic and static benchmarks: the streaming kernel of kernels/stream.cu, whose
 * shared allocation changes nothing but how many blocks fit on an SM. */
#ifndef SMEM_BENCH_STREAM_H
#define SMEM_BENCH_STREAM_H

#include "bench.h"
#include "common.h"
#include "stream_launch.h"

/* Default data streamed per launch: 256 MiB, several times any L2, so the kernel reads DRAM. */
#define SMEM_STREAM_MIB 256

/* Plan with alloc_bytes of shared memory, dynamic (variant 0) or static (variant 1), streaming mib MiB. */
void smem_stream_plan(size_t alloc_bytes, bool is_static, int64_t mib, const struct smem_device *dev,
                      struct smem_plan *p);

/* GB/s streamed, and the allocation. */
void smem_stream_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

#if SMEM_HAVE_CUDA
/* The family's GPU operations: random floats in, poisoned sums out; one launch of the dynamic or
 * static kernel (plan.variant); the check against the host's sums in the kernel's order. */
int smem_stream_setup(struct smem_case *c);
int smem_stream_launch(struct smem_case *c);
int smem_stream_verify(struct smem_case *c);
#endif

#endif
