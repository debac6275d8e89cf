/* Dynamic shared memory from 0 to the opt-in ceiling: the occupancy staircase and what it costs a
 * latency-bound streaming kernel. Above the 48 KiB default both opt-in steps are taken (the
 * function attribute, then the launch's third argument); --no-optin leaves the first out and the
 * launch fails, which the point records. By default the device's own cliffs are added: for each
 * block count, the largest allocation that still fits that many blocks and the next one past it. */
#include <stdlib.h>
#include <string.h>

#include "smem.h"
#include "stream_family.h"

static const int64_t mibs[] = { SMEM_STREAM_MIB };
static const int64_t sizes[] = { 0, 1 * SMEM_KIB, 2 * SMEM_KIB, 4 * SMEM_KIB, 8 * SMEM_KIB, 16 * SMEM_KIB,
                                 24 * SMEM_KIB, 32 * SMEM_KIB, 40 * SMEM_KIB, 48 * SMEM_KIB, 64 * SMEM_KIB,
                                 96 * SMEM_KIB, 128 * SMEM_KIB, 160 * SMEM_KIB, 192 * SMEM_KIB, 227 * SMEM_KIB };
static const int64_t quick_sizes[] = { 0, 16 * SMEM_KIB, 48 * SMEM_KIB, 100 * SMEM_KIB, 227 * SMEM_KIB };

static const struct smem_axis dynamic_axes[] = {
    { .name = "dyn_smem_bytes", .unit = "bytes", .help = "dynamic shared memory per block (K suffix: KiB)",
      .defaults = sizes, .n_defaults = SMEM_ARRAY_LEN(sizes), .quick = quick_sizes,
      .n_quick = SMEM_ARRAY_LEN(quick_sizes), .min = 0, .max = 228 * SMEM_KIB, .from_device = true },
    { .name = "mib", .unit = "MiB", .help = "data streamed per launch", .defaults = mibs,
      .n_defaults = SMEM_ARRAY_LEN(mibs), .min = 1, .max = 16384 },
};

static int dynamic_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                        size_t len)
{
    int64_t bytes = smem_axis_value(pt, "dyn_smem_bytes");

    if (bytes > dev->smem_per_block_optin) {
        smem_fmt(why, len, "%lld bytes of dynamic shared memory exceed the opt-in ceiling of %lld bytes per block on %s",
                 (long long)bytes, (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    smem_stream_plan((size_t)bytes, false, smem_axis_value(pt, "mib"), dev, p);
    return SMEM_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The static sizes dev can allocate plus both sides of every occupancy cliff of dev for this kernel's
 * block; under quick, the quick sizes dev can allocate, so the sweep still ends at its ceiling. */
static size_t dynamic_device_defaults(const struct smem_device *dev, const char *axis, bool quick,
                                      int (*blocks)(const struct smem_device *dev, const struct smem_plan *p),
                                      int64_t *out, size_t max)
{
    const int64_t *list = quick ? quick_sizes : sizes;
    size_t n_list = quick ? SMEM_ARRAY_LEN(quick_sizes) : SMEM_ARRAY_LEN(sizes);
    size_t n = 0, kept = 0;
    int prev = -1;

    if (strcmp(axis, "dyn_smem_bytes"))   /* only the allocation has device-specific defaults */
        return 0;
    for (size_t i = 0; i < n_list && n < max; i++)
        if (list[i] <= dev->smem_per_block_optin)
            out[n++] = list[i];
    /* walk the axis in 128-byte steps (the allocation granularity) and keep both sides of each step */
    for (int64_t s = 0; !quick && s <= dev->smem_per_block_optin && n + 2 <= max; s += 128) {
        struct smem_plan p = { .carveout_pct = -1 };
        int now;

        smem_stream_plan((size_t)s, false, SMEM_STREAM_MIB, dev, &p);
        if ((now = blocks(dev, &p)) < 0)
            break;
        if (prev >= 0 && now != prev) {
            out[n++] = s - 128;
            out[n++] = s;
        }
        prev = now;
    }
    if (n + 1 <= max)
        out[n++] = dev->smem_per_block_optin;
    qsort(out, n, sizeof(*out), cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (!kept || out[kept - 1] != out[i])
            out[kept++] = out[i];
    return kept;
}

SMEM_KERNEL(dynamic, smem_dynamic_fn())

const struct smem_bench smem_dynamic_bench = {
    .name = "dynamic",
    .summary = "dynamic shared memory 0..opt-in ceiling: occupancy staircase, its cost, the 48 KiB opt-in",
    .axes = dynamic_axes,
    .n_axes = SMEM_ARRAY_LEN(dynamic_axes),
    .sweeps = { "dynamic" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 4.0, 0.0),
    .predictable = true,
    .kernel_file = "stream",
    .plan = dynamic_plan,
    .metrics = smem_stream_metrics,
    .device_defaults = dynamic_device_defaults,
    SMEM_GPU_OPS(.kernel = dynamic_kernel, .setup = smem_stream_setup, .launch = smem_stream_launch,
                 .verify = smem_stream_verify, SMEM_IO_STATE)
};
