/* The staging family (kernels/staging.cu), shared by staging_plain, staging_cp_async and
 * staging_bulk: moving tiles from global into shared memory, three ways, against the same run's
 * global read bandwidth (global_read). The axes, the plan, the host reference and the GPU
 * operations; a case's method is its plan's variant, its access width its width_bytes axis (16 for
 * the bulk copy, which has none). */
#ifndef SMEM_BENCH_STAGING_FAMILY_H
#define SMEM_BENCH_STAGING_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "staging_launch.h"

/* Pipeline depth: four tiles where four leave room for a second block per SM (more warps to issue
 * cp.async and to consume); where they do not, as many as the opt-in ceiling holds, up to the
 * kernel's eight barriers, so a 32 KiB tile still has six copies in flight (at four it had three, and
 * the bulk copy reached 84 % of the read bandwidth on the H200; see the README). */
#define SMEM_STAGING_STAGES 4

extern const int64_t smem_staging_widths[3], smem_staging_quick_widths[2];
extern const int64_t smem_staging_tiles[8], smem_staging_quick_tiles[3];
extern const int64_t smem_staging_mibs[1], smem_staging_quick_mibs[1];

#define SMEM_STAGING_WIDTH_AXIS                                                                           \
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per thread access", .defaults = smem_staging_widths, \
      .n_defaults = 3, .quick = smem_staging_quick_widths, .n_quick = 2, .min = 4, .max = 16,              \
      .defaults_only = true }
#define SMEM_STAGING_TILE_AXIS                                                                            \
    { .name = "transfer_bytes", .unit = "bytes", .help = "tile moved per operation (a multiple of 16), up to " \
      "the opt-in maximum", .defaults = smem_staging_tiles, .n_defaults = 8, .quick = smem_staging_quick_tiles, \
      .n_quick = 3, .min = 16, .max = 228 * 1024, .from_device = true }
#define SMEM_STAGING_MIB_AXIS                                                                             \
    { .name = "mib", .unit = "MiB", .help = "data staged per launch (at least one tile per block)",        \
      .defaults = smem_staging_mibs, .n_defaults = 1, .quick = smem_staging_quick_mibs, .n_quick = 1,     \
      .min = 1, .max = 16384 }

/* pct_of_read: GB/s as a percentage of global_read's on the same data. */
extern const struct smem_baseline smem_vs_read;

/* Tiles in flight per block for method at tile_bytes on dev: 1 for plain loads (synchronous), else
 * SMEM_STAGING_STAGES where two blocks of that many fit on an SM, else as many as the opt-in
 * ceiling holds up to SMEM_STAGING_MAX_STAGES (0: not even one). */
int smem_staging_stages(int method, int64_t tile_bytes, const struct smem_device *dev);

/* The largest tile every method can stage on dev: the opt-in ceiling less the bulk kernel's barriers,
 * rounded down to 16 bytes. */
int64_t smem_staging_max_tile(const struct smem_device *dev);

/* The plan of a staging point of method: the pipeline's allocation, a full wave. */
int smem_staging_plan(const struct smem_point *pt, int method, const struct smem_device *dev, struct smem_plan *p,
                      char *why, size_t why_len);

/* transfer_bytes on dev: 1 KiB, 2 KiB ... and the largest tile (under quick, the quick tiles that fit). */
size_t smem_staging_device_defaults(const struct smem_device *dev, const char *axis, bool quick,
                                    int (*blocks)(const struct smem_device *dev, const struct smem_plan *p),
                                    int64_t *out, size_t max);

/* What each thread of the kernel hashes (out[b * block + t]) for grid blocks of block threads that
 * consume tiles_per_block tiles of tile_words words each from in (tile k of block b is b + k * grid). */
void smem_staging_ref(const uint32_t *in, uint32_t tile_words, uint32_t tiles_per_block, unsigned grid,
                      unsigned block, uint32_t *out);

/* A case's private state (c->priv): the tiles each block consumes, the input, the output and the
 * host reference of the hashes. */
struct smem_staging {
    uint32_t tiles_per_block;
    uint32_t *in, *out;         /* device */
    uint32_t *h_in, *h_out, *h_ref;
};

/* GB/s staged, and the pipeline depth. */
void smem_staging_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

#if SMEM_HAVE_CUDA
/* The family's GPU operations. */
const void *smem_staging_kernel(const struct smem_case *c);
int smem_staging_setup(struct smem_case *c);
int smem_staging_run(struct smem_case *c);
int smem_staging_verify(struct smem_case *c);
void smem_staging_teardown(struct smem_case *c);
#define SMEM_STAGING_GPU_OPS                                                                              \
    .kernel = smem_staging_kernel, .priv_size = sizeof(struct smem_staging), .setup = smem_staging_setup, \
    .launch = smem_staging_run, .verify = smem_staging_verify, .teardown = smem_staging_teardown,
#else
#define SMEM_STAGING_GPU_OPS
#endif

/* What every staging descriptor shares, after its name, summary, axes, plan and min_cc: the sweep,
 * the kernel file, the metrics against global_read, the device's tile sizes and the GPU operations. */
#define SMEM_STAGING_COMMON                                                                               \
    .sweeps = { "staging" }, .variation = SMEM_VARIATION_MEASURED(3.5, 4.5, 0.0), .predictable = true, .kernel_file = "staging",     \
    .metrics = smem_staging_metrics,                                                                      \
    .baseline = &smem_vs_read, .device_defaults = smem_staging_device_defaults, SMEM_STAGING_GPU_OPS

#endif
