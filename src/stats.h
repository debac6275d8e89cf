/* Statistics of a point's samples, the adaptive stopping rule, and the two decisions the timing
 * loop makes per point that need no GPU to test: how many launches make one sample, and whether a
 * sample ran at a throttled clock. */
#ifndef SMEM_STATS_H
#define SMEM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The normal-consistency constant of the MAD: 1.4826 x MAD estimates the standard deviation of
 * normally distributed samples (1 / the 0.75 quantile of the standard normal). */
#define SMEM_MAD_TO_SIGMA 1.4826

struct smem_stats {
    size_t count;
    double min, q1, median, q3, max;
    double mean, stdev;
    double noise;           /* stdev / mean (0 with fewer than two samples) */
    double mad;             /* median absolute deviation from the median */
    double robust_spread;   /* 1.4826 x MAD / median: a relative spread that outliers do not inflate;
                             * what --max-noise and the comparison gate use (0 with fewer than two) */
};

/* Statistics of x[0..n); x is not modified. Quartiles interpolate linearly between order statistics. */
int smem_stats_compute(const double *x, size_t n, struct smem_stats *s);

/* Median of x[0..n), 0 when n is 0. */
double smem_stats_median(const double *x, size_t n);

struct smem_stop_rule {
    size_t min_samples;
    size_t max_samples;
    double max_noise;       /* stop once the robust spread is below this (fraction) */
    double timeout_s;       /* stop after this much time spent sampling */
    bool fixed;             /* --quick: exactly min_samples, nothing adaptive */
};

/* CLOCK_MONOTONIC in seconds: the host wall time of a point's phases and of the run. */
double smem_now_s(void);

/* Whether sampling a point should stop after n samples with robust spread spread, elapsed_s spent. */
bool smem_stats_should_stop(const struct smem_stop_rule *r, size_t n, double spread, double elapsed_s);

/* What a point's sampling has so far: n samples at the run's clock (robust spread spread of their
 * times), n_throttled set aside below SMEM_THROTTLE_FRACTION of it (cycle_spread: the robust spread
 * of their kernel cycle counts), elapsed_s spent sampling. */
struct smem_sampling_state {
    size_t n, n_throttled;
    double spread, cycle_spread, elapsed_s;
};

/* Whether sampling should stop: the rule on the samples at the run's clock; throttled samples count
 * toward the timeout. When every sample so far was throttled, the GPU holds this kernel below the
 * run's clock (on the H200 the wgmma points under a power limit: 1600-1777 MHz for a whole second
 * on one unit, results/gate/session2_20261201/) and waiting for an unthrottled sample only runs to
 * the timeout; the rule is then applied to the throttled samples' cycle counts, which settle where
 * their times follow the clock (the record says the statistics are the throttled samples'). */
bool smem_sampling_done(const struct smem_stop_rule *r, const struct smem_sampling_state *s);

/* A sample lasts at least this long. On the H200 one launch per sample carried 0.7-1.5 us of jitter
 * (1.4826 x MAD; 2.2 us at most) whatever the kernel's length, so a 20 us kernel scattered 6 % and a
 * 130 us one 0.8 %; at 1 ms the same jitter is 0.07-0.22 %, under half the default 0.5 % target. */
#define SMEM_BATCH_TARGET_NS 1e6
/* The most launches in one sample: past this a launch is shorter than the host needs to enqueue it
 * and a longer batch would time the host, not the kernel. */
#define SMEM_BATCH_MAX 4096

/* Launches per sample for a launch of launch_ns: the fewest whose sum reaches target_ns, at least 1
 * and at most max; 1 when launch_ns is not a positive number. */
size_t smem_batch_size(double launch_ns, double target_ns, size_t max);

/* A sample whose SM clock is below this fraction of the run's clock ran throttled. */
#define SMEM_THROTTLE_FRACTION 0.9

/* A sample taken while the SM clock was throttled: left out of the statistics, listed. */
struct smem_throttled_sample {
    size_t index;           /* among all samples taken for the point, from 0 */
    double ns;              /* per launch */
    double clock_mhz;
};

/* Trials: each point is measured in several, each a fresh setup, warm-up and sampling, run in a
 * shuffled order across the whole run (Google Benchmark's random interleaving, Kalibera and Jones's
 * replication at the level where the variance is): a point whose setup lands it on one of a few
 * levels shows them between its trials, where within-trial noise cannot. */
#define SMEM_TRIALS_DEFAULT 3
#define SMEM_TRIALS_MAX 100
/* Trials agree while their medians lie within this fraction of each other, or within
 * SMEM_TRIALS_NOISE_FACTOR times their largest within-trial spread where that is wider. */
#define SMEM_TRIALS_AGREE 0.01
#define SMEM_TRIALS_NOISE_FACTOR 4.0

/* The stopping rule of one of trials trials: the samples and the time of the run's rule shared out,
 * never fewer than 3 samples a trial (what the comparison gate needs of each). */
struct smem_stop_rule smem_trial_rule(const struct smem_stop_rule *r, size_t trials);

/* Range of n trial medians over their median (0 under two), and whether it is past what the trials'
 * own spreads (robust, fractions) explain: SMEM_TRIALS_AGREE, or SMEM_TRIALS_NOISE_FACTOR x the
 * largest spread where wider. */
double smem_trials_range(const double *medians, size_t n);
bool smem_trials_disagree(const double *medians, const double *spreads, size_t n);

/* Fisher-Yates shuffle of idx[0..n) by a splitmix64 stream seeded with seed. */
void smem_shuffle(size_t *idx, size_t n, uint64_t seed);

/* Whether a sample measured at clock_hz ran throttled against the run's clock ref_hz; false when
 * either is unknown (0). */
bool smem_clock_throttled(double clock_hz, double ref_hz);

#endif
