/* The pipelined, warp-tiled SGEMM family (kernels/sgemm.cu), shared by sgemm_cp_async and
 * sgemm_tma: its axes (n, the block tile bm x bn, the slab depth bk, the stages in flight, the bytes
 * of A a thread reads per shared load), its plan (shared memory per block from about 16 KiB to the
 * opt-in), and its GPU operations on the gemm.h
 * operands, checked against the same fp64 reference and cuBLAS baseline as matmul and matmul_rb. */
#ifndef SMEM_BENCH_SGEMM_FAMILY_H
#define SMEM_BENCH_SGEMM_FAMILY_H

#include <stdint.h>

#include "bench.h"
#include "gemm.h"
#include "sgemm_launch.h"
#include "smem.h"

extern const int64_t smem_sgemm_ns[2], smem_sgemm_ns_quick[1], smem_sgemm_bms[1], smem_sgemm_bns[1],
    smem_sgemm_bks[3], smem_sgemm_stages[3], smem_sgemm_stages_quick[2], smem_sgemm_a_widths[2];

/* n from 2048: at 1024 a 128 x 128 tile gives 64 blocks, half the H200's 132 SMs */
#define SMEM_SGEMM_AXES                                                                                    \
    { .name = "n", .unit = "elements", .help = "matrix edge (C = A B, all n x n fp32)",                    \
      .defaults = smem_sgemm_ns, .n_defaults = SMEM_ARRAY_LEN(smem_sgemm_ns), .quick = smem_sgemm_ns_quick,  \
      .n_quick = SMEM_ARRAY_LEN(smem_sgemm_ns_quick), .min = 256, .max = 32768 },                          \
    { .name = "bm", .unit = "elements", .help = "rows of C per block (128 or 256)", .defaults = smem_sgemm_bms, \
      .n_defaults = SMEM_ARRAY_LEN(smem_sgemm_bms), .min = 128, .max = 256 },                              \
    { .name = "bn", .unit = "elements", .help = "columns of C per block (128, or 256 with bm = 128)",       \
      .defaults = smem_sgemm_bns, .n_defaults = SMEM_ARRAY_LEN(smem_sgemm_bns), .min = 128, .max = 256 },  \
    { .name = "bk", .unit = "elements", .help = "depth of a slab of A and B (8, 16, 32 or 64)",             \
      .defaults = smem_sgemm_bks, .n_defaults = SMEM_ARRAY_LEN(smem_sgemm_bks), .min = 8, .max = 64 },      \
    { .name = "stages", .unit = "slabs", .help = "slabs in flight in shared memory (2 to 8)",                \
      .defaults = smem_sgemm_stages, .n_defaults = SMEM_ARRAY_LEN(smem_sgemm_stages),                      \
      .quick = smem_sgemm_stages_quick, .n_quick = SMEM_ARRAY_LEN(smem_sgemm_stages_quick), .min = 2,       \
      .max = SMEM_SGEMM_MAX_STAGES },                                                                      \
    { .name = "a_width_bytes", .unit = "bytes", .help = "bytes of an A row a thread reads per shared load "   \
      "(8: a float2, two k; 16: a float4, four k)", .defaults = smem_sgemm_a_widths,                        \
      .n_defaults = SMEM_ARRAY_LEN(smem_sgemm_a_widths), .min = 8, .max = 16, .defaults_only = true,   \
      .before = (const int64_t[]){ 8 } }

/* The plan of a point for a copy (enum smem_sgemm_copy): SMEM_ESKIP with the reason for a tile shape,
 * depth or A width that is not built, an n the tile does not divide, or shared memory over dev's
 * opt-in. */
int smem_sgemm_plan(const struct smem_point *pt, int copy, const struct smem_device *dev, struct smem_plan *p,
                    char *why, size_t why_len);

#if SMEM_HAVE_CUDA
const void *smem_sgemm_kernel(const struct smem_case *c);
/* The operands (smem_gemm_setup) and, for TMA, the two tensor maps. */
int smem_sgemm_setup(struct smem_case *c);
int smem_sgemm_run(struct smem_case *c);
#endif

#define SMEM_SGEMM_COMMON                                                                                  \
    .axes = smem_sgemm_axes, .n_axes = SMEM_ARRAY_LEN(smem_sgemm_axes), .sweeps = { "tile" },              \
    .variation = SMEM_VARIATION_MEASURED(1.5, 1.5, 0.0), .predictable = true, .kernel_file = "sgemm",                      \
    .metrics = smem_gemm_metrics, .baseline = &smem_vs_cublas, .best_family = "sgemm",                     \
    .best_metric = "gflops", .best_axis = "n",                                                             \
    SMEM_SGEMM_GPU_OPS

#if SMEM_HAVE_CUDA
#define SMEM_SGEMM_GPU_OPS                                                                                 \
    .kernel = smem_sgemm_kernel, .setup = smem_sgemm_setup, .launch = smem_sgemm_run,                      \
    .verify = smem_gemm_verify, SMEM_GEMM_STATE,
#else
#define SMEM_SGEMM_GPU_OPS
#endif

#endif
