/* The helpers of bench/common.h defined here: the full-SM block. (The copy baseline is bench/copy.c's,
 * the rest have files of their own.) */
#include "common.h"

unsigned smem_full_sm_block(const struct smem_device *dev, size_t smem_per_block, unsigned max_block)
{
    for (int k = 1; k <= dev->max_blocks_per_sm && dev->max_threads_per_sm > 0; k++) {
        int block = dev->max_threads_per_sm / k;
        if (block > (int)max_block || block % dev->warp_size)
            continue;
        if ((int64_t)k * ((int64_t)smem_per_block + dev->reserved_smem_per_block) <= dev->smem_per_sm)
            return (unsigned)block;
    }
    return max_block;
}
