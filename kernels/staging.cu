/* Global -> shared staging, three ways, one pipeline. Block b consumes its tiles in order; with S
 * stages, the copy of tile k + S - 1 is issued before tile k is waited for, so S - 1 copies are in
 * flight while a tile is consumed. Plain loads and stores are synchronous, so that method runs one
 * stage. Consuming a tile reads every word of it from shared memory (thread t: words t, t + 256,
 * ...) into a hash the host reproduces: a word missing, wrong or out of place changes it.
 * Barriers: cp.async needs wait_group and then __syncthreads (each thread waits only for its own
 * copies); the bulk copy's mbarrier completes when all its bytes have landed, which every waiting
 * thread observes; in both, the __syncthreads after consuming a slot frees it for the next copy,
 * and before a bulk copy overwrites a slot that the generic proxy has read, fence.proxy.async
 * orders those reads before the async proxy's writes. */
#include <cstdint>

#include "clock.cuh"
#include "cp_async.cuh"
#include "mbarrier.cuh"
#include "staging_launch.h"

template <int W> struct vec;
template <> struct vec<4> { typedef uint32_t t; };
template <> struct vec<8> { typedef uint2 t; };
template <> struct vec<16> { typedef uint4 t; };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define STAGING_CP_ASYNC 1
#else
#define STAGING_CP_ASYNC 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define STAGING_BULK 1
#else
#define STAGING_BULK 0
#endif

#if STAGING_BULK
__device__ __forceinline__ void bulk_copy(uint32_t dst, const char *src, uint32_t bytes, uint32_t bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

#endif

/* Folds a tile into thread t's hash in the host's order (words t, t + B, t + 2B...), eight loads
 * issued before the first fold: one load at a time left the consumer latency-bound (about 30 B/clk
 * per SM with 8 warps), slower than a large tile arrives, so it, not the copy, set the pace. */
__device__ __forceinline__ uint32_t consume(uint32_t h, const uint32_t *t, uint32_t words)
{
    constexpr uint32_t B = SMEM_STAGING_BLOCK, U = 8;
    uint32_t i = threadIdx.x;

    for (; i + (U - 1) * B < words; i += U * B) {
        uint32_t w[U];
#pragma unroll
        for (uint32_t u = 0; u < U; u++)
            w[u] = t[i + u * B];
#pragma unroll
        for (uint32_t u = 0; u < U; u++)
            h = smem_staging_fold(h, w[u]);
    }
    for (; i < words; i += B)
        h = smem_staging_fold(h, t[i]);
    return h;
}

template <int METHOD, int W>
__global__ void __launch_bounds__(SMEM_STAGING_BLOCK)
staging_kernel(const uint32_t *in, uint32_t tile_bytes, uint32_t tiles_per_block, int stages, uint32_t *out,
               smem_clock *clk)
{
    extern __shared__ __align__(128) uint32_t slots[];
    const uint32_t words = tile_bytes / 4;
    const char *src = (const char *)in + (size_t)blockIdx.x * tile_bytes;
    const size_t step = (size_t)gridDim.x * tile_bytes;   /* from one of the block's tiles to the next */
    uint32_t h = 0;

    smem_clock_mark(clk, false);
    if constexpr (METHOD == SMEM_STAGING_PLAIN) {
        typedef typename vec<W>::t v;
        (void)stages;
        for (uint32_t k = 0; k < tiles_per_block; k++) {
            const char *s = src + k * step;
            for (uint32_t off = threadIdx.x * W; off < tile_bytes; off += blockDim.x * W)
                *(v *)((char *)slots + off) = *(const v *)(s + off);
            __syncthreads();
            h = consume(h, slots, words);
            __syncthreads();
        }
    } else if constexpr (METHOD == SMEM_STAGING_CP_ASYNC) {
#if STAGING_CP_ASYNC
        const uint32_t base = (uint32_t)__cvta_generic_to_shared(slots);
        auto issue = [&](uint32_t k) {
            const char *s = src + k * step;
            uint32_t d = base + (k % stages) * tile_bytes;
            for (uint32_t off = threadIdx.x * W; off < tile_bytes; off += blockDim.x * W)
                smem_cp_async<W>(d + off, s + off);
        };
        /* one commit group per tile, empty ones included, so group k always holds tile k */
        for (int k = 0; k < stages - 1; k++) {
            if ((uint32_t)k < tiles_per_block)
                issue((uint32_t)k);
            smem_cp_async_commit();
        }
        for (uint32_t k = 0; k < tiles_per_block; k++) {
            if (k + stages - 1 < tiles_per_block)
                issue(k + stages - 1);
            smem_cp_async_commit();
            smem_cp_async_wait(stages - 1);
            __syncthreads();
            h = consume(h, slots + (k % stages) * words, words);
            __syncthreads();
        }
#else
        (void)src, (void)step, (void)stages, (void)tiles_per_block;
        h = SMEM_NOT_BUILT_MARK;
#endif
    } else {
#if STAGING_BULK
        __shared__ __align__(8) uint64_t bar[SMEM_STAGING_MAX_STAGES];
        const uint32_t base = (uint32_t)__cvta_generic_to_shared(slots);
        const uint32_t bar0 = (uint32_t)__cvta_generic_to_shared(bar);
        auto issue = [&](uint32_t k) {
            bulk_copy(base + (k % stages) * tile_bytes, src + k * step, tile_bytes, bar0 + 8 * (k % stages));
        };
        if (threadIdx.x == 0) {
            for (int s = 0; s < stages; s++)
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            for (int k = 0; k < stages - 1 && (uint32_t)k < tiles_per_block; k++)
                issue((uint32_t)k);
        }
        __syncthreads();
        for (uint32_t k = 0; k < tiles_per_block; k++) {
            if (threadIdx.x == 0 && k + stages - 1 < tiles_per_block) {
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                issue(k + stages - 1);
            }
            /* the slot's barrier completes once per use: use k / stages has parity (k / stages) & 1 */
            smem_mbarrier_wait(bar0 + 8 * (k % stages), (k / stages) & 1);
            h = consume(h, slots + (k % stages) * words, words);
            __syncthreads();
        }
#else
        (void)src, (void)step, (void)stages, (void)tiles_per_block;
        h = SMEM_NOT_BUILT_MARK;
#endif
    }
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}

typedef void (*staging_fn_t)(const uint32_t *, uint32_t, uint32_t, int, uint32_t *, smem_clock *);

static staging_fn_t pick(int method, int width)
{
#define WIDTHS(M)                                       \
    switch (width) {                                    \
    case 4: return staging_kernel<M, 4>;                \
    case 8: return staging_kernel<M, 8>;                \
    case 16: return staging_kernel<M, 16>;              \
    }                                                   \
    return nullptr;
    switch (method) {
    case SMEM_STAGING_PLAIN: WIDTHS(SMEM_STAGING_PLAIN)
    case SMEM_STAGING_CP_ASYNC: WIDTHS(SMEM_STAGING_CP_ASYNC)
    case SMEM_STAGING_BULK:
        return width == 16 ? staging_kernel<SMEM_STAGING_BULK, 16> : nullptr;
    }
#undef WIDTHS
    return nullptr;
}

extern "C" const void *smem_staging_fn(int method, int width)
{
    return (const void *)pick(method, width);
}

extern "C" int smem_staging_launch(int method, int width, unsigned grid, size_t dyn_bytes, const uint32_t *in,
                                   uint32_t tile_bytes, uint32_t tiles_per_block, int stages, uint32_t *out,
                                   smem_clock *clk, void *stream)
{
    staging_fn_t k = pick(method, width);

    if (!k || stages < 1 || stages > SMEM_STAGING_MAX_STAGES || tile_bytes % 16)
        return (int)cudaErrorInvalidValue;
    k<<<grid, SMEM_STAGING_BLOCK, dyn_bytes, (cudaStream_t)stream>>>(in, tile_bytes, tiles_per_block, stages, out, clk);
    return (int)cudaGetLastError();
}
