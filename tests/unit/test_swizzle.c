/* The swizzle sweep's bank model and layouts, with no GPU: ldmatrix/stmatrix passes per instruction
 * on row-major, padded and XOR-swizzled tiles (each 8x8 matrix is a phase of eight 16-byte rows), the
 * TMA consumer's passes per swizzle mode, and the layouts the kernels and the wgmma descriptors use
 * (each a permutation of the tile's 16-byte chunks, so no byte is lost or written twice). */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "load_family.h"
#include "swizzle_family.h"
#include "swizzle_wgmma_launch.h"

static const uint32_t rows_bytes[] = { 32, 64, 128, 256 };

Test(swizzle_model, a_phase_takes_the_most_distinct_words_of_one_bank)
{
    uint32_t same[8] = { 0 }, line[8], column[8];

    for (int i = 0; i < 8; i++) {
        line[i] = 16u * (uint32_t)i;         /* one 128-byte line: every bank once */
        column[i] = 128u * (uint32_t)i;      /* eight rows of 128 bytes: banks 0-3 eight times */
    }
    cr_assert_eq(smem_bank_phase_wavefronts(same, 8), 1, "one address read by eight lanes is a broadcast");
    cr_assert_eq(smem_bank_phase_wavefronts(line, 8), 1);
    cr_assert_eq(smem_bank_phase_wavefronts(column, 8), 8);
    uint32_t two[16];
    for (int i = 0; i < 16; i++)
        two[i] = 16u * (uint32_t)(i % 8);
    cr_assert_eq(smem_bank_phase_wavefronts(two, 16), 2, "two phases of one line each");
}

Test(swizzle_model, padded_rows_are_conflict_free_for_every_width_and_instruction)
{
    for (size_t r = 0; r < 4; r++)
        for (int m = 1; m <= 4; m *= 2)
            cr_assert_float_eq(smem_swz_tile_wavefronts(m, rows_bytes[r], SMEM_SWZ_PADDED), m, 1e-12,
                               "%u-byte rows, x%d", rows_bytes[r], m);
}

Test(swizzle_model, row_major_conflicts_grow_with_the_row_up_to_eight_way)
{
    /* eight rows of a matrix share 128 / row_bytes lines' banks: 2-way at 32 bytes ... 8-way from 128 */
    const double ways[] = { 2, 4, 8, 8 };

    for (size_t r = 0; r < 4; r++) {
        cr_assert_float_eq(smem_swz_tile_wavefronts(4, rows_bytes[r], SMEM_SWZ_ROW_MAJOR), 4 * ways[r], 1e-12,
                           "%u-byte rows", rows_bytes[r]);
        cr_assert_float_eq(smem_swz_tile_wavefronts(1, rows_bytes[r], SMEM_SWZ_ROW_MAJOR), ways[r], 1e-12);
    }
}

Test(swizzle_model, a_swizzle_as_wide_as_the_row_is_conflict_free)
{
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 128, 128), 4, 1e-12, "128-byte swizzle, 128-byte rows");
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 64, 64), 4, 1e-12);
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 32, 32), 4, 1e-12);
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 32, 128), 4, 1e-12, "a wider swizzle covers narrower rows");
    /* 256-byte rows step the row bits by 2: a 128-byte swizzle reaches only 4 of the 8 chunks (2-way);
     * CUTLASS tiles 128-byte atoms along K instead */
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 256, 128), 8, 1e-12);
    /* a narrower swizzle spreads 128-byte rows over only 2 or 4 chunks: 4-way and 2-way */
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 128, 32), 16, 1e-12);
    cr_assert_float_eq(smem_swz_tile_wavefronts(4, 128, 64), 8, 1e-12);
}

Test(swizzle_model, the_tma_consumer_pays_for_the_layout_it_was_landed_in)
{
    cr_assert_float_eq(smem_swz_tma_wavefronts(0, SMEM_SWZ_CONSUME_LDMATRIX), 32, 1e-12);
    for (int swz = 32; swz <= 128; swz *= 2)
        cr_assert_float_eq(smem_swz_tma_wavefronts(swz, SMEM_SWZ_CONSUME_LDMATRIX), 4, 1e-12, "swizzle %d", swz);
    /* plain loads of a logical row: its 128 bytes sit in 128 / span boxes whose rows share banks */
    cr_assert_float_eq(smem_swz_tma_wavefronts(0, SMEM_SWZ_CONSUME_LOADS), 4, 1e-12);
    cr_assert_float_eq(smem_swz_tma_wavefronts(128, SMEM_SWZ_CONSUME_LOADS), 4, 1e-12);
    cr_assert_float_eq(smem_swz_tma_wavefronts(64, SMEM_SWZ_CONSUME_LOADS), 8, 1e-12);
    cr_assert_float_eq(smem_swz_tma_wavefronts(32, SMEM_SWZ_CONSUME_LOADS), 16, 1e-12);
}

/* Whether f maps the chunks of a rows x row_bytes tile one to one into [0, span). */
static void assert_permutation(uint32_t (*f)(int, uint32_t, uint32_t, uint32_t), int mode, uint32_t rows,
                               uint32_t row_bytes, uint32_t span)
{
    static uint8_t seen[64 * 1024];

    cr_assert_leq(span, sizeof(seen));
    memset(seen, 0, span);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t b = 0; b < row_bytes; b += 16) {
            uint32_t o = f(mode, rows, r, b);
            cr_assert_eq(o % 16, 0);
            cr_assert_lt(o, span, "mode %d row %u byte %u -> %u", mode, r, b, o);
            cr_assert_not(seen[o], "mode %d: two chunks at %u", mode, o);
            seen[o] = 1;
        }
}

static uint32_t tile_offset(int layout, uint32_t rows, uint32_t r, uint32_t b)
{
    (void)rows;
    return smem_swz_offset(layout, 128, r, b);
}

static uint32_t tma_offset(int swz, uint32_t rows, uint32_t r, uint32_t b)
{
    (void)rows;
    return smem_swz_tma_offset(swz, r, b);
}

static uint32_t wgmma_offset(int swz, uint32_t rows, uint32_t r, uint32_t b)
{
    return smem_wgmma_offset(swz, rows, r, b);
}

Test(swizzle_layouts, every_layout_is_a_permutation_of_the_tiles_chunks)
{
    const int modes[] = { 0, 32, 64, 128 };

    for (size_t i = 0; i < 4; i++) {
        assert_permutation(tile_offset, modes[i], SMEM_SWZ_ROWS, 128, SMEM_SWZ_ROWS * 128);
        assert_permutation(tma_offset, modes[i], SMEM_SWZ_TMA_ROWS, 128, SMEM_SWZ_TMA_TILE);
        assert_permutation(wgmma_offset, modes[i], SMEM_WGMMA_N, 128, SMEM_WGMMA_B_BYTES);
    }
    /* the swizzle never leaves a 128-byte line: row r's chunks stay in row r's line */
    for (uint32_t r = 0; r < 8; r++)
        for (uint32_t b = 0; b < 128; b += 16)
            cr_assert_eq(smem_swz_offset(128, 128, r, b) / 128, r);
}

Test(swizzle_layouts, wgmma_descriptors_carry_the_modes_strides)
{
    /* 128-byte swizzle: 8-row groups 1024 bytes apart (SBO 64 in 16-byte units), layout type 1 */
    uint64_t d = smem_wgmma_desc(0x4000, 128, 64, 1);

    cr_assert_eq(d & 0x3FFF, (0x4000 + 32) >> 4, "K step 1 starts 32 bytes in");
    cr_assert_eq(d >> 32 & 0x3FFF, 1024 >> 4);
    cr_assert_eq(d >> 62, 1);
    d = smem_wgmma_desc(0x4000, 32, 64, 2);    /* 32-byte atoms: K step 2 is the third, rows x 32 bytes on */
    cr_assert_eq(d & 0x3FFF, (0x4000 + 2 * 64 * 32) >> 4);
    cr_assert_eq(d >> 32 & 0x3FFF, 256 >> 4);
    cr_assert_eq(d >> 62, 3);
    d = smem_wgmma_desc(0x4000, 0, 64, 1);     /* no swizzle: K halves rows x 16 bytes apart (LBO) */
    cr_assert_eq(d & 0x3FFF, (0x4000 + 2 * 8 * 128) >> 4);
    cr_assert_eq(d >> 16 & 0x3FFF, 8 * 128 >> 4);
    cr_assert_eq(d >> 32 & 0x3FFF, 128 >> 4);
    cr_assert_eq(d >> 62, 0);
}

Test(swizzle_reference, ldmatrix_lane_zero_gets_the_first_word_of_each_matrix)
{
    uint32_t tile[SMEM_SWZ_ROWS * 32 / 4];

    for (size_t i = 0; i < SMEM_ARRAY_LEN(tile); i++)
        tile[i] = (uint32_t)i * 0x01000193u + 7;
    /* 32-byte rows, .x1: lane 0 gets row 0's word 0 at every one of the eight steps */
    cr_assert_eq(smem_swz_tile_ref(SMEM_SWZ_LDMATRIX, 1, 0, 32, SMEM_SWZ_ROW_MAJOR, tile, 1, 0), 8 * tile[0]);
    /* .x2 adds matrix 1, rows 8-15: row 8's word 0 */
    cr_assert_eq(smem_swz_tile_ref(SMEM_SWZ_LDMATRIX, 2, 0, 32, SMEM_SWZ_ROW_MAJOR, tile, 1, 0),
                 8 * (tile[0] + tile[8 * 32 / 4]));
    /* the layout moves nothing the reference reads: it reads the logical tile */
    cr_assert_eq(smem_swz_tile_ref(SMEM_SWZ_LDMATRIX, 4, 1, 32, 128, tile, 3, 5),
                 smem_swz_tile_ref(SMEM_SWZ_LDMATRIX, 4, 1, 32, SMEM_SWZ_PADDED, tile, 3, 5));
}

Test(swizzle_reference, stmatrix_readback_depends_on_the_transpose_not_the_layout)
{
    for (int lane = 0; lane < 32; lane++) {
        uint32_t a = smem_swz_tile_ref(SMEM_SWZ_STMATRIX, 4, 0, 128, SMEM_SWZ_ROW_MAJOR, NULL, 1, lane);
        cr_assert_eq(a, smem_swz_tile_ref(SMEM_SWZ_STMATRIX, 4, 0, 128, 128, NULL, 1, lane), "lane %d", lane);
        cr_assert_neq(a, smem_swz_tile_ref(SMEM_SWZ_STMATRIX, 4, 1, 128, 128, NULL, 1, lane), "lane %d", lane);
    }
}
