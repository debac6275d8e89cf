/* The pointer chase the latency benchmarks load through (bench/common.c), without a GPU: one cycle
 * through every slot of the chain, and the slot where a run of loads ends. */
#include <stdint.h>

#include <criterion/criterion.h>

#include "common.h"

Test(chase, one_cycle_through_every_slot)
{
    uint32_t next[64], seen[64] = { 0 }, j = 0;

    cr_assert_eq(smem_chase_cycle(next, 50, 64, 7), SMEM_OK);
    for (int i = 0; i < 50; i++) {
        cr_assert_lt(j, 50);
        cr_assert_eq(seen[j]++, 0, "slot %u visited twice before the cycle closed", j);
        j = next[j];
    }
    cr_assert_eq(j, 0, "back at the start after exactly 50 loads");
    cr_assert_eq(smem_chase_end(next, 50), 0);
    cr_assert_eq(smem_chase_end(next, 1), next[0]);
    for (uint32_t i = 50; i < 64; i++)
        cr_assert_eq(next[i], i, "slots past the cycle point to themselves");
}
