/* Register-blocked C = A B in fp32, row-major, n x n: 128 x 128 block tiles, BK deep, each of 256
 * threads holding an 8 x 8 tile of C in registers, so every value read from shared memory feeds
 * eight FMAs; A is stored transposed in shared memory so a thread reads 8 consecutive values of its
 * column with two 16-byte loads. BK = 64 needs 64 KiB of dynamic shared memory: the opt-in. */
#include <cstdint>

#include "clock.cuh"
#include "matmul_rb_launch.h"

#define RB_BM SMEM_MATMUL_RB_TILE
#define RB_BN SMEM_MATMUL_RB_TILE
#define RB_TM 8
#define RB_TN 8

/* bk = 64 asks for one resident block: its 64 KiB slab allows few anyway, and left to aim for two
 * (128 registers), ptxas for sm_100 spills the 8 x 8 accumulator tile */
template <int BK>
__global__ void __launch_bounds__(SMEM_MATMUL_RB_BLOCK, BK == 64 ? 1 : 0)
matmul_regblock_kernel(const float *a, const float *b, float *c, int n, smem_clock *clk)
{
    extern __shared__ float4 smem4[];
    float *as = (float *)smem4;              /* [BK][RB_BM]: A transposed */
    float *bs = as + BK * RB_BM;             /* [BK][RB_BN] */
    const int tid = threadIdx.x;
    const int trow = tid / (RB_BN / RB_TN), tcol = tid % (RB_BN / RB_TN);
    const float *ablk = a + (size_t)blockIdx.y * RB_BM * n;
    const float *bblk = b + (size_t)blockIdx.x * RB_BN;
    float acc[RB_TM][RB_TN] = { { 0 } };
    float ra[RB_TM], rb[RB_TN];

    smem_clock_mark(clk, false);
    for (int k0 = 0; k0 < n; k0 += BK) {
        /* A tile RB_BM x BK as float4 along k, stored transposed; B tile BK x RB_BN as float4 */
#pragma unroll
        for (int i = tid; i < RB_BM * BK / 4; i += SMEM_MATMUL_RB_BLOCK) {
            int r = i / (BK / 4), k4 = i % (BK / 4);
            float4 v = *(const float4 *)&ablk[(size_t)r * n + k0 + 4 * k4];
            as[(4 * k4 + 0) * RB_BM + r] = v.x;
            as[(4 * k4 + 1) * RB_BM + r] = v.y;
            as[(4 * k4 + 2) * RB_BM + r] = v.z;
            as[(4 * k4 + 3) * RB_BM + r] = v.w;
        }
#pragma unroll
        for (int i = tid; i < BK * RB_BN / 4; i += SMEM_MATMUL_RB_BLOCK) {
            int k = i / (RB_BN / 4), c4 = i % (RB_BN / 4);
            *(float4 *)&bs[k * RB_BN + 4 * c4] = *(const float4 *)&bblk[(size_t)(k0 + k) * n + 4 * c4];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            *(float4 *)&ra[0] = *(const float4 *)&as[k * RB_BM + trow * RB_TM];
            *(float4 *)&ra[4] = *(const float4 *)&as[k * RB_BM + trow * RB_TM + 4];
            *(float4 *)&rb[0] = *(const float4 *)&bs[k * RB_BN + tcol * RB_TN];
            *(float4 *)&rb[4] = *(const float4 *)&bs[k * RB_BN + tcol * RB_TN + 4];
#pragma unroll
            for (int i = 0; i < RB_TM; i++)
#pragma unroll
                for (int j = 0; j < RB_TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < RB_TM; i++) {
        float *crow = c + (size_t)(blockIdx.y * RB_BM + trow * RB_TM + i) * n + blockIdx.x * RB_BN + tcol * RB_TN;
        *(float4 *)&crow[0] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *(float4 *)&crow[4] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
    smem_clock_mark(clk, true);
}

extern "C" const void *smem_matmul_rb_fn(int bk)
{
    switch (bk) {
    case 8: return (const void *)matmul_regblock_kernel<8>;
    case 16: return (const void *)matmul_regblock_kernel<16>;
    case 32: return (const void *)matmul_regblock_kernel<32>;
    case 64: return (const void *)matmul_regblock_kernel<64>;
    }
    return nullptr;
}

extern "C" int smem_matmul_rb_launch(int bk, int n, const float *a, const float *b, float *c, smem_clock *clk,
                                     void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    dim3 grid(n / RB_BN, n / RB_BM);
    size_t smem = (size_t)bk * (RB_BM + RB_BN) * sizeof(float);

    switch (bk) {
    case 8: matmul_regblock_kernel<8><<<grid, SMEM_MATMUL_RB_BLOCK, smem, s>>>(a, b, c, n, clk); break;
    case 16: matmul_regblock_kernel<16><<<grid, SMEM_MATMUL_RB_BLOCK, smem, s>>>(a, b, c, n, clk); break;
    case 32: matmul_regblock_kernel<32><<<grid, SMEM_MATMUL_RB_BLOCK, smem, s>>>(a, b, c, n, clk); break;
    case 64: matmul_regblock_kernel<64><<<grid, SMEM_MATMUL_RB_BLOCK, smem, s>>>(a, b, c, n, clk); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
