/* Occupancy on a real GPU: the runtime API, the prediction and the measured residency agree over the
 * carveout; above 48 KiB a point needs the opt-in attribute, and one over the ceiling is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "gpu_test.h"
#include "runner.h"

TestSuite(occupancy, .init = open_device);
TestSuite(optin, .init = open_device);

Test(occupancy, api_predicted_and_measured_agree_over_the_carveout)
{
    struct smem_override o[] = { { "carveout_pct", "0,20,50,100" } };
    struct smem_plan_request req = { .bench = "footprint", .overrides = o, .n_overrides = 1 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_eq(r[i].occ.api, r[i].occ.predicted, "carveout %lld",
                     (long long)smem_axis_value(r[i].point, "carveout_pct"));
        cr_assert_geq(r[i].occ.measured, 1);
        cr_assert_eq(r[i].occ.hint_overridden, r[i].occ.measured != r[i].occ.api);
        cr_assert_eq(r[i].occ.measured_sms, dev.sm_count, "the probe reached every SM");
    }
    cr_assert_gt(r[n - 1].occ.api, r[0].occ.api, "more carveout, more resident blocks");
    cr_assert_lt(r[n - 1].time_ns.median, r[0].time_ns.median, "and a faster footprint kernel");
    smem_results_free(r, n);
    free(r);
}

Test(optin, above_48k_needs_the_attribute_and_only_that_point_fails)
{
    struct smem_override o[] = { { "dyn_smem_bytes", "16K,64K,32K" } };
    struct smem_plan_request req = { .bench = "dynamic", .overrides = o, .n_overrides = 1 };
    size_t n;
    struct smem_result *with = run(&req, &n, false), *without;

    for (size_t i = 0; i < n; i++)
        cr_assert_eq(with[i].status, SMEM_POINT_OK, "%s", with[i].reason);
    cr_assert(with[1].optin, "64 KiB is opted in");
    cr_assert_not(with[0].optin);
    without = run(&req, &n, true);
    cr_assert_eq(without[0].status, SMEM_POINT_OK);
    cr_assert_eq(without[1].status, SMEM_POINT_FAILED, "64 KiB without the attribute cannot launch");
    cr_assert(strstr(without[1].reason, "cudaError"), "the CUDA error is the reason: %s", without[1].reason);
    cr_assert_eq(without[2].status, SMEM_POINT_OK, "the sweep goes on after a failed point");
    smem_results_free(with, n);
    smem_results_free(without, n);
    free(with);
    free(without);
}

Test(optin, a_point_above_the_ceiling_is_skipped_with_a_reason)
{
    char list[64];
    struct smem_override o[] = { { "dyn_smem_bytes", list } };
    struct smem_plan_request req = { .bench = "dynamic", .overrides = o, .n_overrides = 1 };
    size_t n;
    struct smem_result *r;

    snprintf(list, sizeof(list), "%lld", (long long)dev.smem_per_block_optin + 1024);
    r = run(&req, &n, false);
    cr_assert_eq(r[0].status, SMEM_POINT_SKIPPED);
    cr_assert(strstr(r[0].reason, "opt-in ceiling"), "%s", r[0].reason);
    free(r);
}
