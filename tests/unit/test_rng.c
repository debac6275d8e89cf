/* The seeded random stream (core/rng.h) without a GPU: the i-th value drawn by index, as the GPU
 * draws the benchmarks' inputs, is the sequential stream's i-th. */
#include <stdint.h>

#include <criterion/criterion.h>

#include "rng.h"

/* The GPU draws inputs by index (kernels/fill.cu): value i must be the sequential stream's i-th. */
Test(rng, the_i_th_value_is_the_sequential_streams)
{
    uint64_t state = 12345;

    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t v = smem_rng_next(&state);
        cr_assert_eq(smem_rng_at(12345, i), v, "value %llu", (unsigned long long)i);
    }
    state = 7;
    for (uint64_t i = 0; i < 100; i++)
        cr_assert_eq(smem_rng_to_float(smem_rng_at(7, i)), smem_rng_float(&state));
}
