/* Sattolo's shuffle gives a single cycle through every slot, so a chase never settles into a short
 * loop that a cache or a prefetcher could learn, and the host can replay it exactly. */
#include "chase.h"

#include <stdlib.h>

#include "../src/rng.h"
#include "../src/smem.h"

int smem_chase_cycle(uint32_t *next, uint32_t n, uint32_t n_total, uint64_t seed)
{
    uint32_t *perm = malloc((n ? n : 1) * sizeof(*perm));
    uint64_t state = seed;

    if (!perm)
        return SMEM_ENOMEM;
    for (uint32_t i = 0; i < n_total; i++)
        next[i] = i;
    if (n < 2) {    /* no cycle to make: every slot points to itself */
        free(perm);
        return SMEM_OK;
    }
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(smem_rng_next(&state) % i); /* j < i: Sattolo, one cycle */
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        next[perm[i]] = perm[(i + 1) % n];
    free(perm);
    return SMEM_OK;
}

uint32_t smem_chase_end(const uint32_t *next, int64_t steps)
{
    uint32_t j = 0;

    for (int64_t i = 0; i < steps; i++)
        j = next[j];
    return j;
}
