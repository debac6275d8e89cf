/* stmatrix (cc 9.0), the store twin of ldmatrix: a warp writes 8x8 matrices of 16-bit elements from
 * its fragments, each matrix eight 16-byte rows at the addresses eight lanes supply, so the same
 * layouts decide the same conflicts. Verified by reading every row back after the last store. */
#include "swizzle_family.h"

#include "smem.h"

static int plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                size_t len)
{
    return smem_swz_tile_plan(pt, SMEM_SWZ_STMATRIX, dev, p, why, len);
}

const struct smem_bench smem_swizzle_stmatrix_bench = {
    .name = "swizzle_stmatrix",
    .summary = "stmatrix .x1/.x2/.x4 (.trans) on row-major, padded and 32/64/128-byte XOR-swizzled tiles (cc 9.0): "
               "bytes/clk/SM and slowdown against the bank model's passes per instruction",
    .min_cc = 90,
    .min_cc_feature = "stmatrix",
    .variation = SMEM_VARIATION_MEASURED(1.5, 1.5, 0.0),
    .plan = plan,
    SMEM_SWZ_TILE_COMMON
};
