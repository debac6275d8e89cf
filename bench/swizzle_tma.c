/* TMA tensor copies (cc 9.0) in each swizzle mode: cp.async.bulk.tensor.2d from a CUtensorMap
 * (SWIZZLE_NONE, 32B, 64B, 128B; interleave none) lands 16 KiB tiles of 128-byte rows, four stages
 * deep on mbarriers, and a consumer reads every landed tile back through the mode's layout: plain
 * 16-byte loads, or ldmatrix.x4 as a tensor-core kernel would. GB/s against the same run's global read
 * bandwidth, and the bank model's passes per consumer instruction: without a swizzle, ldmatrix on
 * 128-byte rows is 8-way conflicted, and the consumer, not the copy, can set the pace. */
#include "bench.h"
#include "check.h"
#include "common.h"
#include "smem.h"
#include "staging_family.h"
#include "swizzle_family.h"

#include <stdlib.h>

static const int64_t swizzles[] = { 0, 32, 64, 128 };
static const int64_t consumers[] = { SMEM_SWZ_CONSUME_LOADS, SMEM_SWZ_CONSUME_LDMATRIX };
static const int64_t mibs[] = { 256 }, quick_mibs[] = { 64 };

static const struct smem_axis axes[] = {
    { .name = "swizzle_bytes", .unit = "bytes", .help = "TMA swizzle mode: 0 none, 32, 64, 128",
      .defaults = swizzles, .n_defaults = 4, .min = 0, .max = 128, .defaults_only = true },
    { .name = "consumer", .unit = "code", .help = "how the landed tile is read: 0 ld.shared.v4, 1 ldmatrix.x4",
      .defaults = consumers, .n_defaults = 2, .min = 0, .max = 1, .defaults_only = true },
    { .name = "mib", .unit = "MiB", .help = "data copied per launch (the same as global_read's)", .defaults = mibs,
      .n_defaults = 1, .quick = quick_mibs, .n_quick = 1, .min = 1, .max = 16384 },
};

static int plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                size_t len)
{
    p->block = SMEM_SWZ_BLOCK;
    p->grid = 0;
    p->static_smem = SMEM_SWZ_TMA_STAGES * 8;
    p->dyn_smem = (size_t)SMEM_SWZ_TMA_STAGES * SMEM_SWZ_TMA_TILE + SMEM_SWZ_ALIGN;
    if ((int64_t)(p->dyn_smem + p->static_smem) > dev->smem_per_block_optin) {
        smem_fmt(why, len, "%zu bytes of stages exceed the opt-in ceiling of %lld bytes per block on %s", p->dyn_smem,
                 (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    p->optin = (int64_t)p->dyn_smem > dev->smem_per_block - (int64_t)p->static_smem;
    p->regs = 32;
    p->variant = (int)smem_axis_value(pt, "consumer");
    p->work = smem_axis_value(pt, "mib") << 20;
    return SMEM_OK;
}

struct tma_state {
    uint32_t tiles_per_block;
    void *in;                   /* device, rows x 128 bytes */
    uint32_t *out;              /* device, a hash per thread */
    uint32_t *h_in, *h_out;
    struct smem_tensor_map map;
};

static void metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    const struct tma_state *s = c->priv;
    double bytes = s ? (double)c->grid * s->tiles_per_block * SMEM_SWZ_TMA_TILE : 0;

    smem_metrics_add(m, "gbytes_per_s", "GB/s", t->seconds > 0 ? bytes / t->seconds / 1e9 : 0, 0,
                     SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "consumer_wavefronts", "passes/instruction",
                     smem_swz_tma_wavefronts((int)smem_axis_value(c, "swizzle_bytes"), c->plan->variant), 0,
                     SMEM_LOWER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

static const void *kernel(const struct smem_case *c)
{
    return smem_swz_tma_fn(c->plan->variant);
}

static int setup(struct smem_case *c)
{
    struct tma_state *s = c->priv;
    uint64_t total = (uint64_t)c->plan->work, tiles, rows;
    size_t n_out = (size_t)c->grid * SMEM_SWZ_BLOCK;
    int swz = (int)smem_axis_value(c, "swizzle_bytes"), drv = 0, rc = SMEM_OK, e;

    tiles = total / SMEM_SWZ_TMA_TILE;
    s->tiles_per_block = (uint32_t)(tiles / c->grid);
    if (s->tiles_per_block < 1)
        s->tiles_per_block = 1;
    rows = (uint64_t)c->grid * s->tiles_per_block * SMEM_SWZ_TMA_ROWS;
    if (rows * SMEM_SWZ_TMA_ROW_BYTES < total)
        rows = total / SMEM_SWZ_TMA_ROW_BYTES;
    /* the same words as global_read's and the staging family's input of this size */
    if ((rc = smem_gpu_random(c->inputs, rows * SMEM_SWZ_TMA_ROW_BYTES / 4, SMEM_FILL_WORDS, c->seed, &s->in,
                              (void **)&s->h_in)))
        return rc;
    if ((e = smem_swz_tma_encode(&s->map, s->in, rows, swz, &drv))) {
        if (e == (int)cudaErrorNotSupported) {
            smem_fmt(c->reason, sizeof(c->reason), "the driver has no cuTensorMapEncodeTiled: TMA tensor copies need "
                     "a CUDA 12 driver");
            return SMEM_ESKIP;
        }
        smem_fmt(c->reason, sizeof(c->reason), "cuTensorMapEncodeTiled refused the %d-byte swizzle map (CUresult %d)",
                 swz, drv);
        return drv ? SMEM_ESKIP : SMEM_CUDA_STATUS((cudaError_t)e);
    }
    if (!(s->h_out = malloc(n_out * 4)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemset(s->out, 0xff, n_out * 4));
    return SMEM_OK;
fail:
    return rc;
}

static int run(struct smem_case *c)
{
    struct tma_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_swz_tma_launch(c->plan->variant, (int)smem_axis_value(c, "swizzle_bytes"), c->grid,
                                        c->plan->dyn_smem, &s->map, s->tiles_per_block, s->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

/* What thread t of block b folds: its loads' or its ldmatrix fragments' words, tile by tile. The
 * landed layout does not enter: read through it, every word is where the logical tile has it. */
static uint32_t ref(const struct tma_state *s, unsigned grid, unsigned b, int t, int consumer)
{
    uint32_t h = 0;

    for (uint32_t k = 0; k < s->tiles_per_block; k++) {
        const uint32_t *tile = s->h_in + ((size_t)b + (size_t)k * grid) * (SMEM_SWZ_TMA_TILE / 4);
        if (consumer == SMEM_SWZ_CONSUME_LOADS) {
            for (uint32_t c = (uint32_t)t; c < SMEM_SWZ_TMA_TILE / 16; c += SMEM_SWZ_BLOCK)
                for (int w = 0; w < 4; w++)
                    h = smem_swz_fold(h, tile[c * 4 + w]);
            continue;
        }
        for (int step = 0; step < SMEM_SWZ_TMA_ROW_BYTES / 32; step++)
            for (int m = 0; m < 4; m++) {
                /* register m of lane: word lane % 4 of the row whose address lane 8m + lane / 4 gave */
                uint32_t r, byte;
                smem_swz_tma_lane_place(t / 32, 8 * m + (t % 32) / 4, step, &r, &byte);
                h = smem_swz_fold(h, tile[(r * SMEM_SWZ_TMA_ROW_BYTES + byte) / 4 + (t % 32) % 4]);
            }
    }
    return h;
}

/* Outputs begin..end against the host's fold (every tile word of 256 MiB read once: 0.17 s a point
 * on one thread). */
static int check_range(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct tma_state *s = c->priv;

    for (size_t i = begin; i < end; i++) {
        uint32_t want = ref(s, c->grid, (unsigned)(i / SMEM_SWZ_BLOCK), (int)(i % SMEM_SWZ_BLOCK), c->plan->variant);
        if (s->h_out[i] != want) {
            smem_mismatch_u32(why, why_len, "hash", SMEM_SWZ_BLOCK, i, s->h_out[i], want);
            smem_append(why, why_len, ": ", "a landed tile is not in the layout of its swizzle mode");
            return SMEM_EVERIFY;
        }
    }
    return SMEM_OK;
}

static int verify(struct smem_case *c)
{
    struct tma_state *s = c->priv;
    size_t n_out = (size_t)c->grid * SMEM_SWZ_BLOCK;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_out, s->out, n_out * 4, cudaMemcpyDeviceToHost));
    /* the first wrong output in index order, whichever thread finds it */
    return smem_parallel_for(n_out, check_range, c, c->reason, sizeof(c->reason));
fail:
    return rc;
}

static void teardown(struct smem_case *c)
{
    struct tma_state *s = c->priv;

    smem_gpu_input_release(c->inputs, s->in, s->h_in);    /* an input kept for later points */
    cudaFree(s->out);
    free(s->h_out);
}
#endif

const struct smem_bench smem_swizzle_tma_bench = {
    .name = "swizzle_tma",
    .summary = "TMA tensor copies (cp.async.bulk.tensor, cc 9.0) per swizzle mode, 16 KiB tiles read back by "
               "loads or ldmatrix: GB/s against the measured global read bandwidth",
    .axes = axes,
    .n_axes = SMEM_ARRAY_LEN(axes),
    .sweeps = { "swizzle" },
    .variation = SMEM_VARIATION_MEASURED(3.0, 5.0, 0.0),
    .predictable = true,
    .kernel_file = "swizzle",
    .min_cc = 90,
    .min_cc_feature = "cp.async.bulk.tensor and CUtensorMap",
    .plan = plan,
    .metrics = metrics,
    .baseline = &smem_vs_read,
    SMEM_GPU_OPS(.kernel = kernel, .priv_size = sizeof(struct tma_state), .setup = setup, .launch = run,
                 .verify = verify, .teardown = teardown)
};
