/* The measurement on a real GPU: short kernels batched to the target and settled, every phase of a
 * point timed, later trials pooling the first trial's batch. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpu_test.h"
#include "runner.h"

TestSuite(measure, .init = open_device);

Test(measure, short_kernels_are_batched_to_the_target_and_settle)
{
    /* The uninit kernels take about 13-20 us; one launch per sample scattered them by 11-12 % (IQR
     * over the median) on the H200. A sample of about 1 ms of back-to-back launches must bring the
     * robust spread under 2 % where the kernel's own work does not vary, the batch must be the fewest launches that reach the target, and every
     * sample still has its SM clock.
     *
     * Measured on a warm unit, as a sweep measures it: on a new unit this test, the first to time a
     * kernel after the device was opened, saw uninit above 16 KiB at a robust spread of 3.94 % while
     * the same point settled to 0.3-0.7 % in two --sweep all processes there, where it runs after
     * hundreds of points. Its 200 samples (0.2 s after 2 ms of warm-up) were taken while the unit
     * came up from idle: samples within the throttle fraction of the clock are kept, so the ramp
     * is in their spread, and it says nothing of the batch. The points are measured once to bring
     * the unit to its working clock, then again; the second measurement is held to 2 %. */
    struct smem_plan_request req = { .bench = "uninit" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++)
        cr_log_info("uninit %lld B, first measurement: %.1f us, robust spread %.2f %%, %.0f MHz",
                    (long long)smem_axis_value(r[i].point, "dyn_smem_bytes"), r[i].time_ns.median / 1e3,
                    100 * r[i].time_ns.robust_spread, r[i].clock_mhz);
    smem_results_free(r, n);
    free(r);
    r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        double t = r[i].time_ns.median;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_gt(r[i].batch, 1, "%.1f us per launch", t / 1e3);
        /* the batch is sized on the launches of its warm-up; at 16 KiB they wander 11.3-14.8 us
         * (below), so there the batch reached 1 ms at 14.9 us and its median was 11.4 us
         * (GPU-7b262491: 67 x 11.4 us): the lower bound holds where the time settles */
        if (smem_axis_value(r[i].point, "dyn_smem_bytes") > 16 * 1024)
            cr_assert_geq((double)r[i].batch * t, 0.8 * SMEM_BATCH_TARGET_NS, "batch %zu x %.1f us", r[i].batch,
                          t / 1e3);
        cr_assert_lt((double)(r[i].batch - 1) * t, 1.25 * SMEM_BATCH_TARGET_NS, "batch %zu x %.1f us", r[i].batch,
                     t / 1e3);
        /* At 16 KiB, 8 blocks of fill and peek are resident per SM and the two kernels' blocks
         * overlap differently from launch to launch (which is what the benchmark shows: 74 % of the
         * words stale, not 100 %); the H200 spread 11.3-14.8 us per launch over 1 ms batches, a
         * robust spread near 6 %: the point's time is not its result. At 48 and 96 KiB one kernel's
         * blocks fill the SM and the batches settle under 0.5 %. */
        if (smem_axis_value(r[i].point, "dyn_smem_bytes") > 16 * 1024)
            cr_assert_lt(r[i].time_ns.robust_spread, 0.02, "robust spread %.2f %% at %.0f MHz",
                         100 * r[i].time_ns.robust_spread, r[i].clock_mhz);
        cr_assert_gt(r[i].clock_mhz, 200, "the SM clock of a batched sample");
    }
    smem_results_free(r, n);
    free(r);
}

Test(measure, every_phase_of_a_point_is_timed)
{
    /* where the time goes (docs/measurement.md): each phase of a timed point is there, and they fit in the point */
    struct smem_plan_request req = { .bench = "copy" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        const struct smem_phase_times *p = &r[i].phase_s;
        double sum = p->setup + p->verify + p->warmup + p->sampling + p->residency + p->teardown;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert(p->setup > 0 && p->verify > 0 && p->warmup > 0 && p->sampling > 0 && p->teardown >= 0);
        /* sampling: at least the minimum samples of about SMEM_BATCH_TARGET_NS each */
        cr_assert_geq(p->sampling, 10 * 0.5 * SMEM_BATCH_TARGET_NS * 1e-9, "%.4f s", p->sampling);
        cr_assert_leq(sum, r[i].wall_s * 1.001 + 1e-6, "phases %.4f s in a point of %.4f s", sum, r[i].wall_s);
    }
    smem_results_free(r, n);
    free(r);
}

Test(measure, later_trials_take_the_first_trials_batch_and_pool_every_sample)
{
    /* Trials (src/stats.h): the first trial finds the batch, the later ones warm up with one batch of
     * it and sample; the point's samples are every trial's, and its median the pooled one. */
    struct smem_plan_request req = { .bench = "bank" };
    struct smem_point *p;
    size_t n;
    struct smem_run_outcome out;
    struct smem_run_settings s = {
        .rule = { .min_samples = 10, .max_samples = 200, .max_noise = 0.005, .timeout_s = 0.5 },
        .seed = 1, .trials = 3, .order_seed = 11,
    };
    struct smem_result *r;

    cr_assert_eq(smem_sweep_expand(&req, &p, &n, &dev), 0);
    n = n < 6 ? n : 6;
    r = calloc(n, sizeof(*r));
    cr_assert_eq(smem_run_measure(&dev, p, n, &s, r, &out), 0);
    cr_assert_eq(out.done, n);
    for (size_t i = 0; i < n; i++) {
        size_t samples = 0;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_eq(r[i].n_trials, 3);
        for (size_t k = 0; k < r[i].n_trials; k++) {
            cr_assert_eq(r[i].trials[k].batch, r[i].trials[0].batch, "trial %zu: batch %zu, the first's %zu", k,
                         r[i].trials[k].batch, r[i].trials[0].batch);
            cr_assert_geq(r[i].trials[k].samples, 4, "ceil(10 / 3) samples a trial at least");
            samples += r[i].trials[k].samples;
        }
        cr_assert_eq(r[i].n_samples, samples);
        cr_assert_eq(r[i].time_ns.count, samples);
    }
    smem_results_free(r, n);
    free(r);
}

Test(measure, trials_keep_what_verification_found)
{
    /* Since trials became the default, the pooled metrics were recomputed from a later trial's case,
     * which is set up and timed but never verified: uninit wrote stale_pct 0 at every size (74.2,
     * 100 and 99.7 % at 16, 48 and 96 KiB on the H200 before trials) and cluster_occupancy
     * clusters_measured 0 at every point, all marked ok. With the driver's three trials, what the
     * first trial's verification counted must survive the pooling. */
    struct smem_plan_request uninit = { .bench = "uninit" }, clusters = { .bench = "cluster_occupancy" };
    size_t n, n_clusters = 0;
    struct smem_result *r = run_trials(&uninit, &n, 3);

    for (size_t i = 0; i < n; i++) {
        double stale = metric(&r[i], "stale_pct");
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_eq(r[i].n_trials, 3);
        /* every block of peek follows a block of fill on some SM: some words always survive */
        cr_assert_gt(stale, 10, "uninit dyn_smem_bytes=%lld: stale_pct %.2f %% after pooling 3 trials",
                     (long long)smem_axis_value(r[i].point, "dyn_smem_bytes"), stale);
    }
    smem_results_free(r, n);
    free(r);
    if (dev.cc_major < 9)
        return;   /* clusters need 9.0 */
    r = run_trials(&clusters, &n, 3);
    for (size_t i = 0; i < n; i++) {
        if (r[i].status != SMEM_POINT_OK)
            continue;   /* skipped past the opt-in ceiling or a size the device refuses */
        double api = metric(&r[i], "clusters_api"), got = metric(&r[i], "clusters_measured");
        cr_assert_eq(r[i].n_trials, 3);
        cr_assert_gt(api, 0, "the API's count, kept from the first trial");
        cr_assert_geq(got, 1, "cluster_size %lld: %.0f clusters measured after pooling 3 trials",
                      (long long)smem_axis_value(r[i].point, "cluster_size"), got);
        cr_assert_eq(metric(&r[i], "clusters_mismatch"), got > api ? got - api : api - got);
        n_clusters++;
    }
    cr_assert_gt(n_clusters, 0, "none of the %zu cluster_occupancy points ran", n);
    smem_results_free(r, n);
    free(r);
}
