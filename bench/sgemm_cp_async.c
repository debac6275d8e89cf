/* The pipelined, warp-tiled SGEMM with its slabs filled by cp.async (cc 8.0): every thread copies
 * 16-byte chunks of A (into the swizzled rows) and B, one commit group per slab, `stages` slabs in
 * flight (bench/sgemm_family.h, kernels/sgemm.cu). */
#include "sgemm_family.h"

static const struct smem_axis smem_sgemm_axes[] = { SMEM_SGEMM_AXES };

static int sgemm_cp_async_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                               char *why, size_t len)
{
    return smem_sgemm_plan(pt, SMEM_SGEMM_CP_ASYNC, dev, p, why, len);
}

const struct smem_bench smem_sgemm_cp_async_bench = {
    .name = "sgemm_cp_async",
    .summary = "warp-tiled fp32 GEMM, bm x bn x bk slabs `stages` deep filled by cp.async (cc 8.0): TFLOP/s and % of "
               "cuBLAS against shared memory per block",
    .min_cc = 80,
    .min_cc_feature = "cp.async",
    .plan = sgemm_cp_async_plan,
    SMEM_SGEMM_COMMON
};
