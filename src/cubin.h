/* A user's kernel file read without a GPU: its kind (cubin, fatbin or PTX) from its first bytes, and
 * every kernel's resources (registers, static shared memory, local memory, parameters, the
 * __launch_bounds__ limit) from the CUDA toolkit's cuobjdump, with ptxas compiling PTX first. Predict
 * mode and `--kernel FILE --list` use it where no driver can be asked. */
#ifndef SMEM_CUBIN_H
#define SMEM_CUBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum smem_code_kind { SMEM_CODE_CUBIN, SMEM_CODE_FATBIN, SMEM_CODE_PTX };
#define SMEM_CUBIN_MAX_PARAMS 64
struct smem_cubin_kernel {
    char name[256];
    int arch;                       /* the sm_XX these resources are from: 90 for sm_90 */
    int regs;
    int64_t static_smem, local_bytes, const_bytes;
    int max_threads;                /* from __launch_bounds__/.maxntid when the file says; 0: not said */
    size_t n_params;                /* params_known: from EIATTR_KPARAM_INFO / the PTX .entry */
    bool params_known;
    int64_t param_offset[SMEM_CUBIN_MAX_PARAMS], param_size[SMEM_CUBIN_MAX_PARAMS];
};
/* The kind of the file from its first bytes: ELF magic = cubin, 0xBA55ED50 (little endian) = fatbin,
 * text with a ".version" directive = PTX; anything else: SMEM_EINVAL "x.bin is not a cubin, fatbin or
 * PTX file (its first bytes are ...): compile with nvcc -cubin, -fatbin or -ptx". */
int smem_code_kind_of(const char *path, enum smem_code_kind *kind, char *why, size_t why_len);
const char *smem_code_kind_name(enum smem_code_kind k);   /* "cubin", "fatbin", "ptx" */
/* Every kernel of path with its resources for the code closest to compute capability cc (major*10 +
 * minor) that a device of cc could run: the highest sm_XX <= cc of the same major (a PTX file: compiled
 * by ptxas for sm_<cc>). Through the toolkit's cuobjdump --dump-resource-usage and -elf (on the cubin
 * ptxas makes of PTX), run without a shell. *out malloc'd; SMEM_EINVAL with one line (no such file, not a code file,
 * no code a cc device can run: "softmax.cubin holds sm_80 code only; a 9.0 device cannot run it",
 * no cuobjdump found: "needs the CUDA toolkit's cuobjdump (not found in $CUDA_HOME/bin, the build's
 * toolkit or PATH)"). */
int smem_cubin_resources(const char *path, int cc, struct smem_cubin_kernel **out, size_t *n, char *why,
                         size_t why_len);

#endif
