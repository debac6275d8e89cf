/* What the GPU test files share (tests/gpu/test_gpu.c defines them). */
#ifndef SMEM_GPU_TEST_H
#define SMEM_GPU_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "result.h"
#include "sweep.h"

/* Device 0, opened by open_device (each test suite's init). */
extern struct smem_device dev;
void open_device(void);

/* Runs the points of a request on dev and returns the results (n of them), derived metrics included. */
struct smem_result *run(struct smem_plan_request *req, size_t *n, bool no_optin);

/* The value of a metric of r; fails the test when r has none of that name. */
double metric(const struct smem_result *r, const char *name);

#endif
