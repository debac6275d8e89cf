/* Feature checks shared by the Hopper benchmarks (cluster, staging). */
#include "feature.h"

#include "smem.h"

#if SMEM_HAVE_CUDA
#include "cuda_status.h"
#endif

int smem_feature_plan(const struct smem_device *dev, int major, int minor, const char *feature, char *why,
                      size_t len)
{
    if (dev->cc_major * 10 + dev->cc_minor >= major * 10 + minor)
        return SMEM_OK;
    smem_fmt(why, len, "needs compute capability %d.%d (%s); %s is %d.%d", major, minor, feature, dev->name,
             dev->cc_major, dev->cc_minor);
    return SMEM_ESKIP;
}

#if SMEM_HAVE_CUDA

int smem_feature_built(const void *fn, int arch, const char *feature, char *why, size_t len)
{
    struct cudaFuncAttributes a;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaFuncGetAttributes(&a, fn));
    if (a.ptxVersion >= arch)
        return SMEM_OK;
    smem_fmt(why, len, "not built for cc %d.%d (%s): this kernel was compiled for compute_%d (binary sm_%d); "
             "rebuild with -Dgpu_arch=%d or newer", arch / 10, arch % 10, feature, a.ptxVersion, a.binaryVersion, arch);
    return SMEM_ESKIP;
fail:
    return rc;
}

#endif
