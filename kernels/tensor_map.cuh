/* The driver's cuTensorMapEncodeTiled, which builds the CUtensorMaps of TMA tensor copies (the
 * swizzle sweep's and the SGEMM's), found at run time by cudaGetDriverEntryPointByVersion: no link
 * against libcuda. Host code. */
#ifndef SMEM_KERNELS_TENSOR_MAP_CUH
#define SMEM_KERNELS_TENSOR_MAP_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

/* Sets *encode; 0, cudaErrorNotSupported when the driver lacks it, or the runtime's error (as int). */
static inline int smem_tensor_map_encoder(PFN_cuTensorMapEncodeTiled_v12000 *encode)
{
    cudaDriverEntryPointQueryResult found;
    cudaError_t e;

    *encode = nullptr;
    e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)encode, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess)
        return (int)e;
    return found == cudaDriverEntryPointSuccess && *encode ? 0 : (int)cudaErrorNotSupported;
}

#endif
