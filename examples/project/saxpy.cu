/* A program's own kernels, y = a x + y, for smembench to sweep: saxpy (one element per thread)
 * smembench launches itself from saxpy.json; saxpy_stride (a grid-stride loop) goes through the
 * program's own <<<>>> launch below, as a program with a launcher of its own would keep it.
 * extern "C": the names in the launch descriptions are the names in the file. */
#include <stddef.h>

#include <cuda_runtime.h>

#include "saxpy.h"

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpy_stride(float a, const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" const void *saxpy_function(void)
{
    return (const void *)saxpy;
}

extern "C" const void *saxpy_stride_function(void)
{
    return (const void *)saxpy_stride;
}

extern "C" int saxpy_stride_launch(unsigned grid, unsigned block, unsigned cluster, size_t dyn_smem, void *stream,
                                   float a, const float *x, float *y, int n)
{
    /* <<<>>> has no cluster dimension: a cluster point is refused rather than run as something else */
    if (cluster)
        return (int)cudaErrorNotSupported;
    saxpy_stride<<<grid, block, dyn_smem, (cudaStream_t)stream>>>(a, x, y, n);
    return (int)cudaGetLastError();
}
