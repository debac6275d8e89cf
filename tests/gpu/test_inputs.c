/* Inputs drawn on the GPU: value for value the host's seeded stream, and kept between points. */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common.h"
#include "gpu_test.h"
#include "rng.h"

TestSuite(inputs, .init = open_device);

Test(inputs, drawn_on_the_gpu_value_for_value_and_shared_between_points)
{
    const size_t n = (size_t)1 << 22;
    void *d1, *h1, *d2, *h2, *d3, *h3, *dw, *hw, *di, *hi;
    uint64_t state = 5;
    struct smem_gpu_inputs *in = smem_gpu_inputs_create();

    cr_assert(in);
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_FLOATS, 5, &d1, &h1), 0);
    for (size_t i = 0; i < n; i++) {
        float want = smem_rng_float(&state);
        cr_assert_eq(memcmp(&((float *)h1)[i], &want, 4), 0, "value %zu: %g, the host stream %g", i,
                     (double)((float *)h1)[i], (double)want);
    }
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_WORDS, 5, &dw, &hw), 0);
    cr_assert_eq(((uint32_t *)hw)[0], (uint32_t)smem_rng_at(5, 0));
    cr_assert_eq(((uint32_t *)hw)[n - 1], (uint32_t)smem_rng_at(5, n - 1));
    /* the reduction's whole numbers in -4..3: the draw mod 8, less 4 */
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_SMALL_INTS, 5, &di, &hi), 0);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(((float *)hi)[i], (float)((int)(smem_rng_at(5, i) % 8) - 4), "value %zu: %g", i,
                     (double)((float *)hi)[i]);
    /* the next point asking for the same input gets the same buffers, without a draw */
    smem_gpu_input_release(in, d1, h1);
    smem_gpu_inputs_next_point(in);
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_FLOATS, 5, &d2, &h2), 0);
    cr_assert(d2 == d1 && h2 == h1, "a second copy of a kept input");
    /* a private copy is another buffer of the same values, and the device holds them too */
    cr_assert_eq(smem_gpu_random_private(n, SMEM_FILL_FLOATS, 5, &d3, &h3), 0);
    cr_assert(d3 != d1 && h3 != h1);
    cr_assert_eq(memset(h3, 0, n * 4), h3);
    cr_assert_eq(cudaMemcpy(h3, d3, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(memcmp(h3, h1, n * 4), 0);
    smem_gpu_input_release(in, d3, h3);
    smem_gpu_input_release(in, d2, h2);
    smem_gpu_input_release(in, dw, hw);
    smem_gpu_input_release(in, di, hi);
    smem_gpu_inputs_destroy(in, true);
}
