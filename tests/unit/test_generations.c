/* Nothing Hopper-shaped: on every built-in model the plans take their sizes from the device (tile,
 * table, carveout steps, opt-in ceiling, block size) and predict mode runs the carveout, dynamic
 * and tile sweeps. Every expected value is worked out by hand in the comment beside it from the
 * model's compute capability (core/arch.c, Programming Guide Table 27 and the Shared Memory
 * sections), not copied from the program's output. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arch.h"
#include "bench.h"
#include "common.h"
#include "gpus.h"
#include "result.h"
#include "runner.h"
#include "sweep.h"

#define KIB 1024

extern const struct smem_bench smem_footprint_bench;

static const struct smem_device *model(const char *key)
{
    const struct smem_gpu_model *m = smem_gpu_find(key);

    cr_assert_not_null(m, "model %s", key);
    return &m->dev;
}

/* smem_run_predict with the default settings, every point done. */
static int predict_all(const struct smem_device *d, const struct smem_point *p, size_t n, struct smem_result *res)
{
    struct smem_run_settings s = { .no_optin = false };
    struct smem_run_outcome out;
    int rc = smem_run_predict(d, p, n, &s, res, &out);

    cr_assert_eq(out.done, n);
    return rc;
}

/* The values of one axis of one benchmark in the default plan of the named sweep on dev. */
static size_t axis_values(const char *key, const char *sweep, bool quick, const char *bench, const char *axis,
                          int64_t *out, size_t max)
{
    const char *sw[] = { sweep };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .quick = quick, .predict = true };
    struct smem_point *p;
    size_t n, k = 0;

    cr_assert_eq(smem_sweep_expand(&r, &p, &n, model(key)), 0);
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        int64_t v;
        if (strcmp(p[i].bench->name, bench))
            continue;
        v = smem_axis_value(&p[i], axis);
        for (size_t j = 0; j < k; j++)
            seen |= out[j] == v;
        if (!seen && k < max)
            out[k++] = v;
    }
    free(p);
    return k;
}

static int64_t one_value(const char *key, const char *sweep, const char *bench, const char *axis)
{
    int64_t v[8];

    cr_assert_eq(axis_values(key, sweep, false, bench, axis, v, 8), 1, "%s: one %s", key, axis);
    return v[0];
}

Test(generations, footprint_tile_fills_all_but_one_thread_slot_with_shared_memory)
{
    /* 256-thread blocks; R = max threads / 256 - 1; per block floor(smem per SM / R) in whole KiB,
     * less the reservation */
    /* H200 (9.0): R = 2048/256 - 1 = 7; 228/7 = 32.6 -> 32 KiB; less 1 KiB: 31 KiB, as measured */
    cr_assert_eq(one_value("h200", "carveout", "footprint", "tile_bytes"), 31 * KIB);
    /* A100 (8.0): R = 7; 164/7 = 23.4 -> 23 KiB; 22 KiB */
    cr_assert_eq(one_value("a100", "carveout", "footprint", "tile_bytes"), 22 * KIB);
    /* RTX 4090 (8.9): R = 1536/256 - 1 = 5; 100/5 = 20 KiB; 19 KiB */
    cr_assert_eq(one_value("rtx4090", "carveout", "footprint", "tile_bytes"), 19 * KIB);
    /* T4 (7.5): R = 1024/256 - 1 = 3; 64/3 = 21.3 -> 21 KiB; nothing reserved on Turing: 21 KiB */
    cr_assert_eq(one_value("t4", "carveout", "footprint", "tile_bytes"), 21 * KIB);
}

Test(generations, footprint_at_full_carveout_is_limited_by_shared_memory_at_r_blocks)
{
    /* on every model the tile is sized so that the largest carveout holds R blocks and the limiter
     * is shared memory, not threads (the kernel's launch bounds reserve registers for R) */
    for (size_t m = 0; m < smem_n_gpu_models; m++) {
        const struct smem_device *d = &smem_gpu_models[m].dev;
        const char *sw[] = { "carveout" };
        struct smem_override o[] = { { "carveout_pct", "100" } };
        struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 1,
                                       .predict = true };
        struct smem_point *p;
        struct smem_result *res;
        size_t n;
        bool found = false;

        cr_assert_eq(smem_sweep_expand(&r, &p, &n, d), 0);
        res = calloc(n, sizeof(*res));
        cr_assert_eq(predict_all(d, p, n, res), 0);
        for (size_t i = 0; i < n; i++) {
            if (strcmp(p[i].bench->name, "footprint"))
                continue;
            found = true;
            cr_assert_eq(res[i].status, SMEM_POINT_PREDICTED, "%s: %s", d->name, res[i].reason);
            cr_assert_eq(res[i].occ.predicted, d->max_threads_per_sm / 256 - 1, "%s", d->name);
            cr_assert_str_eq(res[i].occ.limiter, "shared_memory", "%s", d->name);
        }
        cr_assert(found);
        free(res);
        free(p);
    }
}

Test(generations, gather_table_is_three_eighths_of_the_unified_l1)
{
    /* unified L1 + shared per SM (20.x.3): 256 KiB on 9.0 -> 96; 192 on 8.0 -> 72; 128 on 8.9 ->
     * 48; 96 on 7.5 -> 36 */
    cr_assert_eq(one_value("h200", "carveout", "gather", "table_kib"), 96);
    cr_assert_eq(one_value("a100", "carveout", "gather", "table_kib"), 72);
    cr_assert_eq(one_value("rtx4090", "carveout", "gather", "table_kib"), 48);
    cr_assert_eq(one_value("t4", "carveout", "gather", "table_kib"), 36);
}

Test(generations, carveout_sweep_visits_every_step_of_the_device)
{
    int64_t v[32];
    size_t n;
    /* H200: a preference of p % asks p x 2.28 KiB, rounded up to a step. Steps of 10 reach 0 (0 %),
     * 32 (10 %: 22.8), 64 (20 %: 45.6), 100 (30, 40 %), 132 (50 %: 114), 164 (60, 70 %), 196 (80 %),
     * 228 (90, 100 %); 8 KiB first at 1 % (2.28 KiB), 16 KiB first at 4 % (9.12 KiB) */
    const int64_t h200[] = { 0, 1, 4, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
    /* T4: 64 KiB maximum, steps 32 and 64; 10 % (6.4 KiB) already reaches 32, 60 % (38.4) 64 */
    const int64_t t4[] = { 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };

    n = axis_values("h200", "carveout", false, "footprint", "carveout_pct", v, 32);
    cr_assert_eq(n, SMEM_ARRAY_LEN(h200));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(v[i], h200[i], "h200 carveout %zu", i);
    n = axis_values("t4", "carveout", false, "gather", "carveout_pct", v, 32);
    cr_assert_eq(n, SMEM_ARRAY_LEN(t4));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(v[i], t4[i], "t4 carveout %zu", i);
    /* --quick keeps its three points everywhere */
    cr_assert_eq(axis_values("rtx4090", "carveout", true, "footprint", "carveout_pct", v, 32), 3);
}

Test(generations, quick_dynamic_sweep_ends_at_the_devices_own_ceiling)
{
    int64_t v[16];
    /* RTX 4090: opt-in 99 KiB per block; of 0, 16, 48, 100, 227 KiB the first three, then 99 KiB */
    const int64_t want[] = { 0, 16 * KIB, 48 * KIB, 99 * KIB };
    size_t n = axis_values("rtx4090", "dynamic", true, "dynamic", "dyn_smem_bytes", v, 16);

    cr_assert_eq(n, SMEM_ARRAY_LEN(want));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(v[i], want[i], "value %zu", i);
    /* H200: 227 KiB is its ceiling already: the quick list as it stands */
    cr_assert_eq(axis_values("h200", "dynamic", true, "dynamic", "dyn_smem_bytes", v, 16), 5);
    cr_assert_eq(v[4], 227 * KIB);
}

Test(generations, load_blocks_fill_every_thread_slot)
{
    /* 48 KiB static + the reservation per block: 2048 threads -> 2 x 1024 (98 KiB of 228); 1536 ->
     * 2 x 768 (98 of 100 KiB); 1024 (T4) -> 1 x 1024 */
    cr_assert_eq(smem_full_sm_block(model("h200"), 48 * KIB, 1024), 1024);
    cr_assert_eq(smem_full_sm_block(model("rtx4090"), 48 * KIB, 1024), 768);
    cr_assert_eq(smem_full_sm_block(model("t4"), 48 * KIB, 1024), 1024);
    /* a per-block footprint that leaves room for one block only: the largest block allowed */
    cr_assert_eq(smem_full_sm_block(model("rtx4090"), 60 * KIB, 1024), 1024);
}

Test(generations, predict_runs_carveout_dynamic_and_tile_on_every_model)
{
    for (size_t m = 0; m < smem_n_gpu_models; m++) {
        const struct smem_device *d = &smem_gpu_models[m].dev;
        const char *sw[] = { "carveout", "dynamic", "tile" };
        struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 3, .predict = true };
        struct smem_point *p;
        struct smem_result *res;
        size_t n, predicted = 0;

        cr_assert_eq(smem_sweep_expand(&r, &p, &n, d), 0);
        res = calloc(n, sizeof(*res));
        cr_assert_eq(predict_all(d, p, n, res), 0);
        for (size_t i = 0; i < n; i++) {
            cr_assert(res[i].status == SMEM_POINT_PREDICTED ||
                      (res[i].status == SMEM_POINT_SKIPPED && res[i].reason[0]),
                      "%s: %s %d", d->name, p[i].bench->name, res[i].status);
            if (res[i].status == SMEM_POINT_PREDICTED) {
                predicted++;
                cr_assert_geq(res[i].occ.predicted, 1, "%s: %s predicted to run", d->name, p[i].bench->name);
                cr_assert_leq(res[i].occ.predicted, d->max_blocks_per_sm);
            }
        }
        /* every benchmark of the three sweeps that has a kernel of ours is predicted somewhere */
        for (const char *const *b = (const char *const[]){ "footprint", "gather", "dynamic", "static", "matmul",
                                                           "matmul_rb", "transpose", NULL };
             *b; b++) {
            bool any = false;
            for (size_t i = 0; i < n; i++)
                any |= !strcmp(p[i].bench->name, *b) && res[i].status == SMEM_POINT_PREDICTED;
            cr_assert(any, "%s: no %s point predicted", d->name, *b);
        }
        cr_assert_gt(predicted, 40, "%s: %zu points predicted", d->name, predicted);
        free(res);
        free(p);
    }
}

Test(generations, every_model_has_its_table_limits)
{
    for (size_t m = 0; m < smem_n_gpu_models; m++) {
        const struct smem_device *d = &smem_gpu_models[m].dev;
        const struct smem_arch *a = smem_arch_find(d->cc_major, d->cc_minor);
        cr_assert_not_null(a, "%s: cc %d.%d in the table", d->name, d->cc_major, d->cc_minor);
        cr_assert_eq(d->smem_per_sm, a->smem_per_sm_kib * (int64_t)KIB);
        cr_assert_eq(d->smem_per_block_optin, a->smem_per_block_optin_kib * (int64_t)KIB);
        cr_assert_eq(d->reserved_smem_per_block, a->reserved_per_block_bytes);
        cr_assert_eq(d->max_blocks_per_sm, a->max_blocks_per_sm);
        cr_assert_eq(d->max_threads_per_sm, a->max_threads_per_sm);
    }
}

Test(generations, a_benchmark_needing_newer_hardware_is_skipped_with_its_reason)
{
    /* footprint as if it needed 9.0 (clusters): skipped on the RTX 4090 (8.9), predicted on the H200 */
    struct smem_bench needs90 = smem_footprint_bench;
    const char *keys[] = { "rtx4090", "h200" };

    needs90.min_cc = 90;
    needs90.min_cc_feature = "thread block clusters";
    for (int k = 0; k < 2; k++) {
        const struct smem_device *d = model(keys[k]);
        const char *sw[] = { "carveout" };
        struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .quick = true, .predict = true };
        struct smem_point *p;
        struct smem_result *res;
        size_t n, seen = 0;

        cr_assert_eq(smem_sweep_expand(&r, &p, &n, d), 0);
        res = calloc(n, sizeof(*res));
        for (size_t i = 0; i < n; i++)
            if (p[i].bench == &smem_footprint_bench)
                p[i].bench = &needs90;
        cr_assert_eq(predict_all(d, p, n, res), 0);
        for (size_t i = 0; i < n; i++) {
            if (p[i].bench != &needs90)
                continue;
            seen++;
            if (k == 0) {
                cr_assert_eq(res[i].status, SMEM_POINT_SKIPPED);
                cr_assert(strstr(res[i].reason, "needs compute capability 9.0") &&
                          strstr(res[i].reason, "thread block clusters") && strstr(res[i].reason, "8.9"),
                          "%s", res[i].reason);
            } else {
                cr_assert_eq(res[i].status, SMEM_POINT_PREDICTED, "%s", res[i].reason);
            }
        }
        cr_assert_eq(seen, 3);
        free(res);
        free(p);
    }
}

Test(generations, min_cc_without_a_feature_is_a_descriptor_error)
{
    struct smem_bench bad = smem_footprint_bench;
    const struct smem_bench *list[] = { &bad };
    char why[256];

    bad.min_cc = 90;
    cr_assert_eq(smem_bench_check(list, 1, model("h200"), why, sizeof(why)), SMEM_EINVAL);
    cr_assert(strstr(why, "footprint"), "%s", why);
    bad.min_cc_feature = "thread block clusters";
    cr_assert_eq(smem_bench_check(list, 1, model("h200"), why, sizeof(why)), SMEM_OK, "%s", why);
}

/* What the bank model says of ldmatrix needs no GPU: predict mode records it beside the occupancy,
 * on a model that has ldmatrix (A100) as on the H200's, and nothing where the point is skipped. */
Test(predict, the_swizzle_sweep_records_the_bank_models_passes)
{
    const char *sw[] = { "swizzle" };
    struct smem_plan_request r = { .sweeps = sw, .n_sweeps = 1, .predict = true };
    const char *keys[] = { "a100", "h200" };

    for (size_t k = 0; k < 2; k++) {
        struct smem_point *p;
        size_t n, seen = 0;
        struct smem_result *res;

        cr_assert_eq(smem_sweep_expand(&r, &p, &n, model(keys[k])), 0);
        res = calloc(n, sizeof(*res));
        cr_assert_eq(predict_all(model(keys[k]), p, n, res), 0);
        for (size_t i = 0; i < n; i++) {
            const struct smem_result *x = &res[i];
            if (strcmp(p[i].bench->name, "swizzle_ldmatrix") || x->status != SMEM_POINT_PREDICTED)
                continue;
            cr_assert_eq(x->metrics.n, 2, "%s", keys[k]);
            cr_assert_str_eq(x->metrics.m[0].name, "wavefronts");
            /* unswizzled 128-byte rows: every 16-byte row of an 8x8 matrix in one bank group, 8-way */
            if (smem_axis_value(&p[i], "row_bytes") == 128 && smem_axis_value(&p[i], "layout") == 0) {
                int64_t mats = smem_axis_value(&p[i], "matrices");
                cr_assert_eq(x->metrics.m[0].value, 8.0 * (double)mats, "%s", keys[k]);
                cr_assert_eq(x->metrics.m[1].value, 8.0);
            }
            seen++;
        }
        cr_assert_eq(seen, 120, "%s: %zu ldmatrix points predicted", keys[k], seen);
        for (size_t i = 0; i < n; i++)
            if (res[i].status == SMEM_POINT_SKIPPED)
                cr_assert_eq(res[i].metrics.n, 0);
        free(res);
        free(p);
    }
}
