/* CUDA status handling and the random inputs every benchmark draws from. */
#include "gpu.h"

#include <math.h>
#include <stdlib.h>

#include "rng.h"

/* per thread: with --device all each device's thread records its own failures */
static _Thread_local char last_error[512];

bool smem_cuda_is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

int smem_cuda_fail(cudaError_t e, const char *call, const char *file, int line)
{
    const char *base = file;

    for (const char *p = file; *p; p++)
        if (*p == '/')
            base = p + 1;
    smem_fmt(last_error, sizeof(last_error), "%s: %s (%s at %s:%d)", cudaGetErrorName(e),
             cudaGetErrorString(e), call, base, line);
    return smem_cuda_is_sticky(e) ? SMEM_ESTICKY : SMEM_ECUDA;
}

int smem_cuda_status(cudaError_t e, const char *call, const char *file, int line)
{
    return e == cudaSuccess ? SMEM_OK : smem_cuda_fail(e, call, file, line);
}

const char *smem_cuda_last_error(void)
{
    return last_error;
}

void smem_cuda_clear(void)
{
    last_error[0] = '\0';
}

int smem_gpu_random_floats(size_t n, uint64_t seed, float **dev, float **host)
{
    uint64_t state = seed;
    float *h = malloc(n * sizeof(*h));
    int rc = SMEM_OK;

    *dev = NULL;
    if (!h)
        return SMEM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        h[i] = smem_rng_float(&state);
    SMEM_CUDA_CHECK(cudaMalloc((void **)dev, n * sizeof(*h)));
    SMEM_CUDA_CHECK(cudaMemcpy(*dev, h, n * sizeof(*h), cudaMemcpyHostToDevice));
    *host = h;
    return SMEM_OK;
fail:
    cudaFree(*dev);
    *dev = NULL;
    free(h);
    return rc;
}

int smem_gpu_random_words(size_t n, uint64_t seed, uint32_t **dev, uint32_t **host)
{
    uint64_t state = seed;
    uint32_t *h = malloc(n * sizeof(*h));
    int rc = SMEM_OK;

    *dev = NULL;
    if (!h)
        return SMEM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        h[i] = (uint32_t)smem_rng_next(&state);
    SMEM_CUDA_CHECK(cudaMalloc((void **)dev, n * sizeof(*h)));
    SMEM_CUDA_CHECK(cudaMemcpy(*dev, h, n * sizeof(*h), cudaMemcpyHostToDevice));
    *host = h;
    return SMEM_OK;
fail:
    cudaFree(*dev);
    *dev = NULL;
    free(h);
    return rc;
}

double smem_rel_diff(double a, double b, double floor)
{
    double scale = fabs(b) > floor ? fabs(b) : floor;

    return fabs(a - b) / scale;
}
