/* swizzle.cu, the swizzle family's ldmatrix/stmatrix and TMA kernels: 16-bit tiles in shared memory
 * laid out row-major, with padded rows or XOR-swizzled (the 32/64/128-byte patterns of TMA and
 * CUTLASS), read by ldmatrix, written by stmatrix, or landed by cp.async.bulk.tensor from a
 * CUtensorMap and read back. The layout functions are shared with the host (its reference and the
 * bank model), so both see the same addresses. Launchers return a cudaError_t as int and never
 * synchronize. */
#ifndef SMEM_KERNELS_SWIZZLE_H
#define SMEM_KERNELS_SWIZZLE_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"
#include "portable.h"

#define SMEM_SWZ_BLOCK 256          /* eight warps, each on a tile of its own */
#define SMEM_SWZ_WARPS (SMEM_SWZ_BLOCK / 32)
#define SMEM_SWZ_ROWS 16            /* rows of a warp's tile: one 16x16 ldmatrix.x4 fragment high */
#define SMEM_SWZ_UNROLL 8           /* instructions per loop iteration, each at a different column */
#define SMEM_SWZ_ALIGN 1024         /* a 128-byte swizzle repeats every 8 rows of 128 bytes */

/* The layout codes of the layout axis: 0 row-major, 1 rows padded by 16 bytes, 32/64/128 the XOR
 * swizzle over that many bytes. */
enum smem_swz_layout {
    SMEM_SWZ_ROW_MAJOR = 0,
    SMEM_SWZ_PADDED = 1,
};
#define SMEM_SWZ_PAD_BYTES 16

/* The instruction of a tile kernel. */
enum smem_swz_op {
    SMEM_SWZ_LDMATRIX = 0,
    SMEM_SWZ_STMATRIX = 1,
};

#ifdef __cplusplus
extern "C" {
#endif

/* The TMA and CUTLASS swizzle of span bytes (32, 64, 128) on a shared-memory byte offset from an
 * aligned base: the 16-byte chunk bits [4, 4 + log2(span / 16)) are XORed with the row bits from 7
 * up (Swizzle<1|2|3, 4, 3>); other spans leave the offset alone. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_xor(uint32_t off, int span)
{
    uint32_t mask = span == 128 ? 7u : span == 64 ? 3u : span == 32 ? 1u : 0u;

    return off ^ (((off >> 7) & mask) << 4);
}

/* Bytes from one row to the next under layout: row_bytes, plus the pad of the padded layout. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_pitch(int layout, uint32_t row_bytes)
{
    return row_bytes + (layout == SMEM_SWZ_PADDED ? SMEM_SWZ_PAD_BYTES : 0);
}

/* Where byte b of row r of a tile of row_bytes-byte rows lands under layout. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_offset(int layout, uint32_t row_bytes, uint32_t r, uint32_t b)
{
    uint32_t off = r * smem_swz_pitch(layout, row_bytes) + b;

    return layout >= 32 ? smem_swz_xor(off, layout) : off;
}

/* Bytes of one warp's tile, rounded up to the swizzle's alignment so every warp sees the same banks. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_region(int layout, uint32_t row_bytes)
{
    uint32_t b = SMEM_SWZ_ROWS * smem_swz_pitch(layout, row_bytes);

    return (b + SMEM_SWZ_ALIGN - 1) / SMEM_SWZ_ALIGN * SMEM_SWZ_ALIGN;
}

/* The logical place lane supplies the row address of for matrices-matrix instruction step (0 ..
 * SMEM_SWZ_UNROLL - 1): matrix m = lane / 8 (lanes past the instruction's matrices repeat them), rows
 * 0-7 of the fragment for even m and 8-15 for odd, the second 16-byte column for m >= 2 (the A
 * operand's 16x16 order), and each step 32 bytes further along the row. */
static inline SMEM_HOST_DEVICE void smem_swz_lane_place(int matrices, uint32_t row_bytes, int step, int lane,
                                                       uint32_t *row, uint32_t *byte)
{
    int m = (lane / 8) % matrices;

    *row = 8u * (uint32_t)(m % 2) + (uint32_t)(lane % 8);
    *byte = (32u * (uint32_t)step + 16u * (uint32_t)(m / 2)) % row_bytes;
}

/* Dynamic shared memory of a tile kernel: a tile per warp, and room to align the first one. */
static inline SMEM_HOST_DEVICE size_t smem_swz_dyn_bytes(int layout, uint32_t row_bytes)
{
    return (size_t)SMEM_SWZ_WARPS * smem_swz_region(layout, row_bytes) + SMEM_SWZ_ALIGN;
}

/* The value lane holds in register m at step of a stmatrix kernel: distinct for every lane, matrix and
 * step, so a value stored to the wrong place, or a step's store lost, shows. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_st_value(int lane, int m, int step)
{
    return ((uint32_t)(step * 4 + m) * 32u + (uint32_t)lane + 1u) * 0x9E3779B1u;
}

/* The fold every consumer hashes its words into, in order. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_fold(uint32_t h, uint32_t w)
{
    return h * 33u + w;
}

/* ---- the tile kernels: op, matrices (1, 2, 4), trans, on row_bytes-byte rows under layout ---- */

/* The kernel, or NULL. */
const void *smem_swz_tile_fn(int op, int matrices, int trans);

/* ldmatrix: every warp copies the logical tile in (SMEM_SWZ_ROWS rows of row_bytes bytes, 16-bit
 * elements) to its own tile under layout, then runs iters x SMEM_SWZ_UNROLL ldmatrix; out[t] is thread
 * t's sum of the registers it received. stmatrix: iters x SMEM_SWZ_UNROLL stmatrix of
 * smem_swz_st_value, then each lane reads back the 16 bytes at each step's row address it supplied,
 * folded in step order (smem_swz_fold) into out[t]. in is unused by stmatrix. */
int smem_swz_tile_launch(int op, int matrices, int trans, int layout, uint32_t row_bytes, unsigned grid,
                         size_t dyn_bytes, const uint32_t *in, uint32_t *out, int iters, struct smem_clock *clk,
                         void *stream);

/* ---- TMA tensor copies (cc 9.0) ---- */

#define SMEM_SWZ_TMA_ROWS 128           /* rows of one stage's tile */
#define SMEM_SWZ_TMA_ROW_BYTES 128      /* 64 16-bit elements: one 128-byte swizzle atom wide */
#define SMEM_SWZ_TMA_TILE (SMEM_SWZ_TMA_ROWS * SMEM_SWZ_TMA_ROW_BYTES)
#define SMEM_SWZ_TMA_STAGES 4

/* The consumer of a landed tile. */
enum smem_swz_consumer {
    SMEM_SWZ_CONSUME_LOADS = 0,     /* ld.shared.v4 of every 16-byte chunk in logical order */
    SMEM_SWZ_CONSUME_LDMATRIX = 1,  /* ldmatrix.x4: warp w reads rows 16w..16w+15, four 16x16 fragments */
};

/* Where byte b (0..127) of row r of a landed tile sits under TMA swizzle mode swz (0, 32, 64, 128):
 * a tile is copied as 128 / span boxes of span-byte rows (span = swz, 128 without a swizzle), box k
 * holding bytes [k span, (k + 1) span) of every row, one after the other. */
static inline SMEM_HOST_DEVICE uint32_t smem_swz_tma_offset(int swz, uint32_t r, uint32_t b)
{
    uint32_t span = swz ? (uint32_t)swz : SMEM_SWZ_TMA_ROW_BYTES;

    return (b / span) * (SMEM_SWZ_TMA_ROWS * span) + smem_swz_offset(swz, span, r, b % span);
}

/* The row and byte of a landed tile that lane of warp supplies at ldmatrix.x4 number step (0..3). */
static inline SMEM_HOST_DEVICE void smem_swz_tma_lane_place(int warp, int lane, int step, uint32_t *row,
                                                           uint32_t *byte)
{
    int m = lane / 8;

    *row = 16u * (uint32_t)warp + 8u * (uint32_t)(m % 2) + (uint32_t)(lane % 8);
    *byte = 32u * (uint32_t)step + 16u * (uint32_t)(m / 2);
}

/* A CUtensorMap, opaque to C: 128 bytes, 64-byte aligned. */
struct smem_tensor_map {
    unsigned char bytes[128] __attribute__((aligned(64)));
};

/* Encodes a 2-D map over rows x SMEM_SWZ_TMA_ROW_BYTES bytes of 16-bit elements at gmem, boxes of
 * span-byte rows x SMEM_SWZ_TMA_ROWS with swizzle swz (0, 32, 64, 128), through the driver's
 * cuTensorMapEncodeTiled found by cudaGetDriverEntryPointByVersion (no link against libcuda).
 * cudaErrorNotSupported when the driver lacks it; *drv the driver's CUresult when it refused. */
int smem_swz_tma_encode(struct smem_tensor_map *map, const void *gmem, uint64_t rows, int swz, int *drv);

const void *smem_swz_tma_fn(int consumer);

/* Block b copies tiles b, b + grid, ... (tiles_per_block of them) through SMEM_SWZ_TMA_STAGES stages
 * and folds what it reads into out[b * SMEM_SWZ_BLOCK + t]. */
int smem_swz_tma_launch(int consumer, int swz, unsigned grid, size_t dyn_bytes, const struct smem_tensor_map *map,
                        uint32_t tiles_per_block, uint32_t *out, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
