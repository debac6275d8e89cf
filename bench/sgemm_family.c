/* The SGEMM family's plan and GPU operations (bench/sgemm_family.h). */
#include "sgemm_family.h"

#include <stdlib.h>

const int64_t smem_sgemm_ns[2] = { 2048, 4096 };
const int64_t smem_sgemm_ns_quick[1] = { 2048 };
const int64_t smem_sgemm_bms[1] = { 128 };
const int64_t smem_sgemm_bns[1] = { 128 };
const int64_t smem_sgemm_bks[3] = { 8, 16, 32 };
/* 2 to 6 slabs of 128 x 128 tiles: from 16 KiB (bk 8, 2 stages) to 193 KiB (bk 32, 6 stages); 256 x 128
 * and 128 x 256 tiles (one block of 512 threads per SM) with --axis: on the H200 they came within 0.1 % of
 * the 128 x 128 tile at best, with one block per SM (results/tile/tune_591d3ea_top.txt) */
const int64_t smem_sgemm_stages[3] = { 2, 4, 6 };
const int64_t smem_sgemm_stages_quick[2] = { 2, 4 };
const int64_t smem_sgemm_a_widths[2] = { 8, 16 };

int smem_sgemm_plan(const struct smem_point *pt, int copy, const struct smem_device *dev, struct smem_plan *p,
                    char *why, size_t why_len)
{
    int n = (int)smem_axis_value(pt, "n"), bm = (int)smem_axis_value(pt, "bm"), bn = (int)smem_axis_value(pt, "bn");
    int bk = (int)smem_axis_value(pt, "bk"), stages = (int)smem_axis_value(pt, "stages");
    int a_width = (int)smem_axis_value(pt, "a_width_bytes");
    size_t smem = smem_sgemm_smem_bytes(bm, bn, bk, stages);

    if (!(bm == 128 && bn == 128) && !(bm == 256 && bn == 128) && !(bm == 128 && bn == 256)) {
        smem_fmt(why, why_len, "a %d x %d block tile is not built; the kernels have 128 x 128, 256 x 128 and "
                 "128 x 256 (bm x bn)", bm, bn);
        return SMEM_ESKIP;
    }
    if (bk != 8 && bk != 16 && bk != 32 && bk != 64) {
        smem_fmt(why, why_len, "no kernel for bk = %d: the slabs are 8, 16, 32 or 64 deep", bk);
        return SMEM_ESKIP;
    }
    if (!smem_sgemm_a_width_built(dev->cc_major, copy, a_width)) {
        smem_fmt(why, why_len, "float4 loads of A spill the cp.async kernel's 128 registers on cc %d.%d and are not "
                 "built for it; a_width_bytes 8 is, and TMA's 16", dev->cc_major, dev->cc_minor);
        return SMEM_ESKIP;
    }
    if (!smem_sgemm_built(dev->cc_major, bm, bn)) {
        smem_fmt(why, why_len, "a %d x %d block tile (%d threads, so 128 registers each) spills on cc %d.%d and is "
                 "not built for it; 128 x 128 is", bm, bn, smem_sgemm_threads(bm, bn), dev->cc_major, dev->cc_minor);
        return SMEM_ESKIP;
    }
    if (n % bm || n % bn) {
        smem_fmt(why, why_len, "n = %d is not a multiple of the %d x %d block tile", n, bm, bn);
        return SMEM_ESKIP;
    }
    if ((int64_t)smem > dev->smem_per_block_optin) {
        smem_fmt(why, why_len, "%d stages of %d x %d x %d slabs need %zu bytes of shared memory; the opt-in "
                 "ceiling is %lld", stages, bm, bn, bk, smem, (long long)dev->smem_per_block_optin);
        return SMEM_ESKIP;
    }
    p->block = (unsigned)smem_sgemm_threads(bm, bn);
    p->grid = (unsigned)(n / bm) * (unsigned)(n / bn);
    p->dyn_smem = smem;
    p->regs = smem_sgemm_regs(dev->cc_major, bm, bn);
    p->variant = copy;
    p->optin = (int64_t)smem > dev->smem_per_block;
    return SMEM_OK;
}

#if SMEM_HAVE_CUDA

const void *smem_sgemm_kernel(const struct smem_case *c)
{
    return smem_sgemm_fn(c->plan->variant, (int)smem_axis_value(c, "bm"), (int)smem_axis_value(c, "bn"),
                         (int)smem_axis_value(c, "bk"), (int)smem_axis_value(c, "a_width_bytes"));
}

int smem_sgemm_setup(struct smem_case *c)
{
    struct smem_gemm *g;
    int rc, drv = 0;

    if ((rc = smem_gemm_setup(c)))
        return rc;
    g = c->priv;
    if (c->plan->variant != SMEM_SGEMM_TMA)
        return SMEM_OK;
    if (!(g->maps = calloc(2, sizeof(*g->maps))))
        return SMEM_ENOMEM;
    rc = smem_sgemm_encode(&g->maps[0], &g->maps[1], g->a, g->b, g->n, (int)smem_axis_value(c, "bm"),
                           (int)smem_axis_value(c, "bn"), (int)smem_axis_value(c, "bk"), &drv);
    if (rc == (int)cudaErrorNotSupported) {
        smem_fmt(c->reason, sizeof(c->reason), "the driver has no cuTensorMapEncodeTiled: TMA tensor copies need "
                 "CUDA 12.0 or later");
        return SMEM_ESKIP;
    }
    if (rc) {
        smem_fmt(c->reason, sizeof(c->reason), "cuTensorMapEncodeTiled refused the maps of A and B (CUresult %d, "
                 "cudaError %d)", drv, rc);
        return SMEM_ECUDA;
    }
    return SMEM_OK;
}

int smem_sgemm_run(struct smem_case *c)
{
    struct smem_gemm *g = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_sgemm_launch(c->plan->variant, (int)smem_axis_value(c, "bm"), (int)smem_axis_value(c, "bn"),
                                      (int)smem_axis_value(c, "bk"), (int)smem_axis_value(c, "a_width_bytes"),
                                      (int)smem_axis_value(c, "stages"), g->n, g->a,
                                      g->b, g->c, g->maps ? &g->maps[0] : NULL, g->maps ? &g->maps[1] : NULL, c->clk,
                                      c->stream));
    return SMEM_OK;
fail:
    return rc;
}

#endif
