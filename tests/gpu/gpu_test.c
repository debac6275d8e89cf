/* The GPU tests' harness: the device each test opens, points measured by the tests' noise rule, and
 * main. The tests (numbers checked against physics, the bank model and the runtime API on a real
 * device) are this folder's test_*.c, a Criterion suite or benchmark family each, one program.
 * The whole suite exits 77 (skipped) where no CUDA device can be opened. Criterion runs each test
 * in a child process and CUDA does not survive fork, so the parent never touches CUDA: a child of
 * its own looks for the device, and every test opens it afresh. The tests run one at a time, so
 * no two time the GPU at once. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/options.h>

#include "device_open.h"
#include "gpu_test.h"
#include "runner.h"

struct smem_device dev;

void open_device(void)
{
    char why[512];

    cr_assert_eq(smem_device_open(0, &dev, why, sizeof(why)), 0, "%s", why);
}

bool cold_mode;

/* Measures points p[0..n) as one run of trials each (the tests' noise rule), derived metrics included. */
static struct smem_result *measure_trials(const struct smem_point *p, size_t n, bool no_optin, int trials)
{
    struct smem_result *r = calloc(n, sizeof(*r));
    struct smem_run_outcome out;
    struct smem_run_settings s = {
        .rule = { .min_samples = 10, .max_samples = 200, .max_noise = 0.005, .timeout_s = 0.5 },
        .seed = 1, .no_optin = no_optin, .cold = cold_mode, .trials = trials, .order_seed = 7,
    };

    cr_assert_eq(smem_run_measure(&dev, p, n, &s, r, &out), 0);
    cr_assert_eq(out.done, n);
    cr_assert_not(out.sticky, "%s", out.sticky_reason);
    smem_run_derive(r, n);
    return r;
}

struct smem_result *measure(const struct smem_point *p, size_t n, bool no_optin)
{
    return measure_trials(p, n, no_optin, 1);
}

struct smem_result *run_trials(struct smem_plan_request *req, size_t *n, int trials)
{
    struct smem_point *p;

    cr_assert_eq(smem_sweep_expand(req, &p, n, &dev), 0);
    return measure_trials(p, *n, false, trials);
}

struct smem_result *run(struct smem_plan_request *req, size_t *n, bool no_optin)
{
    struct smem_point *p;

    cr_assert_eq(smem_sweep_expand(req, &p, n, &dev), 0);
    return measure(p, *n, no_optin);
}

double metric(const struct smem_result *r, const char *name)
{
    for (size_t i = 0; i < r->metrics.n; i++)
        if (!strcmp(r->metrics.m[i].name, name))
            return r->metrics.m[i].value;
    cr_assert_fail("no metric %s on %s", name, r->point->bench->name);
    return 0;
}

const struct smem_result *find(const struct smem_result *r, size_t n, const char *bench, const char *axis,
                               int64_t value)
{
    for (size_t i = 0; i < n; i++) {
        int a = smem_bench_axis(r[i].point->bench, axis);
        if (!strcmp(r[i].point->bench->name, bench) && (a < 0 || r[i].point->values[a] == value))
            return &r[i];
    }
    cr_assert_fail("no %s point with %s = %lld", bench, axis, (long long)value);
    return NULL;
}

/* 0 when a CUDA device can be opened, asked in a child so this process stays CUDA-free. */
static int device_present(void)
{
    int status = 1;
    pid_t pid = fork();

    if (pid == 0) {
        char why[512];
        int n = smem_device_count(why, sizeof(why));
        if (n <= 0)
            fprintf(stderr, "test_gpu: skipped: %s\n", why);
        _exit(n > 0 ? 0 : 1);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    struct criterion_test_set *tests;
    int ok;

    if (getenv("SMEM_SANITIZER")) {
        /* timing loops under a sanitizer measure the sanitizer; the smoke test covers every kernel */
        printf("1..0 # SKIP timing tests under %s measure the sanitizer; the smoke test runs every kernel there\n",
               getenv("SMEM_SANITIZER"));
        return 77;
    }
    if (!device_present()) {
        printf("1..0 # SKIP no CUDA device\n");
        return 77;
    }
    criterion_options.jobs = 1;
    tests = criterion_initialize();
    ok = criterion_handle_args(argc, argv, true) ? criterion_run_all_tests(tests) : 0;
    criterion_finalize(tests);
    return ok ? 0 : 1;
}
