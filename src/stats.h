/* Statistics of a point's samples and the adaptive stopping rule. */
#ifndef SMEM_STATS_H
#define SMEM_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct smem_stats {
    size_t count;
    double min, q1, median, q3, max;
    double mean, stdev;
    double noise;   /* relative noise: stdev / mean (0 with fewer than two samples) */
};

/* Statistics of x[0..n); x is not modified. Quartiles interpolate linearly between order statistics. */
int smem_stats_compute(const double *x, size_t n, struct smem_stats *s);

/* Median of x[0..n), 0 when n is 0. */
double smem_stats_median(const double *x, size_t n);

struct smem_stop_rule {
    size_t min_samples;
    size_t max_samples;
    double max_noise;       /* stop once the relative noise is below this (fraction) */
    double timeout_s;       /* stop after this much time spent sampling */
    bool fixed;             /* --quick: exactly min_samples, nothing adaptive */
};

/* Whether sampling a point should stop after n samples with relative noise noise, elapsed_s spent. */
bool smem_stats_should_stop(const struct smem_stop_rule *r, size_t n, double noise, double elapsed_s);

#endif
