/* The cost of cluster.sync() in cycles: every thread of one cluster (one block per SM) passes
 * barrier after barrier between the kernel's clock marks. The check: after the last barrier each
 * block received, through its neighbour's store into its shared memory, the neighbour's rank and
 * the number of barriers it passed. */
#include "bench.h"
#include "check.h"
#include "cluster_family.h"
#include "cluster_sync_launch.h"
#include "common.h"
#include "smem.h"

#define BARRIERS 4096

static const int64_t threads[] = { 32, 1024 };

static const struct smem_axis cluster_sync_axes[] = {
    SMEM_CLUSTER_SIZE_AXIS,
    { .name = "block_threads", .unit = "threads", .help = "threads per block, every one of them at each barrier "
      "(a multiple of 32)", .defaults = threads, .n_defaults = SMEM_ARRAY_LEN(threads), .min = 32, .max = 1024 },
};

static int cluster_sync_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                             char *why, size_t len)
{
    int64_t size = smem_axis_value(pt, "cluster_size"), threads = smem_axis_value(pt, "block_threads");
    int rc = SMEM_OK;

    if (threads % 32) {
        smem_fmt(why, len, "block_threads %lld is not a whole number of warps", (long long)threads);
        return SMEM_ESKIP;
    }
    if ((rc = smem_cluster_plan(size, (unsigned)threads, dev, p, why, len)))
        return rc;
    p->grid = (unsigned)size;   /* one cluster */
    p->work = BARRIERS;
    return SMEM_OK;
}

static void cluster_sync_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double cycles = t->kernel_cycles / (double)c->plan->work;

    smem_metrics_add(m, "sync_cycles", "cycles", cycles, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "sync_ns", "ns", t->clock_hz > 0 ? cycles / t->clock_hz * 1e9 : 0, 0, SMEM_LOWER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(cluster_sync, smem_cluster_sync_fn())

/* one word per block: what its neighbour stored into it */
static int cluster_sync_setup(struct smem_case *c)
{
    return smem_io_setup(c, 0, c->grid, SMEM_FILL_WORDS);
}

SMEM_LAUNCH(cluster_sync, struct smem_io, io,
            smem_cluster_sync_launch(c->plan->cluster, c->plan->block, c->plan->dyn_smem, io->out, (int)c->plan->work,
                                     c->clk, c->stream))

static int cluster_sync_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const uint32_t *got = io->h_out;
    const unsigned size = c->plan->cluster;
    int rc;

    if ((rc = smem_io_fetch(io)))
        return rc;
    for (unsigned b = 0; b < c->grid; b++) {
        uint32_t from = (b % size + size - 1) % size, want = from << 24 | (uint32_t)c->plan->work;
        if (got[b] != want) {
            rc = smem_mismatch_u32(c->reason, sizeof(c->reason), "received", 0, b, got[b], want);
            smem_append(c->reason, sizeof(c->reason), ": ", "rank %u's word after %lld barriers", from,
                        (long long)c->plan->work);
            return rc;
        }
    }
    return SMEM_OK;
}

#endif

const struct smem_bench smem_cluster_sync_bench = {
    .name = "cluster_sync",
    .summary = "cc 9.0: the cost of cluster.sync() in cycles, one cluster of one block per SM",
    .axes = cluster_sync_axes,
    .n_axes = SMEM_ARRAY_LEN(cluster_sync_axes),
    .sweeps = { "cluster" },
    .variation = SMEM_VARIATION_MEASURED(9.0, 10.0, 10.0),
    .time_not_gated = "cluster.sync() of 1024-thread blocks moved up to 9.3 % between 22 --sweep all files of "
                      "identical kernels with where the clusters landed, its cycles as much as its time: no band "
                      "separates a 3 % change from the placement",
    .predictable = true,    /* predict mode records every point skipped, with the reason */
    .predict_skips = true,  /* the calculator has no clusters: --list does not offer --predict */
    .kernel_file = "cluster_sync",
    .min_cc = 90,
    .min_cc_feature = "thread block clusters",
    .plan = cluster_sync_plan,
    .check_work = 4,
    .metrics = cluster_sync_metrics,
    SMEM_GPU_OPS(.kernel = cluster_sync_kernel, .setup = cluster_sync_setup, .launch = cluster_sync_launch,
                 .verify = cluster_sync_verify, SMEM_IO_STATE)
};
