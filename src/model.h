/* The model every part of the driver shares: what a run produces (src/result.h: one point's result;
 * here: a device's share of a run, how it ended, the spread between devices) and what reads it
 * without running or writing anything (status names, the metric lookup, the point's description,
 * the trials' agreement, the spread).
 *
 * src/ is plan -> run -> write, over this model; tests/scripts/test_layers.py checks it. Each file
 * has one role, and includes only its own role's headers or those of a lower rank, never sideways:
 *   base  (0)  stats, signals, nvml, gpus, occupancy, counters: the statistics, the signal flag, NVML
 *              readings, the built-in GPU models, the occupancy calculator and the hardware counters
 *              (CUPTI); nothing of src above them
 *   model (1)  result.h, model: the result and its vocabulary
 *   plan  (2)  sweep, cubin: the request into points (a user kernel's resources read from its file)
 *   run   (2)  runner, measure, progress, occupancy_gpu, device, device_open, gpc: points on a device
 *   write (2)  report_json, table, atomic_out: the result file and the table
 *   top   (3)  main, cli, kernel_job, libsmembench, list: the command line and the outline of a run */
#ifndef SMEM_MODEL_H
#define SMEM_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "device.h"
#include "result.h"

/* How one device's run ended. */
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
    struct smem_counters_run counters;      /* --counters on this device: what was asked, units, cost */
    struct smem_counters *counters_session; /* NULL: no counters on this device */
};

/* The spread between devices at one point, computed once for the table and the JSON. */
struct smem_spread {
    int devices;                /* devices whose run measured the point */
    int fastest, slowest;       /* their indices in the runs, -1 when none */
    double fastest_ns, slowest_ns;  /* median times */
    double pct;                 /* 100 (slowest / fastest - 1); NAN with fewer than two devices */
};

/* Status name as written to JSON and the table: ok, skipped, failed, invalid, predicted. */
const char *smem_point_status_name(enum smem_point_status s);

/* "axis=value axis=value" of a point, into buf. */
void smem_point_describe(const struct smem_point *p, char *buf, size_t len);

/* The metric of r called name, or NULL. */
const struct smem_metric *smem_result_metric(const struct smem_result *r, const char *name);

/* Whether r's trials disagree (src/stats.h, Trials); range: their medians' range over their median
 * (0 under two), within: the largest within-trial robust spread. */
bool smem_result_trials(const struct smem_result *r, double *range, double *within);

/* Frees what results own. */
void smem_results_free(struct smem_result *results, size_t n);

/* The spread of each of the n points across runs into spread[0..n). */
void smem_run_spread(const struct smem_device_run *runs, int n_runs, size_t n, struct smem_spread *spread);

#endif
