/* A user's own kernel as a benchmark: one descriptor built at run time from a launch description
 * (bench/user_desc.h) and the kernel's resources, for a kernel loaded from a cubin, fatbin or PTX
 * file (--kernel) or registered by a program linked against libsmembench. The built-in axes
 * (carveout_pct, dyn_smem_bytes, block, cluster) come first, the user's axes after them; the
 * launch geometry is the description's expressions of those axes and the device. Verification is
 * against the kernel itself: outputs are poisoned before every configuration, and the outputs of
 * every configuration must equal those of the first configuration with the same user-axis values
 * (bit for bit, or within the description's tolerance), the first also the reference file's. */
#ifndef SMEM_USER_H
#define SMEM_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "user_desc.h"

#define SMEM_USER_BUILTIN_AXES 4        /* carveout_pct, dyn_smem_bytes, block, cluster, in that order */
#define SMEM_USER_MAX_PARAMS 64

/* What the kernel needs of an SM, and its parameter layout: read from the driver (cudaFuncGetAttributes,
 * cudaFuncGetParamInfo) when a GPU is there, from the file through the toolkit otherwise. */
struct smem_user_resources {
    int regs;
    int64_t static_smem, local_bytes;
    int max_threads;                    /* per block; 0: not known */
    size_t n_params;
    bool params_known;
    int64_t param_offset[SMEM_USER_MAX_PARAMS], param_size[SMEM_USER_MAX_PARAMS];
    char source[64];                    /* "driver", "cuobjdump sm_90", "ptxas sm_90" */
};

/* One launch of a registered kernel (libsmembench): the configuration the sweep chose and the
 * description's arguments, prepared. */
struct smem_user_launch {
    unsigned grid, block, cluster;      /* cluster 0: not a cluster launch */
    size_t dyn_smem;
    int carveout_pct;                   /* -1: the driver's default */
    const int64_t *values;              /* every axis, in the descriptor's order (built-ins first) */
    void *stream;                       /* cudaStream_t */
    void **args;                        /* one pointer per description argument, as cudaLaunchKernel takes them */
};

/* A launch function of a library user: 0, or a cudaError_t. NULL: the driver launches the function
 * itself with the description's arguments. */
typedef int (*smem_user_launch_fn)(const struct smem_user_launch *l, void *user);

/* The kernel the descriptor runs. */
struct smem_user_kernel {
    const struct smem_user_desc *desc;
    const void *fn;                     /* the __global__ function or cudaKernel_t; NULL in predict mode */
    smem_user_launch_fn launch;
    void *user;
    struct smem_user_resources res;
    const char *file;                   /* the code file, for the record and messages ("" registered) */
    double watchdog_s;                  /* a first launch that has not finished by then is a hang */
};

/* Builds the descriptor of k (kept, with k, until smem_user_bench_free). SMEM_EINVAL with one line
 * in why when the description's arguments do not match the kernel's parameters. */
int smem_user_bench_make(const struct smem_user_kernel *k, const struct smem_bench **out, char *why, size_t why_len);
void smem_user_bench_free(void);

/* Checks the description's arguments against the kernel's parameters: their count, then each size
 * (a buffer is a pointer, a scalar its type's size). SMEM_EINVAL with one line in why. */
int smem_user_check_params(const struct smem_user_desc *d, const struct smem_user_resources *res, char *why,
                           size_t why_len);

/* The variables of an expression at values (the descriptor's axis order) on dev, into names/vals
 * (capacity SMEM_MAX_AXES + 16). */
size_t smem_user_vars_at(const struct smem_bench *b, const int64_t *values, const struct smem_device *dev,
                         const char **names, double *vals);

/* What verification saw so far: configurations compared, mismatches, groups, the reference's outcome. */
struct smem_user_verdict {
    size_t configurations, mismatches, groups;
    const char *reference;              /* "none", "matched", "mismatch", "not checked" */
};
void smem_user_verdict(struct smem_user_verdict *v);

/* Whether a kernel hung (the watchdog fired): the process must not wait for the device again. */
bool smem_user_hung(void);

#endif
