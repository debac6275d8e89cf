/* One measured (or predicted, or skipped) point, as the JSON writer and the table read it. */
#ifndef SMEM_RESULT_H
#define SMEM_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "counters.h"
#include "stats.h"

enum smem_point_status {
    SMEM_POINT_OK,
    SMEM_POINT_SKIPPED,     /* cannot run on this device; reason says why */
    SMEM_POINT_FAILED,      /* a CUDA error or a wrong result; reason says which */
    SMEM_POINT_INVALID,     /* a throughput above the physical ceiling: not a result */
    SMEM_POINT_PREDICTED,   /* predict mode: occupancy only */
};

/* Occupancy of one point; -1 (and empty strings) where a value does not exist. */
struct smem_occ_record {
    int api, predicted, measured;       /* blocks per SM */
    int warps_per_sm;                   /* from the API value, or the prediction without a GPU */
    double occupancy_pct;
    char limiter[64];
    int effective_carveout_pct;         /* inferred from measured residency; -1 when unknown */
    /* the per-SM shared-memory configuration, each from its own source; -1 when that source has none */
    long long smem_config_requested;    /* the step the carveout hint asks for */
    long long smem_config_predicted;    /* the driver's choice by the fitted rule (occupancy.h) */
    long long smem_config_inferred_min; /* the smallest step holding the measured residency: a lower bound */
    bool hint_overridden;               /* a carveout hint set, shared-memory-limited, measured != API */
    int measured_sms;                   /* SMs the probe's blocks landed on */
    int probe_regs;                     /* registers per thread of the probe variant */
};

/* Host wall time of a point's phases, in seconds; 0 for a phase the point did not reach. Where a
 * sweep's time goes (README, Where the time goes). */
struct smem_phase_times {
    double setup;       /* plan, attributes, occupancy queries, the benchmark's setup (allocations, fills) */
    double verify;      /* the first launch and the check against the host reference */
    double warmup;      /* warm-up launches and the batch size */
    double sampling;    /* the timed samples, up to the stopping rule */
    double residency;   /* the measured-residency probe */
    double teardown;    /* the benchmark's teardown */
    double counters;    /* the counter passes (--counters), after every point was timed */
};

/* One trial of a point: a fresh setup, warm-up and sampling (src/stats.h, Trials). */
struct smem_trial {
    double median_ns;       /* per launch */
    double robust_spread;   /* within the trial, as time_ns's */
    size_t samples, batch;
    double clock_mhz;       /* median measured SM clock, 0 when not measured */
    size_t order;           /* its place among every trial of the run, from 0 */
    struct smem_timing timing;  /* the medians handed to the benchmark's metrics */
    double *samples_ns;     /* owned until the point's last trial pools them (trials after the first) */
    struct smem_throttled_sample *throttled;    /* owned likewise */
    size_t n_throttled;
    bool throttled_used;
};

struct smem_result {
    const struct smem_point *point;
    enum smem_point_status status;
    char reason[256];
    /* launch */
    unsigned grid, block;
    size_t static_smem, dyn_smem;
    int regs;
    int carveout_requested;             /* -1: driver default */
    bool optin;                         /* the dynamic limit was raised above the default */
    /* time */
    double *samples_ns;                 /* owned; per launch */
    size_t n_samples;
    size_t batch;                       /* launches per sample, 0 when not timed */
    bool lead_in;                       /* an untimed launch went before each sample (src/measure.c) */
    struct smem_throttled_sample *throttled;    /* owned; samples left out for a throttled clock */
    size_t n_throttled;
    bool throttled_used;                /* every sample was throttled: the statistics are theirs */
    double throttle_below_mhz;          /* a sample under this clock counted as throttled, 0 if unknown */
    struct smem_stats time_ns;
    double clock_mhz;                   /* median measured SM clock, 0 when not measured */
    /* the trials: time_ns, raw and the metrics are the first trial's until the last is in, then
     * those of every trial's samples pooled (the clock: the trials' median) */
    struct smem_trial *trials;          /* owned; n_trials of trials_planned done */
    size_t n_trials, trials_planned;
    bool grid_measured;                 /* the full wave counts the measured residency, not the API's */
    struct smem_metrics metrics;
    struct smem_occ_record occ;
    bool verified;
    struct smem_phase_times phase_s;
    struct smem_point_counters counters;    /* --counters: after the point was timed */
    double wall_s;                      /* the whole point, host wall time; 0 in predict mode */
};

#endif
