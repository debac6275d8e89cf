/* Shared memory against physics on a real GPU: bandwidth under and near 128 bytes per clock per SM,
 * bank conflicts as the bank model predicts, a broadcast in one pass, latency of tens of cycles. */
#include <stdlib.h>

#include <criterion/criterion.h>

#include "gpu_test.h"
#include "runner.h"

TestSuite(physics, .init = open_device);

Test(physics, bandwidth_stays_under_128_bytes_per_clock_and_near_it)
{
    struct smem_plan_request req = { .bench = "bandwidth" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        double bpc = metric(&r[i], "bytes_per_clk_sm");
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert(r[i].verified);
        cr_assert_leq(bpc, 128.0, "width %lld: above the physical ceiling",
                      (long long)smem_axis_value(r[i].point, "width_bytes"));
        if (smem_axis_value(r[i].point, "width_bytes") == 16)
            cr_assert_geq(bpc, 0.9 * 128, "16-byte loads should come within 10%% of the ceiling: %.1f", bpc);
    }
    smem_results_free(r, n);
    free(r);
}

Test(physics, bank_conflicts_follow_the_bank_model)
{
    const char *sw[] = { "bank" };
    struct smem_override o[] = { { "width_bytes", "4" }, { "stride_elems", "1,2,3,4,8,16,32,33" } };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 2 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        double want, got;
        if (strcmp(r[i].point->bench->name, "bank"))   /* the sweep's other benchmarks have tests of their own */
            continue;
        want = metric(&r[i], "predicted_slowdown");
        got = metric(&r[i], "slowdown");
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_leq(metric(&r[i], "bytes_per_clk_sm"), 128.0);
        cr_assert_float_eq(got, want, 0.15 * want, "stride %lld: slowdown %.2f, the model %.0f",
                           (long long)smem_axis_value(r[i].point, "stride_elems"), got, want);
    }
    smem_results_free(r, n);
    free(r);
}

Test(physics, latency_is_tens_of_cycles)
{
    struct smem_plan_request req = { .bench = "latency" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    cr_assert_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        double c = metric(&r[i], "latency_cycles");
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert(c > 10 && c < 60, "%.1f cycles", c);
    }
    cr_assert_gt(metric(&r[1], "latency_cycles"), metric(&r[0], "latency_cycles"),
                 "the index chase adds address arithmetic to the dependent path");
    smem_results_free(r, n);
    free(r);
}

Test(physics, a_broadcast_takes_one_pass_like_the_stride_1_load)
{
    /* all 32 lanes reading one word is one bank, one distinct word: one pass, so the bank model
     * says it runs exactly as fast as the conflict-free stride-1 load (slowdown 1) */
    const char *sw[] = { "bank" };
    struct smem_override o[] = { { "width_bytes", "4" }, { "stride_elems", "1" } };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 2 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);
    const struct smem_result *b = find(r, n, "broadcast", "width_bytes", 4);

    cr_assert_eq(b->status, SMEM_POINT_OK, "%s", b->reason);
    cr_assert(b->verified);
    cr_assert_eq(metric(b, "wavefronts"), 1);
    cr_assert_leq(metric(b, "bytes_per_clk_sm"), 128.0, "above the physical ceiling");
    cr_assert_float_eq(metric(b, "slowdown"), 1.0, 0.15, "slowdown %.3f against stride 1, the model 1",
                       metric(b, "slowdown"));
    smem_results_free(r, n);
    free(r);
}
