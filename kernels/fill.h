/* fill.cu: a benchmark's seeded random input drawn on the GPU, value for value the host's stream
 * (core/rng.h), instead of drawn on the host and copied over PCIe. */
#ifndef SMEM_KERNELS_FILL_H
#define SMEM_KERNELS_FILL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = the i-th value of the stream seeded with seed, as a float in [-1, 1) (floats) or as the
 * low 32 bits of the draw, for i < n; on stream, asynchronously. */
int smem_fill_launch(uint32_t *out, size_t n, int floats, uint64_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif
