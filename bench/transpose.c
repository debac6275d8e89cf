/* Transpose through a 32 x 32 shared-memory tile: padding_words 0 stores the tile as [32][32] and
 * its column reads hit one bank 32 times over; padding_words 1 stores it as [32][33] and the same
 * reads spread over all 32 banks. GB/s (bytes read + written) against a device-to-device copy of
 * the same bytes (pct_of_copy). */
#include "transpose_family.h"

#include <math.h>

#include "smem.h"
#include "transpose.h"

#if SMEM_HAVE_CUDA
#include "common.h"
#endif

static const int64_t mibs[] = { 64, 256 };
static const int64_t quick_mibs[] = { 64 };
static const int64_t pads[] = { 0, 1 };

static const struct smem_axis transpose_axes[] = {
    { .name = "mib", .unit = "MiB", .help = "matrix size (a square of 1, 4, 16, 64, 256 or 1024 MiB)",
      .defaults = mibs, .n_defaults = SMEM_ARRAY_LEN(mibs), .quick = quick_mibs,
      .n_quick = SMEM_ARRAY_LEN(quick_mibs), .min = 1, .max = 4096 },
    { .name = "padding_words", .unit = "words", .help = "0: tile[32][32]; 1: tile[32][33]", .defaults = pads,
      .n_defaults = SMEM_ARRAY_LEN(pads), .min = 0, .max = 1, .defaults_only = true },
};

const struct smem_baseline smem_vs_copy = {
    .bench = "copy", .metric = "gbytes_per_s", .derived = "pct_of_copy", .unit = "%", .this_over_baseline = true,
    .scale = 100,
};

int smem_transpose_edge(int64_t mib)
{
    int64_t floats = mib << 18;
    int64_t n = (int64_t)llround(sqrt((double)floats));

    return n * n == floats && n % 32 == 0 ? (int)n : 0;
}

int smem_transpose_plan(int64_t mib, int variant, struct smem_plan *p, char *why, size_t why_len)
{
    int n = smem_transpose_edge(mib);

    if (!n) {
        smem_fmt(why, why_len, "%lld MiB is not a square fp32 matrix with an edge divisible by 32 "
                 "(1, 4, 16, 64, 256, 1024 or 4096 MiB are)", (long long)mib);
        return SMEM_ESKIP;
    }
    p->block = 32 * 8;
    p->grid = (unsigned)(n / 32) * (unsigned)(n / 32);
    p->static_smem = variant == SMEM_TRANSPOSE_NAIVE ? 0 : 32 * (32 + (variant == SMEM_TRANSPOSE_PADDED)) * 4;
    p->regs = 24;
    p->variant = variant;
    p->work = n;
    return SMEM_OK;
}

static int transpose_plan(const int64_t *v, const struct smem_device *dev, struct smem_plan *p, char *why, size_t len)
{
    (void)dev;
    return smem_transpose_plan(v[0], v[1] ? SMEM_TRANSPOSE_PADDED : SMEM_TRANSPOSE_TILED, p, why, len);
}

void smem_transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double bytes = 2.0 * (double)c->plan.work * (double)c->plan.work * sizeof(float);

    smem_metrics_add(m, "gbytes_per_s", "GB/s", bytes / t->seconds / 1e9, 0);
}

#if SMEM_HAVE_CUDA

const void *smem_transpose_kernel(const struct smem_plan *p)
{
    return smem_transpose_fn(p->variant);
}

int smem_transpose_setup(struct smem_case *c)
{
    size_t n = (size_t)c->plan.work * (size_t)c->plan.work;

    return smem_io_setup(c, n, n, SMEM_FILL_FLOATS);
}

int smem_transpose_run(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_transpose_launch(c->plan.variant, (int)c->plan.work, io->in, io->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

int smem_transpose_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const float *in = io->h_in, *out = io->h_out;
    size_t n = (size_t)c->plan.work;
    int rc;

    if ((rc = smem_io_fetch(io)))
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (out[j * n + i] != in[i * n + j]) {   /* a move, so exact */
                smem_fmt(c->reason, sizeof(c->reason), "out[%zu][%zu] = %g, expected in[%zu][%zu] = %g", j, i,
                         (double)out[j * n + i], i, j, (double)in[i * n + j]);
                return SMEM_EVERIFY;
            }
    return SMEM_OK;
}

#endif

const struct smem_bench smem_transpose_bench = {
    .name = "transpose",
    .summary = "transpose through a shared tile: [32][32] (32-way conflicts) vs padded [32][33], against a copy",
    .axes = transpose_axes,
    .n_axes = SMEM_ARRAY_LEN(transpose_axes),
    .plan = transpose_plan,
    .metrics = smem_transpose_metrics,
    .baseline = &smem_vs_copy,
#if SMEM_HAVE_CUDA
    .kernel = smem_transpose_kernel,
    .setup = smem_transpose_setup,
    .launch = smem_transpose_run,
    .verify = smem_transpose_verify,
    .teardown = smem_io_teardown,
#endif
};
