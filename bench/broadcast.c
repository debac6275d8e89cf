/* Broadcast: every lane of a warp loads the same shared word, the case the bank model counts as one
 * pass however many lanes ask (one bank, one distinct word). It should run as fast as the
 * conflict-free stride-1 load of the bank benchmark (slowdown 1, against that point) and deliver
 * up to 128 bytes per clock per SM to the lanes, the ceiling it is checked against. */
#include "bench.h"
#include "broadcast_launch.h"
#include "check.h"
#include "common.h"
#include "load_family.h"   /* the bank model and SMEM_BYTES_PER_CLK_SM */
#include "smem.h"

#define TARGET_CYCLES 1.2e6   /* shared-memory time per SM per launch, as the bank benchmark's */

static const int64_t widths[] = { 4 };

static const struct smem_axis broadcast_axes[] = {
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access (one 4-byte word for every lane)",
      .defaults = widths, .n_defaults = SMEM_ARRAY_LEN(widths), .min = 4, .max = 4, .defaults_only = true },
};

static int broadcast_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    (void)pt, (void)why, (void)len;
    /* the bank benchmark's residency, so the two compare like for like */
    p->block = smem_full_sm_block(dev, SMEM_BROADCAST_WORDS * 4, SMEM_BROADCAST_BLOCK);
    p->grid = 0;            /* one full wave: every block resident for the whole kernel */
    p->static_smem = SMEM_BROADCAST_WORDS * 4;
    p->regs = 32;
    p->work = (int64_t)TARGET_CYCLES;
    return SMEM_OK;
}

/* Loop iterations of one launch: SMEM_BROADCAST_UNROLL requests of the bank model's passes (one)
 * per warp and iteration, for the planned target cycles. */
static int64_t iterations(const struct smem_case *c)
{
    return smem_shared_iterations(c, smem_bank_wavefronts(4, 0), SMEM_BROADCAST_UNROLL);
}

static void broadcast_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    /* bytes delivered to the lanes: 4 per lane per load */
    double bytes = (double)c->grid * c->plan->block * (double)iterations(c) * SMEM_BROADCAST_UNROLL * 4;

    smem_metrics_add(m, "bytes_per_clk_sm", "B/clk/SM",
                     t->seconds > 0 && t->clock_hz > 0 ? bytes / (t->seconds * t->clock_hz * c->dev->sm_count) : 0,
                     SMEM_BYTES_PER_CLK_SM, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "wavefronts", "passes/request", smem_bank_wavefronts(4, 0), 0, SMEM_LOWER_IS_BETTER);
}

/* slowdown = the stride-1 load's bytes/clk/SM over this one's: 1 by the bank model */
static const struct smem_baseline vs_stride_1 = {
    .bench = "bank", .axis = "stride_elems", .value = 1, .metric = "bytes_per_clk_sm", .derived = "slowdown",
    .unit = "x", .scale = 1, .better = SMEM_LOWER_IS_BETTER,
};

#if SMEM_HAVE_CUDA

SMEM_KERNEL(broadcast, smem_broadcast_fn())

static int broadcast_setup(struct smem_case *c)
{
    return smem_io_setup(c, SMEM_BROADCAST_WORDS, (size_t)c->grid * c->plan->block, SMEM_FILL_WORDS);
}

SMEM_LAUNCH(broadcast, struct smem_io, io,
            smem_broadcast_launch(c->grid, c->plan->block, io->in, io->out, (int)iterations(c), c->clk, c->stream))

static int broadcast_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const uint32_t *in = io->h_in, *out = io->h_out;
    uint32_t once = 0, ref;
    int rc;

    /* every thread sums, iterations times over, the word at the start of each bank row it visits */
    for (int j = 0; j < SMEM_BROADCAST_UNROLL; j++)
        once += in[j * SMEM_BROADCAST_ROW_WORDS];
    ref = once * (uint32_t)iterations(c);
    if ((rc = smem_io_fetch(io)))
        return rc;
    return smem_check_u32_all(c->reason, sizeof(c->reason), "sum", 0, out, io->n_out, ref);
}

#endif

const struct smem_bench smem_broadcast_bench = {
    .name = "broadcast",
    .summary = "every lane loads the same shared word: one pass, as fast as the stride-1 load (bank model)",
    .axes = broadcast_axes,
    .n_axes = SMEM_ARRAY_LEN(broadcast_axes),
    .sweeps = { "bank" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 1.5, 0.0),
    .kernel_file = "broadcast",
    .plan = broadcast_plan,
    .check_work = 1,   /* the fewest iterations (8) */
    .metrics = broadcast_metrics,
    .baseline = &vs_stride_1,
    SMEM_GPU_OPS(.kernel = broadcast_kernel, .setup = broadcast_setup, .launch = broadcast_launch,
                 .verify = broadcast_verify, SMEM_IO_STATE)
};
