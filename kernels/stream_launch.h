/* stream.cu, the stream family (the dynamic and static benchmarks): one streaming kernel whose
 * shared allocation is dynamic or a static array of a compiled size. Launchers return a
 * cudaError_t as int and never synchronize. */
#ifndef SMEM_KERNELS_STREAM_H
#define SMEM_KERNELS_STREAM_H

#include <stddef.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_STREAM_BLOCK 256
#define SMEM_STREAM_CHUNK 4096   /* floats each block streams */

/* The static __shared__ sizes compiled as kernels, in bytes. A static array cannot exceed 48 KiB:
 * the compiler refuses (ptxas "uses too much shared data"), which is why larger allocations must
 * be dynamic and opted in. */
#define SMEM_STATIC_SIZES(X) X(1024) X(2048) X(4096) X(8192) X(16384) X(24576) X(32768) X(40960) X(49152)

/* The kernel with a dynamic allocation. */
const void *smem_dynamic_fn(void);

/* Streams grid chunks of in through a dyn_bytes dynamic allocation into out (one float a thread). */
int smem_dynamic_launch(unsigned grid, size_t dyn_bytes, const float *in, float *out,
                        struct smem_clock *clk, void *stream);

/* The kernel with a static array of bytes (one of SMEM_STATIC_SIZES), or NULL. */
const void *smem_static_fn(size_t bytes);

/* The same stream through a static array of bytes. */
int smem_static_launch(size_t bytes, unsigned grid, const float *in, float *out,
                       struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
