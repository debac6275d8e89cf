/* Statistics and the stopping rule, on samples whose answers are worked out by hand. */
#include <math.h>

#include <criterion/criterion.h>

#include "stats.h"

Test(stats, odd_count_quartiles_mean_and_deviation)
{
    double x[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
    struct smem_stats s;

    cr_assert_eq(smem_stats_compute(x, 9, &s), 0);
    cr_assert_eq(s.count, 9);
    cr_assert_float_eq(s.min, 1, 1e-12);
    cr_assert_float_eq(s.max, 9, 1e-12);
    cr_assert_float_eq(s.median, 5, 1e-12);
    cr_assert_float_eq(s.q1, 3, 1e-12);
    cr_assert_float_eq(s.q3, 7, 1e-12);
    cr_assert_float_eq(s.mean, 5, 1e-12);
    cr_assert_float_eq(s.stdev, sqrt(7.5), 1e-12);   /* sum of squares 60 over n-1 = 8 */
    cr_assert_float_eq(s.noise, sqrt(7.5) / 5, 1e-12);
    cr_assert_float_eq(x[0], 9, 0, "the input must not be reordered");
}

Test(stats, robust_spread_is_the_scaled_mad_over_the_median)
{
    /* median 5; absolute deviations 4 4 3 3 2 2 1 1 0, their median 2; 1.4826 x 2 / 5 */
    double x[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
    struct smem_stats s;

    cr_assert_eq(smem_stats_compute(x, 9, &s), 0);
    cr_assert_float_eq(s.mad, 2, 1e-12);
    cr_assert_float_eq(s.robust_spread, 1.4826 * 2 / 5, 1e-12);
}

Test(stats, one_outlier_does_not_inflate_the_robust_spread)
{
    /* sorted 8 9 10 10 10 10 10 11 12 1000: median 10; deviations 0 0 0 0 0 1 1 2 2 990, median 0.5;
     * robust spread 1.4826 x 0.5 / 10 = 0.07413, where stdev / mean is 313.07 / 109 = 2.872 */
    double x[] = { 10, 11, 9, 10, 10, 12, 8, 10, 10, 1000 };
    struct smem_stats s;

    cr_assert_eq(smem_stats_compute(x, 10, &s), 0);
    cr_assert_float_eq(s.median, 10, 1e-12);
    cr_assert_float_eq(s.mad, 0.5, 1e-12);
    cr_assert_float_eq(s.robust_spread, 0.07413, 1e-12);
    cr_assert_float_eq(s.noise, 2.872, 1e-3);
}

Test(stats, even_count_interpolates)
{
    double x[] = { 4, 1, 3, 2 };
    struct smem_stats s;

    cr_assert_eq(smem_stats_compute(x, 4, &s), 0);
    cr_assert_float_eq(s.median, 2.5, 1e-12);
    cr_assert_float_eq(s.q1, 1.75, 1e-12);
    cr_assert_float_eq(s.q3, 3.25, 1e-12);
}

Test(stats, one_sample_has_no_noise)
{
    double x[] = { 42 };
    struct smem_stats s;

    cr_assert_eq(smem_stats_compute(x, 1, &s), 0);
    cr_assert_float_eq(s.median, 42, 1e-12);
    cr_assert_float_eq(s.noise, 0, 1e-12);
    cr_assert_float_eq(s.stdev, 0, 1e-12);
    cr_assert_float_eq(s.robust_spread, 0, 1e-12);
}

Test(stats, no_samples_is_an_error)
{
    struct smem_stats s;

    cr_assert_lt(smem_stats_compute(NULL, 0, &s), 0);
}

Test(stats, large_offset_keeps_precision)
{
    /* nanosecond samples around a second: naive sum-of-squares would lose the deviation */
    double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
    struct smem_stats s;

    smem_stats_compute(x, 3, &s);
    cr_assert_float_eq(s.stdev, 1, 1e-6);
}

static const struct smem_stop_rule rule = { .min_samples = 10, .max_samples = 100, .max_noise = 0.005, .timeout_s = 1 };

Test(stop, keeps_sampling_below_min_samples)
{
    cr_assert_not(smem_stats_should_stop(&rule, 9, 0.0, 0.1));
}

Test(stop, stops_when_quiet)
{
    /* the rule compares the robust spread the caller passes in, a fraction */
    cr_assert(smem_stats_should_stop(&rule, 10, 0.004, 0.1));
    cr_assert_not(smem_stats_should_stop(&rule, 10, 0.006, 0.1));
}

Test(stop, stops_at_timeout_even_when_noisy)
{
    cr_assert(smem_stats_should_stop(&rule, 12, 0.5, 1.0));
}

Test(stop, stops_at_max_samples)
{
    cr_assert(smem_stats_should_stop(&rule, 100, 0.5, 0.0));
}

Test(stop, fixed_count_for_quick)
{
    struct smem_stop_rule q = rule;

    q.fixed = true;
    cr_assert_not(smem_stats_should_stop(&q, 9, 0.5, 0.0));
    cr_assert(smem_stats_should_stop(&q, 10, 0.5, 0.0));
}

/* A point whose every sample ran below the throttle threshold (a power-limited kernel) stops on its
 * cycle counts' spread, not at the timeout; a point with samples at the run's clock is judged on
 * them, and throttled samples only count toward the timeout. */
Test(stop, every_sample_throttled_stops_on_the_cycle_spread)
{
    struct smem_sampling_state s = { .n = 0, .n_throttled = 10, .spread = 0, .cycle_spread = 0.003, .elapsed_s = 0.01 };
    struct smem_stop_rule q = rule;

    cr_assert(smem_sampling_done(&rule, &s));
    s.cycle_spread = 0.02;
    cr_assert_not(smem_sampling_done(&rule, &s), "cycles still scattered, time left");
    s.elapsed_s = 1.0;
    cr_assert(smem_sampling_done(&rule, &s), "the timeout still ends it");
    s.elapsed_s = 0.01;
    s.n_throttled = 9;
    s.cycle_spread = 0.001;
    cr_assert_not(smem_sampling_done(&rule, &s), "fewer than min_samples");
    q.fixed = true;
    s.n_throttled = 10;
    s.cycle_spread = 0.5;
    cr_assert(smem_sampling_done(&q, &s), "--quick: the fixed count, throttled or not");
}

Test(stop, throttled_samples_beside_clocked_ones_count_only_toward_the_timeout)
{
    struct smem_sampling_state s = { .n = 5, .n_throttled = 20, .spread = 0.001, .cycle_spread = 0, .elapsed_s = 0.1 };

    cr_assert_not(smem_sampling_done(&rule, &s), "5 clocked samples are fewer than min_samples");
    s.elapsed_s = 1.0;
    cr_assert(smem_sampling_done(&rule, &s), "at the timeout with enough samples taken in all");
    s = (struct smem_sampling_state){ .n = 12, .n_throttled = 3, .spread = 0.004, .elapsed_s = 0.1 };
    cr_assert(smem_sampling_done(&rule, &s), "quiet clocked samples");
    s.spread = 0.006;
    cr_assert_not(smem_sampling_done(&rule, &s), "noisy clocked samples before the timeout");
}
