/* The streaming kernel of the dynamic benchmark with a static __shared__ array of the same size:
 * at run time the two are the same allocation, so they should time the same; the difference is
 * that a static array cannot exceed 48 KiB, which this benchmark's skipped points show. */
#include "smem.h"
#include "stream_family.h"

static const int64_t mibs[] = { SMEM_STREAM_MIB };
static const int64_t sizes[] = { 1 * SMEM_KIB, 2 * SMEM_KIB, 4 * SMEM_KIB, 8 * SMEM_KIB, 16 * SMEM_KIB,
                                 24 * SMEM_KIB, 32 * SMEM_KIB, 40 * SMEM_KIB, 48 * SMEM_KIB, 64 * SMEM_KIB };
static const int64_t quick_sizes[] = { 16 * SMEM_KIB, 48 * SMEM_KIB, 64 * SMEM_KIB };
#define AS_SIZE(b) b,
static const int64_t compiled[] = { SMEM_STATIC_SIZES(AS_SIZE) };
#undef AS_SIZE

static const struct smem_axis static_axes[] = {
    { .name = "smem_bytes", .unit = "bytes", .help = "static __shared__ array per block (compiled sizes up to 48 KiB)",
      .defaults = sizes, .n_defaults = SMEM_ARRAY_LEN(sizes), .quick = quick_sizes,
      .n_quick = SMEM_ARRAY_LEN(quick_sizes), .min = 1, .max = 228 * SMEM_KIB },
    { .name = "mib", .unit = "MiB", .help = "data streamed per launch", .defaults = mibs,
      .n_defaults = SMEM_ARRAY_LEN(mibs), .min = 1, .max = 16384 },
};

static int static_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                       size_t len)
{
    int64_t bytes = smem_axis_value(pt, "smem_bytes");
    bool found = false;

    if (bytes > (int64_t)(48 * SMEM_KIB)) {
        smem_fmt(why, len, "a static __shared__ array is limited to 48 KiB at compile time; %lld bytes need dynamic "
                 "shared memory and the opt-in (see the dynamic benchmark)", (long long)bytes);
        return SMEM_ESKIP;
    }
    for (size_t i = 0; i < SMEM_ARRAY_LEN(compiled); i++)
        found = found || compiled[i] == bytes;
    if (!found) {
        smem_fmt(why, len, "no kernel is compiled with a %lld-byte static array; compiled sizes are 1, 2, 4, 8, 16, "
                 "24, 32, 40 and 48 KiB", (long long)bytes);
        return SMEM_ESKIP;
    }
    smem_stream_plan((size_t)bytes, true, smem_axis_value(pt, "mib"), dev, p);
    return SMEM_OK;
}

SMEM_KERNEL(static, smem_static_fn(c->plan->static_smem))

const struct smem_bench smem_static_bench = {
    .name = "static",
    .summary = "the dynamic benchmark's kernel with a static __shared__ array: same time, 48 KiB limit",
    .axes = static_axes,
    .n_axes = SMEM_ARRAY_LEN(static_axes),
    .sweeps = { "dynamic" },
    .variation = SMEM_VARIATION_MEASURED(1.0, 4.0, 0.0),
    .predictable = true,
    .kernel_file = "stream",
    .plan = static_plan,
    .metrics = smem_stream_metrics,
    SMEM_GPU_OPS(.kernel = static_kernel, .setup = smem_stream_setup, .launch = smem_stream_launch,
                 .verify = smem_stream_verify, SMEM_IO_STATE)
};
