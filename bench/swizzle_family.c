/* The swizzle family's shared part: the bank model of ldmatrix/stmatrix on the layouts' addresses,
 * and the tile benchmarks' plan, host reference and GPU operations. Each warp of a 256-thread block
 * works on a 16-row tile of its own, aligned to 1024 bytes so that every warp sees the same banks;
 * SMEM_SWZ_UNROLL instructions per iteration walk the row 32 bytes at a time. */
#include "swizzle_family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "load_family.h"
#include "smem.h"

static const int64_t transes[] = { 0, 1 }, quick_transes[] = { 0 };
static const int64_t matrices[] = { 1, 2, 4 }, quick_matrices[] = { 1, 4 };
static const int64_t row_bytes[] = { 32, 64, 128, 256 }, quick_row_bytes[] = { 64, 128 };
static const int64_t layouts[] = { SMEM_SWZ_ROW_MAJOR, SMEM_SWZ_PADDED, 32, 64, 128 };
static const int64_t quick_layouts[] = { SMEM_SWZ_ROW_MAJOR, SMEM_SWZ_PADDED, 128 };

const struct smem_axis smem_swz_tile_axes[4] = {
    { .name = "trans", .unit = "bool", .help = "the .trans form (transposes in the datapath; the same rows move)",
      .defaults = transes, .n_defaults = 2, .quick = quick_transes, .n_quick = 1, .min = 0, .max = 1,
      .defaults_only = true },
    { .name = "matrices", .unit = "8x8 matrices", .help = "matrices per instruction: .x1, .x2, .x4",
      .defaults = matrices, .n_defaults = 3, .quick = quick_matrices, .n_quick = 2, .min = 1, .max = 4,
      .defaults_only = true },
    { .name = "row_bytes", .unit = "bytes", .help = "bytes of one row of the 16-bit tile",
      .defaults = row_bytes, .n_defaults = 4, .quick = quick_row_bytes, .n_quick = 2, .min = 32, .max = 256,
      .defaults_only = true },
    { .name = "layout", .unit = "code", .help = "0 row-major, 1 rows padded by 16 bytes, 32/64/128 the XOR "
      "swizzle of that span (TMA, CUTLASS)", .defaults = layouts, .n_defaults = 5, .quick = quick_layouts,
      .n_quick = 3, .min = 0, .max = 128, .defaults_only = true },
};

const struct smem_baseline smem_swz_vs_padded = {
    .axis = "layout", .value = SMEM_SWZ_PADDED, .metric = "bytes_per_clk_sm", .derived = "slowdown", .unit = "x",
    .scale = 1, .better = SMEM_LOWER_IS_BETTER,
};

double smem_swz_tile_wavefronts(int matrices_, uint32_t row_bytes_, int layout)
{
    int total = 0;

    for (int j = 0; j < SMEM_SWZ_UNROLL; j++) {
        uint32_t addrs[32];
        /* lanes 8m..8m+7 address matrix m; an .x1 or .x2 uses only its first 8 or 16 lanes' */
        for (int lane = 0; lane < 8 * matrices_; lane++) {
            uint32_t r, b;
            smem_swz_lane_place(matrices_, row_bytes_, j, lane, &r, &b);
            addrs[lane] = smem_swz_offset(layout, row_bytes_, r, b);
        }
        total += smem_bank_phase_wavefronts(addrs, 8 * matrices_);
    }
    return (double)total / SMEM_SWZ_UNROLL;
}

double smem_swz_tma_wavefronts(int swz, int consumer)
{
    int total = 0, n = 0;

    if (consumer == SMEM_SWZ_CONSUME_LDMATRIX) {
        for (int warp = 0; warp < SMEM_SWZ_WARPS; warp++)
            for (int step = 0; step < SMEM_SWZ_TMA_ROW_BYTES / 32; step++, n++) {
                uint32_t addrs[32];
                for (int lane = 0; lane < 32; lane++) {
                    uint32_t r, b;
                    smem_swz_tma_lane_place(warp, lane, step, &r, &b);
                    addrs[lane] = smem_swz_tma_offset(swz, r, b);
                }
                total += smem_bank_phase_wavefronts(addrs, 32);
            }
    } else {
        /* thread t reads chunks t, t + 256, ...: a warp's 32 consecutive chunks per load */
        for (uint32_t c0 = 0; c0 < SMEM_SWZ_TMA_TILE / 16; c0 += 32, n++) {
            uint32_t addrs[32];
            for (uint32_t lane = 0; lane < 32; lane++)
                addrs[lane] = smem_swz_tma_offset(swz, (c0 + lane) / 8, (c0 + lane) % 8 * 16);
            total += smem_bank_phase_wavefronts(addrs, 32);
        }
    }
    return (double)total / n;
}

#define TILE_OP(c) ((c)->plan->variant)
#define TILE_AXES(x)                                                                                       \
    int trans = (int)smem_axis_value(x, "trans"), mats = (int)smem_axis_value(x, "matrices"),             \
        layout = (int)smem_axis_value(x, "layout");                                                        \
    uint32_t rb = (uint32_t)smem_axis_value(x, "row_bytes");                                               \
    (void)trans, (void)mats, (void)layout, (void)rb

int smem_swz_tile_plan(const struct smem_point *pt, int op, const struct smem_device *dev, struct smem_plan *p,
                       char *why, size_t why_len)
{
    TILE_AXES(pt);

    (void)why, (void)why_len;
    p->block = SMEM_SWZ_BLOCK;
    p->grid = 0;        /* one full wave */
    p->dyn_smem = smem_swz_dyn_bytes(layout, rb);
    p->optin = (int64_t)p->dyn_smem > dev->smem_per_block;
    p->regs = 32;
    p->variant = op;
    p->work = 600000;   /* cycles of shared-memory time per SM */
    return SMEM_OK;
}

/* The bank model's passes per instruction and slowdown against the padded layout. */
static void tile_model(int mats, uint32_t rb, int layout, struct smem_metrics *m)
{
    double waves = smem_swz_tile_wavefronts(mats, rb, layout);

    smem_metrics_add(m, "wavefronts", "passes/instruction", waves, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "predicted_slowdown", "x", waves / smem_swz_tile_wavefronts(mats, rb, SMEM_SWZ_PADDED), 0,
                     SMEM_LOWER_IS_BETTER);
}

void smem_swz_tile_model(const struct smem_point *pt, struct smem_metrics *m)
{
    TILE_AXES(pt);

    tile_model(mats, rb, layout, m);
}

/* Iterations: the model's passes per instruction set the time of one */
static int64_t tile_iterations(const struct smem_case *c)
{
    TILE_AXES(c);

    return smem_shared_iterations(c, (int)ceil(smem_swz_tile_wavefronts(mats, rb, layout)), SMEM_SWZ_UNROLL);
}

void smem_swz_tile_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    TILE_AXES(c);
    double bytes = (double)c->grid * SMEM_SWZ_WARPS * (double)tile_iterations(c) * SMEM_SWZ_UNROLL * mats * 128.0;

    smem_metrics_add(m, "bytes_per_clk_sm", "B/clk/SM",
                     t->seconds > 0 && t->clock_hz > 0 ? bytes / (t->seconds * t->clock_hz * c->dev->sm_count) : 0,
                     SMEM_BYTES_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    tile_model(mats, rb, layout, m);
}

/* Halfword k of the 16-byte chunk at byte offset a of a little-endian image. */
static uint32_t half_at(const uint8_t *img, uint32_t a, int k)
{
    return (uint32_t)img[a + 2 * k] | (uint32_t)img[a + 2 * k + 1] << 8;
}

uint32_t smem_swz_tile_ref(int op, int mats, int trans, uint32_t rb, int layout, const uint32_t *in, int iters,
                           int lane)
{
    uint32_t acc = 0;

    if (op == SMEM_SWZ_LDMATRIX) {
        const uint8_t *tile = (const uint8_t *)in;
        uint32_t once = 0;
        for (int j = 0; j < SMEM_SWZ_UNROLL; j++)
            for (int m = 0; m < mats; m++) {
                /* row i of matrix m is the logical chunk whose address lane 8m + i supplied */
                uint32_t at[8];
                for (int i = 0; i < 8; i++) {
                    uint32_t r, b;
                    smem_swz_lane_place(mats, rb, j, 8 * m + i, &r, &b);
                    at[i] = r * rb + b;
                }
                if (!trans)     /* lane: row lane / 4, columns 2 (lane % 4) and the next */
                    once += half_at(tile, at[lane / 4], 2 * (lane % 4)) |
                            half_at(tile, at[lane / 4], 2 * (lane % 4) + 1) << 16;
                else            /* lane: column lane / 4 of rows 2 (lane % 4) and the next */
                    once += half_at(tile, at[2 * (lane % 4)], lane / 4) |
                            half_at(tile, at[2 * (lane % 4) + 1], lane / 4) << 16;
            }
        return once * (uint32_t)iters;
    }
    /* stmatrix: the warp's tile after the last iteration (every iteration stores the same), read back */
    uint8_t img[SMEM_SWZ_ROWS * (256 + SMEM_SWZ_PAD_BYTES) + 16];
    memset(img, 0, sizeof(img));
    for (int j = 0; j < SMEM_SWZ_UNROLL; j++)
        for (int m = 0; m < mats; m++)
            for (int i = 0; i < 8; i++) {
                uint32_t r, b, a;
                smem_swz_lane_place(mats, rb, j, 8 * m + i, &r, &b);
                a = smem_swz_offset(layout, rb, r, b);
                for (int k = 0; k < 8; k++) {
                    /* element (i, k) of the stored matrix; .trans stores the fragment's (k, i) */
                    int src = trans ? 4 * k + i / 2 : 4 * i + k / 2, half = trans ? i % 2 : k % 2;
                    uint32_t v = smem_swz_st_value(src, m, j) >> (16 * half) & 0xffff;
                    img[a + 2 * k] = (uint8_t)v;
                    img[a + 2 * k + 1] = (uint8_t)(v >> 8);
                }
            }
    for (int j = 0; j < SMEM_SWZ_UNROLL; j++) {
        uint32_t r, b, a;
        smem_swz_lane_place(mats, rb, j, lane, &r, &b);
        a = smem_swz_offset(layout, rb, r, b);
        for (int w = 0; w < 4; w++)
            acc = smem_swz_fold(acc, half_at(img, a + 4 * w, 0) | half_at(img, a + 4 * w, 1) << 16);
    }
    return acc;
}

#if SMEM_HAVE_CUDA

const void *smem_swz_tile_kernel(const struct smem_case *c)
{
    TILE_AXES(c);

    return smem_swz_tile_fn(TILE_OP(c), mats, trans);
}

int smem_swz_tile_setup(struct smem_case *c)
{
    TILE_AXES(c);

    return smem_io_setup(c, TILE_OP(c) == SMEM_SWZ_LDMATRIX ? SMEM_SWZ_ROWS * rb / 4 : 0,
                         (size_t)c->grid * SMEM_SWZ_BLOCK, SMEM_FILL_WORDS);
}

int smem_swz_tile_run(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    int rc = SMEM_OK;
    TILE_AXES(c);

    SMEM_CUDA_CHECK(smem_swz_tile_launch(TILE_OP(c), mats, trans, layout, rb, c->grid, c->plan->dyn_smem, io->in,
                                         io->out, (int)tile_iterations(c), c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

int smem_swz_tile_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const uint32_t *out = io->h_out;
    uint32_t ref[32];
    int rc;
    TILE_AXES(c);

    for (int lane = 0; lane < 32; lane++)
        ref[lane] = smem_swz_tile_ref(TILE_OP(c), mats, trans, rb, layout, io->h_in, (int)tile_iterations(c), lane);
    if ((rc = smem_io_fetch(io)))
        return rc;
    if ((rc = smem_check_u32_cycle(c->reason, sizeof(c->reason), "out", 0, out, io->n_out, ref, 32)))
        smem_append(c->reason, sizeof(c->reason), ": ", "a row of the tile is not where the layout puts it");
    return rc;
}

#endif
