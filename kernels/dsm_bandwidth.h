/* dsm_bandwidth.cu: every thread of every block reads the buffer of the next block of its cluster
 * (SMEM_DSM_REMOTE, a ring), its own through the cluster window (SMEM_DSM_SELF) or its own with
 * ld.shared (SMEM_DSM_LOCAL), SMEM_DSM_BW_UNROLL independent loads of 4, 8 or 16 bytes per
 * iteration. Block rank r fills its buffer from in + r * SMEM_DSM_BW_WORDS. */
#ifndef SMEM_KERNEL_DSM_BANDWIDTH_H
#define SMEM_KERNEL_DSM_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "dsm.h"
#include "portable.h"

#define SMEM_DSM_BW_BLOCK 1024
#define SMEM_DSM_BW_WORDS 8192      /* 32 KiB read per block */
#define SMEM_DSM_BW_UNROLL 8
#define SMEM_DSM_MAX_CLUSTER 16     /* in holds this many buffers */

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offset in the buffer of thread t's load u: lane-contiguous, so conflict-free. */
static inline SMEM_HOST_DEVICE uint32_t smem_dsm_bw_offset(uint32_t t, uint32_t u, uint32_t width)
{
    return (t * width + u * SMEM_DSM_BW_BLOCK * width) % (SMEM_DSM_BW_WORDS * 4);
}

const void *smem_dsm_bandwidth_fn(int width, int path);

/* out[block * SMEM_DSM_BW_BLOCK + t]: thread t's sum of what it loaded; smid[block]: the SM it ran on. */
int smem_dsm_bandwidth_launch(int width, int path, unsigned grid, unsigned cluster, size_t dyn_bytes,
                              const uint32_t *in, uint32_t *out, uint32_t *smid, int iters,
                              struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
