/* Shared memory as a channel: the sum of mib MiB of floats, the block's partial sums combined by
 * a __syncthreads() tree (method 0), warp shuffles with one shared slot per warp (1), or shared
 * atomics (2). GB/s read against a device-to-device copy of the same bytes (pct_of_copy). */
#include <math.h>
#include <stdlib.h>

#include "bench.h"
#include "check.h"
#include "common.h"
#include "reduction_launch.h"
#include "smem.h"

static const int64_t mibs[] = { 256 };
static const int64_t quick_mibs[] = { 64 };
static const int64_t methods[] = { SMEM_REDUCE_TREE, SMEM_REDUCE_SHUFFLE, SMEM_REDUCE_ATOMIC };

static const struct smem_axis reduction_axes[] = {
    { .name = "mib", .unit = "MiB", .help = "floats summed", .defaults = mibs, .n_defaults = SMEM_ARRAY_LEN(mibs),
      .quick = quick_mibs, .n_quick = SMEM_ARRAY_LEN(quick_mibs), .min = 1, .max = 16384 },
    { .name = "method", .unit = "code", .help = "0: shared tree with __syncthreads; 1: warp shuffles; 2: shared atomics",
      .defaults = methods, .n_defaults = SMEM_ARRAY_LEN(methods), .min = 0, .max = 2, .defaults_only = true },
};

static int reduction_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    int64_t mib = smem_axis_value(pt, "mib"), method = smem_axis_value(pt, "method");

    (void)dev, (void)why, (void)len;
    p->block = SMEM_REDUCTION_BLOCK;
    p->grid = 0;            /* one full wave; each thread strides over the input */
    p->static_smem = method == SMEM_REDUCE_ATOMIC ? 4 : (SMEM_REDUCTION_BLOCK + 1) * 4;
    p->regs = 24;
    p->variant = (int)method;
    p->work = mib << 18;    /* floats */
    return SMEM_OK;
}

static void reduction_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    smem_metrics_add(m, "gbytes_per_s", "GB/s", (double)c->plan->work * sizeof(float) / t->seconds / 1e9, 0,
                     SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

struct reduction_state {
    float *in, *out, *h_in;
    double ref;
    bool exact;             /* every fp32 partial sum is an exact integer: the result must match */
    double tol;
};

SMEM_KERNEL(reduction, smem_reduction_fn(c->plan->variant))

/* The reference of one input summed by one grid: the exact sum, whether every partial sum is exact
 * in fp32, and the tolerance where one may not be. The three methods (and every trial) of a sweep
 * sum the same input with the same grid: computed once (the host's pass over 256 Mi values, with the
 * host's draw before the input came from the shared GPU-drawn cache, was 6 of a 52 s --sweep all
 * with 3 trials on the H200: results/gate/trials_20261201/NOTES.md). */
struct reduction_ref {
    size_t n, threads;
    unsigned block;
    uint64_t seed;
    double ref, tol;
    bool exact;
};

static _Thread_local struct reduction_ref last_ref;

/* Inputs are whole numbers in -4..3, so partial sums are integers and fp32 holds them exactly while
 * they stay below 2^24. The host follows the kernel's assignment (float4 i goes to global thread
 * i mod threads) to bound every partial sum any order of additions can produce: the sum of
 * |thread sums| within a block, and of |block sums| across blocks. Under 2^24 the GPU's answer is
 * exact whatever the order of the atomics, and anything but the exact sum is an error. */
static int reduction_reference(const float *h_in, size_t n, size_t threads, unsigned block, unsigned grid,
                               uint64_t seed, struct reduction_ref *out)
{
    double *thread_sum = calloc(threads, sizeof(double)), *block_sum = calloc(grid, sizeof(double));
    double block_abs = 0, across = 0, ref = 0;

    if (!thread_sum || !block_sum) {
        free(thread_sum);
        free(block_sum);
        return SMEM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        thread_sum[(i / 4) % threads] += h_in[i];
        ref += h_in[i];
    }
    for (size_t t = 0; t < threads; t++) {
        block_sum[t / block] += thread_sum[t];
        block_abs = fmax(block_abs, fabs(thread_sum[t]) * block);
    }
    for (unsigned b = 0; b < grid; b++)
        across += fabs(block_sum[b]);
    *out = (struct reduction_ref){ .n = n, .threads = threads, .block = block, .seed = seed, .ref = ref,
                                   .exact = across < 0x1p24 && block_abs < 0x1p24 };
    /* otherwise the worst-case bound: each level errs by its term count x eps x the sum of |x| <= 4n */
    out->tol = out->exact ? 0 : 2.0 * ((double)n / threads + block + grid) * 0x1p-24 * 4.0 * (double)n;
    free(thread_sum);
    free(block_sum);
    return SMEM_OK;
}

static int reduction_setup(struct smem_case *c)
{
    struct reduction_state *s = c->priv;
    size_t n = (size_t)c->plan->work, threads = (size_t)c->grid * c->plan->block;
    unsigned block = (unsigned)c->plan->block;
    int rc = SMEM_OK;

    if ((rc = smem_gpu_random(c->inputs, n, SMEM_FILL_SMALL_INTS, c->seed, (void **)&s->in, (void **)&s->h_in)))
        return rc;
    if (!(last_ref.n == n && last_ref.threads == threads && last_ref.block == block && last_ref.seed == c->seed) &&
        (rc = reduction_reference(s->h_in, n, threads, block, c->grid, c->seed, &last_ref))) {
        last_ref = (struct reduction_ref){ 0 };
        return rc;
    }
    s->ref = last_ref.ref;
    s->exact = last_ref.exact;
    s->tol = last_ref.tol;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, sizeof(float)));
fail:
    return rc;
}

SMEM_LAUNCH(reduction, struct reduction_state, s,
            smem_reduction_launch(c->plan->variant, c->grid, s->in, (size_t)c->plan->work, s->out, c->clk, c->stream))

static int reduction_verify(struct smem_case *c)
{
    struct reduction_state *s = c->priv;
    float got;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(&got, s->out, sizeof(got), cudaMemcpyDeviceToHost));
    if (!smem_near(got, s->ref, s->tol, 0)) {
        rc = smem_mismatch_f64(c->reason, sizeof(c->reason), "sum", 0, 0, got, s->ref);
        smem_append(c->reason, sizeof(c->reason), ": ", "%s", s->exact ? "every partial sum is exact in fp32" :
                    "beyond the fp32 error bound");
        return rc;
    }
    return SMEM_OK;
fail:
    return rc;
}

static void reduction_teardown(struct smem_case *c)
{
    struct reduction_state *s = c->priv;

    smem_gpu_input_release(c->inputs, s->in, s->h_in);
    cudaFree(s->out);
}

#endif

const struct smem_bench smem_reduction_bench = {
    .name = "reduction",
    .summary = "block reduction through shared memory: __syncthreads tree vs warp shuffles vs shared atomics",
    .axes = reduction_axes,
    .n_axes = SMEM_ARRAY_LEN(reduction_axes),
    .sweeps = { "reduction" },
    .variation = SMEM_VARIATION_MEASURED(2.5, 3.0, 0.0),
    .kernel_file = "reduction",
    .plan = reduction_plan,
    .metrics = reduction_metrics,
    .baseline = &smem_vs_copy,
    SMEM_GPU_OPS(.kernel = reduction_kernel, .priv_size = sizeof(struct reduction_state), .setup = reduction_setup,
                 .launch = reduction_launch, .verify = reduction_verify, .teardown = reduction_teardown)
};
