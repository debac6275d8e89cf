/* Transpose of an n x n fp32 matrix. naive: reads coalesced, writes strided by n (every store its
 * own sector). tiled: an edge x edge tile staged in shared memory so both the read and the write are
 * coalesced 128-byte lines; the write side reads the tile by column, which under a row-major layout
 * walks one bank over and over. Padding each row by one word, or XOR-swizzling the columns
 * (kernels/transpose.h), spreads the column over all 32 banks. The geometry is a template: a 64-float
 * edge and float4 accesses keep 64 bytes per thread in flight and write 256-byte runs of each output
 * row, where NVIDIA's classic 32 x 32 tile of floats keeps 16 and writes 128. */
#include <cstdint>

#include "clock.cuh"
#include "transpose.h"

#define TILE 32
#define ROWS 8

__global__ void __launch_bounds__(TILE * ROWS) transpose_naive_kernel(const float *in, float *out, int n,
                                                                      smem_clock *clk)
{
    const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;

    smem_clock_mark(clk, false);
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)x * n + y + j] = in[(size_t)(y + j) * n + x];
    smem_clock_mark(clk, true);
}

/* VEC consecutive floats as one float, float2 or float4 access, made from and split into an array.
 * Accesses index an array of the vector type: a vector stored through a cast float pointer
 * (&tile[i]) went out a word at a time, nvcc not knowing its alignment. */
template <int VEC> struct floats;
template <> struct floats<1> {
    typedef float type;
    static __device__ __forceinline__ float make(const float *f) { return f[0]; }
    static __device__ __forceinline__ void split(float v, float *f) { f[0] = v; }
};
template <> struct floats<2> {
    typedef float2 type;
    static __device__ __forceinline__ float2 make(const float *f) { return make_float2(f[0], f[1]); }
    static __device__ __forceinline__ void split(float2 v, float *f) { f[0] = v.x, f[1] = v.y; }
};
template <> struct floats<4> {
    typedef float4 type;
    static __device__ __forceinline__ float4 make(const float *f) { return make_float4(f[0], f[1], f[2], f[3]); }
    static __device__ __forceinline__ void split(float4 v, float *f) { f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w; }
};

template <int LAYOUT, int EDGE, int VEC>
__global__ void __launch_bounds__(SMEM_TRANSPOSE_BLOCK) transpose_tiled_kernel(const float *__restrict__ in,
                                                                               float *__restrict__ out, int n,
                                                                               int band, smem_clock *clk)
{
    constexpr int PASSES = EDGE * EDGE / (SMEM_TRANSPOSE_BLOCK * VEC);
    __shared__ __align__(16) float tile[EDGE * (EDGE + (LAYOUT == SMEM_TRANSPOSE_PADDED))];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    typedef floats<VEC> F;
    typename F::type v[PASSES];
    uint32_t tx, ty, a, b;

    smem_clock_mark(clk, false);
    smem_transpose_tile_of(blockIdx.x, (uint32_t)n / EDGE, (uint32_t)band, &tx, &ty);
    const size_t x0 = (size_t)tx * EDGE, y0 = (size_t)ty * EDGE;
    /* every load of the block's share issued before its first shared store: all of the tile in flight */
#pragma unroll
    for (int j = 0; j < PASSES; j++) {
        smem_transpose_place(EDGE, VEC, j, warp, lane, &a, &b);
        v[j] = reinterpret_cast<const typename F::type *>(in)[((y0 + a) * n + x0 + b) / VEC];
    }
#pragma unroll
    for (int j = 0; j < PASSES; j++) {
        smem_transpose_place(EDGE, VEC, j, warp, lane, &a, &b);
        if (LAYOUT == SMEM_TRANSPOSE_PADDED) {
            /* rows of EDGE + 1 words leave a vector misaligned: one word at a time */
            float f[VEC];
            F::split(v[j], f);
#pragma unroll
            for (int k = 0; k < VEC; k++)
                tile[smem_transpose_at(LAYOUT, EDGE, VEC, a, b + k)] = f[k];
        } else {
            /* the swizzle moves whole VEC-float chunks: the vector stays contiguous and aligned */
            reinterpret_cast<typename F::type *>(tile)[smem_transpose_at(LAYOUT, EDGE, VEC, a, b) / VEC] = v[j];
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < PASSES; j++) {
        float f[VEC];
        smem_transpose_place(EDGE, VEC, j, warp, lane, &a, &b);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            f[k] = tile[smem_transpose_at(LAYOUT, EDGE, VEC, b + k, a)];     /* the column read */
        reinterpret_cast<typename F::type *>(out)[((x0 + a) * n + y0 + b) / VEC] = F::make(f);
    }
    smem_clock_mark(clk, true);
}

template <int LAYOUT, int EDGE> static const void *tiled_fn(int vec)
{
    switch (vec) {
    case 1: return (const void *)transpose_tiled_kernel<LAYOUT, EDGE, 1>;
    case 2: return (const void *)transpose_tiled_kernel<LAYOUT, EDGE, 2>;
    case 4: return (const void *)transpose_tiled_kernel<LAYOUT, EDGE, 4>;
    }
    return nullptr;
}

template <int LAYOUT> static const void *tiled_fn(int edge, int vec)
{
    return edge == 32 ? tiled_fn<LAYOUT, 32>(vec) : edge == 64 ? tiled_fn<LAYOUT, 64>(vec) : nullptr;
}

extern "C" const void *smem_transpose_fn(const struct smem_transpose_geom *g)
{
    switch (g->layout) {
    case SMEM_TRANSPOSE_NAIVE: return (const void *)transpose_naive_kernel;
    case SMEM_TRANSPOSE_ROW_MAJOR: return tiled_fn<SMEM_TRANSPOSE_ROW_MAJOR>(g->edge, g->vec);
    case SMEM_TRANSPOSE_PADDED: return tiled_fn<SMEM_TRANSPOSE_PADDED>(g->edge, g->vec);
    case SMEM_TRANSPOSE_SWIZZLED: return tiled_fn<SMEM_TRANSPOSE_SWIZZLED>(g->edge, g->vec);
    }
    return nullptr;
}

extern "C" int smem_transpose_launch(const struct smem_transpose_geom *g, int n, const float *in, float *out,
                                     smem_clock *clk, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const void *fn = smem_transpose_fn(g);
    int band = g->band;

    if (!fn || n % g->edge || (n / g->edge) % g->band)
        return (int)cudaErrorInvalidValue;
    if (g->layout == SMEM_TRANSPOSE_NAIVE) {
        transpose_naive_kernel<<<dim3(n / TILE, n / TILE), dim3(TILE, ROWS), 0, s>>>(in, out, n, clk);
        return (int)cudaGetLastError();
    }
    void *args[] = { &in, &out, &n, &band, &clk };
    unsigned tiles = (unsigned)(n / g->edge);
    return (int)cudaLaunchKernel(fn, dim3(tiles * tiles), dim3(SMEM_TRANSPOSE_BLOCK), args, 0, s);
}
