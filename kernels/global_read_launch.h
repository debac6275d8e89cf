/* global_read.cu: every thread of a full wave reads 16-byte elements of the input, grid-strided,
 * and writes the sum of their words: the device's global read bandwidth, the staging sweep's
 * reference line. */
#ifndef SMEM_KERNEL_GLOBAL_READ_H
#define SMEM_KERNEL_GLOBAL_READ_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"

#define SMEM_GLOBAL_READ_BLOCK 256
#define SMEM_GLOBAL_READ_UNROLL 4

#ifdef __cplusplus
extern "C" {
#endif

const void *smem_global_read_fn(void);

/* in: n16 16-byte elements; out[thread]: the sum of the words it read. */
int smem_global_read_launch(unsigned grid, const uint32_t *in, size_t n16, uint32_t *out, struct smem_clock *clk,
                            void *stream);

#ifdef __cplusplus
}
#endif

#endif
