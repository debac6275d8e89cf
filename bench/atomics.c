/* Shared-memory atomics under contention: each warp request adds 1 to counters in distinct banks,
 * `same_address_lanes` lanes behind each counter, so the one conflict left is the same address.
 * red (no value returned) against atom (the lane waits for the old value). A shared-memory request
 * serves one 4-byte word per bank per clock: at most 32 updates per clock per SM, the ceiling. */
#include "atomics_launch.h"
#include "bench.h"
#include "check.h"
#include "common.h"
#include "load_family.h"   /* SMEM_BYTES_PER_CLK_SM, smem_shared_iterations */
#include "smem.h"

#define TARGET_CYCLES 1.2e6   /* shared-memory time per SM per launch, as the bank benchmark's */

static const int64_t lanes[] = { 1, 2, 4, 8, 16, 32 };
static const int64_t ops[] = { SMEM_ATOMICS_RED, SMEM_ATOMICS_ATOM };

static const struct smem_axis atomics_axes[] = {
    { .name = "same_address_lanes", .unit = "lanes", .help = "lanes of a warp adding to one counter (1: 32 counters "
      "per request, one per bank; 32: one counter)", .defaults = lanes, .n_defaults = SMEM_ARRAY_LEN(lanes),
      .min = 1, .max = 32, .defaults_only = true },
    { .name = "op", .unit = "enum", .help = "0: red.shared.add.u32 (no value returned), 1: atom.shared.add.u32 (the old "
      "value returned)", .defaults = ops, .n_defaults = SMEM_ARRAY_LEN(ops), .min = 0, .max = 1, .defaults_only = true },
};

static int atomics_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                        size_t len)
{
    (void)why, (void)len;
    p->block = smem_full_sm_block(dev, SMEM_ATOMICS_COUNTERS * 4, SMEM_ATOMICS_BLOCK);
    p->grid = 0;   /* one full wave: every block resident for the whole kernel */
    p->static_smem = SMEM_ATOMICS_COUNTERS * 4;
    p->regs = 32;
    p->variant = (int)smem_axis_value(pt, "op");
    p->work = (int64_t)TARGET_CYCLES;
    return SMEM_OK;
}

/* Loop iterations: one pass per request and update, for the planned target cycles (the same
 * iterations at every contention, so the time shows what the same address costs). */
static int64_t iterations(const struct smem_case *c)
{
    return smem_shared_iterations(c, 1, SMEM_ATOMICS_UNROLL);
}

static void atomics_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double updates = (double)c->grid * c->plan->block * (double)iterations(c) * SMEM_ATOMICS_UNROLL;

    smem_metrics_add(m, "updates_per_clk_sm", "updates/clk/SM",
                     t->seconds > 0 && t->clock_hz > 0 ? updates / (t->seconds * t->clock_hz * c->dev->sm_count) : 0,
                     SMEM_BYTES_PER_CLK_SM / 4.0, SMEM_HIGHER_IS_BETTER);
}

/* slowdown = the one-lane-per-counter point's updates per clock over this one's */
static const struct smem_baseline vs_one_lane = {
    .axis = "same_address_lanes", .value = 1, .metric = "updates_per_clk_sm", .derived = "slowdown", .unit = "x",
    .scale = 1, .better = SMEM_LOWER_IS_BETTER,
};

#if SMEM_HAVE_CUDA

SMEM_KERNEL(atomics, smem_atomics_fn(c->plan->variant))

static int atomics_setup(struct smem_case *c)
{
    return smem_io_setup(c, 0, (size_t)c->grid * SMEM_ATOMICS_COUNTERS, SMEM_FILL_WORDS);
}

SMEM_LAUNCH(atomics, struct smem_io, io,
            smem_atomics_launch(c->plan->variant, c->grid, c->plan->block, (int)smem_axis_value(c, "same_address_lanes"),
                                (int)iterations(c), io->out, c->clk, c->stream))

/* Every block's counters as the launcher's comment adds them up, on the host. */
static int atomics_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    uint32_t want[SMEM_ATOMICS_COUNTERS] = { 0 };
    uint32_t k = (uint32_t)smem_axis_value(c, "same_address_lanes"), iters = (uint32_t)iterations(c);
    int rc;

    for (uint32_t w = 0; w < c->plan->block / 32; w++)
        for (uint32_t l = 0; l < 32; l++)
            for (uint32_t u = 0; u < SMEM_ATOMICS_UNROLL; u++)
                want[(32 * (w + u) + l / k) % SMEM_ATOMICS_COUNTERS] += iters;
    if ((rc = smem_io_fetch(io)))
        return rc;
    return smem_check_u32_cycle(c->reason, sizeof(c->reason), "counter", SMEM_ATOMICS_COUNTERS, io->h_out, io->n_out,
                                want, SMEM_ATOMICS_COUNTERS);
}

#endif

const struct smem_bench smem_atomics_bench = {
    .name = "atomics",
    .summary = "shared-memory atomic adds with 1..32 lanes of a warp on one counter: what the same address costs",
    .axes = atomics_axes,
    .n_axes = SMEM_ARRAY_LEN(atomics_axes),
    .sweeps = { "reduction" },
    /* its largest move, 0.41 % between processes of one unit and 0.51 % over two units, rounded up
     * with 0.25 % to spare, at least 1 % */
    .variation = { 1.0, 1.0, 0.0, "measured: 3 processes on each of 2 H200 units, 2026-12-02 (results/architecture/"
                   "NOTES.md)" },
    .kernel_file = "atomics",
    .plan = atomics_plan,
    .check_work = 1,   /* the fewest iterations (8) */
    .metrics = atomics_metrics,
    .baseline = &vs_one_lane,
    SMEM_GPU_OPS(.kernel = atomics_kernel, .setup = atomics_setup, .launch = atomics_launch,
                 .verify = atomics_verify, SMEM_IO_STATE)
};
