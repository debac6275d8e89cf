/* Operands, host reference and metrics of the matrix-multiply benchmarks. The reference checks a
 * sample of C in double precision (a full fp64 product of 4096^3 would take minutes on the host)
 * and every element for the NaN poison, so an unwritten or misplaced tile still fails. */
#include "gemm.h"

#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "smem.h"

#if SMEM_HAVE_CUDA
#include <cublas_v2.h>
#endif

#define SAMPLES 512

const int64_t smem_gemm_sizes[3] = { 1024, 2048, 4096 };
const int64_t smem_gemm_sizes_quick[1] = { 1024 };

const struct smem_baseline smem_vs_cublas = {
    .bench = "cublas", .metric = "gflops", .derived = "pct_of_cublas", .unit = "%", .this_over_baseline = true,
    .scale = 100, .better = SMEM_HIGHER_IS_BETTER,
};

int smem_fp32_lanes_per_sm(int cc_major, int cc_minor)
{
    if (cc_major == 8 && cc_minor == 0)
        return 64;
    return cc_major >= 8 ? 128 : 64;
}

void smem_gemm_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double n = (double)smem_axis_value(c, "n"), flops = 2 * n * n * n;
    double peak = t->clock_hz > 0 ? 2.0 * smem_fp32_lanes_per_sm(c->dev->cc_major, c->dev->cc_minor) *
                                        c->dev->sm_count * t->clock_hz / 1e9
                                  : 0;

    smem_metrics_add(m, "gflops", "GFLOP/s", flops / t->seconds / 1e9, peak, SMEM_HIGHER_IS_BETTER);
    if (peak > 0)
        smem_metrics_add(m, "pct_of_fp32_peak", "%", 100 * flops / t->seconds / 1e9 / peak, 100, SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

int smem_gemm_setup(struct smem_case *c)
{
    struct smem_gemm *g = calloc(1, sizeof(*g));
    size_t n, bytes, free_b = 0, total_b = 0;
    int rc;

    if (!(c->priv = g))
        return SMEM_ENOMEM;
    g->n = (int)smem_axis_value(c, "n");
    n = (size_t)g->n * g->n;
    bytes = n * sizeof(float);
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && 3 * bytes + (64u << 20) > free_b) {
        smem_fmt(c->reason, sizeof(c->reason), "three %d x %d matrices need %zu MiB; the GPU has %zu MiB free", g->n,
                 g->n, 3 * bytes >> 20, free_b >> 20);
        return SMEM_ESKIP;
    }
    if ((rc = smem_gpu_random_floats(n, c->seed, &g->a, &g->h_a)) ||
        (rc = smem_gpu_random_floats(n, c->seed + 1, &g->b, &g->h_b)))
        goto fail;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&g->c, bytes));
    SMEM_CUDA_CHECK(cudaMemset(g->c, 0xff, bytes));
    if (!(g->h_c = malloc(bytes))) {
        rc = SMEM_ENOMEM;
        goto fail;
    }
    return SMEM_OK;
fail:
    return rc;
}

int smem_gemm_verify(struct smem_case *c)
{
    struct smem_gemm *g = c->priv;
    size_t n = (size_t)g->n;
    uint64_t state = c->seed ^ 0x5eed;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(g->h_c, g->c, n * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n * n; i++)
        if (isnan(g->h_c[i])) {
            smem_fmt(c->reason, sizeof(c->reason), "C[%zu][%zu] was never written", i / n, i % n);
            return SMEM_EVERIFY;
        }
    for (int s = 0; s < SAMPLES; s++) {
        /* the four corners, then random elements */
        size_t i = s < 4 ? (s & 1) * (n - 1) : smem_rng_next(&state) % n;
        size_t j = s < 4 ? (s >> 1) * (n - 1) : smem_rng_next(&state) % n;
        double ref = 0, mag = 0;
        for (size_t k = 0; k < n; k++) {
            double p = (double)g->h_a[i * n + k] * g->h_b[k * n + j];
            ref += p;
            mag += fabs(p);
        }
        /* fp32 accumulation of n products: |error| <= n eps sum|a b| in the worst case (Higham);
         * twice that bound, while a wrong index errs by the size of the sum itself */
        if (fabs(g->h_c[i * n + j] - ref) > 2.0 * (double)n * 0x1p-24 * mag + 1e-30) {
            smem_fmt(c->reason, sizeof(c->reason), "C[%zu][%zu] = %.7g, the fp64 reference %.7g", i, j,
                     (double)g->h_c[i * n + j], ref);
            return SMEM_EVERIFY;
        }
    }
    return SMEM_OK;
fail:
    return rc;
}

void smem_gemm_teardown(struct smem_case *c)
{
    struct smem_gemm *g = c->priv;

    if (!g)
        return;
    if (g->cublas)
        cublasDestroy((cublasHandle_t)g->cublas);
    smem_gpu_input_release(g->a, g->h_a);
    smem_gpu_input_release(g->b, g->h_b);
    cudaFree(g->c);
    free(g->h_c);
    free(g->maps);
    free(g);
    c->priv = NULL;
}

#endif
