/* sgemm.cu: a pipelined, warp-tiled C = A B in fp32 (n x n, row-major, n a multiple of the block
 * tile), the tile sweep's kernel at the state of the art. Block tiles of BM x BN outputs, BK deep
 * slabs of A and B staged in shared memory `stages` deep, filled by cp.async (cc 8.0) or by TMA
 * tensor copies completing on mbarriers (cc 9.0). Each warp computes 64 x 32 outputs, each thread
 * 8 x 8 of them. The launchers return a cudaError_t as int and never synchronize. */
#ifndef SMEM_KERNELS_SGEMM_H
#define SMEM_KERNELS_SGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "swizzle_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_SGEMM_THREAD_TILE 8   /* each thread an 8 x 8 tile of C in registers */
#define SMEM_SGEMM_WARP_M 64       /* a warp's tile: 8 x 4 threads of 8 x 8 */
#define SMEM_SGEMM_WARP_N 32
#define SMEM_SGEMM_ALIGN 1024      /* a stage starts where a 128-byte swizzle pattern starts */
#define SMEM_SGEMM_MAX_STAGES 8

/* How a stage is filled. */
enum smem_sgemm_copy {
    SMEM_SGEMM_CP_ASYNC = 0,       /* every thread issues 16-byte cp.async.cg copies, one group per stage */
    SMEM_SGEMM_TMA = 1,            /* one thread issues two cp.async.bulk.tensor copies onto the stage's mbarrier */
};

/* The register cap __launch_bounds__ sets for compute capability major.minor: 65536 registers over
 * 512 threads (two blocks of 256, one of 512) on cc 9.0 to 11.x, where ptxas fits the kernels in 128
 * registers without spilling; elsewhere (it spilled on sm_80, sm_86 and sm_120) the bounds ask for
 * one block and ptxas may use up to 255 (kernels/sgemm.cu, SG_MIN_BLOCKS). */
static inline int smem_sgemm_regs(int cc_major, int bm, int bn)
{
    (void)bm, (void)bn;
    return cc_major >= 9 && cc_major < 12 ? 128 : 255;
}

/* Whether the bm x bn kernels are built for compute capability major: 512-thread tiles are not
 * where the register cap is loose (they would be held to 128 registers and spill). */
static inline int smem_sgemm_built(int cc_major, int bm, int bn)
{
    return smem_sgemm_regs(cc_major, bm, bn) == 128 || bm * bn <= 128 * 128;
}

/* Whether the kernels of a copy whose threads read a_width bytes of an A row per shared load are
 * built for compute capability major: float4 loads of A (16) spill the cp.async kernels where the
 * cap is 128 registers (kernels/sgemm.cu), not the TMA kernels, whose copies hold no addresses. */
static inline int smem_sgemm_a_width_built(int cc_major, int copy, int a_width)
{
    return (a_width == 8 || a_width == 16) &&
           (a_width == 8 || copy == SMEM_SGEMM_TMA || smem_sgemm_regs(cc_major, 128, 128) != 128);
}

/* Threads of a bm x bn block tile. */
static inline int smem_sgemm_threads(int bm, int bn)
{
    return bm * bn / (SMEM_SGEMM_THREAD_TILE * SMEM_SGEMM_THREAD_TILE);
}

/* Bytes of one stage: the A slab (bm rows of bk floats, each row XOR-swizzled over its own
 * 4 bk bytes) and the B slab (bk rows of bn floats). */
static inline size_t smem_sgemm_stage_bytes(int bm, int bn, int bk)
{
    return (size_t)bk * (size_t)(bm + bn) * sizeof(float);
}

/* Dynamic shared memory of a block: its stages, the slack that aligns the first to
 * SMEM_SGEMM_ALIGN, and one 8-byte mbarrier per stage. */
static inline size_t smem_sgemm_smem_bytes(int bm, int bn, int bk, int stages)
{
    return (size_t)stages * smem_sgemm_stage_bytes(bm, bn, bk) + SMEM_SGEMM_ALIGN + 8 * (size_t)stages;
}

/* Where byte b (a multiple of 16 below 4 bk) of row m of the A slab (bm rows) lands. Up to bk = 32 the
 * slab is bm rows of 4 bk bytes, each under the 128-, 64- or 32-byte swizzle of a 4 bk-byte row, the
 * pattern TMA writes; bk = 64 is two such sub-slabs of 32 floats (128 bytes, the widest TMA swizzle),
 * k 0-31 then 32-63, one TMA box each. A warp's eight rows m, m + 8, ... of one 16-byte column then
 * fall in eight different 16-byte bank groups. */
static inline SMEM_HOST_DEVICE uint32_t smem_sgemm_a_offset(int bk, int bm, uint32_t m, uint32_t b)
{
    uint32_t row = 4u * (uint32_t)(bk < 32 ? bk : 32);

    return b / row * (uint32_t)bm * row + smem_swz_xor(m * row + b % row, (int)row);
}

/* Which of its warp's 8 x 4 threads lane is: row group tm (0-7) and column group tn (0-3). A warp
 * returns 128 bytes (one register of every lane) per shared-memory wavefront, so a float4 load
 * takes four and a float2 load two, unless lanes n and n ^ 1 (or n and n ^ 2) of the whole warp ask
 * for the same address: then two lanes share each return and it takes half (NVIDIA's rule for cc
 * 7.x and later, forums.developer.nvidia.com/t/77228; ncu on the H200 counted 2.0 wavefronts per
 * load with lane = 4 tm + tn, where only A's loads paired, and 1.33 with this mapping, which pairs
 * both: results/tile/ncu_sgemm_591d3ea.csv and ncu_sgemm_083c67a.csv). Bit 0 of lane is a tm bit, so n and n ^ 1
 * read the same B columns (tn); bits 1-2 are tn, so n and n ^ 2 read the same A rows (tm): A's
 * float2 loads take one wavefront, B's float4 loads two. */
static inline SMEM_HOST_DEVICE int smem_sgemm_lane_tm(int lane)
{
    return (lane & 1) | (lane >> 3) << 1;
}

static inline SMEM_HOST_DEVICE int smem_sgemm_lane_tn(int lane)
{
    return (lane >> 1) & 3;
}

/* The kernel of a tile shape (bm, bn) in {(128, 128), (256, 128), (128, 256)}, bk 8, 16, 32 or 64, a
 * copy, and the bytes a thread reads of an A row per shared load (a_width 8: a float2, two k; 16: a
 * float4, four k), or NULL. */
const void *smem_sgemm_fn(int copy, int bm, int bn, int bk, int a_width);

/* The two tensor maps of A and B (n x n fp32): boxes of bm rows x min(bk, 32) columns of A (a
 * sub-slab) with the swizzle of their rows, of bk rows x bn columns of B unswizzled. cudaErrorNotSupported when the driver
 * lacks cuTensorMapEncodeTiled; *drv the driver's CUresult when it refused. */
int smem_sgemm_encode(struct smem_tensor_map *a_map, struct smem_tensor_map *b_map, const float *a, const float *b,
                      int n, int bm, int bn, int bk, int *drv);

/* C = A B with stages (2 .. SMEM_SGEMM_MAX_STAGES) slabs in flight; the maps are used by the TMA copy
 * only (NULL for cp.async). */
int smem_sgemm_launch(int copy, int bm, int bn, int bk, int a_width, int stages, int n, const float *a,
                      const float *b, float *c, const struct smem_tensor_map *a_map,
                      const struct smem_tensor_map *b_map, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
