/* What NVIDIA publishes per compute capability about shared memory: the limits that shape every
 * plan (carveout steps, unified L1/shared capacity, per-SM and per-block ceilings, resident blocks
 * and threads) and the reference values a measured file is compared with (load latency, bytes per
 * clock, banks), each with its source. Plain data and lookups: no CUDA, depends on nothing. A real
 * device's own properties always win; the table fills in what the runtime cannot say (the carveout
 * steps, the L1 size) and what predict mode and the kernels' launch bounds need without a GPU. */
#ifndef SMEM_ARCH_H
#define SMEM_ARCH_H

#include <stddef.h>

#define SMEM_ARCH_MAX_CARVEOUTS 12
#define SMEM_ARCH_MAX_PUBLISHED 8

struct smem_arch {
    int cc_major, cc_minor;
    const char *generation;             /* Turing, Ampere, Ada, Hopper, Blackwell */
    int unified_kib;                    /* L1 + shared memory per SM */
    int carveout_kib[SMEM_ARCH_MAX_CARVEOUTS];  /* shared-memory capacities an SM can be set to, ascending */
    int n_carveouts;
    int smem_per_sm_kib;                /* the largest carveout */
    int smem_per_block_optin_kib;       /* per block, after cudaFuncAttributeMaxDynamicSharedMemorySize */
    int reserved_per_block_bytes;       /* taken by the system from every resident block */
    int max_blocks_per_sm, max_threads_per_sm;
    const char *src_limits;             /* where smem/SM, smem/block, reserved, blocks and threads come from */
    const char *src_carveouts;          /* where the carveout steps and the unified capacity come from */
};

/* The table, ordered by compute capability. */
extern const struct smem_arch smem_archs[];
extern const size_t smem_n_archs;

/* The entry of compute capability major.minor, or NULL where nothing is published for it. */
const struct smem_arch *smem_arch_find(int cc_major, int cc_minor);

/* L1 + shared memory per SM in KiB: the table's, else smem_per_sm_kib + 28 (every published cc
 * since 8.0 keeps 28 KiB of L1 at the largest carveout: Programming Guide Table 27, "cache working
 * set per SM for texture memory", 28 KB ~ the unified size). */
int smem_arch_unified_kib(int cc_major, int cc_minor, long long smem_per_sm_bytes);

/* One published reference value of a generation: a number, or a list (list != NULL). */
struct smem_published {
    const char *name;                   /* smem_load_latency_cycles, banks, ... (snake_case, with its unit) */
    const char *unit;
    double value;
    const int *list;
    size_t n_list;
    const char *source;
};

/* Fills out with what is published for compute capability major.minor, in a fixed order
 * (smem_load_latency_cycles, smem_bytes_per_clock_per_sm, banks, bank_width_bytes,
 * smem_per_sm_bytes, smem_per_block_optin_bytes, carveout_steps_kib), leaving out what is not
 * published; the count. */
size_t smem_arch_published(int cc_major, int cc_minor, struct smem_published *out, size_t max);

#endif
