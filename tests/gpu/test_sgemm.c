/* GPU tests of the pipelined SGEMM (kernels/sgemm.cu): every shape, depth and stage count computes
 * C = A B (the fp64 sampled reference of bench/gemm.c), the cp.async and TMA pipelines agree in what
 * they compute and come within a band of each other, the kernel is far above the register-blocked
 * teaching kernel, the opt-in is taken exactly when the stages need it, and occupancy is what the
 * calculator predicted. Skipped before cc 8.0 (cp.async); the TMA points before cc 9.0. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpu_test.h"
#include "runner.h"
#include "sgemm_launch.h"
#include "smem.h"

TestSuite(sgemm, .init = open_device);

static const struct smem_result *at(const struct smem_result *r, size_t n, const char *bench, int64_t bk,
                                    int64_t stages)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].point->bench->name, bench) && smem_axis_value(r[i].point, "bk") == bk &&
            smem_axis_value(r[i].point, "stages") == stages)
            return &r[i];
    cr_assert_fail("no %s point at bk = %lld, stages = %lld", bench, (long long)bk, (long long)stages);
    return NULL;
}

/* Whether point i was skipped, asserting that it was for the one reason allowed: its slabs need more
 * shared memory than the device's opt-in. */
static bool skipped_over_the_opt_in(const struct smem_result *r, const char *what)
{
    const struct smem_point *p = r->point;

    if (r->status != SMEM_POINT_SKIPPED)
        return false;
    cr_assert(strstr(r->reason, "opt-in"), "%s: %s", what, r->reason);
    cr_assert_gt(smem_sgemm_smem_bytes((int)smem_axis_value(p, "bm"), (int)smem_axis_value(p, "bn"),
                                       (int)smem_axis_value(p, "bk"), (int)smem_axis_value(p, "stages")),
                 (size_t)dev.smem_per_block_optin, "%s", what);
    return true;
}

Test(sgemm, every_depth_and_stage_count_verifies_and_opts_in_when_it_must)
{
    struct smem_override o[] = { { "n", "1024" }, { "bm", "128" }, { "bk", "8,16,32" }, { "stages", "2,3,5,8" },
                                 { "a_width_bytes", "8" } };
    struct smem_plan_request req = { .bench = "sgemm_cp_async", .overrides = o, .n_overrides = 5 };
    size_t n;
    struct smem_result *r;

    if (dev.cc_major < 8)
        cr_skip_test("%s is cc %d.%d: cp.async needs 8.0", dev.name, dev.cc_major, dev.cc_minor);
    r = run(&req, &n, false);
    cr_assert_eq(n, 12);
    for (size_t i = 0; i < n; i++) {
        char what[128];
        smem_point_describe(r[i].point, what, sizeof(what));
        if (skipped_over_the_opt_in(&r[i], what))
            continue;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s: %s", what, r[i].reason);
        cr_assert(r[i].verified, "%s", what);
        cr_assert_eq(r[i].optin, r[i].dyn_smem > (size_t)dev.smem_per_block, "%s: %zu bytes, opt-in %d", what,
                     r[i].dyn_smem, r[i].optin);
        cr_assert_eq(r[i].occ.api, r[i].occ.predicted, "%s: the API says %d blocks per SM, the calculator %d", what,
                     r[i].occ.api, r[i].occ.predicted);
        cr_assert_leq(metric(&r[i], "pct_of_fp32_peak"), 100.0, "%s", what);
    }
    smem_results_free(r, n);
    free(r);
}

Test(sgemm, the_tma_and_cp_async_pipelines_agree_and_beat_the_teaching_kernel)
{
    const char *sw[] = { "tile" };
    struct smem_override o[] = { { "n", "2048" }, { "bm", "128" }, { "bk", "16" }, { "stages", "4" },
                                 { "mib", "64" }, { "a_width_bytes", "8" } };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 6 };
    size_t n;
    struct smem_result *r;
    const struct smem_result *cp, *tma = NULL, *rb = NULL;

    if (dev.cc_major < 8)
        cr_skip_test("%s is cc %d.%d: cp.async needs 8.0", dev.name, dev.cc_major, dev.cc_minor);
    r = run(&req, &n, false);
    cp = at(r, n, "sgemm_cp_async", 16, 4);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].point->bench->name, "matmul_rb"))
            rb = &r[i];   /* at bk = 16 too: the override is every benchmark's with that axis */
    cr_assert(rb, "no matmul_rb point");
    cr_assert_eq(cp->status, SMEM_POINT_OK, "%s", cp->reason);
    cr_assert(cp->verified);
    cr_assert_eq(rb->status, SMEM_POINT_OK, "%s", rb->reason);
    /* the register-blocked kernel reached 61 % of cuBLAS on the H200; the pipelined one must be well past it */
    cr_assert_gt(metric(cp, "gflops"), 1.2 * metric(rb, "gflops"), "sgemm_cp_async %.0f GFLOP/s, matmul_rb %.0f",
                 metric(cp, "gflops"), metric(rb, "gflops"));
    if (dev.cc_major >= 9) {
        tma = at(r, n, "sgemm_tma", 16, 4);
        cr_assert_eq(tma->status, SMEM_POINT_OK, "%s", tma->reason);
        cr_assert(tma->verified);
        /* one compute loop over the same layout: the copies differ, the FMAs do not */
        cr_assert_float_eq(metric(tma, "gflops") / metric(cp, "gflops"), 1.0, 0.15,
                           "TMA %.0f GFLOP/s, cp.async %.0f", metric(tma, "gflops"), metric(cp, "gflops"));
    }
    smem_results_free(r, n);
    free(r);
}

Test(sgemm, float4_a_loads_and_64_deep_slabs_verify_on_every_tile_shape)
{
    struct smem_override o[] = { { "n", "1024" }, { "bm", "128,256" }, { "bn", "128,256" }, { "bk", "8,32,64" },
                                 { "stages", "2" }, { "a_width_bytes", "8,16" } };
    struct smem_plan_request req = { .bench = "sgemm_tma", .overrides = o, .n_overrides = 6 };
    size_t n, ok = 0;
    struct smem_result *r;

    if (dev.cc_major < 9)
        cr_skip_test("%s is cc %d.%d: TMA tensor copies need 9.0", dev.name, dev.cc_major, dev.cc_minor);
    r = run(&req, &n, false);
    cr_assert_eq(n, 24);
    for (size_t i = 0; i < n; i++) {
        char what[128];
        int64_t bm = smem_axis_value(r[i].point, "bm"), bn = smem_axis_value(r[i].point, "bn");
        smem_point_describe(r[i].point, what, sizeof(what));
        if (bm == 256 && bn == 256) {
            cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "%s", what);   /* not built */
            continue;
        }
        if (skipped_over_the_opt_in(&r[i], what))
            continue;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s: %s", what, r[i].reason);
        cr_assert(r[i].verified, "%s", what);
        cr_assert_leq(metric(&r[i], "pct_of_fp32_peak"), 100.0, "%s", what);
        ok++;
    }
    /* 3 shapes x 3 depths x 2 widths fit the H200's 227 KiB (bk 64 of 256 x 128: 97 KiB a stage) */
    if (dev.smem_per_block_optin >= 227 * 1024)
        cr_assert_eq(ok, 18);
    smem_results_free(r, n);
    free(r);
}
