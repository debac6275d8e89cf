/* Runs a plan: each point through plan, attributes, occupancy, verification, timing and metrics
 * (measure mode), or through the occupancy calculator alone (predict mode). */
#ifndef SMEM_RUNNER_H
#define SMEM_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "device.h"
#include "model.h"
#include "stats.h"

struct smem_run_settings {
    struct smem_stop_rule rule;
    uint64_t seed;
    bool no_optin;
    bool check;                 /* verify only: no timing, no metrics */
    bool cold;                  /* flush L2 before every sample */
    bool progress;              /* a progress bar on stderr */
    size_t trials;              /* trials per point (src/stats.h, Trials); 1 under --check */
    uint64_t order_seed;        /* seeds the shuffled order of the later trials */
    /* --counters: the device's session and what it collects (NULL: none), set per device */
    struct smem_counters *counters_session;
    struct smem_counters_run *counters;
    /* SMEM_COUNTERS_EXTERNAL: the counter phase launches each point once between cudaProfilerStart
     * and cudaProfilerStop for an outside profiler (ncu --profile-from-start off), collecting none */
    bool counters_external;
};

/* Measures points[0..n) on dev into results (caller-allocated, n entries). */
int smem_run_measure(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s, struct smem_result *results,
                     struct smem_run_outcome *out);

/* Measures the plan on every run's device at once, one host thread and stream each; the progress
 * bar only with a single device (one bar cannot show several). */
int smem_run_devices(struct smem_device_run *runs, int n_runs, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s);

/* Predicts points[0..n) on a model: occupancy only (s: no_optin). Stops at a signal; out->done
 * says how many were predicted. */
int smem_run_predict(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s, struct smem_result *results, struct smem_run_outcome *out);

/* Fills derived metrics that compare points with each other (a benchmark's baseline). */
void smem_run_derive(struct smem_result *results, size_t n);

/* Marks r failed in step what ("setup", "launch", ...). Its reason is the case's own words (own:
 * a cuBLAS status, a setup message) when it has any, else the last CUDA error (cuda) for a CUDA
 * status, else the status itself; a reason already recorded stays. */
void smem_point_fail(struct smem_result *r, int rc, const char *what, const char *own, const char *cuda);

#endif
