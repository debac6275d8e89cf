/* dsm_latency.cu: one thread of block rank 0 chases a random cycle of shared-memory addresses in the
 * block of rank size-1 (SMEM_DSM_REMOTE), in its own block through the cluster window
 * (SMEM_DSM_SELF) or in its own block with ld.shared (SMEM_DSM_LOCAL). One cluster per launch. */
#ifndef SMEM_KERNEL_DSM_LATENCY_H
#define SMEM_KERNEL_DSM_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "dsm.h"

#define SMEM_DSM_LATENCY_SLOTS 4096     /* the longest chain, 4-byte slots */
#define SMEM_DSM_LATENCY_UNROLL 16
#define SMEM_DSM_LATENCY_BLOCK 32

#ifdef __cplusplus
extern "C" {
#endif

const void *smem_dsm_latency_fn(int path);

/* next: the cycle (n_slots indices); steps a multiple of SMEM_DSM_LATENCY_UNROLL; out[0]: the slot the
 * chase ended on; dyn_bytes of dynamic shared memory per block (at least 4 * n_slots). */
int smem_dsm_latency_launch(int path, unsigned cluster, size_t dyn_bytes, const uint32_t *next, uint32_t n_slots,
                            uint32_t steps, uint32_t *out, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
