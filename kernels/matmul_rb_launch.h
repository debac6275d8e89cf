/* matmul_rb.cu: the register-blocked C = A B (fp32, n x n row-major, n a multiple of the block
 * tile), BK = 8, 16, 32 or 64. The launcher returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_MATMUL_RB_H
#define SMEM_KERNELS_MATMUL_RB_H

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_MATMUL_RB_TILE 128   /* the block tile edge */
#define SMEM_MATMUL_RB_BLOCK 256

/* The kernel of one slab depth (8, 16, 32, 64), or NULL. */
const void *smem_matmul_rb_fn(int bk);

/* C = A B with bk-deep slabs of 2 x bk x 128 floats of dynamic shared memory. */
int smem_matmul_rb_launch(int bk, int n, const float *a, const float *b, float *c, struct smem_clock *clk,
                          void *stream);

#ifdef __cplusplus
}
#endif

#endif
