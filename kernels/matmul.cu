/* Shared memory as a scratchpad: C = A B in fp32, row-major, n x n.
 * global:  one thread per output, every operand read from global memory (the baseline).
 * tiled:   T x T tiles of A and B staged in static shared memory and reused T times each
 *          (T = 8, 16, 32 one thread per output; T = 64 with 64 x 16 threads, 4 outputs each).
 * The register-blocked kernel, the next step up, is matmul_rb.cu. */
#include <cstdint>

#include "clock.cuh"
#include "matmul_launch.h"

__global__ void __launch_bounds__(256) matmul_global_kernel(const float *a, const float *b, float *c, int n,
                                                            smem_clock *clk)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float acc = 0;

    smem_clock_mark(clk, false);
    for (int k = 0; k < n; k++)
        acc += a[(size_t)row * n + k] * b[(size_t)k * n + col];
    c[(size_t)row * n + col] = acc;
    smem_clock_mark(clk, true);
}

template <int T>
__global__ void __launch_bounds__(T * T) matmul_tiled_kernel(const float *a, const float *b, float *c, int n,
                                                             smem_clock *clk)
{
    __shared__ float as[T][T], bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0;

    smem_clock_mark(clk, false);
    for (int k0 = 0; k0 < n; k0 += T) {
        as[ty][tx] = a[(size_t)row * n + k0 + tx];
        bs[ty][tx] = b[(size_t)(k0 + ty) * n + col];
        __syncthreads();                 /* the tile is complete before anyone reads it */
#pragma unroll
        for (int k = 0; k < T; k++)
            acc += as[ty][k] * bs[k][tx];
        __syncthreads();                 /* and nobody still reads it when it is overwritten */
    }
    c[(size_t)row * n + col] = acc;
    smem_clock_mark(clk, true);
}

/* T = 64: 64 x 64 outputs per block from 64 x 16 threads, 4 rows each (a block cannot have 4096). */
__global__ void __launch_bounds__(1024) matmul_tiled64_kernel(const float *a, const float *b, float *c, int n,
                                                              smem_clock *clk)
{
    __shared__ float as[64][64], bs[64][64];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * 64, col = blockIdx.x * 64 + tx;
    float acc[4] = { 0, 0, 0, 0 };

    smem_clock_mark(clk, false);
    for (int k0 = 0; k0 < n; k0 += 64) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
            as[ty + 16 * r][tx] = a[(size_t)(row0 + ty + 16 * r) * n + k0 + tx];
            bs[ty + 16 * r][tx] = b[(size_t)(k0 + ty + 16 * r) * n + col];
        }
        __syncthreads();
#pragma unroll 16
        for (int k = 0; k < 64; k++) {
            float bv = bs[k][tx];
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[r] += as[ty + 16 * r][k] * bv;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < 4; r++)
        c[(size_t)(row0 + ty + 16 * r) * n + col] = acc[r];
    smem_clock_mark(clk, true);
}

extern "C" const void *smem_matmul_fn(int tile)
{
    switch (tile) {
    case 0: return (const void *)matmul_global_kernel;
    case 8: return (const void *)matmul_tiled_kernel<8>;
    case 16: return (const void *)matmul_tiled_kernel<16>;
    case 32: return (const void *)matmul_tiled_kernel<32>;
    case 64: return (const void *)matmul_tiled64_kernel;
    }
    return nullptr;
}

extern "C" int smem_matmul_launch(int tile, int n, const float *a, const float *b, float *c, smem_clock *clk,
                                  void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;

    switch (tile) {
    case 0: matmul_global_kernel<<<dim3(n / 16, n / 16), dim3(16, 16), 0, s>>>(a, b, c, n, clk); break;
    case 8: matmul_tiled_kernel<8><<<dim3(n / 8, n / 8), dim3(8, 8), 0, s>>>(a, b, c, n, clk); break;
    case 16: matmul_tiled_kernel<16><<<dim3(n / 16, n / 16), dim3(16, 16), 0, s>>>(a, b, c, n, clk); break;
    case 32: matmul_tiled_kernel<32><<<dim3(n / 32, n / 32), dim3(32, 32), 0, s>>>(a, b, c, n, clk); break;
    case 64: matmul_tiled64_kernel<<<dim3(n / 64, n / 64), dim3(64, 16), 0, s>>>(a, b, c, n, clk); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
