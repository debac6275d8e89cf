/* ldmatrix (cc 7.5) under the layouts a tensor-core tile is stored in: .x1/.x2/.x4, with and without
 * .trans, on 16-bit rows of 32..256 bytes, row-major, padded and XOR-swizzled. Each 8x8 matrix is
 * eight 16-byte rows read in one phase, so the layout alone decides the bank conflicts: measured
 * bytes/clk/SM and slowdown against the padded layout beside the bank model's passes. */
#include "swizzle_family.h"

#include "smem.h"

static int plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                size_t len)
{
    return smem_swz_tile_plan(pt, SMEM_SWZ_LDMATRIX, dev, p, why, len);
}

const struct smem_bench smem_swizzle_ldmatrix_bench = {
    .name = "swizzle_ldmatrix",
    .summary = "ldmatrix .x1/.x2/.x4 (.trans) on row-major, padded and 32/64/128-byte XOR-swizzled tiles: "
               "bytes/clk/SM and slowdown against the bank model's passes per instruction",
    .min_cc = 75,
    .min_cc_feature = "ldmatrix",
    /* the .x4 variants' 35 registers let the API count 6 blocks per SM, the hardware holds 5
     * (ncu_check: below the limit), so the full-wave grid has a tail whose landing moves between runs */
    .variation = SMEM_VARIATION_MEASURED(1.5, 1.5, 0.0),
    .plan = plan,
    SMEM_SWZ_TILE_COMMON
};
