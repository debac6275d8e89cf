/* The timing loop's decisions that need no GPU: how many launches make one sample, which samples ran
 * throttled, and how both reach the result file. Every expected value is worked out by hand. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpus.h"
#include "report_json.h"
#include "stats.h"

Test(batch, fewest_launches_that_reach_the_target)
{
    /* 1 ms / 130 us = 7.7: 7 launches are 910 us, 8 are 1040 us */
    cr_assert_eq(smem_batch_size(130e3, 1e6, 4096), 8);
    /* 1 ms / 20.4 us = 49.02: 49 launches are 999.6 us, one short */
    cr_assert_eq(smem_batch_size(20.4e3, 1e6, 4096), 50);
    /* a 617 us bank point: two launches, 1.23 ms */
    cr_assert_eq(smem_batch_size(617.2e3, 1e6, 4096), 2);
    /* exactly 4 x 250 us = 1 ms: four, not five */
    cr_assert_eq(smem_batch_size(250e3, 1e6, 4096), 4);
}

Test(batch, long_launches_are_one_per_sample)
{
    cr_assert_eq(smem_batch_size(1e6, 1e6, 4096), 1);
    cr_assert_eq(smem_batch_size(2.03e6, 1e6, 4096), 1);
    cr_assert_eq(smem_batch_size(30e6, 1e6, 4096), 1);
}

Test(batch, capped_where_the_host_cannot_keep_up)
{
    /* 1 ms / 100 ns = 10000 launches: held at the cap */
    cr_assert_eq(smem_batch_size(100, 1e6, 4096), 4096);
    cr_assert_eq(smem_batch_size(100, 1e6, 16), 16);
}

Test(batch, unknown_launch_time_is_one_launch)
{
    cr_assert_eq(smem_batch_size(0, 1e6, 4096), 1);
    cr_assert_eq(smem_batch_size(-5, 1e6, 4096), 1);
    cr_assert_eq(smem_batch_size(NAN, 1e6, 4096), 1);
    cr_assert_eq(smem_batch_size(INFINITY, 1e6, 4096), 1);
    cr_assert_eq(smem_batch_size(130e3, 1e6, 0), 1, "a cap of 0 still times one launch");
}

Test(batch, default_target_is_a_millisecond)
{
    /* the target docs/measurement.md and the schema describe */
    cr_assert_float_eq(SMEM_BATCH_TARGET_NS, 1e6, 0);
    cr_assert_eq(smem_batch_size(130e3, SMEM_BATCH_TARGET_NS, SMEM_BATCH_MAX), 8);
}

Test(throttle, below_nine_tenths_of_the_run_clock)
{
    /* run clock 1980 MHz: the threshold is 0.9 x 1980 = 1782 MHz */
    cr_assert_not(smem_clock_throttled(1782e6, 1980e6), "exactly the threshold is not below it");
    cr_assert(smem_clock_throttled(1781e6, 1980e6));
    cr_assert(smem_clock_throttled(990e6, 1980e6), "a halved clock (HW slowdown)");
    cr_assert_not(smem_clock_throttled(1951e6, 1980e6), "the H200's ordinary 1951-1980 MHz");
    cr_assert_not(smem_clock_throttled(2100e6, 1980e6), "above the run clock is not throttled");
}

Test(throttle, unknown_clocks_are_never_throttled)
{
    cr_assert_not(smem_clock_throttled(0, 1980e6), "no clock read for the sample");
    cr_assert_not(smem_clock_throttled(1000e6, 0), "no run clock");
}

static cJSON *time_of_one_point(struct smem_result *r)
{
    static char *argv[] = { "smembench" };
    static struct smem_point pt;
    struct smem_run_info info = { .argc = 1, .argv = argv, .mode = "measure", .sweep = "bank",
                                  .started = "2026-11-29T00:00:00Z", .min_samples = 10, .max_samples = 1000,
                                  .max_noise = 0.005, .timeout_s = 1, .seed = 1 };
    cJSON *doc = smem_report_new(&info, &smem_gpu_find("h200")->dev);

    memset(&pt, 0, sizeof(pt));
    pt.bench = smem_bench_find("bank");
    pt.sweep = "bank";
    r->point = &pt;
    r->status = SMEM_POINT_OK;
    r->regs = r->carveout_requested = -1;
    r->occ.api = r->occ.predicted = r->occ.measured = r->occ.warps_per_sm = -1;
    r->occ.effective_carveout_pct = -1;
    r->occ.measured_sms = r->occ.probe_regs = -1;
    cr_assert_eq(smem_report_add(doc, r, -1), 0);
    return doc;
}

Test(json, batch_robust_spread_and_throttled_samples)
{
    /* three per-launch samples: median 1000.4, deviations 0, 1.2, 0.9, MAD 0.9,
     * robust spread 1.4826 x 0.9 / 1000.4 = 0.0013338 */
    double samples[] = { 1000.4, 1001.6, 999.5 };
    struct smem_throttled_sample thr[] = { { 1, 1130.2, 1405.0 } };
    struct smem_result r;
    cJSON *doc, *time, *t, *s0;

    memset(&r, 0, sizeof(r));
    r.samples_ns = samples;
    r.n_samples = 3;
    r.batch = 8;
    r.throttled = thr;
    r.n_throttled = 1;
    r.throttle_below_mhz = 1782;
    smem_stats_compute(samples, 3, &r.time_ns);
    doc = time_of_one_point(&r);
    time = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0), "time_ns");
    cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(time, "stats"), "robust_spread")->valuedouble,
                       1.4826 * 0.9 / 1000.4, 1e-9);
    cr_assert_eq(cJSON_GetObjectItem(time, "batch")->valuedouble, 8);
    t = cJSON_GetObjectItem(time, "throttled");
    cr_assert_eq(cJSON_GetObjectItem(t, "count")->valuedouble, 1);
    cr_assert_float_eq(cJSON_GetObjectItem(t, "threshold_mhz")->valuedouble, 1782, 1e-9);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(t, "used")));
    s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "samples"), 0);
    cr_assert_eq(cJSON_GetObjectItem(s0, "index")->valuedouble, 1, "the second sample taken");
    cr_assert_eq(cJSON_GetObjectItem(s0, "ns")->valuedouble, 1130, "integer nanoseconds");
    cr_assert_float_eq(cJSON_GetObjectItem(s0, "clock_mhz")->valuedouble, 1405.0, 1e-9);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(time, "raw")), 3, "throttled samples are not in raw");
    cJSON_Delete(doc);
}

Test(json, untimed_point_has_null_batch_and_throttled)
{
    struct smem_result r;
    cJSON *doc, *time;

    memset(&r, 0, sizeof(r));
    doc = time_of_one_point(&r);
    time = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0), "time_ns");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(time, "batch")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(time, "throttled")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(time, "stats"), "robust_spread")));
    cJSON_Delete(doc);
}

Test(trials, share_the_rule_out_and_keep_three_samples_each)
{
    struct smem_stop_rule r = { .min_samples = 10, .max_samples = 1000, .max_noise = 0.005, .timeout_s = 1.0 };
    struct smem_stop_rule t = smem_trial_rule(&r, 3);

    cr_assert_eq(t.min_samples, 4);
    cr_assert_eq(t.max_samples, 334);
    cr_assert_float_eq(t.timeout_s, 1.0 / 3, 1e-12);
    cr_assert_float_eq(t.max_noise, 0.005, 1e-12);
    t = smem_trial_rule(&r, 10);
    cr_assert_eq(t.min_samples, 3, "a trial of fewer than 3 samples tells the gate nothing");
    t = smem_trial_rule(&r, 1);
    cr_assert_eq(t.min_samples, 10);
    cr_assert_float_eq(t.timeout_s, 1.0, 1e-12);
}

Test(trials, disagree_past_one_percent_or_four_times_their_noise)
{
    const double levels[] = { 321000, 335000, 327000 }, quiet[] = { 0.002, 0.001, 0.003 };
    const double close[] = { 321000, 322500, 321800 }, noisy[] = { 0.02, 0.01, 0.015 };

    cr_assert_float_eq(smem_trials_range(levels, 3), 14000.0 / 327000, 1e-12);
    cr_assert(smem_trials_disagree(levels, quiet, 3), "4.3 %% apart at 0.3 %% noise: levels");
    cr_assert_not(smem_trials_disagree(close, quiet, 3), "0.5 %% apart: within 1 %%");
    cr_assert_not(smem_trials_disagree(levels, noisy, 3), "4.3 %% apart at 2 %% noise: within 4 x the noise");
    cr_assert_float_eq(smem_trials_range(levels, 1), 0, 1e-12);
    cr_assert_not(smem_trials_disagree(levels, quiet, 1));
}

Test(trials, shuffle_is_a_seeded_permutation)
{
    size_t a[64], b[64], seen[64] = { 0 };
    bool moved = false;

    for (size_t i = 0; i < 64; i++)
        a[i] = b[i] = i;
    smem_shuffle(a, 64, 42);
    smem_shuffle(b, 64, 42);
    for (size_t i = 0; i < 64; i++) {
        cr_assert_eq(a[i], b[i], "the same seed, the same order");
        seen[a[i]]++;
        moved |= a[i] != i;
    }
    for (size_t i = 0; i < 64; i++)
        cr_assert_eq(seen[i], 1, "every index once");
    cr_assert(moved);
    for (size_t i = 0; i < 64; i++)
        b[i] = i;
    smem_shuffle(b, 64, 43);
    cr_assert(memcmp(a, b, sizeof(a)), "another seed, another order");
}

Test(json, trials_with_their_medians_spread_and_verdict)
{
    double samples[] = { 321000, 321200, 335000, 335300, 327000, 327100 };
    struct smem_trial tr[] = {
        { .median_ns = 321100, .robust_spread = 0.001, .samples = 2, .batch = 4, .clock_mhz = 1975, .order = 7 },
        { .median_ns = 335150, .robust_spread = 0.002, .samples = 2, .batch = 3, .clock_mhz = 1977, .order = 900 },
        { .median_ns = 327050, .robust_spread = 0.001, .samples = 2, .batch = 4, .clock_mhz = 1976, .order = 1500 },
    };
    struct smem_result r;
    cJSON *doc, *pt, *t, *runs;

    memset(&r, 0, sizeof(r));
    r.samples_ns = samples;
    r.n_samples = 6;
    r.batch = 4;
    r.trials = tr;
    r.n_trials = r.trials_planned = 3;
    smem_stats_compute(samples, 6, &r.time_ns);
    doc = time_of_one_point(&r);
    pt = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0);
    t = cJSON_GetObjectItem(pt, "trials");
    cr_assert_eq(cJSON_GetObjectItem(t, "count")->valuedouble, 3);
    /* (335150 - 321100) / 327050 */
    cr_assert_float_eq(cJSON_GetObjectItem(t, "spread")->valuedouble, 14050.0 / 327050, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(t, "within")->valuedouble, 0.002, 1e-12);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(t, "disagree")), "4.3 %% apart at 0.2 %% noise");
    runs = cJSON_GetObjectItem(t, "runs");
    cr_assert_eq(cJSON_GetArraySize(runs), 3);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 1), "batch")->valuedouble, 3);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 2), "order")->valuedouble, 1500);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0), "median_ns")->valuedouble, 321100);
    cJSON_Delete(doc);
}
