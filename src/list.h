/* What smembench prints without running anything: --list (benchmarks, axes, defaults, sweeps) and
 * --predict list (the built-in GPU models). */
#ifndef SMEM_LIST_H
#define SMEM_LIST_H

#include <stddef.h>
#include <stdio.h>

#include "bench.h"
#include "gpus.h"
#include "sweep.h"

/* The benchmarks with their axes and defaults, then the sweeps. */
void smem_list_benches(FILE *f);

/* The same for any descriptors and sweeps (the tests give long names). */
void smem_list_benches_of(FILE *f, const struct smem_bench *const *benches, size_t n_benches,
                          const struct smem_sweep *sweeps, size_t n_sweeps);

/* --list --json: the same as one JSON document ({"benchmarks": [...], "sweeps": [...]}, each sweep
 * with its benchmarks, and "archs": [...], each compute capability of core/arch.c with what is
 * published for it); SMEM_OK, SMEM_ENOMEM or SMEM_EIO. */
int smem_list_benches_json(FILE *f);

/* The same for any descriptors and sweeps. */
int smem_list_benches_json_of(FILE *f, const struct smem_bench *const *benches, size_t n_benches,
                              const struct smem_sweep *sweeps, size_t n_sweeps);

/* The built-in GPU models for --predict. */
void smem_list_models(FILE *f);

/* The same for any models. */
void smem_list_models_of(FILE *f, const struct smem_gpu_model *models, size_t n);

/* The models' keys, comma-separated, into buf (for a message). */
void smem_list_model_keys(char *buf, size_t len);

#endif
