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

int smem_transpose_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const float *in = io->h_in, *out = io->h_out;
    size_t n = (size_t)c->plan->work;
    int rc;

    if ((rc = smem_io_fetch(io)))
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (out[j * n + i] != in[i * n + j]) {   /* a move, so exact */
                smem_fmt(c->reason, sizeof(c->reason), "out[%zu][%zu] = %g, expected in[%zu][%zu] = %g", j, i,
                         (double)out[j * n + i], i, j, (double)in[i * n + j]);
                return SMEM_EVERIFY;
            }
    return SMEM_OK;
}

#endif
