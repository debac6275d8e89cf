/* A user's kernel as a benchmark (bench/user.h): the descriptor built from the launch description,
 * its plan from the description's expressions, and the GPU operations: buffers allocated and filled
 * as the description says, outputs poisoned, the launch (the user's function, or the kernel itself
 * with the prepared arguments and the carveout as a launch attribute too), and the check of every
 * configuration against the first of its group. One user kernel per process. */
#define _POSIX_C_SOURCE 200809L
#include "user.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "rng.h"
#include "smem.h"

#if SMEM_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#endif

#define MAX_GROUPS 256

static const char *const builtin_names[SMEM_USER_BUILTIN_AXES] = { "carveout_pct", "dyn_smem_bytes", "block", "cluster" };
enum { AX_CARVEOUT, AX_DYN, AX_BLOCK, AX_CLUSTER };

/* The first configuration of a group (one set of user-axis values): its outputs and what it was. */
struct group {
    int64_t values[SMEM_USER_MAX_AXES];
    void *out[SMEM_USER_MAX_ARGS];
    size_t bytes[SMEM_USER_MAX_ARGS];
    char config[160];
    int residency;
};

static struct {
    struct smem_user_kernel k;
    struct smem_bench bench;
    struct smem_axis axes[SMEM_MAX_AXES];
    int64_t defaults[SMEM_MAX_AXES];
    char summary[320];
    struct group groups[MAX_GROUPS];
    size_t n_groups, configurations, mismatches;
    const char *reference;
    bool hung;
    struct { size_t bytes; void *h; } inputs[SMEM_USER_MAX_ARGS];  /* each input's last host fill */
} U;

int smem_user_check_params(const struct smem_user_desc *d, const struct smem_user_resources *res, char *why,
                           size_t why_len)
{
    if (!res->params_known)
        return SMEM_OK;
    if (res->n_params != d->n_args) {
        smem_fmt(why, why_len, "%s: %zu argument%s for %s, which takes %zu parameter%s: give one args entry per "
                 "parameter, in order", d->path, d->n_args, d->n_args == 1 ? "" : "s", d->function, res->n_params,
                 res->n_params == 1 ? "" : "s");
        return SMEM_EINVAL;
    }
    for (size_t i = 0; i < d->n_args; i++) {
        const struct smem_user_arg *a = &d->args[i];
        int64_t want = a->pointer ? (int64_t)sizeof(void *) : (int64_t)smem_user_type_size(a->type);
        if (res->param_size[i] != want) {
            smem_fmt(why, why_len, "%s: args[%zu] \"%s\" is %s%s (%lld bytes) but parameter %zu of %s is %lld bytes: "
                     "give the parameter's type", d->path, i, a->name, smem_user_type_name(a->type),
                     a->pointer ? "*" : "", (long long)want, i, d->function, (long long)res->param_size[i]);
            return SMEM_EINVAL;
        }
    }
    return SMEM_OK;
}

size_t smem_user_vars_at(const struct smem_bench *b, const int64_t *values, const struct smem_device *dev,
                         const char **names, double *vals)
{
    size_t n = 0;

    for (size_t i = 0; i < b->n_axes; i++) {
        names[n] = b->axes[i].name;
        vals[n++] = (double)values[i];
    }
    static const char *const dev_names[] = { "sm_count", "warp_size", "smem_per_block", "smem_per_block_optin",
                                             "smem_per_sm", "l2_bytes", "max_threads_per_block" };
    double dev_vals[] = { dev->sm_count, dev->warp_size, (double)dev->smem_per_block, (double)dev->smem_per_block_optin,
                          (double)dev->smem_per_sm, (double)dev->l2_bytes, dev->max_threads_per_block };
    for (size_t i = 0; i < SMEM_ARRAY_LEN(dev_names); i++) {
        names[n] = dev_names[i];
        vals[n++] = dev_vals[i];
    }
    return n;
}

/* The expression variables of a point or a case. */
static void vars_of(const int64_t *values, const struct smem_device *dev, const char **names, double *vals,
                    struct smem_user_vars *v)
{
    v->n = smem_user_vars_at(&U.bench, values, dev, names, vals);
    v->names = names;
    v->values = vals;
}

static int user_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                     size_t len)
{
    const struct smem_user_desc *d = U.k.desc;
    const char *names[SMEM_MAX_AXES + 16];
    double vals[SMEM_MAX_AXES + 16];
    struct smem_user_vars v;
    int64_t grid, block, cluster, dyn;

    vars_of(pt->values, dev, names, vals, &v);
    if (smem_user_eval_int(d->grid, "grid", &v, 1, INT32_MAX, &grid, why, len) ||
        smem_user_eval_int(d->block, "block", &v, 1, 1024, &block, why, len) ||
        smem_user_eval_int(d->cluster, "cluster", &v, 0, 16, &cluster, why, len) ||
        smem_user_eval_int(d->dynamic_smem, "dynamic_smem", &v, 0, INT32_MAX, &dyn, why, len))
        return SMEM_ESKIP;
    if (U.k.res.max_threads > 0 && block > U.k.res.max_threads) {
        smem_fmt(why, len, "a block of %lld threads exceeds %s's %d (its registers or __launch_bounds__)",
                 (long long)block, d->function, U.k.res.max_threads);
        return SMEM_ESKIP;
    }
    if (block > dev->max_threads_per_block) {
        smem_fmt(why, len, "a block of %lld threads exceeds %s's %d", (long long)block, dev->name,
                 dev->max_threads_per_block);
        return SMEM_ESKIP;
    }
    if (dyn + U.k.res.static_smem > dev->smem_per_block_optin) {
        smem_fmt(why, len, "%lld dynamic and %lld static bytes of shared memory exceed the opt-in ceiling of %lld "
                 "bytes per block on %s", (long long)dyn, (long long)U.k.res.static_smem,
                 (long long)dev->smem_per_block_optin, dev->name);
        return SMEM_ESKIP;
    }
    if (cluster && dev->cc_major < 9) {
        smem_fmt(why, len, "thread block clusters need compute capability 9.0; %s is %d.%d", dev->name, dev->cc_major,
                 dev->cc_minor);
        return SMEM_ESKIP;
    }
    if (cluster && grid % cluster) {
        smem_fmt(why, len, "a grid of %lld blocks is not a multiple of the cluster of %lld: make the grid expression "
                 "round_up(..., cluster)", (long long)grid, (long long)cluster);
        return SMEM_ESKIP;
    }
    *p = (struct smem_plan){ .block = (unsigned)block, .grid = (unsigned)grid, .cluster = (unsigned)cluster,
                             .dyn_smem = (size_t)dyn, .static_smem = (size_t)U.k.res.static_smem,
                             .regs = U.k.res.regs, .carveout_pct = (int)pt->values[AX_CARVEOUT], .optin = true };
    return SMEM_OK;
}

static void user_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    (void)c;
    smem_metrics_add(m, "time_us", "us", t->seconds * 1e6, 0, SMEM_LOWER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

/* One point's buffers and arguments. */
struct user_priv {
    void *dev[SMEM_USER_MAX_ARGS];
    size_t bytes[SMEM_USER_MAX_ARGS];
    unsigned char scalar[SMEM_USER_MAX_ARGS][8];
    void *args[SMEM_USER_MAX_ARGS];
    bool launched;
};

SMEM_KERNEL(user, U.k.fn)

/* Writes x as type t at p. */
static void store(enum smem_user_type t, double x, void *p)
{
    switch (t) {
    case SMEM_USER_I8: { int8_t v = (int8_t)x; memcpy(p, &v, 1); break; }
    case SMEM_USER_U8: { uint8_t v = (uint8_t)x; memcpy(p, &v, 1); break; }
    case SMEM_USER_I16: { int16_t v = (int16_t)x; memcpy(p, &v, 2); break; }
    case SMEM_USER_U16: { uint16_t v = (uint16_t)x; memcpy(p, &v, 2); break; }
    case SMEM_USER_I32: { int32_t v = (int32_t)x; memcpy(p, &v, 4); break; }
    case SMEM_USER_U32: { uint32_t v = (uint32_t)x; memcpy(p, &v, 4); break; }
    case SMEM_USER_I64: { int64_t v = (int64_t)x; memcpy(p, &v, 8); break; }
    case SMEM_USER_U64: { uint64_t v = (uint64_t)x; memcpy(p, &v, 8); break; }
    case SMEM_USER_F32: { float v = (float)x; memcpy(p, &v, 4); break; }
    case SMEM_USER_F64: memcpy(p, &x, 8); break;
    }
}

/* Reads element i of type t at p as a double. */
static double load(enum smem_user_type t, const void *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p + i * smem_user_type_size(t);
    switch (t) {
    case SMEM_USER_I8: { int8_t v; memcpy(&v, b, 1); return v; }
    case SMEM_USER_U8: { uint8_t v; memcpy(&v, b, 1); return v; }
    case SMEM_USER_I16: { int16_t v; memcpy(&v, b, 2); return v; }
    case SMEM_USER_U16: { uint16_t v; memcpy(&v, b, 2); return v; }
    case SMEM_USER_I32: { int32_t v; memcpy(&v, b, 4); return v; }
    case SMEM_USER_U32: { uint32_t v; memcpy(&v, b, 4); return v; }
    case SMEM_USER_I64: { int64_t v; memcpy(&v, b, 8); return (double)v; }
    case SMEM_USER_U64: { uint64_t v; memcpy(&v, b, 8); return (double)v; }
    case SMEM_USER_F32: { float v; memcpy(&v, b, 4); return v; }
    case SMEM_USER_F64: { double v; memcpy(&v, b, 8); return v; }
    }
    return 0;
}

/* Reads a whole file of exactly bytes bytes into buf. */
static int read_exact(const char *path, void *buf, size_t bytes, const char *what, char *why, size_t len)
{
    FILE *f = fopen(path, "rb");
    long size;
    int rc = SMEM_OK;

    if (!f) {
        smem_fmt(why, len, "cannot read %s's file %s", what, path);
        return SMEM_EINVAL;
    }
    if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        smem_fmt(why, len, "cannot read %s's file %s", what, path);
        rc = SMEM_EINVAL;
    } else if ((size_t)size != bytes) {
        smem_fmt(why, len, "%s's file %s has %ld bytes; this point needs exactly %zu (its count times its element size)",
                 what, path, size, bytes);
        rc = SMEM_EINVAL;
    } else if (fread(buf, 1, bytes, f) != bytes) {
        smem_fmt(why, len, "cannot read %s's file %s", what, path);
        rc = SMEM_EINVAL;
    }
    fclose(f);
    return rc;
}

/* The host contents of a buffer argument: its fill, elements count of type a->type. The random
 * stream depends on the seed and the argument's position only, so every configuration gets the
 * same inputs. */
static int fill_host(const struct smem_user_desc *d, size_t i, size_t count, void *h, char *why, size_t len)
{
    const struct smem_user_arg *a = &d->args[i];
    size_t sz = smem_user_type_size(a->type);

    switch (a->fill) {
    case SMEM_USER_FILL_ZEROS:
        memset(h, 0, count * sz);
        return SMEM_OK;
    case SMEM_USER_FILL_CONSTANT:
        for (size_t e = 0; e < count; e++)
            store(a->type, a->constant, (unsigned char *)h + e * sz);
        return SMEM_OK;
    case SMEM_USER_FILL_FILE:
        return read_exact(a->file, h, count * sz, a->name, why, len);
    case SMEM_USER_FILL_RANDOM: {
        uint64_t seed = smem_rng_mix(d->seed * 1000003u + i);
        bool fl = smem_user_type_is_float(a->type);
        for (size_t e = 0; e < count; e++) {
            double u = (double)(smem_rng_at(seed, e) >> 11) * (1.0 / 9007199254740992.0);
            double x = a->lo + u * (a->hi - a->lo);
            store(a->type, fl ? x : floor(x), (unsigned char *)h + e * sz);
        }
        return SMEM_OK;
    }
    }
    return SMEM_OK;
}

static int user_setup(struct smem_case *c)
{
    const struct smem_user_desc *d = U.k.desc;
    const char *names[SMEM_MAX_AXES + 16];
    double vals[SMEM_MAX_AXES + 16];
    struct smem_user_vars v;
    struct user_priv *p = c->priv;
    size_t free_b = 0, total_b = 0, need = 0;
    int rc = SMEM_OK;
    void *h = NULL;

    vars_of(c->values, c->dev, names, vals, &v);
    for (size_t i = 0; i < d->n_args; i++) {
        const struct smem_user_arg *a = &d->args[i];
        if (!a->pointer) {
            double x;
            if (smem_user_eval(a->value, &v, &x, c->reason, sizeof(c->reason)))
                return SMEM_EINVAL;
            store(a->type, x, p->scalar[i]);
            p->args[i] = p->scalar[i];
            continue;
        }
        int64_t count;
        if (smem_user_eval_int(a->count, a->name, &v, 0, INT64_C(1) << 50, &count, c->reason, sizeof(c->reason)))
            return SMEM_EINVAL;
        p->bytes[i] = (size_t)count * smem_user_type_size(a->type);
        need += p->bytes[i];
    }
    SMEM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
        smem_fmt(c->reason, sizeof(c->reason), "the arguments' buffers need %zu bytes; %s has %zu free of %zu: "
                 "make the counts smaller", need, c->dev->name, free_b, total_b);
        return SMEM_ESKIP;
    }
    for (size_t i = 0; i < d->n_args; i++) {
        const struct smem_user_arg *a = &d->args[i];
        size_t count;
        if (!a->pointer)
            continue;
        count = p->bytes[i] / smem_user_type_size(a->type);
        SMEM_CUDA_CHECK(cudaMalloc(&p->dev[i], p->bytes[i] ? p->bytes[i] : 1));
        p->args[i] = &p->dev[i];
        if (a->access == SMEM_USER_OUT) {
            /* poisoned: a kernel that leaves an element unwritten is caught */
            SMEM_CUDA_CHECK(cudaMemset(p->dev[i], 0xff, p->bytes[i]));
            continue;
        }
        if (!U.inputs[i].h || U.inputs[i].bytes != p->bytes[i]) {
            /* the same inputs at every configuration: made once per size, kept for the next point */
            free(U.inputs[i].h);
            U.inputs[i].h = NULL;
            if (!(h = malloc(p->bytes[i] ? p->bytes[i] : 1))) {
                rc = SMEM_ENOMEM;
                goto fail;
            }
            if ((rc = fill_host(d, i, count, h, c->reason, sizeof(c->reason))))
                goto fail;
            U.inputs[i].h = h;
            U.inputs[i].bytes = p->bytes[i];
            h = NULL;
        }
        SMEM_CUDA_CHECK(cudaMemcpy(p->dev[i], U.inputs[i].h, p->bytes[i], cudaMemcpyHostToDevice));
    }
    return SMEM_OK;
fail:
    free(h);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int user_launch(struct smem_case *c)
{
    struct user_priv *p = c->priv;
    const struct smem_plan *pl = c->plan;
    cudaError_t e;
    int rc = SMEM_OK;

    if (U.k.launch) {
        struct smem_user_launch l = { .grid = c->grid, .block = pl->block, .cluster = pl->cluster,
                                      .dyn_smem = pl->dyn_smem, .carveout_pct = pl->carveout_pct, .values = c->values,
                                      .stream = c->stream, .args = p->args };
        e = (cudaError_t)U.k.launch(&l, U.k.user);
    } else {
        cudaLaunchAttribute attrs[2];
        cudaLaunchConfig_t cfg = { .gridDim = { c->grid, 1, 1 }, .blockDim = { pl->block, 1, 1 },
                                   .dynamicSmemBytes = pl->dyn_smem, .stream = (cudaStream_t)c->stream,
                                   .attrs = attrs, .numAttrs = 0 };
        if (pl->cluster) {
            attrs[cfg.numAttrs].id = cudaLaunchAttributeClusterDimension;
            attrs[cfg.numAttrs].val.clusterDim.x = pl->cluster;
            attrs[cfg.numAttrs].val.clusterDim.y = 1;
            attrs[cfg.numAttrs++].val.clusterDim.z = 1;
        }
        if (pl->carveout_pct >= 0) {
            /* per launch too: it takes precedence over the function attribute the driver set */
            attrs[cfg.numAttrs].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
            attrs[cfg.numAttrs++].val.sharedMemCarveout = (unsigned)pl->carveout_pct;
        }
        e = cudaLaunchKernelExC(&cfg, U.k.fn, p->args);
    }
    SMEM_CUDA_CHECK(e);
    if (!p->launched) {
        /* the first launch of a point is the one verified: a watchdog bounds it, since a kernel that
         * spins forever cannot be stopped from the host */
        double t0 = now_s();
        p->launched = true;
        while ((e = cudaStreamQuery((cudaStream_t)c->stream)) == cudaErrorNotReady) {
            if (now_s() - t0 > U.k.watchdog_s) {
                U.hung = true;
                smem_fmt(c->reason, sizeof(c->reason), "the kernel did not finish within %.0f s: a hang (a spin on "
                         "a condition that never comes, a grid barrier without co-residency?); smembench stops here",
                         U.k.watchdog_s);
                return SMEM_ESTICKY;
            }
            struct timespec ts = { 0, 200000 };
            nanosleep(&ts, NULL);
        }
        SMEM_CUDA_CHECK(e);
    }
    return SMEM_OK;
fail:
    return rc;
}

/* "carveout_pct=-1 dyn_smem_bytes=0 block=256 cluster=0" of a case. */
static void describe_config(const struct smem_case *c, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = 0;
    for (size_t i = 0; i < SMEM_USER_BUILTIN_AXES && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%lld", i ? " " : "", builtin_names[i], (long long)c->values[i]);
}

static int residency_of(const struct smem_case *c)
{
    int blocks = -1;

    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, U.k.fn, (int)c->plan->block, c->plan->dyn_smem))
        blocks = -1;
    return blocks;
}

/* The first element where got and want differ beyond the tolerance; -1 when none. */
static long long first_difference(const struct smem_user_arg *a, const void *got, const void *want, size_t count,
                                  size_t *n_diff)
{
    long long first = -1;

    *n_diff = 0;
    if (!smem_user_type_is_float(a->type) || (a->tol_abs == 0 && a->tol_rel == 0)) {
        size_t sz = smem_user_type_size(a->type);
        for (size_t e = 0; e < count; e++)
            if (memcmp((const char *)got + e * sz, (const char *)want + e * sz, sz)) {
                if (first < 0)
                    first = (long long)e;
                (*n_diff)++;
            }
        return first;
    }
    for (size_t e = 0; e < count; e++) {
        double g = load(a->type, got, e), w = load(a->type, want, e);
        if (!(fabs(g - w) <= a->tol_abs + a->tol_rel * fabs(w))) {
            if (first < 0)
                first = (long long)e;
            (*n_diff)++;
        }
    }
    return first;
}

/* The group of the case's user-axis values, made when new. */
static struct group *group_of(const struct smem_case *c, bool *fresh)
{
    size_t nu = U.k.desc->n_axes;

    *fresh = false;
    for (size_t g = 0; g < U.n_groups; g++)
        if (!memcmp(U.groups[g].values, c->values + SMEM_USER_BUILTIN_AXES, nu * sizeof(int64_t)))
            return &U.groups[g];
    if (U.n_groups == MAX_GROUPS)
        return NULL;
    *fresh = true;
    memcpy(U.groups[U.n_groups].values, c->values + SMEM_USER_BUILTIN_AXES, nu * sizeof(int64_t));
    return &U.groups[U.n_groups++];
}

static int user_verify(struct smem_case *c)
{
    const struct smem_user_desc *d = U.k.desc;
    struct user_priv *p = c->priv;
    bool fresh;
    struct group *g = group_of(c, &fresh);
    void *h[SMEM_USER_MAX_ARGS] = { 0 };
    int rc = SMEM_OK;

    if (!g) {
        smem_fmt(c->reason, sizeof(c->reason), "more than %d sets of user-axis values: fewer values to compare",
                 MAX_GROUPS);
        return SMEM_EINVAL;
    }
    U.configurations++;
    for (size_t i = 0; i < d->n_args; i++) {
        if (!d->args[i].pointer || d->args[i].access == SMEM_USER_IN)
            continue;
        if (!(h[i] = malloc(p->bytes[i] ? p->bytes[i] : 1))) {
            rc = SMEM_ENOMEM;
            goto fail;
        }
        SMEM_CUDA_CHECK(cudaMemcpy(h[i], p->dev[i], p->bytes[i], cudaMemcpyDeviceToHost));
    }
    if (fresh) {
        /* the first configuration of its group: the one the others must equal; the reference's */
        describe_config(c, g->config, sizeof(g->config));
        g->residency = residency_of(c);
        if (d->reference_arg >= 0 && U.n_groups == 1) {
            size_t i = (size_t)d->reference_arg, n_diff;
            void *ref = malloc(p->bytes[i] ? p->bytes[i] : 1);
            long long at;
            if (!ref) {
                rc = SMEM_ENOMEM;
                goto fail;
            }
            if ((rc = read_exact(d->reference_file, ref, p->bytes[i], "the reference", c->reason, sizeof(c->reason)))) {
                free(ref);
                goto fail;
            }
            at = first_difference(&d->args[i], h[i], ref, p->bytes[i] / smem_user_type_size(d->args[i].type), &n_diff);
            if (at >= 0) {
                U.reference = "mismatch";
                smem_fmt(c->reason, sizeof(c->reason), "%s[%lld] = %.9g where the reference %s has %.9g (%zu elements "
                         "differ)", d->args[i].name, at, load(d->args[i].type, h[i], (size_t)at), d->reference_file,
                         load(d->args[i].type, ref, (size_t)at), n_diff);
                free(ref);
                rc = SMEM_EVERIFY;
                goto fail;
            }
            U.reference = "matched";
            free(ref);
        }
        for (size_t i = 0; i < d->n_args; i++) {
            g->out[i] = h[i];
            g->bytes[i] = p->bytes[i];
            h[i] = NULL;
        }
        return SMEM_OK;
    }
    for (size_t i = 0; i < d->n_args; i++) {
        size_t n_diff;
        long long at;
        if (!h[i])
            continue;
        if (g->bytes[i] != p->bytes[i]) {
            smem_fmt(c->reason, sizeof(c->reason), "%s has %zu bytes here and %zu in the first configuration (%s): a count "
                     "that depends on the configuration cannot be compared", d->args[i].name, p->bytes[i], g->bytes[i],
                     g->config);
            rc = SMEM_EVERIFY;
            goto fail;
        }
        at = first_difference(&d->args[i], h[i], g->out[i], p->bytes[i] / smem_user_type_size(d->args[i].type), &n_diff);
        if (at >= 0) {
            char here[160];
            describe_config(c, here, sizeof(here));
            U.mismatches++;
            /* the verdict first: a reason is cut at SMEM_REASON_LEN */
            smem_fmt(c->reason, sizeof(c->reason), "a race: outputs differ from the first configuration's (residency %d "
                     "blocks/SM here, %d there): %s[%lld] = %.9g, was %.9g (%zu elements differ); first: %s",
                     residency_of(c), g->residency, d->args[i].name, at, load(d->args[i].type, h[i], (size_t)at),
                     load(d->args[i].type, g->out[i], (size_t)at), n_diff, g->config);
            rc = SMEM_EVERIFY;
            goto fail;
        }
    }
fail:
    for (size_t i = 0; i < d->n_args; i++)
        free(h[i]);
    return rc;
}

static void user_teardown(struct smem_case *c)
{
    struct user_priv *p = c->priv;

    if (!U.hung)    /* after a hang every call would wait for the kernel that never ends */
        for (size_t i = 0; i < SMEM_USER_MAX_ARGS; i++)
            cudaFree(p->dev[i]);
}
#endif

int smem_user_bench_make(const struct smem_user_kernel *k, const struct smem_bench **out, char *why, size_t why_len)
{
    const struct smem_user_desc *d = k->desc;
    int64_t base[SMEM_USER_BUILTIN_AXES] = { d->def_carveout, d->def_dyn_smem, d->def_block, d->def_cluster };
    static const int64_t lo[SMEM_USER_BUILTIN_AXES] = { -1, 0, 1, 0 }, hi[SMEM_USER_BUILTIN_AXES] = { 100, 256 * 1024, 1024, 16 };
    static const char *const units[SMEM_USER_BUILTIN_AXES] = { "%", "bytes", "threads", "blocks" };
    static const char *const helps[SMEM_USER_BUILTIN_AXES] = {
        "preferred shared-memory carveout (-1: the driver's default)", "dynamic shared memory per block",
        "threads per block", "blocks per thread block cluster (0: not a cluster launch)" };
    int rc;

    if (d->n_axes > SMEM_USER_MAX_AXES) {
        smem_fmt(why, why_len, "%s: %zu axes; at most %d", d->path, d->n_axes, SMEM_USER_MAX_AXES);
        return SMEM_EINVAL;
    }
    if ((rc = smem_user_check_params(d, &k->res, why, why_len)))
        return rc;
    smem_user_bench_free();
    U.k = *k;
    if (U.k.watchdog_s <= 0)
        U.k.watchdog_s = 10;
    U.reference = d->reference_arg >= 0 ? "not checked" : "none";
    for (size_t i = 0; i < SMEM_USER_BUILTIN_AXES; i++) {
        U.defaults[i] = base[i];
        U.axes[i] = (struct smem_axis){ .name = builtin_names[i], .unit = units[i], .help = helps[i],
                                        .defaults = &U.defaults[i], .n_defaults = 1, .min = lo[i], .max = hi[i] };
    }
    for (size_t i = 0; i < d->n_axes; i++)
        U.axes[SMEM_USER_BUILTIN_AXES + i] = (struct smem_axis){
            .name = d->axes[i].name, .unit = d->axes[i].unit, .help = "an axis of the launch description",
            .defaults = d->axes[i].values, .n_defaults = d->axes[i].n, .min = INT64_MIN / 2, .max = INT64_MAX / 2 };
    smem_fmt(U.summary, sizeof(U.summary), "%s", d->summary[0] ? d->summary : "a user kernel (--kernel)");
    U.bench = (struct smem_bench){
        .name = d->function,
        .summary = U.summary,
        .axes = U.axes,
        .n_axes = SMEM_USER_BUILTIN_AXES + d->n_axes,
        .sweeps = { "carveout", "dynamic", "block", "cluster" },
        /* a user kernel's variation is not known in advance: the gate measures it from a history of
         * files; with one base file it takes these floors, the suite's widest measured (cluster_sync) */
        .variation = { 3.0, 10.0, 0.0, "not measured: a user kernel (the suite's widest floors; a history of files "
                                       "measures its own)" },
        .predictable = true,
        .kernel_file = k->file && *k->file ? k->file : d->function,
        .plan = user_plan,
        .metrics = user_metrics,
        SMEM_GPU_OPS(.kernel = user_kernel, .priv_size = sizeof(struct user_priv), .setup = user_setup,
                     .launch = user_launch, .verify = user_verify, .teardown = user_teardown)
    };
    *out = &U.bench;
    return SMEM_OK;
}

void smem_user_bench_free(void)
{
    for (size_t g = 0; g < U.n_groups; g++)
        for (size_t i = 0; i < SMEM_USER_MAX_ARGS; i++)
            free(U.groups[g].out[i]);
    for (size_t i = 0; i < SMEM_USER_MAX_ARGS; i++)
        free(U.inputs[i].h);
    memset(&U, 0, sizeof(U));
}

void smem_user_verdict(struct smem_user_verdict *v)
{
    *v = (struct smem_user_verdict){ .configurations = U.configurations, .mismatches = U.mismatches,
                                     .groups = U.n_groups, .reference = U.reference ? U.reference : "none" };
}

bool smem_user_hung(void)
{
    return U.hung;
}
