/* Shared by the matrix-multiply benchmarks (matmul, matmul_rb, cublas): the n axis, square fp32
 * operands with seeded random values, C poisoned with NaN before each verification, GFLOP/s against
 * the fp32 peak, and the cuBLAS baseline. */
#ifndef SMEM_BENCH_GEMM_H
#define SMEM_BENCH_GEMM_H

#include <stdint.h>

#include "bench.h"
#include "common.h"
#include "smem.h"
#include "swizzle_launch.h"

/* The matrix edge: C = A B, all n x n fp32. */
extern const int64_t smem_gemm_sizes[3], smem_gemm_sizes_quick[1];
#define SMEM_GEMM_N_AXIS SMEM_GEMM_N_AXIS_QUICK(smem_gemm_sizes_quick)
/* The same axis with another --quick list (an array). */
#define SMEM_GEMM_N_AXIS_QUICK(q)                                                                          \
    { .name = "n", .unit = "elements", .help = "matrix edge (C = A B, all n x n fp32)",                    \
      .defaults = smem_gemm_sizes, .n_defaults = SMEM_ARRAY_LEN(smem_gemm_sizes), .quick = q,              \
      .n_quick = SMEM_ARRAY_LEN(q), .min = 16, .max = 32768 }

/* GFLOP/s as a percentage of cuBLAS SGEMM's at the same n: pct_of_cublas. */
extern const struct smem_baseline smem_vs_cublas;

/* FP32 lanes per SM (FMA per clock) of a compute capability: the GFLOP/s ceiling's factor. */
int smem_fp32_lanes_per_sm(int cc_major, int cc_minor);

/* GFLOP/s of a case's n x n product against the fp32 peak at the measured clock. */
void smem_gemm_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

#if SMEM_HAVE_CUDA
/* The matrices of one case. */
struct smem_gemm {
    int n;
    float *a, *b, *c, *h_a, *h_b, *h_c;
    bool h_c_kept;          /* h_c is smem_output_buffer's kept, page-locked buffer */
    void *cublas;
    struct smem_tensor_map *maps;   /* sgemm_tma: the tensor maps of A and B (two), or NULL */
};

/* Fills c->priv, a struct smem_gemm (SMEM_GEMM_STATE), for the case's n; SMEM_ESKIP when the
 * matrices do not fit. */
int smem_gemm_setup(struct smem_case *c);

/* Checks C against the fp64 host reference on sampled elements, and every element for the poison. */
int smem_gemm_verify(struct smem_case *c);

/* Gives back the buffers of c->priv's struct smem_gemm (and its cuBLAS handle), however far setup got. */
void smem_gemm_teardown(struct smem_case *c);

/* The private state and teardown of a descriptor whose setup is (or begins with) smem_gemm_setup's,
 * inside its SMEM_GPU_OPS. */
#define SMEM_GEMM_STATE .priv_size = sizeof(struct smem_gemm), .teardown = smem_gemm_teardown
#endif

#endif
