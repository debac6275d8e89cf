/* load.cu, the load family (the bandwidth and bank benchmarks): shared-memory loads of width 4, 8 or
 * 16 bytes, lane l reading element l * stride. Launchers return a cudaError_t as int (0 on success)
 * and never synchronize; *_fn gives the __global__ function for attribute and occupancy calls. */
#ifndef SMEM_KERNELS_LOAD_H
#define SMEM_KERNELS_LOAD_H

#include <stdint.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_LOAD_WORDS 12288     /* 48 KiB of static shared memory */
#define SMEM_LOAD_UNROLL 8
#define SMEM_LOAD_ROW_BYTES 128   /* unrolled loads step by one full bank row: same banks */
#define SMEM_LOAD_BLOCK 1024

/* The kernel of one access width (4, 8 or 16 bytes), or NULL. */
const void *smem_load_fn(int width);

/* iters x SMEM_LOAD_UNROLL loads per thread; out[t] is thread t's sum of what it loaded. */
int smem_load_launch(int width, unsigned grid, unsigned block, const uint32_t *in, uint32_t *out,
                     int stride, int iters, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
