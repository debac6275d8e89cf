/* The reference line of the memory-bound benchmarks: cudaMemcpyAsync device to device of mib MiB,
 * counted as bytes read plus bytes written, as the transpose and the reduction count theirs. */
#include <string.h>

#include "bench.h"
#include "check.h"
#include "common.h"
#include "smem.h"

static const int64_t mibs[] = { 64, 256, 1024 };
static const int64_t quick_mibs[] = { 64 };

static const struct smem_axis copy_axes[] = {
    { .name = "mib", .unit = "MiB", .help = "bytes copied", .defaults = mibs, .n_defaults = SMEM_ARRAY_LEN(mibs),
      .quick = quick_mibs, .n_quick = SMEM_ARRAY_LEN(quick_mibs), .min = 1, .max = 16384 },
};

static int copy_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                     size_t len)
{
    (void)dev, (void)why, (void)len;
    p->block = 0;   /* the copy engine or the driver's own kernel */
    p->work = smem_axis_value(pt, "mib") << 20;
    return SMEM_OK;
}

static void copy_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    smem_metrics_add(m, "gbytes_per_s", "GB/s", 2.0 * (double)c->plan->work / t->seconds / 1e9, 0,
                     SMEM_HIGHER_IS_BETTER);
}

/* The copy baseline of the memory-bound benchmarks (bench/common.h): their GB/s as % of this one's. */
const struct smem_baseline smem_vs_copy = {
    .bench = "copy", .metric = "gbytes_per_s", .derived = "pct_of_copy", .unit = "%", .this_over_baseline = true,
    .scale = 100, .better = SMEM_HIGHER_IS_BETTER,
};

#if SMEM_HAVE_CUDA

static int copy_setup(struct smem_case *c)
{
    size_t n = (size_t)c->plan->work / 4;

    return smem_io_setup(c, n, n, SMEM_FILL_FLOATS);
}

SMEM_LAUNCH(copy, struct smem_io, io,
            cudaMemcpyAsync(io->out, io->in, (size_t)c->plan->work, cudaMemcpyDeviceToDevice, (cudaStream_t)c->stream))

#define COPY_VERIFY_CHUNK (16u << 20)

static int compare_chunks(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct smem_io *io = c->priv;
    size_t bytes = (size_t)c->plan->work;

    for (size_t k = begin; k < end; k++) {
        size_t at = k * COPY_VERIFY_CHUNK, len = bytes - at < COPY_VERIFY_CHUNK ? bytes - at : COPY_VERIFY_CHUNK;
        const unsigned char *got = (const unsigned char *)io->h_out + at, *want = (const unsigned char *)io->h_in + at;
        if (memcmp(got, want, len)) {
            size_t i = 0;
            while (got[i] == want[i])   /* memcmp says where a chunk differs, not at which byte */
                i++;
            return smem_mismatch_u8(why, why_len, "copy", 0, at + i, got[i], want[i]);
        }
    }
    return SMEM_OK;
}

static int copy_verify(struct smem_case *c)
{
    int rc;

    if ((rc = smem_io_fetch(c->priv)))
        return rc;
    return smem_parallel_for(((size_t)c->plan->work + COPY_VERIFY_CHUNK - 1) / COPY_VERIFY_CHUNK, compare_chunks, c,
                             c->reason, sizeof(c->reason));
}

#endif

const struct smem_bench smem_copy_bench = {
    .name = "copy",
    .summary = "device-to-device cudaMemcpy (read + write): the reference line of transpose and reduction",
    .axes = copy_axes,
    .n_axes = SMEM_ARRAY_LEN(copy_axes),
    .sweeps = { "reduction", "tile" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 2.0, 0.0),
    .predictable = true,    /* in predict mode a skipped point: a library call has no occupancy of ours */
    .plan = copy_plan,
    .metrics = copy_metrics,
    SMEM_GPU_OPS(.setup = copy_setup, .launch = copy_launch, .verify = copy_verify, SMEM_IO_STATE)
};
