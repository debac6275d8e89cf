/* The per-point pipeline. A point that cannot run is skipped with its reason; a CUDA error fails
 * only its point unless it is sticky, which ends the run with everything before it kept. */
#include "runner.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "progress.h"
#include "signals.h"
#include "smem.h"

#if SMEM_HAVE_CUDA
#include <cuda_profiler_api.h>

#include "clock_launch.h"
#include "common.h"     /* smem_gpu_inputs_*: the inputs kept across points, the run's */
#include "cuda_status.h"
#include "measure.h"
#endif

static void result_init(struct smem_result *r, const struct smem_point *pt)
{
    memset(r, 0, sizeof(*r));
    r->point = pt;
    r->regs = -1;
    r->carveout_requested = -1;
    r->occ.api = r->occ.predicted = r->occ.measured = -1;
    r->occ.warps_per_sm = -1;
    r->occ.effective_carveout_pct = -1;
    r->occ.smem_config_requested = r->occ.smem_config_predicted = r->occ.smem_config_inferred_min = -1;
    r->occ.measured_sms = -1;
    r->occ.probe_regs = -1;
}

static void result_plan(struct smem_result *r, const struct smem_plan *p)
{
    r->block = p->block;
    r->dyn_smem = p->dyn_smem;
    r->static_smem = p->static_smem;
    r->regs = p->block ? p->regs : -1;   /* a library call: no kernel of ours, no register count */
    r->carveout_requested = p->carveout_pct;
    r->optin = p->optin;
}

/* blocks_per_sm: the API's residency on a GPU, the calculator's on a model. */
static void record_prediction(const struct smem_device *d, struct smem_result *r, const struct smem_prediction *pr,
                              int blocks_per_sm)
{
    struct smem_config_query q = { .block = (int)r->block, .smem_bytes = (int64_t)(r->static_smem + r->dyn_smem),
                                   .carveout_pct = r->carveout_requested, .blocks_per_sm = blocks_per_sm,
                                   .blocks_without_smem = pr->blocks_without_smem };

    r->occ.predicted = pr->blocks_per_sm;
    r->occ.warps_per_sm = pr->warps_per_sm;
    r->occ.occupancy_pct = pr->occupancy_pct;
    smem_fmt(r->occ.limiter, sizeof(r->occ.limiter), "%s", pr->limiter);
    r->occ.smem_config_requested = smem_occupancy_config_requested(d, r->carveout_requested);
    r->occ.smem_config_predicted = smem_occupancy_config_driver(d, &q);
}

/* Whether b needs hardware dev lacks (b->min_cc); the reason in why. */
static bool lacks_feature(const struct smem_bench *b, const struct smem_device *dev, char *why, size_t len)
{
    if (!b->min_cc || dev->cc_major * 10 + dev->cc_minor >= b->min_cc)
        return false;
    smem_fmt(why, len, "needs compute capability %d.%d or later (%s); %s is %d.%d", b->min_cc / 10, b->min_cc % 10,
             b->min_cc_feature ? b->min_cc_feature : "its hardware", dev->name, dev->cc_major, dev->cc_minor);
    return true;
}

int smem_run_predict(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s, struct smem_result *results, struct smem_run_outcome *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        struct smem_result *r = &results[i];
        const struct smem_bench *b = points[i].bench;
        struct smem_plan p = { .carveout_pct = -1 };
        struct smem_prediction pr;
        struct smem_func f;

        if (smem_test_hooks.point_delay_ms) {
            if (!i && smem_test_hooks.announce)
                fputs("smembench-test: sweep\n", stderr);
            smem_test_sleep(smem_test_hooks.point_delay_ms);
        }
        if (smem_interrupted) {
            out->signal = smem_interrupted;
            break;
        }
        out->done = i + 1;   /* nothing below waits: a prediction is never left half made */
        result_init(r, &points[i]);
        if (lacks_feature(b, dev, r->reason, sizeof(r->reason)) ||
            b->plan(&points[i], dev, &p, r->reason, sizeof(r->reason)) == SMEM_ESKIP) {
            r->status = SMEM_POINT_SKIPPED;
            continue;
        }
        result_plan(r, &p);
        if (!p.block) {
            r->status = SMEM_POINT_SKIPPED;
            smem_fmt(r->reason, sizeof(r->reason), "a library call (cuBLAS, cudaMemcpy) picks its own kernels: nothing to predict");
            continue;
        }
        if (s->no_optin && (int64_t)(p.dyn_smem + p.static_smem) > dev->smem_per_block) {
            /* as the GPU would: without the opt-in, the launch is refused */
            r->status = SMEM_POINT_SKIPPED;
            smem_fmt(r->reason, sizeof(r->reason), "the launch would be refused: %lld bytes of shared memory per block "
                     "need the opt-in above %lld, and --no-optin was given",
                     (long long)(p.dyn_smem + p.static_smem), (long long)dev->smem_per_block);
            continue;
        }
        smem_occupancy_plan_func(dev, &p, &f);
        if (smem_occupancy_predict(dev, &f, (int)p.block, p.dyn_smem, p.carveout_pct, &pr)) {
            r->status = SMEM_POINT_SKIPPED;
            smem_fmt(r->reason, sizeof(r->reason), "the occupancy calculator rejects this configuration on %s", dev->name);
            continue;
        }
        record_prediction(dev, r, &pr, pr.blocks_per_sm);
        r->status = SMEM_POINT_PREDICTED;
        if (b->model_metrics)
            b->model_metrics(&points[i], &r->metrics);   /* what the model says with no GPU */
        if (pr.blocks_per_sm == 0) {
            r->status = SMEM_POINT_SKIPPED;
            smem_fmt(r->reason, sizeof(r->reason), "no block can be resident: %lld bytes of shared memory per block, %s allows %lld",
                     (long long)pr.smem_per_block_bytes, dev->name,
                     (long long)(dev->smem_per_block_optin + dev->reserved_smem_per_block));
        }
    }
    return SMEM_OK;
}

/* Whether o is r's baseline point under bl. */
static bool is_baseline(const struct smem_result *r, const struct smem_result *o, const struct smem_baseline *bl,
                        const struct smem_bench *want)
{
    const struct smem_bench *b = r->point->bench, *ob = o->point->bench;

    if (ob != want || o->status != SMEM_POINT_OK)
        return false;
    if (bl->axis) {
        int a = smem_bench_axis(ob, bl->axis);
        if (a < 0 || o->point->values[a] != bl->value)
            return false;
    }
    for (size_t a = 0; a < b->n_axes; a++) {
        int oa = smem_bench_axis(ob, b->axes[a].name);
        if (oa >= 0 && (!bl->axis || strcmp(b->axes[a].name, bl->axis)) && o->point->values[oa] != r->point->values[a])
            return false;
    }
    return true;
}

void smem_run_derive(struct smem_result *results, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct smem_result *r = &results[i];
        const struct smem_baseline *bl = r->point->bench->baseline;
        const struct smem_bench *want;
        const struct smem_metric *mine, *theirs;

        if (!bl || r->status != SMEM_POINT_OK || !(mine = smem_result_metric(r, bl->metric)) || mine->value <= 0)
            continue;
        want = bl->bench ? smem_bench_find(bl->bench) : r->point->bench;
        for (size_t k = 0; k < n; k++) {
            if (!is_baseline(r, &results[k], bl, want) || !(theirs = smem_result_metric(&results[k], bl->metric)) ||
                theirs->value <= 0)
                continue;
            smem_metrics_add(&r->metrics, bl->derived, bl->unit,
                             bl->scale * (bl->this_over_baseline ? mine->value / theirs->value
                                                                 : theirs->value / mine->value), 0, bl->better);
            break;
        }
    }
}

void smem_point_fail(struct smem_result *r, int rc, const char *what, const char *own, const char *cuda)
{
    r->status = SMEM_POINT_FAILED;
    if (r->reason[0])
        return;
    smem_fmt(r->reason, sizeof(r->reason), "%s: %s", what,
             own && own[0] ? own
             : (rc == SMEM_ECUDA || rc == SMEM_ESTICKY) && cuda && cuda[0] ? cuda
             : rc == SMEM_ENOMEM ? "out of host memory" : "failed");
}

/* One device's share of a several-device run: the whole plan, on its own host thread and stream. */
struct worker {
    struct smem_device_run *run;
    const struct smem_point *points;
    size_t n;
    struct smem_run_settings settings;
    int rc;
};

static void *work(void *arg)
{
    struct worker *w = arg;

    w->rc = smem_run_measure(&w->run->dev, w->points, w->n, &w->settings, w->run->results, &w->run->out);
    return NULL;
}

int smem_run_devices(struct smem_device_run *runs, int n_runs, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s)
{
    struct worker *w = calloc((size_t)n_runs, sizeof(*w));
    pthread_t *t = calloc((size_t)n_runs, sizeof(*t));
    int rc = SMEM_OK;

    if (!w || !t) {
        rc = SMEM_ENOMEM;
        goto out;
    }
    for (int d = 0; d < n_runs; d++) {
        w[d] = (struct worker){ .run = &runs[d], .points = points, .n = n, .settings = *s };
        w[d].settings.counters_session = runs[d].counters_session;
        w[d].settings.counters = &runs[d].counters;
        if (n_runs > 1)
            w[d].settings.progress = false;   /* one bar cannot show several devices */
        if (pthread_create(&t[d], NULL, work, &w[d])) {
            smem_error("cannot start a thread for device %d", runs[d].dev.ordinal);
            for (int k = 0; k < d; k++)
                pthread_join(t[k], NULL);
            rc = SMEM_ENOMEM;
            goto out;
        }
    }
    for (int d = 0; d < n_runs; d++) {
        pthread_join(t[d], NULL);
        if (w[d].rc)
            rc = w[d].rc;
    }
out:
    free(w);
    free(t);
    return rc;
}

#if SMEM_HAVE_CUDA

/* Smallest shared-memory configuration of d that holds need bytes, in percent of the SM's maximum. */
static int carveout_pct_for(const struct smem_device *d, int64_t need)
{
    int kib[32];
    int n = smem_occupancy_smem_configs(d->cc_major, d->cc_minor, kib, 32);

    for (int i = 0; i < n; i++)
        if ((int64_t)kib[i] * 1024 >= need)
            return (int)ceil(100.0 * kib[i] * 1024 / (double)d->smem_per_sm);
    return -1;
}

static int set_attributes(const struct smem_device *d, const void *fn, const struct smem_plan *p,
                          bool no_optin, size_t static_smem)
{
    int rc = SMEM_OK;
    int dyn_limit = (int)(d->smem_per_block - (int64_t)static_smem);

    SMEM_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         p->carveout_pct < 0 ? cudaSharedmemCarveoutDefault : p->carveout_pct));
    /* step one of the opt-in: raise the function's dynamic limit; step two is the launch's size */
    if (p->optin && !no_optin && (int64_t)p->dyn_smem > dyn_limit)
        dyn_limit = (int)p->dyn_smem;
    SMEM_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_limit));
    return SMEM_OK;
fail:
    return rc;
}

static int fail_point(struct smem_result *r, int rc, const struct smem_case *c, const char *what)
{
    smem_point_fail(r, rc, what, c->reason, smem_cuda_last_error());
    return rc;
}

/* Checks every metric against its physical ceiling: a value above it is not a result. */
static void physics_check(struct smem_result *r)
{
    for (size_t i = 0; i < r->metrics.n; i++) {
        const struct smem_metric *m = &r->metrics.m[i];
        if (m->ceiling > 0 && m->value > m->ceiling) {
            r->status = SMEM_POINT_INVALID;
            smem_fmt(r->reason, sizeof(r->reason),
                     "%s %.2f %s exceeds the physical ceiling %.2f: the kernel lost work (loads removed or hoisted)",
                     m->name, m->value, m->unit, m->ceiling);
            return;
        }
    }
}

/* The measured residency, probed before the point is set up: the probe's blocks have the kernel's
 * threads, shared memory, carveout and at least its registers. */
static int probe_residency(const struct smem_device *d, const struct smem_plan *plan, const struct smem_func *f,
                           const struct smem_prediction *pr, struct smem_result *r)
{
    char why[256] = "";
    struct smem_residency res;
    double t = smem_now_s();
    int rc = smem_occupancy_measure(d, (int)plan->block, f->static_smem + plan->dyn_smem, plan->carveout_pct,
                                    f->regs, &res, why, sizeof(why));

    r->phase_s.residency += smem_now_s() - t;
    r->occ.measured = res.blocks_per_sm;
    r->occ.measured_sms = res.sms_used;
    r->occ.probe_regs = res.probe_regs;
    if (rc == SMEM_ESTICKY)
        return rc;
    /* overridden only where there was a hint to override: a carveout was asked for and the residency
     * is set by shared memory (so it follows the configuration), yet the probe's differs from the
     * API's; a register-limited kernel without a hint (swizzle_ldmatrix's 6/6/5) is not */
    if (r->occ.measured >= 0 && r->occ.api >= 0)
        r->occ.hint_overridden = plan->carveout_pct >= 0 && strstr(r->occ.limiter, "shared_memory") &&
                                 r->occ.measured != r->occ.api;
    if (r->occ.measured > 0 && strstr(r->occ.limiter, "shared_memory") && pr->smem_per_block_bytes > 0)
        r->occ.effective_carveout_pct = carveout_pct_for(d, (int64_t)r->occ.measured * pr->smem_per_block_bytes);
    if (r->occ.measured > 0 && pr->smem_per_block_bytes > 0)
        r->occ.smem_config_inferred_min =
            smem_occupancy_config_holding(d, (double)r->occ.measured * (double)pr->smem_per_block_bytes);
    return SMEM_OK;
}

/* The point's plan, without the GPU: the hardware it needs, its geometry (under --check the short
 * work), recorded on the first trial. SMEM_ESKIP with the reason for a point that cannot run. */
static int plan_point(const struct smem_device *d, const struct smem_point *pt, const struct smem_run_settings *s,
                      struct smem_plan *plan, struct smem_result *r, bool first)
{
    const struct smem_bench *b = pt->bench;

    if (lacks_feature(b, d, r->reason, sizeof(r->reason)) ||
        b->plan(pt, d, plan, r->reason, sizeof(r->reason)) == SMEM_ESKIP)
        return SMEM_ESKIP;
    if (s->check && b->check_work)
        plan->work = b->check_work;
    if (first)
        result_plan(r, plan);
    return SMEM_OK;
}

/* The kernel as compiled against the plan (code for the device's architecture, its static shared
 * memory within the opt-in ceiling), then its attributes set and, for a cluster plan, the clusters
 * resident at once. */
static int set_kernel(const struct smem_device *d, const struct smem_run_settings *s, struct smem_case *c,
                      const struct smem_plan *plan, const void *fn, struct smem_func *f, struct smem_result *r)
{
    const struct smem_bench *b = c->bench;
    int rc;

    if ((rc = smem_occupancy_func(fn, f)))
        return fail_point(r, rc, c, "reading the kernel's attributes");
    if (b->min_cc && f->ptx_version && f->ptx_version < b->min_cc) {
        /* the device has the hardware, this binary's code for it does not (compute_80 PTX on a 9.0) */
        smem_fmt(r->reason, sizeof(r->reason), "needs compute capability %d.%d code (%s); this binary's kernel was "
                 "compiled from compute_%d PTX: build with -Dgpu_arch=all or for this device", b->min_cc / 10,
                 b->min_cc % 10, b->min_cc_feature ? b->min_cc_feature : "its hardware", f->ptx_version);
        return SMEM_ESKIP;
    }
    if ((int64_t)(plan->dyn_smem + f->static_smem) > d->smem_per_block_optin) {
        /* the compiled kernel's own static shared memory (barriers, say) is more than the plan assumed */
        smem_fmt(r->reason, sizeof(r->reason), "%zu dynamic and %zu static bytes of shared memory exceed the opt-in "
                 "ceiling of %lld bytes per block on %s", plan->dyn_smem, f->static_smem,
                 (long long)d->smem_per_block_optin, d->name);
        return SMEM_ESKIP;
    }
    if ((rc = set_attributes(d, fn, plan, s->no_optin, f->static_smem)))
        return fail_point(r, rc, c, "setting the kernel's attributes");
    if (plan->cluster) {
        rc = smem_occupancy_clusters(fn, plan->cluster, plan->block, plan->dyn_smem, &c->clusters, r->reason,
                                     sizeof(r->reason));
        if (rc == SMEM_ESKIP)
            return rc;
        if (rc)
            return fail_point(r, rc, c, "cluster occupancy");
    }
    /* under --check, two clusters: the check is of what the kernel computes, and a sanitizer
     * instruments every shared-memory access of every thread (racecheck took minutes over the full
     * waves of 1024-thread blocks of the cluster sweep) */
    if (s->check && plan->cluster && !plan->grid && c->clusters > 2)
        c->clusters = 2;
    return SMEM_OK;
}

/* The first trial's occupancy, with the attributes set: the kernel's resources, the calculator's
 * blocks per SM and the model's prediction, the residency probe's measured count, and from them
 * the grid (a full wave of what is resident, as measured where the probe saw another count). */
static int measure_occupancy(const struct smem_device *d, const struct smem_run_settings *s, struct smem_case *c,
                             const struct smem_plan *plan, const void *fn, struct smem_result *r)
{
    struct smem_func f;
    struct smem_prediction pr;
    int rc, blocks;

    memset(&f, 0, sizeof(f));
    memset(&pr, 0, sizeof(pr));
    if ((rc = smem_occupancy_func(fn, &f)))
        return fail_point(r, rc, c, "reading the kernel's attributes");
    r->regs = f.regs;
    r->static_smem = f.static_smem;
    r->optin = (int64_t)f.max_dyn_smem > d->smem_per_block - (int64_t)f.static_smem;
    smem_occupancy_api(fn, (int)plan->block, plan->dyn_smem, &r->occ.api);
    if (!smem_occupancy_predict(d, &f, (int)plan->block, plan->dyn_smem, plan->carveout_pct, &pr))
        record_prediction(d, r, &pr, r->occ.api);
    if (r->occ.api >= 0) {
        r->occ.warps_per_sm = r->occ.api * (int)((plan->block + 31) / 32);
        r->occ.occupancy_pct = 100.0 * r->occ.warps_per_sm / (d->max_threads_per_sm / d->warp_size);
    }
    /* --check times nothing, and a sanitizer would instrument the probe too */
    if (!s->check && (rc = probe_residency(d, plan, &f, &pr, r)))
        return fail_point(r, rc, c, "the residency probe");
    blocks = r->occ.api > 0 ? r->occ.api : 1;
    if (!plan->grid && !plan->cluster && r->occ.measured > 0 && r->occ.measured != blocks) {
        blocks = r->occ.measured;
        r->grid_measured = true;
    }
    c->grid = plan->grid      ? plan->grid
              : plan->cluster ? (unsigned)c->clusters * plan->cluster
                              : (unsigned)d->sm_count * (unsigned)blocks;
    r->grid = c->grid;
    return SMEM_OK;
}

/* Everything before a trial's setup: the plan, the kernel's attributes (set again for every trial:
 * another point may have set the same function's since), occupancy and the grid. The first trial
 * records the occupancy and probes the residency; a full wave counts the blocks the probe saw
 * resident where it saw any (the API can count more than the hardware holds: a grid of its count
 * then ends in a partial wave whose blocks land differently from launch to launch), and the later
 * trials launch the first's grid. SMEM_ESKIP with the reason in r, a negative code after
 * fail_point, or SMEM_OK. */
static int prepare(const struct smem_device *d, const struct smem_point *pt, const struct smem_run_settings *s,
                   struct smem_case *c, struct smem_plan *plan, struct smem_result *r, bool first)
{
    struct smem_func f;
    const void *fn;
    int rc;

    smem_cuda_clear();
    if ((rc = plan_point(d, pt, s, plan, r, first)))
        return rc;
    if (!plan->block) {
        c->grid = 0;    /* a library call: no kernel of ours, no occupancy to report */
        return SMEM_OK;
    }
    memset(&f, 0, sizeof(f));
    fn = pt->bench->kernel(c);
    if ((rc = set_kernel(d, s, c, plan, fn, &f, r)))
        return rc;
    if (!first) {
        c->grid = r->grid;   /* a later trial runs the first one's grid */
        return SMEM_OK;
    }
    return measure_occupancy(d, s, c, plan, fn, r);
}

/* The case's private state and the benchmark's setup (smem_case_open: out of memory for the state
 * fails the point as "setup: out of host memory"), then a wait for what it queued. The setup's
 * copies and memsets went to the legacy default stream, which a non-blocking stream does not wait
 * for (and a copy from pageable memory may return before its DMA lands): without the wait, a
 * short kernel could run before its poisoned output was cleared or its input had arrived (seen on
 * the H200: --check's two-cluster launches of dsm_bandwidth read the poison back in 11 of 57
 * points; sanitizers, which serialize, and full waves hid it). */
static int set_up(struct smem_case *c, struct smem_result *r)
{
    int rc;

    smem_gpu_inputs_next_point(c->inputs);
    if ((rc = smem_case_open(c))) {
        if (rc != SMEM_ESKIP)
            return fail_point(r, rc, c, "setup");
        smem_fmt(r->reason, sizeof(r->reason), "%s", c->reason);
        return rc;
    }
    if ((rc = SMEM_CUDA_STATUS(cudaDeviceSynchronize())))
        return fail_point(r, rc, c, "setup");
    return SMEM_OK;
}

/* One launch checked against the host reference: a kernel that has not matched it has no timing. */
static int verify(struct smem_case *c, struct smem_result *r)
{
    int rc;

    if ((rc = c->bench->launch(c)) || (rc = SMEM_CUDA_STATUS(cudaStreamSynchronize((cudaStream_t)c->stream))))
        return fail_point(r, rc, c, "launch");
    if ((rc = c->bench->verify(c))) {
        if (rc != SMEM_EVERIFY)
            return fail_point(r, rc, c, "verify");
        r->status = SMEM_POINT_FAILED;
        smem_fmt(r->reason, sizeof(r->reason), "wrong result: %s", c->reason);
        return rc;
    }
    r->verified = true;
    return SMEM_OK;
}

/* A trial's medians for the benchmark's metrics, and its summary. */
static void trial_record(struct smem_trial *t, const struct smem_measurement *m, size_t order)
{
    *t = (struct smem_trial){ .median_ns = m->stats.median, .robust_spread = m->stats.robust_spread,
                              .samples = m->n, .batch = m->batch, .clock_mhz = m->median.clock_hz / 1e6,
                              .order = order, .timing = m->median, .samples_ns = m->samples_ns,
                              .throttled = m->throttled, .n_throttled = m->n_throttled,
                              .throttled_used = m->throttled_used };
}

/* The point's samples, throttled samples and metrics from every trial, once the last is in: the
 * samples pooled in trial order (a throttled sample's index counts every sample taken before it),
 * their statistics, the trials' median clock and cycles, and the metrics from those. */
static int pool_trials(struct smem_case *c, struct smem_result *r)
{
    size_t n = 0, n_thr = 0, taken = 0;
    double *all, clocks[SMEM_TRIALS_MAX], cycles[SMEM_TRIALS_MAX];
    struct smem_throttled_sample *thr;
    struct smem_timing t;
    struct smem_metrics first, again;

    for (size_t k = 0; k < r->n_trials; k++) {
        n += r->trials[k].samples;
        n_thr += r->trials[k].n_throttled;
    }
    all = malloc((n ? n : 1) * sizeof(*all));
    thr = malloc((n_thr ? n_thr : 1) * sizeof(*thr));
    if (!all || !thr) {
        free(all);
        free(thr);
        return SMEM_ENOMEM;
    }
    n = n_thr = 0;
    r->throttled_used = false;
    for (size_t k = 0; k < r->n_trials; k++) {
        struct smem_trial *tr = &r->trials[k];
        memcpy(all + n, tr->samples_ns, tr->samples * sizeof(*all));
        for (size_t i = 0; i < tr->n_throttled; i++) {
            thr[n_thr] = tr->throttled[i];
            thr[n_thr++].index += taken;
        }
        taken += tr->samples + (tr->throttled_used ? 0 : tr->n_throttled);
        n += tr->samples;
        r->throttled_used |= tr->throttled_used;
        clocks[k] = tr->timing.clock_hz;
        cycles[k] = tr->timing.kernel_cycles;
        if (k) {    /* the first trial's arrays are the result's own */
            free(tr->samples_ns);
            free(tr->throttled);
        }
        tr->samples_ns = NULL;
        tr->throttled = NULL;
    }
    free(r->samples_ns);
    free(r->throttled);
    r->samples_ns = all;
    r->n_samples = n;
    r->throttled = thr;
    r->n_throttled = n_thr;
    smem_stats_compute(all, n, &r->time_ns);
    t = (struct smem_timing){ .seconds = r->time_ns.median * 1e-9, .clock_hz = smem_stats_median(clocks, r->n_trials),
                              .kernel_cycles = smem_stats_median(cycles, r->n_trials) };
    r->clock_mhz = t.clock_hz / 1e6;
    /* the metrics again from the pooled timing, but those the first trial's verification made
     * (uninit's stale words, the clusters the probe saw resident) from the first trial: a later
     * trial's case never ran verify, and its zeroed state wrote 0 as those results, marked ok */
    first = r->metrics;
    again.n = 0;
    c->bench->metrics(c, &r->trials[0].timing, &again);
    r->metrics.n = 0;
    c->bench->metrics(c, &t, &r->metrics);
    smem_metrics_keep_verified(&r->metrics, &first, &again);
    physics_check(r);
    return SMEM_OK;
}

/* Warm-up and samples of a case that is set up (and verified): one more trial of r. The first
 * trial's samples become the result's own (so a run stopped before the later trials still has a
 * timing and its metrics); the last pools them all. */
static int time_trial(struct smem_case *c, const struct smem_run_settings *s, struct smem_result *r, size_t order)
{
    struct smem_stop_rule rule = smem_trial_rule(&s->rule, r->trials_planned);
    struct smem_batch known = { r->n_trials ? r->trials[0].batch : 0, r->lead_in };
    struct smem_measurement m;
    int rc = smem_measure(c, &rule, s->cold, &known, &m);

    r->phase_s.warmup += m.warmup_s;
    r->phase_s.sampling += m.sampling_s;
    if (rc) {
        free(m.samples_ns);
        free(m.throttled);
        if (rc != SMEM_EINTR)
            fail_point(r, rc, c, r->n_trials ? "timing a later trial" : "timing");
        return rc;
    }
    trial_record(&r->trials[r->n_trials++], &m, order);
    if (r->n_trials == 1) {
        r->samples_ns = m.samples_ns;
        r->n_samples = m.n;
        r->batch = m.batch;
        r->lead_in = m.lead_in;
        r->throttled = m.throttled;
        r->n_throttled = m.n_throttled;
        r->throttled_used = m.throttled_used;
        r->throttle_below_mhz = m.throttle_below_mhz;
        r->time_ns = m.stats;
        r->clock_mhz = m.median.clock_hz / 1e6;
        c->bench->metrics(c, &m.median, &r->metrics);
        r->status = SMEM_POINT_OK;
        physics_check(r);
    }
    if (r->n_trials > 1 && r->n_trials == r->trials_planned && r->status == SMEM_POINT_OK)
        return pool_trials(c, r);
    return SMEM_OK;
}

/* The point's first trial, in plan order: plan, attributes, occupancy and the residency probe, setup,
 * verification, timing. */
static int run_point(const struct smem_device *d, const struct smem_point *pt, const struct smem_run_settings *s,
                     void *stream, void *clk, struct smem_gpu_inputs *inputs, struct smem_result *r, size_t order)
{
    struct smem_case c = { .bench = pt->bench, .values = pt->values, .dev = d, .stream = stream, .clk = clk,
                           .seed = s->seed, .inputs = inputs, .check = s->check };
    struct smem_plan plan = { .carveout_pct = -1 };
    double t = smem_now_s();
    int rc;

    c.plan = &plan;
    if ((rc = prepare(d, pt, s, &c, &plan, r, true))) {
        if (rc == SMEM_ESKIP)
            r->status = SMEM_POINT_SKIPPED;
        return rc == SMEM_ESKIP ? SMEM_OK : rc;
    }
    rc = set_up(&c, r);
    r->phase_s.setup = smem_now_s() - t - r->phase_s.residency;
    t = smem_now_s();
    if (rc == SMEM_ESKIP) {
        r->status = SMEM_POINT_SKIPPED;
        rc = SMEM_OK;
        goto out;
    }
    if (rc || (rc = verify(&c, r)))
        goto out;
    r->phase_s.verify = smem_now_s() - t;
    if (s->check) {
        r->status = SMEM_POINT_OK;
        goto out;
    }
    if (!(r->trials = calloc(s->trials, sizeof(*r->trials)))) {
        rc = fail_point(r, SMEM_ENOMEM, &c, "timing");
        goto out;
    }
    r->trials_planned = s->trials;
    rc = time_trial(&c, s, r, order);
out:
    t = smem_now_s();
    smem_case_close(&c);
    r->phase_s.teardown = smem_now_s() - t;
    return rc == SMEM_EVERIFY ? SMEM_OK : rc;
}

/* A later trial of a point that ran: a fresh plan, attributes, setup and warm-up, its samples. A
 * failure fails the point (its reason names the trial); an interruption leaves it as it was. */
static int run_trial(const struct smem_device *d, const struct smem_point *pt, const struct smem_run_settings *s,
                     void *stream, void *clk, struct smem_gpu_inputs *inputs, struct smem_result *r, size_t order)
{
    struct smem_case c = { .bench = pt->bench, .values = pt->values, .dev = d, .stream = stream, .clk = clk,
                           .seed = s->seed, .inputs = inputs };
    struct smem_plan plan = { .carveout_pct = -1 };
    double t0 = smem_now_s(), t;
    int rc;

    c.plan = &plan;
    if ((rc = prepare(d, pt, s, &c, &plan, r, false)) == SMEM_ESKIP)
        rc = fail_point(r, SMEM_ESKIP, &c, "a later trial skipped what the first ran");
    if (!rc && (rc = set_up(&c, r)) == SMEM_ESKIP)
        rc = fail_point(r, SMEM_ESKIP, &c, "a later trial's setup");
    r->phase_s.setup += smem_now_s() - t0;
    if (!rc)
        rc = time_trial(&c, s, r, order);
    t = smem_now_s();
    smem_case_close(&c);
    r->phase_s.teardown += smem_now_s() - t;
    r->wall_s += smem_now_s() - t0;
    return rc;
}

/* Frees the samples of trials that were never pooled (a run stopped before a point's last trial). */
static void drop_unpooled(struct smem_result *r)
{
    for (size_t k = 1; k < r->n_trials; k++) {
        free(r->trials[k].samples_ns);
        free(r->trials[k].throttled);
        r->trials[k].samples_ns = NULL;
        r->trials[k].throttled = NULL;
    }
}

/* Whether a run should stop at this point's outcome; out says why. */
static bool stops(int rc, const struct smem_point *pt, struct smem_run_outcome *out)
{
    if (rc != SMEM_ESTICKY)
        return false;
    out->sticky = true;
    smem_fmt(out->sticky_reason, sizeof(out->sticky_reason), "benchmark %s: %s", pt->bench->name,
             smem_cuda_last_error());
    return true;
}

/* The later trials of every point that ran, in one shuffled order: a point's trials are far apart
 * in time, and each process draws its own order (s->order_seed). */
static void run_later_trials(const struct smem_device *dev, const struct smem_point *points, size_t n,
                             const struct smem_run_settings *s, struct smem_result *results,
                             struct smem_run_outcome *out, void *stream, void *clk, struct smem_gpu_inputs *inputs)
{
    size_t later = s->trials - 1, m = 0, *order;

    for (size_t i = 0; i < out->done; i++)
        m += results[i].status == SMEM_POINT_OK && results[i].n_trials == 1 ? later : 0;
    if (!m || !(order = malloc(m * sizeof(*order))))
        return;   /* out of memory: the first trials stand, the file says how many ran */
    m = 0;
    for (size_t i = 0; i < out->done; i++)
        for (size_t k = 0; results[i].status == SMEM_POINT_OK && results[i].n_trials == 1 && k < later; k++)
            order[m++] = i;
    smem_shuffle(order, m, s->order_seed);
    for (size_t j = 0; j < m; j++) {
        struct smem_result *r = &results[order[j]];
        int rc;

        if (smem_interrupted) {
            out->signal = smem_interrupted;
            break;
        }
        if (r->status != SMEM_POINT_OK)
            continue;   /* an earlier trial of it failed */
        if (s->progress)
            smem_progress_update(n + j, n + m, &points[order[j]]);
        rc = run_trial(dev, &points[order[j]], s, stream, clk, inputs, r, n + j);
        if (smem_interrupted) {
            out->signal = smem_interrupted;
            break;
        }
        if (stops(rc, &points[order[j]], out))
            break;
    }
    free(order);
}

/* One launch of a counter pass and its wait (smem_counters_collect's callback). */
static int counter_launch(void *arg)
{
    struct smem_case *c = arg;
    int rc = c->bench->launch(c);

    return rc ? rc : SMEM_CUDA_STATUS(cudaStreamSynchronize((cudaStream_t)c->stream));
}

/* The counters of every point that ran, once all were timed: a fresh setup of the point (its first
 * trial's grid and attributes), its launch replayed in CUPTI's passes, its teardown. A point whose
 * passes fail keeps its time and says why it has no counters; the phase stops at a signal or an
 * error that ends the context. */
static void run_counters(const struct smem_device *dev, const struct smem_point *points,
                         const struct smem_run_settings *s, struct smem_result *results,
                         struct smem_run_outcome *out, void *stream, void *clk, struct smem_gpu_inputs *inputs)
{
    struct smem_counters_run *run = s->counters;
    double t_run = smem_now_s();

    if (!run)
        return;

    for (size_t i = 0; i < out->done; i++) {
        struct smem_result *r = &results[i], scratch;
        struct smem_case c = { .bench = points[i].bench, .values = points[i].values, .dev = dev, .stream = stream,
                               .clk = clk, .seed = s->seed, .inputs = inputs };
        struct smem_plan plan = { .carveout_pct = -1 };
        double t0 = smem_now_s();
        int rc;

        if (r->status != SMEM_POINT_OK)
            continue;
        if (s->progress)
            smem_progress_update(i, out->done, &points[i]);
        scratch = *r;   /* what prepare and setup record of a failure is the counters', not the point's */
        scratch.reason[0] = '\0';
        c.plan = &plan;
        rc = prepare(dev, &points[i], s, &c, &plan, &scratch, false);
        if (!rc)
            rc = set_up(&c, &scratch);
        if (!rc && !s->counters_session) {
            /* the same launch, for an outside profiler: ncu --profile-from-start off sees it alone */
            if (!(rc = SMEM_CUDA_STATUS(cudaProfilerStart())))
                rc = counter_launch(&c);
            cudaProfilerStop();
        } else if (!rc) {
            rc = smem_counters_collect(s->counters_session, run, counter_launch, &c, &r->counters);
            if (rc && !r->counters.reason[0])
                smem_fmt(r->counters.reason, sizeof(r->counters.reason), "%s", smem_cuda_last_error());
        } else {
            r->counters.status = SMEM_COUNTERS_FAILED;
            smem_fmt(r->counters.reason, sizeof(r->counters.reason), "the counter passes' setup: %s",
                     scratch.reason[0] ? scratch.reason : "failed");
        }
        smem_case_close(&c);
        r->phase_s.counters = smem_now_s() - t0;
        if (smem_interrupted) {
            out->signal = smem_interrupted;
            break;
        }
        if (rc == SMEM_ESTICKY) {
            out->sticky = true;
            smem_fmt(out->sticky_reason, sizeof(out->sticky_reason), "benchmark %s (counter passes): %s",
                     points[i].bench->name, smem_cuda_last_error());
            break;
        }
    }
    run->wall_s += smem_now_s() - t_run;
}

int smem_run_measure(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *settings, struct smem_result *results,
                     struct smem_run_outcome *out)
{
    struct smem_run_settings s = *settings;
    cudaStream_t stream = NULL;
    struct smem_clock *clk = NULL;
    struct smem_gpu_inputs *inputs = smem_gpu_inputs_create();   /* NULL without memory: nothing kept */
    int rc = SMEM_OK;

    memset(out, 0, sizeof(*out));
    if (s.check || s.trials < 1)
        s.trials = 1;   /* --check times nothing */
    SMEM_CUDA_CHECK(cudaSetDevice(dev->ordinal));   /* this thread's device, with --device all */
    SMEM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&clk, sizeof(*clk)));
    for (size_t i = 0; i < n; i++) {
        if (smem_interrupted) {
            out->signal = smem_interrupted;
            break;
        }
        if (s.progress)
            smem_progress_update(i, n * s.trials, &points[i]);
        double t0 = smem_now_s();
        result_init(&results[i], &points[i]);
        rc = run_point(dev, &points[i], &s, stream, clk, inputs, &results[i], i);
        results[i].wall_s = smem_now_s() - t0;
        if (smem_interrupted && results[i].status != SMEM_POINT_OK) {
            /* the point in flight did not finish: it is left out, not half-recorded */
            smem_results_free(&results[i], 1);
            out->signal = smem_interrupted;
            break;
        }
        out->done = i + 1;
        if (!i && smem_test_hooks.announce)
            fputs("smembench-test: sweep\n", stderr);   /* smembench-hooks only: a point is in the file */
        if (stops(rc, &points[i], out))
            break;
    }
    if (s.trials > 1 && !out->signal && !out->sticky)
        run_later_trials(dev, points, n, &s, results, out, stream, clk, inputs);
    for (size_t i = 0; i < out->done; i++)
        drop_unpooled(&results[i]);
    if (((s.counters_session && s.counters && s.counters->status == SMEM_COUNTERS_OK) || s.counters_external) &&
        !out->signal && !out->sticky)
        run_counters(dev, points, &s, results, out, stream, clk, inputs);
    if (s.progress)
        smem_progress_done();
    rc = SMEM_OK;
fail:
    smem_gpu_inputs_destroy(inputs, !out->sticky);
    if (!out->sticky) {
        cudaFree(clk);
        if (stream)
            cudaStreamDestroy(stream);
    }
    return rc;
}

#else

int smem_run_measure(const struct smem_device *dev, const struct smem_point *points, size_t n,
                     const struct smem_run_settings *s, struct smem_result *results,
                     struct smem_run_outcome *out)
{
    (void)dev, (void)points, (void)n, (void)s, (void)results;
    memset(out, 0, sizeof(*out));
    smem_error("this smembench was built without CUDA; only --predict runs");
    return SMEM_ENODEV;
}

#endif
