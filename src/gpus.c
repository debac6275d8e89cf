/* Built-in GPU models. The limits of each compute capability (shared memory per SM and per block,
 * the reservation, resident blocks and threads) come from the per-cc table, core/arch.h, with its
 * sources; 64 Ki registers per SM and the 48 KiB default per block hold since Maxwell (Programming
 * Guide Table 27). SM counts, L2 sizes and boost clocks come from each product's NVIDIA datasheet
 * or whitepaper as cited.
 * The H200 entry was checked against a real H200 by the GPU test (tests/gpu/test_device.c). */
#include "gpus.h"

#include <strings.h>

#include "arch.h"
#include "smem.h"

/* the limits of a compute capability: core/arch.h, the same values as the per-cc table */
#define CC75 SMEM_ARCH_DEVICE_INIT(7, 5)
#define CC80 SMEM_ARCH_DEVICE_INIT(8, 0)
#define CC86 SMEM_ARCH_DEVICE_INIT(8, 6)
#define CC87 SMEM_ARCH_DEVICE_INIT(8, 7)
#define CC89 SMEM_ARCH_DEVICE_INIT(8, 9)
#define CC90 SMEM_ARCH_DEVICE_INIT(9, 0)
#define CC100 SMEM_ARCH_DEVICE_INIT(10, 0)
#define CC120 SMEM_ARCH_DEVICE_INIT(12, 0)
/* the same on every GPU since Maxwell */
#define COMMON .ordinal = -1, .is_model = true, .smem_per_block = 48 * SMEM_KIB, .max_threads_per_block = 1024, \
    .regs_per_sm = 65536, .regs_per_block = 65536, .warp_size = 32

const struct smem_gpu_model smem_gpu_models[] = {
    /* A10 datasheet: 72 SMs (9216 CUDA cores), 6 MB L2, 1695 MHz boost */
    { "a10", { .name = "NVIDIA A10 (model)", COMMON, CC86, .sm_count = 72, .l2_bytes = 6 * SMEM_KIB * SMEM_KIB, .clock_khz = 1695000 } },
    /* A100 whitepaper: 108 SMs, 40 MB L2, 1410 MHz boost (SXM4) */
    { "a100", { .name = "NVIDIA A100-SXM4 (model)", COMMON, CC80, .sm_count = 108, .l2_bytes = 40 * SMEM_KIB * SMEM_KIB, .clock_khz = 1410000 } },
    /* B200 (Blackwell whitepaper): 148 SMs, 126 MB L2 per GPU; clock not published, typical boost used */
    { "b200", { .name = "NVIDIA B200 (model)", COMMON, CC100, .sm_count = 148, .l2_bytes = 126 * SMEM_KIB * SMEM_KIB, .clock_khz = 1965000 } },
    /* H100 SXM5 (Hopper whitepaper): 132 SMs, 50 MB L2, 1980 MHz boost */
    { "h100", { .name = "NVIDIA H100 SXM (model)", COMMON, CC90, .sm_count = 132, .l2_bytes = 50 * SMEM_KIB * SMEM_KIB, .clock_khz = 1980000 } },
    /* H200 SXM: the H100's GH100 with 141 GB HBM3e; 132 SMs; the L2 the runtime reports on one (60 MiB) */
    { "h200", { .name = "NVIDIA H200 (model)", COMMON, CC90, .sm_count = 132, .l2_bytes = 60 * SMEM_KIB * SMEM_KIB, .clock_khz = 1980000 } },
    /* L4 datasheet: 58 SMs (7424 CUDA cores), 48 MB L2, 2040 MHz boost */
    { "l4", { .name = "NVIDIA L4 (model)", COMMON, CC89, .sm_count = 58, .l2_bytes = 48 * SMEM_KIB * SMEM_KIB, .clock_khz = 2040000 } },
    /* Jetson AGX Orin 64GB: 2048 CUDA cores = 16 SMs, 4 MB L2, 1300 MHz */
    { "orin", { .name = "NVIDIA Jetson AGX Orin (model)", COMMON, CC87, .sm_count = 16, .l2_bytes = 4 * SMEM_KIB * SMEM_KIB, .clock_khz = 1300000 } },
    /* GeForce RTX 3090 (Ampere GA102 whitepaper): 82 SMs, 6 MB L2, 1695 MHz boost */
    { "rtx3090", { .name = "NVIDIA GeForce RTX 3090 (model)", COMMON, CC86, .sm_count = 82, .l2_bytes = 6 * SMEM_KIB * SMEM_KIB, .clock_khz = 1695000 } },
    /* GeForce RTX 4090 (Ada whitepaper): 128 SMs, 72 MB L2, 2520 MHz boost */
    { "rtx4090", { .name = "NVIDIA GeForce RTX 4090 (model)", COMMON, CC89, .sm_count = 128, .l2_bytes = 72 * SMEM_KIB * SMEM_KIB, .clock_khz = 2520000 } },
    /* GeForce RTX 5090 (Blackwell GB202): 170 SMs, 96 MB L2, 2407 MHz boost */
    { "rtx5090", { .name = "NVIDIA GeForce RTX 5090 (model)", COMMON, CC120, .sm_count = 170, .l2_bytes = 96 * SMEM_KIB * SMEM_KIB, .clock_khz = 2407000 } },
    /* Tesla T4 datasheet: 40 SMs (2560 CUDA cores), 4 MB L2, 1590 MHz boost */
    { "t4", { .name = "NVIDIA T4 (model)", COMMON, CC75, .sm_count = 40, .l2_bytes = 4 * SMEM_KIB * SMEM_KIB, .clock_khz = 1590000 } },
};
const size_t smem_n_gpu_models = SMEM_ARRAY_LEN(smem_gpu_models);

const struct smem_gpu_model *smem_gpu_find(const char *key)
{
    for (size_t i = 0; i < smem_n_gpu_models; i++)
        if (!strcasecmp(smem_gpu_models[i].key, key))
            return &smem_gpu_models[i];
    return NULL;
}
