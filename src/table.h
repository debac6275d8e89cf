/* The terminal table of a run's results. */
#ifndef SMEM_TABLE_H
#define SMEM_TABLE_H

#include <stdio.h>

#include "device.h"
#include "result.h"
#include "runner.h"

/* Prints one row per result; occupancy as api/predicted/measured, a '!' where the driver did not
 * follow the carveout hint (measured differs from the API). */
void smem_table_print(FILE *f, const struct smem_device *dev, const struct smem_result *r, size_t n);

/* What is published for dev's compute capability (core/arch.c), each value with its source. */
void smem_table_published(FILE *f, const struct smem_device *dev);

/* Per point run on several devices: each device's median and the spread, slowest over fastest;
 * a spread over 5 % is marked, since one slow or misconfigured GPU in a node should stand out. */
void smem_table_spread(FILE *f, const struct smem_device_run *runs, int n_runs, const struct smem_point *points,
                       const struct smem_spread *spread, size_t n);

#endif
