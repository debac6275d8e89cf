/* Shared-memory atomic throughput across the cluster: every thread adds 1 to counters of the next
 * block of its cluster (path 2), of its own block through the cluster window (path 1) or of its own
 * block with red.shared (path 0), eight updates in flight per thread, every warp request to 32
 * distinct banks. Atomics per clock per SM (one block per SM, as many clusters as fit at once), held
 * against 32: a 4-byte update per bank per clock. Every counter must end exactly at the count the
 * host expects. */
#include "bench.h"
#include "check.h"
#include "cluster_family.h"
#include "common.h"
#include "dsm_atomics_launch.h"
#include "smem.h"

#define ITERS 1024
#define ATOMICS_PER_CLK_SM 32.0   /* 32 banks, one 4-byte word each per clock */

static const struct smem_axis dsm_atomics_axes[] = {
    SMEM_CLUSTER_SIZE_AXIS,
    SMEM_DSM_PATH_AXIS,
};

static int dsm_atomics_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                            char *why, size_t len)
{
    int64_t size = smem_axis_value(pt, "cluster_size"), path = smem_axis_value(pt, "path");
    int rc = smem_cluster_plan(size, SMEM_DSM_ATOMICS_BLOCK, dev, p, why, len);

    if (rc || (rc = smem_dsm_path_plan(path, size, why, len)))
        return rc;
    p->grid = 0;    /* as many clusters as fit at once */
    p->variant = (int)path;
    p->work = ITERS;
    return SMEM_OK;
}

static double atomics(const struct smem_case *c)
{
    return (double)c->grid * SMEM_DSM_ATOMICS_BLOCK * (double)c->plan->work * SMEM_DSM_ATOMICS_UNROLL;
}

static void dsm_atomics_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double per_clk = t->seconds > 0 && t->clock_hz > 0 ? atomics(c) / (t->seconds * t->clock_hz * c->grid) : 0;

    smem_metrics_add(m, "atomics_per_clk_sm", "atomics/clk/SM", per_clk, ATOMICS_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "gatomics_per_s", "Gatomics/s", t->seconds > 0 ? atomics(c) / t->seconds / 1e9 : 0,
                     ATOMICS_PER_CLK_SM * c->grid * t->clock_hz / 1e9, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "sms", "SMs", (double)c->grid, 0, SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(dsm_atomics, smem_dsm_atomics_fn(c->plan->variant))

static size_t n_counters(const struct smem_case *c)
{
    return (size_t)c->grid * SMEM_DSM_ATOMICS_COUNTERS;
}

static int dsm_atomics_setup(struct smem_case *c)
{
    return smem_io_setup(c, 0, n_counters(c), SMEM_FILL_WORDS);
}

SMEM_LAUNCH(dsm_atomics, struct smem_io, io,
            smem_dsm_atomics_launch(c->plan->variant, c->grid, c->plan->cluster, c->plan->dyn_smem, io->out,
                                    (int)c->plan->work, c->clk, c->stream))

static int dsm_atomics_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const uint32_t *got = io->h_out;
    /* each counter receives, from exactly one block, UNROLL adds per iteration */
    const uint32_t want = (uint32_t)c->plan->work * SMEM_DSM_ATOMICS_UNROLL;
    int rc;

    if ((rc = smem_io_fetch(io)))
        return rc;
    return smem_check_u32_all(c->reason, sizeof(c->reason), "counter", SMEM_DSM_ATOMICS_COUNTERS, got, n_counters(c),
                              want);
}

#endif

const struct smem_bench smem_dsm_atomics_bench = {
    .name = "dsm_atomics",
    .summary = "cc 9.0: shared-memory atomic adds into another block of the cluster (atomics/clk/SM against "
               "32), beside the own block; every counter checked exactly",
    .axes = dsm_atomics_axes,
    .n_axes = SMEM_ARRAY_LEN(dsm_atomics_axes),
    .sweeps = { "cluster" },
    /* unit_pct 30: the recorded GPC layout does not settle it (results/speed/README.md) */
    .variation = SMEM_VARIATION_MEASURED(1.5, 1.5, 30.0),
    .predictable = true,    /* predict mode records every point skipped, with the reason */
    .predict_skips = true,  /* the calculator has no clusters: --list does not offer --predict */
    .kernel_file = "dsm_atomics",
    .min_cc = 90,
    .min_cc_feature = "distributed shared memory",
    .plan = dsm_atomics_plan,
    .check_work = 2,
    .metrics = dsm_atomics_metrics,
    SMEM_GPU_OPS(.kernel = dsm_atomics_kernel, .setup = dsm_atomics_setup, .launch = dsm_atomics_launch,
                 .verify = dsm_atomics_verify, SMEM_IO_STATE)
};
