/* Occupancy with clusters: cudaOccupancyMaxActiveClusters against the clusters measured resident at
 * once, by cluster size and shared memory per block. A probe launched in clusters, more of them than
 * could ever fit, records per block %smid, %clusterid, %cluster_ctarank and when it ran; a cluster
 * is resident while all its blocks run, and the most clusters resident at one instant is the
 * measured figure. The records are checked (every block where the launch put it, every cluster's
 * blocks running together); API and measured either agree or the point says by how much they
 * differ (clusters_mismatch). */
#include <stdlib.h>

#include "../kernels/cluster_occupancy.h"
#include "../src/smem.h"
#include "bench.h"
#include "cluster.h"
#include "feature.h"

#if SMEM_HAVE_CUDA
#include "../src/gpu.h"
#endif

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

static int cluster_occupancy_plan(const int64_t *v, const struct smem_device *dev, struct smem_plan *p, char *why,
                                  size_t len)
{
    int rc = smem_cluster_plan(v[0], SMEM_CLUSTER_OCC_BLOCK, dev, p, why, len);

    if (rc)
        return rc;
    if (v[1] > dev->smem_per_block_optin) {
        smem_fmt(why, len, "%lld bytes exceed the opt-in ceiling of %lld bytes per block on %s", (long long)v[1],
                 (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    p->dyn_smem = (size_t)v[1];
    p->optin = v[1] > dev->smem_per_block;
    p->grid = smem_cluster_probe_clusters(dev, (unsigned)v[0], SMEM_CLUSTER_OCC_BLOCK, (size_t)v[1]) * (unsigned)v[0];
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
    smem_metrics_add(m, "clusters_api", "clusters", c->clusters, 0);
    smem_metrics_add(m, "clusters_measured", "clusters", s ? s->resident : 0, 0);
    smem_metrics_add(m, "clusters_mismatch", "clusters", s ? s->resident - c->clusters : 0, 0);
    smem_metrics_add(m, "clusters_launched", "clusters", c->grid / c->plan.cluster, 0);
}

#if SMEM_HAVE_CUDA

static const void *cluster_occupancy_kernel(const struct smem_plan *p)
{
    (void)p;
    return smem_cluster_occupancy_fn();
}

static int cluster_occupancy_setup(struct smem_case *c)
{
    struct cluster_occupancy_state *s = calloc(1, sizeof(*s));
    size_t bytes = (size_t)c->grid * sizeof(*s->rec);
    int rc;

    if (!(c->priv = s))
        return SMEM_ENOMEM;
    if ((rc = smem_feature_built(smem_cluster_occupancy_fn(), 90, "thread block clusters", c->reason,
                                 sizeof(c->reason))))
        return rc;
    if (!(s->h_rec = malloc(bytes)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->rec, bytes));
    SMEM_CUDA_CHECK(cudaMemset(s->rec, 0xff, bytes));
    return SMEM_OK;
fail:
    return rc;
}

static int cluster_occupancy_launch(struct smem_case *c)
{
    struct cluster_occupancy_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_cluster_occupancy_launch(c->grid, c->plan.cluster, c->plan.dyn_smem, SPIN_NS, s->rec,
                                                  c->stream));
    return SMEM_OK;
fail:
    return rc;
}

static int cluster_occupancy_verify(struct smem_case *c)
{
    struct cluster_occupancy_state *s = c->priv;
    unsigned launched = c->grid / c->plan.cluster;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_rec, s->rec, (size_t)c->grid * sizeof(*s->h_rec), cudaMemcpyDeviceToHost));
    if ((rc = smem_cluster_resident(s->h_rec, c->grid, c->plan.cluster, &s->resident, c->reason, sizeof(c->reason))))
        return rc;
    if (s->resident >= (int)launched) {
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

    if (!s)
        return;
    cudaFree(s->rec);
    free(s->h_rec);
    free(s);
    c->priv = NULL;
}

#endif

const struct smem_bench smem_cluster_occupancy_bench = {
    .name = "cluster_occupancy",
    .summary = "cc 9.0: clusters resident at once, cudaOccupancyMaxActiveClusters against a probe's "
               "%clusterid/%smid/%globaltimer records, by cluster size and shared memory per block",
    .axes = cluster_occupancy_axes,
    .n_axes = SMEM_ARRAY_LEN(cluster_occupancy_axes),
    .plan = cluster_occupancy_plan,
    .metrics = cluster_occupancy_metrics,
#if SMEM_HAVE_CUDA
    .kernel = cluster_occupancy_kernel,
    .setup = cluster_occupancy_setup,
    .launch = cluster_occupancy_launch,
    .verify = cluster_occupancy_verify,
    .teardown = cluster_occupancy_teardown,
#endif
};
