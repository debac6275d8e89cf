/* Transpose through a shared-memory tile whose column reads decide its speed: layout 0 stores the
 * tile row-major and a warp's column read hits one bank over and over; layout 1 pads each row by
 * one word and layout 2 XOR-swizzles it (kernels/transpose_launch.h), both conflict-free, the swizzle
 * without the extra word and with vector stores kept whole. The geometry (tile edge, global access
 * width, block order) is an axis, so the layouts compare at equal geometry and a GPU can be tuned in
 * one run, and so is the pipeline: one, two or four tiles per block loaded through registers (the
 * next tile's loads in flight while the current one is written), or a persistent grid keeping 2-4
 * tiles per block in flight by cp.async. GB/s (bytes read + written) against a
 * device-to-device copy of the same bytes (pct_of_copy); the bank model's wavefronts per shared store
 * (of the depth-1 kernel: the pipelined ones store none) and per column read, from the kernel's
 * addresses. */
#include "transpose_family.h"

static const int64_t layouts[] = { SMEM_TRANSPOSE_ROW_MAJOR, SMEM_TRANSPOSE_PADDED, SMEM_TRANSPOSE_SWIZZLED };
/* the defaults: 64 bytes of loads in flight per thread (the 32-float edge holds 16) and 256-byte runs of
 * each output row per tile; 16-byte accesses, a quarter of the instructions of 4-byte ones */
static const int64_t edges[] = { 64 }, widths[] = { 16 }, bands[] = { 1 };
/* the one-tile kernel: on the H200 the pipelined one (depth 2-4, with --axis) moved 85-88 % of the copy
 * at 256 MiB where it moved 93 % (results/tile/transpose_tune_db10efe.txt: fewer blocks per SM, and
 * eight one-tile blocks already keep a tile's loads in flight while others write) */
static const int64_t depths[] = { 1 };
/* one tile a block and two (the next tile's loads in registers while the first is written), and the
 * driver's configuration beside one holding three blocks: on the H200 at 256 MiB, float4, two tiles
 * in three resident blocks moved 94.1-94.6 % of the copy, one tile in the driver's eight 92.4-92.7 %,
 * two tiles in the four their registers allow 92.9-93.5 %, and one tile in three 83-84 % (too few
 * bytes in flight); results/tile/nvidia-h200_20261201_transpose_repeat*_d59a408.json. The standalone
 * kernels of lab/transpose_experiments.cu (lists 6-8) showed the same order. */
static const int64_t block_tiles[] = { 1, 2 };
static const int64_t residents[] = { 0, 3 };

static const struct smem_axis transpose_axes[] = {
    SMEM_TRANSPOSE_MIB_AXIS,
    { .name = "layout", .unit = "code", .help = "the tile in shared memory: 0 [e][e] (a column is one bank), "
      "1 [e][e + 1] (padded), 2 [e][e] XOR-swizzled", .defaults = layouts, .n_defaults = SMEM_ARRAY_LEN(layouts),
      .min = 0, .max = 2, .defaults_only = true },
    { .name = "edge_elems", .unit = "floats", .help = "the tile's edge: 32, 64 or 128 floats (256 threads move it; "
      "128: 64 KiB of dynamic shared memory, opted in)",
      .defaults = edges, .n_defaults = SMEM_ARRAY_LEN(edges), .min = 32, .max = 128 },
    { .name = "width_bytes", .unit = "bytes", .help = "bytes per global access: 4, 8 or 16 (float, float2, float4)",
      .defaults = widths, .n_defaults = SMEM_ARRAY_LEN(widths), .min = 4, .max = 16 },
    { .name = "band_tiles", .unit = "tiles", .help = "block order: tile rows walked down each column of tiles "
      "before the next column (1: along each tile row)", .defaults = bands, .n_defaults = SMEM_ARRAY_LEN(bands),
      .min = 1, .max = 1024 },
    { .name = "depth_tiles", .unit = "tiles", .help = "tiles in flight per block: 1, a block per tile loading "
      "through registers; 2-4 (cc 8.0), a persistent grid of one wave whose blocks loop over the tiles, cp.async "
      "(16-byte .cg, 4- and 8-byte .ca) filling tile t + depth - 1 into its shared-memory slot while the block "
      "column-reads and stores tile t", .defaults = depths, .n_defaults = SMEM_ARRAY_LEN(depths),
      .min = 1, .max = 8, .before = (const int64_t[]){ 1 } },
    { .name = "block_tiles", .unit = "tiles", .help = "tiles a block moves one after another at depth_tiles 1: 1, "
      "2 or 4 consecutive tiles of the block order, the next one's loads issued into registers as soon as the "
      "current one is in shared memory (edges 32 and 64)", .defaults = block_tiles,
      .n_defaults = SMEM_ARRAY_LEN(block_tiles), .min = 1, .max = 4, .before = (const int64_t[]){ 1 } },
    { .name = "resident_blocks", .unit = "blocks", .help = "blocks per SM the shared-memory configuration holds: 0, "
      "the driver's choice; N, the carveout hint under which the driver configures each SM for exactly N of these "
      "blocks (the rest of the unified memory stays L1)", .defaults = residents,
      .n_defaults = SMEM_ARRAY_LEN(residents), .min = 0, .max = 32, .before = (const int64_t[]){ 0 } },
};

static int transpose_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    return smem_transpose_plan(pt, dev, p, why, len);
}

/* The bank model's passes per shared store and per shared load (the column read) of one warp. A
 * pipelined kernel (depth above 1) issues no shared store: cp.async writes its tiles (LDGSTS, which
 * Nsight Compute does not count as shared stores), so it has no store figure. */
static void model(const struct smem_transpose_geom *g, struct smem_metrics *m)
{
    if (g->depth <= 1)
        smem_metrics_add(m, "store_wavefronts", "passes/request", smem_transpose_wavefronts(g, true), 0,
                         SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "load_wavefronts", "passes/request", smem_transpose_wavefronts(g, false), 0,
                     SMEM_LOWER_IS_BETTER);
}

static void transpose_model(const struct smem_point *pt, struct smem_metrics *m)
{
    struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(pt);

    model(&g, m);
}

static void transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(c);

    smem_transpose_metrics(c, t, m);
    model(&g, m);
}

const struct smem_bench smem_transpose_bench = {
    .name = "transpose",
    .summary = "transpose through a shared tile: [e][e] (column reads conflict) vs padded vs XOR-swizzled, against "
               "a copy",
    .axes = transpose_axes,
    .n_axes = SMEM_ARRAY_LEN(transpose_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 2.5, 0.0),
    .predictable = true,
    .kernel_file = "transpose",
    .plan = transpose_plan,
    .metrics = transpose_metrics,
    .model_metrics = transpose_model,
    .baseline = &smem_vs_copy,
    SMEM_GPU_OPS(.kernel = smem_transpose_kernel, .setup = smem_transpose_setup, .launch = smem_transpose_run,
                 .verify = smem_transpose_verify, SMEM_IO_STATE)
};
