/* Distributed-shared-memory load throughput in bytes per clock per reading SM. The path axis holds
 * the three paths of the cluster family and three remote patterns: 0 ld.shared on the own 32 KiB
 * buffer, 1 the own buffer through the cluster window, 2 the next block's buffer (a ring: every SM
 * reads and serves at once), 3 one-way (even ranks read the next block, odd ranks only serve), 4
 * fan-in (rank 0 alone reads, load u from rank 1 + u % (size - 1)), 5 the ring as one dependent
 * chain per thread (the published anchor's method). 4, 8 or 16 bytes per access, eight independent loads in
 * flight per thread (the chain: one). One block of 1024 threads per SM (the dynamic allocation
 * takes more than half of the SM), as many clusters as cudaOccupancyMaxActiveClusters says fit at
 * once: the bytes over (time x measured clock x reading SMs) are checked against the 128 B/clk/SM
 * that an SM's own shared memory can deliver. Each thread's sum is checked against the host's. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "cluster_family.h"
#include "common.h"
#include "dsm_bandwidth_launch.h"
#include "smem.h"

#define ITERS 1024
#define BYTES_PER_CLK_SM 128.0   /* 32 banks x 4 bytes: one SM's own shared memory */

static const int64_t widths[] = { 4, 8, 16 };
static const int64_t patterns[] = { SMEM_DSM_LOCAL,     SMEM_DSM_SELF,     SMEM_DSM_REMOTE,
                                    SMEM_DSM_BW_ONEWAY, SMEM_DSM_BW_FANIN, SMEM_DSM_BW_CHAIN };

static const struct smem_axis dsm_bandwidth_axes[] = {
    SMEM_CLUSTER_SIZE_AXIS,
    { .name = "path", .unit = "enum",
      .help = "0: ld.shared on the own block; 1: the own block through the cluster window; 2: the next block "
              "(every SM reads and serves); 3: one-way (even ranks read the next block, odd ranks serve); 4: "
              "fan-in (rank 0 reads, load u from rank 1 + u % (size - 1)); 5: 2 as one dependent chain per thread",
      .defaults = patterns, .n_defaults = SMEM_ARRAY_LEN(patterns), .min = 0, .max = SMEM_DSM_BW_CHAIN,
      .defaults_only = true },
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access", .defaults = widths,
      .n_defaults = SMEM_ARRAY_LEN(widths), .min = 4, .max = 16, .defaults_only = true },
};

static int dsm_bandwidth_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                              char *why, size_t len)
{
    int64_t size = smem_axis_value(pt, "cluster_size"), path = smem_axis_value(pt, "path");
    int rc = smem_cluster_plan(size, SMEM_DSM_BW_BLOCK, dev, p, why, len);

    if (rc || (rc = smem_dsm_path_plan(path > SMEM_DSM_SELF ? SMEM_DSM_REMOTE : path, size, why, len)))
        return rc;
    if (path == SMEM_DSM_BW_ONEWAY && size % 2) {
        smem_fmt(why, len, "one-way pairs even ranks with odd ones: cluster_size %lld is odd", (long long)size);
        return SMEM_ESKIP;
    }
    if (path == SMEM_DSM_BW_FANIN && size < 3) {
        smem_fmt(why, len, "fan-in needs two or more blocks to read from: at cluster_size %lld it is path=3",
                 (long long)size);
        return SMEM_ESKIP;
    }
    p->grid = 0;    /* as many clusters as fit at once */
    p->variant = (int)path;
    p->work = ITERS;
    return SMEM_OK;
}

struct dsm_bandwidth_state {
    uint32_t *in, *out, *rec;           /* device */
    uint32_t *h_in, *h_out, *h_rec;     /* host; h_rec: per block its SM and its window's cycles */
    bool windows;                       /* h_rec holds a verified launch's records */
};

static int width(const struct smem_case *c)
{
    return (int)smem_axis_value(c, "width_bytes");
}

/* The blocks that load (one per SM): all of them, but one of two in one-way and one per cluster in
 * fan-in. */
static unsigned readers(const struct smem_case *c)
{
    unsigned n = 0;

    for (unsigned b = 0; b < c->grid; b++)
        n += smem_dsm_bw_target(c->plan->variant, b % c->plan->cluster, c->plan->cluster, 0) >= 0;
    return n;
}

static double bytes(const struct smem_case *c)
{
    return (double)readers(c) * SMEM_DSM_BW_BLOCK * (double)c->plan->work * SMEM_DSM_BW_UNROLL * width(c);
}

/* The per-block windows attributed to the GPCs of the device's map (core/device.h, src/gpc.c): each
 * GPC's slowest reading block, and how much longer the slowest GPC took than the fastest. A cluster
 * lives in one GPC, so a spread here is a GPC that serves its clusters slower (its size, its
 * position), the unit-dependent part of the launch's figure. */
static void gpc_windows(const struct smem_case *c, struct smem_metrics *m)
{
    const struct dsm_bandwidth_state *s = c->priv;
    const struct smem_gpc_map *g = &c->dev->gpc;
    uint32_t worst[SMEM_MAX_GPCS] = { 0 }, lo = UINT32_MAX, hi = 0;

    if (g->count < 2)
        return;
    for (unsigned b = 0; b < c->grid; b++) {
        uint32_t sm = s->h_rec[2 * b], w = s->h_rec[2 * b + 1];
        if (smem_dsm_bw_target(c->plan->variant, b % c->plan->cluster, c->plan->cluster, 0) < 0 || !w ||
            sm >= SMEM_MAX_SMS || g->sm_gpc[sm] < 0)
            continue;
        if (w > worst[g->sm_gpc[sm]])
            worst[g->sm_gpc[sm]] = w;
    }
    for (int i = 0; i < g->count; i++)
        if (worst[i]) {
            lo = worst[i] < lo ? worst[i] : lo;
            hi = worst[i] > hi ? worst[i] : hi;
        }
    if (hi)
        smem_metrics_add(m, "gpc_spread", "x", (double)hi / lo, 0, SMEM_LOWER_IS_BETTER);
}

/* From the verified launch's per-block windows (each block's cycles between its cluster's barriers,
 * in its own SM's clock): the fastest reading block's own rate, and how much longer the slowest
 * reading block's cluster took. The launch's figure is set by the slowest cluster; where clusters
 * differ (sizes 4 and up on the H200), these say by how much. */
static void windows(const struct smem_case *c, struct smem_metrics *m)
{
    const struct dsm_bandwidth_state *s = c->priv;
    uint32_t lo = UINT32_MAX, hi = 0;

    if (!s || !s->windows)
        return;
    for (unsigned b = 0; b < c->grid; b++) {
        uint32_t w = s->h_rec[2 * b + 1];
        if (smem_dsm_bw_target(c->plan->variant, b % c->plan->cluster, c->plan->cluster, 0) < 0 || !w)
            continue;
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
    }
    if (!hi)
        return;
    smem_metrics_add(m, "fastest_cluster_bytes_per_clk_sm", "B/clk/SM",
                     bytes(c) / readers(c) / (double)lo, BYTES_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "cluster_spread", "x", (double)hi / lo, 0, SMEM_LOWER_IS_BETTER);
    gpc_windows(c, m);
}

static void dsm_bandwidth_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    const unsigned r = readers(c);
    double bpc = t->seconds > 0 && t->clock_hz > 0 && r ? bytes(c) / (t->seconds * t->clock_hz * r) : 0;

    smem_metrics_add(m, "bytes_per_clk_sm", "B/clk/SM", bpc, BYTES_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "gbytes_per_s", "GB/s", t->seconds > 0 ? bytes(c) / t->seconds / 1e9 : 0,
                     BYTES_PER_CLK_SM * r * t->clock_hz / 1e9, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "sms", "SMs", (double)c->grid, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "reading_sms", "SMs", (double)r, 0, SMEM_HIGHER_IS_BETTER);
    windows(c, m);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(dsm_bandwidth, smem_dsm_bandwidth_fn(width(c), c->plan->variant))

static int dsm_bandwidth_setup(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = c->priv;
    size_t n_out = (size_t)c->grid * SMEM_DSM_BW_BLOCK;
    int rc = SMEM_OK;

    /* its own copy: the chase variant writes its links into the input */
    if ((rc = smem_gpu_random_private((size_t)SMEM_DSM_MAX_CLUSTER * SMEM_DSM_BW_WORDS, SMEM_FILL_WORDS, c->seed,
                              (void **)&s->in, (void **)&s->h_in)))
        return rc;
    if (c->plan->variant == SMEM_DSM_BW_CHAIN) {
        /* the first word of each element: the next element's offset, and the buffer's rank above it */
        const uint32_t w = (uint32_t)width(c);
        for (uint32_t r = 0; r < SMEM_DSM_MAX_CLUSTER; r++)
            for (uint32_t off = 0; off < SMEM_DSM_BW_WORDS * 4; off += w)
                s->h_in[r * SMEM_DSM_BW_WORDS + off / 4] = smem_dsm_bw_next(off, w) | r << 24;
        SMEM_CUDA_CHECK(cudaMemcpy(s->in, s->h_in, (size_t)SMEM_DSM_MAX_CLUSTER * SMEM_DSM_BW_WORDS * 4,
                                   cudaMemcpyHostToDevice));
    }
    if (!(s->h_out = malloc(n_out * 4)) || !(s->h_rec = malloc((size_t)c->grid * 8)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->rec, (size_t)c->grid * 8));
    SMEM_CUDA_CHECK(cudaMemset(s->out, 0xff, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemset(s->rec, 0xff, (size_t)c->grid * 8));
    return SMEM_OK;
fail:
    return rc;
}

SMEM_LAUNCH(dsm_bandwidth, struct dsm_bandwidth_state, s,
            smem_dsm_bandwidth_launch(width(c), c->plan->variant, c->grid, c->plan->cluster, c->plan->dyn_smem, s->in,
                                      s->out, s->rec, (int)c->plan->work, c->clk, c->stream))

/* The sum of the width-byte element at byte offset off of buf. */
static uint32_t element(const uint32_t *buf, uint32_t off, int width)
{
    uint32_t sum = 0;

    for (int k = 0; k < width / 4; k++)
        sum += buf[off / 4 + (unsigned)k];
    return sum;
}

/* What thread t of a block of rank `rank` summed: its loads' words, work times over; 0 for a block
 * that only serves. The chain's offsets repeat (its step divides the buffer), so one turn of it is
 * summed and scaled. */
static uint32_t want(const struct smem_case *c, const uint32_t *in, unsigned rank, unsigned t)
{
    const unsigned size = c->plan->cluster;
    const int w = width(c), pattern = c->plan->variant;
    const uint64_t steps = (uint64_t)c->plan->work * SMEM_DSM_BW_UNROLL;
    uint32_t once = 0;

    if (pattern == SMEM_DSM_BW_CHAIN) {
        const uint32_t *buf = in + (size_t)smem_dsm_bw_target(pattern, rank, size, 0) * SMEM_DSM_BW_WORDS;
        const uint32_t start = smem_dsm_bw_offset(t, 0, (uint32_t)w);
        uint32_t turn = 0, sum = 0, off = start;
        uint64_t len = 0;
        do {
            turn += element(buf, off, w);
            off = buf[off / 4] & SMEM_DSM_BW_OFFSET_MASK;
            len++;
        } while (off != start && len < steps);
        sum = turn * (uint32_t)(steps / len);
        for (uint64_t k = 0; k < steps % len; k++) {
            sum += element(buf, off, w);
            off = buf[off / 4] & SMEM_DSM_BW_OFFSET_MASK;
        }
        return sum;
    }
    for (unsigned u = 0; u < SMEM_DSM_BW_UNROLL; u++) {
        int target = smem_dsm_bw_target(pattern, rank, size, u);
        if (target < 0)
            return 0;
        once += element(in + (size_t)target * SMEM_DSM_BW_WORDS, smem_dsm_bw_offset(t, u, (uint32_t)w), w);
    }
    return once * (uint32_t)c->plan->work;
}

static int dsm_bandwidth_verify(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_out, s->out, (size_t)c->grid * SMEM_DSM_BW_BLOCK * 4, cudaMemcpyDeviceToHost));
    SMEM_CUDA_CHECK(cudaMemcpy(s->h_rec, s->rec, (size_t)c->grid * 8, cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < c->grid; b++) {
        unsigned rank = b % c->plan->cluster;
        for (unsigned t = 0; t < SMEM_DSM_BW_BLOCK; t++) {
            uint32_t got = s->h_out[(size_t)b * SMEM_DSM_BW_BLOCK + t], ref = want(c, s->h_in, rank, t);
            if (got != ref)
                return smem_mismatch_u32(c->reason, sizeof(c->reason), "sum", SMEM_DSM_BW_BLOCK,
                                         (size_t)b * SMEM_DSM_BW_BLOCK + t, got, ref);
        }
        /* one block per SM: a block sharing an SM would make "remote" local and the per-SM figure wrong */
        for (unsigned o = 0; o < b; o++)
            if (s->h_rec[2 * o] == s->h_rec[2 * b]) {
                smem_fmt(c->reason, sizeof(c->reason), "blocks %u and %u both ran on SM %u: the allocation of %zu "
                         "bytes did not keep one block per SM", o, b, s->h_rec[2 * b], c->plan->dyn_smem);
                return SMEM_EVERIFY;
            }
    }
    s->windows = true;
    return SMEM_OK;
fail:
    return rc;
}

static void dsm_bandwidth_teardown(struct smem_case *c)
{
    struct dsm_bandwidth_state *s = c->priv;

    smem_gpu_input_release(c->inputs, s->in, s->h_in);
    cudaFree(s->out);
    cudaFree(s->rec);
    free(s->h_out);
    free(s->h_rec);
}

#endif

const struct smem_bench smem_dsm_bandwidth_bench = {
    .name = "dsm_bandwidth",
    .summary = "cc 9.0: load throughput from other blocks' shared memory in the cluster (B/clk per reading SM, "
               "checked against 128): exchange, one-way, fan-in and a dependent chain; 4/8/16-byte accesses",
    .axes = dsm_bandwidth_axes,
    .n_axes = SMEM_ARRAY_LEN(dsm_bandwidth_axes),
    .sweeps = { "cluster" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 2.0, 4.0),
    .predictable = true,    /* predict mode records every point skipped, with the reason */
    .predict_skips = true,  /* the calculator has no clusters: --list does not offer --predict */
    .kernel_file = "dsm_bandwidth",
    .min_cc = 90,
    .min_cc_feature = "distributed shared memory",
    .plan = dsm_bandwidth_plan,
    .check_work = 2,
    .metrics = dsm_bandwidth_metrics,
    SMEM_GPU_OPS(.kernel = dsm_bandwidth_kernel, .priv_size = sizeof(struct dsm_bandwidth_state),
                 .setup = dsm_bandwidth_setup, .launch = dsm_bandwidth_launch, .verify = dsm_bandwidth_verify,
                 .teardown = dsm_bandwidth_teardown)
};
