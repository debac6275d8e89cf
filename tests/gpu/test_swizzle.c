/* GPU tests of the swizzle sweep, against the bank model and physics: every ldmatrix/stmatrix layout
 * verifies, no point exceeds 128 bytes per clock per SM, the padded and the fitting swizzled layouts
 * run conflict-free while the unswizzled 128-byte rows run about as much slower as the model says, TMA
 * tiles land in every swizzle mode, and wgmma (sm_90a) multiplies correctly below the published peak.
 * The cc 9.0 parts are skipped before Hopper. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpu_test.h"
#include "runner.h"
#include "smem.h"

TestSuite(swizzle, .init = open_device);

static int64_t param(const struct smem_result *r, const char *axis)
{
    int a = smem_bench_axis(r->point->bench, axis);

    cr_assert_geq(a, 0, "%s has no axis %s", r->point->bench->name, axis);
    return r->point->values[a];
}

static const struct smem_result *tile_at(const struct smem_result *r, size_t n, int64_t layout)
{
    for (size_t i = 0; i < n; i++)
        if (param(&r[i], "layout") == layout)
            return &r[i];
    cr_assert_fail("no point at layout %lld", (long long)layout);
    return NULL;
}

static void tile_layouts_follow_the_model(const char *bench)
{
    static const struct smem_override o[] = { { "matrices", "4" }, { "row_bytes", "128" }, { "trans", "0" } };
    struct smem_plan_request req = { .bench = bench, .overrides = o, .n_overrides = 3 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    cr_assert_eq(n, 5);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s layout %lld: %s", bench, (long long)param(&r[i], "layout"),
                     r[i].reason);
        cr_assert(r[i].verified);
        cr_assert_leq(metric(&r[i], "bytes_per_clk_sm"), 128.0);
    }
    /* padded: conflict-free, and at least half the ceiling (eight warps per block, a full wave) */
    cr_assert_gt(metric(tile_at(r, n, 1), "bytes_per_clk_sm"), 64.0, "%s padded", bench);
    /* the 128-byte swizzle on 128-byte rows is conflict-free: within 10 % of padded */
    cr_assert_lt(metric(tile_at(r, n, 128), "slowdown"), 1.10, "%s 128-byte swizzle", bench);
    /* unswizzled 128-byte rows: 8-way, the model's slowdown within 20 % */
    double model = metric(tile_at(r, n, 0), "predicted_slowdown"), seen = metric(tile_at(r, n, 0), "slowdown");
    cr_assert_float_eq(model, 8.0, 1e-9);
    cr_assert(seen > 0.8 * model && seen < 1.2 * model, "%s row-major: measured %.2fx, model %.2fx", bench, seen,
              model);
    smem_results_free(r, n);
    free(r);
}

Test(swizzle, ldmatrix_layouts_cost_what_the_bank_model_says)
{
    if (dev.cc_major * 10 + dev.cc_minor < 75)
        cr_skip_test("%s is cc %d.%d: ldmatrix needs 7.5", dev.name, dev.cc_major, dev.cc_minor);
    tile_layouts_follow_the_model("swizzle_ldmatrix");
}

Test(swizzle, stmatrix_layouts_cost_what_the_bank_model_says)
{
    if (dev.cc_major < 9)
        cr_skip_test("%s is cc %d.%d: stmatrix needs 9.0", dev.name, dev.cc_major, dev.cc_minor);
    tile_layouts_follow_the_model("swizzle_stmatrix");
}

Test(swizzle, tma_tiles_land_in_every_swizzle_mode)
{
    static const struct smem_override o[] = { { "mib", "64" } };
    struct smem_plan_request req = { .bench = "swizzle_tma", .overrides = o, .n_overrides = 1 };
    size_t n;
    struct smem_result *r;

    if (dev.cc_major < 9)
        cr_skip_test("%s is cc %d.%d: TMA needs 9.0", dev.name, dev.cc_major, dev.cc_minor);
    r = run(&req, &n, false);
    cr_assert_eq(n, 8);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "swizzle %lld consumer %lld: %s",
                     (long long)param(&r[i], "swizzle_bytes"), (long long)param(&r[i], "consumer"), r[i].reason);
        cr_assert(r[i].verified);
        /* more than PCIe, less than any HBM: a real copy from device memory */
        cr_assert(metric(&r[i], "gbytes_per_s") > 100 && metric(&r[i], "gbytes_per_s") < 20000);
    }
    smem_results_free(r, n);
    free(r);
}

Test(swizzle, wgmma_multiplies_correctly_below_the_published_peak)
{
    struct smem_plan_request req = { .bench = "swizzle_wgmma" };
    size_t n;
    struct smem_result *r;

    if (dev.cc_major != 9)
        cr_skip_test("%s is cc %d.%d: wgmma is sm_90a only", dev.name, dev.cc_major, dev.cc_minor);
    r = run(&req, &n, false);
    cr_assert_eq(n, 4);
    for (size_t i = 0; i < n; i++) {
        if (r[i].status == SMEM_POINT_SKIPPED && strstr(r[i].reason, "sm_90a"))
            continue;   /* a build without sm_90a code: said so */
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "swizzle %lld: %s", (long long)param(&r[i], "swizzle_bytes"),
                     r[i].reason);
        cr_assert(r[i].verified);
        double pct = metric(&r[i], "pct_of_peak");
        cr_assert(pct > 5 && pct <= 100, "swizzle %lld: %.1f %% of the dense peak",
                  (long long)param(&r[i], "swizzle_bytes"), pct);
    }
    smem_results_free(r, n);
    free(r);
}
