/* The pipelined SGEMM's layouts and plan, with no GPU: the A slab's swizzle is a permutation of
 * each stage's 16-byte chunks and puts a warp's eight row groups in eight bank groups; the lane
 * mapping makes neighbouring lanes share addresses so shared-memory returns pack; the plan spans
 * 16 KiB to the opt-in, skips what does not fit or is not built with the reason, and predicts for
 * every GPU model what fits under its opt-in. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "bench.h"
#include "device.h"
#include "gpus.h"
#include "sgemm_launch.h"
#include "sgemm_family.h"
#include "sweep.h"

static const int bks[] = { 8, 16, 32, 64 };

Test(sgemm_layout, the_a_swizzle_permutes_the_chunks_of_every_depth)
{
    for (int d = 0; d < 4; d++) {
        int bk = bks[d];
        uint32_t chunks = 256u * (uint32_t)bk / 4, row = 4u * (uint32_t)(bk < 32 ? bk : 32);   /* a 256-row slab */
        static uint8_t seen[256 * 64 / 4];

        memset(seen, 0, sizeof(seen));
        for (uint32_t m = 0; m < 256; m++)
            for (uint32_t b = 0; b < 4u * (uint32_t)bk; b += 16) {
                uint32_t off = smem_sgemm_a_offset(bk, 256, m, b);
                cr_assert_eq(off % 16, 0);
                cr_assert_lt(off / 16, chunks, "bk %d: row %u byte %u lands past the slab", bk, m, b);
                cr_assert_eq(seen[off / 16]++, 0, "bk %d: chunk %u written twice", bk, off / 16);
                /* a row stays in its own row of its sub-slab: the TMA box's rows (bk 64: two boxes of
                 * 32 floats, k 0-31 in the first 256 rows, k 32-63 in the next) */
                cr_assert_eq(off / row, m + b / row * 256, "bk %d: row %u byte %u leaves its row", bk, m, b);
            }
    }
}

Test(sgemm_layout, a_warps_a_loads_fall_in_eight_bank_groups)
{
    for (int d = 0; d < 4; d++)
        for (int wm = 0; wm < 4; wm++)
            for (uint32_t b = 0; b < 4u * (uint32_t)bks[d]; b += 8) {
                int groups = 0;
                for (int tm = 0; tm < 8; tm++) {
                    uint32_t m = 64u * (uint32_t)wm + (uint32_t)tm + 8u * 3u;   /* row i = 3 of each */
                    groups |= 1 << (smem_sgemm_a_offset(bks[d], 128, m, b & ~15u) / 16 % 8);
                }
                cr_assert_eq(groups, 0xff, "bk %d, warp row %d, byte %u: bank groups %#x", bks[d], wm, b, groups);
            }
    /* and without the swizzle they would not: rows 4 bk bytes apart */
    cr_assert_eq((0u * 4 * 32) / 16 % 8, (1u * 4 * 32) / 16 % 8);
}

Test(sgemm_layout, neighbouring_lanes_share_their_addresses)
{
    int count[8][4] = { { 0 } };

    for (int lane = 0; lane < 32; lane++) {
        int tm = smem_sgemm_lane_tm(lane), tn = smem_sgemm_lane_tn(lane);
        cr_assert(tm >= 0 && tm < 8 && tn >= 0 && tn < 4);
        count[tm][tn]++;
        /* B (by tn): lanes n and n ^ 1; A (by tm): lanes n and n ^ 2 */
        cr_assert_eq(smem_sgemm_lane_tn(lane ^ 1), tn, "lane %d", lane);
        cr_assert_eq(smem_sgemm_lane_tm(lane ^ 2), tm, "lane %d", lane);
    }
    for (int tm = 0; tm < 8; tm++)
        for (int tn = 0; tn < 4; tn++)
            cr_assert_eq(count[tm][tn], 1, "thread (%d, %d) of the 8 x 4 warp tile", tm, tn);
}

static const struct smem_bench *bench(const char *name)
{
    const struct smem_bench *b = smem_bench_find(name);

    cr_assert(b, "no benchmark %s", name);
    return b;
}

static int plan_w(const struct smem_bench *b, const struct smem_device *dev, int64_t n, int64_t bm, int64_t bn,
                  int64_t bk, int64_t stages, int64_t a_width, struct smem_plan *p, char *why)
{
    struct smem_point pt = { .bench = b, .values = { n, bm, bn, bk, stages, a_width } };

    memset(p, 0, sizeof(*p));
    return b->plan(&pt, dev, p, why, SMEM_REASON_LEN);
}

static int plan(const struct smem_bench *b, const struct smem_device *dev, int64_t n, int64_t bm, int64_t bn,
                int64_t bk, int64_t stages, struct smem_plan *p, char *why)
{
    return plan_w(b, dev, n, bm, bn, bk, stages, 8, p, why);
}

Test(sgemm_plan, shared_memory_runs_from_16_kib_to_the_opt_in)
{
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev;
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    cr_assert_eq(plan(bench("sgemm_cp_async"), h200, 4096, 128, 128, 8, 2, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem, 2 * 8 * 256 * 4 + SMEM_SGEMM_ALIGN + 16);
    cr_assert(!p.optin);
    cr_assert_eq(p.block, 256);
    cr_assert_eq(p.grid, 32 * 32);
    cr_assert_eq(plan(bench("sgemm_tma"), h200, 4096, 128, 128, 32, 7, &p, why), SMEM_OK, "%s", why);
    cr_assert(p.optin);
    cr_assert_leq((int64_t)p.dyn_smem, h200->smem_per_block_optin);
    cr_assert_gt(p.dyn_smem, 224 * 1024, "7 stages of 32 KiB");
    cr_assert_eq(plan(bench("sgemm_tma"), h200, 4096, 128, 128, 32, 8, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "opt-in ceiling is 232448"), "%s", why);
    cr_assert_eq(plan(bench("sgemm_tma"), h200, 4096, 256, 256, 8, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "256 x 256 block tile is not built"), "%s", why);
    cr_assert_eq(plan(bench("sgemm_cp_async"), h200, 4160, 128, 128, 8, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "not a multiple"), "%s", why);
    /* bk 64: two stages of 128 x 128 take 128 KiB (one block per SM), of 256 x 128 192 KiB */
    cr_assert_eq(plan(bench("sgemm_tma"), h200, 4096, 256, 128, 64, 2, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem, 2 * 64 * 384 * 4 + SMEM_SGEMM_ALIGN + 16);
    cr_assert_eq(p.block, 512);
    cr_assert_eq(plan(bench("sgemm_tma"), h200, 4096, 128, 128, 48, 2, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "no kernel for bk = 48: the slabs are 8, 16, 32 or 64 deep"), "%s", why);
}

Test(sgemm_plan, float4_loads_of_a_are_built_where_they_do_not_spill)
{
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev, *a100 = &smem_gpu_find("a100")->dev;
    struct smem_plan p;
    char why[SMEM_REASON_LEN];

    cr_assert_eq(plan_w(bench("sgemm_tma"), h200, 4096, 128, 128, 32, 2, 16, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(plan_w(bench("sgemm_cp_async"), h200, 4096, 128, 128, 32, 2, 16, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "float4 loads of A spill the cp.async kernel's 128 registers on cc 9.0"), "%s", why);
    /* where the cap is 255 registers (one block), they are built */
    cr_assert_eq(plan_w(bench("sgemm_cp_async"), a100, 4096, 128, 128, 32, 2, 16, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.regs, 255);
    for (int cc = 5; cc <= 12; cc++)
        cr_assert_eq(smem_sgemm_a_width_built(cc, SMEM_SGEMM_CP_ASYNC, 16), smem_sgemm_regs(cc, 128, 128) == 255,
                     "cc %d", cc);
    cr_assert(!smem_sgemm_a_width_built(9, SMEM_SGEMM_TMA, 4));
}

Test(sgemm_plan, every_model_plans_what_fits_under_its_opt_in)
{
    for (size_t i = 0; i < smem_n_gpu_models; i++) {
        const struct smem_device *dev = &smem_gpu_models[i].dev;
        for (int copy = 0; copy < 2; copy++)
            for (int64_t stages = 2; stages <= SMEM_SGEMM_MAX_STAGES; stages++)
                for (int d = 0; d < 4; d++)
                    for (int64_t width = 8; width <= 16; width += 8) {
                        struct smem_plan p;
                        char why[SMEM_REASON_LEN];
                        size_t need = smem_sgemm_smem_bytes(128, 128, bks[d], (int)stages);
                        bool built = width == 8 || copy == SMEM_SGEMM_TMA || dev->cc_major < 9 || dev->cc_major >= 12;
                        int rc = plan_w(bench(copy == SMEM_SGEMM_TMA ? "sgemm_tma" : "sgemm_cp_async"), dev, 2048,
                                        128, 128, bks[d], stages, width, &p, why);
                        cr_assert_eq(rc, built && (int64_t)need <= dev->smem_per_block_optin ? SMEM_OK : SMEM_ESKIP,
                                     "%s, copy %d, a_width %lld: %zu bytes, opt-in %lld: %s", dev->name, copy,
                                     (long long)width, need, (long long)dev->smem_per_block_optin, why);
                        if (rc == SMEM_OK)
                            cr_assert_eq(p.regs, smem_sgemm_regs(dev->cc_major, 128, 128));
                        else if (!built)
                            cr_assert(strstr(why, "float4 loads of A spill"), "%s: %s", dev->name, why);
                    }
    }
}

Test(sgemm_plan, every_quick_and_default_sgemm_n_has_its_cublas_point)
{
    /* the best line and the figure give % of cuBLAS at the same n: the tile sweep plans cuBLAS at
     * every n it plans the pipelined SGEMM at, --quick too */
    for (int quick = 0; quick < 2; quick++) {
        const char *sw[] = { "tile" };
        struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .quick = quick };
        struct smem_point *p;
        size_t n, sgemm = 0;

        cr_assert_eq(smem_sweep_expand(&r, &p, &n, NULL), 0);
        for (size_t i = 0; i < n; i++) {
            bool found = false;
            if (strncmp(p[i].bench->name, "sgemm_", 6))
                continue;
            sgemm++;
            for (size_t k = 0; k < n; k++)
                found = found || (!strcmp(p[k].bench->name, "cublas") &&
                                  smem_axis_value(&p[k], "n") == smem_axis_value(&p[i], "n"));
            cr_assert(found, "quick %d: no cuBLAS point at n = %lld", quick, (long long)smem_axis_value(&p[i], "n"));
        }
        cr_assert_gt(sgemm, 0);
        free(p);
    }
}
