/* The carveout's shared-memory side: each block stages a fixed tile and writes it back combined
 * with the tile reversed. How many tiles an SM holds at once follows the carveout step the
 * preference rounds up to, and this latency-bound copy gets faster with every extra resident block.
 * The tile is sized from the device: the largest whole KiB (reservation included) of which the
 * per-SM maximum holds one block fewer than the SM's thread slots allow (7 on 2048-thread SMs: 31
 * KiB + 1 KiB on the H200), so at full carveout shared memory, not threads, is the limit. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "common.h"
#include "footprint_launch.h"
#include "smem.h"

static const int64_t tiles[] = { 31 * SMEM_KIB };   /* the rule below on a 228 KiB, 2048-thread SM */
static const int64_t mibs[] = { 256 };   /* far larger than L2 */

static const struct smem_axis footprint_axes[] = {
    SMEM_CARVEOUT_AXIS,
    { .name = "tile_bytes", .unit = "bytes", .help = "shared memory each block stages (multiple of 4)",
      .defaults = tiles, .n_defaults = SMEM_ARRAY_LEN(tiles), .min = 4, .max = 228 * SMEM_KIB,
      .from_device = true },
    { .name = "mib", .unit = "MiB", .help = "data staged through the tiles", .defaults = mibs,
      .n_defaults = SMEM_ARRAY_LEN(mibs), .min = 1, .max = 16384 },
};

static int footprint_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    int64_t tile = smem_axis_value(pt, "tile_bytes"), mib = smem_axis_value(pt, "mib");
    uint32_t tile_len = (uint32_t)(tile / 4);
    uint64_t total = (uint64_t)mib << 18;  /* floats */

    if (tile % 4) {
        smem_fmt(why, len, "tile_bytes %lld is not a whole number of floats", (long long)tile);
        return SMEM_ESKIP;
    }
    if (tile > dev->smem_per_block_optin) {
        smem_fmt(why, len, "a %lld-byte tile exceeds the opt-in ceiling of %lld bytes per block on %s",
                 (long long)tile, (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    p->block = SMEM_FOOTPRINT_BLOCK;
    if (total < tile_len) {
        smem_fmt(why, len, "%lld MiB do not fill one %lld-byte tile", (long long)mib, (long long)tile);
        return SMEM_ESKIP;
    }
    p->grid = (unsigned)(total / tile_len);
    p->dyn_smem = (size_t)tile;
    p->static_smem = 0;
    p->regs = 32;
    p->carveout_pct = (int)smem_axis_value(pt, "carveout_pct");
    p->optin = tile > dev->smem_per_block;
    p->work = (int64_t)p->grid * tile_len;
    return SMEM_OK;
}

/* The tile of dev: residency target R = thread slots of 256-thread blocks less one (what the
 * kernel's launch bounds reserve registers for), per block the largest whole KiB that R blocks fit
 * in the per-SM maximum, the reservation taken off. */
static int64_t tile_of(const struct smem_device *dev)
{
    int resident = dev->max_threads_per_sm / SMEM_FOOTPRINT_BLOCK - 1;
    int64_t per_block;

    if (resident < 1)
        resident = 1;
    per_block = dev->smem_per_sm / resident / (int64_t)SMEM_KIB * (int64_t)SMEM_KIB;
    if (per_block - dev->reserved_smem_per_block > dev->smem_per_block_optin)
        per_block = dev->smem_per_block_optin + dev->reserved_smem_per_block;
    return per_block - dev->reserved_smem_per_block;
}

static size_t footprint_device_defaults(const struct smem_device *dev, const char *axis, bool quick,
                                        int (*blocks)(const struct smem_device *dev, const struct smem_plan *p),
                                        int64_t *out, size_t max)
{
    (void)blocks;
    if (!strcmp(axis, "carveout_pct"))
        return smem_carveout_device_pcts(dev, quick, out, max);
    if (!strcmp(axis, "tile_bytes") && max > 0 && tile_of(dev) >= 4) {
        out[0] = tile_of(dev);
        return 1;
    }
    return 0;
}

static void footprint_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    /* each element read once and written once */
    smem_metrics_add(m, "gbytes_per_s", "GB/s", 2.0 * (double)c->plan->work * sizeof(float) / t->seconds / 1e9, 0,
                     SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(footprint, smem_footprint_fn())

static int footprint_setup(struct smem_case *c)
{
    return smem_io_setup(c, (size_t)c->plan->work, (size_t)c->plan->work, SMEM_FILL_FLOATS);
}

SMEM_LAUNCH(footprint, struct smem_io, io,
            smem_footprint_launch(c->grid, c->plan->dyn_smem, io->in, io->out, c->clk, c->stream))

static int verify_tiles(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct smem_io *io = c->priv;
    const float *in = io->h_in, *out = io->h_out;
    size_t tile_len = c->plan->dyn_smem / 4, n = (size_t)c->plan->work;

    /* tile by tile, with no division per element (a divide per element was most of the point's time) */
    for (size_t base = begin * tile_len; base < n && base < end * tile_len; base += tile_len) {
        size_t len = n - base < tile_len ? n - base : tile_len;
        for (size_t k = 0; k < len; k++) {
            size_t i = base + k;
            /* x + 2y: the doubling is exact, so fused or not the result is one rounding: exact match */
            float want = in[i] + 2.0f * in[base + tile_len - 1 - k];
            if (out[i] != want)
                return smem_mismatch_f32(why, why_len, "out", 0, i, out[i], want);
        }
    }
    return SMEM_OK;
}

static int footprint_verify(struct smem_case *c)
{
    size_t tile_len = c->plan->dyn_smem / 4, n = (size_t)c->plan->work;
    int rc;

    if ((rc = smem_io_fetch(c->priv)))
        return rc;
    return smem_parallel_for((n + tile_len - 1) / tile_len, verify_tiles, c, c->reason, sizeof(c->reason));
}

#endif

const struct smem_bench smem_footprint_bench = {
    .name = "footprint",
    .summary = "a fixed shared-memory tile per block: more carveout, more resident blocks, faster",
    .axes = footprint_axes,
    .n_axes = SMEM_ARRAY_LEN(footprint_axes),
    .sweeps = { "carveout" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 5.0, 0.0),
    .predictable = true,
    .kernel_file = "footprint",
    .plan = footprint_plan,
    .metrics = footprint_metrics,
    .device_defaults = footprint_device_defaults,
    SMEM_GPU_OPS(.kernel = footprint_kernel, .setup = footprint_setup, .launch = footprint_launch,
                 .verify = footprint_verify, SMEM_IO_STATE)
};
