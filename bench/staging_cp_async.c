/* Global -> shared staging with cp.async (cc 8.0): each thread issues 4-, 8- or 16-byte asynchronous
 * copies (.cg at 16 bytes, bypassing L1; .ca below), one commit group per tile, up to eight tiles in
 * flight, cp.async.wait_group before the block consumes the oldest. */
#include "bench.h"
#include "smem.h"
#include "staging_family.h"

static const struct smem_axis staging_cp_async_axes[] = {
    SMEM_STAGING_WIDTH_AXIS,
    SMEM_STAGING_TILE_AXIS,
    SMEM_STAGING_MIB_AXIS,
};

static int staging_cp_async_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                                 char *why, size_t len)
{
    return smem_staging_plan(pt, SMEM_STAGING_CP_ASYNC, dev, p, why, len);
}

const struct smem_bench smem_staging_cp_async_bench = {
    .name = "staging_cp_async",
    .summary = "global -> shared by cp.async of 4/8/16 bytes (cc 8.0), up to eight tiles in flight, commit and wait "
               "groups: GB/s against the measured global read bandwidth",
    .axes = staging_cp_async_axes,
    .n_axes = SMEM_ARRAY_LEN(staging_cp_async_axes),
    .min_cc = 80,
    .min_cc_feature = "cp.async",
    .plan = staging_cp_async_plan,
    SMEM_STAGING_COMMON
};
