/* What the GPU test files share (tests/gpu/gpu_test.c defines them). */
#ifndef SMEM_GPU_TEST_H
#define SMEM_GPU_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "result.h"
#include "sweep.h"

/* Device 0, opened by open_device (each test suite's init). */
extern struct smem_device dev;
void open_device(void);

/* Set, measure flushes L2 before every sample (one launch a sample), as --cold does. */
extern bool cold_mode;

/* Measures points p[0..n) on dev as one run (the tests' noise rule), derived metrics included. */
struct smem_result *measure(const struct smem_point *p, size_t n, bool no_optin);

/* Runs the points of a request on dev and returns the results (n of them), derived metrics included. */
struct smem_result *run(struct smem_plan_request *req, size_t *n, bool no_optin);

/* run, with trials per point (the driver's default is 3): the later trials pooled as a run pools them. */
struct smem_result *run_trials(struct smem_plan_request *req, size_t *n, int trials);

/* The value of a metric of r; fails the test when r has none of that name. */
double metric(const struct smem_result *r, const char *name);

/* The point of bench among r[0..n) whose axis has value (any point of bench without that axis); fails
 * the test when there is none. */
const struct smem_result *find(const struct smem_result *r, size_t n, const char *bench, const char *axis,
                               int64_t value);

#endif
