/* Transpose through a 32 x 32 shared-memory tile: padding_words 0 stores the tile as [32][32] and
 * its column reads hit one bank 32 times over; padding_words 1 stores it as [32][33] and the same
 * reads spread over all 32 banks. GB/s (bytes read + written) against a device-to-device copy of
 * the same bytes (pct_of_copy). */
#include "transpose_family.h"

static const int64_t pads[] = { 0, 1 };

static const struct smem_axis transpose_axes[] = {
    SMEM_TRANSPOSE_MIB_AXIS,
    { .name = "padding_words", .unit = "words", .help = "0: tile[32][32]; 1: tile[32][33]", .defaults = pads,
      .n_defaults = SMEM_ARRAY_LEN(pads), .min = 0, .max = 1, .defaults_only = true },
};

static int transpose_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    (void)dev;
    return smem_transpose_plan(pt, smem_axis_value(pt, "padding_words") ? SMEM_TRANSPOSE_PADDED : SMEM_TRANSPOSE_TILED,
                               p, why, len);
}

const struct smem_bench smem_transpose_bench = {
    .name = "transpose",
    .summary = "transpose through a shared tile: [32][32] (32-way conflicts) vs padded [32][33], against a copy",
    .axes = transpose_axes,
    .n_axes = SMEM_ARRAY_LEN(transpose_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_DRAM,
    .predictable = true,
    .kernel_file = "transpose",
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
