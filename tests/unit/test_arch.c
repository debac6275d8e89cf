/* The per-compute-capability table (core/arch.c) against values worked out by hand from the CUDA
 * C++ Programming Guide (CUDA 13.0 edition: Table 27 "Technical Specifications per Compute
 * Capability" and the "Shared Memory" section of each architecture), against NVIDIA's calculator
 * (cuda_occupancy.h), and against the launch-bound constants the kernels are compiled with. The
 * derivation of every expected number is in the comment beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <cuda_occupancy.h>

#include "arch.h"
#include "arch_limits.cuh"

#define KIB 1024

static const struct smem_published *find_published(const struct smem_published *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return &p[i];
    return NULL;
}

struct expect {
    int major, minor;
    int steps[SMEM_ARCH_MAX_CARVEOUTS];
    int n_steps;
    int per_sm_kib, per_block_kib, reserved, blocks, threads, unified_kib;
};

static void check(const struct expect *e)
{
    const struct smem_arch *a = smem_arch_find(e->major, e->minor);

    cr_assert_not_null(a, "cc %d.%d is in the table", e->major, e->minor);
    cr_assert_eq(a->n_carveouts, e->n_steps, "cc %d.%d: %d carveout steps", e->major, e->minor, e->n_steps);
    for (int i = 0; i < e->n_steps; i++)
        cr_assert_eq(a->carveout_kib[i], e->steps[i], "cc %d.%d step %d", e->major, e->minor, i);
    cr_assert_eq(a->smem_per_sm_kib, e->per_sm_kib);
    cr_assert_eq(a->smem_per_block_optin_kib, e->per_block_kib);
    cr_assert_eq(a->reserved_per_block_bytes, e->reserved);
    cr_assert_eq(a->max_blocks_per_sm, e->blocks);
    cr_assert_eq(a->max_threads_per_sm, e->threads);
    cr_assert_eq(a->unified_kib, e->unified_kib);
}

Test(arch, cc75_turing)
{
    /* 20.6.4: "For the Turing architecture (compute capability 7.5), the unified data cache has a
     * size of 96 KB, and the shared memory capacity can be set to either 32 KB or 64 KB";
     * "devices allow a single thread block to address the full capacity of shared memory: ...
     * 64 KB on Turing": per block = per SM = 64 KB, so 64 - 64 = 0 bytes are reserved.
     * Table 27, column 7.5: 16 resident blocks, 32 warps = 32 x 32 = 1024 threads. */
    check(&(struct expect){ 7, 5, { 32, 64 }, 2, 64, 64, 0, 16, 1024, 96 });
}

Test(arch, cc80_a100)
{
    /* 20.7.3: unified data cache 192 KB for 8.0; capacity "0, 8, 16, 32, 64, 100, 132 or 164 KB";
     * "Devices of compute capability 8.0 ... allow a single thread block to address up to 163 KB":
     * 164 - 163 = 1 KB = 1024 bytes reserved ("The 1 KB ... is reserved for system use").
     * Table 27, column 8.0: 32 blocks, 64 warps x 32 = 2048 threads. */
    check(&(struct expect){ 8, 0, { 0, 8, 16, 32, 64, 100, 132, 164 }, 8, 164, 163, 1024, 32, 2048, 192 });
}

Test(arch, cc86_ga10x)
{
    /* 20.7.3: unified 128 KB for 8.6; capacity "0, 8, 16, 32, 64 or 100 KB"; up to 99 KB per
     * block: 100 - 99 = 1 KB reserved. Table 27, column 8.6: 16 blocks, 48 warps x 32 = 1536. */
    check(&(struct expect){ 8, 6, { 0, 8, 16, 32, 64, 100 }, 6, 100, 99, 1024, 16, 1536, 128 });
}

Test(arch, cc89_ada)
{
    /* 20.7.3 treats 8.9 with 8.6: unified 128 KB, 0..100 KB, 99 KB per block, 1 KB reserved.
     * Table 27, column 8.9: 24 blocks (the one 8.x column with 24), 48 warps x 32 = 1536. */
    check(&(struct expect){ 8, 9, { 0, 8, 16, 32, 64, 100 }, 6, 100, 99, 1024, 24, 1536, 128 });
}

Test(arch, cc90_hopper)
{
    /* 20.8.3: unified 256 KB; capacity "0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB"; up to
     * 227 KB per block: 228 - 227 = 1 KB reserved. Table 27, column 9.0: 32 blocks, 64 warps x 32
     * = 2048 threads. */
    check(&(struct expect){ 9, 0, { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 }, 10, 228, 227, 1024, 32, 2048,
                            256 });
}

Test(arch, cc100_blackwell)
{
    /* 20.9.3: "identical to compute capability 9.0": unified 256 KB, 0..228 KB in the same ten
     * steps, 227 KB per block, 1 KB reserved. Table 27, column 10.0: 32 blocks, 2048 threads. */
    check(&(struct expect){ 10, 0, { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 }, 10, 228, 227, 1024, 32, 2048,
                            256 });
}

Test(arch, cc120_blackwell_geforce)
{
    /* 20.10.3: capacity "0, 8, 16, 32, 64, or 100 KB"; up to 99 KB per block: 1 KB reserved.
     * Table 27, column 12.0: 24 blocks, 48 warps x 32 = 1536 threads. Unified: Table 27's texture
     * working set for 12.0 is "28 KB ~ 128 KB", i.e. 100 KB shared + 28 KB L1 at the largest
     * carveout = 128 KB (20.10.1's "100 KB" is the shared part). */
    check(&(struct expect){ 12, 0, { 0, 8, 16, 32, 64, 100 }, 6, 100, 99, 1024, 24, 1536, 128 });
}

Test(arch, every_entry_is_consistent)
{
    for (size_t i = 0; i < smem_n_archs; i++) {
        const struct smem_arch *a = &smem_archs[i];
        cr_assert_gt(a->n_carveouts, 0);
        for (int k = 1; k < a->n_carveouts; k++)
            cr_assert_lt(a->carveout_kib[k - 1], a->carveout_kib[k], "cc %d.%d steps ascend", a->cc_major,
                         a->cc_minor);
        /* the largest carveout is the per-SM maximum; what a block cannot have is the reservation */
        cr_assert_eq(a->carveout_kib[a->n_carveouts - 1], a->smem_per_sm_kib, "cc %d.%d", a->cc_major, a->cc_minor);
        cr_assert_eq(a->smem_per_block_optin_kib * KIB + a->reserved_per_block_bytes, a->smem_per_sm_kib * KIB);
        cr_assert_geq(a->unified_kib, a->smem_per_sm_kib);
        cr_assert_eq(a->max_threads_per_sm % 32, 0);
        cr_assert(a->src_limits && a->src_limits[0] && a->src_carveouts && a->src_carveouts[0]);
        if (i)
            cr_assert_lt(smem_archs[i - 1].cc_major * 10 + smem_archs[i - 1].cc_minor, a->cc_major * 10 + a->cc_minor);
    }
}

Test(arch, warps_default_and_cluster_sizes_per_cc)
{
    /* Table 27 (and PG13's columns for 10.3, 12.1): resident warps per SM 32 (7.5), 64 (8.0, 9.0,
     * 10.x), 48 (8.6, 8.7, 8.9, 11.0, 12.x); 48 KB per block without the opt-in everywhere. Thread
     * Block Clusters: none before 9.0, a portable 8 from 9.0 on; 16 with the non-portable opt-in on
     * 9.0 (Hopper Tuning Guide), unpublished (0) for the later ones */
    static const struct { int major, minor, warps, portable, max; } want[] = {
        { 7, 5, 32, 0, 0 },   { 8, 0, 64, 0, 0 },   { 8, 6, 48, 0, 0 },   { 8, 7, 48, 0, 0 },
        { 8, 9, 48, 0, 0 },   { 9, 0, 64, 8, 16 },  { 10, 0, 64, 8, 0 },  { 10, 3, 64, 8, 0 },
        { 11, 0, 48, 8, 0 },  { 12, 0, 48, 8, 0 },  { 12, 1, 48, 8, 0 },
    };

    cr_assert_eq(sizeof(want) / sizeof(want[0]), smem_n_archs, "every row of the table is here");
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct smem_arch *a = smem_arch_find(want[i].major, want[i].minor);
        cr_assert_not_null(a);
        cr_assert_eq(a->max_warps_per_sm, want[i].warps, "cc %d.%d warps", want[i].major, want[i].minor);
        cr_assert_eq(a->max_warps_per_sm * 32, a->max_threads_per_sm, "cc %d.%d", want[i].major, want[i].minor);
        cr_assert_eq(a->smem_per_block_default_kib, 48);
        cr_assert_eq(a->cluster_portable, want[i].portable, "cc %d.%d", want[i].major, want[i].minor);
        cr_assert_eq(a->cluster_max, want[i].max, "cc %d.%d", want[i].major, want[i].minor);
        cr_assert(a->src_clusters && strstr(a->src_clusters, "Thread Block Clusters"), "cc %d.%d: its source",
                  want[i].major, want[i].minor);
    }
}

/* The value of the first "name ... = A * B;" or "#define NAME(unused) (V)" after name in text, else -1. */
static long cccl_value(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    long a = -1, b = 1;

    if (!p)
        return -1;
    p += strlen(name);
    while (*p == ' ' || *p == '=' || *p == '(' || !strncmp(p, "unused)", 7))
        p += *p == 'u' ? 7 : 1;
    if (sscanf(p, "%ld * %ld", &a, &b) == 2)
        return a * b;
    return sscanf(p, "%ld", &a) == 1 ? a : -1;
}

Test(arch, cccl_headers_agree_with_the_table)
{
#ifndef SMEM_CCCL_DIR
    cr_skip_test("the build found no CCCL headers (cub/util_arch.cuh) with the toolkit");
#else
    /* the installed toolkit's CCCL (CUDA 13.0: 3.0.1), read as text: CUB is C++ and this suite is C */
    char path[4096], *text;
    FILE *f;
    long n, banks, warp, per_block;

    snprintf(path, sizeof(path), "%s/cub/util_arch.cuh", SMEM_CCCL_DIR);
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = calloc((size_t)n + 1, 1);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    banks = 1L << cccl_value(text, "define CUB_LOG_SMEM_BANKS");
    warp = 1L << cccl_value(text, "define CUB_LOG_WARP_THREADS");
    per_block = cccl_value(text, "max_smem_per_block");
    free(text);
    /* CUB's one value for every architecture: 32 banks, 32 threads a warp, 48 KiB a block (the
     * default, CUB never opts in) */
    cr_assert_eq(banks, 32, "CUB_LOG_SMEM_BANKS");
    cr_assert_eq(warp, 32, "CUB_LOG_WARP_THREADS");
    cr_assert_eq(per_block, 48 * KIB, "cub::detail::max_smem_per_block");
    for (size_t i = 0; i < smem_n_archs; i++) {
        struct smem_published p[SMEM_ARCH_MAX_PUBLISHED];
        size_t np = smem_arch_published(smem_archs[i].cc_major, smem_archs[i].cc_minor, p, SMEM_ARCH_MAX_PUBLISHED);
        cr_assert_eq(smem_archs[i].smem_per_block_default_kib * KIB, per_block);
        cr_assert_eq(smem_archs[i].max_warps_per_sm * warp, smem_archs[i].max_threads_per_sm);
        cr_assert_float_eq(find_published(p, np, "banks")->value, (double)banks, 1e-9);
    }
    /* CCCL 3.0.1 has no per-architecture traits; a later toolkit's header is a new source to check */
    snprintf(path, sizeof(path), "%s/cuda/__device/arch_traits.h", SMEM_CCCL_DIR);
    f = fopen(path, "r");
    if (f) {
        fclose(f);
        cr_assert_fail("%s exists: hold the table's per-SM values to it too", path);
    }
#endif
}

Test(arch, carveout_steps_match_nvidias_calculator)
{
    /* cuda_occupancy.h rounds a preferred shared-memory size up to the next supported capacity;
     * walking 0..256 KiB in 1 KiB steps visits every capacity it knows, which must be the table's */
    for (size_t i = 0; i < smem_n_archs; i++) {
        const struct smem_arch *a = &smem_archs[i];
        cudaOccDeviceProp prop;
        int seen[64], n = 0;

        memset(&prop, 0, sizeof(prop));
        prop.computeMajor = a->cc_major;
        prop.computeMinor = a->cc_minor;
        for (size_t size = 0; size <= 256 * KIB; size += KIB) {
            size_t aligned = size;
            if (cudaOccAlignUpShmemSizeVoltaPlus(&aligned, &prop) != CUDA_OCC_SUCCESS)
                break;
            if (!n || seen[n - 1] != (int)(aligned / KIB))
                seen[n++] = (int)(aligned / KIB);
        }
        cr_assert_eq(n, a->n_carveouts, "cc %d.%d: the calculator has %d steps", a->cc_major, a->cc_minor, n);
        for (int k = 0; k < n; k++)
            cr_assert_eq(seen[k], a->carveout_kib[k], "cc %d.%d step %d", a->cc_major, a->cc_minor, k);
    }
}

Test(arch, resident_blocks_match_nvidias_calculator)
{
    for (size_t i = 0; i < smem_n_archs; i++) {
        const struct smem_arch *a = &smem_archs[i];
        cudaOccDeviceProp prop;
        int blocks = 0;

        memset(&prop, 0, sizeof(prop));
        prop.computeMajor = a->cc_major;
        prop.computeMinor = a->cc_minor;
        cr_assert_eq(cudaOccMaxBlocksPerMultiprocessor(&blocks, &prop), CUDA_OCC_SUCCESS);
        cr_assert_eq(blocks, a->max_blocks_per_sm, "cc %d.%d", a->cc_major, a->cc_minor);
    }
}

Test(arch, launch_bounds_constants_match_the_table)
{
    /* kernels/arch_limits.cuh restates threads per SM for __launch_bounds__: __CUDA_ARCH__ of
     * cc X.Y is X*100 + Y*10 */
    for (size_t i = 0; i < smem_n_archs; i++) {
        const struct smem_arch *a = &smem_archs[i];
        int cuda_arch = a->cc_major * 100 + a->cc_minor * 10;
        cr_assert_eq(SMEM_ARCH_THREADS_PER_SM_OF(cuda_arch), a->max_threads_per_sm, "cc %d.%d", a->cc_major,
                     a->cc_minor);
    }
}

Test(arch, unknown_cc_has_no_entry_and_an_inferred_l1)
{
    /* 8.8 is an nvcc target with no published column; the L1 falls back to shared + 28 KiB */
    cr_assert_null(smem_arch_find(8, 8));
    cr_assert_eq(smem_arch_unified_kib(8, 8, 100 * KIB), 128);
    cr_assert_eq(smem_arch_unified_kib(9, 0, 0), 256);
}

static const struct smem_published *find(const struct smem_published *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p[i].name, name))
            return &p[i];
    return NULL;
}

Test(published, hopper_has_every_value_with_a_source)
{
    struct smem_published p[SMEM_ARCH_MAX_PUBLISHED];
    size_t n = smem_arch_published(9, 0, p, SMEM_ARCH_MAX_PUBLISHED);
    const struct smem_published *v;

    cr_assert_eq(n, 9);
    for (size_t i = 0; i < n; i++)
        cr_assert(p[i].source && strlen(p[i].source) > 10 && p[i].unit && p[i].unit[0], "%s", p[i].name);
    /* Luo et al., arXiv:2501.12084v2 Table 3: 29.0 cycles on the H800 */
    cr_assert_float_eq(find(p, n, "smem_load_latency_cycles")->value, 29.0, 1e-9);
    /* Best Practices Guide: 32 banks x 32 bits per clock = 128 bytes per clock */
    cr_assert_float_eq(find(p, n, "smem_bytes_per_clock_per_sm")->value, 128, 1e-9);
    cr_assert_float_eq(find(p, n, "banks")->value, 32, 1e-9);
    cr_assert_float_eq(find(p, n, "bank_width_bytes")->value, 4, 1e-9);
    cr_assert_float_eq(find(p, n, "smem_per_sm_bytes")->value, 228 * KIB, 1e-9);
    cr_assert_float_eq(find(p, n, "smem_per_block_optin_bytes")->value, 227 * KIB, 1e-9);
    /* 20.8.3: "the unified data cache has a size of 256 KB" (L1 left = 256 KiB less the configuration) */
    cr_assert_float_eq(find(p, n, "unified_l1_smem_bytes")->value, 256 * KIB, 1e-9);
    cr_assert_str_eq(find(p, n, "unified_l1_smem_bytes")->unit, "B");
    v = find(p, n, "carveout_steps_kib");
    cr_assert_not_null(v->list);
    cr_assert_eq(v->n_list, 10);
    cr_assert_eq(v->list[9], 228);
    /* H100 whitepaper: 989.4 TFLOPS dense BF16 = 132 SMs x 1830 MHz x 4096 */
    cr_assert_float_eq(find(p, n, "bf16_dense_flop_per_clk_sm")->value * 132 * 1830e6, 989.4e12, 0.1e12);
}

Test(published, a_value_nobody_published_is_left_out)
{
    struct smem_published p[SMEM_ARCH_MAX_PUBLISHED];
    size_t n = smem_arch_published(7, 5, p, SMEM_ARCH_MAX_PUBLISHED);

    /* no latency for 7.5 in the sources the table cites: seven values, not eight */
    cr_assert_eq(n, 7);
    cr_assert_float_eq(find(p, n, "unified_l1_smem_bytes")->value, 96 * KIB, 1e-9);
    cr_assert_null(find(p, n, "smem_load_latency_cycles"));
    cr_assert_eq(find(p, n, "carveout_steps_kib")->n_list, 2);
    cr_assert_eq(smem_arch_published(8, 8, p, SMEM_ARCH_MAX_PUBLISHED), 0);
}

Test(arch, code_path_follows_cuda_binary_and_ptx_compatibility)
{
    /* the H200 (9.0) under the builds this project makes */
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_90", 0), "sass");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "compute_80", 0), "ptx_jit", "the portable PTX-only build");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_80,sm_86,compute_80", 0), "ptx_jit",
                     "an sm_80 cubin does not run on 9.0: another major");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_75,sm_80,sm_90,sm_100,compute_75,compute_120", 0), "sass");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_75,sm_90,compute_75", 1), "ptx_jit", "CUDA_FORCE_PTX_JIT=1");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_90", 1), "none", "forced JIT without PTX runs nothing");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_100,compute_100", 0), "none", "PTX of a later cc does not run");
    /* minors: a cubin runs on its major's later minors, sm_XYa code on XY alone */
    cr_assert_str_eq(smem_arch_code_path(8, 6, "sm_80", 0), "sass");
    cr_assert_str_eq(smem_arch_code_path(8, 0, "sm_86", 0), "none");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "sm_90a", 0), "sass");
    cr_assert_str_eq(smem_arch_code_path(10, 3, "sm_100a", 0), "none");
    cr_assert_str_eq(smem_arch_code_path(10, 3, "sm_100f", 0), "sass");
    cr_assert_str_eq(smem_arch_code_path(12, 0, "sm_120,compute_120", 0), "sass");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "native (nvcc -arch=native)", 0), "unknown");
    cr_assert_str_eq(smem_arch_code_path(9, 0, "", 0), "none");
}
