/* Shared-memory load throughput and bank conflicts. Lane l of every warp reads element l * stride
 * (4, 8 or 16 bytes wide), so the stride alone sets how many distinct words share a bank. The
 * loads are inline PTX marked volatile: the compiler can neither drop nor hoist them, and every
 * unrolled load steps by one 128-byte bank row so the bank pattern never changes. */
#include <cstdint>

#include "clock.cuh"
#include "load_launch.h"

template <int W> struct lds;

template <> struct lds<4> {
    static __device__ __forceinline__ uint32_t load(uint32_t addr)
    {
        uint32_t v;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
        return v;
    }
};

template <> struct lds<8> {
    static __device__ __forceinline__ uint32_t load(uint32_t addr)
    {
        uint32_t x, y;
        asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr));
        return x + y;
    }
};

template <> struct lds<16> {
    static __device__ __forceinline__ uint32_t load(uint32_t addr)
    {
        uint32_t x, y, z, w;
        asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
        return x + y + z + w;
    }
};

template <int W>
__global__ void __launch_bounds__(SMEM_LOAD_BLOCK)
load_kernel(const uint32_t *in, uint32_t *out, int stride, int iters, smem_clock *clk)
{
    __shared__ __align__(16) uint32_t buf[SMEM_LOAD_WORDS];

    for (int i = threadIdx.x; i < SMEM_LOAD_WORDS; i += blockDim.x)
        buf[i] = in[i];
    __syncthreads();
    smem_clock_mark(clk, false);

    const uint32_t lane = threadIdx.x & 31;
#if SMEM_TEST_BANK_CONFLICT
    /* a test build only (meson option test_bank_conflict): lane 31 reads in lane 0's bank, rows past
     * every row lane 0 reads, so each request takes one more wavefront than the bank model says */
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(buf) +
                          (lane == 31 ? (SMEM_LOAD_UNROLL + 1) * SMEM_LOAD_ROW_BYTES : lane * (uint32_t)stride * W);
#else
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(buf) + lane * (uint32_t)stride * W;
#endif
    uint32_t acc = 0;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < SMEM_LOAD_UNROLL; j++)
            acc += lds<W>::load(base + j * SMEM_LOAD_ROW_BYTES);
    }
#if SMEM_TEST_SLOWDOWN_PCT
    /* a test build only (meson option test_slowdown_pct): this much more work than the metrics count,
     * for the A/B gate to find; the loads are volatile, so they run although their sum is dropped */
    for (int i = 0; i < iters * SMEM_TEST_SLOWDOWN_PCT / 100; i++) {
#pragma unroll
        for (int j = 0; j < SMEM_LOAD_UNROLL; j++)
            (void)lds<W>::load(base + j * SMEM_LOAD_ROW_BYTES);
    }
#endif
    __syncthreads();
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" const void *smem_load_fn(int width)
{
    switch (width) {
    case 4: return (const void *)load_kernel<4>;
    case 8: return (const void *)load_kernel<8>;
    case 16: return (const void *)load_kernel<16>;
    }
    return nullptr;
}

extern "C" int smem_load_launch(int width, unsigned grid, unsigned block, const uint32_t *in,
                                uint32_t *out, int stride, int iters, smem_clock *clk, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;

    switch (width) {
    case 4: load_kernel<4><<<grid, block, 0, s>>>(in, out, stride, iters, clk); break;
    case 8: load_kernel<8><<<grid, block, 0, s>>>(in, out, stride, iters, clk); break;
    case 16: load_kernel<16><<<grid, block, 0, s>>>(in, out, stride, iters, clk); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
