/* Shared by the bandwidth and bank benchmarks: one kernel family (kernels/load.cu), one model. */
#ifndef SMEM_BENCH_LOAD_H
#define SMEM_BENCH_LOAD_H

#include "bench.h"
#include "load.h"

#if SMEM_HAVE_CUDA
#include "common.h"   /* smem_io_teardown */
#endif

/* Shared memory moves 32 banks x 4 bytes per clock per SM. */
#define SMEM_BYTES_PER_CLK_SM 128.0

/* Wavefronts (shared-memory passes) one warp request takes when lane l reads the width-byte element
 * l * stride: the most distinct 4-byte words that fall in one bank, and never fewer than the
 * request's bytes over 128. */
int smem_bank_wavefronts(int width_bytes, int stride);

/* The plan both benchmarks use; iterations sized for target_cycles of shared-memory time. */
int smem_load_plan(int width, int stride, double target_cycles, const struct smem_device *dev,
                   struct smem_plan *p, char *why, size_t why_len);

#if SMEM_HAVE_CUDA
const void *smem_load_kernel(const struct smem_plan *p);
int smem_load_setup(struct smem_case *c);
int smem_load_run(struct smem_case *c);
int smem_load_verify(struct smem_case *c);
#endif

/* Bytes the last plan's launch requests from shared memory, and bytes/clock/SM for a timing. */
double smem_load_bytes(const struct smem_case *c);
double smem_load_bytes_per_clk_sm(const struct smem_case *c, const struct smem_timing *t);

#endif
