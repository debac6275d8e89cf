/* Tiled matrix multiply: how far staging T x T tiles in shared memory gets a GEMM past the
 * global-only baseline (tile 0), for T = 8..64; the register-blocked kernel (matmul_rb) and cuBLAS
 * are the next steps up, and pct_of_cublas measures every point against cuBLAS at the same n. */
#include "gemm.h"
#include "matmul_launch.h"
#include "smem.h"

static const int64_t tiles[] = { 0, 8, 16, 32, 64 };

static const struct smem_axis matmul_axes[] = {
    SMEM_GEMM_N_AXIS,
    { .name = "tile", .unit = "elements", .help = "shared-memory tile edge; 0 = global-memory-only baseline",
      .defaults = tiles, .n_defaults = SMEM_ARRAY_LEN(tiles), .min = 0, .max = 64, .defaults_only = true },
};

static int matmul_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                       size_t len)
{
    int n = (int)smem_axis_value(pt, "n"), tile = (int)smem_axis_value(pt, "tile"), edge = tile ? tile : 16;

    (void)dev;
    if (n % edge) {
        smem_fmt(why, len, "n = %d is not a multiple of the %d-element tile", n, edge);
        return SMEM_ESKIP;
    }
    p->block = tile == 64 ? 1024 : (unsigned)(edge * edge);
    p->grid = (unsigned)(n / edge) * (unsigned)(n / edge);
    p->static_smem = tile ? 2u * tile * tile * sizeof(float) : 0;
    p->regs = 32;
    p->variant = tile;
    return SMEM_OK;
}

SMEM_KERNEL(matmul, smem_matmul_fn(c->plan->variant))

SMEM_LAUNCH(matmul, struct smem_gemm, g,
            smem_matmul_launch(c->plan->variant, g->n, g->a, g->b, g->c, c->clk, c->stream))

const struct smem_bench smem_matmul_bench = {
    .name = "matmul",
    .summary = "tiled fp32 matrix multiply, tile 8..64 against the global-only baseline (tile 0) and cuBLAS",
    .axes = matmul_axes,
    .n_axes = SMEM_ARRAY_LEN(matmul_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 3.5, 0.0),
    .predictable = true,
    .kernel_file = "matmul",
    .plan = matmul_plan,
    .metrics = smem_gemm_metrics,
    .baseline = &smem_vs_cublas,
    SMEM_GPU_OPS(.kernel = matmul_kernel, .setup = smem_gemm_setup, .launch = matmul_launch, .verify = smem_gemm_verify,
                 SMEM_GEMM_STATE)
};
