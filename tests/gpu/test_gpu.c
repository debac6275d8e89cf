/* GPU tests: numbers checked against physics, the bank model and the runtime API on a real device.
 * The whole suite exits 77 (skipped) where no CUDA device can be opened. Criterion runs each test
 * in a child process and CUDA does not survive fork, so the parent never touches CUDA: a child of
 * its own looks for the device, and every test opens it afresh. The tests run one at a time, so
 * no two time the GPU at once. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/options.h>

#include "arch.h"
#include "common.h"
#include "device_open.h"
#include "gpu_test.h"
#include "gpus.h"
#include "rng.h"
#include "runner.h"
#include "sgemm.h"
#include "transpose_family.h"

struct smem_device dev;

void open_device(void)
{
    char why[512];

    cr_assert_eq(smem_device_open(0, &dev, why, sizeof(why)), 0, "%s", why);
}

TestSuite(device, .init = open_device);
TestSuite(physics, .init = open_device);
TestSuite(occupancy, .init = open_device);
TestSuite(optin, .init = open_device);

static bool cold_mode;

/* Measures points p[0..n) as one run (the tests' noise rule), derived metrics included. */
static struct smem_result *measure(const struct smem_point *p, size_t n, bool no_optin)
{
    struct smem_result *r = calloc(n, sizeof(*r));
    struct smem_run_outcome out;
    struct smem_run_settings s = {
        .rule = { .min_samples = 10, .max_samples = 200, .max_noise = 0.005, .timeout_s = 0.5 },
        .seed = 1, .no_optin = no_optin, .cold = cold_mode,
    };

    cr_assert_eq(smem_run_measure(&dev, p, n, &s, r, &out), 0);
    cr_assert_eq(out.done, n);
    cr_assert_not(out.sticky, "%s", out.sticky_reason);
    smem_run_derive(r, n);
    return r;
}

struct smem_result *run(struct smem_plan_request *req, size_t *n, bool no_optin)
{
    struct smem_point *p;

    cr_assert_eq(smem_sweep_expand(req, &p, n, &dev), 0);
    return measure(p, *n, no_optin);
}

double metric(const struct smem_result *r, const char *name)
{
    for (size_t i = 0; i < r->metrics.n; i++)
        if (!strcmp(r->metrics.m[i].name, name))
            return r->metrics.m[i].value;
    cr_assert_fail("no metric %s on %s", name, r->point->bench->name);
    return 0;
}

Test(device, properties_and_clock_are_plausible)
{
    cr_assert_geq(dev.cc_major, 7);
    cr_assert_gt(dev.sm_count, 0);
    cr_assert_eq(dev.smem_per_block, 48 * 1024, "the 48 KiB default");
    cr_assert_geq(dev.smem_per_block_optin, dev.smem_per_block);
    cr_assert_geq(dev.smem_per_sm, dev.smem_per_block_optin);
    cr_assert_gt(dev.measured_clock_mhz, 200);
    cr_assert_lt(dev.measured_clock_mhz, dev.clock_khz / 1000.0 * 1.05, "no faster than the rated maximum");
}

Test(device, h200_model_equals_the_real_h200)
{
    const struct smem_device *m = &smem_gpu_find("h200")->dev;

    if (!strstr(dev.name, "H200"))
        cr_skip_test("not an H200: %s", dev.name);
    cr_assert_eq(m->cc_major, dev.cc_major);
    cr_assert_eq(m->cc_minor, dev.cc_minor);
    cr_assert_eq(m->sm_count, dev.sm_count);
    cr_assert_eq(m->smem_per_block, dev.smem_per_block);
    cr_assert_eq(m->smem_per_block_optin, dev.smem_per_block_optin);
    cr_assert_eq(m->smem_per_sm, dev.smem_per_sm);
    cr_assert_eq(m->reserved_smem_per_block, dev.reserved_smem_per_block);
    cr_assert_eq(m->max_blocks_per_sm, dev.max_blocks_per_sm);
    cr_assert_eq(m->max_threads_per_sm, dev.max_threads_per_sm);
    cr_assert_eq(m->max_threads_per_block, dev.max_threads_per_block);
    cr_assert_eq(m->regs_per_sm, dev.regs_per_sm);
    cr_assert_eq(m->regs_per_block, dev.regs_per_block);
    cr_assert_eq(m->l2_bytes, dev.l2_bytes);
    cr_assert_eq(m->clock_khz, dev.clock_khz);
}

Test(device, limits_equal_the_published_table)
{
    /* core/arch.c restates the Programming Guide per compute capability; the runtime is the
     * authority on the GPU at hand, so the two must agree wherever the table knows the cc */
    const struct smem_arch *a = smem_arch_find(dev.cc_major, dev.cc_minor);

    if (!a)
        cr_skip_test("cc %d.%d is not in the table", dev.cc_major, dev.cc_minor);
    cr_assert_eq(dev.smem_per_sm, a->smem_per_sm_kib * 1024LL);
    cr_assert_eq(dev.smem_per_block_optin, a->smem_per_block_optin_kib * 1024LL);
    cr_assert_eq(dev.reserved_smem_per_block, a->reserved_per_block_bytes);
    cr_assert_eq(dev.max_blocks_per_sm, a->max_blocks_per_sm);
    cr_assert_eq(dev.max_threads_per_sm, a->max_threads_per_sm);
}

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

/* 0 when a CUDA device can be opened, asked in a child so this process stays CUDA-free. */
static int device_present(void)
{
    int status = 1;
    pid_t pid = fork();

    if (pid == 0) {
        char why[512];
        int n = smem_device_count(why, sizeof(why));
        if (n <= 0)
            fprintf(stderr, "test_gpu: skipped: %s\n", why);
        _exit(n > 0 ? 0 : 1);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TestSuite(scratchpad, .init = open_device);

static const struct smem_result *find(const struct smem_result *r, size_t n, const char *bench, const char *axis,
                                      int64_t value)
{
    for (size_t i = 0; i < n; i++) {
        int a = smem_bench_axis(r[i].point->bench, axis);
        if (!strcmp(r[i].point->bench->name, bench) && (a < 0 || r[i].point->values[a] == value))
            return &r[i];
    }
    cr_assert_fail("no %s point with %s = %lld", bench, axis, (long long)value);
    return NULL;
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

Test(scratchpad, tiles_beat_global_and_every_kernel_verifies)
{
    const char *sw[] = { "tile" };
    struct smem_override o[] = { { "n", "2048" }, { "mib", "64" } };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1, .overrides = o, .n_overrides = 2 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);
    const struct smem_result *global = find(r, n, "matmul", "tile", 0), *t32 = find(r, n, "matmul", "tile", 32);
    const struct smem_result *rb64 = find(r, n, "matmul_rb", "bk", 64);
    const struct smem_result *pad = find(r, n, "transpose", "layout", SMEM_TRANSPOSE_PADDED);
    const struct smem_result *nopad = find(r, n, "transpose", "layout", SMEM_TRANSPOSE_ROW_MAJOR);
    const struct smem_result *swz = find(r, n, "transpose", "layout", SMEM_TRANSPOSE_SWIZZLED);

    for (size_t i = 0; i < n; i++) {
        if (r[i].status == SMEM_POINT_SKIPPED && r[i].point->bench->min_cc > 10 * dev.cc_major + dev.cc_minor)
            continue;   /* sgemm_tma before cc 9.0 */
        if (r[i].status == SMEM_POINT_SKIPPED && dev.cc_major < 8 && !strcmp(r[i].point->bench->name, "transpose") &&
            smem_axis_value(r[i].point, "depth_tiles") > 1)
            continue;   /* the pipelined transpose before cc 8.0 */
        if (r[i].status == SMEM_POINT_SKIPPED && !strcmp(r[i].point->bench->name, "sgemm_cp_async") &&
            !smem_sgemm_a_width_built(dev.cc_major, SMEM_SGEMM_CP_ASYNC,
                                      (int)smem_axis_value(r[i].point, "a_width_bytes")))
            continue;   /* float4 A loads of cp.async where they would spill */
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s: %s", r[i].point->bench->name, r[i].reason);
        cr_assert(r[i].verified);
    }
    cr_assert_lt(t32->time_ns.q3, global->time_ns.q1, "tile 32 beats the global-only kernel beyond the noise");
    cr_assert(rb64->optin, "bk = 64 takes 64 KiB: opted in");
    cr_assert_gt(metric(rb64, "pct_of_cublas"), 0);
    cr_assert_lt(pad->time_ns.q3, nopad->time_ns.q1, "the padded tile beats the row-major one");
    cr_assert_lt(swz->time_ns.q3, nopad->time_ns.q1, "the swizzled tile beats the row-major one");
    cr_assert_gt(metric(pad, "pct_of_copy"), 50);
    cr_assert_gt(metric(swz, "pct_of_copy"), 50);
    smem_results_free(r, n);
    free(r);
}

Test(scratchpad, the_swizzled_transpose_verifies_and_keeps_up_with_the_padded_one_at_every_geometry)
{
    /* Both conflict-free layouts move the same bytes through DRAM: at one geometry the swizzle (vector
     * stores kept whole, no extra word) is within 10 % of the padding, and both beat the row-major tile,
     * whose column read the bank model puts at 32 / vec passes, beyond the noise. */
    struct smem_override o[] = { { "mib", "64" }, { "edge_elems", "32,64,128" }, { "width_bytes", "4,8,16" },
                                 { "depth_tiles", "1" }, { "block_tiles", "1" }, { "resident_blocks", "0" } };
    struct smem_plan_request req = { .bench = "transpose", .overrides = o, .n_overrides = 6 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    cr_assert_eq(n, 27);
    for (size_t i = 0; i < n; i++) {
        struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(r[i].point);
        if (r[i].status == SMEM_POINT_SKIPPED && g.edge == 128 &&
            ((int64_t)smem_transpose_dynamic_bytes(g.layout, g.edge) > dev.smem_per_block_optin || g.vec == 1))
            continue;   /* the padded 128-float tile over a 64 KiB opt-in; the 128-float tile with floats: not built */
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "layout %d edge %d vec %d: %s", g.layout, g.edge, g.vec, r[i].reason);
        cr_assert(r[i].verified);
        cr_assert_eq(r[i].optin, g.edge == 128, "layout %d edge %d vec %d: the 128-float tile alone opts in", g.layout,
                     g.edge, g.vec);
        cr_assert_float_eq(metric(&r[i], "load_wavefronts"), g.layout == SMEM_TRANSPOSE_ROW_MAJOR ? 32.0 / g.vec : 1,
                           1e-12);
    }
    for (size_t i = 0; i < n; i++) {
        const struct smem_result *swz = &r[i], *row = NULL, *pad = NULL;
        struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(swz->point);
        if (g.layout != SMEM_TRANSPOSE_SWIZZLED)
            continue;
        for (size_t k = 0; k < n; k++) {     /* the other layouts at this geometry */
            struct smem_transpose_geom o = SMEM_TRANSPOSE_GEOM(r[k].point);
            if (o.edge == g.edge && o.vec == g.vec && o.layout == SMEM_TRANSPOSE_ROW_MAJOR)
                row = &r[k];
            else if (o.edge == g.edge && o.vec == g.vec && o.layout == SMEM_TRANSPOSE_PADDED)
                pad = &r[k];
        }
        cr_assert(row && pad);
        if (pad->status != SMEM_POINT_OK || swz->status != SMEM_POINT_OK)
            continue;
        cr_assert_lt(swz->time_ns.q3, row->time_ns.q1, "edge %d vec %d: swizzled %.1f us, row-major %.1f us", g.edge,
                     g.vec, swz->time_ns.median / 1e3, row->time_ns.median / 1e3);
        cr_assert_lt(swz->time_ns.median, 1.10 * pad->time_ns.median,
                     "edge %d vec %d: swizzled %.1f us, padded %.1f us", g.edge, g.vec, swz->time_ns.median / 1e3,
                     pad->time_ns.median / 1e3);
    }
    smem_results_free(r, n);
    free(r);
}

Test(scratchpad, the_pipelined_transpose_verifies_at_every_layout_geometry_and_depth_in_one_wave)
{
    /* The persistent kernels: every element checked (smem_transpose_verify reads the whole output) at
     * 64 MiB, where each block loops over many tiles, and at 1 MiB, where the wave has more blocks than
     * the 64 or 256 tiles; one wave of the resident blocks after the opt-in; the column read's
     * model as at depth 1, no store model (cp.async writes the tiles). */
    struct smem_override o[] = { { "mib", "1,64" }, { "edge_elems", "32,64" }, { "width_bytes", "4,8,16" },
                                 { "depth_tiles", "2,4" }, { "block_tiles", "1" }, { "resident_blocks", "0" } };
    struct smem_plan_request req = { .bench = "transpose", .overrides = o, .n_overrides = 6 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    cr_assert_eq(n, 72);
    for (size_t i = 0; i < n; i++) {
        struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(r[i].point);
        if (dev.cc_major < 8) {
            cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED);
            cr_assert(strstr(r[i].reason, "cp.async"), "%s", r[i].reason);
            continue;
        }
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "layout %d edge %d vec %d depth %d: %s", g.layout, g.edge, g.vec,
                     g.depth, r[i].reason);
        cr_assert(r[i].verified);
        cr_assert_gt(r[i].occ.api, 0);
        /* one full wave of the blocks the probe saw resident, the API's count where the two agree */
        cr_assert_eq(r[i].grid_measured, r[i].occ.measured > 0 && r[i].occ.measured != r[i].occ.api);
        cr_assert_eq(r[i].grid,
                     (unsigned)dev.sm_count * (unsigned)(r[i].grid_measured ? r[i].occ.measured : r[i].occ.api),
                     "one full wave: %u blocks, %d resident by the API, %d measured", r[i].grid, r[i].occ.api,
                     r[i].occ.measured);
        cr_assert_eq(r[i].dyn_smem, (size_t)g.depth * smem_transpose_slot_bytes(g.layout, g.edge));
        cr_assert_eq(r[i].optin, (int64_t)r[i].dyn_smem > dev.smem_per_block);
        cr_assert_float_eq(metric(&r[i], "load_wavefronts"), g.layout == SMEM_TRANSPOSE_ROW_MAJOR ? 32.0 / g.vec : 1,
                           1e-12);
        cr_assert_null(smem_result_metric(&r[i], "store_wavefronts"));
    }
    smem_results_free(r, n);
    free(r);
}

Test(scratchpad, a_block_of_two_or_four_tiles_verifies_at_every_layout_and_geometry)
{
    /* Blocks that move 2 or 4 tiles, the next one's loads in registers while the current one is written:
     * every element checked at 1 MiB (64 or 256 tiles, 16 to 128 blocks) and 64 MiB; a block per
     * block_tiles tiles; the plan's registers give the API's occupancy (the calculator agrees); the
     * shared-memory model as at one tile (the same addresses); all of them at least as fast as one tile
     * a block less 15 % at 64 MiB (a lost tile would show as a verify failure, not as speed). */
    struct smem_override o[] = { { "mib", "1,64" }, { "edge_elems", "32,64" }, { "width_bytes", "4,8,16" },
                                 { "block_tiles", "1,2,4" }, { "resident_blocks", "0" } };
    struct smem_plan_request req = { .bench = "transpose", .overrides = o, .n_overrides = 5 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    cr_assert_eq(n, 108);
    for (size_t i = 0; i < n; i++) {
        struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(r[i].point);
        unsigned tiles = (unsigned)(smem_transpose_edge(smem_axis_value(r[i].point, "mib")) / g.edge);
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "layout %d edge %d vec %d block_tiles %d: %s", g.layout, g.edge,
                     g.vec, g.block_tiles, r[i].reason);
        cr_assert(r[i].verified);
        cr_assert_eq(r[i].grid, tiles * tiles / (unsigned)g.block_tiles);
        cr_assert_eq(r[i].occ.api, r[i].occ.predicted, "layout %d edge %d vec %d block_tiles %d: the API says %d "
                     "blocks per SM, the calculator %d", g.layout, g.edge, g.vec, g.block_tiles, r[i].occ.api,
                     r[i].occ.predicted);
        cr_assert_float_eq(metric(&r[i], "load_wavefronts"), g.layout == SMEM_TRANSPOSE_ROW_MAJOR ? 32.0 / g.vec : 1,
                           1e-12);
        cr_assert_float_eq(metric(&r[i], "store_wavefronts"), smem_transpose_wavefronts(&g, true), 1e-12);
        if (g.block_tiles == 1 || smem_axis_value(r[i].point, "mib") != 64)
            continue;
        for (size_t k = 0; k < n; k++) {     /* the one-tile block at this geometry */
            struct smem_transpose_geom o1 = SMEM_TRANSPOSE_GEOM(r[k].point);
            if (o1.block_tiles == 1 && o1.layout == g.layout && o1.edge == g.edge && o1.vec == g.vec &&
                smem_axis_value(r[k].point, "mib") == 64)
                cr_assert_lt(r[i].time_ns.median, 1.15 * r[k].time_ns.median, "layout %d edge %d vec %d: %d tiles "
                             "%.1f us, one tile %.1f us", g.layout, g.edge, g.vec, g.block_tiles,
                             r[i].time_ns.median / 1e3, r[k].time_ns.median / 1e3);
        }
    }
    smem_results_free(r, n);
    free(r);
}

Test(scratchpad, three_resident_blocks_are_what_the_hint_configures_and_the_probe_measures)
{
    /* resident_blocks 3: the carveout hint the plan chose configures every SM for exactly three blocks
     * of the 64-float tile (a 16 KiB tile and the reservation, 64 KiB of 228 on the H200): the
     * occupancy API, the calculator and the measured residency say 3, the driver's configuration
     * is the step the plan asked for, and every transpose verifies; without the hint registers and
     * warps decide (3 to 8), as the plan's register counts predict. */
    struct smem_override o[] = { { "mib", "64" }, { "width_bytes", "8,16" }, { "block_tiles", "1,2" },
                                 { "resident_blocks", "0,3" } };
    struct smem_plan_request req = { .bench = "transpose", .overrides = o, .n_overrides = 4 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);
    int64_t config = 0;

    cr_assert_eq(n, 24);
    if (smem_transpose_resident_carveout(&dev, 3, 64 * 64 * 4, &config) < 0) {
        for (size_t i = 0; i < n; i++)
            if (smem_axis_value(r[i].point, "resident_blocks") == 3)
                cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "%s", r[i].reason);
        smem_results_free(r, n);
        free(r);
        return;   /* no configuration of this device holds exactly three */
    }
    for (size_t i = 0; i < n; i++) {
        struct smem_transpose_geom g = SMEM_TRANSPOSE_GEOM(r[i].point);
        int resident = (int)smem_axis_value(r[i].point, "resident_blocks");
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "layout %d vec %d tiles %d resident %d: %s", g.layout, g.vec,
                     g.block_tiles, resident, r[i].reason);
        cr_assert(r[i].verified);
        if (resident == 0) {   /* registers and warps decide: 8 (float4), 6 (float2), 4 and 3 with two tiles */
            cr_assert_eq(r[i].occ.api, r[i].occ.predicted, "layout %d vec %d tiles %d", g.layout, g.vec,
                         g.block_tiles);
            cr_assert_geq(r[i].occ.api, 3);
            continue;
        }
        cr_assert_eq(r[i].occ.api, 3, "layout %d vec %d tiles %d", g.layout, g.vec, g.block_tiles);
        cr_assert_eq(r[i].occ.predicted, 3);
        /* the residency probe runs a variant of at least the kernel's registers (occ.probe_regs): where
         * its registers allow three blocks, it finds three; 80 (float2, two tiles) rounds up past that */
        if (3 * r[i].occ.probe_regs * (int)r[i].block <= dev.regs_per_sm)
            cr_assert_eq(r[i].occ.measured, 3, "layout %d vec %d tiles %d: the probe (%d registers) found %d resident",
                         g.layout, g.vec, g.block_tiles, r[i].occ.probe_regs, r[i].occ.measured);
        else
            cr_assert_leq(r[i].occ.measured, 3);
        cr_assert_eq(r[i].occ.smem_config_requested, config);
    }
    smem_results_free(r, n);
    free(r);
}

Test(scratchpad, the_tile_copy_moves_every_tile_untransposed_and_stays_under_the_copy)
{
    /* The transposes' ceiling beside the copy of the same bytes, in one run: every geometry with a kernel
     * verifies (a move, so exact), the others are skipped with the reason, none beats the plain copy
     * beyond the noise, and 4 KiB a block moves at least what 16 KiB do (a block covering more memory
     * costs: 1.3 points on the H200 at 256 MiB, docs/sweeps/tile.md). */
    struct smem_override o[] = { { "mib", "64,256" }, { "edge_elems", "32,64,128" }, { "block_kib", "4,8,16" } };
    struct smem_plan_request tc = { .bench = "tile_copy", .overrides = o, .n_overrides = 3 };
    struct smem_plan_request cp = { .bench = "copy", .overrides = o, .n_overrides = 1 };
    struct smem_point *p, *q;
    size_t n, m;
    const struct smem_result *k4 = NULL, *k16 = NULL;
    size_t ok = 0;

    cr_assert_eq(smem_sweep_expand(&tc, &p, &n, &dev), 0);
    cr_assert_eq(smem_sweep_expand(&cp, &q, &m, &dev), 0);
    cr_assert_eq(n, 18);
    cr_assert_eq(m, 2);
    p = realloc(p, (n + m) * sizeof(*p));
    memcpy(p + n, q, m * sizeof(*q));
    free(q);
    n += m;
    struct smem_result *r = measure(p, n, false);   /* the copy in the same run: pct_of_copy */
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].point->bench->name, "tile_copy"))
            continue;
        int64_t edge = smem_axis_value(r[i].point, "edge_elems"), kib = smem_axis_value(r[i].point, "block_kib");
        if (kib * 1024 > edge * edge * 4) {
            cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "edge %lld, %lld KiB", (long long)edge, (long long)kib);
            cr_assert(strstr(r[i].reason, "block_kib"), "%s", r[i].reason);
            continue;
        }
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "edge %lld, %lld KiB: %s", (long long)edge, (long long)kib,
                     r[i].reason);
        cr_assert(r[i].verified);
        cr_assert_gt(metric(&r[i], "pct_of_copy"), 50);
        cr_assert_lt(metric(&r[i], "pct_of_copy"), 103, "edge %lld, %lld KiB beats the plain copy",
                     (long long)edge, (long long)kib);
        ok++;
        if (edge == 64 && smem_axis_value(r[i].point, "mib") == 256 && kib == 4)
            k4 = &r[i];
        if (edge == 64 && smem_axis_value(r[i].point, "mib") == 256 && kib == 16)
            k16 = &r[i];
    }
    cr_assert_eq(ok, 14);
    cr_assert(k4 && k16);
    cr_assert_geq(metric(k4, "pct_of_copy"), metric(k16, "pct_of_copy") - 0.5, "4 KiB a block %.2f %%, 16 KiB %.2f %%",
                  metric(k4, "pct_of_copy"), metric(k16, "pct_of_copy"));
    smem_results_free(r, n);
    free(r);
    free(p);
}

Test(scratchpad, reductions_are_exact_and_near_the_copy)
{
    const char *sw[] = { "reduction" };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1 };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s: %s", r[i].point->bench->name, r[i].reason);
        if (!strcmp(r[i].point->bench->name, "reduction"))
            cr_assert_gt(metric(&r[i], "pct_of_copy"), 50, "method %lld",
                         (long long)smem_axis_value(r[i].point, "method"));
    }
    smem_results_free(r, n);
    free(r);
}

Test(scratchpad, cold_mode_runs_and_is_never_faster)
{
    /* --cold writes twice the L2 before every sample. Whether the warm run then gains from L2 depends
     * on what stays resident (on the H200, 16 MiB transposes measured 11.5 us warm and 13.1 us cold
     * in one run and 13.2 us both in another), so the test asks only what must hold: every cold
     * point runs and verifies, and none is faster than its warm twin beyond the noise. */
    struct smem_override o[] = { { "mib", "16" } };
    struct smem_plan_request req = { .bench = "transpose", .overrides = o, .n_overrides = 1 };
    size_t n;
    struct smem_result *warm, *cold;

    warm = run(&req, &n, false);
    cold_mode = true;
    cold = run(&req, &n, false);
    cold_mode = false;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(cold[i].status, SMEM_POINT_OK, "%s", cold[i].reason);
        cr_assert(cold[i].verified);
        cr_assert_geq(cold[i].time_ns.median, 0.95 * warm[i].time_ns.median, "layout %lld: cold %.1f us, warm %.1f us",
                      (long long)smem_axis_value(cold[i].point, "layout"), cold[i].time_ns.median / 1e3, warm[i].time_ns.median / 1e3);
        cr_assert_eq(cold[i].batch, 1, "cold: one launch per sample, the flush before it");
        if (warm[i].time_ns.median < SMEM_BATCH_TARGET_NS / 2)
            cr_assert_gt(warm[i].batch, 1, "warm: a %.1f us launch is batched", warm[i].time_ns.median / 1e3);
    }
    smem_results_free(warm, n);
    smem_results_free(cold, n);
    free(warm);
    free(cold);
}

TestSuite(measure, .init = open_device);

Test(measure, short_kernels_are_batched_to_the_target_and_settle)
{
    /* The uninit kernels take about 13-20 us; one launch per sample scattered them by 11-12 % (IQR
     * over the median) on the H200. A sample of about 1 ms of back-to-back launches must bring the
     * robust spread under 2 % where the kernel's own work does not vary, the batch must be the fewest launches that reach the target, and every
     * sample still has its SM clock. */
    struct smem_plan_request req = { .bench = "uninit" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        double t = r[i].time_ns.median;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_gt(r[i].batch, 1, "%.1f us per launch", t / 1e3);
        cr_assert_geq((double)r[i].batch * t, 0.8 * SMEM_BATCH_TARGET_NS, "batch %zu x %.1f us", r[i].batch, t / 1e3);
        cr_assert_lt((double)(r[i].batch - 1) * t, 1.25 * SMEM_BATCH_TARGET_NS, "batch %zu x %.1f us", r[i].batch,
                     t / 1e3);
        /* At 16 KiB, 8 blocks of fill and peek are resident per SM and the two kernels' blocks
         * overlap differently from launch to launch (which is what the benchmark shows: 74 % of the
         * words stale, not 100 %); the H200 spread 11.3-14.8 us per launch over 1 ms batches, a
         * robust spread near 6 %: the point's time is not its result. At 48 and 96 KiB one kernel's
         * blocks fill the SM and the batches settle under 0.5 %. */
        if (smem_axis_value(r[i].point, "dyn_smem_bytes") > 16 * 1024)
            cr_assert_lt(r[i].time_ns.robust_spread, 0.02, "robust spread %.2f %%", 100 * r[i].time_ns.robust_spread);
        cr_assert_gt(r[i].clock_mhz, 200, "the SM clock of a batched sample");
    }
    smem_results_free(r, n);
    free(r);
}

Test(measure, every_phase_of_a_point_is_timed)
{
    /* where the time goes (docs/measurement.md): each phase of a timed point is there, and they fit in the point */
    struct smem_plan_request req = { .bench = "copy" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        const struct smem_phase_times *p = &r[i].phase_s;
        double sum = p->setup + p->verify + p->warmup + p->sampling + p->residency + p->teardown;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert(p->setup > 0 && p->verify > 0 && p->warmup > 0 && p->sampling > 0 && p->teardown >= 0);
        /* sampling: at least the minimum samples of about SMEM_BATCH_TARGET_NS each */
        cr_assert_geq(p->sampling, 10 * 0.5 * SMEM_BATCH_TARGET_NS * 1e-9, "%.4f s", p->sampling);
        cr_assert_leq(sum, r[i].wall_s * 1.001 + 1e-6, "phases %.4f s in a point of %.4f s", sum, r[i].wall_s);
    }
    smem_results_free(r, n);
    free(r);
}

Test(measure, later_trials_take_the_first_trials_batch_and_pool_every_sample)
{
    /* Trials (src/stats.h): the first trial finds the batch, the later ones warm up with one batch of
     * it and sample; the point's samples are every trial's, and its median the pooled one. */
    struct smem_plan_request req = { .bench = "bank" };
    struct smem_point *p;
    size_t n;
    struct smem_run_outcome out;
    struct smem_run_settings s = {
        .rule = { .min_samples = 10, .max_samples = 200, .max_noise = 0.005, .timeout_s = 0.5 },
        .seed = 1, .trials = 3, .order_seed = 11,
    };
    struct smem_result *r;

    cr_assert_eq(smem_sweep_expand(&req, &p, &n, &dev), 0);
    n = n < 6 ? n : 6;
    r = calloc(n, sizeof(*r));
    cr_assert_eq(smem_run_measure(&dev, p, n, &s, r, &out), 0);
    cr_assert_eq(out.done, n);
    for (size_t i = 0; i < n; i++) {
        size_t samples = 0;
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert_eq(r[i].n_trials, 3);
        for (size_t k = 0; k < r[i].n_trials; k++) {
            cr_assert_eq(r[i].trials[k].batch, r[i].trials[0].batch, "trial %zu: batch %zu, the first's %zu", k,
                         r[i].trials[k].batch, r[i].trials[0].batch);
            cr_assert_geq(r[i].trials[k].samples, 4, "ceil(10 / 3) samples a trial at least");
            samples += r[i].trials[k].samples;
        }
        cr_assert_eq(r[i].n_samples, samples);
        cr_assert_eq(r[i].time_ns.count, samples);
    }
    smem_results_free(r, n);
    free(r);
}

TestSuite(inputs, .init = open_device);

Test(inputs, drawn_on_the_gpu_value_for_value_and_shared_between_points)
{
    const size_t n = (size_t)1 << 22;
    void *d1, *h1, *d2, *h2, *d3, *h3, *dw, *hw, *di, *hi;
    uint64_t state = 5;
    struct smem_gpu_inputs *in = smem_gpu_inputs_create();

    cr_assert(in);
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_FLOATS, 5, &d1, &h1), 0);
    for (size_t i = 0; i < n; i++) {
        float want = smem_rng_float(&state);
        cr_assert_eq(memcmp(&((float *)h1)[i], &want, 4), 0, "value %zu: %g, the host stream %g", i,
                     (double)((float *)h1)[i], (double)want);
    }
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_WORDS, 5, &dw, &hw), 0);
    cr_assert_eq(((uint32_t *)hw)[0], (uint32_t)smem_rng_at(5, 0));
    cr_assert_eq(((uint32_t *)hw)[n - 1], (uint32_t)smem_rng_at(5, n - 1));
    /* the reduction's whole numbers in -4..3: the draw mod 8, less 4 */
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_SMALL_INTS, 5, &di, &hi), 0);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(((float *)hi)[i], (float)((int)(smem_rng_at(5, i) % 8) - 4), "value %zu: %g", i,
                     (double)((float *)hi)[i]);
    /* the next point asking for the same input gets the same buffers, without a draw */
    smem_gpu_input_release(in, d1, h1);
    smem_gpu_inputs_next_point(in);
    cr_assert_eq(smem_gpu_random(in, n, SMEM_FILL_FLOATS, 5, &d2, &h2), 0);
    cr_assert(d2 == d1 && h2 == h1, "a second copy of a kept input");
    /* a private copy is another buffer of the same values, and the device holds them too */
    cr_assert_eq(smem_gpu_random_private(n, SMEM_FILL_FLOATS, 5, &d3, &h3), 0);
    cr_assert(d3 != d1 && h3 != h1);
    cr_assert_eq(memset(h3, 0, n * 4), h3);
    cr_assert_eq(cudaMemcpy(h3, d3, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(memcmp(h3, h1, n * 4), 0);
    smem_gpu_input_release(in, d3, h3);
    smem_gpu_input_release(in, d2, h2);
    smem_gpu_input_release(in, dw, hw);
    smem_gpu_input_release(in, di, hi);
    smem_gpu_inputs_destroy(in, true);
}

Test(scratchpad, uninitialized_contents_are_counted_exactly)
{
    struct smem_plan_request req = { .bench = "uninit" };
    size_t n;
    struct smem_result *r = run(&req, &n, false);

    for (size_t i = 0; i < n; i++) {
        double stale = metric(&r[i], "stale_pct");
        cr_assert_eq(r[i].status, SMEM_POINT_OK, "%s", r[i].reason);
        cr_assert(r[i].verified, "the device's count matches the host's count of the dump");
        cr_assert(stale >= 0 && stale <= 100, "%.2f %%", stale);
    }
    smem_results_free(r, n);
    free(r);
}

int main(int argc, char **argv)
{
    struct criterion_test_set *tests;
    int ok;

    if (getenv("SMEM_SANITIZER")) {
        /* timing loops under a sanitizer measure the sanitizer; the smoke test covers every kernel */
        printf("1..0 # SKIP timing tests under %s measure the sanitizer; the smoke test runs every kernel there\n",
               getenv("SMEM_SANITIZER"));
        return 77;
    }
    if (!device_present()) {
        printf("1..0 # SKIP no CUDA device\n");
        return 77;
    }
    criterion_options.jobs = 1;
    tests = criterion_initialize();
    ok = criterion_handle_args(argc, argv, true) ? criterion_run_all_tests(tests) : 0;
    criterion_finalize(tests);
    return ok ? 0 : 1;
}
