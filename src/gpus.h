/* Built-in GPU models for predict mode: the properties that bear on shared memory and occupancy. */
#ifndef SMEM_GPUS_H
#define SMEM_GPUS_H

#include <stddef.h>

#include "device.h"

struct smem_gpu_model {
    const char *key;            /* what --predict takes: h100, a100, ... */
    struct smem_device dev;
};

extern const struct smem_gpu_model smem_gpu_models[];
extern const size_t smem_n_gpu_models;

/* The model of that key (case-insensitive), or NULL. */
const struct smem_gpu_model *smem_gpu_find(const char *key);

/* The model predict mode falls back to on a machine without a GPU. */
#define SMEM_DEFAULT_MODEL "h200"

#endif
