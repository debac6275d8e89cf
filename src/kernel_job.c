/* --kernel: a user's kernel, checked, loaded, planned and recorded (src/kernel_job.h). */
#define _XOPEN_SOURCE 700
#include "kernel_job.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "report_json.h"
#include "smem.h"
#include "sweep.h"

#if SMEM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

extern char **environ;

/* Appends ", name" (or name first) to the comma-joined list in buf. */
static void join(char *buf, size_t len, const char *name)
{
    if (buf[0])
        strncat(buf, ", ", len - strlen(buf) - 1);
    strncat(buf, name, len - strlen(buf) - 1);
}

#define MAX_REGISTERED 16

/* The kernels a program linked against libsmembench registered. */
static struct registered {
    char path[4096], name[256];
    const void *fn;
    smem_user_launch_fn launch;
    void *user;
} registered[MAX_REGISTERED];
static size_t n_registered;

int smem_kernel_register(const char *description_path, const void *fn, smem_user_launch_fn launch, void *user)
{
    static struct smem_user_desc d;
    char why[1024];

    if (n_registered == MAX_REGISTERED) {
        smem_error("smembench_register: at most %d kernels", MAX_REGISTERED);
        return SMEM_EINVAL;
    }
    if (!fn) {
        smem_error("smembench_register(\"%s\"): the function is NULL; pass the __global__ function's address",
                   description_path ? description_path : "(null)");
        return SMEM_EINVAL;
    }
    if (!description_path || smem_user_desc_load(description_path, &d, why, sizeof(why))) {
        smem_error("%s", description_path ? why : "smembench_register: no launch description");
        return SMEM_EINVAL;
    }
    for (size_t i = 0; i < n_registered; i++)
        if (!strcmp(registered[i].name, d.function)) {
            smem_error("smembench_register(\"%s\"): a kernel \"%s\" is registered already; each needs its own name",
                       description_path, d.function);
            smem_user_desc_free(&d);
            return SMEM_EINVAL;
        }
    smem_fmt(registered[n_registered].path, sizeof(registered[n_registered].path), "%s", description_path);
    smem_fmt(registered[n_registered].name, sizeof(registered[n_registered].name), "%s", d.function);
    registered[n_registered].fn = fn;
    registered[n_registered].launch = launch;
    registered[n_registered].user = user;
    n_registered++;
    smem_user_desc_free(&d);
    return SMEM_OK;
}

size_t smem_kernel_registered_count(void)
{
    return n_registered;
}

const char *smem_kernel_registered_name(size_t i)
{
    return i < n_registered ? registered[i].name : NULL;
}

static int find_registered(const char *name)
{
    for (size_t i = 0; i < n_registered; i++)
        if (!strcmp(registered[i].name, name))
            return (int)i;
    return -1;
}

/* This program's own file, where a registered kernel's code is (for the toolkit to read). */
static void self_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);

    buf[n > 0 ? n : 0] = 0;
}

const char *const smem_kernel_sweeps[] = { "carveout", "dynamic", "block", "cluster", "axes", "all", NULL };

/* Which built-in axis a sweep varies (-1: none, the user axes' product). */
static int swept_axis(const char *sweep)
{
    static const char *const names[] = { "carveout", "dynamic", "block", "cluster" };

    for (int i = 0; i < 4; i++)
        if (!strcmp(sweep, names[i]))
            return i;
    return -1;
}

static bool known_sweep(const char *s)
{
    for (size_t i = 0; smem_kernel_sweeps[i]; i++)
        if (!strcmp(s, smem_kernel_sweeps[i]))
            return true;
    return false;
}

void smem_sha256_file(const char *path, char out[65])
{
    int fd[2];
    pid_t pid;
    char buf[128];
    ssize_t got = 0, r;
    posix_spawn_file_actions_t fa;
    char *argv[] = { "sha256sum", "--", (char *)path, NULL };
    int status;

    out[0] = 0;
    if (pipe(fd))
        return;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, "sha256sum", &fa, NULL, argv, environ)) {
        posix_spawn_file_actions_destroy(&fa);
        close(fd[0]);
        close(fd[1]);
        return;
    }
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    while (got < (ssize_t)sizeof(buf) - 1 && (r = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
        got += r;
    close(fd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got >= 64 && WIFEXITED(status) && !WEXITSTATUS(status)) {
        memcpy(out, buf, 64);
        out[64] = 0;
    }
}

/* Whether path names the file st is (the same device and inode, links followed). */
static bool same_file(const char *path, const struct stat *st)
{
    struct stat in;

    return path && *path && !stat(path, &in) && in.st_dev == st->st_dev && in.st_ino == st->st_ino;
}

const char *smem_kernel_input_is(const struct smem_kernel_job *j, const struct stat *st, char *what, size_t len)
{
    const struct smem_user_desc *d = &j->desc;

    if (same_file(d->path, st)) {
        smem_fmt(what, len, "the launch description");
        return d->path;
    }
    if (same_file(j->file, st)) {
        smem_fmt(what, len, j->registered >= 0 ? "this program's own file (its kernels' code)" : "the kernel's %s file",
                 smem_code_kind_name(j->kind));
        return j->file;
    }
    if (d->reference_arg >= 0 && same_file(d->reference_file, st)) {
        smem_fmt(what, len, "the reference file");
        return d->reference_file;
    }
    for (size_t i = 0; i < d->n_args; i++)
        if (d->args[i].fill == SMEM_USER_FILL_FILE && same_file(d->args[i].file, st)) {
            smem_fmt(what, len, "the fill file of argument %s", d->args[i].name);
            return d->args[i].file;
        }
    return NULL;
}

int smem_kernel_check(const struct smem_options *o, struct smem_kernel_job *j)
{
    char why[1024];
    const char *builtin[] = { "carveout_pct", "dyn_smem_bytes", "block", "cluster" };

    const char *launch = o->launch;

    memset(j, 0, sizeof(*j));
    j->desc.reference_arg = -1;
    if (o->all_devices || o->n_devices > 1) {
        /* one kernel's verification compares its configurations in order, on one GPU */
        smem_error("--kernel runs on one device; give --device N (one ordinal), and run once per GPU to compare them");
        return SMEM_EINVAL;
    }
    j->registered = find_registered(o->kernel);
    if (j->registered >= 0) {
        self_path(j->file, sizeof(j->file));
        j->kind = SMEM_CODE_CUBIN;
        if (!launch)
            launch = registered[j->registered].path;
    } else if (n_registered) {
        char names[1024] = "";
        for (size_t i = 0; i < n_registered; i++)
            join(names, sizeof(names), registered[i].name);
        smem_error("no registered kernel \"%s\" for --kernel; this program registered %s", o->kernel, names);
        return SMEM_EINVAL;
    } else {
        smem_fmt(j->file, sizeof(j->file), "%s", o->kernel);
        if (smem_code_kind_of(o->kernel, &j->kind, why, sizeof(why))) {
            smem_error("%s", why);
            return SMEM_EINVAL;
        }
    }
    if (!launch) {
        smem_error("--kernel %s needs --launch DESC.json, the launch description (examples/*.json; "
                   "results/launch.schema.json is its schema); --kernel FILE --list lists the file's kernels", o->kernel);
        return SMEM_EINVAL;
    }
    if (smem_user_desc_load(launch, &j->desc, why, sizeof(why))) {
        smem_error("%s", why);
        return SMEM_EINVAL;
    }
    for (size_t i = 0; i < o->n_sweeps; i++)
        if (!known_sweep(o->sweeps[i])) {
            smem_error("unknown sweep \"%s\" for a user kernel; its sweeps: carveout, dynamic, block, cluster, axes, all",
                       o->sweeps[i]);
            return SMEM_EINVAL;
        }
    for (size_t i = 0; i < o->n_overrides; i++) {
        bool ok = false;
        for (size_t a = 0; a < 4; a++)
            ok |= !strcmp(o->overrides[i].name, builtin[a]);
        for (size_t a = 0; a < j->desc.n_axes; a++)
            ok |= !strcmp(o->overrides[i].name, j->desc.axes[a].name);
        if (!ok) {
            char names[512] = "carveout_pct, dyn_smem_bytes, block, cluster";
            for (size_t a = 0; a < j->desc.n_axes; a++)
                join(names, sizeof(names), j->desc.axes[a].name);
            smem_error("unknown axis \"%s\" for --axis; %s has %s", o->overrides[i].name, j->desc.function, names);
            return SMEM_EINVAL;
        }
    }
    if (j->registered >= 0 && strcmp(j->desc.function, o->kernel)) {
        smem_error("%s describes kernel \"%s\", not the registered \"%s\"", launch, j->desc.function, o->kernel);
        return SMEM_EINVAL;
    }
    smem_sha256_file(j->file, j->sha256);
    smem_sha256_file(launch, j->desc_sha256);
    return SMEM_OK;
}

#if SMEM_HAVE_CUDA
/* The runtime's attributes and parameter layout of a kernel handle. */
static int driver_resources(const void *fn, struct smem_user_resources *res, char *why, size_t len)
{
    struct cudaFuncAttributes a;
    cudaError_t e;

    memset(res, 0, sizeof(*res));
    if ((e = cudaFuncGetAttributes(&a, fn))) {
        smem_fmt(why, len, "cannot read the kernel's attributes: %s", cudaGetErrorString(e));
        return SMEM_EINVAL;
    }
    res->regs = a.numRegs;
    res->static_smem = (int64_t)a.sharedSizeBytes;
    res->local_bytes = (int64_t)a.localSizeBytes;
    res->max_threads = a.maxThreadsPerBlock;
    for (size_t i = 0; i < SMEM_USER_MAX_PARAMS; i++) {
        size_t off, size;
        if (cudaFuncGetParamInfo(fn, i, &off, &size) != cudaSuccess)
            break;
        res->param_offset[i] = (int64_t)off;
        res->param_size[i] = (int64_t)size;
        res->n_params = i + 1;
    }
    cudaGetLastError();   /* the index past the last parameter is the loop's end, not an error */
    res->params_known = true;
    smem_fmt(res->source, sizeof(res->source), "driver");
    return SMEM_OK;
}

static int load_library(const char *file, cudaLibrary_t *lib, char *why, size_t len)
{
    cudaError_t e = cudaLibraryLoadFromFile(lib, file, NULL, NULL, 0, NULL, NULL, 0);

    if (e) {
        smem_fmt(why, len, "the driver cannot load %s: %s (%s): build it for this GPU (nvcc -cubin -arch=sm_XX, or "
                 "-fatbin with its architecture, or PTX it can JIT-compile)", file, cudaGetErrorName(e),
                 cudaGetErrorString(e));
        cudaGetLastError();
        return SMEM_EINVAL;
    }
    return SMEM_OK;
}

/* The names of a library's kernels, comma-joined. */
static void kernel_names(cudaLibrary_t lib, char *buf, size_t len)
{
    unsigned n = 0;
    cudaKernel_t ks[64];

    buf[0] = 0;
    if (cudaLibraryGetKernelCount(&n, lib) || !n)
        return;
    if (n > 64)
        n = 64;
    if (cudaLibraryEnumerateKernels(ks, n, lib))
        return;
    for (unsigned i = 0; i < n; i++) {
        const char *name = NULL;
        if (!cudaFuncGetName(&name, (const void *)ks[i]) && name)
            join(buf, len, name);
    }
}
#endif

/* The toolkit program that read a file's resources. */
static const char *tool_of(const char *file)
{
    enum smem_code_kind kind;
    char why[256];

    return !smem_code_kind_of(file, &kind, why, sizeof(why)) && kind == SMEM_CODE_PTX ? "ptxas" : "cuobjdump";
}

/* The resources of one kernel as the toolkit read them from file. */
static void resources_from(const struct smem_cubin_kernel *k, const char *file, struct smem_user_resources *res)
{
    memset(res, 0, sizeof(*res));
    res->regs = k->regs;
    res->static_smem = k->static_smem;
    res->local_bytes = k->local_bytes;
    res->max_threads = k->max_threads;
    res->params_known = k->params_known;
    res->n_params = k->n_params < SMEM_USER_MAX_PARAMS ? k->n_params : SMEM_USER_MAX_PARAMS;
    for (size_t p = 0; p < res->n_params; p++) {
        res->param_offset[p] = k->param_offset[p];
        res->param_size[p] = k->param_size[p];
    }
    smem_fmt(res->source, sizeof(res->source), "%s sm_%d", tool_of(file), k->arch);
}

/* The file's resources for function on dev, through the toolkit. */
static int file_resources(const char *file, const char *function, const struct smem_device *dev,
                          struct smem_user_resources *res, char *why, size_t len)
{
    /* the last file read, kept: --list of a program's registered kernels reads the program (all of
     * libsmembench's code with it) once, not once per kernel (16 kernels took 77 s) */
    static struct { char file[4096]; int cc; struct smem_cubin_kernel *ks; size_t n; } last;
    int cc = dev->cc_major * 10 + dev->cc_minor;

    if (!last.ks || last.cc != cc || strcmp(last.file, file)) {
        struct smem_cubin_kernel *ks = NULL;
        size_t n = 0;
        if (smem_cubin_resources(file, cc, &ks, &n, why, len))
            return SMEM_EINVAL;
        free(last.ks);
        last.ks = ks;
        last.n = n;
        last.cc = cc;
        smem_fmt(last.file, sizeof(last.file), "%s", file);
    }
    for (size_t i = 0; i < last.n; i++)
        if (!strcmp(last.ks[i].name, function)) {
            resources_from(&last.ks[i], file, res);
            return SMEM_OK;
        }
    {
        char names[1024] = "";
        for (size_t i = 0; i < last.n; i++)
            join(names, sizeof(names), last.ks[i].name);
        smem_fmt(why, len, "%s has no kernel \"%s\"; its kernels: %s (a C++ kernel goes by its mangled name, or "
                 "declare it extern \"C\")", file, function, names[0] ? names : "none");
    }
    return SMEM_EINVAL;
}

int smem_kernel_open(struct smem_kernel_job *j, const struct smem_device *dev, bool predict, double watchdog_s)
{
    char why[1024] = "";
    int rc;

    j->k = (struct smem_user_kernel){ .desc = &j->desc, .file = j->file, .watchdog_s = watchdog_s };
    if (j->registered >= 0 && !predict) {
#if SMEM_HAVE_CUDA
        const struct registered *r = &registered[j->registered];
        j->k.fn = r->fn;
        j->k.launch = r->launch;
        j->k.user = r->user;
        if ((rc = driver_resources(j->k.fn, &j->k.res, why, sizeof(why)))) {
            smem_error("%s: %s", j->desc.function, why);
            return rc;
        }
#endif
    } else if (predict) {
        if ((rc = file_resources(j->file, j->desc.function, dev, &j->k.res, why, sizeof(why)))) {
            smem_error("%s", why);
            return rc;
        }
    } else {
#if SMEM_HAVE_CUDA
        cudaLibrary_t lib;
        cudaKernel_t kern;
        cudaError_t e;
        if (!j->loaded) {
            if ((rc = load_library(j->file, &lib, why, sizeof(why)))) {
                smem_error("%s", why);
                return rc;
            }
            j->library = (void *)lib;
            j->loaded = true;
        }
        lib = (cudaLibrary_t)j->library;
        if ((e = cudaLibraryGetKernel(&kern, lib, j->desc.function))) {
            char names[1024];
            cudaGetLastError();
            kernel_names(lib, names, sizeof(names));
            smem_error("%s has no kernel \"%s\"; its kernels: %s (a C++ kernel goes by its mangled name, or declare it "
                       "extern \"C\")", j->file, j->desc.function, names[0] ? names : "none");
            return SMEM_EINVAL;
        }
        j->k.fn = (const void *)kern;
        if ((rc = driver_resources(j->k.fn, &j->k.res, why, sizeof(why)))) {
            smem_error("%s: %s", j->desc.function, why);
            return rc;
        }
#else
        smem_error("this smembench was built without CUDA: --kernel runs only in predict mode (--predict MODEL)");
        return SMEM_ENODEV;
#endif
    }
    if ((rc = smem_user_bench_make(&j->k, &j->bench, why, sizeof(why)))) {
        smem_error("%s", why);
        return rc;
    }
    return SMEM_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* Sorted, without repeats. */
static size_t unique(int64_t *v, size_t n)
{
    size_t k = 0;

    qsort(v, n, sizeof(*v), cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* The values a sweep gives its built-in axis on dev. */
static size_t sweep_values(const struct smem_kernel_job *j, int axis, const struct smem_device *dev, bool quick,
                           int64_t *out, size_t max)
{
    size_t n = 0;
    int64_t ceiling = dev->smem_per_block_optin - j->k.res.static_smem, step = (quick ? 16 : 8) * 1024;
    int top = j->k.res.max_threads > 0 && j->k.res.max_threads < dev->max_threads_per_block ? j->k.res.max_threads
                                                                                           : dev->max_threads_per_block;

    switch (axis) {
    case 0:   /* the driver's default first, then the device's percentages with every carveout step */
        out[n++] = -1;
        n += smem_carveout_device_pcts(dev, quick, out + n, max - n);
        break;
    case 1:   /* 0 .. the opt-in ceiling; the default limit (48 KiB) on both sides of its step */
        for (int64_t s = 0; s <= ceiling && n + 3 < max; s += step)
            out[n++] = s;
        if (dev->smem_per_block - j->k.res.static_smem > 0 && n + 2 < max) {
            out[n++] = dev->smem_per_block - j->k.res.static_smem;
            out[n++] = dev->smem_per_block - j->k.res.static_smem + 1024;
        }
        if (ceiling >= 0 && n < max)
            out[n++] = ceiling;
        break;
    case 2:
        for (int b = 32; b <= top && n < max; b *= 2)
            out[n++] = b;
        break;
    case 3:
        for (int c = 1; c <= 8 && n < max; c *= 2)
            out[n++] = c;
        break;
    }
    return unique(out, n);
}

/* Appends the cartesian product of lists to *points (one point per combination). */
static int product(const struct smem_bench *b, const char *sweep, int64_t *const *lists, const size_t *lens,
                   struct smem_point **points, size_t *n, size_t *cap)
{
    size_t idx[SMEM_MAX_AXES] = { 0 };

    for (size_t i = 0; i < b->n_axes; i++)
        if (!lens[i])
            return SMEM_OK;
    for (;;) {
        if (*n == *cap) {
            size_t cap2 = *cap ? *cap * 2 : 64;
            struct smem_point *p = cap2 > SMEM_MAX_POINTS ? NULL : realloc(*points, cap2 * sizeof(*p));
            if (!p) {
                smem_error("a user kernel's plan of more than %d points (or out of memory): fewer axis values",
                           SMEM_MAX_POINTS);
                return SMEM_EINVAL;
            }
            *points = p;
            *cap = cap2;
        }
        struct smem_point *pt = &(*points)[(*n)++];
        memset(pt, 0, sizeof(*pt));
        pt->bench = b;
        pt->sweep = sweep;
        for (size_t i = 0; i < b->n_axes; i++)
            pt->values[i] = lists[i][idx[i]];
        size_t a = b->n_axes;
        while (a-- > 0) {
            if (++idx[a] < lens[a])
                break;
            idx[a] = 0;
        }
        if (a == (size_t)-1)
            return SMEM_OK;
    }
}

/* A buffer's count at the values of a point, in bytes; -1 (why set) when it does not evaluate. */
static int64_t bytes_at(const struct smem_kernel_job *j, const struct smem_user_arg *a, const int64_t *values,
                        const struct smem_device *dev, char *why, size_t len)
{
    const char *names[SMEM_MAX_AXES + 16];
    double vals[SMEM_MAX_AXES + 16];
    struct smem_user_vars v = { names, vals, 0 };
    int64_t count;

    v.n = smem_user_vars_at(j->bench, values, dev, names, vals);
    if (smem_user_eval_int(a->count, a->name, &v, 0, INT64_C(1) << 50, &count, why, len))
        return -1;
    return count * (int64_t)smem_user_type_size(a->type);
}

/* The size of a file the run reads whole; -1 with one line when it is not a regular file. */
static int64_t input_size(const char *path, const char *what)
{
    struct stat st;

    if (stat(path, &st)) {
        smem_error("cannot read %s %s: %s", what, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        smem_error("%s %s is not a regular file; give a file of the buffer's raw elements", what, path);
        return -1;
    }
    return (int64_t)st.st_size;
}

int smem_kernel_check_files(const struct smem_kernel_job *j, const struct smem_point *points, size_t n,
                            const struct smem_device *dev)
{
    const struct smem_user_desc *d = &j->desc;
    char why[512], what[128];

    for (size_t i = 0; i < d->n_args; i++) {
        const struct smem_user_arg *a = &d->args[i];
        int64_t size, want = -1;
        if (!a->pointer || a->fill != SMEM_USER_FILL_FILE)
            continue;
        smem_fmt(what, sizeof(what), "the fill file of args[%zu] \"%s\"", i, a->name);
        if ((size = input_size(a->file, what)) < 0)
            return SMEM_EINVAL;
        for (size_t p = 0; p < n; p++)
            if ((want = bytes_at(j, a, points[p].values, dev, why, sizeof(why))) >= 0 && want != size) {
                smem_error("%s (%s) has %lld bytes; %s needs exactly %lld (its count, %s, times its element size)",
                           what, a->file, (long long)size, a->name, (long long)want, a->count);
                return SMEM_EINVAL;
            }
    }
    if (d->reference_arg >= 0) {
        const struct smem_user_arg *a = &d->args[d->reference_arg];
        int64_t size, want = -1;
        bool fits = !n;
        if ((size = input_size(d->reference_file, "the reference file")) < 0)
            return SMEM_EINVAL;
        /* it holds the output of the first group's first configuration: some point's size */
        for (size_t p = 0; p < n && !fits; p++) {
            int64_t b = bytes_at(j, a, points[p].values, dev, why, sizeof(why));
            fits = b < 0 || b == size;
            want = want < 0 ? b : want;
        }
        if (!fits) {
            smem_error("the reference file %s has %lld bytes; output %s needs exactly %lld (its count, %s, times its "
                       "element size)", d->reference_file, (long long)size, a->name, (long long)want, a->count);
            return SMEM_EINVAL;
        }
    }
    return SMEM_OK;
}

int smem_kernel_points(const struct smem_kernel_job *j, const struct smem_options *o, const struct smem_device *dev,
                       struct smem_point **points, size_t *n)
{
    static const char *const defaults[] = { "carveout", "dynamic" };
    static const char *const every[] = { "carveout", "dynamic", "block", "cluster", "axes" };
    const struct smem_bench *b = j->bench;
    const char *const *sweeps = o->n_sweeps ? o->sweeps : defaults;
    size_t n_sweeps = o->n_sweeps ? o->n_sweeps : 2, cap = 0;
    int64_t *store = calloc(SMEM_MAX_AXES * SMEM_MAX_AXIS_VALUES, sizeof(int64_t));
    int rc = SMEM_OK;

    *points = NULL;
    *n = 0;
    if (!store)
        return SMEM_ENOMEM;
    for (size_t s = 0; s < n_sweeps && !rc; s++) {
        bool all = !strcmp(sweeps[s], "all");
        for (size_t e = 0; e < (all ? 5 : 1) && !rc; e++) {
            const char *sw = all ? every[e] : sweeps[s];
            int swept = swept_axis(sw);
            int64_t *lists[SMEM_MAX_AXES];
            size_t lens[SMEM_MAX_AXES];
            for (size_t i = 0; i < b->n_axes && !rc; i++) {
                const struct smem_override *ov = NULL;
                lists[i] = store + i * SMEM_MAX_AXIS_VALUES;
                for (size_t k = 0; k < o->n_overrides; k++)
                    if (!strcmp(o->overrides[k].name, b->axes[i].name))
                        ov = &o->overrides[k];
                if (ov)
                    rc = smem_sweep_parse_list(ov->list, &b->axes[i], lists[i], SMEM_MAX_AXIS_VALUES, &lens[i]);
                else if ((int)i == swept)
                    lens[i] = sweep_values(j, swept, dev, o->quick, lists[i], SMEM_MAX_AXIS_VALUES);
                else {
                    lens[i] = b->axes[i].n_defaults;
                    memcpy(lists[i], b->axes[i].defaults, lens[i] * sizeof(int64_t));
                }
            }
            if (!rc)
                rc = product(b, sw, lists, lens, points, n, &cap);
        }
    }
    free(store);
    if (!rc) {
        /* a configuration two sweeps reach (every sweep's defaults) is one point, under the first:
         * the gate and the fleet key points by their values */
        size_t kept = 0;
        for (size_t i = 0; i < *n; i++) {
            bool seen = false;
            for (size_t k = 0; k < kept && !seen; k++)
                seen = !memcmp((*points)[k].values, (*points)[i].values, b->n_axes * sizeof(int64_t));
            if (!seen)
                (*points)[kept++] = (*points)[i];
        }
        *n = kept;
    }
    if (rc) {
        free(*points);
        *points = NULL;
        *n = 0;
    }
    return rc;
}

cJSON *smem_kernel_record(const struct smem_kernel_job *j)
{
    cJSON *k = cJSON_CreateObject(), *res, *params, *desc, *ver;
    const struct smem_user_resources *r = &j->k.res;
    struct smem_user_verdict v;
    const char *base = strrchr(j->file, '/');

    if (!k)
        return NULL;
    cJSON_AddStringToObject(k, "file", base ? base + 1 : j->file);
    {
        char abs[4096];
        cJSON_AddStringToObject(k, "path", realpath(j->file, abs) ? abs : j->file);
    }
    smem_json_string(k, "sha256", j->sha256);   /* null: sha256sum could not be run */
    cJSON_AddStringToObject(k, "kind", j->registered >= 0 ? "registered" : smem_code_kind_name(j->kind));
    cJSON_AddStringToObject(k, "function", j->desc.function);
    res = cJSON_AddObjectToObject(k, "resources");
    cJSON_AddNumberToObject(res, "regs", r->regs);
    smem_json_int(res, "static_smem_bytes", (long long)(r->static_smem));
    smem_json_int(res, "local_bytes", (long long)(r->local_bytes));
    if (r->max_threads > 0)
        cJSON_AddNumberToObject(res, "max_threads_per_block", r->max_threads);
    else
        cJSON_AddNullToObject(res, "max_threads_per_block");
    params = cJSON_AddArrayToObject(res, "params");
    for (size_t i = 0; r->params_known && i < r->n_params; i++) {
        cJSON *p = cJSON_CreateObject();
        smem_json_int(p, "offset", (long long)(r->param_offset[i]));
        smem_json_int(p, "size", (long long)(r->param_size[i]));
        cJSON_AddItemToArray(params, p);
    }
    cJSON_AddStringToObject(res, "source", r->source);
    desc = j->desc.json ? cJSON_Parse(j->desc.json) : NULL;
    cJSON_AddItemToObject(k, "description", desc ? desc : cJSON_CreateNull());
    base = strrchr(j->desc.path, '/');
    cJSON_AddStringToObject(k, "description_file", base ? base + 1 : j->desc.path);
    smem_json_string(k, "description_sha256", j->desc_sha256);
    smem_user_verdict(&v);
    ver = cJSON_AddObjectToObject(k, "verification");
    smem_json_int(ver, "groups", (long long)(v.groups));
    smem_json_int(ver, "configurations", (long long)(v.configurations));
    smem_json_int(ver, "mismatches", (long long)(v.mismatches));
    cJSON_AddStringToObject(ver, "reference", v.reference);
    return k;
}

/* One kernel's line of --list. */
static void list_line(FILE *out, const char *name, const struct smem_user_resources *r)
{
    fprintf(out, "%s\n  registers %d, static shared memory %lld bytes, local %lld bytes, max threads per block ", name,
            r->regs, (long long)r->static_smem, (long long)r->local_bytes);
    if (r->max_threads > 0)
        fprintf(out, "%d", r->max_threads);
    else
        fputs("not fixed", out);
    fprintf(out, " (%s)\n  parameters:", r->source);
    if (!r->params_known)
        fputs(" not known", out);
    else if (!r->n_params)
        fputs(" none", out);
    for (size_t i = 0; r->params_known && i < r->n_params; i++)
        fprintf(out, " %zu:%lldB@%lld", i, (long long)r->param_size[i], (long long)r->param_offset[i]);
    fputc('\n', out);
}

int smem_kernel_list(const char *file, const struct smem_device *dev, bool from_driver, FILE *out)
{
    char why[1024], self[4096];
    enum smem_code_kind kind;
    int reg = find_registered(file);

    if (reg >= 0 || (n_registered && !strcmp(file, "all"))) {
        /* a program's own kernels: the driver's view, or its own file read by the toolkit */
        self_path(self, sizeof(self));
        fprintf(out, "%s (registered kernels)\n", self);
        for (size_t i = 0; i < n_registered; i++) {
            struct smem_user_resources r;
            if (reg >= 0 && (int)i != reg)
                continue;
            if (from_driver) {
#if SMEM_HAVE_CUDA
                if (driver_resources(registered[i].fn, &r, why, sizeof(why))) {
                    smem_error("%s: %s", registered[i].name, why);
                    return SMEM_EINVAL;
                }
#endif
            } else if (file_resources(self, registered[i].name, dev, &r, why, sizeof(why))) {
                smem_error("%s", why);
                return SMEM_EINVAL;
            }
            list_line(out, registered[i].name, &r);
        }
        return SMEM_OK;
    }
    if (smem_code_kind_of(file, &kind, why, sizeof(why))) {
        smem_error("%s", why);
        return SMEM_EINVAL;
    }
    if (from_driver) {
#if SMEM_HAVE_CUDA
        cudaLibrary_t lib;
        cudaKernel_t ks[256];
        unsigned n = 0;
        if (load_library(file, &lib, why, sizeof(why))) {
            smem_error("%s", why);
            return SMEM_EINVAL;
        }
        if (cudaLibraryGetKernelCount(&n, lib) || (n > 256 && (n = 256) == 0) ||
            (n && cudaLibraryEnumerateKernels(ks, n, lib))) {
            smem_error("the driver cannot list the kernels of %s", file);
            return SMEM_EINVAL;
        }
        fprintf(out, "%s (%s)\n", file, smem_code_kind_name(kind));
        for (unsigned i = 0; i < n; i++) {
            const char *name = "?";
            struct smem_user_resources r;
            cudaFuncGetName(&name, (const void *)ks[i]);
            if (!driver_resources((const void *)ks[i], &r, why, sizeof(why)))
                list_line(out, name, &r);
        }
        if (!n)
            fputs("  no kernels\n", out);
        cudaLibraryUnload(lib);
        return SMEM_OK;
#endif
    }
    {
        struct smem_cubin_kernel *ks = NULL;
        size_t n = 0;
        if (smem_cubin_resources(file, dev->cc_major * 10 + dev->cc_minor, &ks, &n, why, sizeof(why))) {
            smem_error("%s", why);
            return SMEM_EINVAL;
        }
        fprintf(out, "%s (%s)\n  (no GPU: resources of the code a compute capability %d.%d device (%s) would run)\n",
                file, smem_code_kind_name(kind), dev->cc_major, dev->cc_minor, dev->name);
        for (size_t i = 0; i < n; i++) {
            struct smem_user_resources r;
            resources_from(&ks[i], file, &r);
            list_line(out, ks[i].name, &r);
        }
        free(ks);
    }
    return SMEM_OK;
}

void smem_kernel_close(struct smem_kernel_job *j)
{
#if SMEM_HAVE_CUDA
    if (j->loaded && !smem_user_hung())
        cudaLibraryUnload((cudaLibrary_t)j->library);
#endif
    j->loaded = false;
    smem_user_bench_free();
    smem_user_desc_free(&j->desc);
}
