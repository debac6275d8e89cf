/* Uninitialized contents: shared memory is not cleared between kernels. A fill kernel marks every
 * word of each block's allocation, and the next kernel's blocks, given the same allocation, read
 * theirs before writing: stale_pct is the share of words still holding the previous kernel's data.
 * The count is checked against the host's own count of the dumped contents. */
#include <math.h>
#include <stdlib.h>

#include "bench.h"
#include "check.h"
#include "common.h"
#include "smem.h"
#include "uninit_launch.h"

static const int64_t sizes[] = { 16 * SMEM_KIB, 48 * SMEM_KIB, 96 * SMEM_KIB };
static const int64_t quick_sizes[] = { 16 * SMEM_KIB };

static const struct smem_axis uninit_axes[] = {
    { .name = "dyn_smem_bytes", .unit = "bytes", .help = "dynamic shared memory of both kernels (a multiple of 4)",
      .defaults = sizes, .n_defaults = SMEM_ARRAY_LEN(sizes), .quick = quick_sizes,
      .n_quick = SMEM_ARRAY_LEN(quick_sizes), .min = 4, .max = 228 * SMEM_KIB },
};

static int uninit_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                       size_t len)
{
    int64_t bytes = smem_axis_value(pt, "dyn_smem_bytes");

    if (bytes % 4 || bytes > dev->smem_per_block_optin) {
        smem_fmt(why, len, "%lld bytes: expected a multiple of 4 up to the opt-in ceiling of %lld", (long long)bytes,
                 (long long)dev->smem_per_block_optin);
        return SMEM_ESKIP;
    }
    p->block = SMEM_UNINIT_BLOCK;
    p->grid = 0;    /* one full wave: every SM's shared memory filled, then read */
    p->dyn_smem = (size_t)bytes;
    p->regs = 16;
    p->optin = bytes > dev->smem_per_block;
    p->work = bytes / 4;
    return SMEM_OK;
}

#if SMEM_HAVE_CUDA

struct uninit_state {
    uint32_t *dump, *stale, *h_dump, *h_stale;
    double stale_pct;
};

SMEM_KERNEL(uninit, smem_uninit_peek_fn())

static int uninit_setup(struct smem_case *c)
{
    struct uninit_state *s = c->priv;
    size_t words = (size_t)c->plan->work * c->grid;
    struct cudaFuncAttributes peek;
    int rc = SMEM_OK;

    /* the fill kernel gets the limit the driver gave the peek kernel (so --no-optin holds for both) */
    SMEM_CUDA_CHECK(cudaFuncGetAttributes(&peek, smem_uninit_peek_fn()));
    SMEM_CUDA_CHECK(cudaFuncSetAttribute(smem_uninit_fill_fn(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         peek.maxDynamicSharedSizeBytes));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->dump, words * sizeof(uint32_t)));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->stale, c->grid * sizeof(uint32_t)));
    s->h_dump = malloc(words * sizeof(uint32_t));
    s->h_stale = malloc(c->grid * sizeof(uint32_t));
    if (!s->h_dump || !s->h_stale)
        return SMEM_ENOMEM;
    return SMEM_OK;
fail:
    return rc;
}

SMEM_LAUNCH(uninit, struct uninit_state, s,
            smem_uninit_launch(c->grid, c->plan->dyn_smem, s->dump, s->stale, c->clk, c->stream))

static int uninit_verify(struct smem_case *c)
{
    struct uninit_state *s = c->priv;
    size_t words = (size_t)c->plan->work, total = 0;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(s->h_dump, s->dump, words * c->grid * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    SMEM_CUDA_CHECK(cudaMemcpy(s->h_stale, s->stale, c->grid * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < c->grid; b++) {
        uint32_t n = 0;
        for (size_t i = 0; i < words; i++)
            n += s->h_dump[(size_t)b * words + i] >> 16 == SMEM_UNINIT_MARK;
        if (n != s->h_stale[b])   /* the block's own count against the host's count of its dump */
            return smem_mismatch_u64(c->reason, sizeof(c->reason), "marked_words", 0, b, s->h_stale[b], n);
        total += n;
    }
    s->stale_pct = 100.0 * (double)total / ((double)words * c->grid);
    return SMEM_OK;
fail:
    return rc;
}

static void uninit_teardown(struct smem_case *c)
{
    struct uninit_state *s = c->priv;

    cudaFree(s->dump);
    cudaFree(s->stale);
    free(s->h_dump);
    free(s->h_stale);
}

#endif

static void uninit_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
#if SMEM_HAVE_CUDA
    const struct uninit_state *s = c->priv;
    double pct = s ? s->stale_pct : NAN;   /* no state: a case that was never verified */
#else
    double pct = NAN;
    (void)c;
#endif

    (void)t;
    smem_metrics_add(m, "stale_pct", "%", pct, 100, SMEM_HIGHER_IS_BETTER);
}

const struct smem_bench smem_uninit_bench = {
    .name = "uninit",
    .summary = "shared memory is not cleared between kernels: the share of words a block finds still holding old data",
    .axes = uninit_axes,
    .n_axes = SMEM_ARRAY_LEN(uninit_axes),
    .sweeps = { "uninit" },
    .variation = SMEM_VARIATION_MEASURED(44.0, 44.0, 0.0),
    .time_not_gated = "the result is the share of stale words (stale_pct, judged as a count); the time of "
                      "writing and reading the buffer moved 4-34 % between 22 --sweep all files of identical kernels "
                      "(13 us at 16 KiB: the launch around it)",
    .kernel_file = "uninit",
    .plan = uninit_plan,
    .metrics = uninit_metrics,
    SMEM_GPU_OPS(.kernel = uninit_kernel, .priv_size = sizeof(struct uninit_state), .setup = uninit_setup,
                 .launch = uninit_launch, .verify = uninit_verify, .teardown = uninit_teardown)
};
