/* Predicted occupancy on built-in models, the bank model and the residency overlap. Every expected
 * value is worked out by hand from the published limits in the comment beside it, not copied from
 * the program's output. */
#include <string.h>

#include <criterion/criterion.h>

#include "gpus.h"
#include "load_family.h"
#include "occupancy.h"

static struct smem_prediction predict(const char *model, int block, int regs, size_t static_smem, size_t dyn,
                                      int carveout)
{
    const struct smem_gpu_model *m = smem_gpu_find(model);
    struct smem_func f = { .regs = regs, .static_smem = static_smem,
                           .max_dyn_smem = dyn > 48 * 1024 ? dyn : 48 * 1024 - static_smem,
                           .max_threads_per_block = 1024 };
    struct smem_prediction p;

    cr_assert_not_null(m, "model %s", model);
    cr_assert_eq(smem_occupancy_predict(&m->dev, &f, block, dyn, carveout, &p), 0);
    return p;
}

Test(predict, h100_carveout_100_holds_seven_32k_blocks)
{
    /* 31 KiB + 1 KiB reserved = 32 KiB per block; 228 KiB / 32 KiB = 7 */
    struct smem_prediction p = predict("h100", 256, 32, 0, 31 * 1024, 100);

    cr_assert_eq(p.blocks_per_sm, 7);
    cr_assert_eq(p.warps_per_sm, 56);
    cr_assert_str_eq(p.limiter, "shared_memory");
    cr_assert_eq(p.smem_config_bytes, 228 * 1024);
}

Test(predict, h100_carveout_0_rounds_up_to_one_block)
{
    /* preference 0 KiB is below one block: the smallest step holding 32 KiB, 32 KiB, one block */
    struct smem_prediction p = predict("h100", 256, 32, 0, 31 * 1024, 0);

    cr_assert_eq(p.blocks_per_sm, 1);
    cr_assert_eq(p.smem_config_bytes, 32 * 1024);
}

Test(predict, h100_carveout_50_takes_the_132k_step)
{
    /* 50 % of 228 KiB = 114 KiB, rounded up to the 132 KiB step: 132 / 32 = 4 */
    struct smem_prediction p = predict("h100", 256, 32, 0, 31 * 1024, 50);

    cr_assert_eq(p.blocks_per_sm, 4);
    cr_assert_eq(p.smem_config_bytes, 132 * 1024);
}

Test(predict, a100_48k_dynamic_fits_three)
{
    /* 48 KiB + 1 KiB = 49 KiB; 164 KiB / 49 KiB = 3 */
    struct smem_prediction p = predict("a100", 128, 32, 0, 48 * 1024, -1);

    cr_assert_eq(p.blocks_per_sm, 3);
}

Test(predict, t4_full_block_is_warp_limited)
{
    /* 1024 threads per SM on Turing: one block of 1024 */
    struct smem_prediction p = predict("t4", 1024, 32, 0, 0, -1);

    cr_assert_eq(p.blocks_per_sm, 1);
    cr_assert(strstr(p.limiter, "warps"));
}

Test(predict, t4_32k_blocks_two_per_sm)
{
    /* 64 KiB per SM, no reservation on Turing: 64 / 32 = 2 */
    struct smem_prediction p = predict("t4", 128, 32, 0, 32 * 1024, -1);

    cr_assert_eq(p.blocks_per_sm, 2);
}

Test(predict, rtx4090_threads_limit_six_blocks)
{
    /* 1536 threads per SM on 8.9: 1536 / 256 = 6 */
    struct smem_prediction p = predict("rtx4090", 256, 32, 0, 0, -1);

    cr_assert_eq(p.blocks_per_sm, 6);
    cr_assert_eq(p.warps_per_sm, 48);
}

Test(predict, h100_register_limited)
{
    /* 256 threads x 128 registers = 32768 per block; 65536 / 32768 = 2 */
    struct smem_prediction p = predict("h100", 256, 128, 0, 0, -1);

    cr_assert_eq(p.blocks_per_sm, 2);
    cr_assert_str_eq(p.limiter, "registers");
}

Test(predict, h100_block_count_limited)
{
    /* one-warp blocks: 64 warps would allow 64 blocks, the SM holds 32 */
    struct smem_prediction p = predict("h100", 32, 16, 0, 0, -1);

    cr_assert_eq(p.blocks_per_sm, 32);
    cr_assert(strstr(p.limiter, "blocks"));
}

Test(predict, above_the_optin_ceiling_cannot_run)
{
    /* 228 KiB dynamic + 1 KiB reserved exceeds 227 KiB + 1 KiB */
    struct smem_prediction p = predict("h100", 256, 32, 0, 228 * 1024, -1);

    cr_assert_eq(p.blocks_per_sm, 0);
}

Test(predict, rtx5090_99k_is_one_block)
{
    /* 99 KiB + 1 KiB = 100 KiB, the whole SM on 12.0 */
    struct smem_prediction p = predict("rtx5090", 128, 32, 0, 99 * 1024, -1);

    cr_assert_eq(p.blocks_per_sm, 1);
}

Test(predict, every_model_is_known_and_sane)
{
    static const char *keys[] = { "t4", "a100", "a10", "rtx3090", "orin", "l4", "rtx4090", "h100", "h200", "b200", "rtx5090" };

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct smem_gpu_model *m = smem_gpu_find(keys[i]);
        cr_assert_not_null(m, "%s", keys[i]);
        cr_assert_geq(m->dev.smem_per_sm, m->dev.smem_per_block_optin, "%s", keys[i]);
        cr_assert_geq(m->dev.smem_per_block_optin, m->dev.smem_per_block, "%s", keys[i]);
    }
    cr_assert_null(smem_gpu_find("h900"));
    cr_assert_not_null(smem_gpu_find("H200"), "model keys are case-insensitive");
}

Test(predict, hopper_carveout_steps)
{
    int kib[32];
    int expect[] = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 };
    int n = smem_occupancy_smem_configs(9, 0, kib, 32);

    cr_assert_eq(n, 10);
    for (int i = 0; i < n; i++)
        cr_assert_eq(kib[i], expect[i]);
}

Test(residency, overlap_counts_concurrent_blocks_per_sm)
{
    /* SM 0: [0,10) [5,15) [9,20) overlap 3 at t=9; [20,30) starts as [9,20) ends: no overlap.
     * SM 1: two disjoint blocks. */
    uint32_t smid[] = { 0, 0, 0, 0, 1, 1 };
    unsigned long long start[] = { 0, 5, 9, 20, 0, 50 };
    unsigned long long end[] = { 10, 15, 20, 30, 40, 60 };
    int used = 0;

    cr_assert_eq(smem_occupancy_max_overlap(smid, start, end, 6, 4, &used), 3);
    cr_assert_eq(used, 2);
}

Test(bank, four_byte_strides_follow_the_power_of_two)
{
    int pow2[] = { 1, 2, 4, 8, 16, 32 };

    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(smem_bank_wavefronts(4, pow2[i]), pow2[i], "stride %d", pow2[i]);
    for (int s = 1; s <= 33; s += 2)
        cr_assert_eq(smem_bank_wavefronts(4, s), 1, "odd stride %d is conflict-free", s);
    cr_assert_eq(smem_bank_wavefronts(4, 6), 2);     /* gcd(6, 32) = 2 */
    cr_assert_eq(smem_bank_wavefronts(4, 24), 8);    /* gcd(24, 32) = 8 */
}

Test(bank, wide_accesses_take_several_passes)
{
    cr_assert_eq(smem_bank_wavefronts(8, 1), 2);     /* 256 bytes: two passes at best */
    cr_assert_eq(smem_bank_wavefronts(16, 1), 4);    /* 512 bytes: four */
    cr_assert_eq(smem_bank_wavefronts(8, 2), 4);     /* 16 banks used by 64 words */
    cr_assert_eq(smem_bank_wavefronts(16, 2), 8);
    cr_assert_eq(smem_bank_wavefronts(16, 8), 32);   /* every lane in banks 0..3 */
    cr_assert_eq(smem_bank_wavefronts(8, 3), 2);     /* odd stride: conflict-free */
}
