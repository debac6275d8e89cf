/* staging.cu: each block moves its tiles (tile k of block b is tile b + k * grid of the input) from
 * global into shared memory by plain loads and stores, by cp.async (cc 8.0) or by cp.async.bulk with
 * an mbarrier (cc 9.0), `stages` tiles in flight, and folds every word that landed into a hash that
 * the host reproduces. */
#ifndef SMEM_KERNEL_STAGING_H
#define SMEM_KERNEL_STAGING_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "portable.h"

#define SMEM_STAGING_BLOCK 256
#define SMEM_STAGING_MAX_STAGES 8
/* static shared memory of the bulk kernel: one 8-byte mbarrier per stage, 64 bytes, which ptxas pads
 * to the 128-byte alignment of the dynamic tiles after them (ptxas -v: 128 bytes smem, sm_90) */
#define SMEM_STAGING_BULK_STATIC 128

enum smem_staging_method {
    SMEM_STAGING_PLAIN = 0,     /* ld.global + st.shared by every thread, one tile at a time */
    SMEM_STAGING_CP_ASYNC = 1,  /* cp.async of 4, 8 or 16 bytes per thread, commit and wait groups */
    SMEM_STAGING_BULK = 2,      /* one cp.async.bulk per tile, completion counted on an mbarrier */
};

#ifdef __cplusplus
extern "C" {
#endif

/* The hash a thread folds its words into, in the order it reads them: thread t of a block reads
 * words t, t + block, t + 2 block... of each of its tiles in turn. */
static inline SMEM_HOST_DEVICE uint32_t smem_staging_fold(uint32_t h, uint32_t word)
{
    return h * 33u + word;
}

const void *smem_staging_fn(int method, int width);

/* out[block * SMEM_STAGING_BLOCK + t]: thread t's hash. tile_bytes a multiple of 16; dyn_bytes at
 * least stages * tile_bytes; the input holds grid * tiles_per_block tiles. */
int smem_staging_launch(int method, int width, unsigned grid, size_t dyn_bytes, const uint32_t *in, uint32_t tile_bytes,
                        uint32_t tiles_per_block, int stages, uint32_t *out, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
