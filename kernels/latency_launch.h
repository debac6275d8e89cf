/* latency.cu: one thread chasing a cycle of shared-memory addresses (index_chase 0) or of indices,
 * j = s[j] (index_chase 1). The launcher returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_LATENCY_H
#define SMEM_KERNELS_LATENCY_H

#include <stdint.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_LATENCY_SLOTS 4096
#define SMEM_LATENCY_UNROLL 32

/* The kernel of one chase mode, or NULL. */
const void *smem_latency_fn(int index_chase);

/* steps dependent loads from slot 0 through next[]; *out is the slot the chase ends on. */
int smem_latency_launch(int index_chase, const uint32_t *next, uint32_t steps, uint32_t *out,
                        struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
