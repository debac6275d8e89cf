/* The kernels of saxpy.cu as C sees them: their addresses (the handles smembench_register takes)
 * and a host wrapper that launches one with <<<>>>. */
#ifndef SAXPY_H
#define SAXPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The __global__ saxpy(float a, const float *x, float *y, int n): one element per thread. */
const void *saxpy_function(void);
/* The __global__ saxpy_stride(float a, const float *x, float *y, int n): a grid-stride loop. */
const void *saxpy_stride_function(void);
/* saxpy_stride<<<grid, block, dyn_smem, stream>>>(a, x, y, n); returns the launch's cudaError_t. */
int saxpy_stride_launch(unsigned grid, unsigned block, unsigned cluster, size_t dyn_smem, void *stream, float a,
                        const float *x, float *y, int n);

#ifdef __cplusplus
}
#endif

#endif
