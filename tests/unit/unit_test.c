/* The helpers the unit files of the benchmarks' plans share: a point planned on a device, a sweep
 * predicted on a model. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpus.h"
#include "runner.h"
#include "sweep.h"
#include "unit_test.h"

/* Plans the point of bench with values (in its axis order) on dev; the status, the plan and the reason. */
int plan(const char *bench, const int64_t *v, const struct smem_device *dev, struct smem_plan *p, char *why)
{
    struct smem_point pt = { .bench = smem_bench_find(bench) };

    cr_assert_not_null(pt.bench, "benchmark %s is registered", bench);
    memcpy(pt.values, v, pt.bench->n_axes * sizeof(*v));
    memset(p, 0, sizeof(*p));
    p->carveout_pct = -1;
    why[0] = '\0';
    return pt.bench->plan(&pt, dev, p, why, 256);
}

/* Predicts the points of a sweep on a model; the results (n of them), points kept in *pts. */
struct smem_result *predict(const char *sweep, const char *model, struct smem_point **pts, size_t *n)
{
    const char *sw[] = { sweep };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1, .predict = true };
    const struct smem_device *dev = &smem_gpu_find(model)->dev;
    struct smem_run_settings s = { .no_optin = false };
    struct smem_run_outcome out;
    struct smem_result *r;

    cr_assert_eq(smem_sweep_expand(&req, pts, n, dev), 0, "%s predicts on %s", sweep, model);
    cr_assert_gt(*n, 0);
    r = calloc(*n, sizeof(*r));
    cr_assert_eq(smem_run_predict(dev, *pts, *n, &s, r, &out), 0);
    cr_assert_eq(out.done, *n);
    return r;
}
