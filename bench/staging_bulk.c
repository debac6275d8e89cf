/* Global -> shared staging with the copy engine (cc 9.0): one thread issues one
 * cp.async.bulk.shared::cluster.global per tile, whose bytes complete an mbarrier's transaction count
 * (arrive.expect_tx, try_wait.parity), up to eight tiles in flight. No per-thread width: the whole tile
 * is one instruction, so the transfer size is the one knob. */
#include "bench.h"
#include "smem.h"
#include "staging_family.h"

static const struct smem_axis staging_bulk_axes[] = {
    SMEM_STAGING_TILE_AXIS,
    SMEM_STAGING_MIB_AXIS,
};

static int staging_bulk_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                             char *why, size_t len)
{
    return smem_staging_plan(pt, SMEM_STAGING_BULK, dev, p, why, len);
}

const struct smem_bench smem_staging_bulk_bench = {
    .name = "staging_bulk",
    .summary = "global -> shared by cp.async.bulk completing on an mbarrier (cc 9.0), one instruction per tile, "
               "up to eight in flight: GB/s against the measured global read bandwidth",
    .axes = staging_bulk_axes,
    .n_axes = SMEM_ARRAY_LEN(staging_bulk_axes),
    .min_cc = 90,
    .min_cc_feature = "cp.async.bulk and mbarrier transaction counts",
    .plan = staging_bulk_plan,
    SMEM_STAGING_COMMON
};
