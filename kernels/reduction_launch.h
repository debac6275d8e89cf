/* reduction.cu: *out = sum of n floats (n a multiple of 4) by one of three block reductions. The
 * launcher zeroes *out first, returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_REDUCTION_H
#define SMEM_KERNELS_REDUCTION_H

#include <stddef.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_REDUCTION_BLOCK 256
enum { SMEM_REDUCE_TREE, SMEM_REDUCE_SHUFFLE, SMEM_REDUCE_ATOMIC };

/* The kernel of one method, or NULL. */
const void *smem_reduction_fn(int method);

/* *out = the sum of in[0..n) with that method. */
int smem_reduction_launch(int method, unsigned grid, const float *in, size_t n, float *out, struct smem_clock *clk,
                          void *stream);

#ifdef __cplusplus
}
#endif

#endif
