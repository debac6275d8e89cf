/* Global -> shared staging: moving tiles of 1 KiB up to the opt-in ceiling from global into shared
 * memory by plain loads and stores (method 0), cp.async of 4/8/16 bytes (method 1, cc 8.0) or one
 * cp.async.bulk per tile completing on an mbarrier (method 2, cc 9.0), four tiles in flight per
 * block where they fit. A full wave of blocks loops over 256 MiB (several times any L2), so the
 * figure is held against the same run's global read bandwidth (pct_of_read, from global_read):
 * the smallest tile reaching 90 % of it is what a kernel needs to stage per operation. Every word
 * that landed in shared memory is checked through the per-thread hash the host reproduces. */
#include "staging_ref.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "feature.h"
#include "smem.h"

#define K 1024

static const int64_t methods[] = { SMEM_STAGING_PLAIN, SMEM_STAGING_CP_ASYNC, SMEM_STAGING_BULK };
static const int64_t widths[] = { 4, 8, 16 };
static const int64_t quick_widths[] = { 4, 16 };
static const int64_t tiles[] = { 1 * K, 2 * K, 4 * K, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K };
static const int64_t quick_tiles[] = { 1 * K, 8 * K, 64 * K };
static const int64_t mibs[] = { 256 };
static const int64_t quick_mibs[] = { 64 };

static const struct smem_axis staging_axes[] = {
    { .name = "method", .unit = "enum", .help = "0: ld.global + st.shared; 1: cp.async (cc 8.0); 2: cp.async.bulk "
      "with an mbarrier (cc 9.0)", .defaults = methods, .n_defaults = SMEM_ARRAY_LEN(methods), .min = 0, .max = 2,
      .defaults_only = true },
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access (methods 0 and 1; the bulk copy "
      "runs at 16 only)", .defaults = widths, .n_defaults = SMEM_ARRAY_LEN(widths), .quick = quick_widths,
      .n_quick = SMEM_ARRAY_LEN(quick_widths), .min = 4, .max = 16, .defaults_only = true },
    { .name = "transfer_bytes", .unit = "bytes", .help = "tile moved per operation (a multiple of 16); the "
      "default adds this device's opt-in maximum", .defaults = tiles, .n_defaults = SMEM_ARRAY_LEN(tiles),
      .quick = quick_tiles, .n_quick = SMEM_ARRAY_LEN(quick_tiles), .min = 16, .max = 228 * K },
    { .name = "mib", .unit = "MiB", .help = "data staged per launch (at least one tile per block)", .defaults = mibs,
      .n_defaults = SMEM_ARRAY_LEN(mibs), .quick = quick_mibs, .n_quick = SMEM_ARRAY_LEN(quick_mibs), .min = 1,
      .max = 16384 },
};

int64_t smem_staging_max_tile(const struct smem_device *dev)
{
    return (dev->smem_per_block_optin - SMEM_STAGING_BULK_STATIC) / 16 * 16;
}

int smem_staging_stages(int method, int64_t tile_bytes, const struct smem_device *dev)
{
    int64_t fit = (dev->smem_per_block_optin - (method == SMEM_STAGING_BULK ? SMEM_STAGING_BULK_STATIC : 0)) /
                  tile_bytes;

    if (fit < 1)
        return 0;
    if (method == SMEM_STAGING_PLAIN)
        return 1;
    return fit < SMEM_STAGING_STAGES ? (int)fit : SMEM_STAGING_STAGES;
}

static int staging_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                        size_t len)
{
    int64_t method = smem_axis_value(pt, "method"), width = smem_axis_value(pt, "width_bytes");
    int64_t tile = smem_axis_value(pt, "transfer_bytes");
    int stages, rc = SMEM_OK;

    if (tile % 16) {
        smem_fmt(why, len, "transfer_bytes %lld is not a multiple of 16 (the unit of cp.async.bulk and of 16-byte "
                 "accesses)", (long long)tile);
        return SMEM_ESKIP;
    }
    if (method == SMEM_STAGING_BULK && width != 16) {
        smem_fmt(why, len, "cp.async.bulk moves a whole tile in one instruction: it has no per-thread width and "
                 "runs at width_bytes=16 only");
        return SMEM_ESKIP;
    }
    if (method == SMEM_STAGING_CP_ASYNC)
        rc = smem_feature_plan(dev, 8, 0, "cp.async", why, len);
    else if (method == SMEM_STAGING_BULK)
        rc = smem_feature_plan(dev, 9, 0, "cp.async.bulk and mbarrier transaction counts", why, len);
    if (rc)
        return rc;
    if (!(stages = smem_staging_stages((int)method, tile, dev))) {
        smem_fmt(why, len, "a %lld-byte tile exceeds the opt-in ceiling of %lld bytes per block on %s",
                 (long long)tile, (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    p->block = SMEM_STAGING_BLOCK;
    p->grid = 0;    /* a full wave; each block loops over its tiles */
    p->static_smem = method == SMEM_STAGING_BULK ? SMEM_STAGING_BULK_STATIC : 0;
    p->dyn_smem = (size_t)(stages * tile);
    p->optin = (int64_t)p->dyn_smem > dev->smem_per_block - (int64_t)p->static_smem;
    p->regs = 32;
    p->variant = (int)method;
    p->work = smem_axis_value(pt, "mib") << 20;   /* bytes requested; setup rounds to whole tiles per block */
    return SMEM_OK;
}

/* Powers of two from 1 KiB and the largest tile every method can stage on this device. */
static size_t staging_device_defaults(const struct smem_device *dev, const char *axis,
                                      int (*blocks)(const struct smem_device *dev, const struct smem_plan *p),
                                      int64_t *out, size_t max)
{
    int64_t top = smem_staging_max_tile(dev);
    size_t n = 0;

    (void)blocks;
    if (strcmp(axis, "transfer_bytes") || !max)
        return 0;
    for (int64_t t = K; t < top && n + 1 < max; t *= 2)
        out[n++] = t;
    out[n++] = top;
    return n;
}

void smem_staging_ref(const uint32_t *in, uint32_t tile_words, uint32_t tiles_per_block, unsigned grid,
                      unsigned block, uint32_t *out)
{
    for (unsigned b = 0; b < grid; b++) {
        uint32_t *h = out + (size_t)b * block;
        for (unsigned t = 0; t < block; t++)
            h[t] = 0;
        for (uint32_t k = 0; k < tiles_per_block; k++) {
            const uint32_t *tile = in + ((size_t)b + (size_t)k * grid) * tile_words;
            for (uint32_t i = 0, t = 0; i < tile_words; i++, t = t + 1 == block ? 0 : t + 1)
                h[t] = smem_staging_fold(h[t], tile[i]);
        }
    }
}

struct staging_state {
    uint32_t tiles_per_block;
    uint32_t *in, *out;         /* device */
    uint32_t *h_in, *h_out, *h_ref;
};

/* Tiles in flight per block: the plan's dynamic allocation holds exactly that many. */
static int stages(const struct smem_case *c)
{
    return (int)(c->plan->dyn_smem / (size_t)smem_axis_value(c, "transfer_bytes"));
}

static double moved_bytes(const struct smem_case *c)
{
    const struct staging_state *s = c->priv;

    return s ? (double)c->grid * s->tiles_per_block * (double)smem_axis_value(c, "transfer_bytes") : 0;
}

static void staging_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    smem_metrics_add(m, "gbytes_per_s", "GB/s", t->seconds > 0 ? moved_bytes(c) / t->seconds / 1e9 : 0, 0,
                     SMEM_HIGHER_IS_BETTER);
    /* the pipeline depth the tile allowed: more tiles in flight hide more latency */
    smem_metrics_add(m, "stages", "tiles", stages(c), 0, SMEM_HIGHER_IS_BETTER);
}

static const struct smem_baseline vs_read = {
    .bench = "global_read", .metric = "gbytes_per_s", .derived = "pct_of_read", .unit = "%",
    .this_over_baseline = true, .scale = 100, .better = SMEM_HIGHER_IS_BETTER,
};

#if SMEM_HAVE_CUDA

static const void *staging_kernel(const struct smem_case *c)
{
    return smem_staging_fn(c->plan->variant, (int)smem_axis_value(c, "width_bytes"));
}

static int staging_setup(struct smem_case *c)
{
    struct staging_state *s = calloc(1, sizeof(*s));
    const int method = c->plan->variant;
    const uint64_t tile = (uint64_t)smem_axis_value(c, "transfer_bytes");
    const uint64_t total = (uint64_t)c->plan->work;
    size_t n_in, n_out = (size_t)c->grid * SMEM_STAGING_BLOCK;
    int rc = SMEM_OK;

    if (!(c->priv = s))
        return SMEM_ENOMEM;
    if (method == SMEM_STAGING_CP_ASYNC)
        rc = smem_feature_built(staging_kernel(c), 80, "cp.async", c->reason, sizeof(c->reason));
    else if (method == SMEM_STAGING_BULK)
        rc = smem_feature_built(staging_kernel(c), 90, "cp.async.bulk", c->reason, sizeof(c->reason));
    if (rc)
        return rc;
    /* the same number of tiles for every block, so no block finishes a tile behind the others */
    s->tiles_per_block = (uint32_t)(total / tile / c->grid);
    if (s->tiles_per_block < 1)
        s->tiles_per_block = 1;
    /* the whole request is drawn (the tiles are its first grid * tiles_per_block), so every point of
     * the sweep, and global_read, share one input and draw it once */
    n_in = (size_t)c->grid * s->tiles_per_block * (size_t)(tile / 4);
    if (n_in < total / 4)
        n_in = (size_t)(total / 4);
    if ((rc = smem_gpu_random(n_in, SMEM_FILL_WORDS, c->seed, (void **)&s->in, (void **)&s->h_in)))
        return rc;
    if (!(s->h_out = malloc(n_out * 4)) || !(s->h_ref = malloc(n_out * 4)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemset(s->out, 0xff, n_out * 4));
    smem_staging_ref(s->h_in, (uint32_t)(tile / 4), s->tiles_per_block, c->grid, SMEM_STAGING_BLOCK, s->h_ref);
    return SMEM_OK;
fail:
    return rc;
}

static int staging_launch(struct smem_case *c)
{
    struct staging_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_staging_launch(c->plan->variant, (int)smem_axis_value(c, "width_bytes"), c->grid,
                                        c->plan->dyn_smem, s->in, (uint32_t)smem_axis_value(c, "transfer_bytes"),
                                        s->tiles_per_block, stages(c), s->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

static int staging_verify(struct smem_case *c)
{
    struct staging_state *s = c->priv;
    size_t n_out = (size_t)c->grid * SMEM_STAGING_BLOCK;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_out, s->out, n_out * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n_out; i++)
        if (s->h_out[i] != s->h_ref[i]) {
            smem_fmt(c->reason, sizeof(c->reason), "block %zu thread %zu hashed 0x%08x, the host reference 0x%08x "
                     "(a word of its tiles did not land where it belongs)", i / SMEM_STAGING_BLOCK,
                     i % SMEM_STAGING_BLOCK, s->h_out[i], s->h_ref[i]);
            return SMEM_EVERIFY;
        }
    return SMEM_OK;
fail:
    return rc;
}

static void staging_teardown(struct smem_case *c)
{
    struct staging_state *s = c->priv;

    if (!s)
        return;
    cudaFree(s->in);
    cudaFree(s->out);
    free(s->h_in);
    free(s->h_out);
    free(s->h_ref);
    free(s);
    c->priv = NULL;
}

#endif

const struct smem_bench smem_staging_bench = {
    .name = "staging",
    .summary = "global -> shared by loads/stores, cp.async (cc 8.0) and cp.async.bulk + mbarrier (cc 9.0), tiles "
               "of 1 KiB to the opt-in maximum: GB/s against the measured global read bandwidth",
    .axes = staging_axes,
    .n_axes = SMEM_ARRAY_LEN(staging_axes),
    .sweeps = { "staging" },
    .predictable = true,
    .kernel_file = "staging",
    .plan = staging_plan,
    .metrics = staging_metrics,
    .baseline = &vs_read,
    .device_defaults = staging_device_defaults,
#if SMEM_HAVE_CUDA
    .kernel = staging_kernel,
    .setup = staging_setup,
    .launch = staging_launch,
    .verify = staging_verify,
    .teardown = staging_teardown,
#endif
};
