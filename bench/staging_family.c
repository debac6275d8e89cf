/* Global -> shared staging, the family's shared part: tiles of 1 KiB up to the opt-in ceiling move
 * from global into shared memory (plain loads and stores, cp.async, or one cp.async.bulk per tile on
 * an mbarrier, by descriptor), four tiles in flight per block, more (up to eight) where four would
 * leave an SM one block. A full wave of blocks
 * loops over 256 MiB (several times any L2), each block over the same number of tiles, and every
 * word that landed in shared memory enters a per-thread hash the host reproduces. The figure is
 * held against the same run's global read bandwidth (pct_of_read, from global_read): the smallest
 * tile reaching 90 % of it is what a kernel needs to stage per operation. */
#include "staging_family.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "smem.h"

const int64_t smem_staging_widths[3] = { 4, 8, 16 };
const int64_t smem_staging_quick_widths[2] = { 4, 16 };
const int64_t smem_staging_tiles[8] = { 1 * SMEM_KIB, 2 * SMEM_KIB, 4 * SMEM_KIB, 8 * SMEM_KIB, 16 * SMEM_KIB,
                                        32 * SMEM_KIB, 64 * SMEM_KIB, 128 * SMEM_KIB };
const int64_t smem_staging_quick_tiles[3] = { 1 * SMEM_KIB, 8 * SMEM_KIB, 64 * SMEM_KIB };
const int64_t smem_staging_mibs[1] = { 256 };
const int64_t smem_staging_quick_mibs[1] = { 64 };

const struct smem_baseline smem_vs_read = {
    .bench = "global_read", .metric = "gbytes_per_s", .derived = "pct_of_read", .unit = "%",
    .this_over_baseline = true, .scale = 100, .better = SMEM_HIGHER_IS_BETTER,
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
    /* room for a second block: two allocations, each with its static part and the per-block reserve */
    if (2 * (SMEM_STAGING_STAGES * tile_bytes + (method == SMEM_STAGING_BULK ? SMEM_STAGING_BULK_STATIC : 0) +
             dev->reserved_smem_per_block) <= dev->smem_per_sm)
        return SMEM_STAGING_STAGES;
    return fit < SMEM_STAGING_MAX_STAGES ? (int)fit : SMEM_STAGING_MAX_STAGES;
}

int smem_staging_plan(const struct smem_point *pt, int method, const struct smem_device *dev, struct smem_plan *p,
                      char *why, size_t len)
{
    int64_t tile = smem_axis_value(pt, "transfer_bytes");
    int stages;

    if (tile % 16) {
        smem_fmt(why, len, "transfer_bytes %lld is not a multiple of 16 (the unit of cp.async.bulk and of 16-byte "
                 "accesses)", (long long)tile);
        return SMEM_ESKIP;
    }
    if (!(stages = smem_staging_stages(method, tile, dev))) {
        if (method == SMEM_STAGING_BULK && tile <= dev->smem_per_block_optin)
            /* the tile alone fits: the barriers beside it are what do not */
            smem_fmt(why, len, "a %lld-byte tile and the bulk copy's %d bytes of mbarriers (%lld bytes) exceed the "
                     "opt-in ceiling of %lld bytes per block on %s", (long long)tile, SMEM_STAGING_BULK_STATIC,
                     (long long)(tile + SMEM_STAGING_BULK_STATIC), (long long)dev->smem_per_block_optin, dev->name);
        else
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
    p->variant = method;
    p->work = smem_axis_value(pt, "mib") << 20;   /* bytes requested; setup rounds to whole tiles per block */
    return SMEM_OK;
}

size_t smem_staging_device_defaults(const struct smem_device *dev, const char *axis, bool quick,
                                    int (*blocks)(const struct smem_device *dev, const struct smem_plan *p),
                                    int64_t *out, size_t max)
{
    int64_t top = smem_staging_max_tile(dev);
    size_t n = 0;

    (void)blocks;
    if (strcmp(axis, "transfer_bytes") || !max)
        return 0;
    if (quick) {
        for (size_t i = 0; i < SMEM_ARRAY_LEN(smem_staging_quick_tiles) && n < max; i++)
            if (smem_staging_quick_tiles[i] <= top)
                out[n++] = smem_staging_quick_tiles[i];
        return n;
    }
    for (int64_t t = SMEM_KIB; t < top && n + 1 < max; t *= 2)
        out[n++] = t;
    out[n++] = top;
    return n;
}

struct ref_job {
    const uint32_t *in;
    uint32_t tile_words, tiles_per_block;
    unsigned grid, block;
    uint32_t *out;
};

static int ref_blocks(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct ref_job *j = arg;
    const uint32_t *in = j->in;
    uint32_t tile_words = j->tile_words, tiles_per_block = j->tiles_per_block;
    unsigned grid = j->grid, block = j->block;
    uint32_t *out = j->out;

    (void)why, (void)why_len;
    for (unsigned b = (unsigned)begin; b < end; b++) {
        uint32_t *h = out + (size_t)b * block;
        for (unsigned t = 0; t < block; t++)
            h[t] = 0;
        for (uint32_t k = 0; k < tiles_per_block; k++) {
            const uint32_t *tile = in + ((size_t)b + (size_t)k * grid) * tile_words;
            for (uint32_t i = 0, t = 0; i < tile_words; i++, t = t + 1 == block ? 0 : t + 1)
                h[t] = smem_staging_fold(h[t], tile[i]);
        }
    }
    return SMEM_OK;
}

void smem_staging_ref(const uint32_t *in, uint32_t tile_words, uint32_t tiles_per_block, unsigned grid,
                      unsigned block, uint32_t *out)
{
    struct ref_job j = { in, tile_words, tiles_per_block, grid, block, out };

    /* the blocks' hashes are independent: 256 MiB hashed on every host core */
    smem_parallel_for(grid, ref_blocks, &j, NULL, 0);
}

/* Tiles in flight per block: the plan's dynamic allocation holds exactly that many. */
static int stages(const struct smem_case *c)
{
    return (int)(c->plan->dyn_smem / (size_t)smem_axis_value(c, "transfer_bytes"));
}

void smem_staging_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    const struct smem_staging *s = c->priv;
    double bytes = s ? (double)c->grid * s->tiles_per_block * (double)smem_axis_value(c, "transfer_bytes") : 0;

    smem_metrics_add(m, "gbytes_per_s", "GB/s", t->seconds > 0 ? bytes / t->seconds / 1e9 : 0, 0,
                     SMEM_HIGHER_IS_BETTER);
    /* the pipeline depth the tile allowed: more tiles in flight hide more latency */
    smem_metrics_add(m, "stages", "tiles", stages(c), 0, SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

/* The access width of the case: its axis, or 16 for the bulk copy that has none. */
static int width(const struct smem_case *c)
{
    return smem_bench_axis(c->bench, "width_bytes") >= 0 ? (int)smem_axis_value(c, "width_bytes") : 16;
}

const void *smem_staging_kernel(const struct smem_case *c)
{
    return smem_staging_fn(c->plan->variant, width(c));
}

int smem_staging_setup(struct smem_case *c)
{
    struct smem_staging *s = c->priv;
    const uint64_t tile = (uint64_t)smem_axis_value(c, "transfer_bytes"), total = (uint64_t)c->plan->work;
    size_t n_in, n_out = (size_t)c->grid * SMEM_STAGING_BLOCK;
    int rc = SMEM_OK;

    /* the same number of tiles for every block, so no block finishes a tile behind the others */
    s->tiles_per_block = (uint32_t)(total / tile / c->grid);
    if (s->tiles_per_block < 1)
        s->tiles_per_block = 1;
    /* the whole request is drawn (the tiles are its first grid * tiles_per_block), so every point of
     * the sweep, and global_read, share one input and draw it once */
    n_in = (size_t)c->grid * s->tiles_per_block * (size_t)(tile / 4);
    if (n_in < total / 4)
        n_in = (size_t)(total / 4);
    if ((rc = smem_gpu_random(c->inputs, n_in, SMEM_FILL_WORDS, c->seed, (void **)&s->in, (void **)&s->h_in)))
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

int smem_staging_run(struct smem_case *c)
{
    struct smem_staging *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_staging_launch(c->plan->variant, width(c), c->grid, c->plan->dyn_smem, s->in,
                                        (uint32_t)smem_axis_value(c, "transfer_bytes"), s->tiles_per_block, stages(c),
                                        s->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

int smem_staging_verify(struct smem_case *c)
{
    struct smem_staging *s = c->priv;
    size_t n_out = (size_t)c->grid * SMEM_STAGING_BLOCK;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_out, s->out, n_out * 4, cudaMemcpyDeviceToHost));
    if ((rc = smem_check_u32(c->reason, sizeof(c->reason), "hash", SMEM_STAGING_BLOCK, s->h_out, s->h_ref, n_out)))
        smem_append(c->reason, sizeof(c->reason), ": ", "a word of its tiles did not land where it belongs");
    return rc;
fail:
    return rc;
}

void smem_staging_teardown(struct smem_case *c)
{
    struct smem_staging *s = c->priv;

    smem_gpu_input_release(c->inputs, s->in, s->h_in);
    cudaFree(s->out);
    free(s->h_out);
    free(s->h_ref);
}

#endif
