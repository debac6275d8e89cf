/* smembench: parse and check everything, choose measure or predict mode, run the plan, write the
 * result file atomically and print the table. Exit statuses are listed in --help. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "gpus.h"
#include "progress.h"
#include "report_json.h"
#include "runner.h"
#include "smem.h"
#include "smem_git.h"
#include "table.h"

#if SMEM_HAVE_CUDA
#include "gpu.h"
#include "measure.h"
#else
volatile sig_atomic_t smem_interrupted;
#endif

static void on_signal(int sig)
{
    smem_interrupted = sig;
}

static void print_list(void)
{
    printf("benchmarks:\n");
    for (size_t i = 0; i < smem_n_benches; i++) {
        const struct smem_bench *b = smem_benches[i];
        printf("  %-10s %s\n", b->name, b->summary);
        for (size_t a = 0; a < b->n_axes; a++) {
            const struct smem_axis *ax = &b->axes[a];
            printf("    --axis %s=", ax->name);
            for (size_t k = 0; k < ax->n_defaults; k++)
                printf("%s%lld", k ? "," : "", (long long)ax->defaults[k]);
            printf("  (%s, %lld..%lld)%s\n        %s\n", ax->unit, (long long)ax->min, (long long)ax->max,
                   b->device_defaults ? "; the default adds this device's occupancy cliffs" : "", ax->help);
        }
    }
    printf("sweeps:\n");
    for (size_t i = 0; i < smem_n_sweeps; i++)
        printf("  %-10s %s%s\n", smem_sweeps[i].name, smem_sweeps[i].summary,
               smem_sweeps[i].predictable ? " [also --predict]" : "");
}

static void print_models(void)
{
    printf("built-in GPU models for --predict:\n");
    for (size_t i = 0; i < smem_n_gpu_models; i++) {
        const struct smem_device *d = &smem_gpu_models[i].dev;
        printf("  %-8s %-34s cc %d.%d  %3d SMs  %3lld KiB shared/SM  %3lld KiB opt-in/block\n",
               smem_gpu_models[i].key, d->name, d->cc_major, d->cc_minor, d->sm_count,
               (long long)(d->smem_per_sm / 1024), (long long)(d->smem_per_block_optin / 1024));
    }
}

static void model_keys(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < smem_n_gpu_models; i++)
        smem_append(buf, len, ", ", "%s", smem_gpu_models[i].key);
}

/* A file-name-safe lowercase slug of s. */
static void slug(char *out, size_t len, const char *s)
{
    size_t n = 0;
    bool dash = false;

    for (; *s && n + 1 < len; s++) {
        if (isalnum((unsigned char)*s)) {
            out[n++] = (char)tolower((unsigned char)*s);
            dash = false;
        } else if (!dash && n) {
            out[n++] = '-';
            dash = true;
        }
    }
    while (n && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

/* <gpu>_<yyyymmdd>_<sweep>.json in the current directory, with _2, _3... if taken. */
static void default_output(char *out, size_t len, const struct smem_device *d, const char *what)
{
    char gpu[128], sw[128], date[16];
    struct stat st;

    slug(gpu, sizeof(gpu), d->name);
    slug(sw, sizeof(sw), what);
    smem_utc_now(date, sizeof(date), true);
    smem_fmt(out, len, "%s_%s_%s.json", gpu, date, sw);
    for (int k = 2; !stat(out, &st) && k < 10000; k++)
        smem_fmt(out, len, "%s_%s_%s_%d.json", gpu, date, sw, k);
}

/* Opens the devices of --device (0 by default); SMEM_EINVAL for one that does not exist. */
static int open_devices(const struct smem_options *o, struct smem_device *devs, int *n_devs, char *why, size_t len)
{
#if SMEM_HAVE_CUDA
    int count = smem_device_count(why, len), list[SMEM_MAX_DEVICES], n = 0, rc;

    if (count < 0)
        return count;
    if (o->all_devices)
        for (int i = 0; i < count && n < SMEM_MAX_DEVICES; i++)
            list[n++] = i;
    else
        for (int i = 0; i < o->n_devices; i++)
            list[n++] = o->devices[i];
    for (int i = 0; i < n; i++)
        if (list[i] >= count) {
            smem_fmt(why, len, "invalid value \"%d\" for --device; expected 0..%d (this machine has %d CUDA device%s)",
                     list[i], count - 1, count, count == 1 ? "" : "s");
            return SMEM_EINVAL;
        }
    for (int i = 0; i < n; i++)
        if ((rc = smem_device_open(list[i], &devs[i], why, len)))
            return rc;
    *n_devs = n;
    return SMEM_OK;
#else
    (void)o, (void)devs, (void)n_devs;
    smem_fmt(why, len, "this smembench was built without CUDA");
    return SMEM_ENODEV;
#endif
}

/* One device's share of a several-device run: the whole plan, on its own host thread and stream. */
struct worker {
    const struct smem_device *dev;
    const struct smem_point *points;
    size_t n;
    struct smem_run_settings settings;
    struct smem_result *results;
    struct smem_run_outcome out;
    int rc;
};

static void *work(void *arg)
{
    struct worker *w = arg;

    w->rc = smem_run_measure(w->dev, w->points, w->n, &w->settings, w->results, &w->out);
    return NULL;
}

/* Runs the plan on every device at once; results holds n points per device, device after device. */
static int measure_all(const struct smem_device *devs, int n_devs, const struct smem_point *points, size_t n,
                       const struct smem_run_settings *s, struct smem_result *results, struct smem_run_outcome *outs)
{
    struct worker w[SMEM_MAX_DEVICES];
    pthread_t t[SMEM_MAX_DEVICES];
    int rc = SMEM_OK;

    for (int d = 0; d < n_devs; d++) {
        w[d] = (struct worker){ .dev = &devs[d], .points = points, .n = n, .settings = *s, .results = results + (size_t)d * n };
        if (n_devs > 1)
            w[d].settings.progress = false;   /* one bar cannot show several devices */
        if (pthread_create(&t[d], NULL, work, &w[d])) {
            smem_error("cannot start a thread for device %d", devs[d].ordinal);
            for (int k = 0; k < d; k++)
                pthread_join(t[k], NULL);
            return SMEM_ENOMEM;
        }
    }
    for (int d = 0; d < n_devs; d++) {
        pthread_join(t[d], NULL);
        outs[d] = w[d].out;
        if (w[d].rc)
            rc = w[d].rc;
    }
    return rc;
}

static bool all_predictable(const struct smem_options *o)
{
    if (o->bench)
        return smem_bench_find(o->bench) && smem_sweep_bench_predictable(smem_bench_find(o->bench));
    for (size_t i = 0; i < o->n_sweeps; i++) {
        const struct smem_sweep *sw = smem_sweep_find(o->sweeps[i]);
        if (!sw || !sw->predictable)
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    struct smem_options o;
    struct smem_plan_request req;
    struct smem_point *points = NULL;
    struct smem_result *results = NULL;
    struct smem_device devs[SMEM_MAX_DEVICES];
    struct smem_run_outcome outcomes[SMEM_MAX_DEVICES];
    size_t done[SMEM_MAX_DEVICES];
    int n_devs = 1;
    struct smem_run_info info;
    char why[512] = "", out_path[4096], started[32];
    const char *what;
    cJSON *doc = NULL;
    size_t n = 0;
    bool predict;
    int status = SMEM_EXIT_OK;

    memset(outcomes, 0, sizeof(outcomes));
    if (smem_cli_parse(argc, argv, &o)) {
        fputs("Try 'smembench --help' for more information.\n", stderr);
        return SMEM_EXIT_USAGE;
    }
    if (o.help) {
        smem_cli_usage(stdout);
        return SMEM_EXIT_OK;
    }
    if (o.version) {
        printf("smembench %s (commit %s, schema %s)\n", SMEM_VERSION, SMEM_GIT, SMEM_SCHEMA);
        return SMEM_EXIT_OK;
    }
    if (o.list) {
        print_list();
        return SMEM_EXIT_OK;
    }
    if (o.predict && !strcmp(o.predict, "list")) {
        print_models();
        return SMEM_EXIT_OK;
    }
    if (o.predict && !smem_gpu_find(o.predict)) {
        char keys[256];
        model_keys(keys, sizeof(keys));
        smem_error("unknown GPU model \"%s\" for --predict; known models: %s", o.predict, keys);
        return SMEM_EXIT_USAGE;
    }

    predict = o.predict != NULL;
    req = (struct smem_plan_request){ .sweeps = o.sweeps, .n_sweeps = o.n_sweeps, .bench = o.bench,
                                      .overrides = o.overrides, .n_overrides = o.n_overrides,
                                      .quick = o.quick, .predict = predict };
    /* the whole plan is checked before a GPU is touched */
    if (smem_sweep_expand(&req, &points, &n, NULL)) {
        fputs("Try 'smembench --help' for more information.\n", stderr);
        return SMEM_EXIT_USAGE;
    }
    free(points);
    points = NULL;

    if (!predict) {
        int rc = open_devices(&o, devs, &n_devs, why, sizeof(why));
        if (rc == SMEM_EINVAL) {
            smem_error("%s", why);
            return SMEM_EXIT_USAGE;
        }
        if (rc) {
            if (o.require_gpu) {
                smem_error("%s; --require-gpu was given", why);
                return SMEM_EXIT_NODEV;
            }
            if (!all_predictable(&o)) {
                smem_error("%s; this sweep measures the GPU and has no predict mode (--predict MODEL runs the carveout, dynamic and tile sweeps without one)", why);
                return SMEM_EXIT_NODEV;
            }
            smem_warn("%s: running in predict mode for the built-in %s model (occupancy only); --require-gpu makes this an error",
                      why, SMEM_DEFAULT_MODEL);
            o.predict = SMEM_DEFAULT_MODEL;
            predict = true;
            req.predict = true;
        }
    }
    if (predict) {
        devs[0] = smem_gpu_find(o.predict)->dev;
        n_devs = 1;
    }

    /* with several devices, the device-specific defaults (occupancy cliffs) are device 0's */
    if (smem_sweep_expand(&req, &points, &n, &devs[0])) {
        status = SMEM_EXIT_USAGE;
        goto done;
    }
    what = o.bench ? o.bench : o.sweep_text;
    if (o.output)
        smem_fmt(out_path, sizeof(out_path), "%s", o.output);
    else
        default_output(out_path, sizeof(out_path), &devs[0], what);
    if (smem_cli_check_output(out_path, o.force)) {
        status = SMEM_EXIT_USAGE;
        goto done;
    }

    results = calloc(n * (size_t)n_devs, sizeof(*results));
    if (!results) {
        smem_error("cannot allocate the results of %zu points", n);
        status = SMEM_EXIT_FAILED;
        goto done;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    smem_utc_now(started, sizeof(started), false);
    if (predict) {
        smem_run_predict(&devs[0], points, n, results);
        outcomes[0].done = n;
    } else {
        struct smem_run_settings s = {
            .rule = { .min_samples = (size_t)o.min_samples, .max_samples = (size_t)o.max_samples,
                      .max_noise = o.max_noise, .timeout_s = o.timeout_s, .fixed = o.quick },
            .seed = o.seed, .no_optin = o.no_optin, .check = o.check, .cold = o.cold, .progress = smem_progress_wanted(o.quiet),
        };
        if (measure_all(devs, n_devs, points, n, &s, results, outcomes)) {
            status = SMEM_EXIT_FAILED;
            goto done;
        }
        for (int d = 0; d < n_devs; d++)
            smem_nvml_read(devs[d].pci_bus_id, &devs[d].nvml_end);
    }
    for (int d = 0; d < n_devs; d++) {
        done[d] = outcomes[d].done;
        smem_run_derive(results + (size_t)d * n, done[d]);
    }

    info = (struct smem_run_info){ .argc = argc, .argv = argv, .mode = predict ? "predict" : "measure",
                                   .sweep = what, .started = started, .min_samples = o.min_samples,
                                   .max_samples = o.max_samples, .max_noise = o.max_noise,
                                   .timeout_s = o.timeout_s, .seed = o.seed, .quick = o.quick,
                                   .no_optin = o.no_optin, .cold = o.cold };
    doc = smem_report_new(&info, &devs[0]);
    if (!doc) {
        status = SMEM_EXIT_FAILED;
        goto done;
    }
    if (n_devs > 1)
        smem_report_add_devices(doc, devs, n_devs);
    for (int d = 0; d < n_devs; d++) {
        const struct smem_run_outcome *oc = &outcomes[d];
        for (size_t i = 0; i < done[d]; i++) {
            const struct smem_result *r = &results[(size_t)d * n + i];
            smem_report_add(doc, r, n_devs > 1 ? d : -1);
            if (r->status == SMEM_POINT_FAILED || r->status == SMEM_POINT_INVALID)
                status = SMEM_EXIT_FAILED;
        }
        if (oc->signal || oc->sticky)
            smem_report_mark_incomplete(doc, oc->signal, oc->sticky ? oc->sticky_reason : "interrupted");
    }
    if (n_devs > 1)
        smem_report_spread(doc, results, done, n_devs, n);
    if (smem_report_write(doc, out_path, o.force)) {
        status = SMEM_EXIT_FAILED;
    } else if (strcmp(out_path, "-")) {
        size_t total = 0;
        for (int d = 0; d < n_devs; d++)
            total += done[d];
        fprintf(stderr, "smembench: wrote %zu of %zu points to %s\n", total, n * (size_t)n_devs, out_path);
    }
    for (int d = 0; d < n_devs && !o.quiet; d++)
        smem_table_print(strcmp(out_path, "-") ? stdout : stderr, &devs[d], results + (size_t)d * n, done[d]);
    if (n_devs > 1 && !o.quiet)
        smem_table_spread(strcmp(out_path, "-") ? stdout : stderr, devs, n_devs, results, done, n);
    for (int d = 0; d < n_devs; d++) {
        if (outcomes[d].sticky) {
            smem_error("device %d stopped after a CUDA error that ends the context: %s", devs[d].ordinal,
                       outcomes[d].sticky_reason);
            status = SMEM_EXIT_FAILED;
        }
    }
    for (int d = 0; d < n_devs; d++)
        if (outcomes[d].signal) {
            smem_error("interrupted by signal %d after %zu of %zu points", (int)outcomes[d].signal, done[d], n);
            status = 128 + outcomes[d].signal;
            break;
        }
done:
    cJSON_Delete(doc);
    for (int d = 0; results && d < n_devs; d++)
        smem_results_free(results + (size_t)d * n, outcomes[d].done);
    free(results);
    free(points);
    return status;
}
