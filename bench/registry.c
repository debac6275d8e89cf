/* The registry: one line per benchmark, alphabetized. Built a second time with
 * SMEM_TEST_BENCHES for the test-only binary, which adds a benchmark that faults on purpose. */
#include "bench.h"

extern const struct smem_bench smem_bandwidth_bench;
extern const struct smem_bench smem_bank_bench;
extern const struct smem_bench smem_cluster_occupancy_bench;
extern const struct smem_bench smem_cluster_sync_bench;
extern const struct smem_bench smem_copy_bench;
extern const struct smem_bench smem_cublas_bench;
extern const struct smem_bench smem_dsm_atomics_bench;
extern const struct smem_bench smem_dsm_bandwidth_bench;
extern const struct smem_bench smem_dsm_latency_bench;
extern const struct smem_bench smem_dynamic_bench;
extern const struct smem_bench smem_footprint_bench;
extern const struct smem_bench smem_gather_bench;
extern const struct smem_bench smem_global_read_bench;
extern const struct smem_bench smem_latency_bench;
extern const struct smem_bench smem_matmul_bench;
extern const struct smem_bench smem_matmul_rb_bench;
extern const struct smem_bench smem_reduction_bench;
extern const struct smem_bench smem_staging_bench;
extern const struct smem_bench smem_static_bench;
extern const struct smem_bench smem_transpose_bench;
extern const struct smem_bench smem_transpose_naive_bench;
extern const struct smem_bench smem_uninit_bench;
#ifdef SMEM_TEST_BENCHES
extern const struct smem_bench smem_fault_bench;
#endif

const struct smem_bench *const smem_benches[] = {
    &smem_bandwidth_bench,
    &smem_bank_bench,
    &smem_cluster_occupancy_bench,
    &smem_cluster_sync_bench,
    &smem_copy_bench,
    &smem_cublas_bench,
    &smem_dsm_atomics_bench,
    &smem_dsm_bandwidth_bench,
    &smem_dsm_latency_bench,
    &smem_dynamic_bench,
    &smem_footprint_bench,
    &smem_gather_bench,
    &smem_global_read_bench,
    &smem_latency_bench,
    &smem_matmul_bench,
    &smem_matmul_rb_bench,
    &smem_reduction_bench,
    &smem_staging_bench,
    &smem_static_bench,
    &smem_transpose_bench,
    &smem_transpose_naive_bench,
    &smem_uninit_bench,
#ifdef SMEM_TEST_BENCHES
    &smem_fault_bench,
#endif
};
const size_t smem_n_benches = sizeof(smem_benches) / sizeof(smem_benches[0]);
