/* The cluster benchmarks' host logic without a GPU (dsm_latency, dsm_bandwidth, cluster_sync,
 * cluster_occupancy): which points a device or a model can run and why not, the launch geometry
 * their plans promise, and the cluster residency count. Expected values are worked out by hand in
 * the comments beside them. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cluster_family.h"
#include "common.h"
#include "dsm_bandwidth_launch.h"
#include "gpus.h"
#include "smem.h"
#include "unit_test.h"

/* A model as if it were the real device: cluster points need one. */
static struct smem_device real(const char *model)
{
    struct smem_device d = smem_gpu_find(model)->dev;

    d.is_model = false;
    d.ordinal = 0;
    return d;
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
