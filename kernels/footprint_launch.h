/* footprint.cu: a fixed shared-memory footprint per block, the carveout's shared-memory side.
 * The launcher returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_FOOTPRINT_H
#define SMEM_KERNELS_FOOTPRINT_H

#include <stddef.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_FOOTPRINT_BLOCK 256

/* The __global__ function, for attribute and occupancy calls. */
const void *smem_footprint_fn(void);

/* Each block stages tile_bytes of in and writes out[i] = tile[i] + 2 tile[len - 1 - i]. */
int smem_footprint_launch(unsigned grid, size_t tile_bytes, const float *in, float *out,
                          struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
