/* The tile sweep's fp32 GEMM at the state of the art (kernels/sgemm_launch.h): what siboehm's warp-tiled
 * SGEMM and the cp.async / TMA pipelines of CUTLASS do, written for this suite.
 *
 * Shared memory. A is row-major, so its slab keeps rows of bk floats (A[m][k0 .. k0 + bk); at bk 64
 * two sub-slabs of 32) and a thread reads its eight rows m, m + 8, ..., m + 56 a float2 (two k,
 * a_width_bytes 8) or a float4 (four k, 16) at a time; the eight row groups of a warp would all hit
 * the same bank group (rows 4 bk bytes apart, a multiple of 32) without the XOR swizzle of the
 * row's bytes, which is also the pattern TMA writes (smem_sgemm_a_offset). B's slab keeps rows of
 * bn floats and a warp reads 4 float4 of one row (64 contiguous bytes). Neither conflicts, and the
 * lanes are mapped so that neighbours share their addresses and the returns pack
 * (smem_sgemm_lane_tm).
 *
 * Loads per k. float2 A: 4 loads of A and 2 of B per k for 64 FMAs; float4 A: 2 and 2. On the H200
 * that one change took the TMA kernel from 87.7 to 95.5 % of cuBLAS at n = 4096 (ncu: issue slots
 * busy 76 -> 81 %, results/tile/ncu_sgemm_885a98e_*.txt).
 *
 * Registers. Each thread holds 8 x 8 accumulators and its fragments (float2 A: 16 floats of A, 8
 * of B; float4 A: 4 of A, 32 of B, four rows of B for one k-quad) and asks __launch_bounds__ for
 * 128 registers (two blocks of 256 threads, one of 512) where that does not spill
 * (smem_sgemm_regs), so occupancy is the sweep's to show. The float4 A loop fits in 128 in the
 * TMA kernels; the cp.async kernels also hold their copies' addresses and spill it there
 * (smem_sgemm_a_width_built).
 *
 * Pipeline. stages slabs are in flight: the block computes on slab kt while slabs kt + 1 ..
 * kt + stages - 1 are landing. One __syncthreads per slab orders the reuse of a slot: the slot
 * refilled at kt is the one computed on at kt - 1. cp.async: each thread commits one group per
 * slab (empty past the end, so the count stays uniform) and waits until stages - 2 are pending.
 * TMA (cc 9.0): thread 0 issues the two tensor copies of a slab onto the slot's mbarrier with the
 * slab's bytes as its transaction count; every thread waits on the barrier's phase parity. */
#include <cstdint>
#include <cstring>

#include "clock.cuh"
#include "cp_async.cuh"
#include "mbarrier.cuh"
#include "sgemm_launch.h"
#include "tensor_map.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define SG_BUILT 0   /* no cp.async below cc 8.0: the benchmark skips these devices (min_cc) */
#else
#define SG_BUILT 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SG_TMA 1
#else
#define SG_TMA 0
#endif

#define GROUP_M 8   /* block rows walked together, so their A slabs and the B slabs they share stay in L2 */

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Blocks per SM __launch_bounds__ asks for: two of 256 threads (128 registers) where ptxas fits the
 * kernel in them without spilling (cc 9.0 to 11.x), one below and above (see smem_sgemm_regs) */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 900 || __CUDA_ARCH__ >= 1200)
#define SG_LOOSE 1
#define SG_MIN_BLOCKS(threads) 1
#else
#define SG_LOOSE 0
#define SG_MIN_BLOCKS(threads) (512 / (threads))
#endif

template <int BM, int BN, int BK, int COPY, int AV>
__global__ void __launch_bounds__(BM * BN / 64, SG_MIN_BLOCKS(BM * BN / 64))
sgemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
             const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n, int stages,
             smem_clock *clk)
{
    extern __shared__ __align__(16) unsigned char dyn[];

    smem_clock_mark(clk, false);
#if SG_BUILT
    /* A is BK / SUB sub-slabs of BM rows of SUB floats (ROW bytes): one at bk <= 32, two at 64 */
    constexpr int THREADS = BM * BN / 64, SUB = BK < 32 ? BK : 32, ROW = 4 * SUB;
    constexpr uint32_t A_BYTES = BM * BK * 4, STAGE = (BM + BN) * BK * 4;
    if ((COPY == SMEM_SGEMM_TMA && !SG_TMA) || (SG_LOOSE && THREADS > 256) ||
        (!SG_LOOSE && COPY == SMEM_SGEMM_CP_ASYNC && AV == 4)) {
        /* no TMA below cc 9.0: the benchmark skips these devices (min_cc); 512 threads cap a thread
         * at 128 registers, which spill there, and so do the cp.async kernels' float4 A loads under
         * the 128 of two blocks (the cp.async addresses take the registers the TMA kernels have
         * free): the plan skips them (smem_sgemm_built, smem_sgemm_a_width_built) */
        smem_clock_mark(clk, true);
        return;
    }
    /* the first stage at the next SMEM_SGEMM_ALIGN boundary, the barriers after the last */
    const uint32_t raw = smem_u32(dyn), base = (raw + SMEM_SGEMM_ALIGN - 1) & ~(uint32_t)(SMEM_SGEMM_ALIGN - 1);
    unsigned char *sbase = dyn + (base - raw);
    const uint32_t bar0 = base + (uint32_t)stages * STAGE;
    (void)bar0;   /* the TMA copy's */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / (BN / 32), wn = warp % (BN / 32), tm = smem_sgemm_lane_tm(lane), tn = smem_sgemm_lane_tn(lane);
    /* block raster: GROUP_M block rows at a time, column by column within the group */
    const int blocks_n = n / BN, blocks_m = n / BM, per_group = GROUP_M * blocks_n;
    const int group = blockIdx.x / per_group, first_m = group * GROUP_M;
    const int group_rows = min(blocks_m - first_m, GROUP_M), in_group = blockIdx.x % per_group;
    const int by = first_m + in_group % group_rows, bx = in_group / group_rows;
    const int kt_count = n / BK;
    /* the A rows this thread reads are tm + 8 i of its warp's 64: their swizzle term is the same */
    const uint32_t a_row0 = (uint32_t)(wm * 64 + tm) * ROW, a_xor = smem_sgemm_a_offset(BK, BM, (uint32_t)tm, 0) ^
                                                                     ((uint32_t)tm * ROW);
    /* the thread's first cp.async chunk of each slab, in global memory as 32-bit element offsets
     * from a and b (n <= 32768: a register each, not two) and in shared memory */
    const uint32_t a_src = (uint32_t)(by * BM + tid / (BK / 4)) * (uint32_t)n + 4u * (uint32_t)(tid % (BK / 4));
    const uint32_t b_src = (uint32_t)(tid / (BN / 4)) * (uint32_t)n + (uint32_t)(bx * BN) + 4u * (uint32_t)(tid % (BN / 4));
    const uint32_t a_dst = smem_sgemm_a_offset(BK, BM, (uint32_t)(tid / (BK / 4)), 16u * (uint32_t)(tid % (BK / 4)));
    const uint32_t b_dst = 16u * (uint32_t)tid;   /* row tid / (bn / 4), column 4 (tid % (bn / 4)): contiguous */
    float acc[8][8];

#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    auto load = [&](int kt) {
        const uint32_t slot = base + (uint32_t)(kt % stages) * STAGE;
        if constexpr (COPY == SMEM_SGEMM_TMA) {
#if SG_TMA
            if (tid == 0) {
                const uint32_t bar = bar0 + 8u * (uint32_t)(kt % stages);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(STAGE)
                             : "memory");
#pragma unroll
                for (int sub = 0; sub < BK / SUB; sub++)   /* a box of A per sub-slab: its rows are 128 bytes at most */
                    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(slot + sub * BM * ROW), "l"(&a_map),
                                 "r"(kt * BK + sub * SUB), "r"(by * BM), "r"(bar) : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                             " [%0], [%1, {%2, %3}], [%4];" ::"r"(slot + A_BYTES), "l"(&b_map), "r"(bx * BN),
                             "r"(kt * BK), "r"(bar) : "memory");
            }
#endif
        } else {
            /* chunk q = tid + it THREADS of A is row q / (bk / 4), column q % (bk / 4): every it moves
             * THREADS / (bk / 4) rows on, a multiple of 8, so the swizzle term and the sub-slab stay
             * the thread's */
            constexpr int A_CHUNKS = BM * BK / 4, B_CHUNKS = BK * BN / 4;
            constexpr int A_STEP = THREADS / (BK / 4), B_STEP = THREADS / (BN / 4);
#pragma unroll
            for (int it = 0; it < (A_CHUNKS + THREADS - 1) / THREADS; it++)
                if (A_CHUNKS % THREADS == 0 || tid + it * THREADS < A_CHUNKS)
                    smem_cp_async<16>(slot + a_dst + it * A_STEP * ROW, a + a_src + (uint32_t)(it * A_STEP) * (uint32_t)n +
                                                                     (uint32_t)(kt * BK));
#pragma unroll
            for (int it = 0; it < (B_CHUNKS + THREADS - 1) / THREADS; it++)
                if (B_CHUNKS % THREADS == 0 || tid + it * THREADS < B_CHUNKS)
                    smem_cp_async<16>(slot + A_BYTES + b_dst + it * B_STEP * BN * 4,
                               b + b_src + (uint32_t)(kt * BK + it * B_STEP) * (uint32_t)n);
            smem_cp_async_commit();
        }
    };

    if constexpr (COPY == SMEM_SGEMM_TMA) {
#if SG_TMA
        if (tid == 0) {
            for (int s = 0; s < stages; s++)
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        }
        __syncthreads();
#endif
    }
    for (int kt = 0; kt < stages - 1; kt++)
        if (COPY != SMEM_SGEMM_TMA || kt < kt_count)
            load(kt);   /* cp.async commits a group even past the end: one per slab, always */

    for (int kt = 0; kt < kt_count; kt++) {
        const int s = kt % stages;
        if constexpr (COPY == SMEM_SGEMM_TMA) {
#if SG_TMA
            smem_mbarrier_wait(bar0 + 8u * (uint32_t)s, (uint32_t)(kt / stages) & 1u);
            __syncthreads();   /* everyone is past slab kt - 1: its slot may be refilled */
            if (tid == 0 && kt + stages - 1 < kt_count) {
                /* the slot was read by the generic proxy: order those reads before the async writes */
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                load(kt + stages - 1);
            }
#endif
        } else {
            smem_cp_async_wait(stages - 2);
            __syncthreads();   /* every thread's copies of slab kt landed; everyone is past slab kt - 1 */
            if (kt + stages - 1 < kt_count)
                load(kt + stages - 1);
            else
                smem_cp_async_commit();
        }

        const unsigned char *sa = sbase + (uint32_t)s * STAGE + a_row0;
        const float *sb = (const float *)(sbase + (uint32_t)s * STAGE + A_BYTES) + wn * 32 + tn * 4;
        if constexpr (AV == 2) {
            /* two k at a time: a float2 of each of the eight A rows, then two rows of B */
#pragma unroll
            for (int k2 = 0; k2 < BK / 2; k2++) {
                float2 av[8];
                const uint32_t col = (8u * (uint32_t)(k2 % (SUB / 2))) ^ a_xor, sub = k2 / (SUB / 2) * BM * ROW;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    av[i] = *(const float2 *)(sa + sub + i * 8 * ROW + col);
#pragma unroll
                for (int kk = 0; kk < 2; kk++) {
                    const float4 b0 = *(const float4 *)(sb + (2 * k2 + kk) * BN);
                    const float4 b1 = *(const float4 *)(sb + (2 * k2 + kk) * BN + 16);
                    const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
                    for (int i = 0; i < 8; i++) {
                        const float ai = kk == 0 ? av[i].x : av[i].y;
#pragma unroll
                        for (int j = 0; j < 8; j++)
                            acc[i][j] = fmaf(ai, bv[j], acc[i][j]);
                    }
                }
            }
        } else {
            /* four k at a time: four rows of B (32 registers), then a float4 of one A row after the
             * other, each feeding 32 FMAs: 4 shared loads per k where float2 takes 6 */
#pragma unroll
            for (int k4 = 0; k4 < BK / 4; k4++) {
                float bv[4][8];
                const uint32_t col = (16u * (uint32_t)(k4 % (SUB / 4))) ^ a_xor, sub = k4 / (SUB / 4) * BM * ROW;
#pragma unroll
                for (int kk = 0; kk < 4; kk++) {
                    const float4 b0 = *(const float4 *)(sb + (4 * k4 + kk) * BN);
                    const float4 b1 = *(const float4 *)(sb + (4 * k4 + kk) * BN + 16);
                    bv[kk][0] = b0.x, bv[kk][1] = b0.y, bv[kk][2] = b0.z, bv[kk][3] = b0.w;
                    bv[kk][4] = b1.x, bv[kk][5] = b1.y, bv[kk][6] = b1.z, bv[kk][7] = b1.w;
                }
#pragma unroll
                for (int i = 0; i < 8; i++) {
                    const float4 a4 = *(const float4 *)(sa + sub + i * 8 * ROW + col);
                    const float av[4] = { a4.x, a4.y, a4.z, a4.w };
#pragma unroll
                    for (int kk = 0; kk < 4; kk++)
#pragma unroll
                        for (int j = 0; j < 8; j++)
                            acc[i][j] = fmaf(av[kk], bv[kk][j], acc[i][j]);
                }
            }
        }
    }
    if constexpr (COPY != SMEM_SGEMM_TMA)
        smem_cp_async_wait(0);   /* the empty groups: nothing may be in flight when the block exits */

#pragma unroll
    for (int i = 0; i < 8; i++) {
        float *crow = c + (size_t)(by * BM + wm * 64 + tm + 8 * i) * n + bx * BN + wn * 32 + tn * 4;
        *(float4 *)&crow[0] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *(float4 *)&crow[16] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
#else
    (void)a_map, (void)b_map, (void)a, (void)b, (void)c, (void)n, (void)stages, (void)dyn;
#endif
    smem_clock_mark(clk, true);
}

typedef void (*sgemm_fn_t)(const CUtensorMap, const CUtensorMap, const float *, const float *, float *, int, int,
                           smem_clock *);

template <int COPY, int AV> static sgemm_fn_t pick_copy(int bm, int bn, int bk)
{
#define SG_CASE(M, N, K)                                                                                   \
    if (bm == M && bn == N && bk == K)                                                                     \
        return sgemm_kernel<M, N, K, COPY, AV>;
    SG_CASE(128, 128, 8) SG_CASE(128, 128, 16) SG_CASE(128, 128, 32) SG_CASE(128, 128, 64)
    SG_CASE(256, 128, 8) SG_CASE(256, 128, 16) SG_CASE(256, 128, 32) SG_CASE(256, 128, 64)
    SG_CASE(128, 256, 8) SG_CASE(128, 256, 16) SG_CASE(128, 256, 32) SG_CASE(128, 256, 64)
#undef SG_CASE
    return nullptr;
}

static sgemm_fn_t pick(int copy, int bm, int bn, int bk, int a_width)
{
    switch (copy * 32 + a_width) {
    case SMEM_SGEMM_CP_ASYNC * 32 + 8: return pick_copy<SMEM_SGEMM_CP_ASYNC, 2>(bm, bn, bk);
    case SMEM_SGEMM_CP_ASYNC * 32 + 16: return pick_copy<SMEM_SGEMM_CP_ASYNC, 4>(bm, bn, bk);
    case SMEM_SGEMM_TMA * 32 + 8: return pick_copy<SMEM_SGEMM_TMA, 2>(bm, bn, bk);
    case SMEM_SGEMM_TMA * 32 + 16: return pick_copy<SMEM_SGEMM_TMA, 4>(bm, bn, bk);
    }
    return nullptr;
}

extern "C" const void *smem_sgemm_fn(int copy, int bm, int bn, int bk, int a_width)
{
    return (const void *)pick(copy, bm, bn, bk, a_width);
}

static CUresult encode_one(PFN_cuTensorMapEncodeTiled_v12000 encode, CUtensorMap *map, const float *g, int n,
                           cuuint32_t box_cols, cuuint32_t box_rows, CUtensorMapSwizzle swz)
{
    const cuuint64_t dims[2] = { (cuuint64_t)n, (cuuint64_t)n }, strides[1] = { (cuuint64_t)n * sizeof(float) };
    const cuuint32_t box[2] = { box_cols, box_rows }, elem[2] = { 1, 1 };

    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(g), dims, strides, box, elem,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

extern "C" int smem_sgemm_encode(struct smem_tensor_map *a_out, struct smem_tensor_map *b_out, const float *a,
                                 const float *b, int n, int bm, int bn, int bk, int *drv)
{
    static_assert(sizeof(CUtensorMap) == sizeof(a_out->bytes), "CUtensorMap is 128 bytes");
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    CUtensorMap am, bmap;
    /* a box of A is one sub-slab: rows of bk floats up to 32 (128 bytes, the widest swizzle) */
    const int sub = bk < 32 ? bk : 32;
    CUtensorMapSwizzle swz = sub == 32 ? CU_TENSOR_MAP_SWIZZLE_128B
                             : sub == 16 ? CU_TENSOR_MAP_SWIZZLE_64B
                                         : CU_TENSOR_MAP_SWIZZLE_32B;
    int e;
    CUresult r;

    *drv = 0;
    if (bk != 8 && bk != 16 && bk != 32 && bk != 64)
        return (int)cudaErrorInvalidValue;
    if ((e = smem_tensor_map_encoder(&encode)))
        return e;
    if ((r = encode_one(encode, &am, a, n, (cuuint32_t)sub, (cuuint32_t)bm, swz)) != CUDA_SUCCESS ||
        (r = encode_one(encode, &bmap, b, n, (cuuint32_t)bn, (cuuint32_t)bk, CU_TENSOR_MAP_SWIZZLE_NONE)) !=
            CUDA_SUCCESS) {
        *drv = (int)r;
        return (int)cudaErrorInvalidValue;
    }
    memcpy(a_out->bytes, &am, sizeof(am));
    memcpy(b_out->bytes, &bmap, sizeof(bmap));
    return 0;
}

extern "C" int smem_sgemm_launch(int copy, int bm, int bn, int bk, int a_width, int stages, int n, const float *a,
                                 const float *b, float *c, const struct smem_tensor_map *a_map,
                                 const struct smem_tensor_map *b_map, smem_clock *clk, void *stream)
{
    sgemm_fn_t k = pick(copy, bm, bn, bk, a_width);
    CUtensorMap am, bmap;

    if (!k || stages < 2 || stages > SMEM_SGEMM_MAX_STAGES || n % bm || n % bn || n % bk ||
        (copy == SMEM_SGEMM_TMA && (!a_map || !b_map)))
        return (int)cudaErrorInvalidValue;
    memset(&am, 0, sizeof(am));
    memset(&bmap, 0, sizeof(bmap));
    if (a_map)
        memcpy(&am, a_map->bytes, sizeof(am));
    if (b_map)
        memcpy(&bmap, b_map->bytes, sizeof(bmap));
    k<<<(unsigned)(n / bm) * (unsigned)(n / bn), smem_sgemm_threads(bm, bn), smem_sgemm_smem_bytes(bm, bn, bk, stages),
        (cudaStream_t)stream>>>(am, bmap, a, b, c, n, stages, clk);
    return (int)cudaGetLastError();
}
