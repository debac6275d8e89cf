/* Peak shared-memory load throughput at 4, 8 and 16 bytes per thread access, against the ceiling
 * of 32 banks x 4 bytes = 128 bytes per clock per SM. Conflict-free (lane l reads element l), every
 * SM full (2048 threads), loads the compiler cannot drop; each launch runs for about 2 ms of
 * shared-memory time so launch and fill overheads stay under half a percent. */
#include "load_family.h"

#include "smem.h"

static const int64_t widths[] = { 4, 8, 16 };

static const struct smem_axis bandwidth_axes[] = {
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access", .defaults = widths,
      .n_defaults = SMEM_ARRAY_LEN(widths), .min = 4, .max = 16, .defaults_only = true },
};

static int bandwidth_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    return smem_load_plan(pt, dev, 4.0e6, p, why, len);
}

static void bandwidth_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double bpc = smem_load_bytes_per_clk_sm(c, t);

    smem_metrics_add(m, "bytes_per_clk_sm", "B/clk/SM", bpc, SMEM_BYTES_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "gbytes_per_s", "GB/s", smem_load_bytes(c) / t->seconds / 1e9,
                     SMEM_BYTES_PER_CLK_SM * c->dev->sm_count * t->clock_hz / 1e9, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "pct_of_peak", "%", 100 * bpc / SMEM_BYTES_PER_CLK_SM, 100, SMEM_HIGHER_IS_BETTER);
}

const struct smem_bench smem_bandwidth_bench = {
    .name = "bandwidth",
    .summary = "shared-memory load throughput (B/clk/SM, ceiling 128) at 4/8/16-byte accesses",
    .axes = bandwidth_axes,
    .n_axes = SMEM_ARRAY_LEN(bandwidth_axes),
    .sweeps = { "bandwidth" },
    .variation = SMEM_VARIATION_MEASURED(2.0, 2.0, 0.0),
    .kernel_file = "load",
    .plan = bandwidth_plan,
    .check_work = 1,   /* the fewest iterations (8) */
    .metrics = bandwidth_metrics,
    SMEM_GPU_OPS(.kernel = smem_load_kernel, .setup = smem_load_setup, .launch = smem_load_run,
                 .verify = smem_load_verify, SMEM_IO_STATE)
};
