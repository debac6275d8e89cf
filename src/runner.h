/* Runs a plan: each point through plan, attributes, occupancy, verification, timing and metrics
 * (measure mode), or through the occupancy calculator alone (predict mode). */
#ifndef SMEM_RUNNER_H
#define SMEM_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "result.h"
#include "stats.h"
#include "sweep.h"

struct smem_run_settings {
    struct smem_stop_rule rule;
    uint64_t seed;
    bool no_optin;
    bool check;                 /* verify only: no timing, no metrics */
    bool cold;                  /* flush L2 before every sample */
    bool progress;              /* a progress bar on stderr */
    size_t trials;              /* trials per point (src/stats.h, Trials); 1 under --check */
    uint64_t order_seed;        /* seeds the shuffled order of the later trials */
};

struct smem_run_outcome {
    size_t done;                /* results[0..done) are complete */
    bool sticky;                /* a sticky CUDA error ended the run */
    char sticky_reason[512];
    int signal;                 /* the signal that interrupted the run, or 0 */
};

/* One device's share of a run: its description, its results (one per point of the plan, out.done
 * of them complete) and how its run ended. */
struct smem_device_run {
    struct smem_device dev;
    struct smem_result *results;
    struct smem_run_outcome out;
};

/* The spread between devices at one point, computed once for the table and the JSON. */
struct smem_spread {
    int devices;                /* devices whose run measured the point */
    int fastest, slowest;       /* their indices in the runs, -1 when none */
    double fastest_ns, slowest_ns;  /* median times */
    double pct;                 /* 100 (slowest / fastest - 1); NAN with fewer than two devices */
};

/* Measures points[0..n) on dev into results (caller-allocated, n entries). */
int smem_run_measure(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s, struct smem_result *results,
                     struct smem_run_outcome *out);

/* Measures the plan on every run's device at once, one host thread and stream each; the progress
 * bar only with a single device (one bar cannot show several). */
int smem_run_devices(struct smem_device_run *runs, int n_runs, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s);

/* The spread of each of the n points across runs into spread[0..n). */
void smem_run_spread(const struct smem_device_run *runs, int n_runs, size_t n, struct smem_spread *spread);

/* Predicts points[0..n) on a model: occupancy only (s: no_optin). Stops at a signal; out->done
 * says how many were predicted. */
int smem_run_predict(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s, struct smem_result *results, struct smem_run_outcome *out);

/* Blocks of plan p resident per SM of d by the occupancy calculator (what device_defaults asks), or
 * a negative code when the calculator rejects it. */
int smem_run_blocks_per_sm(const struct smem_device *d, const struct smem_plan *p);

/* Fills derived metrics that compare points with each other (a benchmark's baseline). */
void smem_run_derive(struct smem_result *results, size_t n);

/* Marks r failed in step what ("setup", "launch", ...). Its reason is the case's own words (own:
 * a cuBLAS status, a setup message) when it has any, else the last CUDA error (cuda) for a CUDA
 * status, else the status itself; a reason already recorded stays. */
void smem_point_fail(struct smem_result *r, int rc, const char *what, const char *own, const char *cuda);

/* Frees what results own. */
void smem_results_free(struct smem_result *results, size_t n);

/* Whether r's trials disagree (src/stats.h, Trials); range: their medians' range over their median
 * (0 under two), within: the largest within-trial robust spread. */
bool smem_result_trials(const struct smem_result *r, double *range, double *within);

/* The metric of r called name, or NULL. */
const struct smem_metric *smem_result_metric(const struct smem_result *r, const char *name);

#endif
