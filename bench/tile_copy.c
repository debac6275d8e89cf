/* The transposes' ceiling: their DRAM pattern with no shared memory. Each e-float tile is copied row
 * for row, untransposed, to the place the transposes write it, so the reads and the writes are the
 * same e * 4-byte runs of rows, strided by the row pitch, in the same block order; only the tile's
 * trip through shared memory is missing. A block moves block_kib of one tile: a one-block tile of 64
 * floats covers 16 KiB, a tile split over four blocks 4 KiB each. On the H200 at 256 MiB that alone
 * decides the ceiling: 95.9-96.1 % of the copy at 4 KiB a block, 94.7-94.9 % at 16 KiB, where the best
 * transposes move 94.1-94.8 % (README, the tile sweep; results/tile/transpose_experiments_lists10-13.txt).
 * GB/s (bytes read + written) against a device-to-device copy of the same bytes (pct_of_copy). */
#include "check.h"
#include "transpose_family.h"

/* the tile of the transposes' default geometry, split over four blocks and whole in one */
static const int64_t edges[] = { 64 }, kibs[] = { 4, 16 };

static const struct smem_axis tile_copy_axes[] = {
    SMEM_TRANSPOSE_MIB_AXIS,
    { .name = "edge_elems", .unit = "floats", .help = "the tile's edge: 32, 64 or 128 floats, as the transpose's",
      .defaults = edges, .n_defaults = SMEM_ARRAY_LEN(edges), .min = 32, .max = 128 },
    { .name = "block_kib", .unit = "KiB", .help = "bytes of a tile each block of 256 threads moves: 4, 8 or 16 KiB "
      "(16 bytes a thread a pass), at most the tile", .defaults = kibs, .n_defaults = SMEM_ARRAY_LEN(kibs),
      .min = 1, .max = 64 },
};

static int tile_copy_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    int64_t edge = smem_axis_value(pt, "edge_elems"), kib = smem_axis_value(pt, "block_kib");
    int64_t tile_bytes = edge * edge * 4;
    int n = smem_transpose_matrix(pt, why, len);

    (void)dev;
    if (!n)
        return SMEM_ESKIP;
    if (edge != 32 && edge != 64 && edge != 128) {
        smem_fmt(why, len, "no kernel for edge_elems %lld: the tiles are 32, 64 or 128 floats wide", (long long)edge);
        return SMEM_ESKIP;
    }
    if ((kib != 4 && kib != 8 && kib != 16) || kib * 1024 > tile_bytes) {
        smem_fmt(why, len, "no kernel for block_kib %lld at edge_elems %lld: a block moves 4, 8 or 16 KiB of one "
                 "tile, and a tile of %lld floats is %lld KiB", (long long)kib, (long long)edge, (long long)edge,
                 (long long)(tile_bytes / 1024));
        return SMEM_ESKIP;
    }
    /* every edge divides n: a square of a whole number of MiB with an edge divisible by 32 has one of 512 k */
    p->block = SMEM_TRANSPOSE_BLOCK;
    p->grid = (unsigned)((int64_t)n * n * 4 / (kib * 1024));
    /* ptxas -v, sm_90: 16, 24 and 31-32 at 4, 8 and 16 KiB a block (a thread's 1, 2 or 4 float4s in
     * registers, no spill) */
    p->regs = kib == 16 ? 32 : kib == 8 ? 24 : 16;
    p->variant = (int)edge;
    p->work = n;
    return SMEM_OK;
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(tile_copy,
            smem_tile_copy_fn((int)smem_axis_value(c, "edge_elems"), (int)smem_axis_value(c, "block_kib") * 1024))

static int tile_copy_setup(struct smem_case *c)
{
    size_t n = (size_t)c->plan->work * (size_t)c->plan->work;

    return smem_io_setup(c, n, n, SMEM_FILL_FLOATS);
}

static int tile_copy_run(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_tile_copy_launch((int)smem_axis_value(c, "edge_elems"),
                                          (int)smem_axis_value(c, "block_kib") * 1024, (int)c->plan->work, io->in,
                                          io->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

/* Output rows [begin, end) against the host reference: out[i][j] = in[j / e * e + i % e][i / e * e + j % e]. */
static int verify_rows(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct smem_io *io = c->priv;
    const float *in = io->h_in, *out = io->h_out;
    size_t n = (size_t)c->plan->work, e = (size_t)smem_axis_value(c, "edge_elems");

    for (size_t i = begin; i < end && i < n; i++)
        for (size_t j = 0; j < n; j++) {
            size_t from = (j / e * e + i % e) * n + i / e * e + j % e;
            if (out[i * n + j] != in[from]) {   /* a move, so exact */
                smem_mismatch_f32(why, why_len, "out", n, i * n + j, out[i * n + j], in[from]);
                smem_append(why, why_len, " ", "(in[%zu][%zu])", from / n, from % n);
                return SMEM_EVERIFY;
            }
        }
    return SMEM_OK;
}

static int tile_copy_verify(struct smem_case *c)
{
    int rc;

    if ((rc = smem_io_fetch(c->priv)))
        return rc;
    return smem_parallel_for((size_t)c->plan->work, verify_rows, c, c->reason, sizeof(c->reason));
}

#endif

const struct smem_bench smem_tile_copy_bench = {
    .name = "tile_copy",
    .summary = "the transposes' ceiling: each tile copied untransposed to its transposed place (their DRAM pattern, "
               "no shared memory), by bytes a block",
    .axes = tile_copy_axes,
    .n_axes = SMEM_ARRAY_LEN(tile_copy_axes),
    .sweeps = { "tile" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 2.0, 0.0),
    .predictable = true,
    .kernel_file = "transpose",
    .plan = tile_copy_plan,
    .metrics = smem_transpose_metrics,
    .baseline = &smem_vs_copy,
    SMEM_GPU_OPS(.kernel = tile_copy_kernel, .setup = tile_copy_setup, .launch = tile_copy_run,
                 .verify = tile_copy_verify, SMEM_IO_STATE)
};
