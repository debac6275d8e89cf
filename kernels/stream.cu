/* The cost of a shared allocation is occupancy. Each block streams a fixed chunk of global memory
 * (latency-bound, so time falls as more blocks are resident) and passes its partial sums through
 * its shared allocation; the allocation's size changes nothing but how many blocks fit on an SM.
 * The same body runs with an extern (dynamic) buffer or a static __shared__ array of fixed size. */
#include <cstdint>

#include "clock.cuh"
#include "stream_launch.h"

__device__ __forceinline__ void stream_body(float *buf, uint32_t nwords, const float *in, float *out,
                                            smem_clock *clk)
{
    const size_t base = (size_t)blockIdx.x * SMEM_STREAM_CHUNK;
    const uint32_t slots = nwords < blockDim.x ? nwords : blockDim.x;
    float v = 0;

    smem_clock_mark(clk, false);
#pragma unroll 16
    for (uint32_t i = threadIdx.x; i < SMEM_STREAM_CHUNK; i += blockDim.x)
        v += in[base + i];
    /* the exchange through shared memory: thread t hands its sum to thread slots-1-t */
    if (threadIdx.x < slots)
        buf[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x < slots)
        v = buf[slots - 1 - threadIdx.x];
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = v;
    smem_clock_mark(clk, true);
}

__global__ void __launch_bounds__(SMEM_STREAM_BLOCK)
dynamic_kernel(uint32_t nwords, const float *in, float *out, smem_clock *clk)
{
    extern __shared__ float buf[];
    stream_body(buf, nwords, in, out, clk);
}

template <size_t BYTES>
__global__ void __launch_bounds__(SMEM_STREAM_BLOCK)
static_kernel(const float *in, float *out, smem_clock *clk)
{
    __shared__ float buf[BYTES / sizeof(float)];
    stream_body(buf, BYTES / sizeof(float), in, out, clk);
}

extern "C" const void *smem_static_fn(size_t bytes)
{
    switch (bytes) {
#define AS_CASE(b) case b: return (const void *)static_kernel<b>;
        SMEM_STATIC_SIZES(AS_CASE)
#undef AS_CASE
    }
    return nullptr;
}

extern "C" int smem_static_launch(size_t bytes, unsigned grid, const float *in, float *out, smem_clock *clk,
                                  void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;

    switch (bytes) {
#define AS_LAUNCH(b) case b: static_kernel<b><<<grid, SMEM_STREAM_BLOCK, 0, s>>>(in, out, clk); break;
        SMEM_STATIC_SIZES(AS_LAUNCH)
#undef AS_LAUNCH
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" const void *smem_dynamic_fn(void)
{
    return (const void *)dynamic_kernel;
}

extern "C" int smem_dynamic_launch(unsigned grid, size_t dyn_bytes, const float *in, float *out, smem_clock *clk,
                                   void *stream)
{
    dynamic_kernel<<<grid, SMEM_STREAM_BLOCK, dyn_bytes, (cudaStream_t)stream>>>(
        (uint32_t)(dyn_bytes / sizeof(float)), in, out, clk);
    return (int)cudaGetLastError();
}
