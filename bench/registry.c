/* The registry: one line per benchmark, alphabetized; a benchmark's descriptor is
 * smem_<name>_bench in bench/<name>.c. Built a second time with SMEM_TEST_BENCHES for the
 * test-only binary, which adds a benchmark that faults on purpose. */
#include "bench.h"

#define SMEM_BENCHES(X) \
    X(atomics)          \
    X(bandwidth)        \
    X(bank)             \
    X(broadcast)        \
    X(cluster_occupancy) \
    X(cluster_sync)     \
    X(copy)             \
    X(cublas)           \
    X(dsm_atomics)      \
    X(dsm_bandwidth)    \
    X(dsm_latency)      \
    X(dynamic)          \
    X(footprint)        \
    X(gather)           \
    X(global_read)      \
    X(latency)          \
    X(matmul)           \
    X(matmul_rb)        \
    X(reduction)        \
    X(sgemm_cp_async)   \
    X(sgemm_tma)        \
    X(staging_bulk)     \
    X(staging_cp_async) \
    X(staging_plain)    \
    X(static)           \
    X(swizzle_ldmatrix) \
    X(swizzle_stmatrix) \
    X(swizzle_tma)      \
    X(swizzle_wgmma)    \
    X(tile_copy)        \
    X(transpose)        \
    X(transpose_naive)  \
    X(uninit)

#ifdef SMEM_TEST_BENCHES
#define SMEM_TEST_ONLY_BENCHES(X) X(fault)
#else
#define SMEM_TEST_ONLY_BENCHES(X)
#endif

#define DECLARE(name) extern const struct smem_bench smem_##name##_bench;
SMEM_BENCHES(DECLARE)
SMEM_TEST_ONLY_BENCHES(DECLARE)

#define ENTRY(name) &smem_##name##_bench,
const struct smem_bench *const smem_benches[] = { SMEM_BENCHES(ENTRY) SMEM_TEST_ONLY_BENCHES(ENTRY) };
const size_t smem_n_benches = sizeof(smem_benches) / sizeof(smem_benches[0]);
