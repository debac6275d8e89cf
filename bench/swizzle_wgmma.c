/* wgmma fed from shared memory (sm_90a): m64n128k16 BF16 with both operands in shared memory through
 * matrix descriptors, in each swizzle mode the instruction takes (none, 32, 64, 128 bytes), the
 * operands resident so that only the layout differs between points. Tensor throughput as a
 * percentage of the generation's published dense BF16 rate per SM and clock (core/arch.c), and the
 * slowdown against the 128-byte swizzle; the product is checked against the host's in double. */
#include "bench.h"
#include "common.h"
#include "smem.h"
#include "swizzle_family.h"
#include "swizzle_wgmma_launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "rng.h"

/* ||out - ref|| / ||ref|| per accumulator tile: BF16 products are exact in FP32, so only the FP32 sums
 * of 64 terms round (about 1e-7); 1e-3 leaves room for the hardware's own summation order. */
#define WGMMA_TOLERANCE 1e-3

static const int64_t swizzles[] = { 0, 32, 64, 128 };

static const struct smem_axis axes[] = {
    { .name = "swizzle_bytes", .unit = "bytes", .help = "the operands' layout: 0 none (8x16-byte core matrices), "
      "32, 64, 128-byte swizzle", .defaults = swizzles, .n_defaults = 4, .min = 0, .max = 128,
      .defaults_only = true },
};

static const struct smem_baseline vs_128 = {
    .axis = "swizzle_bytes", .value = 128, .metric = "tflop_per_s", .derived = "slowdown", .unit = "x", .scale = 1,
    .better = SMEM_LOWER_IS_BETTER,
};

static int plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                size_t len)
{
    (void)pt;
    if (dev->cc_major != 9) {
        smem_fmt(why, len, "wgmma exists only in sm_90a code (compute capability 9.0); %s is %d.%d", dev->name,
                 dev->cc_major, dev->cc_minor);
        return SMEM_ESKIP;
    }
    p->block = SMEM_WGMMA_BLOCK;
    p->grid = 0;
    p->dyn_smem = SMEM_WGMMA_DYN;
    p->optin = (int64_t)p->dyn_smem > dev->smem_per_block;
    p->regs = 96;       /* ptxas -v, sm_90a: 64 accumulators and the descriptors */
    p->work = 2000000;  /* cycles per SM at the published rate */
    return SMEM_OK;
}

/* The published dense BF16 tensor rate of dev's generation, FLOP per clock per SM; 0 if none. */
static double peak_per_clk_sm(const struct smem_device *dev)
{
    struct smem_published p[SMEM_ARCH_MAX_PUBLISHED];
    size_t n = smem_arch_published(dev->cc_major, dev->cc_minor, p, SMEM_ARCH_MAX_PUBLISHED);

    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, "bf16_dense_flop_per_clk_sm"))
            return p[i].value;
    return 0;
}

#define FLOP_PER_WGMMA (2.0 * SMEM_WGMMA_M * SMEM_WGMMA_N * SMEM_WGMMA_KSTEP)
#define STEPS (SMEM_WGMMA_K / SMEM_WGMMA_KSTEP)

static int64_t iterations(const struct smem_case *c)
{
    double peak = peak_per_clk_sm(c->dev) > 0 ? peak_per_clk_sm(c->dev) : 4096;
    double groups_per_sm = (double)c->grid * SMEM_WGMMA_GROUPS / c->dev->sm_count;
    int64_t it = (int64_t)((double)c->plan->work * peak / (groups_per_sm * STEPS * FLOP_PER_WGMMA));

    return it < 4 ? 4 : it;
}

static void metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double flop = (double)c->grid * SMEM_WGMMA_GROUPS * (double)iterations(c) * STEPS * FLOP_PER_WGMMA;
    double peak = peak_per_clk_sm(c->dev), per_clk = t->seconds > 0 && t->clock_hz > 0
                                                         ? flop / (t->seconds * t->clock_hz * c->dev->sm_count) : 0;

    smem_metrics_add(m, "tflop_per_s", "TFLOP/s", t->seconds > 0 ? flop / t->seconds / 1e12 : 0, 0,
                     SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "flop_per_clk_sm", "FLOP/clk/SM", per_clk, peak, SMEM_HIGHER_IS_BETTER);
    if (peak > 0)
        smem_metrics_add(m, "pct_of_peak", "%", 100 * per_clk / peak, 100, SMEM_HIGHER_IS_BETTER);
    /* what the tensor cores read from shared memory: A and B of every instruction */
    smem_metrics_add(m, "operand_bytes_per_clk_sm", "B/clk/SM",
                     per_clk / FLOP_PER_WGMMA * (SMEM_WGMMA_M + SMEM_WGMMA_N) * SMEM_WGMMA_KSTEP * 2, 0,
                     SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

struct wgmma_state {
    uint16_t *a, *b;            /* device, row-major, K contiguous */
    float *out;
    int *built;
    uint16_t *h_a, *h_b;
    float *h_out;
};

static const void *kernel(const struct smem_case *c)
{
    (void)c;
    return smem_wgmma_fn();
}

static uint16_t bf16(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);     /* truncation: the value the host then multiplies is exact */
}

static double from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static int setup(struct smem_case *c)
{
    struct wgmma_state *s = c->priv;
    const size_t na = (size_t)SMEM_WGMMA_GROUPS * SMEM_WGMMA_M * SMEM_WGMMA_K, nb = SMEM_WGMMA_N * SMEM_WGMMA_K;
    const size_t n_out = (size_t)c->grid * SMEM_WGMMA_GROUPS * SMEM_WGMMA_M * SMEM_WGMMA_N;
    uint64_t state = c->seed;
    int built = 0, rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->built, sizeof(int)));
    SMEM_CUDA_CHECK(smem_wgmma_probe(s->built, c->stream));
    SMEM_CUDA_CHECK(cudaMemcpyAsync(&built, s->built, sizeof(int), cudaMemcpyDeviceToHost, (cudaStream_t)c->stream));
    SMEM_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)c->stream));
    if (!built) {
        smem_fmt(c->reason, sizeof(c->reason), "wgmma needs sm_90a code, and this binary's kernel for %s has none "
                 "(built without 90 in -Dgpu_arch, or from PTX)", c->dev->name);
        return SMEM_ESKIP;
    }
    if (!(s->h_a = malloc(na * 2)) || !(s->h_b = malloc(nb * 2)) || !(s->h_out = malloc(n_out * 4)))
        return SMEM_ENOMEM;
    for (size_t i = 0; i < na; i++)
        s->h_a[i] = bf16(smem_rng_float(&state));
    for (size_t i = 0; i < nb; i++)
        s->h_b[i] = bf16(smem_rng_float(&state));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->a, na * 2));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->b, nb * 2));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemcpy(s->a, s->h_a, na * 2, cudaMemcpyHostToDevice));
    SMEM_CUDA_CHECK(cudaMemcpy(s->b, s->h_b, nb * 2, cudaMemcpyHostToDevice));
    SMEM_CUDA_CHECK(cudaMemset(s->out, 0xff, n_out * 4));
    return SMEM_OK;
fail:
    return rc;
}

static int run(struct smem_case *c)
{
    struct wgmma_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_wgmma_launch((int)smem_axis_value(c, "swizzle_bytes"), c->grid, s->a, s->b, s->out,
                                      (int)iterations(c), c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

static int verify(struct smem_case *c)
{
    struct wgmma_state *s = c->priv;
    const size_t tile = SMEM_WGMMA_M * SMEM_WGMMA_N, n_out = (size_t)c->grid * SMEM_WGMMA_GROUPS * tile;
    double *ref = malloc(SMEM_WGMMA_GROUPS * tile * sizeof(double));
    int rc = SMEM_OK;

    if (!ref)
        return SMEM_ENOMEM;
    for (int g = 0; g < SMEM_WGMMA_GROUPS; g++)
        for (int m = 0; m < SMEM_WGMMA_M; m++)
            for (int n = 0; n < SMEM_WGMMA_N; n++) {
                double sum = 0;
                for (int k = 0; k < SMEM_WGMMA_K; k++)
                    sum += from_bf16(s->h_a[((size_t)g * SMEM_WGMMA_M + m) * SMEM_WGMMA_K + k]) *
                           from_bf16(s->h_b[(size_t)n * SMEM_WGMMA_K + k]);
                ref[g * tile + (size_t)m * SMEM_WGMMA_N + n] = sum;
            }
    SMEM_CUDA_CHECK(cudaMemcpy(s->h_out, s->out, n_out * 4, cudaMemcpyDeviceToHost));
    for (size_t t = 0; t < n_out / tile; t++) {
        const double *r = ref + (t % SMEM_WGMMA_GROUPS) * tile;
        double err = 0, norm = 0;
        for (size_t i = 0; i < tile; i++) {
            double d = (double)s->h_out[t * tile + i] - r[i];
            err += d * d;
            norm += r[i] * r[i];
        }
        /* NaN (a fallback, an unwritten element) fails the comparison */
        if (!(sqrt(err) <= WGMMA_TOLERANCE * sqrt(norm))) {
            smem_fmt(c->reason, sizeof(c->reason), "block %zu warpgroup %zu: ||C - ref|| / ||ref|| = %.3g, tolerance "
                     "%g (the descriptors do not describe the layout the operands were stored in)",
                     t / SMEM_WGMMA_GROUPS, t % SMEM_WGMMA_GROUPS, sqrt(err) / sqrt(norm), WGMMA_TOLERANCE);
            rc = SMEM_EVERIFY;
            goto fail;
        }
    }
fail:
    free(ref);
    return rc;
}

static void teardown(struct smem_case *c)
{
    struct wgmma_state *s = c->priv;

    cudaFree(s->a);
    cudaFree(s->b);
    cudaFree(s->out);
    cudaFree(s->built);
    free(s->h_a);
    free(s->h_b);
    free(s->h_out);
}
#endif

const struct smem_bench smem_swizzle_wgmma_bench = {
    .name = "swizzle_wgmma",
    .summary = "wgmma m64n128k16 BF16 (sm_90a) with both operands in shared memory, per swizzle mode of the "
               "descriptors: tensor throughput as % of the published dense peak",
    .axes = axes,
    .n_axes = SMEM_ARRAY_LEN(axes),
    .sweeps = { "swizzle" },
    .variation = SMEM_VARIATION_MEASURED(2.0, 2.5, 0.0),
    .time_not_gated = "power-limited: the SM clock drops under wgmma and the time moved 8.7-9.5 % between 22 --sweep "
                      "all files of identical kernels, its work per cycle (flop_per_clk_sm) 2.1-2.5 %",
    .gate_metric = "flop_per_clk_sm",
    .predictable = true,
    .kernel_file = "swizzle_wgmma",
    .min_cc = 90,
    .min_cc_feature = "wgmma",
    .plan = plan,
    .metrics = metrics,
    .baseline = &vs_128,
    SMEM_GPU_OPS(.kernel = kernel, .priv_size = sizeof(struct wgmma_state), .setup = setup, .launch = run,
                 .verify = verify, .teardown = teardown)
};
