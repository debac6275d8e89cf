/* dsm_atomics.cu: every thread of every block adds 1 to counters of the next block of its cluster
 * (SMEM_DSM_REMOTE, a ring), of its own block through the cluster window (SMEM_DSM_SELF) or of its
 * own block with red.shared (SMEM_DSM_LOCAL); then each block copies its counters out. Every counter
 * ends at iters * SMEM_DSM_ATOMICS_UNROLL exactly. */
#ifndef SMEM_KERNEL_DSM_ATOMICS_H
#define SMEM_KERNEL_DSM_ATOMICS_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "dsm.h"

#define SMEM_DSM_ATOMICS_BLOCK 1024
#define SMEM_DSM_ATOMICS_COUNTERS 1024   /* 4 KiB of counters per block */
#define SMEM_DSM_ATOMICS_UNROLL 8

#ifdef __cplusplus
extern "C" {
#endif

const void *smem_dsm_atomics_fn(int path);

/* out[block * SMEM_DSM_ATOMICS_COUNTERS + i]: block's counter i after the kernel. */
int smem_dsm_atomics_launch(int path, unsigned grid, unsigned cluster, size_t dyn_bytes, uint32_t *out, int iters,
                            struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
