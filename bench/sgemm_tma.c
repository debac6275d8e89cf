/* The pipelined, warp-tiled SGEMM with its slabs landed by TMA (cc 9.0): one thread issues a
 * cp.async.bulk.tensor copy of A (swizzled by the hardware) and one of B per slab, completing on the
 * slot's mbarrier, `stages` slabs in flight (bench/sgemm_family.h, kernels/sgemm.cu). */
#include "sgemm_family.h"

static const struct smem_axis smem_sgemm_axes[] = { SMEM_SGEMM_AXES };

static int sgemm_tma_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                          size_t len)
{
    return smem_sgemm_plan(pt, SMEM_SGEMM_TMA, dev, p, why, len);
}

const struct smem_bench smem_sgemm_tma_bench = {
    .name = "sgemm_tma",
    .summary = "warp-tiled fp32 GEMM, bm x bn x bk slabs `stages` deep landed by TMA tensor copies on mbarriers "
               "(cc 9.0): TFLOP/s and % of cuBLAS against shared memory per block",
    .min_cc = 90,
    .min_cc_feature = "TMA tensor copies (cp.async.bulk.tensor)",
    .plan = sgemm_tma_plan,
    SMEM_SGEMM_COMMON
};
