/* Built-in GPU models. Shared-memory limits per compute capability come from the CUDA C++
 * Programming Guide, "Technical Specifications per Compute Capability" (max shared memory per SM,
 * per block with opt-in, 1 KiB reserved per block from 8.x, resident blocks/threads per SM,
 * 64 Ki registers per SM); the carveout steps themselves come from cuda_occupancy.h. SM counts,
 * L2 sizes and boost clocks come from each product's NVIDIA datasheet or whitepaper as cited.
 * The H200 entry was checked against a real H200 by the GPU test (tests/gpu/test_gpu.c). */
#include "gpus.h"

#include <strings.h>

#include "smem.h"

/* fields common to a compute capability */
#define CC75 .cc_major = 7, .cc_minor = 5, .smem_per_sm = 64 * SMEM_KIB, .smem_per_block_optin = 64 * SMEM_KIB, \
    .reserved_smem_per_block = 0, .max_blocks_per_sm = 16, .max_threads_per_sm = 1024
#define CC80 .cc_major = 8, .cc_minor = 0, .smem_per_sm = 164 * SMEM_KIB, .smem_per_block_optin = 163 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 32, .max_threads_per_sm = 2048
#define CC86 .cc_major = 8, .cc_minor = 6, .smem_per_sm = 100 * SMEM_KIB, .smem_per_block_optin = 99 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 16, .max_threads_per_sm = 1536
#define CC87 .cc_major = 8, .cc_minor = 7, .smem_per_sm = 164 * SMEM_KIB, .smem_per_block_optin = 163 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 16, .max_threads_per_sm = 1536
#define CC89 .cc_major = 8, .cc_minor = 9, .smem_per_sm = 100 * SMEM_KIB, .smem_per_block_optin = 99 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 24, .max_threads_per_sm = 1536
#define CC90 .cc_major = 9, .cc_minor = 0, .smem_per_sm = 228 * SMEM_KIB, .smem_per_block_optin = 227 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 32, .max_threads_per_sm = 2048
#define CC100 .cc_major = 10, .cc_minor = 0, .smem_per_sm = 228 * SMEM_KIB, .smem_per_block_optin = 227 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 32, .max_threads_per_sm = 2048
#define CC120 .cc_major = 12, .cc_minor = 0, .smem_per_sm = 100 * SMEM_KIB, .smem_per_block_optin = 99 * SMEM_KIB, \
    .reserved_smem_per_block = SMEM_KIB, .max_blocks_per_sm = 24, .max_threads_per_sm = 1536
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
