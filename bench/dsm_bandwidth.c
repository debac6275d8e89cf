/* Distributed-shared-memory load throughput in bytes per clock per SM: every block of every cluster
 * reads the 32 KiB buffer of the next block of its cluster (path 2), its own through the cluster
 * window (path 1) or its own with ld.shared (path 0), 4, 8 or 16 bytes per access, eight independent
 * loads in flight per thread. One block of 1024 threads per SM (the dynamic allocation takes more
 * than half of the SM), as many clusters as cudaOccupancyMaxActiveClusters says fit at once: the
 * bytes over (time x measured clock x blocks) are per SM, and checked against the 128 B/clk/SM that
 * an SM's own shared memory can deliver. Each thread's sum is checked against the host's. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cluster_family.h"
#include "common.h"
#include "dsm_bandwidth.h"
#include "smem.h"

#define ITERS 1024
#define BYTES_PER_CLK_SM 128.0   /* 32 banks x 4 bytes: one SM's own shared memory */

static const int64_t widths[] = { 4, 8, 16 };

static const struct smem_axis dsm_bandwidth_axes[] = {
    SMEM_CLUSTER_SIZE_AXIS,
    SMEM_DSM_PATH_AXIS,
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access", .defaults = widths,
      .n_defaults = SMEM_ARRAY_LEN(widths), .min = 4, .max = 16, .defaults_only = true },
};

static int dsm_bandwidth_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                              char *why, size_t len)
{
    int64_t size = smem_axis_value(pt, "cluster_size"), path = smem_axis_value(pt, "path");
    int rc = smem_cluster_plan(size, SMEM_DSM_BW_BLOCK, dev, p, why, len);

    if (rc || (rc = smem_dsm_path_plan(path, size, why, len)))
        return rc;
    p->grid = 0;    /* as many clusters as fit at once */
    p->variant = (int)path;
    p->work = ITERS;
    return SMEM_OK;
}

static int width(const struct smem_case *c)
{
    return (int)smem_axis_value(c, "width_bytes");
}

static double bytes(const struct smem_case *c)
{
    return (double)c->grid * SMEM_DSM_BW_BLOCK * (double)c->plan->work * SMEM_DSM_BW_UNROLL * width(c);
}

static void dsm_bandwidth_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    /* one block per SM: blocks are SMs */
    double bpc = t->seconds > 0 && t->clock_hz > 0 ? bytes(c) / (t->seconds * t->clock_hz * c->grid) : 0;

    smem_metrics_add(m, "bytes_per_clk_sm", "B/clk/SM", bpc, BYTES_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "gbytes_per_s", "GB/s", t->seconds > 0 ? bytes(c) / t->seconds / 1e9 : 0,
                     BYTES_PER_CLK_SM * c->grid * t->clock_hz / 1e9, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "sms", "SMs", (double)c->grid, 0, SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

struct dsm_bandwidth_state {
    uint32_t *in, *out, *smid;          /* device */
    uint32_t *h_in, *h_out, *h_smid;    /* host */
};

static const void *dsm_bandwidth_kernel(const struct smem_case *c)
{
    return smem_dsm_bandwidth_fn(width(c), c->plan->variant);
}

static int dsm_bandwidth_setup(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = calloc(1, sizeof(*s));
    size_t n_out = (size_t)c->grid * SMEM_DSM_BW_BLOCK;
    int rc = SMEM_OK;

    if (!(c->priv = s))
        return SMEM_ENOMEM;
    if ((rc = smem_gpu_random((size_t)SMEM_DSM_MAX_CLUSTER * SMEM_DSM_BW_WORDS, SMEM_FILL_WORDS, c->seed,
                              (void **)&s->in, (void **)&s->h_in)))
        return rc;
    if (!(s->h_out = malloc(n_out * 4)) || !(s->h_smid = malloc(c->grid * 4)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->smid, c->grid * 4));
    SMEM_CUDA_CHECK(cudaMemset(s->out, 0xff, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemset(s->smid, 0xff, c->grid * 4));
    return SMEM_OK;
fail:
    return rc;
}

static int dsm_bandwidth_launch(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_dsm_bandwidth_launch(width(c), c->plan->variant, c->grid, c->plan->cluster,
                                              c->plan->dyn_smem, s->in, s->out, s->smid, (int)c->plan->work, c->clk,
                                              c->stream));
    return SMEM_OK;
fail:
    return rc;
}

static int dsm_bandwidth_verify(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = c->priv;
    const unsigned size = c->plan->cluster;
    const int w = width(c), path = c->plan->variant;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_out, s->out, (size_t)c->grid * SMEM_DSM_BW_BLOCK * 4, cudaMemcpyDeviceToHost));
    SMEM_CUDA_CHECK(cudaMemcpy(s->h_smid, s->smid, (size_t)c->grid * 4, cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < c->grid; b++) {
        unsigned rank = b % size, target = path == SMEM_DSM_REMOTE ? (rank + 1) % size : rank;
        const uint32_t *buf = s->h_in + (size_t)target * SMEM_DSM_BW_WORDS;
        for (unsigned t = 0; t < SMEM_DSM_BW_BLOCK; t++) {
            uint32_t once = 0, want, got = s->h_out[(size_t)b * SMEM_DSM_BW_BLOCK + t];
            for (unsigned u = 0; u < SMEM_DSM_BW_UNROLL; u++)
                for (int k = 0; k < w / 4; k++)
                    once += buf[smem_dsm_bw_offset(t, u, (uint32_t)w) / 4 + (unsigned)k];
            want = once * (uint32_t)c->plan->work;
            if (got != want) {
                smem_fmt(c->reason, sizeof(c->reason), "block %u (rank %u) thread %u summed 0x%08x, the host "
                         "reference 0x%08x", b, rank, t, got, want);
                return SMEM_EVERIFY;
            }
        }
        /* one block per SM: a block sharing an SM would make "remote" local and the per-SM figure wrong */
        for (unsigned o = 0; o < b; o++)
            if (s->h_smid[o] == s->h_smid[b]) {
                smem_fmt(c->reason, sizeof(c->reason), "blocks %u and %u both ran on SM %u: the allocation of %zu "
                         "bytes did not keep one block per SM", o, b, s->h_smid[b], c->plan->dyn_smem);
                return SMEM_EVERIFY;
            }
    }
    return SMEM_OK;
fail:
    return rc;
}

static void dsm_bandwidth_teardown(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = c->priv;

    if (!s)
        return;
    cudaFree(s->in);
    cudaFree(s->out);
    cudaFree(s->smid);
    free(s->h_in);
    free(s->h_out);
    free(s->h_smid);
    free(s);
    c->priv = NULL;
}

#endif

const struct smem_bench smem_dsm_bandwidth_bench = {
    .name = "dsm_bandwidth",
    .summary = "cc 9.0: load throughput from another block's shared memory in the cluster (B/clk/SM, checked "
               "against 128), 4/8/16-byte accesses, eight loads in flight per thread",
    .axes = dsm_bandwidth_axes,
    .n_axes = SMEM_ARRAY_LEN(dsm_bandwidth_axes),
    .sweeps = { "cluster" },
    .predictable = true,    /* predict mode records every point skipped, with the reason */
    .kernel_file = "dsm_bandwidth",
    .min_cc = 90,
    .min_cc_feature = "distributed shared memory",
    .plan = dsm_bandwidth_plan,
    .check_work = 2,
    .metrics = dsm_bandwidth_metrics,
#if SMEM_HAVE_CUDA
    .kernel = dsm_bandwidth_kernel,
    .setup = dsm_bandwidth_setup,
    .launch = dsm_bandwidth_launch,
    .verify = dsm_bandwidth_verify,
    .teardown = dsm_bandwidth_teardown,
#endif
};
