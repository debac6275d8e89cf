/* The spread between devices, computed once from the per-device runs and read as it is by the JSON
 * (and the table): which device was fastest and slowest at each point, over the devices that
 * measured it; and an NVML reading that cannot be made, recorded as absent. */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "bench.h"
#include "nvml.h"
#include "report_json.h"
#include "runner.h"
#include "smem.h"

static struct smem_point points[2];
static struct smem_result results[3][2];
static struct smem_device_run runs[3];

/* Three devices, two points: device 0 measured both (100, 200 ns), device 1 the first (110 ns) and
 * failed the second, device 2 stopped after the first (90 ns). */
static void three_devices(void)
{
    const double medians[3][2] = { { 100, 200 }, { 110, 0 }, { 90, 0 } };

    memset(results, 0, sizeof(results));
    for (int p = 0; p < 2; p++)
        points[p] = (struct smem_point){ .bench = smem_bench_find("bandwidth"), .sweep = "bandwidth",
                                         .values = { p ? 8 : 4 } };
    for (int d = 0; d < 3; d++) {
        runs[d] = (struct smem_device_run){ .results = results[d], .out = { .done = d == 2 ? 1 : 2 } };
        runs[d].dev.ordinal = d;
        for (int p = 0; p < 2; p++) {
            results[d][p].point = &points[p];
            results[d][p].status = d == 1 && p == 1 ? SMEM_POINT_FAILED : SMEM_POINT_OK;
            results[d][p].time_ns.median = medians[d][p];
        }
    }
}

Test(spread, fastest_and_slowest_over_the_devices_that_measured_the_point, .init = three_devices)
{
    struct smem_spread s[2];

    smem_run_spread(runs, 3, 2, s);
    cr_assert_eq(s[0].devices, 3);
    cr_assert_eq(s[0].fastest, 2);
    cr_assert_eq(s[0].slowest, 1);
    cr_assert_float_eq(s[0].pct, 100.0 * (110.0 / 90.0 - 1), 1e-9);
    cr_assert_eq(s[1].devices, 1, "device 1 failed it and device 2 never reached it");
    cr_assert(isnan(s[1].pct), "no spread with one device");
}

Test(spread, a_tie_goes_to_the_first_device, .init = three_devices)
{
    struct smem_spread s[2];

    results[1][0].time_ns.median = 100;
    results[2][0].time_ns.median = 100;
    smem_run_spread(runs, 3, 2, s);
    cr_assert_eq(s[0].fastest, 0);
    cr_assert_eq(s[0].slowest, 0);
    cr_assert_float_eq(s[0].pct, 0, 1e-12);
}

Test(spread, the_json_records_only_points_two_devices_measured, .init = three_devices)
{
    struct smem_spread s[2];
    cJSON *doc = cJSON_CreateObject(), *arr, *o;

    smem_run_spread(runs, 3, 2, s);
    smem_report_spread(doc, points, s, 2);
    arr = cJSON_GetObjectItem(doc, "spread");
    cr_assert_eq(cJSON_GetArraySize(arr), 1);
    o = cJSON_GetArrayItem(arr, 0);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "params"), "width_bytes")->valueint, 4);
    cr_assert_eq(cJSON_GetObjectItem(o, "fastest_device_index")->valueint, 2);
    cr_assert_eq(cJSON_GetObjectItem(o, "slowest_device_index")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(o, "fastest_median_ns")->valueint, 90);
    cr_assert_float_eq(cJSON_GetObjectItem(o, "spread_pct")->valuedouble, s[0].pct, 1e-12);
    cJSON_Delete(doc);
}

/* NVML: a reading that cannot be made (no driver, a bus id no device has, or a build with
 * -Dnvml=disabled, which has no NVML code at all) is absent, and the device records null. */
Test(nvml, a_reading_that_cannot_be_made_is_recorded_as_absent)
{
    static char *argv[] = { "smembench" };
    struct smem_run_info info = { .argc = 1, .argv = argv, .mode = "measure", .sweep = "bank", .started = "" };
    struct smem_device dev;
    cJSON *doc;

    memset(&dev, 0, sizeof(dev));
    smem_fmt(dev.name, sizeof(dev.name), "a device NVML cannot see");
    smem_fmt(dev.pci_bus_id, sizeof(dev.pci_bus_id), "00000000:ff:1f.7");
    smem_nvml_read(dev.pci_bus_id, &dev.nvml_start);
    cr_assert_not(dev.nvml_start.ok);
    doc = smem_report_new(&info, &dev);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "device"), "nvml")));
    cJSON_Delete(doc);
}
