/* Occupancy with clusters: cudaOccupancyMaxActiveClusters against the clusters measured resident at
 * once, by cluster size and shared memory per block. A probe launched in clusters, more of them than
 * could ever fit, records per block %smid, %clusterid, %cluster_ctarank and when it ran; a cluster
 * is resident while all its blocks run, and the most clusters resident at one instant is the
 * measured figure. The records are checked (every block where the launch put it, every cluster's
 * blocks running together); API and measured either agree or the point says by how much they
 * differ (clusters_mismatch, |measured - API|). */
#include <stdlib.h>

#include "bench.h"
#include "cluster_family.h"
#include "cluster_occupancy_launch.h"
#include "common.h"
#include "smem.h"

#define K 1024
/* far above %globaltimer's resolution and a wave's launch skew, so every resident cluster overlaps */
#define SPIN_NS 200000ull

static const int64_t smem_sizes[] = { 0, 48 * K, 100 * K, 200 * K };
static const int64_t quick_smem_sizes[] = { 0, 100 * K };

static const struct smem_axis cluster_occupancy_axes[] = {
    SMEM_CLUSTER_SIZE_AXIS,
    { .name = "smem_bytes", .unit = "bytes", .help = "dynamic shared memory per block", .defaults = smem_sizes,
      .n_defaults = SMEM_ARRAY_LEN(smem_sizes), .quick = quick_smem_sizes, .n_quick = SMEM_ARRAY_LEN(quick_smem_sizes),
      .min = 0, .max = 228 * K },
};

static int cluster_occupancy_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                                  char *why, size_t len)
{
    int64_t size = smem_axis_value(pt, "cluster_size"), smem = smem_axis_value(pt, "smem_bytes");
    int rc = smem_cluster_plan(size, SMEM_CLUSTER_OCC_BLOCK, dev, p, why, len);

    if (rc)
        return rc;
    if (smem > dev->smem_per_block_optin) {
        smem_fmt(why, len, "%lld bytes exceed the opt-in ceiling of %lld bytes per block on %s", (long long)smem,
                 (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    /* the footprint under test, not the family's one-block-per-SM allocation */
    p->dyn_smem = (size_t)smem;
    p->optin = smem > dev->smem_per_block;
    p->grid = smem_cluster_probe_clusters(dev, (unsigned)size, SMEM_CLUSTER_OCC_BLOCK, (size_t)smem) * (unsigned)size;
    return SMEM_OK;
}

struct cluster_occupancy_state {
    struct smem_cluster_record *rec, *h_rec;
    int resident;
};

static void cluster_occupancy_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    const struct cluster_occupancy_state *s = c->priv;

    (void)t;
    smem_metrics_add(m, "clusters_api", "clusters", c->clusters, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "clusters_measured", "clusters", s ? s->resident : 0, 0, SMEM_HIGHER_IS_BETTER);
    /* 0 when the API and the probe agree; the sign is in the two figures above */
    smem_metrics_add(m, "clusters_mismatch", "clusters", s ? abs(s->resident - c->clusters) : 0, 0,
                     SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "clusters_launched", "clusters", c->plan->cluster ? c->grid / c->plan->cluster : 0, 0,
                     SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(cluster_occupancy, smem_cluster_occupancy_fn())

static int cluster_occupancy_setup(struct smem_case *c)
{
    struct cluster_occupancy_state *s = c->priv;
    size_t bytes = (size_t)c->grid * sizeof(*s->rec);
    int rc = SMEM_OK;

    if (!(s->h_rec = malloc(bytes)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->rec, bytes));
    SMEM_CUDA_CHECK(cudaMemset(s->rec, 0xff, bytes));
    return SMEM_OK;
fail:
    return rc;
}

SMEM_LAUNCH(cluster_occupancy, struct cluster_occupancy_state, s,
            smem_cluster_occupancy_launch(c->grid, c->plan->cluster, c->plan->dyn_smem, SPIN_NS, s->rec, c->stream))

static int cluster_occupancy_verify(struct smem_case *c)
{
    struct cluster_occupancy_state *s = c->priv;
    unsigned launched = c->grid / c->plan->cluster;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_rec, s->rec, (size_t)c->grid * sizeof(*s->h_rec), cudaMemcpyDeviceToHost));
    if ((rc = smem_cluster_resident(s->h_rec, c->grid, c->plan->cluster, !c->check, &s->resident, c->reason,
                                    sizeof(c->reason))))
        return rc;
    if (!c->check && s->resident >= (int)launched) {
        smem_fmt(c->reason, sizeof(c->reason), "all %u launched clusters were resident at once: the probe cannot "
                 "show the capacity (cudaOccupancyMaxActiveClusters: %d)", launched, c->clusters);
        return SMEM_EVERIFY;
    }
    return SMEM_OK;
fail:
    return rc;
}

static void cluster_occupancy_teardown(struct smem_case *c)
{
    struct cluster_occupancy_state *s = c->priv;

    cudaFree(s->rec);
    free(s->h_rec);
}

#endif

const struct smem_bench smem_cluster_occupancy_bench = {
    .name = "cluster_occupancy",
    .summary = "cc 9.0: clusters resident at once, cudaOccupancyMaxActiveClusters against a probe's "
               "%clusterid/%smid/%globaltimer records, by cluster size and shared memory per block",
    .axes = cluster_occupancy_axes,
    .n_axes = SMEM_ARRAY_LEN(cluster_occupancy_axes),
    .sweeps = { "cluster" },
    .variation = SMEM_VARIATION_MEASURED(1.0, 1.0, 5.0),
    .predictable = true,    /* predict mode records every point skipped, with the reason */
    .predict_skips = true,  /* the calculator has no clusters: --list does not offer --predict */
    .kernel_file = "cluster_occupancy",
    .min_cc = 90,
    .min_cc_feature = "thread block clusters",
    .plan = cluster_occupancy_plan,
    .metrics = cluster_occupancy_metrics,
    SMEM_GPU_OPS(.kernel = cluster_occupancy_kernel, .priv_size = sizeof(struct cluster_occupancy_state),
                 .setup = cluster_occupancy_setup,
                 .launch = cluster_occupancy_launch, .verify = cluster_occupancy_verify,
                 .teardown = cluster_occupancy_teardown)
};
