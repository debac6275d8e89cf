/* What the benchmarks share: the copy baseline, the full-SM block, and the headers of the carveout
 * axis, the pointer chase, the host thread pool and the GPU inputs. */
#ifndef SMEM_BENCH_COMMON_H
#define SMEM_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "carveout_axis.h"
#include "chase.h"
#include "gpu_inputs.h"
#include "parallel_for.h"
#include "smem.h"

/* A memory-bound benchmark's GB/s as a percentage of a device-to-device copy of the same size
 * (bench/copy.c): pct_of_copy. */
extern const struct smem_baseline smem_vs_copy;

/* Threads per block that fill every thread slot of an SM of dev with as few blocks as possible:
 * max_threads_per_sm / k for the smallest k whose block is at most max_block threads and whose k
 * blocks of smem_per_block bytes (plus the reservation) fit the per-SM maximum. 1024 on the H200
 * (two blocks), 768 on 1536-thread SMs (two), 1024 on Turing (one); max_block where nothing fits. */
unsigned smem_full_sm_block(const struct smem_device *dev, size_t smem_per_block, unsigned max_block);

#endif
