/* Occupancy three ways: the runtime API on the real function (api), NVIDIA's header-only
 * calculator cuda_occupancy.h on the device's or a model's properties (predicted), and a
 * residency probe whose blocks record %smid and %globaltimer (measured). */
#ifndef SMEM_OCCUPANCY_H
#define SMEM_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

/* What the calculator needs to know of a kernel. */
struct smem_func {
    int regs;                   /* registers per thread */
    size_t static_smem;         /* static shared memory per block */
    size_t max_dyn_smem;        /* the function's dynamic limit (48 KiB unless opted in) */
    int max_threads_per_block;
    int ptx_version;            /* compute capability x 10 of the PTX the device code came from; 0 unknown */
};

struct smem_prediction {
    int blocks_per_sm;          /* 0: the configuration cannot run */
    int warps_per_sm;
    double occupancy_pct;       /* resident warps over the SM's maximum */
    char limiter[64];           /* warps, registers, shared_memory, blocks, barriers; comma-joined on ties */
    int64_t smem_config_bytes;  /* the configuration cuda_occupancy.h assumes (the hint's step, the
                                 * maximum without one): not what the driver picks, never reported */
    int64_t smem_per_block_bytes; /* allocated per block, reservation and granularity included */
    int blocks_without_smem;    /* blocks per SM if shared memory were no limit (warps, blocks,
                                 * registers, barriers) */
};

/* Predicted occupancy of f launched with block threads and dyn bytes of dynamic shared memory
 * under a preferred carveout (-1: default). SMEM_EINVAL when the calculator rejects the input. */
int smem_occupancy_predict(const struct smem_device *d, const struct smem_func *f, int block,
                           size_t dyn, int carveout_pct, struct smem_prediction *out);

struct smem_plan;

/* The function of plan p as the calculator sees it where no GPU can be asked: the plan's registers,
 * static shared memory and block, its dynamic limit raised to its size where it opts in. */
void smem_occupancy_plan_func(const struct smem_device *d, const struct smem_plan *p, struct smem_func *f);

/* Blocks of plan p resident per SM of d by the calculator (what a benchmark's device_defaults ask),
 * or a negative code when the calculator rejects it. */
int smem_occupancy_blocks_per_sm(const struct smem_device *d, const struct smem_plan *p);

/* Shared-memory configurations (KiB per SM) that compute capability cc offers, ascending; the count. */
int smem_occupancy_smem_configs(int cc_major, int cc_minor, int *kib, int max);

/* The smallest configuration of d holding need bytes, in bytes; -1 when none does (or d has no steps). */
int64_t smem_occupancy_config_holding(const struct smem_device *d, double need);

/* The configuration a carveout hint asks for: the step holding carveout_pct % of the SM's shared
 * memory; -1 without a hint. */
int64_t smem_occupancy_config_requested(const struct smem_device *d, int carveout_pct);

/* What the driver's choice of configuration depends on, for one launch. */
struct smem_config_query {
    int block;                  /* threads per block */
    int64_t smem_bytes;         /* static + dynamic shared memory per block, without the reservation */
    int carveout_pct;           /* the preferred carveout, -1: none */
    int blocks_per_sm;          /* resident blocks (the occupancy API's, or the calculator's) */
    int blocks_without_smem;    /* blocks per SM if shared memory were no limit */
};

/* The per-SM shared-memory configuration the driver picks for q on d, in bytes, from the rule fitted
 * to Nsight Compute's launch__shared_mem_config_size (tests/ncu/README.md); -1 where the rule was
 * not measured (another compute capability than 9.0, or, without a hint, a block whose residency
 * without shared memory the probe did not cover) and where no block can be resident. */
int64_t smem_occupancy_config_driver(const struct smem_device *d, const struct smem_config_query *q);

/* Largest overlap of [start, end) intervals on any one SM: the achieved residency in blocks.
 * smid[i], start[i], end[i] describe block i; n blocks; sm_count SMs. Also the SMs that saw any block. */
int smem_occupancy_max_overlap(const uint32_t *smid, const unsigned long long *start, const unsigned long long *end,
                               size_t n, int sm_count, int *sms_used);

#if SMEM_HAVE_CUDA
/* Blocks per SM from cudaOccupancyMaxActiveBlocksPerMultiprocessor on fn (attributes already set). */
int smem_occupancy_api(const void *fn, int block, size_t dyn, int *blocks_per_sm);

/* Clusters of `cluster` blocks (block threads, dyn bytes of dynamic shared memory each) that can be
 * resident at once, from cudaOccupancyMaxActiveClusters on fn (attributes already set; sizes above 8
 * are allowed first with cudaFuncAttributeNonPortableClusterSizeAllowed). SMEM_ESKIP with the reason
 * when the device refuses the size or no such cluster fits. */
int smem_occupancy_clusters(const void *fn, unsigned cluster, unsigned block, size_t dyn, int *clusters, char *why,
                            size_t why_len);

/* Reads fn's attributes into f. */
int smem_occupancy_func(const void *fn, struct smem_func *f);

/* What the residency probe saw. */
struct smem_residency {
    int blocks_per_sm;          /* largest overlap on any SM */
    int sms_used;               /* SMs that ran a probe block */
    int probe_regs;             /* registers per thread of the probe variant used */
};

/* Runs the residency probe with the footprint of the benchmark kernel: block threads, static +
 * dyn shared memory, carveout, and at least regs registers per thread. */
int smem_occupancy_measure(const struct smem_device *d, int block, size_t smem_bytes, int carveout_pct,
                           int regs, struct smem_residency *out, char *why, size_t why_len);
#endif

#endif
