/* Transpose with no shared memory: reads coalesced, writes strided by n, so every 4-byte store
 * is a 32-byte sector of its own. The floor the shared-memory tile lifts. */
#include "transpose_family.h"

static const struct smem_axis transpose_naive_axes[] = { SMEM_TRANSPOSE_MIB_AXIS };

static int transpose_naive_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                                char *why, size_t len)
{
    return smem_transpose_plan(pt, dev, p, why, len);
}

const struct smem_bench smem_transpose_naive_bench = {
    .name = "transpose_naive",
    .summary = "transpose without shared memory (strided writes): the baseline of the tiled transpose",
    .axes = transpose_naive_axes,
    .n_axes = SMEM_ARRAY_LEN(transpose_naive_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_MEASURED(4.5, 6.0, 0.0),
    .predictable = true,
    .kernel_file = "transpose",
    .plan = transpose_naive_plan,
    .metrics = smem_transpose_metrics,
    .baseline = &smem_vs_copy,
    SMEM_GPU_OPS(.kernel = smem_transpose_kernel, .setup = smem_transpose_setup, .launch = smem_transpose_run,
                 .verify = smem_transpose_verify, SMEM_IO_STATE)
};
