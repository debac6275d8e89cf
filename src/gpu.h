/* CUDA helpers shared by the driver and the benchmarks' GPU operations: every CUDA status becomes
 * a located error (file, line, call text) that the point's record carries. */
#ifndef SMEM_GPU_H
#define SMEM_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../bench/bench.h"
#include "smem.h"

/* Records a failed call as the last CUDA error; SMEM_ESTICKY when the context is lost. */
int smem_cuda_fail(cudaError_t e, const char *call, const char *file, int line);

/* "cudaErrorX: message (call at file:line)" of the last failure, or "" after smem_cuda_clear. */
const char *smem_cuda_last_error(void);
void smem_cuda_clear(void);

/* Whether e leaves the CUDA context unusable (the rest of the run cannot go on). */
bool smem_cuda_is_sticky(cudaError_t e);

/* The status of a CUDA call as 0 or a negative code, recording the failure. */
#define SMEM_CUDA_STATUS(call) smem_cuda_status((cudaError_t)(call), #call, __FILE__, __LINE__)
int smem_cuda_status(cudaError_t e, const char *call, const char *file, int line);

/* Inside a function with `int rc` and a `fail:` label. */
#define SMEM_CUDA_CHECK(call)                                                       \
    do {                                                                            \
        cudaError_t e_ = (cudaError_t)(call);                                       \
        if (e_ != cudaSuccess) {                                                    \
            rc = smem_cuda_fail(e_, #call, __FILE__, __LINE__);                     \
            goto fail;                                                              \
        }                                                                           \
    } while (0)

enum smem_fill {
    SMEM_FILL_FLOATS,   /* uniform floats in [-1, 1) */
    SMEM_FILL_WORDS,    /* uniform 32-bit words */
};

/* n seeded random 4-byte values on the host (*host, malloc'd) and in a new device buffer (*dev). */
int smem_gpu_random(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host);

/* Shorthand for the float case. */
int smem_gpu_random_floats(size_t n, uint64_t seed, float **dev, float **host);

/* A benchmark's input and output: the input seeded random on host and device, the output poisoned
 * on the device (every byte 0xff: NaN as a float) so an element the kernel never writes cannot pass,
 * and a host buffer to fetch it into for verification. */
struct smem_io {
    void *in, *out;         /* device */
    void *h_in, *h_out;     /* host */
    size_t n_in, n_out;     /* 4-byte elements */
};

/* Allocates c->priv as a struct smem_io with n_in random inputs and n_out poisoned outputs. */
int smem_io_setup(struct smem_case *c, size_t n_in, size_t n_out, enum smem_fill fill);

/* Copies the device output into h_out. */
int smem_io_fetch(struct smem_io *io);

/* Frees c->priv's struct smem_io, however far its setup got. */
void smem_io_teardown(struct smem_case *c);


#endif
