/* Global memory read bandwidth in GB/s: a full wave of blocks reads mib MiB (several times any L2)
 * with 16-byte loads, four in flight per thread, and nothing else; each thread's sum of what it read
 * is checked against the host's. The staging sweep's reference line (its pct_of_read). */
#include <stdlib.h>

#include "bench.h"
#include "check.h"
#include "common.h"
#include "global_read_launch.h"
#include "smem.h"

static const int64_t mibs[] = { 256 };
static const int64_t quick_mibs[] = { 64 };

static const struct smem_axis global_read_axes[] = {
    { .name = "mib", .unit = "MiB", .help = "bytes read per launch", .defaults = mibs,
      .n_defaults = SMEM_ARRAY_LEN(mibs), .quick = quick_mibs, .n_quick = SMEM_ARRAY_LEN(quick_mibs), .min = 1,
      .max = 16384 },
};

static int global_read_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                            char *why, size_t len)
{
    (void)dev, (void)why, (void)len;
    p->block = SMEM_GLOBAL_READ_BLOCK;
    p->grid = 0;    /* a full wave, grid-strided */
    p->regs = 32;
    p->work = smem_axis_value(pt, "mib") << 20;   /* bytes */
    return SMEM_OK;
}

static void global_read_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    smem_metrics_add(m, "gbytes_per_s", "GB/s", t->seconds > 0 ? (double)c->plan->work / t->seconds / 1e9 : 0, 0,
                     SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(global_read, smem_global_read_fn())

static int global_read_setup(struct smem_case *c)
{
    return smem_io_setup(c, (size_t)c->plan->work / 4, (size_t)c->grid * SMEM_GLOBAL_READ_BLOCK, SMEM_FILL_WORDS);
}

SMEM_LAUNCH(global_read, struct smem_io, io,
            smem_global_read_launch(c->grid, io->in, (size_t)c->plan->work / 16, io->out, c->clk, c->stream))

static int global_read_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const uint32_t *in = io->h_in, *out = io->h_out;
    size_t threads = io->n_out, n16 = (size_t)c->plan->work / 16;
    uint32_t *want = calloc(threads, sizeof(*want));
    int rc;

    if (!want)
        return SMEM_ENOMEM;
    /* element i is read by thread i mod threads; the order of a wrapping sum does not matter */
    for (size_t i = 0, t = 0; i < n16; i++, t = t + 1 == threads ? 0 : t + 1)
        want[t] += in[4 * i] + in[4 * i + 1] + in[4 * i + 2] + in[4 * i + 3];
    if ((rc = smem_io_fetch(io))) {
        free(want);
        return rc;
    }
    rc = smem_check_u32(c->reason, sizeof(c->reason), "sum", 0, out, want, threads);
    free(want);
    return rc;
}

#endif

const struct smem_bench smem_global_read_bench = {
    .name = "global_read",
    .summary = "global memory read bandwidth (16-byte loads, no shared memory): the staging sweep's reference",
    .axes = global_read_axes,
    .n_axes = SMEM_ARRAY_LEN(global_read_axes),
    .sweeps = { "staging", "swizzle" },
    .variation = SMEM_VARIATION_MEASURED(2.0, 4.0, 0.0),
    .predictable = true,
    .kernel_file = "global_read",
    .plan = global_read_plan,
    .metrics = global_read_metrics,
    SMEM_GPU_OPS(.kernel = global_read_kernel, .setup = global_read_setup, .launch = global_read_launch,
                 .verify = global_read_verify, SMEM_IO_STATE)
};
