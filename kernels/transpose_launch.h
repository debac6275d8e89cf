/* transpose.cu, the transpose family (transpose, transpose_naive, tile_copy): n x n fp32, n a multiple of the
 * tile's edge. The tiled kernels' shared-memory layout, thread placement and block order are the
 * inline functions below, shared with the host (the bank model), so both see the same addresses.
 * Launchers return a cudaError_t as int and never synchronize. */
#ifndef SMEM_KERNELS_TRANSPOSE_H
#define SMEM_KERNELS_TRANSPOSE_H

#include <stdint.h>

#include "clock_launch.h"
#include "portable.h"

#define SMEM_TRANSPOSE_BLOCK 256    /* threads of a tiled kernel's block: eight warps */
#define SMEM_TRANSPOSE_WARPS (SMEM_TRANSPOSE_BLOCK / 32)

/* The tile's layout in shared memory, the transpose benchmark's layout axis: row-major [e][e] (a
 * column is one bank), rows padded by one word [e][e + 1], or XOR-swizzled [e][e] (below). */
enum smem_transpose_layout {
    SMEM_TRANSPOSE_ROW_MAJOR = 0,
    SMEM_TRANSPOSE_PADDED = 1,
    SMEM_TRANSPOSE_SWIZZLED = 2,
};
#define SMEM_TRANSPOSE_NAIVE (-1)   /* the kernel without a tile, in place of a layout */

/* A kernel and its geometry: the layout (or SMEM_TRANSPOSE_NAIVE), the tile's edge in floats (32, 64 or
 * 128), floats per global access (1, 2, 4: float, float2, float4), the block order's band (tile rows
 * walked down each tile column before the next one; 1: along each tile row), the depth (tiles in
 * flight per block: 1, a block loading its tiles through registers; 2 to SMEM_TRANSPOSE_MAX_DEPTH, a
 * persistent grid whose blocks fill their next tiles by cp.async while they write the current one;
 * 0 reads as 1) and, at depth 1, the block's tiles (1, 2 or 4 consecutive tiles of the band order, the
 * next one's loads in registers while the current one is written; up to the 64-float edge; 0 reads
 * as 1). The naive kernel has edge 32, vec 1, band 1, depth 1 and one tile a block. */
struct smem_transpose_geom {
    int layout, edge, vec, band, depth, block_tiles;
};

#define SMEM_TRANSPOSE_MAX_DEPTH 4
#define SMEM_TRANSPOSE_MAX_BLOCK_TILES 4

/* Tiles a block of g moves (block_tiles, 0 read as 1). */
static inline SMEM_HOST_DEVICE int smem_transpose_block_tiles(const struct smem_transpose_geom *g)
{
    return g->block_tiles > 1 ? g->block_tiles : 1;
}

#ifdef __cplusplus
extern "C" {
#endif

/* The word of a tile at which element (r, c) lives under layout. The swizzle XORs the index of c's
 * vec-float chunk with the chunk row r / vec (modulo the 32 / vec chunks one 128-byte bank line holds):
 * a vec-float chunk stays whole (one aligned vector store), and the 32 / vec chunk rows a warp reads a
 * column of land on different chunks of the bank line, so the column read is conflict-free without
 * the padding's extra word per row (which would also misalign the vector stores). vec 1: c ^ (r % 32). */
static inline SMEM_HOST_DEVICE uint32_t smem_transpose_at(int layout, int edge, int vec, uint32_t r, uint32_t c)
{
    if (layout == SMEM_TRANSPOSE_PADDED)
        return r * (uint32_t)(edge + 1) + c;
    if (layout == SMEM_TRANSPOSE_SWIZZLED)
        return r * (uint32_t)edge + (c ^ (r / (uint32_t)vec % (32u / (uint32_t)vec) * (uint32_t)vec));
    return r * (uint32_t)edge + c;
}

/* Words of a tile under layout. */
static inline SMEM_HOST_DEVICE uint32_t smem_transpose_tile_words(int layout, int edge)
{
    return (uint32_t)edge * (uint32_t)(edge + (layout == SMEM_TRANSPOSE_PADDED));
}

/* Bytes of one tile's slot in a pipelined kernel's dynamic shared memory: the tile, rounded up to
 * 16 bytes so every slot starts aligned for 16-byte cp.async. */
static inline SMEM_HOST_DEVICE uint32_t smem_transpose_slot_bytes(int layout, int edge)
{
    return (smem_transpose_tile_words(layout, edge) * 4u + 15u) / 16u * 16u;
}

/* Dynamic shared memory of a one-tile block: none up to the 64-float edge (the tile is a static
 * array), the tile at the 128-float edge, over the 48 KiB a static array may take (opt-in). */
static inline SMEM_HOST_DEVICE uint32_t smem_transpose_dynamic_bytes(int layout, int edge)
{
    return edge > 64 ? smem_transpose_tile_words(layout, edge) * 4u : 0u;
}

/* Passes of a tiled kernel: each moves one vec-float vector per thread in and one out. */
static inline SMEM_HOST_DEVICE int smem_transpose_passes(int edge, int vec)
{
    return edge * edge / (SMEM_TRANSPOSE_BLOCK * vec);
}

/* Where lane of warp works in pass j: a warp covers vec rows of 32 floats (a 128-byte line of each),
 * its lanes 32 / vec vectors along a row. Reading in, the lane loads tile row *a, floats *b .. *b +
 * vec - 1; writing out, it stores out row *a (tile column a) from tile rows *b .. *b + vec - 1. */
static inline SMEM_HOST_DEVICE void smem_transpose_place(int edge, int vec, int j, int warp, int lane, uint32_t *a,
                                                         uint32_t *b)
{
    uint32_t slot = (uint32_t)(j * SMEM_TRANSPOSE_WARPS + warp), per_row = (uint32_t)edge / 32u;
    uint32_t lanes = 32u / (uint32_t)vec;

    *a = slot / per_row * (uint32_t)vec + (uint32_t)lane / lanes;
    *b = slot % per_row * 32u + (uint32_t)lane % lanes * (uint32_t)vec;
}

/* The tile (column tx, row ty) of block in a matrix of tiles x tiles tiles under band: bands of band
 * tile rows, each walked column by column (band 1: row by row, as a 2-D grid runs). */
static inline SMEM_HOST_DEVICE void smem_transpose_tile_of(uint32_t block, uint32_t tiles, uint32_t band, uint32_t *tx,
                                                           uint32_t *ty)
{
    uint32_t in_band = block % (band * tiles);

    *tx = in_band / band;
    *ty = block / (band * tiles) * band + in_band % band;
}

/* The tile copy (the tile_copy benchmark): the transposes' DRAM pattern with no shared memory. Tile
 * (tx, ty) of edge floats is copied row for row, untransposed, to where the transposes write it, tile
 * (ty, tx): the reads and the writes are the same edge * 4-byte runs of rows, strided by the row
 * pitch, in the same block order (band 1). A block of SMEM_TRANSPOSE_BLOCK threads moves block_bytes
 * of one tile, 16 bytes a thread a pass: block_bytes / edge / 4 rows of it; the blocks of a tile are
 * consecutive. Vector q = pass * SMEM_TRANSPOSE_BLOCK + thread of block: input row *r_in, float4
 * column *c4_in (in units of 4 floats) goes to output row *r_out, float4 column *c4_out. */
static inline SMEM_HOST_DEVICE void smem_tile_copy_place(int edge, int block_bytes, uint32_t tiles, uint32_t block,
                                                         uint32_t q, uint32_t *r_in, uint32_t *c4_in, uint32_t *r_out,
                                                         uint32_t *c4_out)
{
    uint32_t row4 = (uint32_t)edge / 4u, rows = (uint32_t)block_bytes / ((uint32_t)edge * 4u);
    uint32_t units = (uint32_t)edge / rows, t = block / units, tx = t % tiles, ty = t / tiles;
    uint32_t row = block % units * rows + q / row4, c4 = q % row4;

    *r_in = ty * (uint32_t)edge + row;
    *c4_in = tx * row4 + c4;
    *r_out = tx * (uint32_t)edge + row;
    *c4_out = ty * row4 + c4;
}

/* The tile copy's kernel for edge (32, 64 or 128 floats) and block_bytes (4096, 8192 or 16384, at most
 * the tile's bytes), or NULL. */
const void *smem_tile_copy_fn(int edge, int block_bytes);

/* out = in tile-copied (smem_tile_copy_place), one block per block_bytes of the n x n matrix. */
int smem_tile_copy_launch(int edge, int block_bytes, int n, const float *in, float *out, struct smem_clock *clk,
                          void *stream);

/* The kernel of g (its layout, edge, vec, block tiles, and whether its depth is above 1), or NULL:
 * none for block tiles other than 1, 2, 4, above 1 at the 128-float edge or with a depth above 1. */
const void *smem_transpose_fn(const struct smem_transpose_geom *g);

/* out = in transposed by the kernel of g, its tiles in g's block order. grid: the blocks of a
 * pipelined kernel (depth above 1; g->depth slots of smem_transpose_slot_bytes of dynamic shared
 * memory each, which above 48 KiB needs the caller's opt-in); a depth-1 launch takes one block per
 * g->block_tiles tiles (which must divide the tiles) and ignores it. */
int smem_transpose_launch(const struct smem_transpose_geom *g, int n, unsigned grid, const float *in, float *out,
                          struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
