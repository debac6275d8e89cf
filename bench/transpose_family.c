/* The transpose family's plan, host reference and GPU operations (bench/transpose_family.h). */
#include "transpose_family.h"

#include <math.h>

const int64_t smem_transpose_mibs[2] = { 64, 256 };
const int64_t smem_transpose_mibs_quick[1] = { 64 };

int smem_transpose_edge(int64_t mib)
{
    int64_t floats = mib << 18;
    int64_t n = (int64_t)llround(sqrt((double)floats));

    return n * n == floats && n % 32 == 0 ? (int)n : 0;
}

int smem_transpose_plan(const struct smem_point *pt, int variant, struct smem_plan *p, char *why, size_t why_len)
{
    int64_t mib = smem_axis_value(pt, "mib");
    int n = smem_transpose_edge(mib);

    if (!n) {
        smem_fmt(why, why_len, "%lld MiB is not a square fp32 matrix with an edge divisible by 32 "
                 "(1, 4, 16, 64, 256, 1024 or 4096 MiB are)", (long long)mib);
        return SMEM_ESKIP;
    }
    p->block = 32 * 8;
    p->grid = (unsigned)(n / 32) * (unsigned)(n / 32);
    p->static_smem = variant == SMEM_TRANSPOSE_NAIVE ? 0 : 32 * (32 + (variant == SMEM_TRANSPOSE_PADDED)) * 4;
    p->regs = 24;
    p->variant = variant;
    p->work = n;
    return SMEM_OK;
}

void smem_transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double bytes = 2.0 * (double)c->plan->work * (double)c->plan->work * sizeof(float);

    smem_metrics_add(m, "gbytes_per_s", "GB/s", bytes / t->seconds / 1e9, 0, SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

const void *smem_transpose_kernel(const struct smem_case *c)
{
    return smem_transpose_fn(c->plan->variant);
}

int smem_transpose_setup(struct smem_case *c)
{
    size_t n = (size_t)c->plan->work * (size_t)c->plan->work;

    return smem_io_setup(c, n, n, SMEM_FILL_FLOATS);
}

int smem_transpose_run(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_transpose_launch(c->plan->variant, (int)c->plan->work, io->in, io->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

#define VERIFY_BLOCK 64

static int verify_rows(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct smem_io *io = c->priv;
    const float *in = io->h_in, *out = io->h_out;
    size_t n = (size_t)c->plan->work;

    /* in blocks of VERIFY_BLOCK x VERIFY_BLOCK: row by row, one of the two matrices would be read a
     * cache line per element (that was 0.6 s of each 256 MiB point on the H200's host) */
    for (size_t i0 = begin * VERIFY_BLOCK; i0 < n && i0 < end * VERIFY_BLOCK; i0 += VERIFY_BLOCK)
        for (size_t j0 = 0; j0 < n; j0 += VERIFY_BLOCK)
            for (size_t i = i0; i < n && i < i0 + VERIFY_BLOCK; i++)
                for (size_t j = j0; j < n && j < j0 + VERIFY_BLOCK; j++)
                    if (out[j * n + i] != in[i * n + j]) {   /* a move, so exact */
                        smem_fmt(why, why_len, "out[%zu][%zu] = %g, expected in[%zu][%zu] = %g", j, i,
                                 (double)out[j * n + i], i, j, (double)in[i * n + j]);
                        return SMEM_EVERIFY;
                    }
    return SMEM_OK;
}

int smem_transpose_verify(struct smem_case *c)
{
    size_t n = (size_t)c->plan->work;
    int rc;

    if ((rc = smem_io_fetch(c->priv)))
        return rc;
    /* bands of VERIFY_BLOCK rows on every host core */
    return smem_parallel_for((n + VERIFY_BLOCK - 1) / VERIFY_BLOCK, verify_rows, c, c->reason, sizeof(c->reason));
}

#endif
