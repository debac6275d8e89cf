/* The transpose family (kernels/transpose.cu), shared by transpose and transpose_naive: an n x n
 * fp32 matrix of mib MiB (n a multiple of 32), its plan, the bank model of the tiled kernels, host
 * reference and GPU operations, and GB/s (bytes read + written) against the copy baseline. */
#ifndef SMEM_BENCH_TRANSPOSE_FAMILY_H
#define SMEM_BENCH_TRANSPOSE_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "common.h"
#include "smem.h"
#include "transpose_launch.h"

/* The matrix size axis. */
extern const int64_t smem_transpose_mibs[2], smem_transpose_mibs_quick[1];
#define SMEM_TRANSPOSE_MIB_AXIS                                                                            \
    { .name = "mib", .unit = "MiB", .help = "matrix size (a square of 1, 4, 16, 64, 256 or 1024 MiB)",     \
      .defaults = smem_transpose_mibs, .n_defaults = SMEM_ARRAY_LEN(smem_transpose_mibs),                  \
      .quick = smem_transpose_mibs_quick, .n_quick = SMEM_ARRAY_LEN(smem_transpose_mibs_quick), .min = 1,  \
      .max = 4096 }

/* The edge of a square fp32 matrix of mib MiB, or 0 when there is none that is a multiple of 32. */
int smem_transpose_edge(int64_t mib);

/* The edge of the point's matrix (its mib axis), or 0 with the reason in why. */
int smem_transpose_matrix(const struct smem_point *pt, char *why, size_t why_len);

/* The kernel and geometry of a point or case (x) of either benchmark: the transpose benchmark's
 * layout, edge_elems, width_bytes, band_tiles, depth_tiles and block_tiles axes; for transpose_naive,
 * which has none of them, the naive kernel. */
struct smem_transpose_geom smem_transpose_geom_of(const struct smem_bench *b, const int64_t *values);
#define SMEM_TRANSPOSE_GEOM(x) smem_transpose_geom_of((x)->bench, (x)->values)

/* The plan of a point on dev: the kernel of its geometry over its mib axis's matrix; plan.work is the
 * matrix's edge n. A depth above 1 is one full wave of persistent blocks (grid 0) with depth tile
 * slots of dynamic shared memory; at depth 1, a block per block_tiles tiles, and with resident_blocks
 * the carveout hint under which each SM is configured for exactly that many blocks. Skipped with the
 * reason where the geometry has no kernel, does not divide n, needs cp.async or more shared memory
 * than dev has, or no configuration of dev holds exactly resident_blocks blocks. */
int smem_transpose_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                        size_t why_len);

/* The smallest carveout hint (percent) under which dev's driver configures each SM for exactly n
 * blocks of u bytes of shared memory (the configuration in *config, bytes); -1 where no hint does
 * (no step of the compute capability holds exactly n, or the capability has no published steps). */
int smem_transpose_resident_carveout(const struct smem_device *dev, int n, int64_t u, int64_t *config);

/* The bank model of a tiled kernel of g: wavefronts per shared store request (store) or per shared
 * load request (the column read), from the addresses the kernel's lanes use (smem_transpose_place,
 * smem_transpose_at), averaged over every request of one block (smem_bank_request_wavefronts). The
 * pipelined kernels (depth above 1) read the same addresses; their tile is written by cp.async, not
 * by shared stores, so the store figure describes only the depth-1 kernel. */
double smem_transpose_wavefronts(const struct smem_transpose_geom *g, bool store);

/* GB/s, bytes read plus bytes written. */
void smem_transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

#if SMEM_HAVE_CUDA
/* The family's GPU operations: the kernel of the case's geometry, a random matrix in and a poisoned
 * one out, one launch, and the exact check of every element. */
const void *smem_transpose_kernel(const struct smem_case *c);
int smem_transpose_setup(struct smem_case *c);
int smem_transpose_run(struct smem_case *c);
int smem_transpose_verify(struct smem_case *c);
#endif

#endif
