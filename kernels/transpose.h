/* transpose.cu, the transpose family (transpose, transpose_naive): n x n fp32, n a multiple of 32.
 * The launcher returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_TRANSPOSE_H
#define SMEM_KERNELS_TRANSPOSE_H

#include "clock.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SMEM_TRANSPOSE_NAIVE, SMEM_TRANSPOSE_TILED, SMEM_TRANSPOSE_PADDED };

/* The kernel of one variant, or NULL. */
const void *smem_transpose_fn(int variant);

/* out = in transposed. */
int smem_transpose_launch(int variant, int n, const float *in, float *out, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
