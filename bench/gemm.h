/* Shared by the matrix-multiply benchmarks (matmul, matmul_rb, cublas): square fp32 operands with
 * seeded random values, C poisoned with NaN before each verification, GFLOP/s against the fp32 peak. */
#ifndef SMEM_BENCH_GEMM_H
#define SMEM_BENCH_GEMM_H

#include "bench.h"

/* FP32 lanes per SM (FMA per clock) of a compute capability: the GFLOP/s ceiling's factor. */
int smem_fp32_lanes_per_sm(int cc_major, int cc_minor);

void smem_gemm_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

#if SMEM_HAVE_CUDA
/* The matrices; n is the point's first axis. */
struct smem_gemm {
    int n;
    float *a, *b, *c, *h_a, *h_b, *h_c;
    void *cublas;
};
int smem_gemm_setup(struct smem_case *c);
int smem_gemm_verify(struct smem_case *c);
void smem_gemm_teardown(struct smem_case *c);
#endif

#endif
