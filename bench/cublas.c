/* The reference line of the matrix-multiply benchmarks: cuBLAS SGEMM (fp32, default math mode, so
 * no TF32) on the same operands. Row-major C = A B is column-major C^T = B^T A^T, one call. */
#include "gemm.h"
#include "smem.h"

#if SMEM_HAVE_CUDA
#include <cublas_v2.h>
#endif

/* --quick: the teaching kernels' n (1024) and the pipelined SGEMM's (2048, bench/sgemm_family.c), so
 * both have their % of cuBLAS */
static const int64_t quick_ns[] = { 1024, 2048 };

static const struct smem_axis cublas_axes[] = { SMEM_GEMM_N_AXIS_QUICK(quick_ns) };

static int cublas_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                       size_t len)
{
    (void)pt, (void)dev, (void)why, (void)len;
    p->block = 0;   /* cuBLAS picks its own kernel */
    return SMEM_OK;
}

#if SMEM_HAVE_CUDA
static int cublas_setup(struct smem_case *c)
{
    struct smem_gemm *g;
    cublasHandle_t h;
    int rc = smem_gemm_setup(c);

    if (rc)
        return rc;
    g = c->priv;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        smem_fmt(c->reason, sizeof(c->reason), "cublasCreate failed");
        return SMEM_ECUDA;
    }
    g->cublas = h;
    if (cublasSetStream(h, (cudaStream_t)c->stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        smem_fmt(c->reason, sizeof(c->reason), "cannot configure the cuBLAS handle");
        return SMEM_ECUDA;
    }
    return SMEM_OK;
}

static int cublas_launch(struct smem_case *c)
{
    struct smem_gemm *g = c->priv;
    const float one = 1, zero = 0;
    cublasStatus_t st = cublasSgemm((cublasHandle_t)g->cublas, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &one,
                                    g->b, g->n, g->a, g->n, &zero, g->c, g->n);

    if (st != CUBLAS_STATUS_SUCCESS) {
        smem_fmt(c->reason, sizeof(c->reason), "cublasSgemm: %s", cublasGetStatusString(st));
        return SMEM_ECUDA;
    }
    return SMEM_CUDA_STATUS(cudaGetLastError());
}
#endif

const struct smem_bench smem_cublas_bench = {
    .name = "cublas",
    .summary = "cuBLAS SGEMM on the same operands: the reference line of matmul and matmul_rb",
    .axes = cublas_axes,
    .n_axes = SMEM_ARRAY_LEN(cublas_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_MEASURED(4.0, 4.0, 0.0),
    .predictable = true,    /* in predict mode a skipped point: a library call has no occupancy of ours */
    .plan = cublas_plan,
    .metrics = smem_gemm_metrics,
    SMEM_GPU_OPS(.setup = cublas_setup, .launch = cublas_launch, .verify = smem_gemm_verify,
                 SMEM_GEMM_STATE)
};
