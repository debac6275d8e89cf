/* Global -> shared staging the classic way: every thread loads 4, 8 or 16 bytes from global memory
 * and stores them to shared memory, one tile at a time (the loads are synchronous, so there is no
 * pipeline), then the block consumes the tile. The baseline of the asynchronous copies. */
#include "bench.h"
#include "smem.h"
#include "staging_family.h"

static const struct smem_axis staging_plain_axes[] = {
    SMEM_STAGING_WIDTH_AXIS,
    SMEM_STAGING_TILE_AXIS,
    SMEM_STAGING_MIB_AXIS,
};

static int staging_plain_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                              char *why, size_t len)
{
    return smem_staging_plan(pt, SMEM_STAGING_PLAIN, dev, p, why, len);
}

const struct smem_bench smem_staging_plain_bench = {
    .name = "staging_plain",
    .summary = "global -> shared by ld.global + st.shared, tiles of 1 KiB to the opt-in maximum: GB/s against the "
               "measured global read bandwidth",
    .axes = staging_plain_axes,
    .n_axes = SMEM_ARRAY_LEN(staging_plain_axes),
    .plan = staging_plain_plan,
    SMEM_STAGING_COMMON
};
