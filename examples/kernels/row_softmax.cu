/* Example user kernel for `smembench --kernel`: a numerically stable softmax of each row of a
 * rows x cols matrix, one block per row. Each thread walks its strided share of the row, each warp
 * combines its 32 values with shuffles, and the warps meet in shared memory: one partial per warp
 * in dynamic shared memory (the launch description sizes it as block / 32 floats), so the same
 * binary runs at any block size the sweep picks. Two reductions (the row's max, then the sum of
 * exp(x - max)) reuse the one partials array. */
#include <math.h>

/* The lanes of this thread's warp that exist: all 32, or fewer in the last warp of a block whose
 * size is not a multiple of 32 (a shuffle's mask must name only lanes that execute it). */
__device__ __forceinline__ unsigned warp_lanes(unsigned first_thread, unsigned *mask)
{
    unsigned n = min(32u, blockDim.x - first_thread);
    *mask = n == 32 ? 0xffffffffu : (1u << n) - 1u;
    return n;
}

/* max or sum of v across the n lanes of mask; the result is valid in lane 0. A lane whose partner
 * does not exist ignores what the shuffle returned (undefined, not harmful). */
template <bool MAX>
__device__ __forceinline__ float warp_reduce(float v, unsigned lane, unsigned n, unsigned mask)
{
#pragma unroll
    for (unsigned off = 16; off > 0; off /= 2) {
        float o = __shfl_down_sync(mask, v, off);
        if (lane + off < n)
            v = MAX ? fmaxf(v, o) : v + o;
    }
    return v;
}

/* The whole block's max or sum of v, returned to every thread. partials holds one float per warp;
 * the barrier at the end lets the next call overwrite them. */
template <bool MAX>
__device__ float block_reduce(float v, float *partials)
{
    __shared__ float result;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned n_warps = (blockDim.x + 31) / 32;
    unsigned mask;
    unsigned n = warp_lanes(warp * 32, &mask);

    v = warp_reduce<MAX>(v, lane, n, mask);
    if (lane == 0)
        partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
        /* n_warps <= 32: warp 0 holds one partial per lane */
        float p = lane < n_warps ? partials[lane] : (MAX ? -INFINITY : 0.0f);
        p = warp_reduce<MAX>(p, lane, n, mask);
        if (lane == 0)
            result = p;
    }
    __syncthreads();
    return result;
}

/* y[row, :] = exp(x[row, :] - max) / sum(exp(x[row, :] - max)) for row = blockIdx.x. Needs
 * ceil(blockDim.x / 32) * 4 bytes of dynamic shared memory (more is allowed and unused). */
extern "C" __global__ void row_softmax(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    extern __shared__ float partials[];
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, in[c]);
    m = block_reduce<true>(m, partials);

    /* the row is read a second time rather than kept in registers: cols is not known here, and a
     * 4096-float row is still in L1/L2 after the first pass */
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += expf(in[c] - m);
    s = block_reduce<false>(s, partials);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = expf(in[c] - m) * inv;
}
