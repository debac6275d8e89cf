/* swizzle_wgmma.cu: wgmma.mma_async (sm_90a) with both operands in shared memory, K-major BF16,
 * through matrix descriptors in each swizzle mode the instruction takes (none, 32, 64, 128 bytes).
 * Only this file is compiled for sm_90a; for every other target its kernel writes NaN and its probe
 * says it was not built. Launchers return a cudaError_t as int and never synchronize. */
#ifndef SMEM_KERNELS_SWIZZLE_WGMMA_H
#define SMEM_KERNELS_SWIZZLE_WGMMA_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "portable.h"
#include "swizzle_launch.h"

#define SMEM_WGMMA_BLOCK 256        /* two warpgroups, each its own A, both one B */
#define SMEM_WGMMA_GROUPS 2
#define SMEM_WGMMA_M 64
#define SMEM_WGMMA_N 128
#define SMEM_WGMMA_K 64             /* per tile: 128 bytes of BF16, one 128-byte swizzle atom */
#define SMEM_WGMMA_KSTEP 16         /* K of one instruction */
#define SMEM_WGMMA_A_BYTES (SMEM_WGMMA_M * SMEM_WGMMA_K * 2)
#define SMEM_WGMMA_B_BYTES (SMEM_WGMMA_N * SMEM_WGMMA_K * 2)
#define SMEM_WGMMA_DYN (SMEM_WGMMA_GROUPS * SMEM_WGMMA_A_BYTES + SMEM_WGMMA_B_BYTES + SMEM_SWZ_ALIGN)

#ifdef __cplusplus
extern "C" {
#endif

/* Where byte kb of row r (of rows) of a K-major operand sits under swizzle mode swz, as the matrix
 * descriptor describes it (CUTLASS's canonical GMMA K-major layouts): without a swizzle, 8x16-byte
 * core matrices of 128 contiguous bytes, 8-row groups 128 bytes apart (SBO) and K halves rows x 16
 * bytes apart (LBO); with one, swz-byte rows swizzled by smem_swz_xor, 8-row groups 8 x swz apart
 * (SBO), and K split into 128 / swz atoms of rows x swz bytes. */
static inline SMEM_HOST_DEVICE uint32_t smem_wgmma_offset(int swz, uint32_t rows, uint32_t r, uint32_t kb)
{
    if (!swz)
        return kb / 16 * (rows / 8) * 128 + r / 8 * 128 + r % 8 * 16 + kb % 16;
    return kb / (uint32_t)swz * rows * (uint32_t)swz + smem_swz_xor(r * (uint32_t)swz + kb % (uint32_t)swz, swz);
}

/* The 64-bit matrix descriptor of K step k (16 elements) of an operand of rows rows at shared address
 * addr (aligned to 1024): start address, leading and stride byte offsets (16-byte units) and the
 * layout type in bits 62-63 (0 none, 1 128 B, 2 64 B, 3 32 B). */
static inline SMEM_HOST_DEVICE uint64_t smem_wgmma_desc(uint32_t addr, int swz, uint32_t rows, int k)
{
    uint32_t start = addr + smem_wgmma_offset(swz, rows, 0, 32u * (uint32_t)k);
    uint32_t lbo = swz ? 16u : rows / 8 * 128, sbo = swz ? 8u * (uint32_t)swz : 128u;
    uint64_t type = swz == 128 ? 1 : swz == 64 ? 2 : swz == 32 ? 3 : 0;

    return (uint64_t)((start & 0x3FFFF) >> 4) | (uint64_t)((lbo >> 4) & 0x3FFF) << 16 |
           (uint64_t)((sbo >> 4) & 0x3FFF) << 32 | type << 62;
}

/* The accumulator element register i of lane of warp (0..3 in its warpgroup) holds, m64nNk16 f32. */
static inline SMEM_HOST_DEVICE void smem_wgmma_acc_place(int warp, int lane, int i, uint32_t *row, uint32_t *col)
{
    *row = 16u * (uint32_t)warp + (uint32_t)lane / 4 + 8u * (uint32_t)((i / 2) % 2);
    *col = 8u * (uint32_t)(i / 4) + 2u * (uint32_t)(lane % 4) + (uint32_t)(i % 2);
}

const void *smem_wgmma_fn(void);

/* Writes 1 to *built where the device runs sm_90a code of this file (wgmma), else 0. */
int smem_wgmma_probe(int *built, void *stream);

/* Every block lays A (SMEM_WGMMA_GROUPS x M x K) and B (N x K), 16-bit, row-major with K contiguous,
 * out under swz, then each warpgroup runs iters x (K / KSTEP) wgmma, the first of each K tile
 * overwriting its accumulators; out[((block * GROUPS + g) * M + m) * N + n] = sum_k A[g][m][k] B[n][k]. */
int smem_wgmma_launch(int swz, unsigned grid, const uint16_t *a, const uint16_t *b, float *out, int iters,
                      struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
