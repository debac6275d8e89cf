/* Register-blocked matrix multiply: 128 x 128 block tiles, each thread an 8 x 8 tile of C in
 * registers, so every value read from shared memory feeds eight FMAs. bk is the depth of the
 * staged slab: 8 to 32 fit the 48 KiB default, bk = 64 takes 64 KiB and needs the opt-in. */
#include "gemm.h"
#include "matmul_rb_launch.h"
#include "smem.h"

static const int64_t depths[] = { 8, 16, 32, 64 };

static const struct smem_axis matmul_rb_axes[] = {
    SMEM_GEMM_N_AXIS,
    { .name = "bk", .unit = "elements", .help = "depth of the shared-memory slab (64: 64 KiB, opt-in)",
      .defaults = depths, .n_defaults = SMEM_ARRAY_LEN(depths), .min = 8, .max = 64, .defaults_only = true },
};

static int matmul_rb_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    int n = (int)smem_axis_value(pt, "n"), bk = (int)smem_axis_value(pt, "bk");
    size_t smem = (size_t)bk * 2 * SMEM_MATMUL_RB_TILE * sizeof(float);

    if (n % SMEM_MATMUL_RB_TILE) {
        smem_fmt(why, len, "n = %d is not a multiple of the %d-element block tile", n, SMEM_MATMUL_RB_TILE);
        return SMEM_ESKIP;
    }
    if ((int64_t)smem > dev->smem_per_block_optin) {
        smem_fmt(why, len, "bk = %d needs %zu bytes of shared memory; the opt-in ceiling is %lld", bk, smem,
                 (long long)dev->smem_per_block_optin);
        return SMEM_ESKIP;
    }
    p->block = SMEM_MATMUL_RB_BLOCK;
    p->grid = (unsigned)(n / SMEM_MATMUL_RB_TILE) * (unsigned)(n / SMEM_MATMUL_RB_TILE);
    p->dyn_smem = smem;
    p->regs = 160;
    p->variant = bk;
    p->optin = (int64_t)smem > dev->smem_per_block;
    return SMEM_OK;
}

SMEM_KERNEL(matmul_rb, smem_matmul_rb_fn(c->plan->variant))

SMEM_LAUNCH(matmul_rb, struct smem_gemm, g,
            smem_matmul_rb_launch(c->plan->variant, g->n, g->a, g->b, g->c, c->clk, c->stream))

const struct smem_bench smem_matmul_rb_bench = {
    .name = "matmul_rb",
    .summary = "register-blocked fp32 matrix multiply (128x128 tiles, 8x8 per thread); bk = 64 is a 64 KiB opt-in",
    .axes = matmul_rb_axes,
    .n_axes = SMEM_ARRAY_LEN(matmul_rb_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 2.5, 0.0),
    .predictable = true,
    .kernel_file = "matmul_rb",
    .plan = matmul_rb_plan,
    .metrics = smem_gemm_metrics,
    .baseline = &smem_vs_cublas,
    SMEM_GPU_OPS(.kernel = matmul_rb_kernel, .setup = smem_gemm_setup, .launch = matmul_rb_launch,
                 .verify = smem_gemm_verify, SMEM_GEMM_STATE)
};
