/* CUDA status handling: the last failure of each thread, as text, and which errors are sticky. */
#include "cuda_status.h"

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
