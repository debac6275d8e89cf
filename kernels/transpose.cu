/* Transpose of an n x n fp32 matrix. naive: reads coalesced, writes strided by n (every store its
 * own sector). tiled: a 32 x 32 tile staged in shared memory so both the read and the write are
 * coalesced; reading the tile by column walks one bank 32 times over (a 32-way conflict) unless
 * each row is padded by one word, [32][33], which shifts consecutive rows by one bank. Blocks of
 * 32 x 8 threads, each moving 4 elements, as in NVIDIA's classic transpose. */
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

template <int PAD>
__global__ void __launch_bounds__(TILE * ROWS) transpose_tiled_kernel(const float *in, float *out, int n,
                                                                      smem_clock *clk)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;

    smem_clock_mark(clk, false);
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];   /* the column read */
    smem_clock_mark(clk, true);
}

extern "C" const void *smem_transpose_fn(int variant)
{
    switch (variant) {
    case SMEM_TRANSPOSE_NAIVE: return (const void *)transpose_naive_kernel;
    case SMEM_TRANSPOSE_TILED: return (const void *)transpose_tiled_kernel<0>;
    case SMEM_TRANSPOSE_PADDED: return (const void *)transpose_tiled_kernel<1>;
    }
    return nullptr;
}

extern "C" int smem_transpose_launch(int variant, int n, const float *in, float *out, smem_clock *clk, void *stream)
{
    dim3 grid(n / TILE, n / TILE), block(TILE, ROWS);
    cudaStream_t s = (cudaStream_t)stream;

    switch (variant) {
    case SMEM_TRANSPOSE_NAIVE: transpose_naive_kernel<<<grid, block, 0, s>>>(in, out, n, clk); break;
    case SMEM_TRANSPOSE_TILED: transpose_tiled_kernel<0><<<grid, block, 0, s>>>(in, out, n, clk); break;
    case SMEM_TRANSPOSE_PADDED: transpose_tiled_kernel<1><<<grid, block, 0, s>>>(in, out, n, clk); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
