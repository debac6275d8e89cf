/* Shared by transpose and transpose_naive: an n x n fp32 matrix of mib MiB (n a multiple of 32). */
#ifndef SMEM_BENCH_TRANSPOSE_H
#define SMEM_BENCH_TRANSPOSE_H

#include "bench.h"
#include "transpose.h"

#if SMEM_HAVE_CUDA
#include "common.h"   /* smem_io_teardown */
#endif

/* The edge of a square fp32 matrix of mib MiB, or 0 when there is none that is a multiple of 32. */
int smem_transpose_edge(int64_t mib);

int smem_transpose_plan(int64_t mib, int variant, struct smem_plan *p, char *why, size_t why_len);
void smem_transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);
extern const struct smem_baseline smem_vs_copy;

#if SMEM_HAVE_CUDA
const void *smem_transpose_kernel(const struct smem_plan *p);
int smem_transpose_setup(struct smem_case *c);
int smem_transpose_run(struct smem_case *c);
int smem_transpose_verify(struct smem_case *c);
#endif

#endif
