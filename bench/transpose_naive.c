/* Transpose with no shared memory: reads coalesced, writes strided by n, so every 4-byte store
 * is a 32-byte sector of its own. The floor the shared-memory tile lifts. */
#include "smem.h"
#include "transpose_family.h"

static const int64_t mibs[] = { 64, 256 };
static const int64_t quick_mibs[] = { 64 };

static const struct smem_axis transpose_naive_axes[] = {
    { .name = "mib", .unit = "MiB", .help = "matrix size (a square of 1, 4, 16, 64, 256 or 1024 MiB)",
      .defaults = mibs, .n_defaults = SMEM_ARRAY_LEN(mibs), .quick = quick_mibs,
      .n_quick = SMEM_ARRAY_LEN(quick_mibs), .min = 1, .max = 4096 },
};

static int transpose_naive_plan(const int64_t *v, const struct smem_device *dev, struct smem_plan *p, char *why,
                                size_t len)
{
    (void)dev;
    return smem_transpose_plan(v[0], SMEM_TRANSPOSE_NAIVE, p, why, len);
}

const struct smem_bench smem_transpose_naive_bench = {
    .name = "transpose_naive",
    .summary = "transpose without shared memory (strided writes): the baseline of the tiled transpose",
    .axes = transpose_naive_axes,
    .n_axes = SMEM_ARRAY_LEN(transpose_naive_axes),
    .plan = transpose_naive_plan,
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
