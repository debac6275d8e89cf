/* Named sweeps and their expansion into points: a sweep is a name and a summary, its benchmarks are
 * those whose descriptors name it, each benchmark's axes bring default values, --axis overrides
 * them, and the cartesian product is the plan. */
#ifndef SMEM_SWEEP_H
#define SMEM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

#define SMEM_MAX_AXIS_VALUES 4096
#define SMEM_MAX_POINTS 65536

struct smem_sweep {
    const char *name;
    const char *summary;
    bool every;                 /* every benchmark ("all"); otherwise those whose descriptor names it */
};

extern const struct smem_sweep smem_sweeps[];
extern const size_t smem_n_sweeps;

/* Whether b belongs to sw. */
bool smem_sweep_has(const struct smem_sweep *sw, const struct smem_bench *b);

/* Whether sw runs in predict mode: it has benchmarks and every one is predictable. */
bool smem_sweep_predictable(const struct smem_sweep *sw);

/* Whether predict mode predicts a point of the sweep: a predictable benchmark of it that does not
 * skip every point (what --list marks [also --predict]). */
bool smem_sweep_predicts(const struct smem_sweep *sw);

/* Checks the sweeps against the benchmarks' descriptors: every sweep but an "every" one is named by
 * some benchmark, and every sweep a benchmark names exists. SMEM_EINVAL with the first problem in why. */
int smem_sweep_check(const struct smem_sweep *sweeps, size_t n_sweeps, const struct smem_bench *const *benches,
                     size_t n_benches, char *why, size_t why_len);

/* The names of the sweeps, or only of those predict mode predicts a point of, comma-joined into buf. */
void smem_sweep_names(char *buf, size_t len, bool predictable_only);

/* The sweep of that name, or NULL. */
const struct smem_sweep *smem_sweep_find(const char *name);

/* Parses an axis value list: "1,2,4", "0:100:10" (inclusive, step), "1:1024:*2" (geometric),
 * with optional K/M suffixes (x1024) on every number; combinations by commas. Values are checked
 * against [min, max] of axis. On error prints one line naming option and returns SMEM_EINVAL. */
int smem_sweep_parse_list(const char *text, const struct smem_axis *axis, int64_t *values,
                          size_t max, size_t *n);

struct smem_override {
    const char *name;
    const char *list;
};

struct smem_plan_request {
    const char *const *sweeps;  /* named sweeps, or NULL */
    size_t n_sweeps;
    const char *bench;          /* a single benchmark, or NULL */
    const struct smem_override *overrides;
    size_t n_overrides;
    bool quick;
    bool predict;               /* only benchmarks of predictable sweeps */
};

/* Checks a request without building its plan or touching a device: the benchmarks and sweeps, the
 * axis names, every --axis list and the point count with the static defaults (in *n). Prints one
 * line on bad input: SMEM_EINVAL, or SMEM_ENOMEM. */
int smem_plan_check(const struct smem_plan_request *r, size_t *n);

/* Expands a request into points (allocated; free with free()). Prints one line on bad input.
 * With dev, an axis that is not overridden takes the benchmark's device-specific defaults. */
int smem_sweep_expand(const struct smem_plan_request *r, struct smem_point **points, size_t *n,
                      const struct smem_device *dev);

#endif
