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
#define SMEM_ARCH_MAX_PUBLISHED 10

/* The limits of each compute capability, for compile-time use (the table in core/arch.c and the
 * built-in models of src/gpus.c are both built from these): unified L1 + shared memory per SM
 * (KiB), shared memory per SM (KiB), per block with the opt-in (KiB), reserved per block (bytes),
 * resident blocks per SM, resident threads per SM. Sources (core/arch.c has the full citations):
 * T27 = CUDA C++ Programming Guide 13.0 Table 27; 20.x.3 = that guide's Shared Memory section of
 * the architecture (the capacities, the unified size, "the 1 KB ... reserved for system use");
 * PG13 = the CUDA 13 Programming Guide's Tables 30-32 (columns 10.x, 11.0, 12.x). */
#define SMEM_ARCH_LIMITS_75 96, 64, 64, 0, 16, 1024          /* 20.6.4 (96 KB; a block may use all 64); T27 */
#define SMEM_ARCH_LIMITS_80 192, 164, 163, 1024, 32, 2048    /* 20.7.3; T27 */
#define SMEM_ARCH_LIMITS_86 128, 100, 99, 1024, 16, 1536     /* 20.7.3; T27 */
#define SMEM_ARCH_LIMITS_87 192, 164, 163, 1024, 16, 1536    /* 20.7.3 (as 8.0); T27 */
#define SMEM_ARCH_LIMITS_89 128, 100, 99, 1024, 24, 1536     /* 20.7.3 (as 8.6); T27 */
#define SMEM_ARCH_LIMITS_90 256, 228, 227, 1024, 32, 2048    /* 20.8.3; T27 */
#define SMEM_ARCH_LIMITS_100 256, 228, 227, 1024, 32, 2048   /* 20.9.3; T27 */
#define SMEM_ARCH_LIMITS_103 256, 228, 227, 1024, 32, 2048   /* PG13 column 10.x */
#define SMEM_ARCH_LIMITS_110 256, 228, 227, 1024, 24, 1536   /* T27 column 11.0; PG13 Table 32 (256 KB) */
#define SMEM_ARCH_LIMITS_120 128, 100, 99, 1024, 24, 1536    /* 20.10.3; T27 (L1 working set 28 ~ 128 KB) */
#define SMEM_ARCH_LIMITS_121 128, 100, 99, 1024, 24, 1536    /* PG13 column 12.x */

/* Designated initializers of struct smem_device (core/device.h) for compute capability major.minor,
 * written as digits: SMEM_ARCH_DEVICE_INIT(9, 0). */
#define SMEM_ARCH_DEVICE_INIT(major, minor) \
    .cc_major = major, .cc_minor = minor, SMEM_ARCH_APPLY_(SMEM_ARCH_DEVICE_FIELDS_, SMEM_ARCH_LIMITS_##major##minor)
#define SMEM_ARCH_APPLY_(m, ...) m(__VA_ARGS__)
#define SMEM_ARCH_DEVICE_FIELDS_(unified, per_sm, per_block, reserved, blocks, threads)                  \
    .smem_per_sm = (per_sm) * 1024LL, .smem_per_block_optin = (per_block) * 1024LL,                    \
    .reserved_smem_per_block = (reserved), .max_blocks_per_sm = (blocks), .max_threads_per_sm = (threads)

struct smem_arch {
    int cc_major, cc_minor;
    const char *generation;             /* Turing, Ampere, Ada, Hopper, Blackwell */
    int unified_kib;                    /* L1 + shared memory per SM */
    int smem_per_sm_kib;                /* the largest carveout */
    int smem_per_block_optin_kib;       /* per block, after cudaFuncAttributeMaxDynamicSharedMemorySize */
    int reserved_per_block_bytes;       /* taken by the system from every resident block */
    int max_blocks_per_sm, max_threads_per_sm;
    int carveout_kib[SMEM_ARCH_MAX_CARVEOUTS];  /* shared-memory capacities an SM can be set to, ascending */
    int n_carveouts;
    const char *src_limits;             /* where smem/SM, smem/block, reserved, blocks and threads come from */
    const char *src_carveouts;          /* where the carveout steps and the unified capacity come from */
    int max_warps_per_sm;               /* resident warps per SM (max_threads_per_sm / 32) */
    int smem_per_block_default_kib;     /* per block without the opt-in */
    int cluster_portable;               /* blocks per thread block cluster any launch may ask for; 0: no clusters */
    int cluster_max;                    /* with cudaFuncAttributeNonPortableClusterSizeAllowed; 0: none or unpublished */
    const char *src_clusters;           /* where the warps, the default per block and the cluster sizes come from */
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

/* The shared-memory configuration (bytes) the driver picks under a carveout hint of pct % for blocks of
 * u > 0 bytes each (with reserved bytes more taken from each), on an SM of smem_per_sm bytes with a's
 * steps, by the rule fitted to ncu on the H200 (cc 9.0; tests/ncu/README.md): h = pct % of
 * smem_per_sm, b = floor(h / u) blocks, the step holding max(b f, f, h) with f = u + reserved, the
 * largest step where none does. -1 without steps, for u <= 0, or where f is over the largest step.
 * src/occupancy.c applies it where it was measured; the transpose's plan solves it for a residency. */
long long smem_arch_config_hinted(const struct smem_arch *a, long long smem_per_sm, long long u, long long reserved,
                                  int pct);

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
 * smem_per_sm_bytes, smem_per_block_optin_bytes, unified_l1_smem_bytes, carveout_steps_kib,
 * bf16_dense_flop_per_clk_sm), leaving out what is not
 * published; the count. */
size_t smem_arch_published(int cc_major, int cc_minor, struct smem_published *out, size_t max);

/* How a device of compute capability major.minor runs a binary whose device code is gpu_code (its
 * -Dgpu_arch targets, comma-separated: sm_90, sm_90a, compute_80, native), by the CUDA compatibility
 * rules (CUDA C++ Programming Guide 13.0, 1.3.4 "Binary Compatibility" and 1.3.5 "PTX
 * Compatibility"): "sass" where a cubin of its major and a minor at most its own exists (an
 * architecture-specific sm_XYa only on XY itself), else "ptx_jit" where PTX of a compute capability
 * at most its own does (the driver compiles it at load time); "ptx_jit" too under
 * CUDA_FORCE_PTX_JIT=1 (force_jit) when there is PTX; "none" when nothing of the binary runs there;
 * "unknown" for a build for the GPUs of its machine that did not say which (native). */
const char *smem_arch_code_path(int cc_major, int cc_minor, const char *gpu_code, int force_jit);

#endif
