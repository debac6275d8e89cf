/* What a point needs of the device and of this build. The compute capability is known without a
 * GPU, so a model in predict mode skips the point too; the device code is known only on a GPU: a
 * build whose kernels were compiled for an older virtual architecture (a compute_80 PTX-only build,
 * JIT-compiled on the device) runs the kernels' fallback bodies, so those points are skipped before
 * any launch. */
#ifndef SMEM_BENCH_FEATURE_H
#define SMEM_BENCH_FEATURE_H

#include <stddef.h>

#include "bench.h"

/* SMEM_ESKIP with a reason when dev is older than major.minor, which `feature` needs; else SMEM_OK. */
int smem_feature_plan(const struct smem_device *dev, int major, int minor, const char *feature, char *why,
                      size_t len);

#if SMEM_HAVE_CUDA
/* SMEM_ESKIP with a reason when fn was compiled for a virtual architecture below arch (90 = cc 9.0),
 * SMEM_ECUDA when its attributes cannot be read, else SMEM_OK. */
int smem_feature_built(const void *fn, int arch, const char *feature, char *why, size_t len);
#endif

#endif
