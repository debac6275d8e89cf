/* The swizzle family (kernels/swizzle.cu, kernels/swizzle_wgmma.cu): shared memory laid out for the
 * tensor cores. The bank model of ldmatrix and stmatrix under each layout, the tile benchmarks'
 * (swizzle_ldmatrix, swizzle_stmatrix) axes, plan, host reference and GPU operations; the TMA and
 * wgmma benchmarks have files of their own and use the model from here. */
#ifndef SMEM_BENCH_SWIZZLE_FAMILY_H
#define SMEM_BENCH_SWIZZLE_FAMILY_H

#include <stdint.h>

#include "bench.h"
#include "common.h"
#include "swizzle_launch.h"

/* The bank model's wavefronts per instruction of an ldmatrix or stmatrix of matrices matrices (1, 2, 4)
 * on the tile kernels' addresses (smem_swz_lane_place) under layout, averaged over the kernel's
 * SMEM_SWZ_UNROLL columns: smem_bank_phase_wavefronts of each instruction. .trans moves the same
 * rows, so it does not enter. */
double smem_swz_tile_wavefronts(int matrices, uint32_t row_bytes, int layout);

/* The same for the TMA benchmark's consumer of a tile landed under swizzle mode swz: per ldmatrix.x4
 * (SMEM_SWZ_CONSUME_LDMATRIX) or per 16-byte ld.shared.v4 of 32 lanes (SMEM_SWZ_CONSUME_LOADS). */
double smem_swz_tma_wavefronts(int swz, int consumer);

extern const struct smem_axis smem_swz_tile_axes[4];

/* The plan of a tile point of op (enum smem_swz_op). */
int smem_swz_tile_plan(const struct smem_point *pt, int op, const struct smem_device *dev, struct smem_plan *p,
                       char *why, size_t why_len);

/* bytes/clk/SM against 128, the model's wavefronts and its slowdown against the padded layout. */
void smem_swz_tile_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);

/* The bank model's metrics of a point (wavefronts, predicted_slowdown), for predict mode too. */
void smem_swz_tile_model(const struct smem_point *pt, struct smem_metrics *m);

/* The measured slowdown against the padded (conflict-free) layout of the same instruction and rows. */
extern const struct smem_baseline smem_swz_vs_padded;

/* What thread lane of every warp of a tile kernel writes to out for op after iters iterations: in is
 * the logical tile (ldmatrix; unused by stmatrix). */
uint32_t smem_swz_tile_ref(int op, int matrices, int trans, uint32_t row_bytes, int layout, const uint32_t *in,
                           int iters, int lane);

#if SMEM_HAVE_CUDA
const void *smem_swz_tile_kernel(const struct smem_case *c);
int smem_swz_tile_setup(struct smem_case *c);
int smem_swz_tile_run(struct smem_case *c);
int smem_swz_tile_verify(struct smem_case *c);
#define SMEM_SWZ_TILE_GPU_OPS                                                                         \
    .kernel = smem_swz_tile_kernel, .setup = smem_swz_tile_setup, .launch = smem_swz_tile_run,        \
    .verify = smem_swz_tile_verify, SMEM_IO_STATE,
#else
#define SMEM_SWZ_TILE_GPU_OPS
#endif

/* What both tile descriptors share after their name, summary, plan and min_cc. */
#define SMEM_SWZ_TILE_COMMON                                                                          \
    .axes = smem_swz_tile_axes, .n_axes = 4, .sweeps = { "swizzle" }, \
    .predictable = true, .kernel_file = "swizzle", .check_work = 1, .metrics = smem_swz_tile_metrics,  \
    .model_metrics = smem_swz_tile_model,                                                               \
    .baseline = &smem_swz_vs_padded, SMEM_SWZ_TILE_GPU_OPS

#endif
