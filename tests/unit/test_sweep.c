/* Axis lists, ranges and the expansion of named sweeps into points; which sweeps --list offers with
 * --predict. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "gpus.h"
#include "model.h"
#include "smem.h"
#include "sweep.h"
#include "unit_test.h"

static const struct smem_axis pct = { .name = "carveout_pct", .unit = "%", .min = 0, .max = 100 };
static const struct smem_axis bytes = { .name = "dyn_smem_bytes", .unit = "bytes", .min = 0, .max = 228 * 1024 };

static size_t parse(const char *text, const struct smem_axis *ax, int64_t *v)
{
    size_t n = 0;

    cr_assert_eq(smem_sweep_parse_list(text, ax, v, 4096, &n), 0, "\"%s\" should parse", text);
    return n;
}

static void rejects(const char *text, const struct smem_axis *ax)
{
    int64_t v[4096];
    size_t n;

    cr_assert_lt(smem_sweep_parse_list(text, ax, v, 4096, &n), 0, "\"%s\" should be rejected", text);
}

Test(axis_list, plain_values)
{
    int64_t v[4096];

    cr_assert_eq(parse("1,2,4", &pct, v), 3);
    cr_assert_eq(v[0], 1);
    cr_assert_eq(v[2], 4);
}

Test(axis_list, inclusive_range_with_step)
{
    int64_t v[4096];

    cr_assert_eq(parse("0:100:10", &pct, v), 11);
    cr_assert_eq(v[10], 100);
    cr_assert_eq(parse("3:7", &pct, v), 5);
    cr_assert_eq(parse("0:100:30", &pct, v), 4); /* 0 30 60 90: 100 is not on the step */
    cr_assert_eq(v[3], 90);
}

Test(axis_list, geometric_range)
{
    int64_t v[4096];

    cr_assert_eq(parse("1:1024:*2", &bytes, v), 11);
    cr_assert_eq(v[10], 1024);
    cr_assert_eq(parse("1K:64K:*4", &bytes, v), 4);
    cr_assert_eq(v[3], 64 * 1024);
}

Test(axis_list, kib_suffix_and_mixed_items)
{
    int64_t v[4096];

    cr_assert_eq(parse("48K,227k,0", &bytes, v), 3);
    cr_assert_eq(v[0], 49152);
    cr_assert_eq(v[1], 227 * 1024);
    cr_assert_eq(parse("1,4:6,90", &pct, v), 5);
}

Test(axis_list, rejects_malformed, .init = cr_redirect_stderr)
{
    rejects("", &pct);
    rejects(",", &pct);
    rejects("1,,2", &pct);
    rejects("1,", &pct);
    rejects("abc", &pct);
    rejects("1.5", &pct);
    rejects("10:1", &pct);
    rejects("0:10:0", &pct);
    rejects("0:10:-1", &pct);
    rejects("1:8:*1", &pct);
    rejects("0:8:*2", &pct);
    rejects("1:2:3:4", &pct);
    rejects(":5", &pct);
    rejects("5:", &pct);
    rejects("K", &bytes);
}

Test(axis_list, rejects_out_of_range, .init = cr_redirect_stderr)
{
    rejects("101", &pct);
    rejects("-1", &pct);
    rejects("0:200:50", &pct);
    rejects("99999999999999999999", &pct);
    rejects("9223372036854775807K", &bytes);
    rejects("229K", &bytes);
}

Test(axis_list, message_names_the_axis_and_the_range, .init = cr_redirect_stderr)
{
    char buf[512] = "";
    FILE *f;

    rejects("101", &pct);
    fflush(stderr);
    f = cr_get_redirected_stderr();
    cr_assert(fgets(buf, sizeof(buf), f));
    cr_assert(strstr(buf, "--axis carveout_pct"), "%s", buf);
    cr_assert(strstr(buf, "0..100"), "%s", buf);
}

static size_t expand(struct smem_plan_request *r, struct smem_point **p)
{
    size_t n = 0;

    cr_assert_eq(smem_sweep_expand(r, p, &n, NULL), 0);
    return n;
}

Test(sweep, carveout_runs_two_kernels_over_eleven_carveouts)
{
    const char *sw[] = { "carveout" };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1 };
    struct smem_point *p;

    cr_assert_eq(expand(&r, &p), 22);
    cr_assert_str_eq(p[0].bench->name, "footprint");
    cr_assert_str_eq(p[21].bench->name, "gather");
    cr_assert_eq(smem_axis_value(&p[21], "carveout_pct"), 100);
    free(p);
}

Test(sweep, axis_override_applies_to_every_bench_that_has_it)
{
    const char *sw[] = { "carveout" };
    struct smem_override o[] = { { "carveout_pct", "0,100" } };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 1 };
    struct smem_point *p;

    cr_assert_eq(expand(&r, &p), 4);
    free(p);
}

Test(sweep, quick_bounds_the_plan)
{
    struct smem_plan_request full = { .bench = "bank" }, quick = full;
    struct smem_point *p;
    size_t nf, nq;

    quick.quick = true;
    nf = expand(&full, &p);
    free(p);
    nq = expand(&quick, &p);
    free(p);
    cr_assert_eq(nf, 99);
    cr_assert_lt(nq, nf);
}

Test(sweep, several_sweeps_do_not_repeat_benchmarks)
{
    const char *sw[] = { "bandwidth", "bandwidth" };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 2 };
    struct smem_point *p;

    cr_assert_eq(expand(&r, &p), 3);
    free(p);
}

Test(sweep, rejects_unknown_names, .init = cr_redirect_stderr)
{
    const char *bad[] = { "carvout" };
    struct smem_override o[] = { { "stride", "1" } };
    const char *sw[] = { "carveout" };
    struct smem_plan_request r1 = { .sweeps = bad, .n_sweeps = 1 };
    struct smem_plan_request r2 = { .bench = "nosuch" };
    struct smem_plan_request r3 = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 1 };
    struct smem_plan_request r4 = { 0 };
    struct smem_point *p;
    size_t n;

    cr_assert_lt(smem_sweep_expand(&r1, &p, &n, NULL), 0);
    cr_assert_lt(smem_sweep_expand(&r2, &p, &n, NULL), 0);
    cr_assert_lt(smem_sweep_expand(&r3, &p, &n, NULL), 0);
    cr_assert_lt(smem_sweep_expand(&r4, &p, &n, NULL), 0);
}

Test(sweep, check_rejects_what_expansion_rejects_and_counts_its_points, .init = cr_redirect_stderr)
{
    /* the check before a GPU is touched builds nothing, yet refuses every request the expansion
     * refuses and counts the points the expansion builds (static defaults, no device) */
    const char *bad[] = { "carvout" }, *sw[] = { "carveout" }, *all[] = { "all" }, *bank[] = { "bank" };
    struct smem_override unknown[] = { { "stride", "1" } }, width[] = { { "width_bytes", "4,5" } },
                         many[] = { { "stride_elems", "1:64" }, { "width_bytes", "4,8,16" } };
    const struct smem_plan_request bad_ones[] = {
        { .sweeps = bad, .n_sweeps = 1 },
        { .bench = "nosuch" },
        { .sweeps = sw, .n_sweeps = 1, .overrides = unknown, .n_overrides = 1 },
        { 0 },
        { .bench = "bandwidth", .overrides = width, .n_overrides = 1 },
        { .sweeps = bank, .n_sweeps = 1, .predict = true },
    };
    const struct smem_plan_request good[] = {
        { .sweeps = sw, .n_sweeps = 1 },
        { .sweeps = all, .n_sweeps = 1 },
        { .sweeps = all, .n_sweeps = 1, .quick = true },
        { .sweeps = all, .n_sweeps = 1, .predict = true },
        { .bench = "bank", .overrides = many, .n_overrides = 2 },
    };
    struct smem_point *p;
    size_t n, counted;

    for (size_t i = 0; i < SMEM_ARRAY_LEN(bad_ones); i++) {
        cr_assert_lt(smem_plan_check(&bad_ones[i], &counted), 0, "bad request %zu passed the check", i);
        cr_assert_lt(smem_sweep_expand(&bad_ones[i], &p, &n, NULL), 0);
    }
    for (size_t i = 0; i < SMEM_ARRAY_LEN(good); i++) {
        cr_assert_eq(smem_plan_check(&good[i], &counted), 0, "request %zu", i);
        cr_assert_eq(smem_sweep_expand(&good[i], &p, &n, NULL), 0);
        cr_assert_gt(n, 0);
        cr_assert_eq(counted, n, "request %zu: the check counts %zu points, the plan has %zu", i, counted, n);
        free(p);
    }
    cr_assert_eq(smem_plan_check(&good[4], &counted), 0);
    cr_assert_eq(counted, 64 * 3, "bank: 64 strides x 3 widths");
}

Test(sweep, rejects_a_width_that_is_not_4_8_or_16, .init = cr_redirect_stderr)
{
    struct smem_override o[] = { { "width_bytes", "4,5" } };
    struct smem_plan_request r = { .bench = "bandwidth", .overrides = o, .n_overrides = 1 };
    struct smem_point *p;
    size_t n;

    cr_assert_lt(smem_sweep_expand(&r, &p, &n, NULL), 0);
}

Test(sweep, predict_refuses_gpu_only_sweeps, .init = cr_redirect_stderr)
{
    const char *sw[] = { "bank" };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .predict = true };
    struct smem_point *p;
    size_t n;

    cr_assert_lt(smem_sweep_expand(&r, &p, &n, NULL), 0);
}

Test(sweep, dynamic_defaults_hold_both_sides_of_every_cliff)
{
    /* H200: blocks of 256 threads, 1 KiB reserved per block, 228 KiB per SM. Two blocks fit while
     * 2 x (s + 1 KiB) <= 228 KiB, i.e. s <= 113 KiB = 115712; one more granule (128 B) is one block. */
    const char *sw[] = { "dynamic" };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1 };
    struct smem_point *p;
    size_t n = 0;
    bool below = false, above = false, top = false;

    cr_assert_eq(smem_sweep_expand(&r, &p, &n, &smem_gpu_find("h200")->dev), 0);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(p[i].bench->name, "dynamic"))
            continue;
        int64_t bytes = smem_axis_value(&p[i], "dyn_smem_bytes");
        below |= bytes == 115712;
        above |= bytes == 115840;
        top |= bytes == 227 * 1024;
        if (i > 0 && !strcmp(p[i - 1].bench->name, "dynamic"))
            cr_assert_gt(bytes, smem_axis_value(&p[i - 1], "dyn_smem_bytes"), "sorted, no repeats");
    }
    cr_assert(below && above && top);
    free(p);
}

Test(text, append_separates_and_never_overflows)
{
    char buf[12] = "";

    smem_append(buf, sizeof(buf), ", ", "%s", "ab");
    cr_assert_str_eq(buf, "ab", "no separator before the first item");
    smem_append(buf, sizeof(buf), ", ", "%d", 42);
    cr_assert_str_eq(buf, "ab, 42");
    smem_append(buf, sizeof(buf), ", ", "%s", "toolong");
    cr_assert_str_eq(buf, "ab, 42, too", "truncated to the buffer");
    smem_append(buf, sizeof(buf), ", ", "%s", "more");
    cr_assert_str_eq(buf, "ab, 42, too", "a full buffer stays as it is");
}

Test(text, a_point_describes_its_axes)
{
    struct smem_point p = { .bench = smem_bench_find("bank"), .values = { 16, 3 } };
    char buf[64];

    smem_point_describe(&p, buf, sizeof(buf));
    cr_assert_str_eq(buf, "width_bytes=16 stride_elems=3");
}

Test(axis_list, a_value_given_twice_runs_once_where_it_first_appears)
{
    int64_t v[4096];

    cr_assert_eq(parse("50,0,50,10,0", &pct, v), 3);
    cr_assert_eq(v[0], 50);
    cr_assert_eq(v[1], 0);
    cr_assert_eq(v[2], 10);
    /* 48K is on the 16K steps already */
    cr_assert_eq(parse("0:64K:16K,48K,1K", &bytes, v), 6);
    cr_assert_eq(v[5], 1024);
}

Test(sweeps, list_offers_predict_exactly_where_a_point_is_predicted)
{
    /* --list marks a sweep [also --predict] (smem_sweep_predicts): predicting it on a model must give
     * at least one predicted point, and a sweep it does not mark must give none or be refused */
    for (size_t i = 0; i < smem_n_sweeps; i++) {
        const struct smem_sweep *sw = &smem_sweeps[i];
        struct smem_point *p;
        size_t n, predicted = 0;
        struct smem_result *r;

        if (sw->every || !smem_sweep_predictable(sw)) {
            cr_assert_not(smem_sweep_predicts(sw) && !sw->every, "%s", sw->name);
            continue;
        }
        r = predict(sw->name, "h200", &p, &n);
        for (size_t k = 0; k < n; k++)
            predicted += r[k].status == SMEM_POINT_PREDICTED;
        cr_assert_eq(smem_sweep_predicts(sw), predicted > 0, "%s: %zu of %zu points predicted on the H200, --list %s",
                     sw->name, predicted, n, smem_sweep_predicts(sw) ? "offers --predict" : "does not offer --predict");
        free(r);
        free(p);
    }
    cr_assert_not(smem_sweep_predicts(smem_sweep_find("cluster")));
    cr_assert(smem_sweep_predicts(smem_sweep_find("staging")));
}
