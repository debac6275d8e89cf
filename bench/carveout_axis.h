/* The carveout axis the carveout sweep's benchmarks share: its values, as a static list and on a
 * device. */
#ifndef SMEM_CARVEOUT_AXIS_H
#define SMEM_CARVEOUT_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "smem.h"

/* The preferred carveout in percent, 0..100 in steps of 10, shared by the carveout sweep's benchmarks;
 * on a device, also the smallest percentage of every carveout step the steps of 10 miss
 * (smem_carveout_device_pcts). */
extern const int64_t smem_carveout_pcts[11], smem_carveout_pcts_quick[3];
#define SMEM_CARVEOUT_AXIS                                                                              \
    { .name = "carveout_pct", .unit = "%", .help = "preferred shared-memory carveout",                  \
      .defaults = smem_carveout_pcts, .n_defaults = SMEM_ARRAY_LEN(smem_carveout_pcts),                 \
      .quick = smem_carveout_pcts_quick, .n_quick = SMEM_ARRAY_LEN(smem_carveout_pcts_quick), .min = 0, \
      .max = 100, .from_device = true }

/* The carveout percentages of dev: under quick the quick list; otherwise 0..100 in steps of 10 plus,
 * for each shared-memory capacity the device offers (core/arch.c) that no step of 10 reaches, the
 * smallest percentage that rounds up to it (a preference of p % asks p % of the per-SM maximum,
 * rounded down to bytes, then up to the next capacity, as cuda_occupancy.h and the Programming
 * Guide describe). Ascending; the count. */
size_t smem_carveout_device_pcts(const struct smem_device *dev, bool quick, int64_t *out, size_t max);

#endif
