/* --kernel FILE --launch DESC: a user's kernel from a cubin, fatbin or PTX file, run by the driver
 * as a benchmark of its own. Checked in two steps like every plan: what needs no device (the
 * description, the file's kind, the sweep and axis names) before a GPU is opened; the kernel, its
 * resources and the points once the device (or the predict model) is known. */
#ifndef SMEM_KERNEL_JOB_H
#define SMEM_KERNEL_JOB_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "cubin.h"
#include "user.h"

struct smem_kernel_job {
    struct smem_user_desc desc;
    char file[4096];
    enum smem_code_kind kind;
    char sha256[65], desc_sha256[65];
    struct smem_user_kernel k;
    const struct smem_bench *bench;
    void *library;                  /* cudaLibrary_t of the file, measure mode */
    bool loaded;
    int registered;                 /* index of a kernel registered through libsmembench, -1: a file */
};

/* libsmembench: a kernel of the program itself, with its launch description (loaded and checked
 * now: one line and SMEM_EINVAL when it is wrong). --kernel NAME then names it. */
int smem_kernel_register(const char *description_path, const void *fn, smem_user_launch_fn launch, void *user);
size_t smem_kernel_registered_count(void);
const char *smem_kernel_registered_name(size_t i);

/* The sweeps of a user kernel, and "all". */
extern const char *const smem_kernel_sweeps[];

/* Everything --kernel's run can check before a device: the description, the file's kind, the
 * sweeps and the --axis names. Prints one line and returns SMEM_EINVAL on bad input. */
int smem_kernel_check(const struct smem_options *o, struct smem_kernel_job *j);

/* The kernel on dev: loaded through the runtime (measure), or its resources read from the file
 * (predict), the arguments checked against its parameters, and the descriptor built. One line and
 * SMEM_EINVAL (bad input) or another negative code. */
int smem_kernel_open(struct smem_kernel_job *j, const struct smem_device *dev, bool predict, double watchdog_s);

/* The points of o's sweeps (default carveout,dynamic) for dev, allocated; one line and SMEM_EINVAL
 * on a bad --axis list. */
int smem_kernel_points(const struct smem_kernel_job *j, const struct smem_options *o, const struct smem_device *dev,
                       struct smem_point **points, size_t *n);

/* Predict mode, which reads no file: the fill files and the reference file have the size the points
 * need (a fill file: at every point; the reference: at one), and are regular files. One line and
 * SMEM_EINVAL when not. */
int smem_kernel_check_files(const struct smem_kernel_job *j, const struct smem_point *points, size_t n,
                            const struct smem_device *dev);

/* The result file's "kernel" record. */
cJSON *smem_kernel_record(const struct smem_kernel_job *j);

/* --kernel FILE --list: every kernel of the file with its parameters and resources, from the
 * driver when a GPU is there, else from the file for dev's compute capability. */
int smem_kernel_list(const char *file, const struct smem_device *dev, bool from_driver, FILE *out);

/* Which of the run's inputs (the launch description, the code file, the reference file, a fill
 * file) is the file st describes, links followed: its path, and what it is in what ("the launch
 * description"); NULL when none. -o never replaces an input, --force or not. */
struct stat;
const char *smem_kernel_input_is(const struct smem_kernel_job *j, const struct stat *st, char *what, size_t len);

void smem_kernel_close(struct smem_kernel_job *j);

/* The SHA-256 of a file in lowercase hex, from coreutils' sha256sum; "" when it cannot be had. */
void smem_sha256_file(const char *path, char out[65]);

#endif
