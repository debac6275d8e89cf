/* Seeded random inputs: splitmix64 (Steele, Lea, Flood), the same stream on every host. */
#ifndef SMEM_RNG_H
#define SMEM_RNG_H

#include <stdint.h>

static inline uint64_t smem_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform float in [-1, 1), never a constant fill. */
static inline float smem_rng_float(uint64_t *state)
{
    return (float)((double)(smem_rng_next(state) >> 11) * 0x1.0p-52 - 1.0);
}

#endif
