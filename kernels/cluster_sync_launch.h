/* cluster_sync.cu: every thread of every block of one cluster passes `iters` cluster barriers; then
 * each block hands the next one (rank + 1, a ring) its rank and the number of barriers it passed,
 * through distributed shared memory: out[block] = source rank << 24 | barriers. */
#ifndef SMEM_KERNEL_CLUSTER_SYNC_H
#define SMEM_KERNEL_CLUSTER_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

const void *smem_cluster_sync_fn(void);
int smem_cluster_sync_launch(unsigned cluster, unsigned block, size_t dyn_bytes, uint32_t *out, int iters,
                             struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
