/* The random cycle the pointer chases follow (latency, dsm_latency). */
#ifndef SMEM_BENCH_CHASE_H
#define SMEM_BENCH_CHASE_H

#include <stdint.h>

/* next[i] for one random cycle (Sattolo's shuffle) through the first n of n_total slots, from seed;
 * the other slots point to themselves. SMEM_ENOMEM when the shuffle cannot be allocated. */
int smem_chase_cycle(uint32_t *next, uint32_t n, uint32_t n_total, uint64_t seed);

/* The slot a chase from slot 0 reaches after steps loads. */
uint32_t smem_chase_end(const uint32_t *next, int64_t steps);

#endif
