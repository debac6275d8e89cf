/* The per-compute-capability table. Sources, cited beside each row:
 *   PG    CUDA C++ Programming Guide, CUDA 13.0 (the last edition with the per-architecture
 *         chapter): Table 27 "Technical Specifications per Compute Capability" (resident blocks and
 *         threads per SM, shared memory per SM and per block, 32 banks) and the "Shared Memory"
 *         section of each architecture (carveout steps, unified data cache size, the 1 KB reserved
 *         per block): 20.6.4 (7.x), 20.7.3 (8.x), 20.8.3 (9.0), 20.9.3 (10.0), 20.10.3 (12.0).
 *   PG13  CUDA Programming Guide (CUDA 13), 5.1 "Compute Capabilities", Tables 30-32: the columns
 *         10.x and 12.x that cover 10.3 and 12.1, and the unified data cache of 11.0 and 12.x.
 *   OCC   cuda_occupancy.h as shipped with CUDA 13.0 (NVIDIA's calculator):
 *         cudaOccAlignUpShmemSizeVoltaPlus (carveout steps), cudaOccMaxBlocksPerMultiprocessor.
 *   BPG   CUDA C++ Best Practices Guide, "Shared Memory and Memory Banks": on cc 5.x and newer,
 *         32 banks, successive 32-bit words in successive banks, each bank 32 bits per clock.
 *   LUO   Luo et al., "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking and
 *         Multiple Level Analysis", arXiv:2501.12084v2, Table 3 (latency, cycles).
 *   TBC   the Programming Guide's "Thread Block Clusters" section (cc 9.0 and newer: "a maximum of 8
 *         thread blocks in a cluster is supported as a portable cluster size") and the Hopper Tuning
 *         Guide's (16 on 9.0 with cudaFuncAttributeNonPortableClusterSizeAllowed; measured on the H200:
 *         the cluster sweep's size-16 points run). No source at hand gives the non-portable maximum of
 *         10.x, 11.0 or 12.x: cluster_max is 0 there and the device's own answer
 *         (cudaOccupancyMaxPotentialClusterSize) is used.
 *   CCCL  the toolkit's CCCL headers (CUDA 13.0: CCCL 3.0.1): cub/util_arch.cuh has 32 banks
 *         (CUB_LOG_SMEM_BANKS 5), 32 threads a warp and max_smem_per_block = 48 * 1024, the default
 *         limit per block; it has no per-architecture table (no cuda/__device/arch_traits.h in 3.0.1),
 *         so the per-SM values are held to cuda_occupancy.h. tests/unit/test_arch.c reads the header
 *         where the build finds it.
 * Where two sources say different things it is noted at the row. The launch bounds of the kernels
 * (kernels/arch_limits.cuh) restate max_threads_per_sm per architecture; a unit test holds the two
 * together. */
#include "arch.h"

#include <stdio.h>
#include <string.h>

#define PG_T27 "CUDA C++ Programming Guide 13.0, Table 27 (Technical Specifications per Compute Capability)"
#define PG13 "CUDA Programming Guide (CUDA 13), 5.1 Compute Capabilities, Tables 30-32"
#define OCC "cuda_occupancy.h (CUDA 13.0), cudaOccAlignUpShmemSizeVoltaPlus / cudaOccMaxBlocksPerMultiprocessor"
#define BPG "CUDA C++ Best Practices Guide, Shared Memory and Memory Banks (cc 5.x and newer)"
#define LUO "Luo et al., arXiv:2501.12084v2 (Dissecting the NVIDIA Hopper Architecture), Table 3"

#define STEPS_TURING { 32, 64 }
#define STEPS_164 { 0, 8, 16, 32, 64, 100, 132, 164 }
#define STEPS_100 { 0, 8, 16, 32, 64, 100 }
#define STEPS_228 { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 }

/* warps per SM (Table 27, "Maximum number of resident warps per SM"), the default 48 KB per block
 * (Table 27 without the opt-in; CCCL's max_smem_per_block), then the cluster sizes (TBC) */
#define TBC_SRC PG_T27 " (warps, 48 KB per block); CUDA C++ Programming Guide 13.0, Thread Block Clusters (portable 8)"
#define CLUSTERS_NONE 0, 0, PG_T27 " (warps, 48 KB per block); no thread block clusters before 9.0 (Thread Block Clusters)"
#define CLUSTERS_HOPPER 8, 16, TBC_SRC "; NVIDIA Hopper Tuning Guide, Thread Block Clusters (16, non-portable)"
#define LATER_NP "; the non-portable maximum: unpublished in the sources at hand (the device says)"
#define CLUSTERS_LATER 8, 0, TBC_SRC LATER_NP
/* 10.3 and 12.1 are not in the 13.0 guide's Table 27: their warps and 48 KB from PG13's columns */
#define CLUSTERS_LATER_PG13 8, 0, PG13 " (columns 10.x, 12.x: warps, 48 KB per block); CUDA C++ Programming Guide " \
    "13.0, Thread Block Clusters (portable 8)" LATER_NP

const struct smem_arch smem_archs[] = {
    /* 7.5 Turing: PG 20.6.4 "the unified data cache has a size of 96 KB, and the shared memory
     * capacity can be set to either 32 KB or 64 KB"; "a single thread block [can] address the full
     * capacity ... 64 KB on Turing", so nothing is reserved; Table 27: 16 blocks, 1024 threads */
    { 7, 5, "Turing", SMEM_ARCH_LIMITS_75, STEPS_TURING, 2,
      PG_T27 "; 20.6.4 (a block addresses the full 64 KB)", "CUDA C++ Programming Guide 13.0, 20.6.4",
      32, 48, CLUSTERS_NONE },
    /* 8.0 Ampere A100: PG 20.7.3 unified 192 KB, capacity 0..164 KB; 163 KB per block, "the 1 KB
     * of shared memory not made available to a thread block is reserved for system use";
     * Table 27: 32 blocks, 2048 threads */
    { 8, 0, "Ampere", SMEM_ARCH_LIMITS_80, STEPS_164, 8,
      PG_T27 "; 20.7.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.7.3",
      64, 48, CLUSTERS_NONE },
    /* 8.6 Ampere GA10x: PG 20.7.3 unified 128 KB, capacity 0..100 KB, 99 KB per block;
     * Table 27: 16 blocks, 1536 threads */
    { 8, 6, "Ampere", SMEM_ARCH_LIMITS_86, STEPS_100, 6,
      PG_T27 "; 20.7.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.7.3",
      48, 48, CLUSTERS_NONE },
    /* 8.7 Orin: PG 20.7.3 groups it with 8.0 (unified 192 KB, 0..164 KB, 163 KB per block);
     * Table 27: 16 blocks, 1536 threads */
    { 8, 7, "Ampere", SMEM_ARCH_LIMITS_87, STEPS_164, 8,
      PG_T27 "; 20.7.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.7.3",
      48, 48, CLUSTERS_NONE },
    /* 8.9 Ada: PG 20.7.3 groups it with 8.6 (unified 128 KB, 0..100 KB, 99 KB per block);
     * Table 27: 24 blocks, 1536 threads */
    { 8, 9, "Ada", SMEM_ARCH_LIMITS_89, STEPS_100, 6,
      PG_T27 "; 20.7.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.7.3",
      48, 48, CLUSTERS_NONE },
    /* 9.0 Hopper: PG 20.8.3 unified 256 KB, "0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB",
     * 227 KB per block; Table 27: 32 blocks, 2048 threads */
    { 9, 0, "Hopper", SMEM_ARCH_LIMITS_90, STEPS_228, 10,
      PG_T27 "; 20.8.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.8.3",
      64, 48, CLUSTERS_HOPPER },
    /* 10.0 Blackwell B200: PG 20.9.3 "identical to compute capability 9.0": unified 256 KB,
     * 0..228 KB, 227 KB per block; Table 27: 32 blocks, 2048 threads */
    { 10, 0, "Blackwell", SMEM_ARCH_LIMITS_100, STEPS_228, 10,
      PG_T27 "; 20.9.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.9.3",
      64, 48, CLUSTERS_LATER },
    /* 10.3 Blackwell B300: not in the 13.0 guide's Table 27; PG13 column 10.x (228/227 KB, 32
     * blocks, 2048 threads, unified 256 KB); OCC has the same steps for 10.0, 10.1 and 10.3 */
    { 10, 3, "Blackwell", SMEM_ARCH_LIMITS_103, STEPS_228, 10,
      PG13 " (column 10.x); " OCC, PG13 " (Table 32, 10.x); " OCC,
      64, 48, CLUSTERS_LATER_PG13 },
    /* 11.0 Blackwell Thor: Table 27 column 11.0 (228 KB per SM, 227 KB per block, 24 blocks, 1536
     * threads; OCC agrees on 24 blocks). PG has no per-architecture Shared Memory section for 11.0,
     * but PG13's Table 32 (Shared Memory Capacity per Compute Capability) lists 11.0, the unified
     * 256 KB taken from it; the steps come from OCC (the 10.x list). Drivers before CUDA 13 report
     * Thor as 10.1: OCC lists 10.1 with the same steps and 24 blocks, but no source at hand gives its
     * per-SM, per-block and thread limits, so 10.1 has no row (a 10.1 device runs on its own
     * properties, without published values) */
    { 11, 0, "Blackwell", SMEM_ARCH_LIMITS_110, STEPS_228, 10,
      PG_T27 "; " OCC, PG13 " (Table 32, 11.0); " OCC,
      48, 48, CLUSTERS_LATER },
    /* 12.0 Blackwell GeForce / RTX PRO: PG 20.10.3 capacity 0..100 KB, 99 KB per block; Table 27:
     * 24 blocks, 1536 threads. 20.10.1 calls the unified cache 100 KB, but Table 27's L1 working
     * set (28 KB ~ 128 KB) and PG13 Table 32 (12.x) both make it 128 KB: 128 is used */
    { 12, 0, "Blackwell", SMEM_ARCH_LIMITS_120, STEPS_100, 6,
      PG_T27 "; 20.10.3 (1 KB reserved per block)", "CUDA C++ Programming Guide 13.0, 20.10.3; " PG13 " (Table 32)",
      48, 48, CLUSTERS_LATER },
    /* 12.1 Blackwell DGX Spark: PG13 column 12.x (as 12.0); OCC has the same steps for 12.0 and 12.1 */
    { 12, 1, "Blackwell", SMEM_ARCH_LIMITS_121, STEPS_100, 6,
      PG13 " (column 12.x); " OCC, PG13 " (Table 32, 12.x); " OCC,
      48, 48, CLUSTERS_LATER_PG13 },
};
const size_t smem_n_archs = sizeof(smem_archs) / sizeof(smem_archs[0]);

/* Published shared-memory load latency, cycles, where a paper measured it on a GPU of that cc. */
static const struct {
    int cc_major, cc_minor;
    double cycles;
    const char *source;
} latencies[] = {
    { 8, 9, 30.1, LUO ", RTX 4090 (shared memory)" },
    { 9, 0, 29.0, LUO ", H800 PCIe (shared memory)" },
};

const struct smem_arch *smem_arch_find(int cc_major, int cc_minor)
{
    for (size_t i = 0; i < smem_n_archs; i++)
        if (smem_archs[i].cc_major == cc_major && smem_archs[i].cc_minor == cc_minor)
            return &smem_archs[i];
    return NULL;
}

int smem_arch_unified_kib(int cc_major, int cc_minor, long long smem_per_sm_bytes)
{
    const struct smem_arch *a = smem_arch_find(cc_major, cc_minor);

    if (a)
        return a->unified_kib;
    return (int)(smem_per_sm_bytes / 1024) + 28;
}

long long smem_arch_config_hinted(const struct smem_arch *a, long long smem_per_sm, long long u, long long reserved,
                                  int pct)
{
    long long f = u + reserved, largest;
    double h, need;

    if (!a || !a->n_carveouts || u <= 0 || pct < 0)
        return -1;
    largest = (long long)a->carveout_kib[a->n_carveouts - 1] * 1024;
    if (f > largest)
        return -1;
    h = pct / 100.0 * (double)smem_per_sm;
    /* integer arithmetic: floor(pct % x smem_per_sm / u) exactly */
    need = (double)((long long)pct * smem_per_sm / (100 * u) * f);
    need = need > h ? need : h;
    need = need > (double)f ? need : (double)f;
    for (int i = 0; i < a->n_carveouts; i++)
        if ((double)a->carveout_kib[i] * 1024 >= need)
            return (long long)a->carveout_kib[i] * 1024;
    return largest;
}

/* Dense BF16/FP16 tensor-core rate (FP32 accumulate) per SM and clock, from the whitepapers' peak
 * TFLOPS over their SM count and clock: A100 SXM4 312 TFLOPS = 108 SMs x 1410 MHz x 2048; H100 SXM5
 * 989.4 TFLOPS = 132 SMs x 1830 MHz x 4096 (the H200 has the H100's SMs and the same 989 TFLOPS, H200
 * datasheet). The swizzle sweep's wgmma points are a percentage of it. */
static const struct {
    int cc_major, cc_minor;
    double flop_per_clk;
    const char *source;
} tensor_rates[] = {
    { 8, 0, 2048, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 312 TFLOPS dense BF16 "
                  "on 108 SMs at 1410 MHz" },
    { 9, 0, 4096, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 989.4 TFLOPS dense BF16 "
                  "on 132 SMs at 1830 MHz (H100 SXM5; H200 datasheet: the same 989 TFLOPS)" },
};

static void put(struct smem_published *out, size_t max, size_t *n, struct smem_published p)
{
    if (*n < max)
        out[(*n)++] = p;
}

size_t smem_arch_published(int cc_major, int cc_minor, struct smem_published *out, size_t max)
{
    const struct smem_arch *a = smem_arch_find(cc_major, cc_minor);
    size_t n = 0;

    if (!a)
        return 0;
    for (size_t i = 0; i < sizeof(latencies) / sizeof(latencies[0]); i++)
        if (latencies[i].cc_major == cc_major && latencies[i].cc_minor == cc_minor)
            put(out, max, &n, (struct smem_published){ "smem_load_latency_cycles", "cycles", latencies[i].cycles,
                                                       NULL, 0, latencies[i].source });
    /* every cc of the table is 5.x or newer: 32 banks x 32 bits per clock = 128 bytes per clock */
    put(out, max, &n, (struct smem_published){ "smem_bytes_per_clock_per_sm", "B/clk/SM", 128, NULL, 0,
                                               BPG ": 32 banks x 32 bits per clock" });
    put(out, max, &n, (struct smem_published){ "banks", "banks", 32, NULL, 0, BPG "; " PG_T27 });
    put(out, max, &n, (struct smem_published){ "bank_width_bytes", "B", 4, NULL, 0, BPG });
    put(out, max, &n, (struct smem_published){ "smem_per_sm_bytes", "B", a->smem_per_sm_kib * 1024.0, NULL, 0,
                                               a->src_limits });
    put(out, max, &n, (struct smem_published){ "smem_per_block_optin_bytes", "B",
                                               a->smem_per_block_optin_kib * 1024.0, NULL, 0, a->src_limits });
    /* what a carveout splits: L1 left = this less the shared-memory configuration the driver picks */
    put(out, max, &n, (struct smem_published){ "unified_l1_smem_bytes", "B", a->unified_kib * 1024.0, NULL, 0,
                                               a->src_carveouts });
    put(out, max, &n, (struct smem_published){ "carveout_steps_kib", "KiB", 0, a->carveout_kib,
                                               (size_t)a->n_carveouts, a->src_carveouts });
    for (size_t i = 0; i < sizeof(tensor_rates) / sizeof(tensor_rates[0]); i++)
        if (tensor_rates[i].cc_major == cc_major && tensor_rates[i].cc_minor == cc_minor)
            put(out, max, &n, (struct smem_published){ "bf16_dense_flop_per_clk_sm", "FLOP/clk/SM",
                                                       tensor_rates[i].flop_per_clk, NULL, 0, tensor_rates[i].source });
    return n;
}

const char *smem_arch_code_path(int cc_major, int cc_minor, const char *gpu_code, int force_jit)
{
    int cc = cc_major * 10 + cc_minor, sass = 0, ptx = 0, native = 0;
    const char *p = gpu_code ? gpu_code : "";

    while (*p) {
        size_t n = strcspn(p, ",");
        char item[32] = "";
        int v = 0;
        char suffix = 0;

        if (n < sizeof(item))
            memcpy(item, p, n);
        if (sscanf(item, "sm_%d%c", &v, &suffix) >= 1) {
            /* a cubin runs on its major's later minors (sm_100f family code too); architecture-specific
             * sm_90a code on 9.0 alone */
            if (v / 10 == cc_major && (suffix == 'a' ? v == cc : v % 10 <= cc_minor))
                sass = 1;
        } else if (sscanf(item, "compute_%d", &v) == 1) {
            if (v <= cc)
                ptx = 1;
        } else if (!strncmp(item, "native", 6)) {
            native = 1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (force_jit)
        return ptx ? "ptx_jit" : "none";
    if (sass)
        return "sass";
    if (ptx)
        return "ptx_jit";
    return native ? "unknown" : "none";
}
