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
    /* the target the README and the schema describe */
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
