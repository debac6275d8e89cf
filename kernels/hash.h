/* The gather's index hash, one definition for the kernel and its host reference: lowbias32
 * (C. Wellons), cheap and well mixed, so the gather has no pattern a cache could exploit. */
#ifndef SMEM_HASH_H
#define SMEM_HASH_H

#include <stdint.h>

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

#endif
