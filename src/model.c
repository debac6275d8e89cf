/* The shared model's functions (src/model.h): what reads a result without running or writing it. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "smem.h"
#include "stats.h"

const char *smem_point_status_name(enum smem_point_status s)
{
    switch (s) {
    case SMEM_POINT_OK: return "ok";
    case SMEM_POINT_SKIPPED: return "skipped";
    case SMEM_POINT_FAILED: return "failed";
    case SMEM_POINT_INVALID: return "invalid";
    case SMEM_POINT_PREDICTED: return "predicted";
    }
    return "failed";
}

void smem_point_describe(const struct smem_point *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t a = 0; a < p->bench->n_axes; a++)
        smem_append(buf, len, " ", "%s=%lld", p->bench->axes[a].name, (long long)p->values[a]);
}

const struct smem_metric *smem_result_metric(const struct smem_result *r, const char *name)
{
    for (size_t i = 0; i < r->metrics.n; i++)
        if (!strcmp(r->metrics.m[i].name, name))
            return &r->metrics.m[i];
    return NULL;
}

bool smem_result_trials(const struct smem_result *r, double *range, double *within)
{
    double med[SMEM_TRIALS_MAX], spr[SMEM_TRIALS_MAX];

    *within = 0;
    for (size_t k = 0; k < r->n_trials; k++) {
        med[k] = r->trials[k].median_ns;
        spr[k] = r->trials[k].robust_spread;
        *within = spr[k] > *within ? spr[k] : *within;
    }
    *range = smem_trials_range(med, r->n_trials);
    return smem_trials_disagree(med, spr, r->n_trials);
}

void smem_results_free(struct smem_result *results, size_t n)
{
    for (size_t i = 0; results && i < n; i++) {
        free(results[i].samples_ns);
        free(results[i].throttled);
        free(results[i].trials);
        free(results[i].counters.values);
        results[i].counters.values = NULL;
        results[i].samples_ns = NULL;
        results[i].throttled = NULL;
        results[i].trials = NULL;
    }
}

void smem_run_spread(const struct smem_device_run *runs, int n_runs, size_t n, struct smem_spread *spread)
{
    for (size_t i = 0; i < n; i++) {
        struct smem_spread *sp = &spread[i];

        *sp = (struct smem_spread){ .fastest = -1, .slowest = -1, .fastest_ns = NAN, .slowest_ns = NAN, .pct = NAN };
        for (int d = 0; d < n_runs; d++) {
            const struct smem_result *r = &runs[d].results[i];
            if (i >= runs[d].out.done || r->status != SMEM_POINT_OK)
                continue;
            if (sp->fastest < 0 || r->time_ns.median < sp->fastest_ns) {
                sp->fastest = d;
                sp->fastest_ns = r->time_ns.median;
            }
            if (sp->slowest < 0 || r->time_ns.median > sp->slowest_ns) {
                sp->slowest = d;
                sp->slowest_ns = r->time_ns.median;
            }
            sp->devices++;
        }
        if (sp->devices > 1)
            sp->pct = 100.0 * (sp->slowest_ns / sp->fastest_ns - 1);
    }
}
