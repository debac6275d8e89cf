/* Seeded random inputs: splitmix64 (Steele, Lea, Flood), the same stream on every host. The i-th
 * value of a stream depends on the seed and i alone (a Weyl sequence through a mixer), so the GPU
 * draws an input in parallel, value for value what the host's sequential loop draws. */
#ifndef SMEM_RNG_H
#define SMEM_RNG_H

#include <stdint.h>

#ifdef __CUDACC__
#define SMEM_RNG_FN static inline __host__ __device__
#else
#define SMEM_RNG_FN static inline
#endif

#define SMEM_RNG_GOLDEN 0x9e3779b97f4a7c15ull

SMEM_RNG_FN uint64_t smem_rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

SMEM_RNG_FN uint64_t smem_rng_next(uint64_t *state)
{
    return smem_rng_mix(*state += SMEM_RNG_GOLDEN);
}

/* The i-th value (from 0) of the stream seeded with seed: smem_rng_next's (i + 1)-th call. */
SMEM_RNG_FN uint64_t smem_rng_at(uint64_t seed, uint64_t i)
{
    return smem_rng_mix(seed + (i + 1) * SMEM_RNG_GOLDEN);
}

/* Uniform float in [-1, 1) from a drawn value, never a constant fill. */
SMEM_RNG_FN float smem_rng_to_float(uint64_t v)
{
    return (float)((double)(v >> 11) * 0x1.0p-52 - 1.0);
}

SMEM_RNG_FN float smem_rng_float(uint64_t *state)
{
    return smem_rng_to_float(smem_rng_next(state));
}

#endif
