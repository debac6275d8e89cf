/* The transpose family (kernels/transpose.cu), shared by transpose and transpose_naive: an n x n
 * fp32 matrix of mib MiB (n a multiple of 32), its plan, host reference and GPU operations, and GB/s
 * (bytes read + written) against the copy baseline. */
#ifndef SMEM_BENCH_TRANSPOSE_FAMILY_H
#define SMEM_BENCH_TRANSPOSE_FAMILY_H

#include <stdint.h>

#include "bench.h"
#include "common.h"
#include "smem.h"
#include "transpose.h"

/* The matrix size axis. */
extern const int64_t smem_transpose_mibs[2], smem_transpose_mibs_quick[1];
#define SMEM_TRANSPOSE_MIB_AXIS                                                                            \
    { .name = "mib", .unit = "MiB", .help = "matrix size (a square of 1, 4, 16, 64, 256 or 1024 MiB)",     \
      .defaults = smem_transpose_mibs, .n_defaults = SMEM_ARRAY_LEN(smem_transpose_mibs),                  \
      .quick = smem_transpose_mibs_quick, .n_quick = SMEM_ARRAY_LEN(smem_transpose_mibs_quick), .min = 1,  \
      .max = 4096 }

/* The edge of a square fp32 matrix of mib MiB, or 0 when there is none that is a multiple of 32. */
int smem_transpose_edge(int64_t mib);

/* The plan of a point's mib axis with kernel variant (SMEM_TRANSPOSE_*); plan.work is the edge. */
int smem_transpose_plan(const struct smem_point *pt, int variant, struct smem_plan *p, char *why, size_t why_len);

/* GB/s, bytes read plus bytes written. */
void smem_transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

#if SMEM_HAVE_CUDA
/* The family's GPU operations: the kernel of the plan's variant, a random matrix in and a poisoned
 * one out, one launch, and the exact check of every element. */
const void *smem_transpose_kernel(const struct smem_case *c);
int smem_transpose_setup(struct smem_case *c);
int smem_transpose_run(struct smem_case *c);
int smem_transpose_verify(struct smem_case *c);
#endif

#endif
