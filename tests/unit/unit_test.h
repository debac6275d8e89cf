/* What the unit files of the benchmarks' plans share (tests/unit/unit_test.c defines them). */
#ifndef SMEM_UNIT_TEST_H
#define SMEM_UNIT_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "device.h"
#include "result.h"

/* Plans the point of bench with values (in its axis order) on dev; the status, the plan and the reason. */
int plan(const char *bench, const int64_t *v, const struct smem_device *dev, struct smem_plan *p, char *why);

/* Predicts the points of a sweep on a model; the results (n of them), points kept in *pts. */
struct smem_result *predict(const char *sweep, const char *model, struct smem_point **pts, size_t *n);

#endif
