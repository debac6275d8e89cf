/* The transpose family's plan, bank model, host reference and GPU operations (bench/transpose_family.h). */
#include "transpose_family.h"

#include <math.h>

#include "arch.h"
#include "check.h"
#include "load_family.h"

const int64_t smem_transpose_mibs[2] = { 64, 256 };
const int64_t smem_transpose_mibs_quick[1] = { 64 };

int smem_transpose_edge(int64_t mib)
{
    int64_t floats = mib << 18;
    int64_t n = (int64_t)llround(sqrt((double)floats));

    return n * n == floats && n % 32 == 0 ? (int)n : 0;
}

int smem_transpose_matrix(const struct smem_point *pt, char *why, size_t why_len)
{
    int64_t mib = smem_axis_value(pt, "mib");
    int n = smem_transpose_edge(mib);

    if (!n)
        smem_fmt(why, why_len, "%lld MiB is not a square fp32 matrix with an edge divisible by 32 "
                 "(1, 4, 16, 64, 256, 1024 or 4096 MiB are)", (long long)mib);
    return n;
}

struct smem_transpose_geom smem_transpose_geom_of(const struct smem_bench *b, const int64_t *values)
{
    struct smem_transpose_geom g = { SMEM_TRANSPOSE_NAIVE, 32, 1, 1, 1, 1 };

    if (smem_bench_axis(b, "layout") >= 0) {
        g.layout = (int)smem_axis_get(b, values, "layout");
        g.edge = (int)smem_axis_get(b, values, "edge_elems");
        g.vec = (int)smem_axis_get(b, values, "width_bytes") / 4;
        g.band = (int)smem_axis_get(b, values, "band_tiles");
        g.depth = (int)smem_axis_get(b, values, "depth_tiles");
        g.block_tiles = (int)smem_axis_get(b, values, "block_tiles");
    }
    return g;
}

/* The smallest carveout hint (percent) under which dev's driver configures an SM for exactly n blocks of
 * u bytes of shared memory each, by the driver's rule under a hint (smem_arch_config_hinted, on the
 * compute capability's published steps); -1 when none does. The configuration holds floor(config / f)
 * blocks, f = u + the reservation. */
int smem_transpose_resident_carveout(const struct smem_device *dev, int n, int64_t u, int64_t *config)
{
    const struct smem_arch *a = smem_arch_find(dev->cc_major, dev->cc_minor);
    int64_t f = u + dev->reserved_smem_per_block;

    if (n < 1)
        return -1;
    for (int pct = 1; pct <= 100; pct++) {
        long long step = smem_arch_config_hinted(a, dev->smem_per_sm, u, dev->reserved_smem_per_block, pct);
        if (step > 0 && step / f == n) {
            *config = step;
            return pct;
        }
    }
    return -1;
}

int smem_transpose_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                        size_t why_len)
{
    int n = smem_transpose_matrix(pt, why, why_len);
    struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(pt);
    int width = 4 * g.vec;

    if (!n)
        return SMEM_ESKIP;
    if (g.layout != SMEM_TRANSPOSE_NAIVE) {
        if ((g.edge != 32 && g.edge != 64 && g.edge != 128) || (width != 4 && width != 8 && width != 16) ||
            smem_axis_value(pt, "width_bytes") != width) {
            smem_fmt(why, why_len, "no kernel for edge_elems %d and width_bytes %lld: the tiles are 32, 64 or 128 "
                     "floats wide, the accesses 4, 8 or 16 bytes", g.edge,
                     (long long)smem_axis_value(pt, "width_bytes"));
            return SMEM_ESKIP;
        }
        if (g.edge == 128 && g.vec == 1) {
            smem_fmt(why, why_len, "the 128-float tile takes 8- or 16-byte accesses: with floats its 64 loads a "
                     "thread spill before cc 9.0, so that kernel is not built");
            return SMEM_ESKIP;
        }
        if (n % g.edge || (n / g.edge) % g.band) {
            smem_fmt(why, why_len, "a %d x %d matrix is not %d-float tiles in bands of %d tile rows", n, n, g.edge,
                     g.band);
            return SMEM_ESKIP;
        }
        if (g.depth < 1 || g.depth > SMEM_TRANSPOSE_MAX_DEPTH) {
            smem_fmt(why, why_len, "no kernel for depth_tiles %d: 1 (a block per tile) or 2 to %d tiles in flight "
                     "per block", g.depth, SMEM_TRANSPOSE_MAX_DEPTH);
            return SMEM_ESKIP;
        }
        if (g.depth > 1 && g.edge > 64) {
            smem_fmt(why, why_len, "the pipelined kernel (depth_tiles %d) has tiles of 32 and 64 floats, not %d",
                     g.depth, g.edge);
            return SMEM_ESKIP;
        }
        if (g.block_tiles != 1 && g.block_tiles != 2 && g.block_tiles != 4) {
            smem_fmt(why, why_len, "no kernel for block_tiles %d: a block moves 1, 2 or 4 tiles", g.block_tiles);
            return SMEM_ESKIP;
        }
        if (g.block_tiles > 1 && g.depth > 1) {
            smem_fmt(why, why_len, "block_tiles %d is the one-tile kernel's (depth_tiles 1); the pipelined kernel "
                     "(depth_tiles %d) already loops over its tiles", g.block_tiles, g.depth);
            return SMEM_ESKIP;
        }
        if (g.block_tiles > 1 && g.edge > 64) {
            smem_fmt(why, why_len, "block_tiles %d holds a second tile in registers: built for tiles of 32 and 64 "
                     "floats, not %d", g.block_tiles, g.edge);
            return SMEM_ESKIP;
        }
        if (g.depth > 1 && dev->cc_major < 8) {
            smem_fmt(why, why_len, "depth_tiles %d needs cp.async (compute capability 8.0 or later); %s is %d.%d",
                     g.depth, dev->name, dev->cc_major, dev->cc_minor);
            return SMEM_ESKIP;
        }
    }
    p->block = g.layout == SMEM_TRANSPOSE_NAIVE ? 32 * 8 : SMEM_TRANSPOSE_BLOCK;
    if (g.layout != SMEM_TRANSPOSE_NAIVE && g.depth > 1) {
        /* persistent: grid 0 is one full wave, SMs x cudaOccupancyMaxActiveBlocksPerMultiprocessor after
         * the runner has set the carveout and the opt-in (the calculator's count in predict mode); the
         * whole carveout, so the driver's configuration holds the blocks that count assumes */
        p->grid = 0;
        p->dyn_smem = (size_t)g.depth * smem_transpose_slot_bytes(g.layout, g.edge);
        p->carveout_pct = 100;
        if ((int64_t)p->dyn_smem > dev->smem_per_block_optin) {
            smem_fmt(why, why_len, "%d tiles of %d x %d floats need %zu bytes of shared memory; the opt-in ceiling "
                     "is %lld", g.depth, g.edge, g.edge, p->dyn_smem, (long long)dev->smem_per_block_optin);
            return SMEM_ESKIP;
        }
        p->optin = (int64_t)p->dyn_smem > dev->smem_per_block;
        /* ptxas -v, sm_90: 40 at edge 64 with float4, 56-64 with float2, 98-122 with floats (every pass's
         * addresses kept across tiles; no spill), 28-37 at edge 32 */
        p->regs = g.edge == 64 ? (g.vec == 4 ? 40 : g.vec == 2 ? 64 : 122) : 37;
    } else {
        p->grid = (unsigned)(n / g.edge) * (unsigned)(n / g.edge) / (unsigned)smem_transpose_block_tiles(&g);
        /* the 128-float edge's tile is dynamic (over the 48 KiB of a static array), opted in */
        p->dyn_smem = g.layout == SMEM_TRANSPOSE_NAIVE ? 0 : smem_transpose_dynamic_bytes(g.layout, g.edge);
        p->static_smem = g.layout == SMEM_TRANSPOSE_NAIVE || p->dyn_smem
                             ? 0 : smem_transpose_tile_words(g.layout, g.edge) * 4;
        if ((int64_t)p->dyn_smem > dev->smem_per_block_optin) {
            smem_fmt(why, why_len, "a tile of %d x %d floats needs %zu bytes of shared memory; the opt-in ceiling is "
                     "%lld", g.edge, g.edge, p->dyn_smem, (long long)dev->smem_per_block_optin);
            return SMEM_ESKIP;
        }
        p->optin = (int64_t)p->dyn_smem > dev->smem_per_block;
        /* ptxas -v, sm_90: 24 naive, at most 31 at edge 32 (32 with block tiles), 32 at edge 64 but 40 with
         * float2, at edge 128 63-64 with float4, 98-124 with float2; block tiles 2 or 4 at edge 64: 62 with
         * float4, 80 with float2, 128 with floats (the next tile's vectors stay in registers) */
        p->regs = g.layout == SMEM_TRANSPOSE_NAIVE ? 24
                  : g.edge == 128                   ? (g.vec == 2 ? 124 : 64)
                  : g.edge == 64 && g.block_tiles > 1 ? (g.vec == 4 ? 62 : g.vec == 2 ? 80 : 128)
                  : g.edge == 64 && g.vec == 2      ? 40
                                                    : 32;
    }
    if (g.layout != SMEM_TRANSPOSE_NAIVE && smem_axis_value(pt, "resident_blocks")) {
        int64_t config = 0, u = (int64_t)(p->static_smem + p->dyn_smem);
        int resident = (int)smem_axis_value(pt, "resident_blocks");
        if (g.depth > 1) {
            smem_fmt(why, why_len, "resident_blocks %d is for the one-tile kernel (depth_tiles 1): the pipelined one "
                     "(depth_tiles %d) sizes its grid to the blocks that fit", resident, g.depth);
            return SMEM_ESKIP;
        }
        p->carveout_pct = smem_transpose_resident_carveout(dev, resident, u, &config);
        if (p->carveout_pct < 0) {
            smem_fmt(why, why_len, "no shared-memory configuration of %s (cc %d.%d) holds exactly %d blocks of %lld "
                     "bytes (and the %lld-byte reservation each)", dev->name, dev->cc_major, dev->cc_minor, resident,
                     (long long)u, (long long)dev->reserved_smem_per_block);
            return SMEM_ESKIP;
        }
    }
    p->variant = g.layout;
    p->work = n;
    return SMEM_OK;
}

double smem_transpose_wavefronts(const struct smem_transpose_geom *g, bool store)
{
    /* a vector goes to the row-major and swizzled tiles as one store, to the padded one word by word
     * (its rows of edge + 1 words would misalign it); the column read is always word by word */
    int width = store && g->layout != SMEM_TRANSPOSE_PADDED ? 4 * g->vec : 4, total = 0, requests = 0;

    for (int j = 0; j < smem_transpose_passes(g->edge, g->vec); j++)
        for (int warp = 0; warp < SMEM_TRANSPOSE_WARPS; warp++)
            for (int k = 0; k < g->vec; k += width / 4, requests++) {
                uint32_t addrs[32];
                for (int lane = 0; lane < 32; lane++) {
                    uint32_t a, b;
                    smem_transpose_place(g->edge, g->vec, j, warp, lane, &a, &b);
                    addrs[lane] = 4 * (store ? smem_transpose_at(g->layout, g->edge, g->vec, a, b + (uint32_t)k)
                                             : smem_transpose_at(g->layout, g->edge, g->vec, b + (uint32_t)k, a));
                }
                total += smem_bank_request_wavefronts(addrs, 32, width);
            }
    return (double)total / requests;
}

void smem_transpose_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double bytes = 2.0 * (double)c->plan->work * (double)c->plan->work * sizeof(float);

    smem_metrics_add(m, "gbytes_per_s", "GB/s", bytes / t->seconds / 1e9, 0, SMEM_HIGHER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

const void *smem_transpose_kernel(const struct smem_case *c)
{
    struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(c);

    return smem_transpose_fn(&g);
}

int smem_transpose_setup(struct smem_case *c)
{
    size_t n = (size_t)c->plan->work * (size_t)c->plan->work;
    struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(c);
    struct cudaFuncAttributes a;
    int rc = SMEM_OK;

    if (g.layout != SMEM_TRANSPOSE_NAIVE && g.depth > 1) {
        /* the device has cp.async (the plan checked), this binary's code for it may not: PTX of an
         * older architecture, JIT-compiled, has the kernel without its body */
        SMEM_CUDA_CHECK(cudaFuncGetAttributes(&a, smem_transpose_fn(&g)));
        if (a.ptxVersion < 80) {
            smem_fmt(c->reason, sizeof(c->reason), "depth_tiles %d needs compute capability 8.0 code (cp.async); "
                     "this binary's kernel was compiled from compute_%d PTX: build with -Dgpu_arch=all or for this "
                     "device", g.depth, a.ptxVersion);
            return SMEM_ESKIP;
        }
    }
    return smem_io_setup(c, n, n, SMEM_FILL_FLOATS);
fail:
    return rc;
}

int smem_transpose_run(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(c);
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_transpose_launch(&g, (int)c->plan->work, c->grid, io->in, io->out, c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

#define VERIFY_BLOCK 64

static int verify_rows(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    const struct smem_case *c = arg;
    const struct smem_io *io = c->priv;
    const float *in = io->h_in, *out = io->h_out;
    size_t n = (size_t)c->plan->work;

    /* in blocks of VERIFY_BLOCK x VERIFY_BLOCK: row by row, one of the two matrices would be read a
     * cache line per element (that was 0.6 s of each 256 MiB point on the H200's host) */
    for (size_t i0 = begin * VERIFY_BLOCK; i0 < n && i0 < end * VERIFY_BLOCK; i0 += VERIFY_BLOCK)
        for (size_t j0 = 0; j0 < n; j0 += VERIFY_BLOCK)
            for (size_t i = i0; i < n && i < i0 + VERIFY_BLOCK; i++)
                for (size_t j = j0; j < n && j < j0 + VERIFY_BLOCK; j++)
                    if (out[j * n + i] != in[i * n + j])   /* a move, so exact */
                        return smem_mismatch_f32(why, why_len, "out", n, j * n + i, out[j * n + i], in[i * n + j]);
    return SMEM_OK;
}

int smem_transpose_verify(struct smem_case *c)
{
    size_t n = (size_t)c->plan->work;
    int rc;

    if ((rc = smem_io_fetch(c->priv)))
        return rc;
    /* bands of VERIFY_BLOCK rows on every host core */
    return smem_parallel_for((n + VERIFY_BLOCK - 1) / VERIFY_BLOCK, verify_rows, c, c->reason, sizeof(c->reason));
}

#endif
