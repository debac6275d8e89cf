/* The cluster family, shared by dsm_latency, dsm_bandwidth, dsm_atomics, cluster_sync and
 * cluster_occupancy: the cluster-size and path axes, the plan checks every cluster point makes, and
 * the host logic of the cluster residency probe. */
#ifndef SMEM_BENCH_CLUSTER_FAMILY_H
#define SMEM_BENCH_CLUSTER_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "cluster_occupancy_launch.h"
#include "dsm.h"

#define SMEM_CLUSTER_MAX 16     /* the largest cluster Hopper allows, with the non-portable opt-in */

extern const int64_t smem_cluster_sizes[5];
extern const int64_t smem_cluster_quick_sizes[2];
extern const int64_t smem_dsm_paths[3];

#define SMEM_CLUSTER_SIZE_AXIS                                                                             \
    { .name = "cluster_size", .unit = "blocks", .help = "blocks per thread block cluster (above 8: non-portable)", \
      .defaults = smem_cluster_sizes, .n_defaults = 5, .quick = smem_cluster_quick_sizes, .n_quick = 2,     \
      .min = 1, .max = SMEM_CLUSTER_MAX }

#define SMEM_DSM_PATH_AXIS                                                                                 \
    { .name = "path", .unit = "enum",                                                                      \
      .help = "0: ld.shared on the own block; 1: the own block through the cluster window (mapa to its own " \
              "rank); 2: another block of the cluster, on another SM",                                     \
      .defaults = smem_dsm_paths, .n_defaults = 3, .min = 0, .max = 2, .defaults_only = true }

/* The plan every cluster point shares: a real GPU (the occupancy calculator has no clusters; the
 * descriptors' min_cc keeps older devices out), clusters of `size` blocks of `block` threads, one
 * block per SM. SMEM_ESKIP with the reason on a model. */
int smem_cluster_plan(int64_t size, unsigned block, const struct smem_device *dev, struct smem_plan *p, char *why,
                      size_t len);

/* SMEM_ESKIP for path 2 at cluster size 1, which has no other block. */
int smem_dsm_path_plan(int64_t path, int64_t size, char *why, size_t len);

/* Checks the probe's records of n blocks launched in clusters of `cluster` (block b: cluster
 * b / cluster, rank b % cluster; every block of a cluster running at one time) and counts the most
 * clusters that were resident at once: a cluster is resident from its last block's start to its
 * first block's end. SMEM_EVERIFY with the reason when a record is wrong. With timed false (--check,
 * under a sanitizer that may run a cluster's blocks one after another) only the records' identities
 * are checked and *resident is 0. */
int smem_cluster_resident(const struct smem_cluster_record *rec, size_t n, unsigned cluster, bool timed, int *resident,
                          char *why, size_t len);

/* Clusters to launch so that more than fit are certain: every SM full by its own limits (blocks,
 * threads, shared memory, the calculator's upper bound) plus two clusters that must wait. */
unsigned smem_cluster_probe_clusters(const struct smem_device *dev, unsigned cluster, unsigned block, size_t smem);

#endif
