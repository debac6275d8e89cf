/* The timing loop: CUDA events around each launch after warm-up, the SM clock of each sample from
 * the kernel's own clock marks, and adaptive stopping (src/stats.h). */
#ifndef SMEM_MEASURE_H
#define SMEM_MEASURE_H

#include <signal.h>
#include <stddef.h>

#include "bench.h"
#include "stats.h"

/* Set by the SIGINT/SIGTERM handler to the signal's number; the loops stop at the next sample. */
extern volatile sig_atomic_t smem_interrupted;

struct smem_measurement {
    double *samples_ns;         /* owned by the caller after success */
    size_t n;
    struct smem_stats stats;
    struct smem_timing median;  /* medians handed to the benchmark's metrics */
};

/* Times c->bench->launch under rule. With cold, L2 is flushed before every sample (outside the
 * timed region). SMEM_EINTR when interrupted (samples so far are kept). */
int smem_measure(struct smem_case *c, const struct smem_stop_rule *rule, bool cold, struct smem_measurement *m);

#endif
