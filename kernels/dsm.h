/* The three ways the distributed-shared-memory kernels reach the shared memory they read, shared by
 * dsm_latency, dsm_bandwidth and dsm_atomics (kernel and descriptor alike). */
#ifndef SMEM_DSM_H
#define SMEM_DSM_H

enum smem_dsm_path {
    SMEM_DSM_LOCAL = 0,     /* ld.shared on the block's own memory: the classic path */
    SMEM_DSM_SELF = 1,      /* the block's own memory through the cluster window (mapa to its own rank) */
    SMEM_DSM_REMOTE = 2,    /* another block's memory, on another SM, through the cluster window */
};

#endif
