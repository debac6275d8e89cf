/* Shared memory as a channel between the threads of a block: a sum of n floats. Every thread
 * first sums its grid-stride share with 16-byte loads (the part that streams DRAM), then the block
 * combines its 256 partial sums one of three ways, and one atomicAdd per block reaches the result.
 * tree:    a shared array halved log2(256) times, __syncthreads() between steps, since each
 *          step reads what other threads wrote in the one before
 * shuffle: __shfl_down_sync within each warp, one shared slot per warp, one barrier
 * atomic:  every thread atomicAdd()s into one shared word, one barrier */
#include <cstdint>

#include "clock.cuh"
#include "reduction_launch.h"

__device__ __forceinline__ float thread_sum(const float4 *in, size_t n4)
{
    float s = 0;

#pragma unroll 4
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    return s;
}

template <int METHOD>
__global__ void __launch_bounds__(SMEM_REDUCTION_BLOCK) reduction_kernel(const float4 *in, size_t n4, float *out,
                                                                         smem_clock *clk)
{
    __shared__ float part[SMEM_REDUCTION_BLOCK];
    __shared__ float total;
    const unsigned t = threadIdx.x;

    smem_clock_mark(clk, false);
    float s = thread_sum(in, n4);
    if (METHOD == SMEM_REDUCE_TREE) {
        part[t] = s;
        __syncthreads();
        for (unsigned half = SMEM_REDUCTION_BLOCK / 2; half > 0; half /= 2) {
            if (t < half)
                part[t] += part[t + half];
            __syncthreads();
        }
        s = part[0];
    } else if (METHOD == SMEM_REDUCE_SHUFFLE) {
        for (int off = 16; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (t % 32 == 0)
            part[t / 32] = s;
        __syncthreads();
        s = 0;
        if (t < 32) {
            s = t < SMEM_REDUCTION_BLOCK / 32 ? part[t] : 0.0f;
            for (int off = 16; off > 0; off /= 2)
                s += __shfl_down_sync(0xffffffffu, s, off);
        }
    } else {
        if (t == 0)
            total = 0;
        __syncthreads();
        atomicAdd(&total, s);
        __syncthreads();
        s = total;
    }
    if (t == 0)
        atomicAdd(out, s);
    smem_clock_mark(clk, true);
}

extern "C" const void *smem_reduction_fn(int method)
{
    switch (method) {
    case SMEM_REDUCE_TREE: return (const void *)reduction_kernel<SMEM_REDUCE_TREE>;
    case SMEM_REDUCE_SHUFFLE: return (const void *)reduction_kernel<SMEM_REDUCE_SHUFFLE>;
    case SMEM_REDUCE_ATOMIC: return (const void *)reduction_kernel<SMEM_REDUCE_ATOMIC>;
    }
    return nullptr;
}

extern "C" int smem_reduction_launch(int method, unsigned grid, const float *in, size_t n, float *out,
                                     smem_clock *clk, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const float4 *in4 = (const float4 *)in;
    cudaError_t e = cudaMemsetAsync(out, 0, sizeof(float), s);

    if (e != cudaSuccess)
        return (int)e;
    switch (method) {
    case SMEM_REDUCE_TREE:
        reduction_kernel<SMEM_REDUCE_TREE><<<grid, SMEM_REDUCTION_BLOCK, 0, s>>>(in4, n / 4, out, clk); break;
    case SMEM_REDUCE_SHUFFLE:
        reduction_kernel<SMEM_REDUCE_SHUFFLE><<<grid, SMEM_REDUCTION_BLOCK, 0, s>>>(in4, n / 4, out, clk); break;
    case SMEM_REDUCE_ATOMIC:
        reduction_kernel<SMEM_REDUCE_ATOMIC><<<grid, SMEM_REDUCTION_BLOCK, 0, s>>>(in4, n / 4, out, clk); break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
