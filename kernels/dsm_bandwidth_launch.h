/* dsm_bandwidth.cu: distributed-shared-memory load throughput. Every block fills its buffer (block
 * rank r from in + r * SMEM_DSM_BW_WORDS), then its threads make SMEM_DSM_BW_UNROLL loads of 4, 8
 * or 16 bytes per iteration, by pattern:
 *   SMEM_DSM_LOCAL, SMEM_DSM_SELF: the own buffer (ld.shared, or through the cluster window);
 *   SMEM_DSM_REMOTE: the buffer of rank + 1 (a ring: every SM reads and serves at once);
 *   SMEM_DSM_BW_ONEWAY: even ranks read rank + 1, odd ranks only serve (one direction per pair);
 *   SMEM_DSM_BW_FANIN: rank 0 alone reads, load u from rank 1 + u % (size - 1);
 *   SMEM_DSM_BW_CHAIN: the ring as one dependent chain per thread, each load's address the first
 *   word of the previous load (the published anchor's method: one load in flight per thread).
 * Independent loads are at smem_dsm_bw_offset; every thread sums all the words it loaded. */
#ifndef SMEM_KERNEL_DSM_BANDWIDTH_H
#define SMEM_KERNEL_DSM_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "dsm.h"
#include "portable.h"

#define SMEM_DSM_BW_BLOCK 1024
#define SMEM_DSM_BW_WORDS 8192      /* 32 KiB read per block */
#define SMEM_DSM_BW_UNROLL 8
#define SMEM_DSM_MAX_CLUSTER 16     /* in holds this many buffers */
#define SMEM_DSM_BW_OFFSET_MASK 0xffffffu  /* a chain word: the next offset below, the rank above */

/* the load patterns beyond the three paths of dsm.h */
enum smem_dsm_bw_pattern {
    SMEM_DSM_BW_ONEWAY = 3,
    SMEM_DSM_BW_FANIN = 4,
    SMEM_DSM_BW_CHAIN = 5,
};

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offset in the buffer of thread t's load u: lane-contiguous, so conflict-free. */
static inline SMEM_HOST_DEVICE uint32_t smem_dsm_bw_offset(uint32_t t, uint32_t u, uint32_t width)
{
    return (t * width + u * SMEM_DSM_BW_BLOCK * width) % (SMEM_DSM_BW_WORDS * 4);
}

/* The chain: a thread starts at t * width and steps by a block's width of bytes, so a warp's lanes
 * stay contiguous (conflict-free) at every step; the first word of each element holds the byte
 * offset of the next. */
static inline SMEM_HOST_DEVICE uint32_t smem_dsm_bw_next(uint32_t offset, uint32_t width)
{
    return (offset + SMEM_DSM_BW_BLOCK * width) % (SMEM_DSM_BW_WORDS * 4);
}

/* The rank whose buffer load u of a block of rank `rank` reads, or -1 where that block loads
 * nothing (the serving side of one-way and fan-in). */
static inline SMEM_HOST_DEVICE int smem_dsm_bw_target(int pattern, uint32_t rank, uint32_t size, uint32_t u)
{
    switch (pattern) {
    case SMEM_DSM_LOCAL:
    case SMEM_DSM_SELF:
        return (int)rank;
    case SMEM_DSM_BW_ONEWAY:
        return rank & 1 ? -1 : (int)((rank + 1) % size);
    case SMEM_DSM_BW_FANIN:
        return rank ? -1 : (int)(1 + u % (size - 1));
    default:    /* SMEM_DSM_REMOTE, SMEM_DSM_BW_CHAIN */
        return (int)((rank + 1) % size);
    }
}

const void *smem_dsm_bandwidth_fn(int width, int pattern);

/* out[block * SMEM_DSM_BW_BLOCK + t]: thread t's sum of what it loaded; rec[2 * block]: the SM it
 * ran on, rec[2 * block + 1]: its cycles between its cluster's first and last barrier. */
int smem_dsm_bandwidth_launch(int width, int pattern, unsigned grid, unsigned cluster, size_t dyn_bytes,
                              const uint32_t *in, uint32_t *out, uint32_t *rec, int iters,
                              struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
