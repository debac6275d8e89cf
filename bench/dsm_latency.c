/* Distributed-shared-memory load latency in cycles: one thread of block rank 0 follows a random
 * cycle (Sattolo) of shared::cluster addresses that lives in block rank size-1 (path 2, on another
 * SM), in its own block reached through the cluster window (path 1), or in its own block with plain
 * ld.shared (path 0, the classic latency beside the other two). Cycles between the kernel's clock
 * marks over the loads; the chase's last slot is checked against the host's replay. */
#include <stdlib.h>

#include "bench.h"
#include "cluster_family.h"
#include "common.h"
#include "dsm_latency_launch.h"
#include "smem.h"

#define STEPS 16384

static const int64_t slots[] = { 1024 };

static const struct smem_axis dsm_latency_axes[] = {
    SMEM_CLUSTER_SIZE_AXIS,
    SMEM_DSM_PATH_AXIS,
    { .name = "chain_slots", .unit = "slots", .help = "length of the pointer cycle (4 bytes each)",
      .defaults = slots, .n_defaults = SMEM_ARRAY_LEN(slots), .min = 2, .max = SMEM_DSM_LATENCY_SLOTS },
};

static int dsm_latency_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                            char *why, size_t len)
{
    int64_t size = smem_axis_value(pt, "cluster_size"), path = smem_axis_value(pt, "path");
    int rc = smem_cluster_plan(size, SMEM_DSM_LATENCY_BLOCK, dev, p, why, len);

    if (rc || (rc = smem_dsm_path_plan(path, size, why, len)))
        return rc;
    p->grid = (unsigned)size;   /* one cluster */
    p->variant = (int)path;
    p->work = STEPS;
    return SMEM_OK;
}

static void dsm_latency_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double cycles = t->kernel_cycles / (double)c->plan->work;

    smem_metrics_add(m, "latency_cycles", "cycles", cycles, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "latency_ns", "ns", t->clock_hz > 0 ? cycles / t->clock_hz * 1e9 : 0, 0, SMEM_LOWER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(dsm_latency, smem_dsm_latency_fn(c->plan->variant))

static int dsm_latency_setup(struct smem_case *c)
{
    return smem_chase_setup(c, (uint32_t)smem_axis_value(c, "chain_slots"), SMEM_DSM_LATENCY_SLOTS);
}

SMEM_LAUNCH(dsm_latency, struct smem_chase, s,
            smem_dsm_latency_launch(c->plan->variant, c->plan->cluster, c->plan->dyn_smem, s->next,
                                    (uint32_t)smem_axis_value(c, "chain_slots"), (uint32_t)c->plan->work, s->out,
                                    c->clk, c->stream))

#endif

const struct smem_bench smem_dsm_latency_bench = {
    .name = "dsm_latency",
    .summary = "cc 9.0: load latency of another block's shared memory in the cluster (pointer chase), beside "
               "the own block through the cluster window and ld.shared",
    .axes = dsm_latency_axes,
    .n_axes = SMEM_ARRAY_LEN(dsm_latency_axes),
    .sweeps = { "cluster" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 7.0, 7.0),
    .predictable = true,    /* predict mode records every point skipped, with the reason */
    .predict_skips = true,  /* the calculator has no clusters: --list does not offer --predict */
    .kernel_file = "dsm_latency",
    .min_cc = 90,
    .min_cc_feature = "distributed shared memory",
    .plan = dsm_latency_plan,
    .check_work = 64,   /* four unrolled passes of the chase */
    .metrics = dsm_latency_metrics,
    SMEM_GPU_OPS(.kernel = dsm_latency_kernel, .setup = dsm_latency_setup, .launch = dsm_latency_launch,
                 .verify = smem_chase_verify, SMEM_CHASE_STATE)
};
