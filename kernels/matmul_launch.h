/* matmul.cu: C = A B, fp32, n x n row-major. tile 0 is the global-only baseline, 8/16/32/64 the
 * shared-memory tiled kernels. The launcher returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_MATMUL_H
#define SMEM_KERNELS_MATMUL_H

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel of one tile edge (0, 8, 16, 32, 64), or NULL. */
const void *smem_matmul_fn(int tile);

/* C = A B with the kernel of that tile edge; n a multiple of the tile. */
int smem_matmul_launch(int tile, int n, const float *a, const float *b, float *c, struct smem_clock *clk,
                       void *stream);

#ifdef __cplusplus
}
#endif

#endif
