/* The streaming kernel's plan, host reference and GPU operations (dynamic and static). */
#include "common.h"
#include "stream_family.h"

#include <stdlib.h>

#include "check.h"
#include "smem.h"

void smem_stream_plan(size_t alloc_bytes, bool is_static, int64_t mib, const struct smem_device *dev,
                      struct smem_plan *p)
{
    p->block = SMEM_STREAM_BLOCK;
    p->grid = (unsigned)((mib << 18) / SMEM_STREAM_CHUNK);   /* MiB of floats over the chunk a block streams */
    p->dyn_smem = is_static ? 0 : alloc_bytes;
    p->static_smem = is_static ? alloc_bytes : 0;
    p->regs = 32;
    p->variant = is_static;
    p->work = mib << 18;
    /* step one of the opt-in, needed only above the default per-block limit */
    p->optin = !is_static && (int64_t)alloc_bytes > dev->smem_per_block;
}

void smem_stream_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double bytes = (double)c->plan->work * sizeof(float) + (double)c->grid * c->plan->block * sizeof(float);

    smem_metrics_add(m, "gbytes_per_s", "GB/s", bytes / t->seconds / 1e9, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "alloc_bytes", "B", (double)(c->plan->dyn_smem + c->plan->static_smem), 0,
                     SMEM_LOWER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

int smem_stream_setup(struct smem_case *c)
{
    return smem_io_setup(c, (size_t)c->plan->work, (size_t)c->grid * c->plan->block, SMEM_FILL_FLOATS);
}

int smem_stream_launch(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    int rc = SMEM_OK;

    if (c->plan->variant)
        SMEM_CUDA_CHECK(smem_static_launch(c->plan->static_smem, c->grid, io->in, io->out, c->clk, c->stream));
    else
        SMEM_CUDA_CHECK(smem_dynamic_launch(c->grid, c->plan->dyn_smem, io->in, io->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

static int verify_blocks(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct smem_io *io = c->priv;
    const float *h_in = io->h_in, *h_out = io->h_out;
    size_t words = (c->plan->dyn_smem + c->plan->static_smem) / sizeof(float);
    unsigned block = c->plan->block, slots = words < block ? (unsigned)words : block;
    float partial[SMEM_STREAM_BLOCK];

    for (unsigned b = (unsigned)begin; b < end; b++) {
        const float *in = h_in + (size_t)b * SMEM_STREAM_CHUNK;
        for (unsigned t = 0; t < block; t++) {
            float v = 0;
            for (unsigned i = t; i < SMEM_STREAM_CHUNK; i += block)
                v += in[i];
            partial[t] = v;
        }
        for (unsigned t = 0; t < block; t++) {
            /* the same additions in the same order: only an FMA-free reordering could differ,
             * so 1e-5 relative (about 100 ulp) is generous and still catches any wrong element */
            float want = t < slots ? partial[slots - 1 - t] : partial[t];
            float got = h_out[(size_t)b * block + t];
            if (!smem_near(got, want, 1e-5, 1e-5))
                return smem_mismatch_f32(why, why_len, "out", block, (size_t)b * block + t, got, want);
        }
    }
    return SMEM_OK;
}

int smem_stream_verify(struct smem_case *c)
{
    int rc;

    if ((rc = smem_io_fetch(c->priv)))
        return rc;
    /* blocks are independent: their sums on every host core */
    return smem_parallel_for(c->grid, verify_blocks, c, c->reason, sizeof(c->reason));
}

#endif
