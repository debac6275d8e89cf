/* Predicted occupancy on built-in models, the bank model, the residency overlap and the driver's choice
 * of shared-memory configuration. Every expected value is worked out by hand from the published
 * limits in the comment beside it, not copied from the program's output; the configuration is also
 * held against every launch of the Nsight Compute probe (tests/ncu/). */
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpus.h"
#include "load_family.h"
#include "occupancy.h"
#include "runner.h"
#include "signals.h"
#include "sweep.h"

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

/* The driver's choice of configuration (smem_occupancy_config_driver) on the H200 model. */
static int64_t driver_config(int block, int64_t smem, int carveout, int blocks, int without)
{
    struct smem_config_query q = { .block = block, .smem_bytes = smem, .carveout_pct = carveout,
                                   .blocks_per_sm = blocks, .blocks_without_smem = without };

    return smem_occupancy_config_driver(&smem_gpu_find("h200")->dev, &q);
}

#define KIB 1024

Test(driver_config, no_hint_sizes_for_twice_the_blocks)
{
    /* 256 threads, 8 blocks by warps: room for 16 blocks of 2 + 1 KiB = 48 KiB, the 64 KiB step */
    cr_assert_eq(driver_config(256, 2 * KIB, -1, 8, 8), 64 * KIB);
    /* 1 + 1 KiB: 16 x 2 = 32 KiB, exactly a step */
    cr_assert_eq(driver_config(256, 1 * KIB, -1, 8, 8), 32 * KIB);
    /* 4 + 1 KiB: 80 KiB, the 100 KiB step */
    cr_assert_eq(driver_config(256, 4 * KIB, -1, 8, 8), 100 * KIB);
}

Test(driver_config, no_hint_headroom_stops_at_132k)
{
    /* 8 + 1 KiB: 16 blocks would be 144 KiB, held at 132; the 8 resident need only 72 */
    cr_assert_eq(driver_config(256, 8 * KIB, -1, 8, 8), 132 * KIB);
    /* 16 + 1 KiB: the 8 resident blocks alone need 136 KiB, the 164 KiB step */
    cr_assert_eq(driver_config(256, 16 * KIB, -1, 8, 8), 164 * KIB);
}

Test(driver_config, no_hint_large_blocks_take_what_the_residency_needs)
{
    /* 32384 + 1024 = 33408 bytes x 6 resident = 200448 bytes: the 196 KiB step (200704) */
    cr_assert_eq(driver_config(256, 32384, -1, 6, 8), 196 * KIB);
    /* 115840 + 1024 = 116864 bytes, one block: 132 KiB (100 KiB = 102400 is too small) */
    cr_assert_eq(driver_config(256, 115840, -1, 1, 8), 132 * KIB);
}

Test(driver_config, no_hint_no_shared_memory)
{
    /* only the 1 KiB reservation: min(32, 4 x 8) = 32 blocks' worth, 32 KiB */
    cr_assert_eq(driver_config(256, 0, -1, 8, 8), 32 * KIB);
    /* 512 threads, 4 blocks: 16 x 1 KiB = 16 KiB */
    cr_assert_eq(driver_config(512, 0, -1, 4, 4), 16 * KIB);
}

Test(driver_config, a_small_hint_without_shared_memory_keeps_the_no_hint_size)
{
    /* gather (256 threads, no shared memory) under 1 % and 4 %: the hint alone holds 2.3 and 9.1 KiB
     * (steps 8 and 16), but ncu saw 32 KiB, what the launch gets with no hint: 32 x 1 KiB */
    cr_assert_eq(driver_config(256, 0, 1, 8, 8), 32 * KIB);
    cr_assert_eq(driver_config(256, 0, 4, 8, 8), 32 * KIB);
    /* 50 % is above it: the hint's step, 114 KiB -> 132 */
    cr_assert_eq(driver_config(256, 0, 50, 8, 8), 132 * KIB);
    /* 1024 threads (n0 = 2): 8 x 1 KiB without a hint, so 1 % (2.3 KiB) takes 8 KiB */
    cr_assert_eq(driver_config(1024, 0, 1, 2, 2), 8 * KIB);
}

Test(driver_config, no_hint_1024_threads_are_not_doubled)
{
    /* 2 blocks of 2 + 1 KiB = 6 KiB: the 8 KiB step, not the 16 that 4 blocks would take */
    cr_assert_eq(driver_config(1024, 2 * KIB, -1, 2, 2), 8 * KIB);
}

Test(driver_config, hint_counts_blocks_without_the_reservation)
{
    /* 50 % of 228 KiB = 114 KiB; 114 / 6 = 19 blocks of 6 + 1 = 7 KiB = 133 KiB: the 164 KiB step,
     * one step above what 5 KiB takes (114 / 5 = 22 blocks x 6 KiB = 132 KiB) */
    cr_assert_eq(driver_config(256, 6 * KIB, 50, 8, 8), 164 * KIB);
    cr_assert_eq(driver_config(256, 5 * KIB, 50, 8, 8), 132 * KIB);
    /* 1 KiB under 50 %: 114 blocks x 2 KiB = 228 KiB, the whole SM */
    cr_assert_eq(driver_config(256, 1 * KIB, 50, 8, 8), 228 * KIB);
}

Test(driver_config, hint_is_at_least_the_hint_and_one_block)
{
    /* 10 % = 22.8 KiB; 12 KiB: 1 block x 13 KiB, less than the hint: the 32 KiB step holding it */
    cr_assert_eq(driver_config(256, 12 * KIB, 10, 8, 8), 32 * KIB);
    /* the footprint kernel, 31 KiB at 30 %: 68.4 / 31 = 2 blocks x 32 KiB = 64 < 68.4: 100 KiB */
    cr_assert_eq(driver_config(256, 31 * KIB, 30, 3, 8), 100 * KIB);
    /* 0 %: one block, the smallest step holding 7 + 1 KiB */
    cr_assert_eq(driver_config(256, 7 * KIB, 0, 1, 8), 8 * KIB);
    /* no shared memory at 25 %: the hint's step, 57 KiB -> 64 KiB */
    cr_assert_eq(driver_config(256, 0, 25, 8, 8), 64 * KIB);
    /* no shared memory at 0 % (the gather kernel at carveout 0): as without a hint, 32 KiB */
    cr_assert_eq(driver_config(256, 0, 0, 8, 8), 32 * KIB);
}

Test(driver_config, unknown_outside_what_was_measured)
{
    const struct smem_gpu_model *a100 = smem_gpu_find("a100");
    struct smem_config_query q = { .block = 256, .smem_bytes = 2 * KIB, .carveout_pct = -1, .blocks_per_sm = 8,
                                   .blocks_without_smem = 8 };

    cr_assert_eq(smem_occupancy_config_driver(&a100->dev, &q), -1, "measured on cc 9.0 only");
    cr_assert_eq(driver_config(256, 2 * KIB, -1, 6, 6), -1, "registers bind: the probe never did");
    cr_assert_eq(driver_config(96, 2 * KIB, -1, 21, 21), -1, "21 blocks by warps: not probed");
    cr_assert_geq(driver_config(256, 2 * KIB, 50, 6, 6), 0, "with a hint residency plays no part");
    cr_assert_eq(driver_config(256, 228 * KIB, -1, 0, 8), -1, "228 + 1 KiB fits no configuration");
    cr_assert_eq(driver_config(256, 100 * KIB, 50, 0, 8), -1, "not resident (no opt-in): no launch");
}

Test(driver_config, requested_is_the_hints_step)
{
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev;

    cr_assert_eq(smem_occupancy_config_requested(h200, -1), -1);
    cr_assert_eq(smem_occupancy_config_requested(h200, 0), 0);
    cr_assert_eq(smem_occupancy_config_requested(h200, 50), 132 * KIB);   /* 114 KiB */
    cr_assert_eq(smem_occupancy_config_requested(h200, 100), 228 * KIB);
}

/* Every launch of the Nsight Compute probe on the H200 (tests/ncu/README.md): the rule must give the
 * configuration ncu saw. Blocks per SM without shared memory come from the probe's own 0-byte,
 * no-hint launch of the same block size. */
static void check_fixture(const char *name, int want_rows)
{
    char path[512], line[256];
    FILE *f;
    int rows = 0, without[1025] = { 0 };
    struct { int block, dyn, carve, maxdyn, api; long long cfg; } r[4096];

    snprintf(path, sizeof(path), "%s/%s", SMEM_NCU_FIXTURES, name);
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, sizeof(line), f));
    cr_assert(!strncmp(line, "block,dyn_bytes,carveout,maxdyn_attr,api_blocks,config_bytes", 60), "%s", line);
    while (rows < 4096 && fgets(line, sizeof(line), f)) {
        cr_assert_eq(sscanf(line, "%d,%d,%d,%d,%d,%lld", &r[rows].block, &r[rows].dyn, &r[rows].carve, &r[rows].maxdyn,
                            &r[rows].api, &r[rows].cfg), 6, "%s", line);
        if (r[rows].dyn == 0 && r[rows].carve < 0)
            without[r[rows].block] = r[rows].api;
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, want_rows, "%s: %d launches", name, rows);
    for (int i = 0; i < rows; i++) {
        int64_t got = driver_config(r[i].block, r[i].dyn, r[i].carve, r[i].api, without[r[i].block]);
        cr_assert_eq(got, r[i].cfg, "%s line %d: block %d, %d bytes, carveout %d: the rule says %lld, ncu saw %lld",
                     name, i + 2, r[i].block, r[i].dyn, r[i].carve, (long long)got, r[i].cfg);
    }
}

Test(driver_config, every_launch_of_the_fine_probe)
{
    check_fixture("h200_driver580_fine.csv", 2646);
}

Test(driver_config, every_launch_of_the_coarse_probe)
{
    check_fixture("h200_driver580_coarse.csv", 1071);
}

/* --no-optin in predict mode: what the GPU would refuse is not predicted as if opted in. */
Test(predict, no_optin_refuses_what_needs_the_optin)
{
    const struct smem_device *d = &smem_gpu_find("h100")->dev;
    struct smem_plan_request req = { .bench = "dynamic", .predict = true,
                                     .overrides = (struct smem_override[]){ { "dyn_smem_bytes", "16K,64K" }, { "mib", "256" } },
                                     .n_overrides = 2 };
    struct smem_point *pts;
    struct smem_result res[2];
    struct smem_run_settings s = { .no_optin = false };
    struct smem_run_outcome out;
    size_t n;

    cr_assert_eq(smem_sweep_expand(&req, &pts, &n, d), 0);
    cr_assert_eq(n, 2);
    smem_run_predict(d, pts, n, &s, res, &out);
    cr_assert_eq(out.done, 2);
    cr_assert_eq(res[0].status, SMEM_POINT_PREDICTED);
    cr_assert_eq(res[1].status, SMEM_POINT_PREDICTED, "64 KiB with the opt-in");
    cr_assert_gt(res[1].occ.predicted, 0);
    s.no_optin = true;
    smem_run_predict(d, pts, n, &s, res, &out);
    cr_assert_eq(res[0].status, SMEM_POINT_PREDICTED, "16 KiB needs no opt-in");
    cr_assert_eq(res[1].status, SMEM_POINT_SKIPPED, "64 KiB without the opt-in is refused");
    cr_assert_not_null(strstr(res[1].reason, "--no-optin"), "%s", res[1].reason);
    free(pts);
}

/* A signal stops a prediction between points, and says how many were made. */
Test(predict, stops_at_a_signal)
{
    const struct smem_device *d = &smem_gpu_find("h100")->dev;
    struct smem_plan_request req = { .bench = "footprint", .predict = true };
    struct smem_point *pts;
    struct smem_result res[64];
    struct smem_run_settings s = { .no_optin = false };
    struct smem_run_outcome out;
    size_t n;

    cr_assert_eq(smem_sweep_expand(&req, &pts, &n, d), 0);
    cr_assert_gt(n, 1);
    smem_interrupted = SIGTERM;
    smem_run_predict(d, pts, n, &s, res, &out);
    smem_interrupted = 0;
    cr_assert_eq(out.signal, SIGTERM);
    cr_assert_eq(out.done, 0);
    free(pts);
}
