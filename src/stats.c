/* Order statistics on a sorted copy; the mean and deviation with Welford's update so that a
 * thousand nanosecond-scale samples lose nothing to cancellation; the MAD from a second sorted
 * array of absolute deviations. */
#define _POSIX_C_SOURCE 200809L
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "smem.h"

double smem_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Quantile p of sorted s[0..n), linear interpolation between closest ranks (Hyndman-Fan type 7). */
static double quantile(const double *s, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    size_t hi = lo + 1 < n ? lo + 1 : lo;

    return s[lo] + (h - (double)lo) * (s[hi] - s[lo]);
}

int smem_stats_compute(const double *x, size_t n, struct smem_stats *s)
{
    double *sorted, mean = 0, m2 = 0;

    memset(s, 0, sizeof(*s));
    if (n == 0)
        return SMEM_EINVAL;
    sorted = malloc(n * sizeof(*sorted));
    if (!sorted)
        return SMEM_ENOMEM;
    memcpy(sorted, x, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x[i] - mean);
    }
    s->count = n;
    s->min = sorted[0];
    s->max = sorted[n - 1];
    s->q1 = quantile(sorted, n, 0.25);
    s->median = quantile(sorted, n, 0.5);
    s->q3 = quantile(sorted, n, 0.75);
    s->mean = mean;
    s->stdev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
    s->noise = n > 1 && mean != 0 ? s->stdev / fabs(mean) : 0;
    for (size_t i = 0; i < n; i++)
        sorted[i] = fabs(x[i] - s->median);
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    s->mad = quantile(sorted, n, 0.5);
    s->robust_spread = n > 1 && s->median != 0 ? SMEM_MAD_TO_SIGMA * s->mad / fabs(s->median) : 0;
    free(sorted);
    return SMEM_OK;
}

double smem_stats_median(const double *x, size_t n)
{
    struct smem_stats s;

    return smem_stats_compute(x, n, &s) == SMEM_OK ? s.median : 0;
}

bool smem_stats_should_stop(const struct smem_stop_rule *r, size_t n, double spread, double elapsed_s)
{
    if (n >= r->max_samples)
        return true;
    if (n < r->min_samples)
        return false;
    if (r->fixed)
        return true;
    return spread < r->max_noise || elapsed_s >= r->timeout_s;
}

bool smem_sampling_done(const struct smem_stop_rule *r, const struct smem_sampling_state *s)
{
    if (s->n == 0 && s->n_throttled > 0)
        return smem_stats_should_stop(r, s->n_throttled, s->cycle_spread, s->elapsed_s);
    if (smem_stats_should_stop(r, s->n, s->spread, s->elapsed_s))
        return true;
    return s->n < r->min_samples && s->n + s->n_throttled >= r->min_samples && s->elapsed_s >= r->timeout_s;
}

size_t smem_batch_size(double launch_ns, double target_ns, size_t max)
{
    double n;

    if (!(launch_ns > 0) || !isfinite(launch_ns) || max < 1)
        return 1;
    n = ceil(target_ns / launch_ns);
    if (!(n >= 1))
        return 1;
    return n >= (double)max ? max : (size_t)n;
}

bool smem_clock_throttled(double clock_hz, double ref_hz)
{
    return clock_hz > 0 && ref_hz > 0 && clock_hz < SMEM_THROTTLE_FRACTION * ref_hz;
}

struct smem_stop_rule smem_trial_rule(const struct smem_stop_rule *r, size_t trials)
{
    struct smem_stop_rule t = *r;

    if (trials <= 1)
        return t;
    t.min_samples = (r->min_samples + trials - 1) / trials;
    if (t.min_samples < 3)
        t.min_samples = 3;
    t.max_samples = (r->max_samples + trials - 1) / trials;
    if (t.max_samples < t.min_samples)
        t.max_samples = t.min_samples;
    t.timeout_s = r->timeout_s / (double)trials;
    return t;
}

double smem_trials_range(const double *medians, size_t n)
{
    double lo, hi, mid;

    if (n < 2)
        return 0;
    lo = hi = medians[0];
    for (size_t i = 1; i < n; i++) {
        lo = medians[i] < lo ? medians[i] : lo;
        hi = medians[i] > hi ? medians[i] : hi;
    }
    mid = smem_stats_median(medians, n);
    return mid > 0 ? (hi - lo) / mid : 0;
}

bool smem_trials_disagree(const double *medians, const double *spreads, size_t n)
{
    double widest = 0, allowed;

    for (size_t i = 0; i < n; i++)
        widest = spreads[i] > widest ? spreads[i] : widest;
    allowed = SMEM_TRIALS_NOISE_FACTOR * widest > SMEM_TRIALS_AGREE ? SMEM_TRIALS_NOISE_FACTOR * widest
                                                                     : SMEM_TRIALS_AGREE;
    return smem_trials_range(medians, n) > allowed;
}

void smem_shuffle(size_t *idx, size_t n, uint64_t seed)
{
    uint64_t state = seed;

    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(smem_rng_next(&state) % i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}
