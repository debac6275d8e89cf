/* The timing loop: CUDA events around each sample after warm-up, a sample being a batch of
 * back-to-back launches sized to SMEM_BATCH_TARGET_NS (one launch in cold mode), the SM clock of each
 * sample from the kernel's own clock marks, throttled samples set aside, and adaptive stopping
 * (src/stats.h). */
#ifndef SMEM_MEASURE_H
#define SMEM_MEASURE_H

#include <signal.h>
#include <stddef.h>

#include "bench.h"
#include "stats.h"

/* Set by the SIGINT/SIGTERM handler to the signal's number; the loops stop at the next sample. */
extern volatile sig_atomic_t smem_interrupted;

struct smem_measurement {
    double *samples_ns;         /* per launch; owned by the caller after success */
    size_t n;
    size_t batch;               /* launches per sample */
    bool lead_in;               /* one untimed launch went before each sample's batch */
    struct smem_stats stats;
    struct smem_timing median;  /* medians handed to the benchmark's metrics */
    struct smem_throttled_sample *throttled;    /* owned by the caller after success */
    size_t n_throttled;
    bool throttled_used;        /* every sample was throttled: the statistics are theirs */
    double throttle_below_mhz;  /* SMEM_THROTTLE_FRACTION of the run's clock, 0 if unknown */
    double warmup_s, sampling_s;    /* host wall time of the warm-up (with the batch size) and of sampling */
};

/* A batch size found before: a later trial of a point takes its first trial's. */
struct smem_batch {
    size_t batch;               /* 0: none known */
    bool lead_in;
};

/* Times c->bench->launch under rule. With cold, L2 is flushed before every sample (outside the
 * timed region) and a sample is one launch. With known (NULL or a batch of 0 for none), the warm-up
 * is one untimed batch of known's size instead of the launches that find one. SMEM_EINTR when
 * interrupted (samples so far are kept). */
int smem_measure(struct smem_case *c, const struct smem_stop_rule *rule, bool cold, const struct smem_batch *known,
                 struct smem_measurement *m);

#endif
