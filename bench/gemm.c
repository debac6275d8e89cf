/* Operands, host reference and metrics of the matrix-multiply benchmarks. The reference checks a
 * sample of C in double precision (a full fp64 product of 4096^3 would take minutes on the host)
 * and every element for the NaN poison, so an unwritten or misplaced tile still fails. */
#include "gemm.h"

#include <math.h>
#include <stdlib.h>

#include "check.h"
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
    struct smem_gemm *g = c->priv;
    size_t n, bytes, free_b = 0, total_b = 0;
    int rc;

    g->n = (int)smem_axis_value(c, "n");
    n = (size_t)g->n * g->n;
    bytes = n * sizeof(float);
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && 3 * bytes + (64u << 20) > free_b) {
        smem_fmt(c->reason, sizeof(c->reason), "three %d x %d matrices need %zu MiB; the GPU has %zu MiB free", g->n,
                 g->n, 3 * bytes >> 20, free_b >> 20);
        return SMEM_ESKIP;
    }
    if ((rc = smem_gpu_random_floats(c->inputs, n, c->seed, &g->a, &g->h_a)) ||
        (rc = smem_gpu_random_floats(c->inputs, n, c->seed + 1, &g->b, &g->h_b)))
        goto fail;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&g->c, bytes));
    SMEM_CUDA_CHECK(cudaMemset(g->c, 0xff, bytes));
    if (!(g->h_c = smem_output_buffer(c->inputs, bytes, &g->h_c_kept))) {
        rc = SMEM_ENOMEM;
        goto fail;
    }
    return SMEM_OK;
fail:
    return rc;
}

struct gemm_check {
    const struct smem_gemm *g;
    size_t at[SAMPLES][2];      /* (i, j) of each sampled element */
};

/* Sampled elements begin..end against their fp64 dot products. A sample reads a column of B, a
 * cache miss per term (4096 of them): 512 samples of a 4096^3 product took ~0.2 s on one thread. */
static int check_samples(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct gemm_check *k = arg;
    const struct smem_gemm *g = k->g;
    size_t n = (size_t)g->n;

    for (size_t s = begin; s < end; s++) {
        size_t i = k->at[s][0], j = k->at[s][1];
        double ref = 0, mag = 0;
        for (size_t q = 0; q < n; q++) {
            double p = (double)g->h_a[i * n + q] * g->h_b[q * n + j];
            ref += p;
            mag += fabs(p);
        }
        /* fp32 accumulation of n products: |error| <= n eps sum|a b| in the worst case (Higham);
         * twice that bound, while a wrong index errs by the size of the sum itself */
        if (!smem_near(g->h_c[i * n + j], ref, 2.0 * (double)n * 0x1p-24 * mag + 1e-30, 0))
            return smem_mismatch_f64(why, why_len, "C", n, i * n + j, g->h_c[i * n + j], ref);
    }
    return SMEM_OK;
}

int smem_gemm_verify(struct smem_case *c)
{
    struct smem_gemm *g = c->priv;
    size_t n = (size_t)g->n;
    uint64_t state = c->seed ^ 0x5eed;
    struct gemm_check *k;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(g->h_c, g->c, n * n * sizeof(float), cudaMemcpyDeviceToHost));
    if ((rc = smem_check_f32_written(c->reason, sizeof(c->reason), "C", n, g->h_c, n * n)))
        return rc;
    if (!(k = malloc(sizeof(*k))))
        return SMEM_ENOMEM;
    k->g = g;
    for (int s = 0; s < SAMPLES; s++) {
        /* the four corners, then random elements, drawn in order so every run checks the same ones */
        k->at[s][0] = s < 4 ? (s & 1) * (n - 1) : smem_rng_next(&state) % n;
        k->at[s][1] = s < 4 ? (s >> 1) * (n - 1) : smem_rng_next(&state) % n;
    }
    /* the first failing sample's reason, in sample order, whichever thread finds it */
    rc = smem_parallel_for(SAMPLES, check_samples, k, c->reason, sizeof(c->reason));
    free(k);
    return rc;
fail:
    return rc;
}

void smem_gemm_teardown(struct smem_case *c)
{
    struct smem_gemm *g = c->priv;

    if (g->cublas)
        cublasDestroy((cublasHandle_t)g->cublas);
    smem_gpu_input_release(c->inputs, g->a, g->h_a);
    smem_gpu_input_release(c->inputs, g->b, g->h_b);
    cudaFree(g->c);
    smem_output_buffer_release(c->inputs, g->h_c, g->h_c_kept);
    free(g->maps);
}

#endif
