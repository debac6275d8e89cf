/* cluster_occupancy.cu: a residency probe launched in clusters. Each block spins for spin_ns of
 * %globaltimer and its thread 0 records where and when it ran; the host counts the clusters that
 * were resident at once. */
#ifndef SMEM_KERNEL_CLUSTER_OCCUPANCY_H
#define SMEM_KERNEL_CLUSTER_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#define SMEM_CLUSTER_OCC_BLOCK 128

/* One block's record. */
struct smem_cluster_record {
    uint32_t smid;                  /* %smid */
    uint32_t cluster;               /* %clusterid.x */
    uint32_t rank;                  /* %cluster_ctarank */
    uint32_t nranks;                /* %cluster_nctarank */
    unsigned long long start, end;  /* %globaltimer when it started and stopped spinning, ns */
};

#ifdef __cplusplus
extern "C" {
#endif

const void *smem_cluster_occupancy_fn(void);
int smem_cluster_occupancy_launch(unsigned grid, unsigned cluster, size_t dyn_bytes, unsigned long long spin_ns,
                                  struct smem_cluster_record *rec, void *stream);

#ifdef __cplusplus
}
#endif

#endif
