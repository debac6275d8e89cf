/* The transpose benchmark's bank model, layouts and plan, with no GPU: wavefronts per shared store and
 * per column read of each layout and geometry, computed from the addresses the kernels' lanes use
 * (the row-major tile's column read 32 / vec-way, the padded and swizzled ones conflict-free), the
 * layouts and the lanes' places as permutations of the tile, the block order as a permutation of the
 * tiles, the pipelined kernels' slots and plans, and the points the plan must skip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arch.h"
#include "gpus.h"
#include "load_family.h"
#include "sweep.h"
#include "transpose_family.h"

static const int edges[] = { 32, 64 }, vecs[] = { 1, 2, 4 };

Test(transpose_model, a_request_takes_the_most_distinct_words_of_one_bank_per_phase)
{
    uint32_t column[32], same[32], row[32];

    for (uint32_t i = 0; i < 32; i++) {
        column[i] = 128 * i;    /* one bank, 32 words */
        same[i] = 64;
        row[i] = 16 * i;        /* 16-byte accesses: 512 contiguous bytes */
    }
    cr_assert_eq(smem_bank_request_wavefronts(column, 32, 4), 32);
    cr_assert_eq(smem_bank_request_wavefronts(same, 32, 4), 1, "one word read by every lane is a broadcast");
    cr_assert_eq(smem_bank_request_wavefronts(row, 32, 16), 4, "four phases of one line each");
    for (uint32_t i = 0; i < 32; i++)
        row[i] = 8 * i;
    cr_assert_eq(smem_bank_request_wavefronts(row, 32, 8), 2, "two phases of one line each");
    for (uint32_t i = 0; i < 32; i++)
        row[i] = 8 * (i % 16) * 2;      /* each half-warp two lines' worth on 16 banks */
    cr_assert_eq(smem_bank_request_wavefronts(row, 32, 8), 4);
    cr_assert_eq(smem_bank_phase_wavefronts(column, 8), 8, "the 16-byte form is the same model");
}

Test(transpose_model, the_row_major_column_read_is_32_over_vec_way)
{
    /* a warp reads vec tile columns at once, each 32 / vec rows deep, all in one bank per column */
    for (size_t e = 0; e < 2; e++)
        for (size_t v = 0; v < 3; v++) {
            struct smem_transpose_geom g = { SMEM_TRANSPOSE_ROW_MAJOR, edges[e], vecs[v], 1, 1, 1 };
            cr_assert_float_eq(smem_transpose_wavefronts(&g, false), 32.0 / vecs[v], 1e-12, "edge %d, vec %d",
                               edges[e], vecs[v]);
            cr_assert_float_eq(smem_transpose_wavefronts(&g, true), vecs[v], 1e-12,
                               "edge %d: a %d-byte row store takes what its bytes need", edges[e], 4 * vecs[v]);
        }
}

Test(transpose_model, padding_and_the_swizzle_read_the_column_conflict_free)
{
    for (size_t e = 0; e < 2; e++)
        for (size_t v = 0; v < 3; v++) {
            struct smem_transpose_geom pad = { SMEM_TRANSPOSE_PADDED, edges[e], vecs[v], 1, 1, 1 };
            struct smem_transpose_geom swz = { SMEM_TRANSPOSE_SWIZZLED, edges[e], vecs[v], 1, 1, 1 };
            cr_assert_float_eq(smem_transpose_wavefronts(&pad, false), 1, 1e-12, "edge %d, vec %d", edges[e], vecs[v]);
            cr_assert_float_eq(smem_transpose_wavefronts(&swz, false), 1, 1e-12, "edge %d, vec %d", edges[e], vecs[v]);
            /* padded: vec word stores of one pass each; swizzled: one vector store of vec passes, its minimum */
            cr_assert_float_eq(smem_transpose_wavefronts(&pad, true), 1, 1e-12, "edge %d, vec %d", edges[e], vecs[v]);
            cr_assert_float_eq(smem_transpose_wavefronts(&swz, true), vecs[v], 1e-12, "edge %d, vec %d", edges[e],
                               vecs[v]);
        }
}

Test(transpose_model, the_block_order_does_not_move_a_bank)
{
    struct smem_transpose_geom g = { SMEM_TRANSPOSE_SWIZZLED, 64, 4, 16, 1, 1 };

    cr_assert_float_eq(smem_transpose_wavefronts(&g, false), 1, 1e-12);
}

Test(transpose_layout, every_layout_holds_each_element_once_and_the_swizzle_keeps_vectors_whole)
{
    for (int layout = 0; layout <= 2; layout++)
        for (size_t e = 0; e < 2; e++)
            for (size_t v = 0; v < 3; v++) {
                int edge = edges[e], vec = vecs[v];
                uint32_t words = smem_transpose_tile_words(layout, edge);
                char *used = calloc(words, 1);
                for (uint32_t r = 0; r < (uint32_t)edge; r++)
                    for (uint32_t c = 0; c < (uint32_t)edge; c++) {
                        uint32_t at = smem_transpose_at(layout, edge, vec, r, c);
                        cr_assert_lt(at, words, "layout %d edge %d vec %d: (%u, %u) outside the tile", layout, edge,
                                     vec, r, c);
                        cr_assert_not(used[at], "layout %d edge %d vec %d: (%u, %u) on another element", layout,
                                      edge, vec, r, c);
                        used[at] = 1;
                        uint32_t k = c % (uint32_t)vec;
                        if (layout != SMEM_TRANSPOSE_PADDED && k)
                            cr_assert_eq(at, smem_transpose_at(layout, edge, vec, r, c - k) + k,
                                         "layout %d vec %d: a vector split", layout, vec);
                    }
                free(used);
            }
    cr_assert_eq(smem_transpose_at(SMEM_TRANSPOSE_SWIZZLED, 32, 1, 5, 3), 5 * 32 + (3 ^ 5), "tile[r][c ^ r]");
}

Test(transpose_layout, the_lanes_move_each_element_once)
{
    for (size_t e = 0; e < 2; e++)
        for (size_t v = 0; v < 3; v++) {
            uint32_t edge = (uint32_t)edges[e], vec = (uint32_t)vecs[v];
            int passes = smem_transpose_passes(edges[e], vecs[v]);
            char *seen = calloc(edge * edge, 1);
            cr_assert_eq((uint32_t)passes * SMEM_TRANSPOSE_BLOCK * vec, edge * edge);
            for (int j = 0; j < passes; j++)
                for (int w = 0; w < SMEM_TRANSPOSE_WARPS; w++)
                    for (int lane = 0; lane < 32; lane++) {
                        uint32_t a, b;
                        smem_transpose_place(edges[e], vecs[v], j, w, lane, &a, &b);
                        cr_assert(a < edge && b + vec <= edge && b % vec == 0);
                        for (uint32_t k = 0; k < vec; k++) {
                            cr_assert_not(seen[a * edge + b + k], "edge %u vec %u: twice", edge, vec);
                            seen[a * edge + b + k] = 1;
                        }
                    }
            free(seen);
        }
}

Test(transpose_order, every_band_visits_every_tile_once)
{
    const uint32_t tiles = 16, bands[] = { 1, 2, 4, 8, 16 };

    for (size_t i = 0; i < 5; i++) {
        char seen[16 * 16] = { 0 };
        for (uint32_t block = 0; block < tiles * tiles; block++) {
            uint32_t tx, ty;
            smem_transpose_tile_of(block, tiles, bands[i], &tx, &ty);
            cr_assert(tx < tiles && ty < tiles);
            cr_assert_not(seen[ty * tiles + tx], "band %u: tile (%u, %u) twice", bands[i], tx, ty);
            seen[ty * tiles + tx] = 1;
            if (bands[i] == 1)
                cr_assert(tx == block % tiles && ty == block / tiles, "band 1 runs as a 2-D grid");
        }
    }
    uint32_t tx, ty;
    smem_transpose_tile_of(5, tiles, 4, &tx, &ty);
    cr_assert(tx == 1 && ty == 1, "band 4: blocks 4..7 are the second column of the first band");
}

/* A point of transpose at mib, layout, edge, width, band, depth, block tiles and resident blocks. */
static struct smem_point point_of(int64_t mib, int64_t layout, int64_t edge, int64_t width, int64_t band,
                                  int64_t depth, int64_t block_tiles, int64_t resident)
{
    const struct smem_bench *b = smem_bench_find("transpose");
    struct smem_point pt = { .bench = b };
    const char *names[] = { "mib", "layout", "edge_elems", "width_bytes", "band_tiles", "depth_tiles", "block_tiles",
                            "resident_blocks" };
    int64_t v[] = { mib, layout, edge, width, band, depth, block_tiles, resident };

    for (size_t i = 0; i < 8; i++) {
        int a = smem_bench_axis(b, names[i]);
        cr_assert_geq(a, 0, "transpose has no axis %s", names[i]);
        pt.values[a] = v[i];
    }
    return pt;
}

/* The plan of that point on dev (NULL: the H200's model), SMEM_ESKIP with the reason in why. */
static int plan_full(const struct smem_device *dev, int64_t mib, int64_t layout, int64_t edge, int64_t width,
                     int64_t band, int64_t depth, int64_t block_tiles, int64_t resident, struct smem_plan *p,
                     char *why)
{
    struct smem_point pt = point_of(mib, layout, edge, width, band, depth, block_tiles, resident);

    memset(p, 0, sizeof(*p));
    p->carveout_pct = -1;
    why[0] = 0;
    return pt.bench->plan(&pt, dev ? dev : &smem_gpu_find("h200")->dev, p, why, SMEM_REASON_LEN);
}

/* plan_full with the driver's configuration. */
static int plan_tiles(const struct smem_device *dev, int64_t mib, int64_t layout, int64_t edge, int64_t width,
                      int64_t band, int64_t depth, int64_t block_tiles, struct smem_plan *p, char *why)
{
    return plan_full(dev, mib, layout, edge, width, band, depth, block_tiles, 0, p, why);
}

/* plan_tiles with one tile a block. */
static int plan_on(const struct smem_device *dev, int64_t mib, int64_t layout, int64_t edge, int64_t width,
                   int64_t band, int64_t depth, struct smem_plan *p, char *why)
{
    return plan_tiles(dev, mib, layout, edge, width, band, depth, 1, p, why);
}

static int plan_of(int64_t mib, int64_t layout, int64_t edge, int64_t width, int64_t band, struct smem_plan *p,
                   char *why)
{
    return plan_on(NULL, mib, layout, edge, width, band, 1, p, why);
}

Test(transpose_plan, geometries_without_a_kernel_are_skipped_with_the_reason)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    cr_assert_eq(plan_of(256, 2, 48, 16, 1, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "edge_elems 48"), "%s", why);
    cr_assert_eq(plan_of(256, 2, 64, 12, 1, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "width_bytes 12"), "%s", why);
    cr_assert_eq(plan_of(256, 2, 64, 16, 3, &p, why), SMEM_ESKIP, "128 tile rows are not bands of 3");
    cr_assert(strstr(why, "bands of 3"), "%s", why);
    cr_assert_eq(plan_of(2, 2, 64, 16, 1, &p, why), SMEM_ESKIP);
    cr_assert_eq(plan_of(256, 2, 64, 16, 128, &p, why), SMEM_OK, "one band of every tile row: %s", why);
}

Test(transpose_plan, the_launch_is_one_block_per_tile_with_the_layouts_tile)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    cr_assert_eq(plan_of(256, 1, 64, 16, 1, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.work, 8192);
    cr_assert_eq(p.grid, 128 * 128);
    cr_assert_eq(p.block, SMEM_TRANSPOSE_BLOCK);
    cr_assert_eq(p.static_smem, 64 * 65 * 4);
    cr_assert_eq(plan_of(256, 2, 32, 4, 1, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 256 * 256);
    cr_assert_eq(p.static_smem, 32 * 32 * 4, "the swizzle costs no memory");
    cr_assert_eq(p.variant, SMEM_TRANSPOSE_SWIZZLED);
}

Test(transpose_plan, the_default_plan_is_every_layout_at_two_sizes)
{
    struct smem_plan_request r = { .bench = "transpose" };
    struct smem_point *p;
    size_t n;

    cr_assert_eq(smem_sweep_expand(&r, &p, &n, NULL), 0);
    cr_assert_eq(n, 24, "--sweep all stays short: one geometry, one and two tiles a block, the driver's "
                 "configuration and three resident blocks, by default");
    for (int layout = 0; layout < 3; layout++)
        for (int tiles = 1; tiles <= 2; tiles++)
            for (int resident = 0; resident <= 3; resident += 3) {
                size_t found = 0;
                for (size_t i = 0; i < n; i++)
                    found += smem_axis_value(&p[i], "layout") == layout && smem_axis_value(&p[i], "depth_tiles") == 1 &&
                             smem_axis_value(&p[i], "block_tiles") == tiles &&
                             smem_axis_value(&p[i], "resident_blocks") == resident;
                cr_assert_eq(found, 2, "layout %d, %d tiles a block, resident %d: once per size", layout, tiles,
                             resident);
            }
    free(p);
    r.quick = true;
    cr_assert_eq(smem_sweep_expand(&r, &p, &n, NULL), 0);
    cr_assert_eq(n, 12, "--quick: one size");
    free(p);
}

Test(transpose_plan, a_128_float_tile_is_dynamic_shared_memory_opted_in)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev, *t4 = &smem_gpu_find("t4")->dev;

    for (int64_t layout = 0; layout < 3; layout++) {
        cr_assert_eq(plan_on(NULL, 256, layout, 128, 16, 1, 1, &p, why), SMEM_OK, "layout %lld: %s",
                     (long long)layout, why);
        cr_assert_eq(p.static_smem, 0);
        cr_assert_eq(p.dyn_smem, 128 * (128 + (layout == SMEM_TRANSPOSE_PADDED)) * 4);
        cr_assert(p.optin, "64 KiB is over the 48 KiB default");
        cr_assert_eq(p.grid, 64 * 64, "one block per tile of a 8192 x 8192 matrix");
        cr_assert_leq((int64_t)p.dyn_smem, h200->smem_per_block_optin);
    }
    /* the 64-float tile stays a static array */
    cr_assert_eq(plan_on(NULL, 256, 2, 64, 16, 1, 1, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem, 0);
    cr_assert_eq(p.static_smem, 64 * 64 * 4);
    /* a Turing's 64 KiB opt-in holds the 128 x 128 tile but not its padded rows */
    cr_assert_eq(plan_on(t4, 256, 0, 128, 16, 1, 1, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(plan_on(t4, 256, 1, 128, 16, 1, 1, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "a tile of 128 x 128 floats needs 66048 bytes of shared memory; the opt-in ceiling is 65536"),
              "%s", why);
    /* the pipelined kernel has no 128-float tile */
    cr_assert_eq(plan_on(NULL, 256, 2, 128, 16, 1, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "the pipelined kernel (depth_tiles 2) has tiles of 32 and 64 floats, not 128"), "%s", why);
    /* the bank model over the wider tile: the same passes as at 64 floats */
    for (int vec = 2; vec <= 4; vec *= 2)
        for (int layout = 0; layout < 3; layout++) {
            struct smem_transpose_geom g64 = { layout, 64, vec, 1, 1, 1 }, g128 = { layout, 128, vec, 1, 1, 1 };
            cr_assert_float_eq(smem_transpose_wavefronts(&g128, false), smem_transpose_wavefronts(&g64, false), 1e-9,
                               "layout %d vec %d: column read", layout, vec);
            cr_assert_float_eq(smem_transpose_wavefronts(&g128, true), smem_transpose_wavefronts(&g64, true), 1e-9,
                               "layout %d vec %d: store", layout, vec);
        }
    struct smem_transpose_geom swz = { SMEM_TRANSPOSE_SWIZZLED, 128, 4, 1, 1, 1 };
    cr_assert_float_eq(smem_transpose_wavefronts(&swz, false), 1.0, 1e-9);
    cr_assert_eq(plan_on(NULL, 256, 2, 128, 4, 1, 1, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "the 128-float tile takes 8- or 16-byte accesses"), "%s", why);
    cr_assert_eq(plan_on(NULL, 256, 2, 96, 16, 1, 1, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "the tiles are 32, 64 or 128 floats wide"), "%s", why);
}

Test(transpose_plan, a_pipeline_is_one_wave_of_persistent_blocks_with_depth_slots_of_dynamic_memory)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev;

    for (int64_t depth = 2; depth <= SMEM_TRANSPOSE_MAX_DEPTH; depth++) {
        cr_assert_eq(plan_on(NULL, 256, 2, 64, 16, 1, depth, &p, why), SMEM_OK, "depth %lld: %s", (long long)depth, why);
        cr_assert_eq(p.grid, 0, "one full wave, sized by the occupancy API at launch");
        cr_assert_eq(p.block, SMEM_TRANSPOSE_BLOCK);
        cr_assert_eq(p.static_smem, 0);
        cr_assert_eq(p.dyn_smem, (size_t)depth * 64 * 64 * 4, "depth %lld: a 16 KiB slot per tile", (long long)depth);
        cr_assert_eq(p.optin, (int64_t)p.dyn_smem > h200->smem_per_block, "depth %lld", (long long)depth);
        cr_assert_eq(p.carveout_pct, 100);
        cr_assert_eq(p.work, 8192);
    }
    cr_assert_eq(plan_on(NULL, 256, 2, 64, 16, 1, 4, &p, why), SMEM_OK);
    cr_assert(p.optin && p.dyn_smem == 64 * 1024, "four 16 KiB tiles are above the 48 KiB without the opt-in");
    cr_assert_eq(plan_on(NULL, 256, 2, 64, 16, 1, 3, &p, why), SMEM_OK);
    cr_assert_not(p.optin, "three 16 KiB tiles are exactly the 48 KiB");
    cr_assert_eq(plan_on(NULL, 256, 1, 64, 16, 1, 4, &p, why), SMEM_OK, "padded: word-wise cp.async: %s", why);
    cr_assert_eq(p.dyn_smem, 4 * 64 * 65 * 4, "a padded slot is 16-byte aligned already");
    cr_assert_eq(plan_on(NULL, 256, 1, 32, 4, 1, 2, &p, why), SMEM_OK);
    cr_assert_eq(p.dyn_smem, 2 * 32 * 33 * 4);
    cr_assert_eq(smem_transpose_slot_bytes(SMEM_TRANSPOSE_PADDED, 32) % 16, 0);
    cr_assert_eq(plan_on(NULL, 256, 0, 64, 16, 1, 1, &p, why), SMEM_OK);
    cr_assert(p.grid == 128 * 128 && p.dyn_smem == 0 && p.static_smem == 64 * 64 * 4 && !p.optin,
              "depth 1 is the one-tile kernel, planned as before");
}

Test(transpose_plan, depths_without_a_kernel_or_without_cp_async_are_skipped_with_the_reason)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];
    struct smem_device turing = smem_gpu_find("h200")->dev, small = turing;

    cr_assert_eq(plan_on(NULL, 256, 2, 64, 16, 1, 5, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "depth_tiles 5") && strstr(why, "2 to 4") && !strchr(why, '\n'), "%s", why);
    cr_assert_eq(plan_on(NULL, 256, 2, 64, 16, 1, 0, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "depth_tiles 0"), "%s", why);
    turing.cc_major = 7, turing.cc_minor = 5;
    snprintf(turing.name, sizeof(turing.name), "a 7.5");
    cr_assert_eq(plan_on(&turing, 256, 2, 64, 16, 1, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "cp.async") && strstr(why, "7.5"), "%s", why);
    cr_assert_eq(plan_on(&turing, 256, 2, 64, 16, 1, 1, &p, why), SMEM_OK, "depth 1 needs no cp.async: %s", why);
    small.smem_per_block_optin = 48 * 1024;
    cr_assert_eq(plan_on(&small, 256, 2, 64, 16, 1, 4, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "opt-in ceiling"), "%s", why);
    cr_assert_eq(plan_on(&small, 256, 2, 64, 16, 1, 3, &p, why), SMEM_OK, "%s", why);
}

Test(transpose_model, a_pipelined_kernel_reads_the_same_columns_and_stores_nothing_to_model)
{
    /* the pipelined kernel's column read uses the depth-1 kernel's addresses, whatever the depth */
    for (int layout = 0; layout <= 2; layout++)
        for (size_t v = 0; v < 3; v++)
            for (int depth = 2; depth <= SMEM_TRANSPOSE_MAX_DEPTH; depth++) {
                struct smem_transpose_geom one = { layout, 64, vecs[v], 1, 1, 1 }, deep = one;
                deep.depth = depth;
                cr_assert_float_eq(smem_transpose_wavefronts(&deep, false), smem_transpose_wavefronts(&one, false),
                                   1e-12, "layout %d vec %d depth %d", layout, vecs[v], depth);
            }
    struct smem_point pt = point_of(256, SMEM_TRANSPOSE_SWIZZLED, 64, 16, 1, 3, 1, 0);
    const struct smem_bench *b = pt.bench;
    struct smem_metrics m = { 0 };
    b->model_metrics(&pt, &m);
    cr_assert_eq(m.n, 1, "cp.async writes the tiles: no shared-store request to model");
    cr_assert_str_eq(m.m[0].name, "load_wavefronts");
    cr_assert_float_eq(m.m[0].value, 1, 1e-12);
    pt.values[smem_bench_axis(b, "depth_tiles")] = 1;
    m.n = 0;
    b->model_metrics(&pt, &m);
    cr_assert_eq(m.n, 2, "depth 1: its stores and its column read");
    cr_assert_str_eq(m.m[0].name, "store_wavefronts");
    cr_assert_float_eq(m.m[0].value, 4, 1e-12);
}

Test(transpose_plan, a_block_of_two_or_four_tiles_is_a_smaller_grid_with_the_tiles_registers)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    for (int64_t tiles = 1; tiles <= SMEM_TRANSPOSE_MAX_BLOCK_TILES; tiles *= 2) {
        cr_assert_eq(plan_tiles(NULL, 256, 2, 64, 16, 1, 1, tiles, &p, why), SMEM_OK, "%s", why);
        cr_assert_eq(p.grid, 128 * 128 / tiles, "%lld tiles a block", (long long)tiles);
        cr_assert_eq(p.static_smem, 64 * 64 * 4, "one tile of shared memory, whatever the block moves");
        cr_assert_eq(p.dyn_smem, 0);
        cr_assert_eq(p.regs, tiles == 1 ? 32 : 62, "ptxas -v, sm_90: the next tile's four float4s in registers");
    }
    cr_assert_eq(plan_tiles(NULL, 256, 1, 64, 8, 1, 1, 2, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.regs, 80);
    cr_assert_eq(plan_tiles(NULL, 256, 0, 64, 4, 1, 1, 4, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.regs, 128);
    cr_assert_eq(plan_tiles(NULL, 1, 2, 32, 16, 1, 1, 4, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 16 * 16 / 4, "1 MiB: 256 tiles of 32 floats, 64 blocks");
}

Test(transpose_plan, block_tiles_without_a_kernel_are_skipped_with_the_reason)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    cr_assert_eq(plan_tiles(NULL, 256, 2, 64, 16, 1, 1, 3, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "no kernel for block_tiles 3: a block moves 1, 2 or 4 tiles") && !strchr(why, '\n'), "%s",
              why);
    cr_assert_eq(plan_tiles(NULL, 256, 2, 64, 16, 1, 1, 0, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "block_tiles 0"), "%s", why);
    cr_assert_eq(plan_tiles(NULL, 256, 2, 64, 16, 1, 2, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "block_tiles 2 is the one-tile kernel's (depth_tiles 1)"), "%s", why);
    cr_assert_eq(plan_tiles(NULL, 256, 2, 128, 16, 1, 1, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "built for tiles of 32 and 64 floats, not 128"), "%s", why);
}

Test(transpose_model, more_tiles_a_block_reuse_the_same_addresses)
{
    /* the model of a block of 2 or 4 tiles is its one tile's: each tile goes through the same words */
    struct smem_point pt = point_of(256, SMEM_TRANSPOSE_ROW_MAJOR, 64, 8, 1, 1, 1, 0);
    const struct smem_bench *b = pt.bench;
    struct smem_metrics one = { 0 }, two = { 0 };

    b->model_metrics(&pt, &one);
    pt.values[smem_bench_axis(b, "block_tiles")] = 2;
    b->model_metrics(&pt, &two);
    cr_assert_eq(one.n, 2);
    cr_assert_eq(two.n, 2, "the stores and the column read of each tile");
    for (size_t i = 0; i < 2; i++) {
        cr_assert_str_eq(two.m[i].name, one.m[i].name);
        cr_assert_float_eq(two.m[i].value, one.m[i].value, 1e-12, "%s", one.m[i].name);
    }
    cr_assert_float_eq(two.m[1].value, 16, 1e-12, "row-major, float2: a 16-way column read");
}

Test(transpose_plan, resident_blocks_is_the_smallest_hint_whose_configuration_holds_exactly_that_many)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev;
    int64_t config = 0;

    /* H200: 16 KiB tiles + 1 KiB reserved; 15 % is 34.2 KiB, two tiles' worth, so the driver takes the
     * 64 KiB step (2 x 17 KiB is over 32), which holds 3; 14 % stays at 32 KiB, one block */
    cr_assert_eq(plan_full(NULL, 256, 2, 64, 16, 1, 1, 1, 3, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.carveout_pct, 15);
    cr_assert_eq(smem_transpose_resident_carveout(h200, 3, 16384, &config), 15);
    cr_assert_eq(config, 64 * 1024);
    cr_assert_eq(smem_transpose_resident_carveout(h200, 1, 16384, &config), 1);
    cr_assert_eq(config, 32 * 1024, "one block: the 32 KiB step (0, 8 and 16 KiB are smaller than 17)");
    cr_assert_eq(plan_full(NULL, 256, 2, 64, 16, 1, 1, 1, 0, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.carveout_pct, -1, "0: no hint, the driver's configuration");
    /* every model and count: the hint found gives a configuration of exactly n blocks, and none is
     * missed (a count with no hint has no step holding exactly n) */
    for (size_t g = 0; g < smem_n_gpu_models; g++) {
        const struct smem_device *d = &smem_gpu_models[g].dev;
        const struct smem_arch *a = smem_arch_find(d->cc_major, d->cc_minor);
        int64_t f = 16384 + d->reserved_smem_per_block;
        for (int n = 1; n <= 8; n++) {
            int pct = smem_transpose_resident_carveout(d, n, 16384, &config);
            bool exact = false;
            for (int i = 0; a && i < a->n_carveouts; i++)
                exact |= (int64_t)a->carveout_kib[i] * 1024 / f == n;
            if (pct < 0) {
                cr_assert_not(exact, "%s: a step holds exactly %d blocks, the search found no hint",
                              d->name, n);
                continue;
            }
            cr_assert(pct >= 1 && pct <= 100);
            cr_assert_eq(config / f, n, "%s, %d blocks: %lld bytes hold %lld", d->name, n, (long long)config,
                         (long long)(config / f));
        }
    }
    cr_assert_eq(plan_full(NULL, 256, 2, 64, 16, 1, 1, 1, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "holds exactly 2 blocks of 16384 bytes (and the 1024-byte reservation each)") &&
              !strchr(why, '\n'), "%s", why);
    cr_assert_eq(plan_full(&smem_gpu_find("t4")->dev, 256, 2, 64, 16, 1, 1, 1, 3, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "NVIDIA T4") && strstr(why, "cc 7.5"), "%s", why);
    cr_assert_eq(plan_full(NULL, 256, 2, 64, 16, 1, 2, 1, 3, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "resident_blocks 3 is for the one-tile kernel (depth_tiles 1)"), "%s", why);
}

/* A point of tile_copy at mib, edge and KiB a block, and its plan on the H200's model. */
static int plan_tile_copy(int64_t mib, int64_t edge, int64_t kib, struct smem_plan *p, char *why)
{
    const struct smem_bench *b = smem_bench_find("tile_copy");
    struct smem_point pt = { .bench = b };

    cr_assert_not_null(b);
    pt.values[smem_bench_axis(b, "mib")] = mib;
    pt.values[smem_bench_axis(b, "edge_elems")] = edge;
    pt.values[smem_bench_axis(b, "block_kib")] = kib;
    memset(p, 0, sizeof(*p));
    p->carveout_pct = -1;
    why[0] = 0;
    return b->plan(&pt, &smem_gpu_find("h200")->dev, p, why, SMEM_REASON_LEN);
}

Test(tile_copy, every_vector_moves_once_untransposed_to_the_transposed_tiles_place)
{
    const uint32_t n = 256;
    const int edge_list[] = { 32, 64, 128 }, bytes_list[] = { 4096, 8192, 16384 };
    uint8_t *read = malloc((size_t)n * n / 4), *written = malloc((size_t)n * n / 4);

    for (size_t e = 0; e < 3; e++)
        for (size_t k = 0; k < 3; k++) {
            int edge = edge_list[e], bytes = bytes_list[k];
            uint32_t tiles = n / (uint32_t)edge, blocks = n * n * 4 / (uint32_t)bytes, per = (uint32_t)bytes / 16;
            if (bytes > edge * edge * 4)
                continue;   /* no kernel: a block within one tile */
            memset(read, 0, (size_t)n * n / 4);
            memset(written, 0, (size_t)n * n / 4);
            for (uint32_t block = 0; block < blocks; block++)
                for (uint32_t q = 0; q < per; q++) {
                    uint32_t ri, ci, ro, co;
                    smem_tile_copy_place(edge, bytes, tiles, block, q, &ri, &ci, &ro, &co);
                    cr_assert(ri < n && ci < n / 4 && ro < n && co < n / 4);
                    read[ri * (n / 4) + ci]++;
                    written[ro * (n / 4) + co]++;
                    /* element (r, c) of input tile (tx = column, ty = row of tiles) lands at element (r, c) of
                     * tile (ty, tx): the same row in the tile, the tile where the transpose writes it */
                    uint32_t e4 = (uint32_t)edge / 4;
                    cr_assert_eq(ro % (uint32_t)edge, ri % (uint32_t)edge, "edge %d, %d bytes", edge, bytes);
                    cr_assert_eq(co % e4, ci % e4);
                    cr_assert_eq(ro / (uint32_t)edge, ci / e4, "output tile row = input tile column");
                    cr_assert_eq(co / e4, ri / (uint32_t)edge, "output tile column = input tile row");
                    cr_assert_eq(block / ((uint32_t)edge * (uint32_t)edge * 4 / (uint32_t)bytes),
                                 ri / (uint32_t)edge * tiles + ci / e4, "a block stays in its tile, in row order");
                }
            for (size_t i = 0; i < (size_t)n * n / 4; i++)
                cr_assert(read[i] == 1 && written[i] == 1, "edge %d, %d bytes: vector %zu read %d, written %d times",
                          edge, bytes, i, read[i], written[i]);
        }
    free(read);
    free(written);
}

Test(tile_copy, the_plan_is_one_block_per_share_of_a_tile_at_two_sizes_by_default)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];
    struct smem_plan_request r = { .bench = "tile_copy" };
    struct smem_point *pts;
    size_t n;

    cr_assert_eq(plan_tile_copy(256, 64, 16, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.work, 8192);
    cr_assert_eq(p.block, SMEM_TRANSPOSE_BLOCK);
    cr_assert_eq(p.grid, 128 * 128, "16 KiB a block: one block a 64-float tile, as a one-tile transpose");
    cr_assert_eq(p.static_smem + p.dyn_smem, 0, "no shared memory");
    cr_assert_eq(plan_tile_copy(256, 64, 4, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 4 * 128 * 128, "4 KiB a block: a tile over four blocks");
    cr_assert_eq(plan_tile_copy(64, 128, 8, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 8 * 32 * 32);
    cr_assert_eq(smem_sweep_expand(&r, &pts, &n, NULL), 0);
    cr_assert_eq(n, 4, "64 and 256 MiB, 4 and 16 KiB a block, the 64-float tile");
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(smem_axis_value(&pts[i], "edge_elems"), 64);
    free(pts);
}

Test(tile_copy, what_has_no_kernel_is_skipped_with_the_reason)
{
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    cr_assert_eq(plan_tile_copy(256, 48, 4, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "edge_elems 48"), "%s", why);
    cr_assert_eq(plan_tile_copy(256, 32, 8, &p, why), SMEM_ESKIP, "a 32-float tile is 4 KiB");
    cr_assert(strstr(why, "block_kib 8") && strstr(why, "4 KiB"), "%s", why);
    cr_assert_eq(plan_tile_copy(256, 64, 12, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "block_kib 12"), "%s", why);
    cr_assert_eq(plan_tile_copy(2, 64, 4, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "2 MiB"), "%s", why);
    cr_assert_eq(plan_tile_copy(1, 128, 16, &p, why), SMEM_OK, "the smallest matrix, 512 x 512, is 4 x 4 tiles of 128: %s",
                 why);
    cr_assert_eq(p.grid, 16 * 4);
}
