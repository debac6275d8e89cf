/* CUDA status helpers shared by every layer that calls the runtime: each CUDA status becomes a
 * located error (file, line, call text) that the point's record carries. Depends on cudart only;
 * built only with CUDA. */
#ifndef SMEM_CUDA_STATUS_H
#define SMEM_CUDA_STATUS_H

#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "smem.h"

/* Records a failed call as the last CUDA error; SMEM_ESTICKY when the context is lost. */
int smem_cuda_fail(cudaError_t e, const char *call, const char *file, int line);

/* "cudaErrorX: message (call at file:line)" of the last failure, or "" after smem_cuda_clear. */
const char *smem_cuda_last_error(void);

/* Forgets the last failure (per thread). */
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

#endif
