/* gather.cu: random reads from a table through L1, the carveout's L1 side, and the index hash, one
 * definition for the kernel and its host reference: lowbias32 (C. Wellons), cheap and well mixed,
 * so the gather has no pattern a cache could exploit. The launcher returns a cudaError_t as int. */
#ifndef SMEM_KERNELS_GATHER_H
#define SMEM_KERNELS_GATHER_H

#include <stdint.h>

#include "clock_launch.h"

#define SMEM_GATHER_BLOCK 256
#define SMEM_GATHER_UNROLL 8

#ifdef __CUDACC__
#define SMEM_HOST_DEVICE __host__ __device__
#else
#define SMEM_HOST_DEVICE
#endif

static inline SMEM_HOST_DEVICE uint32_t smem_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* The table slot of gather g of thread tid: the hash scaled to table_len without a division. */
static inline SMEM_HOST_DEVICE uint32_t smem_gather_index(uint32_t tid, uint32_t g, uint32_t gathers,
                                                          uint32_t table_len)
{
    return (uint32_t)(((uint64_t)smem_hash32(tid * gathers + g) * table_len) >> 32);
}

#ifdef __cplusplus
extern "C" {
#endif

/* The __global__ function, for attribute and occupancy calls. */
const void *smem_gather_fn(void);

/* Thread t sums table[smem_gather_index(t, g, ...)] over g < gathers into out[t]. */
int smem_gather_launch(unsigned grid, const float *table, uint32_t table_len, uint32_t gathers,
                       float *out, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
