/* broadcast.cu: every lane of a warp loads the same 4-byte shared word. The launcher returns a
 * cudaError_t as int (0 on success) and never synchronizes. */
#ifndef SMEM_KERNELS_BROADCAST_H
#define SMEM_KERNELS_BROADCAST_H

#include <stdint.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_BROADCAST_BLOCK 1024      /* the largest block; the plan picks what fills an SM */
#define SMEM_BROADCAST_UNROLL 8
#define SMEM_BROADCAST_ROW_WORDS 32   /* unrolled loads step by one bank row: always bank 0 */
#define SMEM_BROADCAST_WORDS (SMEM_BROADCAST_UNROLL * SMEM_BROADCAST_ROW_WORDS)

/* The __global__ function, for attribute and occupancy calls. */
const void *smem_broadcast_fn(void);

/* iters x SMEM_BROADCAST_UNROLL broadcast loads per thread of in[j * 32] staged in shared memory;
 * out[t] is thread t's sum of what it loaded. */
int smem_broadcast_launch(unsigned grid, unsigned block, const uint32_t *in, uint32_t *out, int iters,
                          struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
