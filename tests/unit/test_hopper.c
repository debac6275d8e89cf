/* The Hopper benchmarks' host logic without a GPU: which points a device or a model can run and why
 * not, the launch geometry their plans promise, the cluster residency count, and the staging hash.
 * Expected values are worked out by hand in the comments beside them. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cluster_family.h"
#include "common.h"
#include "dsm_bandwidth.h"
#include "gpus.h"
#include "runner.h"
#include "smem.h"
#include "staging_family.h"
#include "sweep.h"

/* A model as if it were the real device: cluster points need one. */
static struct smem_device real(const char *model)
{
    struct smem_device d = smem_gpu_find(model)->dev;

    d.is_model = false;
    d.ordinal = 0;
    return d;
}

/* Plans the point of bench with values (in its axis order) on dev; the status, the plan and the reason. */
static int plan(const char *bench, const int64_t *v, const struct smem_device *dev, struct smem_plan *p, char *why)
{
    struct smem_point pt = { .bench = smem_bench_find(bench) };

    cr_assert_not_null(pt.bench, "benchmark %s is registered", bench);
    memcpy(pt.values, v, pt.bench->n_axes * sizeof(*v));
    memset(p, 0, sizeof(*p));
    p->carveout_pct = -1;
    why[0] = '\0';
    return pt.bench->plan(&pt, dev, p, why, 256);
}

/* Predicts the points of a sweep on a model; the results (n of them), points kept in *pts. */
static struct smem_result *predict(const char *sweep, const char *model, struct smem_point **pts, size_t *n)
{
    const char *sw[] = { sweep };
    struct smem_plan_request req = { .sweeps = sw, .n_sweeps = 1, .predict = true };
    const struct smem_device *dev = &smem_gpu_find(model)->dev;
    struct smem_run_settings s = { .no_optin = false };
    struct smem_run_outcome out;
    struct smem_result *r;

    cr_assert_eq(smem_sweep_expand(&req, pts, n, dev), 0, "%s predicts on %s", sweep, model);
    cr_assert_gt(*n, 0);
    r = calloc(*n, sizeof(*r));
    cr_assert_eq(smem_run_predict(dev, *pts, *n, &s, r, &out), 0);
    cr_assert_eq(out.done, *n);
    return r;
}

Test(cluster_plan, older_than_hopper_every_point_is_skipped_with_the_reason)
{
    const char *models[] = { "t4", "a100", "rtx4090" }, *cc[] = { "is 7.5", "is 8.0", "is 8.9" };

    for (size_t m = 0; m < 3; m++) {
        struct smem_point *p;
        size_t n;
        struct smem_result *r = predict("cluster", models[m], &p, &n);
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "%s on %s", p[i].bench->name, models[m]);
            cr_assert(strstr(r[i].reason, "needs compute capability 9.0") && strstr(r[i].reason, cc[m]) &&
                      (strstr(r[i].reason, "clusters") || strstr(r[i].reason, "distributed shared memory")),
                      "%s", r[i].reason);
        }
        free(r);
        free(p);
    }
}

Test(cluster_plan, a_hopper_model_skips_every_point_the_calculator_has_no_clusters)
{
    struct smem_point *p;
    size_t n, calculator = 0;
    struct smem_result *r = predict("cluster", "h200", &p, &n);

    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "%s: never predicted", p[i].bench->name);
        calculator += strstr(r[i].reason, "occupancy calculator has no thread block clusters") != NULL;
    }
    cr_assert_eq(calculator, n, "the same reason for every point on a model");
    free(r);
    free(p);
}

Test(cluster_plan, one_cluster_of_one_block_per_sm_for_the_latency)
{
    const int64_t v[] = { 16, SMEM_DSM_REMOTE, 1024 };
    struct smem_device h100 = real("h100");
    struct smem_plan p;
    char why[256];

    cr_assert_eq(plan("dsm_latency", v, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.cluster, 16);
    cr_assert_eq(p.grid, 16, "one cluster");
    /* 227 KiB of the SM's 228: a second block cannot fit, so rank 15 is on another SM */
    cr_assert_eq(p.dyn_smem, 227 * 1024);
    cr_assert_gt(2 * (p.dyn_smem + (size_t)h100.reserved_smem_per_block), (size_t)h100.smem_per_sm);
    cr_assert(p.optin, "above 48 KiB: opted in");
}

Test(cluster_plan, remote_needs_a_second_block)
{
    const int64_t remote1[] = { 1, SMEM_DSM_REMOTE, 16 }, self1[] = { 1, SMEM_DSM_SELF, 16 };
    struct smem_device h100 = real("h100");
    struct smem_plan p;
    char why[256];

    cr_assert_eq(plan("dsm_bandwidth", remote1, &h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "no other block"), "%s", why);
    cr_assert_eq(plan("dsm_bandwidth", self1, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 0, "as many clusters as fit: the driver asks cudaOccupancyMaxActiveClusters");
    cr_assert_eq(p.block, 1024);
}

Test(cluster_plan, remote_patterns_need_their_blocks)
{
    const int64_t oneway2[] = { 2, SMEM_DSM_BW_ONEWAY, 4 }, oneway1[] = { 1, SMEM_DSM_BW_ONEWAY, 4 },
                  fanin2[] = { 2, SMEM_DSM_BW_FANIN, 4 }, fanin4[] = { 4, SMEM_DSM_BW_FANIN, 16 },
                  chain1[] = { 1, SMEM_DSM_BW_CHAIN, 4 }, chain2[] = { 2, SMEM_DSM_BW_CHAIN, 8 };
    struct smem_device h100 = real("h100");
    struct smem_plan p;
    char why[256];

    cr_assert_eq(plan("dsm_bandwidth", oneway2, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.variant, SMEM_DSM_BW_ONEWAY);
    cr_assert_eq(plan("dsm_bandwidth", oneway1, &h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "no other block"), "%s", why);
    cr_assert_eq(plan("dsm_bandwidth", fanin2, &h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "at cluster_size 2 it is path=3"), "%s", why);
    cr_assert_eq(plan("dsm_bandwidth", fanin4, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(plan("dsm_bandwidth", chain1, &h100, &p, why), SMEM_ESKIP);
    cr_assert_eq(plan("dsm_bandwidth", chain2, &h100, &p, why), SMEM_OK, "%s", why);
}

Test(cluster_plan, who_reads_whom)
{
    /* the ring: rank r reads r + 1, the last wraps to 0 */
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_REMOTE, 3, 4, 0), 0);
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_CHAIN, 1, 4, 5), 2);
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_SELF, 2, 4, 7), 2);
    /* one-way: even ranks read their odd neighbour, which reads nothing */
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_ONEWAY, 2, 4, 0), 3);
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_ONEWAY, 3, 4, 0), -1);
    /* fan-in at 4: rank 0's loads 0..7 go to 1, 2, 3, 1, 2, 3, 1, 2; the others read nothing */
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_FANIN, 0, 4, 0), 1);
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_FANIN, 0, 4, 5), 3);
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_FANIN, 0, 4, 7), 2);
    cr_assert_eq(smem_dsm_bw_target(SMEM_DSM_BW_FANIN, 1, 4, 0), -1);
    /* the chain steps a block's width: 1024 x 4 bytes from 4092 is 8188, from 32764 wraps to 4092 */
    cr_assert_eq(smem_dsm_bw_next(4092, 4), 8188);
    cr_assert_eq(smem_dsm_bw_next(32764, 4), 4092);
    cr_assert_eq(smem_dsm_bw_next(16384, 16), 0, "16 KiB steps: a turn of two elements");
}

Test(cluster_plan, sync_takes_whole_warps)
{
    const int64_t odd[] = { 2, 48 }, warps[] = { 2, 64 };
    struct smem_device h100 = real("h100");
    struct smem_plan p;
    char why[256];

    cr_assert_eq(plan("cluster_sync", odd, &h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "not a whole number of warps"), "%s", why);
    cr_assert_eq(plan("cluster_sync", warps, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.block, 64);
    cr_assert_eq(p.grid, 2);
}

Test(cluster_plan, occupancy_probe_launches_more_clusters_than_can_fit)
{
    struct smem_device h100 = real("h100");
    const int64_t none[] = { 1, 0 }, big[] = { 16, 200 * 1024 }, over[] = { 2, 228 * 1024 };
    struct smem_plan p;
    char why[256];

    /* 128 threads: 2048 / 128 = 16 blocks per SM (under the 32-block limit), 132 SMs: 2112, two more */
    cr_assert_eq(plan("cluster_occupancy", none, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 2114);
    cr_assert_eq(p.dyn_smem, 0, "the probe's footprint is the axis, not the one-block-per-SM allocation");
    /* 200 KiB + 1 KiB: one block per SM; ceil(132 / 16) = 9 clusters, two more = 11 clusters of 16 */
    cr_assert_eq(plan("cluster_occupancy", big, &h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.grid, 11 * 16);
    cr_assert(p.optin);
    cr_assert_eq(plan("cluster_occupancy", over, &h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "opt-in ceiling"), "%s", why);
}

static struct smem_cluster_record rec(uint32_t cluster, uint32_t rank, uint32_t n, unsigned long long start,
                                      unsigned long long end)
{
    return (struct smem_cluster_record){ .smid = rank, .cluster = cluster, .rank = rank, .nranks = n,
                                         .start = start, .end = end };
}

Test(cluster_resident, counts_the_clusters_running_at_one_instant)
{
    /* clusters 0 and 1 run together over [15, 90); cluster 2 starts when cluster 0 has ended */
    struct smem_cluster_record r[] = {
        rec(0, 0, 2, 10, 100), rec(0, 1, 2, 12, 90),
        rec(1, 0, 2, 15, 120), rec(1, 1, 2, 11, 130),
        rec(2, 0, 2, 100, 200), rec(2, 1, 2, 90, 210),
    };
    char why[256] = "";
    int n = -1;

    cr_assert_eq(smem_cluster_resident(r, 6, 2, true, &n, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(n, 2);
}

Test(cluster_resident, a_cluster_is_resident_only_while_all_its_blocks_run)
{
    /* cluster 0's first block ends at 50, before cluster 1's last block starts (50): never 2 at once */
    struct smem_cluster_record r[] = {
        rec(0, 0, 2, 0, 50), rec(0, 1, 2, 0, 100),
        rec(1, 0, 2, 50, 150), rec(1, 1, 2, 10, 150),
    };
    char why[256] = "";
    int n = -1;

    cr_assert_eq(smem_cluster_resident(r, 4, 2, true, &n, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(n, 1);
}

Test(cluster_resident, rejects_wrong_records)
{
    struct smem_cluster_record misplaced[] = { rec(0, 1, 2, 0, 10), rec(0, 0, 2, 0, 10) };
    struct smem_cluster_record apart[] = { rec(0, 0, 2, 0, 10), rec(0, 1, 2, 10, 20) };
    struct smem_cluster_record poisoned[] = { rec(0, 0, 2, 0, 10), rec(0, 1, 2, 0, 10) };
    char why[256];
    int n;

    cr_assert_eq(smem_cluster_resident(misplaced, 2, 2, true, &n, why, sizeof(why)), SMEM_EVERIFY);
    cr_assert(strstr(why, "block 0 recorded cluster 0 rank 1"), "%s", why);
    cr_assert_eq(smem_cluster_resident(apart, 2, 2, true, &n, why, sizeof(why)), SMEM_EVERIFY);
    cr_assert(strstr(why, "never all ran at once"), "%s", why);
    /* under --check (a sanitizer may run a cluster's blocks one after another) only identities count */
    cr_assert_eq(smem_cluster_resident(apart, 2, 2, false, &n, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(n, 0);
    cr_assert_eq(smem_cluster_resident(misplaced, 2, 2, false, &n, why, sizeof(why)), SMEM_EVERIFY);
    memset(&poisoned[1], 0xff, sizeof(poisoned[1]));   /* a block that never wrote its record */
    cr_assert_eq(smem_cluster_resident(poisoned, 2, 2, true, &n, why, sizeof(why)), SMEM_EVERIFY);
    cr_assert_eq(smem_cluster_resident(misplaced, 2, 3, true, &n, why, sizeof(why)), SMEM_EVERIFY, "not whole clusters");
}

Test(staging_plan, each_method_needs_its_generation)
{
    /* predicted where the hardware is there, skipped with the reason where not */
    const struct { const char *model, *plain, *cp_async, *bulk; } want[] = {
        { "t4", NULL, "needs compute capability 8.0 or later (cp.async); NVIDIA T4 (model) is 7.5",
          "needs compute capability 9.0 or later (cp.async.bulk" },
        { "a100", NULL, NULL, "is 8.0" },
        { "h200", NULL, NULL, NULL },
        { "rtx5090", NULL, NULL, NULL },   /* 12.0 is newer than 9.0 */
    };

    for (size_t m = 0; m < SMEM_ARRAY_LEN(want); m++) {
        struct smem_point *p;
        size_t n;
        struct smem_result *r = predict("staging", want[m].model, &p, &n);
        for (size_t i = 0; i < n; i++) {
            const char *name = p[i].bench->name;
            const char *why = !strcmp(name, "staging_cp_async") ? want[m].cp_async
                              : !strcmp(name, "staging_bulk")   ? want[m].bulk
                              : !strcmp(name, "staging_plain")  ? want[m].plain : NULL;
            if (why) {
                cr_assert_eq(r[i].status, SMEM_POINT_SKIPPED, "%s on %s", name, want[m].model);
                cr_assert(strstr(r[i].reason, why), "%s", r[i].reason);
            } else {
                cr_assert_eq(r[i].status, SMEM_POINT_PREDICTED, "%s on %s: %s", name, want[m].model, r[i].reason);
                cr_assert_gt(r[i].occ.predicted, 0);
            }
        }
        free(r);
        free(p);
    }
}

Test(staging_plan, rejects_what_cannot_be_moved)
{
    const int64_t odd[] = { 4, 1000, 256 }, huge[] = { 16, 228 * 1024, 256 };
    const struct smem_device *h100 = &smem_gpu_find("h100")->dev;
    struct smem_plan p;
    char why[256];

    cr_assert_eq(plan("staging_cp_async", odd, h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "not a multiple of 16"), "%s", why);
    cr_assert_eq(plan("staging_plain", huge, h100, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "opt-in ceiling of 232448 bytes"), "%s", why);
}

Test(staging_plan, a_bulk_tile_at_the_ceiling_is_refused_for_its_barriers)
{
    const int64_t at_ceiling[] = { 232448, 256 }, over[] = { 232464, 256 };
    const struct smem_device *h200 = &smem_gpu_find("h200")->dev;
    struct smem_plan p;
    char why[256];

    /* the tile alone fits the 232448 bytes: what does not is the 128 bytes of mbarriers beside it */
    cr_assert_eq(plan("staging_bulk", at_ceiling, h200, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "a 232448-byte tile and the bulk copy's 128 bytes of mbarriers (232576 bytes) exceed the "
                          "opt-in ceiling of 232448 bytes"), "%s", why);
    cr_assert_eq(plan("staging_bulk", over, h200, &p, why), SMEM_ESKIP);
    cr_assert(strstr(why, "a 232464-byte tile exceeds the opt-in ceiling of 232448 bytes"), "%s", why);
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

Test(staging_plan, stages_fill_the_opt_in_ceiling_at_most_eight_deep)
{
    const struct smem_device *h100 = &smem_gpu_find("h100")->dev;
    const int64_t cp8k[] = { 16, 8192, 256 }, bulk_max[] = { 232320, 256 };
    struct smem_plan p;
    char why[256];

    cr_assert_eq(smem_staging_stages(SMEM_STAGING_PLAIN, 8192, h100), 1, "plain loads are synchronous");
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_CP_ASYNC, 8192, h100), 4);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 16 * 1024, h100), 4, "64 KiB a block: three blocks per SM");
    /* two blocks of four: 2 x (4 x 28800 + 128 + 1024) = 232704 <= 233472 fits; at 28928, 233728 does
     * not, so the pipeline deepens: (232448 - 128) / 28928 = 8 */
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 28800, h100), 4);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 28928, h100), 8);
    /* 227 KiB / 32 KiB = 7: a 32 KiB tile keeps one block per SM with six copies in flight */
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 32 * 1024, h100), 7);
    /* 227 KiB / 100 KiB = 2; the bulk kernel's barriers (128 bytes, padded) leave 232320 for the largest */
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 100 * 1024, h100), 2);
    cr_assert_eq(smem_staging_max_tile(h100), 232320);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 232320, h100), 1);
    cr_assert_eq(smem_staging_stages(SMEM_STAGING_BULK, 232336, h100), 0);
    cr_assert_eq(plan("staging_cp_async", cp8k, h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem, 4 * 8192);
    cr_assert_eq(p.grid, 0, "a full wave");
    cr_assert_eq(p.work, 256 << 20, "the bytes asked for");
    cr_assert_eq(plan("staging_bulk", bulk_max, h100, &p, why), SMEM_OK, "%s", why);
    cr_assert_eq(p.dyn_smem + p.static_smem, 232448, "the largest tile and its barriers fill the opt-in ceiling");
}

Test(staging_plan, default_tiles_run_from_1k_to_the_device_maximum)
{
    const struct smem_bench *b = smem_bench_find("staging_bulk");
    int64_t v[32];
    size_t n;

    cr_assert_not_null(b->device_defaults);
    cr_assert(b->axes[smem_bench_axis(b, "transfer_bytes")].from_device);
    n = b->device_defaults(&smem_gpu_find("h100")->dev, "transfer_bytes", false, NULL, v, 32);
    cr_assert_eq(n, 9, "1, 2, 4 ... 128 KiB and the largest");
    cr_assert_eq(v[0], 1024);
    cr_assert_eq(v[7], 128 * 1024);
    cr_assert_eq(v[8], 232320);
    n = b->device_defaults(&smem_gpu_find("t4")->dev, "transfer_bytes", false, NULL, v, 32);
    cr_assert_eq(v[n - 1], 64 * 1024 - 128, "the T4's 64 KiB less the barriers");
    /* under --quick the quick tiles that fit: 64 KiB does not on the T4 */
    n = b->device_defaults(&smem_gpu_find("t4")->dev, "transfer_bytes", true, NULL, v, 32);
    cr_assert_eq(n, 2);
    cr_assert_eq(v[1], 8 * 1024);
    cr_assert_eq(b->device_defaults(&smem_gpu_find("t4")->dev, "mib", false, NULL, v, 32), 0, "only the tile axis");
}

Test(staging_ref, hashes_each_threads_words_in_order)
{
    /* grid 2, block 2, tiles of 3 words, 2 tiles per block: block b takes tiles b and b + 2.
     * Block 0: tiles {0,1,2} and {6,7,8}; thread 0 folds words 0, 2, 6, 8, thread 1 words 1, 7.
     *   h0 = ((0*33 + 2)*33 + 6)*33 + 8 = 2384; h1 = 1*33 + 7 = 40.
     * Block 1: tiles {3,4,5} and {9,10,11}: h0 = ((3*33 + 5)*33 + 9)*33 + 11 = 113564; h1 = 4*33 + 10 = 142. */
    uint32_t in[12], out[4];

    for (uint32_t i = 0; i < 12; i++)
        in[i] = i;
    smem_staging_ref(in, 3, 2, 2, 2, out);
    cr_assert_eq(out[0], 2384);
    cr_assert_eq(out[1], 40);
    cr_assert_eq(out[2], 113564);
    cr_assert_eq(out[3], 142);
    in[7] = 6, in[6] = 7;   /* two words swapped: thread 0 and 1 of block 0 both see it */
    smem_staging_ref(in, 3, 2, 2, 2, out);
    cr_assert_neq(out[0], 2384);
    cr_assert_neq(out[1], 40);
}

Test(staging_sweep, is_held_against_global_read_on_the_same_data)
{
    const char *names[] = { "staging_plain", "staging_cp_async", "staging_bulk" };
    const struct smem_bench *g = smem_bench_find("global_read");
    const struct smem_sweep *sw = smem_sweep_find("staging");

    cr_assert_not_null(g);
    cr_assert(smem_sweep_has(sw, g));
    cr_assert_geq(smem_bench_axis(g, "mib"), 0);
    for (size_t i = 0; i < 3; i++) {
        const struct smem_bench *s = smem_bench_find(names[i]);
        cr_assert_not_null(s, "%s", names[i]);
        cr_assert_str_eq(s->baseline->bench, "global_read");
        cr_assert_str_eq(s->baseline->metric, "gbytes_per_s");
        cr_assert_geq(smem_bench_axis(s, "mib"), 0, "the baseline point is matched on the data size");
        cr_assert(smem_sweep_has(sw, s), "%s in the staging sweep", names[i]);
    }
    cr_assert_eq(smem_bench_find("staging_cp_async")->min_cc, 80);
    cr_assert_eq(smem_bench_find("staging_bulk")->min_cc, 90);
    cr_assert(smem_sweep_predictable(sw), "occupancy of the staging kernels predicts");
    cr_assert(smem_sweep_predictable(smem_sweep_find("cluster")), "predict mode records the cluster points skipped");
}

Test(chase, one_cycle_through_every_slot)
{
    uint32_t next[64], seen[64] = { 0 }, j = 0;

    cr_assert_eq(smem_chase_cycle(next, 50, 64, 7), SMEM_OK);
    for (int i = 0; i < 50; i++) {
        cr_assert_lt(j, 50);
        cr_assert_eq(seen[j]++, 0, "slot %u visited twice before the cycle closed", j);
        j = next[j];
    }
    cr_assert_eq(j, 0, "back at the start after exactly 50 loads");
    cr_assert_eq(smem_chase_end(next, 50), 0);
    cr_assert_eq(smem_chase_end(next, 1), next[0]);
    for (uint32_t i = 50; i < 64; i++)
        cr_assert_eq(next[i], i, "slots past the cycle point to themselves");
}
