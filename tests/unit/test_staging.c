/* The staging benchmarks' host logic without a GPU (staging_plain, staging_cp_async, staging_bulk
 * against global_read): which points a device or a model can run and why not, the stages and tiles
 * their plans derive from the device, and the staging hash. Expected values are worked out by hand
 * in the comments beside them. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common.h"
#include "gpus.h"
#include "smem.h"
#include "staging_family.h"
#include "sweep.h"
#include "unit_test.h"

Test(staging_plan, each_method_needs_its_generation)
{
    /* predicted where the hardware is there, skipped with the reason where not */
    const struct { const char *model, *plain, *cp_async, *bulk; } want[] = {
        { "t4", NULL, "needs compute capability 8.0 or later (cp.async); NVIDIA T4 (model) is 7.5",
          "needs compute capability 9.0 or later (cp.async.bulk" },
        { "a100", NULL, NULL, "is 8.0" },
        { "h200", NULL, NULL, NULL },
        { "rtx5090", NULL, NULL, NULL },   /* 12.0 is newer than 9.0 */
    };

    for (size_t m = 0; m < SMEM_ARRAY_LEN(want); m++) {
        struct smem_point *p;
        size_t n;
        struct smem_result *r = predict("staging", want[m].model, &p, &n);
        for (size_t i = 0; i < n; i++) {
            const char *name = p[i].bench->name;
            const char *why = !strcmp(name, "staging_cp_async") ? want[m].cp_async
                              : !strcmp(name, "staging_bulk")   ? want[m].bulk
                              : !strcmp(name, "staging_plain")  ? want[m].plain : NULL;
            if (why) {
                cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "%s on %s", name, want[m].model);
                cr_assert(strstr(r[i].reason, why), "%s", r[i].reason);
            } else {
                cr_assert_eq(r[i].status, SMEM_POINT_PREDICTED, "%s on %s: %s", name, want[m].model, r[i].reason);
                cr_assert_gt(r[i].occ.predicted, 0);
            }
        }
        free(r);
        free(p);
    }
}

Test(staging_plan, rejects_what_cannot_be_moved)
{
    const int64_t odd[] = { 4, 1000, 256 }, huge[] = { 16, 228 * 1024, 256 };
    const struct smem_device *h100 = &smem_gpu_find("h100")->dev;
    struct smem_plan p;
    char why[256];

    cr_assert_eq(plan("staging_cp_async", odd, h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "not a multiple of 16"), "%s", why);
    cr_assert_eq(plan("staging_plain", huge, h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "opt-in ceiling of 232448 bytes"), "%s", why);
}

Test(staging_plan, a_bulk_tile_at_the_ceiling_is_refused_for_its_barriers)
{
    const int64_t at_ceiling[] = { 232448, 256 }, over[] = { 232464, 256 };
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev;
    struct smem_plan p;
    char why[256];

    /* the tile alone fits the 232448 bytes: what does not is the 128 bytes of mbarriers beside it */
    cr_assert_eq(plan("staging_bulk", at_ceiling, h200, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "a 232448-byte tile and the bulk copy's 128 bytes of mbarriers (232576 bytes) exceed the "
                          "opt-in ceiling of 232448 bytes"), "%s", why);
    cr_assert_eq(plan("staging_bulk", over, h200, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "a 232464-byte tile exceeds the opt-in ceiling of 232448 bytes"), "%s", why);
}

Test(staging_plan, stages_fill_the_opt_in_ceiling_at_most_eight_deep)
{
    const struct smem_device *h100 = &smem_gpu_find("h100")->dev;
    const int64_t cp8k[] = { 16, 8192, 256 }, bulk_max[] = { 232320, 256 };
    struct smem_plan p;
    char why[256];

    cr_assert_eq(smem_staging_stages(SMEM_STAGING_PLAIN, 8192, h100), 1, "plain loads are synchronous");
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_CP_ASYNC, 8192, h100), 4);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 16 * 1024, h100), 4, "64 KiB a block: three blocks per SM");
    /* two blocks of four: 2 x (4 x 28800 + 128 + 1024) = 232704 <= 233472 fits; at 28928, 233728 does
     * not, so the pipeline deepens: (232448 - 128) / 28928 = 8 */
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 28800, h100), 4);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 28928, h100), 8);
    /* 227 KiB / 32 KiB = 7: a 32 KiB tile keeps one block per SM with six copies in flight */
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 32 * 1024, h100), 7);
    /* 227 KiB / 100 KiB = 2; the bulk kernel's barriers (128 bytes, padded) leave 232320 for the largest */
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 100 * 1024, h100), 2);
    cr_assert_eq(smem_staging_max_tile(h100), 232320);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 232320, h100), 1);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 232336, h100), 0);
    cr_assert_eq(plan("staging_cp_async", cp8k, h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem, 4 * 8192);
    cr_assert_eq(p.grid, 0, "a full wave");
    cr_assert_eq(p.work, 256 << 20, "the bytes asked for");
    cr_assert_eq(plan("staging_bulk", bulk_max, h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem + p.static_smem, 232448, "the largest tile and its barriers fill the opt-in ceiling");
}

Test(staging_plan, default_tiles_run_from_1k_to_the_device_maximum)
{
    const struct smem_bench *b = smem_bench_find("staging_bulk");
    int64_t v[32];
    size_t n;

    cr_assert_not_null(b->device_defaults);
    cr_assert(b->axes[smem_bench_axis(b, "transfer_bytes")].from_device);
    n = b->device_defaults(&smem_gpu_find("h100")->dev, "transfer_bytes", false, NULL, v, 32);
    cr_assert_eq(n, 9, "1, 2, 4 ... 128 KiB and the largest");
    cr_assert_eq(v[0], 1024);
    cr_assert_eq(v[7], 128 * 1024);
    cr_assert_eq(v[8], 232320);
    n = b->device_defaults(&smem_gpu_find("t4")->dev, "transfer_bytes", false, NULL, v, 32);
    cr_assert_eq(v[n - 1], 64 * 1024 - 128, "the T4's 64 KiB less the barriers");
    /* under --quick the quick tiles that fit: 64 KiB does not on the T4 */
    n = b->device_defaults(&smem_gpu_find("t4")->dev, "transfer_bytes", true, NULL, v, 32);
    cr_assert_eq(n, 2);
    cr_assert_eq(v[1], 8 * 1024);
    cr_assert_eq(b->device_defaults(&smem_gpu_find("t4")->dev, "mib", false, NULL, v, 32), 0, "only the tile axis");
}

Test(staging_ref, hashes_each_threads_words_in_order)
{
    /* grid 2, block 2, tiles of 3 words, 2 tiles per block: block b takes tiles b and b + 2.
     * Block 0: tiles {0,1,2} and {6,7,8}; thread 0 folds words 0, 2, 6, 8, thread 1 words 1, 7.
     *   h0 = ((0*33 + 2)*33 + 6)*33 + 8 = 2384; h1 = 1*33 + 7 = 40.
     * Block 1: tiles {3,4,5} and {9,10,11}: h0 = ((3*33 + 5)*33 + 9)*33 + 11 = 113564; h1 = 4*33 + 10 = 142. */
    uint32_t in[12], out[4];

    for (uint32_t i = 0; i < 12; i++)
        in[i] = i;
    smem_staging_ref(in, 3, 2, 2, 2, out);
    cr_assert_eq(out[0], 2384);
    cr_assert_eq(out[1], 40);
    cr_assert_eq(out[2], 113564);
    cr_assert_eq(out[3], 142);
    in[7] = 6, in[6] = 7;   /* two words swapped: thread 0 and 1 of block 0 both see it */
    smem_staging_ref(in, 3, 2, 2, 2, out);
    cr_assert_neq(out[0], 2384);
    cr_assert_neq(out[1], 40);
}

Test(staging_sweep, is_held_against_global_read_on_the_same_data)
{
    const char *names[] = { "staging_plain", "staging_cp_async", "staging_bulk" };
    const struct smem_bench *g = smem_bench_find("global_read");
    const struct smem_sweep *sw = smem_sweep_find("staging");

    cr_assert_not_null(g);
    cr_assert(smem_sweep_has(sw, g));
    cr_assert_geq(smem_bench_axis(g, "mib"), 0);
    for (size_t i = 0; i < 3; i++) {
        const struct smem_bench *s = smem_bench_find(names[i]);
        cr_assert_not_null(s, "%s", names[i]);
        cr_assert_str_eq(s->baseline->bench, "global_read");
        cr_assert_str_eq(s->baseline->metric, "gbytes_per_s");
        cr_assert_geq(smem_bench_axis(s, "mib"), 0, "the baseline point is matched on the data size");
        cr_assert(smem_sweep_has(sw, s), "%s in the staging sweep", names[i]);
    }
    cr_assert_eq(smem_bench_find("staging_cp_async")->min_cc, 80);
    cr_assert_eq(smem_bench_find("staging_bulk")->min_cc, 90);
    cr_assert(smem_sweep_predictable(sw), "occupancy of the staging kernels predicts");
    cr_assert(smem_sweep_predictable(smem_sweep_find("cluster")), "predict mode records the cluster points skipped");
}
