/* The load family (kernels/load.cu), shared by the bandwidth and bank benchmarks: one kernel, the
 * bank model, the plan, the host reference and the GPU operations. A case's access is its
 * width_bytes axis and its stride_elems axis (1 where the benchmark has none: conflict-free). */
#ifndef SMEM_BENCH_LOAD_FAMILY_H
#define SMEM_BENCH_LOAD_FAMILY_H

#include <stdint.h>

#include "bench.h"
#include "common.h"
#include "load_launch.h"

/* Shared memory moves 32 banks x 4 bytes per clock per SM. */
#define SMEM_BYTES_PER_CLK_SM 128.0

/* Wavefronts (shared-memory passes) one warp request takes when lane l reads the width-byte element
 * l * stride: the most distinct 4-byte words that fall in one bank, and never fewer than the
 * request's bytes over 128. */
int smem_bank_wavefronts(int width_bytes, int stride);

/* Wavefronts of one warp instruction whose n lanes each access width_bytes (4, 8, 16) at byte
 * addrs[lane]: in phases of 128 / width_bytes lanes (128 bytes), each phase taking as many passes as
 * the most distinct 4-byte words any bank holds among its lanes' bytes (a word read twice is one:
 * broadcast). A 4-byte request is one phase of 32 lanes; a conflict-free 8- or 16-byte one takes 2 or 4. */
int smem_bank_request_wavefronts(const uint32_t *addrs, int n, int width_bytes);

/* The same for 16-byte accesses, in phases of 8 lanes. ldmatrix and stmatrix are such instructions:
 * each 8x8 matrix is one phase of the eight 16-byte rows whose addresses lanes 8m..8m+7 supply, so an
 * .x4 takes at least 4. */
int smem_bank_phase_wavefronts(const uint32_t *addrs, int n);

/* The plan of a load-family point on dev: blocks that fill every thread slot of an SM
 * (smem_full_sm_block), plan.work is target_cycles of shared-memory time per SM. */
int smem_load_plan(const struct smem_point *pt, const struct smem_device *dev, double target_cycles,
                   struct smem_plan *p, char *why, size_t why_len);

/* Loop iterations of a shared-memory load loop: plan.work (target cycles per SM) over what one
 * iteration takes with the case's resolved grid resident, each warp making unroll requests of
 * passes wavefronts. At least 8. */
int64_t smem_shared_iterations(const struct smem_case *c, int passes, int unroll);

/* The load family's iterations: its bank model's passes, SMEM_LOAD_UNROLL requests an iteration. */
int64_t smem_load_iterations(const struct smem_case *c);

/* Bytes a launch requests from shared memory, and bytes/clock/SM for a timing. */
double smem_load_bytes(const struct smem_case *c);
double smem_load_bytes_per_clk_sm(const struct smem_case *c, const struct smem_timing *t);

#if SMEM_HAVE_CUDA
/* The family's GPU operations, as the bench contract names them: the kernel of the case's width,
 * random words in and poisoned sums out, one launch, and the check against the host's sums. */
const void *smem_load_kernel(const struct smem_case *c);
int smem_load_setup(struct smem_case *c);
int smem_load_run(struct smem_case *c);
int smem_load_verify(struct smem_case *c);
#endif

#endif
