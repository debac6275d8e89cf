/* Bank conflicts: lane l reads the element l * stride, 4, 8 or 16 bytes wide. The bank model
 * (smem_bank_wavefronts) predicts how many passes a warp request takes; the measured slowdown is
 * the stride-1 throughput over this stride's. Iterations shrink with the predicted degree so every
 * point runs about the same time. */
#include "load_family.h"

#include "smem.h"

static const int64_t strides[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                   18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33 };
static const int64_t quick_strides[] = { 1, 2, 4, 8, 16, 32, 33 };
static const int64_t widths[] = { 4, 8, 16 };

static const struct smem_axis bank_axes[] = {
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access", .defaults = widths,
      .n_defaults = SMEM_ARRAY_LEN(widths), .min = 4, .max = 16, .defaults_only = true },
    { .name = "stride_elems", .unit = "elements", .help = "distance between lanes, in accesses",
      .defaults = strides, .n_defaults = SMEM_ARRAY_LEN(strides), .quick = quick_strides,
      .n_quick = SMEM_ARRAY_LEN(quick_strides), .min = 1, .max = 64 },
};

static int bank_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                     size_t len)
{
    return smem_load_plan(pt, dev, 1.2e6, p, why, len);
}

static void bank_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    int width = (int)smem_axis_value(c, "width_bytes"), stride = (int)smem_axis_value(c, "stride_elems");
    int ways = smem_bank_wavefronts(width, stride);

    smem_metrics_add(m, "bytes_per_clk_sm", "B/clk/SM", smem_load_bytes_per_clk_sm(c, t), SMEM_BYTES_PER_CLK_SM,
                     SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "wavefronts", "passes/request", ways, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "predicted_slowdown", "x", (double)ways / smem_bank_wavefronts(width, 1), 0,
                     SMEM_LOWER_IS_BETTER);
}

static const struct smem_baseline bank_baseline = {
    .axis = "stride_elems", .value = 1, .metric = "bytes_per_clk_sm", .derived = "slowdown", .unit = "x",
    .scale = 1, .better = SMEM_LOWER_IS_BETTER,
};

const struct smem_bench smem_bank_bench = {
    .name = "bank",
    .summary = "bank conflicts: stride 1..33 at 4/8/16 bytes, measured slowdown against the bank model",
    .axes = bank_axes,
    .n_axes = SMEM_ARRAY_LEN(bank_axes),
    .sweeps = { "bank" },
    .variation = SMEM_VARIATION_MEASURED(2.0, 2.0, 0.0),
    .kernel_file = "load",
    .plan = bank_plan,
    .check_work = 1,   /* the fewest iterations (8) */
    .metrics = bank_metrics,
    .baseline = &bank_baseline,
    SMEM_GPU_OPS(.kernel = smem_load_kernel, .setup = smem_load_setup, .launch = smem_load_run,
                 .verify = smem_load_verify, SMEM_IO_STATE)
};
