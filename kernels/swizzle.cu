/* Shared memory as the tensor cores' feeders see it. ldmatrix (cc 7.5) and stmatrix (cc 9.0) move
 * 8x8 matrices of 16-bit elements: each matrix is eight 16-byte rows whose addresses eight lanes
 * supply, so the layout of the tile (row pitch, padding, XOR swizzle) alone decides how many of
 * those rows share banks. Each warp works on a tile of its own, every instruction an inline-PTX
 * volatile so none is dropped or hoisted, eight per iteration at eight columns. The TMA kernel lands
 * tiles by cp.async.bulk.tensor in each swizzle mode, four stages deep on mbarriers as in
 * staging.cu, and a consumer reads each landed tile back through the mode's layout. */
#include <cstdint>
#include <cstring>

#include "clock.cuh"
#include "mbarrier.cuh"
#include "swizzle_launch.h"
#include "tensor_map.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
#define SWZ_LDMATRIX 1
#else
#define SWZ_LDMATRIX 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SWZ_HOPPER 1
#else
#define SWZ_HOPPER 0
#endif

#if SWZ_LDMATRIX
template <int M, int T> struct ldsm;
#define LDSM(M, T, SUFFIX, OUTS, ...)                                                                 \
    template <> struct ldsm<M, T> {                                                                   \
        static __device__ __forceinline__ void run(uint32_t addr, uint32_t (&r)[4])                   \
        {                                                                                             \
            asm volatile("ldmatrix.sync.aligned.m8n8" SUFFIX ".shared.b16 " OUTS ", [%" #M "];"       \
                         : __VA_ARGS__ : "r"(addr) : "memory");                                       \
        }                                                                                             \
    };
LDSM(1, 0, ".x1", "{%0}", "=r"(r[0]))
LDSM(2, 0, ".x2", "{%0, %1}", "=r"(r[0]), "=r"(r[1]))
LDSM(4, 0, ".x4", "{%0, %1, %2, %3}", "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]))
LDSM(1, 1, ".x1.trans", "{%0}", "=r"(r[0]))
LDSM(2, 1, ".x2.trans", "{%0, %1}", "=r"(r[0]), "=r"(r[1]))
LDSM(4, 1, ".x4.trans", "{%0, %1, %2, %3}", "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]))
#undef LDSM
#endif

#if SWZ_HOPPER
template <int M, int T> struct stsm;
#define STSM(M, T, SUFFIX, INS, ...)                                                                  \
    template <> struct stsm<M, T> {                                                                   \
        static __device__ __forceinline__ void run(uint32_t addr, const uint32_t (&r)[4])             \
        {                                                                                             \
            asm volatile("stmatrix.sync.aligned.m8n8" SUFFIX ".shared.b16 [%0], " INS ";"             \
                         :: "r"(addr), __VA_ARGS__ : "memory");                                       \
        }                                                                                             \
    };
STSM(1, 0, ".x1", "{%1}", "r"(r[0]))
STSM(2, 0, ".x2", "{%1, %2}", "r"(r[0]), "r"(r[1]))
STSM(4, 0, ".x4", "{%1, %2, %3, %4}", "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]))
STSM(1, 1, ".x1.trans", "{%1}", "r"(r[0]))
STSM(2, 1, ".x2.trans", "{%1, %2}", "r"(r[0]), "r"(r[1]))
STSM(4, 1, ".x4.trans", "{%1, %2, %3, %4}", "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]))
#undef STSM
#endif

__device__ __forceinline__ uint32_t aligned_base(const void *p)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(p);

    return (a + SMEM_SWZ_ALIGN - 1) & ~(uint32_t)(SMEM_SWZ_ALIGN - 1);
}

template <int OP, int M, int T>
__global__ void __launch_bounds__(SMEM_SWZ_BLOCK)
swz_tile_kernel(int layout, uint32_t row_bytes, const uint32_t *in, uint32_t *out, int iters, uint32_t zero,
                smem_clock *clk)
{
    extern __shared__ __align__(16) unsigned char dyn[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tile = aligned_base(dyn) + (uint32_t)warp * smem_swz_region(layout, row_bytes);
    uint32_t addr[SMEM_SWZ_UNROLL], acc = 0;

#pragma unroll
    for (int j = 0; j < SMEM_SWZ_UNROLL; j++) {
        uint32_t r, b;
        smem_swz_lane_place(M, row_bytes, j, lane, &r, &b);
        addr[j] = tile + smem_swz_offset(layout, row_bytes, r, b);
    }
    if constexpr (OP == SMEM_SWZ_LDMATRIX) {
#if SWZ_LDMATRIX
        /* the warp lays the logical tile out in its own tile: 16-byte chunks, row by row */
        const uint32_t chunks_per_row = row_bytes / 16;
        for (uint32_t c = (uint32_t)lane; c < SMEM_SWZ_ROWS * chunks_per_row; c += 32) {
            const uint4 v = ((const uint4 *)in)[c];
            uint32_t a = tile + smem_swz_offset(layout, row_bytes, c / chunks_per_row, c % chunks_per_row * 16);
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(v.x), "r"(v.y), "r"(v.z),
                         "r"(v.w) : "memory");
        }
        __syncwarp();
        smem_clock_mark(clk, false);
        for (int i = 0; i < iters; i++) {
            const uint32_t o = (uint32_t)i & zero;
#pragma unroll
            for (int j = 0; j < SMEM_SWZ_UNROLL; j++) {
                uint32_t r[4];
                ldsm<M, T>::run(addr[j] + (o << j), r);
#pragma unroll
                for (int m = 0; m < M; m++)
                    acc += r[m];
            }
        }
#else
        (void)in, (void)iters, (void)addr, (void)zero;
        acc = SMEM_NOT_BUILT_MARK;
#endif
    } else {
#if SWZ_HOPPER
        (void)in;
        smem_clock_mark(clk, false);
        for (int i = 0; i < iters; i++) {
            const uint32_t o = (uint32_t)i & zero;
#pragma unroll
            for (int j = 0; j < SMEM_SWZ_UNROLL; j++) {
                uint32_t r[4];
#pragma unroll
                for (int m = 0; m < 4; m++)
                    r[m] = smem_swz_st_value(lane, m, j);
                stsm<M, T>::run(addr[j] + (o << j), r);
            }
        }
        __syncwarp();
        /* read back what each step's row address holds now, the last step's store to it */
#pragma unroll
        for (int j = 0; j < SMEM_SWZ_UNROLL; j++) {
            uint32_t x, y, z, w;
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                         : "r"(addr[j]) : "memory");
            acc = smem_swz_fold(smem_swz_fold(smem_swz_fold(smem_swz_fold(acc, x), y), z), w);
        }
#else
        (void)in, (void)iters, (void)addr, (void)zero;
        acc = SMEM_NOT_BUILT_MARK;
#endif
    }
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*tile_fn_t)(int, uint32_t, const uint32_t *, uint32_t *, int, uint32_t, smem_clock *);

static tile_fn_t pick_tile(int op, int matrices, int trans)
{
#define MATRICES(OP, T)                                 \
    switch (matrices) {                                 \
    case 1: return swz_tile_kernel<OP, 1, T>;           \
    case 2: return swz_tile_kernel<OP, 2, T>;           \
    case 4: return swz_tile_kernel<OP, 4, T>;           \
    }                                                   \
    return nullptr;
    if (op == SMEM_SWZ_LDMATRIX) {
        if (trans) { MATRICES(SMEM_SWZ_LDMATRIX, 1) }
        MATRICES(SMEM_SWZ_LDMATRIX, 0)
    }
    if (op == SMEM_SWZ_STMATRIX) {
        if (trans) { MATRICES(SMEM_SWZ_STMATRIX, 1) }
        MATRICES(SMEM_SWZ_STMATRIX, 0)
    }
#undef MATRICES
    return nullptr;
}

extern "C" const void *smem_swz_tile_fn(int op, int matrices, int trans)
{
    return (const void *)pick_tile(op, matrices, trans);
}

extern "C" int smem_swz_tile_launch(int op, int matrices, int trans, int layout, uint32_t row_bytes, unsigned grid,
                                    size_t dyn_bytes, const uint32_t *in, uint32_t *out, int iters, smem_clock *clk,
                                    void *stream)
{
    tile_fn_t k = pick_tile(op, matrices, trans);

    if (!k || row_bytes % 32 || dyn_bytes < smem_swz_dyn_bytes(layout, row_bytes))
        return (int)cudaErrorInvalidValue;
    /* zero: 0, which ptxas cannot know. ldmatrix has no .volatile in PTX: an address it could prove
     * the same in every iteration (or twice in one, 32-byte rows) was loaded once (1.6-3.4x the
     * 128 B/clk ceiling on the H200); address + ((i & zero) << j) is a new address to it each time */
    k<<<grid, SMEM_SWZ_BLOCK, dyn_bytes, (cudaStream_t)stream>>>(layout, row_bytes, in, out, iters, 0u, clk);
    return (int)cudaGetLastError();
}

/* ---- TMA ---- */

#if SWZ_HOPPER

/* One stage: 128 / span boxes, each its span bytes of every row, one after the other. */
__device__ __forceinline__ void tma_issue(const CUtensorMap *map, int swz, uint32_t dst, uint32_t tile, uint32_t bar)
{
    const uint32_t span = swz ? (uint32_t)swz : SMEM_SWZ_TMA_ROW_BYTES;

    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(SMEM_SWZ_TMA_TILE)
                 : "memory");
    for (uint32_t k = 0; k < SMEM_SWZ_TMA_ROW_BYTES / span; k++)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(dst + k * SMEM_SWZ_TMA_ROWS * span), "l"(map), "r"(k * span / 2),
                     "r"(tile * SMEM_SWZ_TMA_ROWS), "r"(bar) : "memory");
}
#endif

template <int CONSUMER>
__global__ void __launch_bounds__(SMEM_SWZ_BLOCK)
swz_tma_kernel(const __grid_constant__ CUtensorMap map, int swz, uint32_t tiles_per_block, uint32_t *out,
               smem_clock *clk)
{
    extern __shared__ __align__(16) unsigned char dyn[];
    uint32_t h = 0;

    smem_clock_mark(clk, false);
#if SWZ_HOPPER
    __shared__ __align__(8) uint64_t bar[SMEM_SWZ_TMA_STAGES];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t base = aligned_base(dyn), bar0 = (uint32_t)__cvta_generic_to_shared(bar);
    constexpr int S = SMEM_SWZ_TMA_STAGES;
    auto issue = [&](uint32_t k) {
        tma_issue(&map, swz, base + (k % S) * SMEM_SWZ_TMA_TILE, blockIdx.x + k * gridDim.x, bar0 + 8 * (k % S));
    };

    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (uint32_t k = 0; k < S - 1 && k < tiles_per_block; k++)
            issue(k);
    }
    __syncthreads();
    for (uint32_t k = 0; k < tiles_per_block; k++) {
        const uint32_t slot = base + (k % S) * SMEM_SWZ_TMA_TILE;
        if (threadIdx.x == 0 && k + S - 1 < tiles_per_block) {
            /* the slot being refilled was read by the generic proxy: order those reads first */
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            issue(k + S - 1);
        }
        smem_mbarrier_wait(bar0 + 8 * (k % S), (k / S) & 1);
        if constexpr (CONSUMER == SMEM_SWZ_CONSUME_LOADS) {
            for (uint32_t c = threadIdx.x; c < SMEM_SWZ_TMA_TILE / 16; c += SMEM_SWZ_BLOCK) {
                uint32_t x, y, z, w;
                asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                             : "r"(slot + smem_swz_tma_offset(swz, c / 8, c % 8 * 16)) : "memory");
                h = smem_swz_fold(smem_swz_fold(smem_swz_fold(smem_swz_fold(h, x), y), z), w);
            }
        } else {
#pragma unroll
            for (int step = 0; step < SMEM_SWZ_TMA_ROW_BYTES / 32; step++) {
                uint32_t r, b, v[4];
                smem_swz_tma_lane_place(warp, lane, step, &r, &b);
                ldsm<4, 0>::run(slot + smem_swz_tma_offset(swz, r, b), v);
#pragma unroll
                for (int m = 0; m < 4; m++)
                    h = smem_swz_fold(h, v[m]);
            }
        }
        __syncthreads();
    }
#else
    (void)map, (void)swz, (void)tiles_per_block, (void)dyn;
    h = SMEM_NOT_BUILT_MARK;
#endif
    smem_clock_mark(clk, true);
    out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}

typedef void (*tma_fn_t)(const CUtensorMap, int, uint32_t, uint32_t *, smem_clock *);

static tma_fn_t pick_tma(int consumer)
{
    switch (consumer) {
    case SMEM_SWZ_CONSUME_LOADS: return swz_tma_kernel<SMEM_SWZ_CONSUME_LOADS>;
    case SMEM_SWZ_CONSUME_LDMATRIX: return swz_tma_kernel<SMEM_SWZ_CONSUME_LDMATRIX>;
    }
    return nullptr;
}

extern "C" const void *smem_swz_tma_fn(int consumer)
{
    return (const void *)pick_tma(consumer);
}

extern "C" int smem_swz_tma_encode(struct smem_tensor_map *out, const void *gmem, uint64_t rows, int swz, int *drv)
{
    static_assert(sizeof(CUtensorMap) == sizeof(out->bytes), "CUtensorMap is 128 bytes");
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    CUtensorMap map;
    const uint32_t span = swz ? (uint32_t)swz : SMEM_SWZ_TMA_ROW_BYTES;
    const cuuint64_t dims[2] = { SMEM_SWZ_TMA_ROW_BYTES / 2, rows };
    const cuuint64_t strides[1] = { SMEM_SWZ_TMA_ROW_BYTES };
    const cuuint32_t box[2] = { span / 2, SMEM_SWZ_TMA_ROWS }, elem[2] = { 1, 1 };
    CUtensorMapSwizzle mode = swz == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                              : swz == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                              : swz == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
    int e;
    CUresult r;

    *drv = 0;
    if ((e = smem_tensor_map_encoder(&encode)))
        return e;
    r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void *>(gmem), dims, strides, box, elem,
               CU_TENSOR_MAP_INTERLEAVE_NONE, mode, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        *drv = (int)r;
        return (int)cudaErrorInvalidValue;
    }
    memcpy(out->bytes, &map, sizeof(map));
    return 0;
}

extern "C" int smem_swz_tma_launch(int consumer, int swz, unsigned grid, size_t dyn_bytes,
                                   const struct smem_tensor_map *m, uint32_t tiles_per_block, uint32_t *out,
                                   smem_clock *clk, void *stream)
{
    tma_fn_t k = pick_tma(consumer);
    CUtensorMap map;

    if (!k || dyn_bytes < (size_t)SMEM_SWZ_TMA_STAGES * SMEM_SWZ_TMA_TILE + SMEM_SWZ_ALIGN)
        return (int)cudaErrorInvalidValue;
    memcpy(&map, m->bytes, sizeof(map));
    k<<<grid, SMEM_SWZ_BLOCK, dyn_bytes, (cudaStream_t)stream>>>(map, swz, tiles_per_block, out, clk);
    return (int)cudaGetLastError();
}
