/* The descriptors are the single source of truth: what they say of sweeps, baselines, kernel files
 * and the meson source lists must hold together. Each check is also fed a planted mistake (a typo
 * in a sweep, a baseline, a benchmark's name) and must fail on it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "bench.h"
#include "gpus.h"
#include "smem.h"
#include "sweep.h"
#if SMEM_HAVE_CUDA
#include "chase.h"
#include "gemm.h"
#include "gpu_inputs.h"
#include "staging_family.h"
#endif

#ifndef SMEM_SOURCE_ROOT
#error "the unit tests need SMEM_SOURCE_ROOT (tests/meson.build)"
#endif

static const struct smem_device *h200(void)
{
    return &smem_gpu_find("h200")->dev;
}

/* A copy of the registry, to plant a mistake in one entry. */
static const struct smem_bench *planted[64];
static struct smem_bench changed;

static const struct smem_bench *const *registry_with(const char *name, const struct smem_bench *replacement)
{
    cr_assert_lt(smem_n_benches, SMEM_ARRAY_LEN(planted));
    for (size_t i = 0; i < smem_n_benches; i++)
        planted[i] = strcmp(smem_benches[i]->name, name) ? smem_benches[i] : replacement;
    return planted;
}

Test(sweeps, every_sweep_has_benchmarks_and_every_named_sweep_exists)
{
    char why[256] = "";

    cr_assert_eq(smem_sweep_check(smem_sweeps, smem_n_sweeps, smem_benches, smem_n_benches, why, sizeof(why)), 0,
                 "%s", why);
}

Test(sweeps, a_typo_in_a_benchmarks_sweep_fails_the_check)
{
    char why[256] = "";

    changed = *smem_bench_find("transpose_naive");
    changed.sweeps[0] = "tilee";
    cr_assert_lt(smem_sweep_check(smem_sweeps, smem_n_sweeps, registry_with("transpose_naive", &changed),
                                  smem_n_benches, why, sizeof(why)), 0);
    cr_assert(strstr(why, "transpose_naive") && strstr(why, "\"tilee\""), "%s", why);
}

Test(sweeps, a_sweep_no_benchmark_names_fails_the_check)
{
    struct smem_sweep sweeps[32];
    char why[256] = "";

    memcpy(sweeps, smem_sweeps, smem_n_sweeps * sizeof(*sweeps));
    sweeps[smem_n_sweeps] = (struct smem_sweep){ "warp", "not written yet", false };
    cr_assert_lt(smem_sweep_check(sweeps, smem_n_sweeps + 1, smem_benches, smem_n_benches, why, sizeof(why)), 0);
    cr_assert(strstr(why, "\"warp\" has no benchmark"), "%s", why);
}

Test(sweeps, membership_and_predictability_come_from_the_descriptors)
{
    const struct smem_sweep *carveout = smem_sweep_find("carveout"), *tile = smem_sweep_find("tile");
    const char *predictable[] = { "carveout", "cluster", "dynamic", "staging", "swizzle", "tile" };
    size_t n = 0;

    cr_assert(smem_sweep_has(carveout, smem_bench_find("footprint")));
    cr_assert(smem_sweep_has(carveout, smem_bench_find("gather")));
    cr_assert_not(smem_sweep_has(carveout, smem_bench_find("bank")));
    cr_assert(smem_sweep_has(tile, smem_bench_find("copy")) && smem_sweep_has(smem_sweep_find("reduction"),
                                                                           smem_bench_find("copy")));
    cr_assert(smem_sweep_has(smem_sweep_find("all"), smem_bench_find("uninit")));
    for (size_t i = 0; i < smem_n_sweeps; i++)
        if (smem_sweep_predictable(&smem_sweeps[i])) {
            cr_assert_lt(n, SMEM_ARRAY_LEN(predictable), "%s", smem_sweeps[i].name);
            cr_assert_str_eq(smem_sweeps[i].name, predictable[n++]);
        }
    cr_assert_eq(n, SMEM_ARRAY_LEN(predictable));
}

Test(baselines, every_baseline_names_a_benchmark_an_axis_and_a_metric_that_exist)
{
    char why[256] = "";

    cr_assert_eq(smem_bench_check(smem_benches, smem_n_benches, h200(), why, sizeof(why)), 0, "%s", why);
}

static void planted_baseline_fails(const char *bench, struct smem_baseline bl, const char *expect)
{
    char why[256] = "";

    changed = *smem_bench_find(bench);
    changed.baseline = &bl;
    cr_assert_lt(smem_bench_check(registry_with(bench, &changed), smem_n_benches, h200(), why, sizeof(why)), 0,
                 "the planted baseline of %s passed", bench);
    cr_assert(strstr(why, expect), "%s", why);
}

Test(baselines, a_typo_in_a_baseline_fails_the_check)
{
    struct smem_baseline bl = *smem_bench_find("matmul")->baseline;

    bl.bench = "cublass";
    planted_baseline_fails("matmul", bl, "benchmark \"cublass\"");
    bl = *smem_bench_find("bank")->baseline;
    bl.axis = "stride";
    planted_baseline_fails("bank", bl, "axis \"stride\"");
    bl = *smem_bench_find("transpose")->baseline;
    bl.metric = "gbytes_per_sec";
    planted_baseline_fails("transpose", bl, "metric \"gbytes_per_sec\"");
    bl = *smem_bench_find("bank")->baseline;
    bl.better = 0;
    planted_baseline_fails("bank", bl, "metric slowdown declares no direction");
}

/* The gate's floor with a single base file comes from the descriptors: every benchmark declares its
 * variation between runs and units, and a benchmark without one is caught. */
Test(variation, every_benchmark_declares_a_measured_variation)
{
    char why[256] = "";

    for (size_t i = 0; i < smem_n_benches; i++) {
        const struct smem_variation *v = &smem_benches[i]->variation;
        cr_expect_gt(v->run_pct, 0, "%s: run_pct", smem_benches[i]->name);
        cr_expect_geq(v->unit_pct, v->run_pct, "%s: unit_pct below run_pct", smem_benches[i]->name);
        cr_expect(v->source && strlen(v->source) > 20, "%s: no source", smem_benches[i]->name);
        /* the cluster benchmarks, and only they, depend on the GPC layout */
        cr_expect_eq(v->layout_pct > 0, smem_benches[i]->min_cc_feature &&
                                    (strstr(smem_benches[i]->name, "cluster") || strstr(smem_benches[i]->name, "dsm")),
                     "%s: gpc_layout", smem_benches[i]->name);
    }
    changed = *smem_bench_find("bank");
    changed.variation.run_pct = 0;
    cr_assert_lt(smem_bench_check(registry_with("bank", &changed), smem_n_benches, h200(), why, sizeof(why)), 0);
    cr_assert(strstr(why, "benchmark bank declares no measured variation"), "%s", why);
    changed = *smem_bench_find("dsm_atomics");
    changed.variation.layout_pct = 1.0;
    cr_assert_lt(smem_bench_check(registry_with("dsm_atomics", &changed), smem_n_benches, h200(), why, sizeof(why)), 0);
    cr_assert(strstr(why, "dsm_atomics"), "%s", why);
}

/* What the gate judges: a benchmark whose time is not its result says why in its descriptor, and the
 * metric that stands in its place is one it reports; uninit, cluster_sync and swizzle_wgmma are not
 * gated on time (issue 50), the others are. */
Test(variation, a_time_not_gated_says_why_in_the_descriptor)
{
    char why[256] = "";
    size_t n_not = 0;

    for (size_t i = 0; i < smem_n_benches; i++) {
        const struct smem_bench *b = smem_benches[i];
        bool expected = !strcmp(b->name, "uninit") || !strcmp(b->name, "cluster_sync") ||
                        !strcmp(b->name, "swizzle_wgmma");
        cr_expect_eq(b->time_not_gated != NULL, expected, "%s: time_not_gated", b->name);
        n_not += b->time_not_gated != NULL;
        if (b->time_not_gated)
            cr_expect_gt(strlen(b->time_not_gated), 40, "%s: a reason with its figures", b->name);
    }
    cr_assert_eq(n_not, 3);
    cr_assert_str_eq(smem_bench_find("swizzle_wgmma")->gate_metric, "flop_per_clk_sm");
    changed = *smem_bench_find("swizzle_wgmma");
    changed.gate_metric = "flops_per_clock";
    cr_assert_lt(smem_bench_check(registry_with("swizzle_wgmma", &changed), smem_n_benches, h200(), why, sizeof(why)),
                 0);
    cr_assert(strstr(why, "gates on metric \"flops_per_clock\""), "%s", why);
    changed = *smem_bench_find("bank");
    changed.gate_metric = "slowdown";
    cr_assert_lt(smem_bench_check(registry_with("bank", &changed), smem_n_benches, h200(), why, sizeof(why)), 0);
    cr_assert(strstr(why, "a gate_metric a time not gated"), "%s", why);
    changed.gate_metric = NULL;
    changed.time_not_gated = "ends with a period.";
    cr_assert_lt(smem_bench_check(registry_with("bank", &changed), smem_n_benches, h200(), why, sizeof(why)), 0);
    cr_assert(strstr(why, "needs its reason"), "%s", why);
}

/* What is wrong with b's private state, or NULL: the driver allocates priv_size bytes for setup to
 * fill, so a size without a setup is a mistake, and so, in a CUDA build, is a setup without one
 * (every benchmark keeps its buffers in c->priv: its setup would write through NULL, on a GPU only)
 * or a shared setup's teardown with another size than the shared state's (SMEM_IO_STATE and the
 * like: the shared setup would write past a smaller one). A build without CUDA has neither. */
static const char *state_problem(const struct smem_bench *b)
{
    if (b->priv_size && !b->setup)
        return "private state without a setup to fill it";
#if SMEM_HAVE_CUDA
    static const struct {
        void (*teardown)(struct smem_case *c);
        size_t size;
    } shared[] = {
        { smem_chase_teardown, sizeof(struct smem_chase) },
        { smem_gemm_teardown, sizeof(struct smem_gemm) },
        { smem_io_teardown, sizeof(struct smem_io) },
        { smem_staging_teardown, sizeof(struct smem_staging) },
    };

    if (!b->setup)
        return "no setup in a CUDA build";
    if (!b->priv_size)
        return "a setup without private state (.priv_size in its SMEM_GPU_OPS)";
    for (size_t k = 0; k < SMEM_ARRAY_LEN(shared); k++)
        if (b->teardown == shared[k].teardown && b->priv_size != shared[k].size)
            return "a shared setup's teardown with another size than its state's (SMEM_IO_STATE and the like)";
#else
    if (b->setup || b->priv_size)
        return "GPU operations or private state in a build without CUDA (outside SMEM_GPU_OPS)";
#endif
    return NULL;
}

Test(state, every_benchmark_has_the_private_state_its_setup_fills)
{
    size_t with_state = 0;

    for (size_t i = 0; i < smem_n_benches; i++) {
        const char *problem = state_problem(smem_benches[i]);
        cr_expect_null(problem, "%s: %s", smem_benches[i]->name, problem);
        with_state += smem_benches[i]->priv_size > 0;
    }
    cr_assert_eq(with_state, SMEM_HAVE_CUDA ? smem_n_benches : 0);
}

Test(state, a_planted_mistake_is_caught)
{
    changed = *smem_bench_find("reduction");
    changed.setup = NULL;
    changed.priv_size = 64;
    cr_assert(state_problem(&changed) && strstr(state_problem(&changed), "without a setup"));
#if SMEM_HAVE_CUDA
    changed = *smem_bench_find("reduction");
    changed.priv_size = 0;
    cr_assert(state_problem(&changed) && strstr(state_problem(&changed), "without private state"));
    changed = *smem_bench_find("gather");
    changed.priv_size = sizeof(struct smem_io) / 2;
    cr_assert(state_problem(&changed) && strstr(state_problem(&changed), "another size"));
    changed = *smem_bench_find("latency");
    changed.priv_size = sizeof(struct smem_io);
    cr_assert(state_problem(&changed) && strstr(state_problem(&changed), "another size"));
#endif
}

/* Every default and quick point of every benchmark plans on every model (or is skipped with a
 * reason), twice over with the same result: planning reads its axes by name (a name the benchmark
 * does not have aborts) and depends on nothing but the point and the device. */
Test(plans, every_point_plans_deterministically_on_every_model)
{
    for (size_t m = 0; m < smem_n_gpu_models; m++)
        for (int quick = 0; quick < 2; quick++) {
            const char *all[] = { "all" };
            struct smem_plan_request r = { .sweeps = all, .n_sweeps = 1, .quick = quick };
            struct smem_point *p;
            size_t n = 0;

            cr_assert_eq(smem_sweep_expand(&r, &p, &n, &smem_gpu_models[m].dev), 0);
            cr_assert_gt(n, 0);
            for (size_t i = 0; i < n; i++) {
                struct smem_plan a = { .carveout_pct = -1 }, b = { .carveout_pct = -1 };
                char why[SMEM_REASON_LEN] = "", why2[SMEM_REASON_LEN] = "";
                int ra = p[i].bench->plan(&p[i], &smem_gpu_models[m].dev, &a, why, sizeof(why));
                int rb = p[i].bench->plan(&p[i], &smem_gpu_models[m].dev, &b, why2, sizeof(why2));

                cr_assert(ra == SMEM_OK || ra == SMEM_ESKIP, "%s: %d", p[i].bench->name, ra);
                cr_assert_eq(ra, rb);
                cr_assert(ra == SMEM_OK || why[0], "%s skipped without a reason", p[i].bench->name);
                cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "%s plans differently twice", p[i].bench->name);
            }
            free(p);
        }
}

/* The meson source lists, the registry and the files on disk agree: each registered benchmark has
 * bench/<name>.c defining smem_<name>_bench, its kernel file kernels/<file>.cu with a header
 * kernels/<file>.h, and both in meson.build; every .c of bench/ and .cu of kernels/ is built, and a
 * kernel file no descriptor names is one of the driver's own. */
static char *slurp(const char *rel)
{
    char path[1024];
    FILE *f;
    long len;
    char *s;

    smem_fmt(path, sizeof(path), "%s/%s", SMEM_SOURCE_ROOT, rel);
    if (!(f = fopen(path, "rb")))
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    s = calloc(1, (size_t)len + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return s;
}

static bool in_meson(const char *meson, const char *rel)
{
    char quoted[256];

    smem_fmt(quoted, sizeof(quoted), "'%s'", rel);
    return strstr(meson, quoted) != NULL;
}

static int check_layout(const struct smem_bench *const *benches, size_t n, char *why, size_t len)
{
    /* kernels of the driver and of every benchmark's setup, no benchmark's own */
    static const char *driver_kernels[] = { "clock", "fill", "residency" };
    char *meson = slurp("meson.build"), rel[256], def[256];
    int rc = SMEM_EINVAL;
    DIR *d;
    struct dirent *e;

    cr_assert_not_null(meson);
    for (size_t i = 0; i < n; i++) {
        const struct smem_bench *b = benches[i];
        char *src;

        smem_fmt(rel, sizeof(rel), "bench/%s.c", b->name);
        smem_fmt(def, sizeof(def), "const struct smem_bench smem_%s_bench = {", b->name);
        if (!(src = slurp(rel)) || !strstr(src, def) || !in_meson(meson, rel)) {
            smem_fmt(why, len, "%s: %s", rel, !src ? "missing" : !strstr(src, def) ? "does not define the descriptor"
                                                                                  : "not in meson.build");
            free(src);
            goto out;
        }
        free(src);
        if (!b->kernel_file)
            continue;
        smem_fmt(rel, sizeof(rel), "kernels/%s.cu", b->kernel_file);
        if (!(src = slurp(rel)) || !in_meson(meson, rel)) {
            smem_fmt(why, len, "%s (the kernel file of %s): %s", rel, b->name, src ? "not in meson.build" : "missing");
            free(src);
            goto out;
        }
        free(src);
        smem_fmt(rel, sizeof(rel), "kernels/%s_launch.h", b->kernel_file);
        if (!(src = slurp(rel))) {
            smem_fmt(why, len, "%s (the launchers of %s): missing", rel, b->name);
            goto out;
        }
        free(src);
    }
    for (int dir = 0; dir < 2; dir++) {
        const char *name = dir ? "kernels" : "bench", *ext = dir ? ".cu" : ".c";
        char path[1024];

        smem_fmt(path, sizeof(path), "%s/%s", SMEM_SOURCE_ROOT, name);
        cr_assert_not_null(d = opendir(path));
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name), el = strlen(ext);
            char stem[256];
            bool named = false;

            if (l <= el || strcmp(e->d_name + l - el, ext))
                continue;
            smem_fmt(stem, sizeof(stem), "%.*s", (int)(l - el), e->d_name);
            smem_fmt(rel, sizeof(rel), "%s/%s", name, e->d_name);
            if (!in_meson(meson, rel)) {
                smem_fmt(why, len, "%s is not in meson.build", rel);
                closedir(d);
                goto out;
            }
            if (!dir)
                continue;
            for (size_t i = 0; i < SMEM_ARRAY_LEN(driver_kernels); i++)
                named = named || !strcmp(stem, driver_kernels[i]);
            for (size_t i = 0; i < n; i++)
                named = named || (benches[i]->kernel_file && !strcmp(stem, benches[i]->kernel_file));
            if (!named) {
                smem_fmt(why, len, "%s: no descriptor names it as its kernel file", rel);
                closedir(d);
                goto out;
            }
        }
        closedir(d);
    }
    rc = SMEM_OK;
out:
    free(meson);
    return rc;
}

Test(layout, meson_the_registry_and_the_files_agree)
{
    char why[256] = "";

    cr_assert_eq(check_layout(smem_benches, smem_n_benches, why, sizeof(why)), 0, "%s", why);
}

Test(layout, a_planted_mismatch_is_caught)
{
    char why[256] = "";

    changed = *smem_bench_find("gather");
    changed.name = "gathr";
    cr_assert_lt(check_layout(registry_with("gather", &changed), smem_n_benches, why, sizeof(why)), 0);
    cr_assert(strstr(why, "bench/gathr.c: missing"), "%s", why);
    changed = *smem_bench_find("gather");
    changed.kernel_file = "carveout";
    cr_assert_lt(check_layout(registry_with("gather", &changed), smem_n_benches, why, sizeof(why)), 0);
    cr_assert(strstr(why, "kernels/carveout.cu"), "%s", why);
    changed = *smem_bench_find("footprint");
    changed.kernel_file = "gather";   /* then nothing names kernels/footprint.cu */
    cr_assert_lt(check_layout(registry_with("footprint", &changed), smem_n_benches, why, sizeof(why)), 0);
    cr_assert(strstr(why, "kernels/footprint.cu: no descriptor names it"), "%s", why);
}
