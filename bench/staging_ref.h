/* The staging benchmark's plan arithmetic and host reference, for the descriptor and the unit tests. */
#ifndef SMEM_BENCH_STAGING_REF_H
#define SMEM_BENCH_STAGING_REF_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "staging.h"

#define SMEM_STAGING_STAGES 4   /* pipeline depth when the tiles fit; fewer for large tiles */

/* Tiles in flight per block for method at tile_bytes on dev: 1 for plain loads (synchronous),
 * else SMEM_STAGING_STAGES or as many as the opt-in ceiling holds (0: not even one). */
int smem_staging_stages(int method, int64_t tile_bytes, const struct smem_device *dev);

/* The largest tile every method can stage on dev: the opt-in ceiling less the bulk kernel's barriers,
 * rounded down to 16 bytes. */
int64_t smem_staging_max_tile(const struct smem_device *dev);

/* What each thread of the kernel hashes (out[b * block + t]) for grid blocks of block threads that
 * consume tiles_per_block tiles of tile_words words each from in (tile k of block b is b + k * grid). */
void smem_staging_ref(const uint32_t *in, uint32_t tile_words, uint32_t tiles_per_block, unsigned grid,
                      unsigned block, uint32_t *out);

#endif
