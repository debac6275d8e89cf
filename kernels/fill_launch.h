/* fill.cu: a benchmark's seeded random input drawn on the GPU, value for value the host's stream
 * (core/rng.h), instead of drawn on the host and copied over PCIe. */
#ifndef SMEM_KERNELS_FILL_H
#define SMEM_KERNELS_FILL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a drawn value becomes. */
enum smem_fill_kind {
    SMEM_FILL_KIND_WORDS,       /* the low 32 bits of the draw */
    SMEM_FILL_KIND_FLOATS,      /* a float in [-1, 1) */
    SMEM_FILL_KIND_SMALL_INTS,  /* a whole-number float in -4..3: the draw mod 8, less 4 */
};

/* out[i] = the i-th value of the stream seeded with seed, as kind (enum smem_fill_kind) says, for
 * i < n; on stream, asynchronously. */
int smem_fill_launch(uint32_t *out, size_t n, int kind, uint64_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif
