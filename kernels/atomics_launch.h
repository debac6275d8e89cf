/* atomics.cu: every thread adds 1 to shared-memory counters, a group of `lanes` lanes of each warp to
 * the same counter (1: 32 counters per warp request, 32: one), by red.shared (no value returned) or
 * atom.shared (the old value returned); then each block copies its counters out. */
#ifndef SMEM_KERNELS_ATOMICS_H
#define SMEM_KERNELS_ATOMICS_H

#include <stdint.h>

#include "clock_launch.h"

#define SMEM_ATOMICS_BLOCK 1024      /* the largest block; the plan picks what fills an SM */
#define SMEM_ATOMICS_COUNTERS 1024   /* 4 KiB of counters per block */
#define SMEM_ATOMICS_UNROLL 8

#ifdef __cplusplus
extern "C" {
#endif

enum smem_atomics_op {
    SMEM_ATOMICS_RED = 0,    /* red.shared.add.u32: fire and forget */
    SMEM_ATOMICS_ATOM = 1,   /* atom.shared.add.u32: the lane waits for the old value */
};

/* The __global__ function of op, for attribute and occupancy calls. */
const void *smem_atomics_fn(int op);

/* Lane l of warp w adds 1, iters times, to counter (32 (w + u) + l / lanes) mod SMEM_ATOMICS_COUNTERS for
 * each of the SMEM_ATOMICS_UNROLL updates u; out[block * SMEM_ATOMICS_COUNTERS + i] is block's counter i. */
int smem_atomics_launch(int op, unsigned grid, unsigned block, int lanes, int iters, uint32_t *out,
                        struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
