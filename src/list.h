/* What smembench prints without running anything: --list (benchmarks, axes, defaults, sweeps) and
 * --predict list (the built-in GPU models). */
#ifndef SMEM_LIST_H
#define SMEM_LIST_H

#include <stddef.h>
#include <stdio.h>

/* The benchmarks with their axes and defaults, then the sweeps. */
void smem_list_benches(FILE *f);

/* The built-in GPU models for --predict. */
void smem_list_models(FILE *f);

/* The models' keys, comma-separated, into buf (for a message). */
void smem_list_model_keys(char *buf, size_t len);

#endif
