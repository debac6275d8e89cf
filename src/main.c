/* smembench, the outline of a run: parse and check the command line, plan every point before a GPU
 * is touched, open the devices (or a built-in model in predict mode), run the plan on each, derive
 * what compares points with each other, then write the result file atomically and print the table.
 * Exit statuses are listed in --help. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpus.h"
#include "kernel_job.h"
#include "list.h"
#include "nvml.h"
#include "progress.h"
#include "rng.h"
#include "report_json.h"
#include "runner.h"
#include "signals.h"
#include "smem.h"
#include <smem_git.h> /* generated in the build directory at every build (meson vcs_tag) */
#include "table.h"

#if SMEM_HAVE_CUDA
#include "device_open.h"
#include "measure.h"
#endif

#define CONTINUE (-1)   /* not an exit status: the run goes on */

/* Everything one run holds, from the command line to the results. */
struct job {
    struct smem_options o;
    struct smem_plan_request req;
    bool predict;
    struct smem_point *points;
    size_t n;
    struct smem_device_run runs[SMEM_MAX_DEVICES];
    int n_runs;
    struct smem_spread *spread;         /* n entries, with several devices */
    const char *what;                   /* what was asked for: the sweeps or the benchmark */
    const char *sweep_label;            /* the run's "sweep" in the file (what, but a user kernel's sweeps) */
    struct smem_kernel_job kj;          /* --kernel: the user's kernel */
    char out_path[4096], started[32];
    struct smem_output out;             /* where the results go, settled before the run */
    bool fallback;                      /* predict mode for want of a GPU */
    double t0;                          /* when main() began (smem_now_s): the run's wall time */
    char why[512];                      /* why there is no GPU */
};

#ifdef SMEM_TEST_HOOKS
/* smembench-hooks, the test build: slow motion for the signal tests, from the environment */
static void test_hooks_from_env(void)
{
    const char *v;

    if ((v = getenv("SMEM_TEST_POINT_DELAY_MS")))
        smem_test_hooks.point_delay_ms = (unsigned)atoi(v);
    if ((v = getenv("SMEM_TEST_WRITE_DELAY_MS")))
        smem_test_hooks.write_delay_ms = (unsigned)atoi(v);
    smem_test_hooks.named_temp = (v = getenv("SMEM_TEST_NAMED_TEMP")) && *v;
    smem_test_hooks.announce = true;
    /* that main() began: a run killed before it (the dynamic loader, or a library's constructor such
     * as libcublasLt's under a tight ulimit -v) never got to be smembench */
    if ((v = getenv("SMEM_TEST_ANNOUNCE_MAIN")) && *v)
        fputs("smembench-test: main\n", stderr);
}
#endif

/* A seed no other process shares: the time in nanoseconds and the process id, mixed. JSON numbers
 * are doubles: 53 bits, so the file records it exactly and --order-seed replays it. */
static uint64_t order_seed_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return smem_rng_mix((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + ((uint64_t)getpid() << 40)) >> 11;
}

static int parse_answer(int argc, char **argv, struct smem_options *o);

static int usage_error(void)
{
    fputs("Try 'smembench --help' for more information.\n", stderr);
    return SMEM_EXIT_USAGE;
}

/* --kernel FILE --list: through the driver when this machine has a GPU, else from the file for the
 * --predict model (the default model without one). */
static int list_kernels(const struct smem_options *o)
{
    char why[256];
    bool gpu = false;
    const struct smem_gpu_model *m = smem_gpu_find(o->predict ? o->predict : SMEM_DEFAULT_MODEL);

#if SMEM_HAVE_CUDA
    gpu = !o->predict && smem_device_count(why, sizeof(why)) > 0;
#endif
    (void)why;
    if (!m) {
        smem_error("unknown GPU model \"%s\" for --predict ('--predict list' shows them)", o->predict);
        return SMEM_EXIT_USAGE;
    }
    return smem_kernel_list(o->kernel, &m->dev, gpu, stdout) ? SMEM_EXIT_USAGE : SMEM_EXIT_OK;
}

/* What --help, --version, --list and --predict list printed, on a closed or full stdout: one line and
 * 1, as for results that cannot be written; status otherwise. */
static int stdout_status(int status)
{
    bool closed = smem_output_stdout_closed();

    if (!closed && fflush(stdout) == 0 && !ferror(stdout))
        return status;
    smem_error("cannot write to stdout: %s", closed ? "it is closed" : strerror(errno));
    return SMEM_EXIT_FAILED;
}

/* The command line; answers --help, --version, --list and --predict list on the spot. */
static int parse(int argc, char **argv, struct smem_options *o)
{
    int rc = parse_answer(argc, argv, o);

    return rc == CONTINUE || rc == SMEM_EXIT_USAGE ? rc : stdout_status(rc);
}

static int parse_answer(int argc, char **argv, struct smem_options *o)
{
    char keys[256];

    if (smem_cli_parse(argc, argv, o))
        return usage_error();
    if (o->wide)
        smem_table_width = 0;
    if (o->help)
        smem_cli_usage(stdout);
    else if (o->version)
        printf("smembench %s (commit %s, schema %s)\n", SMEM_VERSION, SMEM_GIT, SMEM_SCHEMA);
    else if (o->list && o->kernel)
        return list_kernels(o);
    else if (o->list && o->json)
        return smem_list_benches_json(stdout) ? SMEM_EXIT_FAILED : SMEM_EXIT_OK;
    else if (o->list)
        smem_list_benches(stdout);
    else if (o->predict && !strcmp(o->predict, "list"))
        smem_list_models(stdout);
    else if (o->predict && !smem_gpu_find(o->predict)) {
        smem_list_model_keys(keys, sizeof(keys));
        smem_error("unknown GPU model \"%s\" for --predict; known models: %s", o->predict, keys);
        return SMEM_EXIT_USAGE;
    } else
        return CONTINUE;
    return SMEM_EXIT_OK;
}

/* The request of the command line, as the planner takes it. */
static struct smem_plan_request plan_request(const struct job *j)
{
    return (struct smem_plan_request){ .sweeps = j->o.sweeps, .n_sweeps = j->o.n_sweeps, .bench = j->o.bench,
                                       .overrides = j->o.overrides, .n_overrides = j->o.n_overrides,
                                       .quick = j->o.quick, .predict = j->predict };
}

static int out_of_memory_planning(void)
{
    smem_error("out of memory while planning the run");
    return SMEM_EXIT_FAILED;
}

/* -o over one of the run's own inputs (a user kernel's description, code, reference or fill file, or
 * a link to one): refused whether --force is given or not, before anything is opened. */
static int output_not_an_input(const struct job *j)
{
    struct stat st;
    const char *input;
    char what[128];

    if (!j->o.output || !j->o.kernel || !strcmp(j->o.output, "-") || stat(j->o.output, &st))
        return SMEM_OK;   /* nothing there yet (a link to nothing is smem_output_open's to refuse) */
    if (!(input = smem_kernel_input_is(&j->kj, &st, what, sizeof(what))))
        return SMEM_OK;
    if (!strcmp(input, j->o.output))
        smem_error("-o %s is %s of this run; an input is never replaced, even with --force: choose another -o",
                   j->o.output, what);
    else
        smem_error("-o %s is %s of this run (%s); an input is never replaced, even with --force: choose another -o",
                   j->o.output, what, input);
    return SMEM_EXIT_USAGE;
}

/* Everything about the plan that needs no device, checked before a GPU is touched: the benchmarks,
 * the axes and their values, the point count (a user kernel: its file, launch and axes). */
static int check_plan(struct job *j)
{
    struct smem_plan_request req = plan_request(j);
    size_t n;
    int rc;

    if (j->o.kernel)
        return smem_kernel_check(&j->o, &j->kj) ? usage_error() : output_not_an_input(j);
    if ((rc = smem_plan_check(&req, &n)) == SMEM_ENOMEM)
        return out_of_memory_planning();
    return rc ? usage_error() : SMEM_OK;
}

/* The points of the run, built once the device is known: the benchmarks' defaults are its own
 * (several devices: device 0's); a user kernel is opened and its points read from its file. */
static int plan(struct job *j, const struct smem_device *dev)
{
    int rc;

    if (j->o.kernel) {
        if ((rc = smem_kernel_open(&j->kj, dev, j->predict, j->o.watchdog_s)))
            return rc == SMEM_EINVAL ? SMEM_EXIT_USAGE : rc == SMEM_ENODEV ? SMEM_EXIT_NODEV : SMEM_EXIT_FAILED;
        if ((rc = smem_kernel_points(&j->kj, &j->o, dev, &j->points, &j->n)))
            return rc == SMEM_ENOMEM ? SMEM_EXIT_FAILED : SMEM_EXIT_USAGE;
        if (j->predict && smem_kernel_check_files(&j->kj, j->points, j->n, dev))
            return SMEM_EXIT_USAGE;   /* measure mode reads them at every point */
        return SMEM_OK;
    }
    j->req = plan_request(j);
    if ((rc = smem_sweep_expand(&j->req, &j->points, &j->n, dev)) == SMEM_ENOMEM)
        return out_of_memory_planning();
    return rc ? SMEM_EXIT_USAGE : SMEM_OK;
}

/* Whether everything asked for runs in predict mode. */
static bool all_predictable(const struct smem_options *o)
{
    if (o->kernel)
        return true;   /* its resources come from the file */
    if (o->bench)
        return smem_bench_find(o->bench) && smem_bench_find(o->bench)->predictable;
    for (size_t i = 0; i < o->n_sweeps; i++) {
        const struct smem_sweep *sw = smem_sweep_find(o->sweeps[i]);
        if (!sw || !smem_sweep_predictable(sw))
            return false;
    }
    return true;
}

/* The devices of --device (0 by default); SMEM_EINVAL for one that does not exist. */
static int open_cuda_devices(struct job *j, char *why, size_t len)
{
#if SMEM_HAVE_CUDA
    int count = smem_device_count(why, len), list[SMEM_MAX_DEVICES], n = 0, rc;

    if (count < 0)
        return count;
    if (j->o.all_devices)
        for (int i = 0; i < count && n < SMEM_MAX_DEVICES; i++)
            list[n++] = i;
    else
        for (int i = 0; i < j->o.n_devices; i++)
            list[n++] = j->o.devices[i];
    for (int i = 0; i < n; i++)
        if (list[i] >= count) {
            smem_fmt(why, len, "invalid value \"%d\" for --device; expected 0..%d (this machine has %d CUDA device%s)",
                     list[i], count - 1, count, count == 1 ? "" : "s");
            return SMEM_EINVAL;
        }
    for (int i = 0; i < n; i++)
        if ((rc = smem_device_open(list[i], &j->runs[i].dev, why, len)))
            return rc;
    j->n_runs = n;
    return SMEM_OK;
#else
    (void)j;
    smem_fmt(why, len, "this smembench was built without CUDA");
    return SMEM_ENODEV;
#endif
}

/* The devices to run on: the GPUs of --device, or the model of --predict, or (no GPU, a plan that
 * predict mode can run, no --require-gpu and no option only a measuring run honours) the default
 * model. */
static int open_devices(struct job *j)
{
    const char *measuring;
    char *why = j->why;
    int rc;

    if (!j->predict && (rc = open_cuda_devices(j, why, sizeof(j->why)))) {
        if (rc == SMEM_EINVAL) {
            smem_error("%s", why);
            return SMEM_EXIT_USAGE;
        }
        if (j->o.require_gpu) {
            smem_error("%s; --require-gpu was given", why);
            return SMEM_EXIT_NODEV;
        }
        if ((measuring = smem_cli_measuring_option(&j->o))) {
            smem_error("%s; %s needs a GPU (predict mode launches nothing)", why, measuring);
            return SMEM_EXIT_NODEV;
        }
        if (!all_predictable(&j->o)) {
            char names[256];
            smem_sweep_names(names, sizeof(names), true);
            smem_error("%s; this sweep measures the GPU and has no predict mode (--predict MODEL runs the %s sweeps "
                       "without one)", why, names);
            return SMEM_EXIT_NODEV;
        }
        /* said once the prediction is made (nothing predictable is an error instead) */
        j->o.predict = SMEM_DEFAULT_MODEL;
        j->predict = j->fallback = true;
    }
    if (j->predict) {
        j->runs[0].dev = smem_gpu_find(j->o.predict)->dev;
        j->n_runs = 1;
    }
    return SMEM_OK;
}

/* --counters: a CUPTI session on each device, every name checked against its chip before anything
 * runs (an unknown one is a usage error); where counters cannot be had (no libcupti, no permission
 * to profile, MIG, MPS, a build without CUPTI) the run goes on and times everything, said once per
 * device, and the file records why it has no counters. */
static int open_counters(struct job *j)
{
    char why[256];

    if (!j->o.counters.on || j->predict)
        return SMEM_OK;
    for (int d = 0; d < j->n_runs; d++) {
        struct smem_device_run *r = &j->runs[d];
        int rc;

        r->counters.req = &j->o.counters;
        r->counters.n = j->o.counters.n;
        if (getenv("SMEM_COUNTERS_EXTERNAL") && *getenv("SMEM_COUNTERS_EXTERNAL")) {
            smem_counters_run_unavailable(&r->counters, "SMEM_COUNTERS_EXTERNAL: each point's counter launch was "
                                          "left to an outside profiler (ncu --profile-from-start off)");
            continue;
        }
        rc = smem_counters_open(r->dev.ordinal, &r->counters, &r->counters_session, why, sizeof(why));
        if (rc == SMEM_EINVAL) {
            smem_error("invalid value for --counters: %s", why);
            return SMEM_EXIT_USAGE;
        }
        if (rc) {
            smem_counters_run_unavailable(&r->counters, why);
            smem_warn("no counters on device %d: %s; timing every point without them", r->dev.ordinal, why);
        } else if (r->counters.skipped[0] && !d) {
            smem_warn("--counters: %s has no %s; the rest of the default set is collected", r->dev.name,
                      r->counters.skipped);
        }
    }
    return SMEM_OK;
}

/* -o, or <gpu>_<yyyymmdd>_<sweep>.json in the current directory (_2, _3, ... when taken at the end);
 * everything about it that can be known is checked before anything runs. */
static int choose_output(struct job *j)
{
    int rc;

    j->what = j->o.bench ? j->o.bench : j->o.kernel ? j->kj.desc.function : j->o.sweep_text;
    j->sweep_label = !j->o.kernel ? j->what : j->o.n_sweeps ? j->o.sweep_text : "carveout,dynamic";
    if (j->o.output) {
        rc = smem_output_open(&j->out, j->o.output, false, j->o.force);
    } else {
        smem_output_default_name(j->out_path, sizeof(j->out_path), j->runs[0].dev.name, j->what);
        rc = smem_output_open(&j->out, j->out_path, true, false);
    }
    return !rc ? SMEM_OK : rc == SMEM_EINVAL ? SMEM_EXIT_USAGE : SMEM_EXIT_FAILED;
}

/* Whether a predict run predicted anything: library calls alone (cuBLAS, a copy), or points beyond
 * the model's limits only, have nothing to show. */
static bool any_predicted(const struct smem_device_run *r)
{
    for (size_t i = 0; i < r->out.done; i++)
        if (r->results[i].status == SMEM_POINT_PREDICTED)
            return true;
    return false;
}

/* Runs the plan: predicted on the model, or measured on every device at once. */
static int run(struct job *j)
{
    struct smem_run_settings s = {
        .counters_external = j->o.counters.on && getenv("SMEM_COUNTERS_EXTERNAL") && *getenv("SMEM_COUNTERS_EXTERNAL"),
        .rule = { .min_samples = (size_t)j->o.min_samples, .max_samples = (size_t)j->o.max_samples,
                  .max_noise = j->o.max_noise, .timeout_s = j->o.timeout_s, .fixed = j->o.quick },
        .seed = j->o.seed, .no_optin = j->o.no_optin, .check = j->o.check, .cold = j->o.cold,
        .progress = smem_progress_wanted(j->o.quiet), .trials = (size_t)j->o.trials, .order_seed = j->o.order_seed,
    };

    for (int d = 0; d < j->n_runs; d++)
        if (!(j->runs[d].results = calloc(j->n ? j->n : 1, sizeof(struct smem_result)))) {
            smem_error("out of memory: cannot allocate the results of %zu points", j->n);
            return SMEM_EXIT_FAILED;
        }
    smem_signals_catch();
    smem_utc_now(j->started, sizeof(j->started), false);
    if (j->predict) {
        struct smem_device_run *r = &j->runs[0];
        smem_run_predict(&r->dev, j->points, j->n, &s, r->results, &r->out);
        if (!r->out.signal && !any_predicted(r)) {
            /* nothing but skips is no prediction: say why instead of writing a file of skips. A user
             * kernel's points are skipped for what its description asks (a fractional grid, a block
             * over its __launch_bounds__): bad input, 2 as with --predict, never 3 ("no GPU") */
            bool input = j->o.kernel != NULL;
            if (j->fallback && !input)
                smem_error("%s; none of the %zu points can be predicted without one: %s: %s", j->why, j->n,
                           r->results[0].point->bench->name, r->results[0].reason);
            else
                smem_error("none of the %zu points can be predicted on %s: %s: %s", j->n, r->dev.name,
                           r->results[0].point->bench->name, r->results[0].reason);
            return j->fallback && !input ? SMEM_EXIT_NODEV : SMEM_EXIT_USAGE;
        }
        if (j->fallback)
            smem_warn("%s: ran in predict mode for the built-in %s model (occupancy only); --require-gpu makes this an error",
                      j->why, SMEM_DEFAULT_MODEL);
        return SMEM_OK;
    }
    if (smem_run_devices(j->runs, j->n_runs, j->points, j->n, &s))
        return SMEM_EXIT_FAILED;
    for (int d = 0; d < j->n_runs; d++)
        smem_nvml_read(j->runs[d].dev.pci_bus_id, &j->runs[d].dev.nvml_end);
    return SMEM_OK;
}

/* What compares points with each other: each device's baselines, and the spread between devices. */
static int derive(struct job *j)
{
    for (int d = 0; d < j->n_runs; d++)
        smem_run_derive(j->runs[d].results, j->runs[d].out.done);
    if (j->n_runs > 1) {
        if (!(j->spread = calloc(j->n ? j->n : 1, sizeof(*j->spread)))) {
            smem_error("cannot allocate the spread of %zu points", j->n);
            return SMEM_EXIT_FAILED;
        }
        smem_run_spread(j->runs, j->n_runs, j->n, j->spread);
    }
    return SMEM_OK;
}

/* The result file, then the table, then what ended a device's run early; the exit status. */
static int report(struct job *j, int argc, char **argv)
{
    struct smem_run_info info = { .argc = argc, .argv = argv, .mode = j->predict ? "predict" : "measure",
                                  .sweep = j->sweep_label, .started = j->started, .min_samples = j->o.min_samples,
                                  .max_samples = j->o.max_samples, .max_noise = j->o.max_noise,
                                  .timeout_s = j->o.timeout_s, .seed = j->o.seed, .quick = j->o.quick,
                                  .no_optin = j->o.no_optin, .cold = j->o.cold,
                                  .trials = j->o.check ? 1 : j->o.trials, .order_seed = j->o.order_seed };
    FILE *table = j->out.kind == SMEM_OUTPUT_STDOUT ? stderr : stdout;
    cJSON *doc = smem_report_new(&info, &j->runs[0].dev);
    bool several = j->n_runs > 1;
    size_t total = 0;
    int status = SMEM_EXIT_OK, rc, sig = 0, late;

    if (!doc) {
        smem_error("out of memory while building the results");
        return SMEM_EXIT_FAILED;
    }
    if (several)
        smem_report_add_devices(doc, j->runs, j->n_runs);
    for (int d = 0; d < j->n_runs; d++) {
        const struct smem_device_run *r = &j->runs[d];
        for (size_t i = 0; i < r->out.done; i++) {
            smem_report_add(doc, &r->results[i], several ? d : -1);
            smem_report_point_counters(doc, &r->results[i], &r->counters);
            if (r->results[i].status == SMEM_POINT_FAILED || r->results[i].status == SMEM_POINT_INVALID)
                status = SMEM_EXIT_FAILED;
        }
        if (r->out.signal || r->out.sticky)
            smem_report_mark_incomplete(doc, r->out.signal, r->out.sticky ? r->out.sticky_reason : "interrupted");
        if (r->out.signal && !sig)
            sig = r->out.signal;
        total += r->out.done;
    }
    if (several)
        smem_report_spread(doc, j->points, j->spread, j->n);
    if (j->o.kernel) {
        cJSON *k = smem_kernel_record(&j->kj);
        if (!k || !cJSON_AddItemToObject(doc, "kernel", k)) {
            cJSON_Delete(k);
            smem_error("out of memory while building the results");
            status = SMEM_EXIT_FAILED;
        }
    }
    if (!j->predict)
        smem_report_timing(doc, j->runs, j->n_runs, smem_now_s() - j->t0);
    smem_report_counters(doc, j->runs, j->n_runs);
    rc = smem_output_commit(&j->out, doc);
    late = smem_interrupted != sig ? smem_interrupted : 0;   /* a signal that came during the write */
    if (rc)
        status = SMEM_EXIT_FAILED;
    else if (j->out.kind != SMEM_OUTPUT_STDOUT && (!j->o.quiet || total < j->n * (size_t)j->n_runs))
        /* -q: silent on success; a run that stopped short still says how far it got */
        fprintf(stderr, "smembench: wrote %zu of %zu points to %s\n", total, j->n * (size_t)j->n_runs, j->out.path);
    cJSON_Delete(doc);
    for (int d = 0; d < j->n_runs && !j->o.quiet; d++) {
        smem_table_print(table, &j->runs[d].dev, j->runs[d].results, j->runs[d].out.done);
        smem_table_counters(table, &j->runs[d]);
    }
    if (several && !j->o.quiet)
        smem_table_spread(table, j->runs, j->n_runs, j->points, j->spread, j->n);
    if (table == stdout && (fflush(stdout) || ferror(stdout)))
        smem_warn("cannot write the table to stdout: %s", strerror(errno));
    for (int d = 0; d < j->n_runs; d++)
        if (j->runs[d].out.sticky) {
            smem_error("device %d stopped after a CUDA error that ends the context: %s", j->runs[d].dev.ordinal,
                       j->runs[d].out.sticky_reason);
            status = SMEM_EXIT_FAILED;
        }
    for (int d = 0; d < j->n_runs; d++)
        if (j->runs[d].out.signal) {
            smem_error("interrupted by %s after %zu of %zu points", smem_signal_name(j->runs[d].out.signal),
                       j->runs[d].out.done, j->n);
            break;
        }
    if (late && !rc)
        smem_error("%s came while the results were written; the file is complete", smem_signal_name(late));
    /* a signal's status, unless the results could not be written: then 1 says that nothing was */
    return (sig || late) && !rc ? 128 + (sig ? sig : late) : status;
}

static void release(struct job *j)
{
    smem_output_close(&j->out);   /* a temporary file never committed goes with it */
    for (int d = 0; d < j->n_runs; d++) {
        smem_results_free(j->runs[d].results, j->runs[d].out.done);
        free(j->runs[d].results);
    }
    for (int d = 0; d < j->n_runs; d++)
        smem_counters_close(j->runs[d].counters_session);
    free(j->spread);
    free(j->points);
    if (j->o.kernel)
        smem_kernel_close(&j->kj);
}

#ifdef SMEM_LIBRARY
/* libsmembench's smembench_main (src/libsmembench.c) runs this for a program's registered kernels */
int smem_driver_main(int argc, char **argv);
#define main smem_driver_main
#endif

int main(int argc, char **argv)
{
    static struct job j;    /* static: a record per possible device is too large for the stack */
    int status;

    smem_output_guard_stdio();                  /* before any file is opened: none may become stdout */
#ifdef SMEM_TEST_HOOKS
    test_hooks_from_env();
#endif
    j.out.fd = j.out.dirfd = -1;
    j.t0 = smem_now_s();
    if ((status = parse(argc, argv, &j.o)) != CONTINUE)
        return status;                          /* --help, --list, ... or a usage error */
    j.predict = j.o.predict != NULL;
    if (!j.o.order_seed_given)
        j.o.order_seed = order_seed_now();  /* every process its own order; the file records it */
    if ((status = check_plan(&j)) ||            /* the whole request, checked before a GPU is touched */
        (status = open_devices(&j)) ||          /* the GPUs, or a model in predict mode */
        (status = open_counters(&j)) ||         /* --counters: the names checked on each GPU's chip */
        (status = plan(&j, &j.runs[0].dev)) ||  /* the points, once, with the device's own defaults */
        (status = choose_output(&j)) ||         /* checked before anything runs */
        (status = run(&j)) ||                   /* one host thread and stream per device */
        (status = derive(&j)))                  /* baselines; the spread between devices */
        goto done;
    status = report(&j, argc, argv);            /* the file, the table, what ended a run early */
    if (smem_user_hung()) {
        /* a user kernel still spins on the GPU: every CUDA call from here on (frees, the runtime's
         * exit handlers) would wait for it; the file is written, and the process's end stops it */
        smem_error("the kernel %s hung (--watchdog %.0f s); the %zu points before it are in the file", j.kj.desc.function,
                   j.o.watchdog_s, j.runs[0].out.done ? j.runs[0].out.done - 1 : 0);
        fflush(stdout);
        fflush(stderr);
        _exit(SMEM_EXIT_FAILED);
    }
done:
    release(&j);
    return status;
}
