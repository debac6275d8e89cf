/* The benchmark contract. A benchmark is one descriptor, the single source of truth about it: its
 * axes (read by name), the sweeps it belongs to, whether predict mode runs it, its baseline, its
 * kernel file, a plan that turns one point into a launch geometry without touching the GPU, and the
 * GPU operations (setup, launch, verify, teardown) that the driver calls in that order. The driver
 * owns a case's private state: it allocates priv_size bytes zeroed as c->priv before setup and
 * frees them after teardown (smem_case_open, smem_case_close), as dav1d's tools allocate each
 * demuxer's and muxer's priv_data_size: a benchmark never allocates or frees c->priv itself. A
 * build without CUDA leaves the GPU operations NULL and priv_size 0 (the descriptors set them
 * under #if SMEM_HAVE_CUDA). */
#ifndef SMEM_BENCH_H
#define SMEM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

struct smem_gpu_inputs;

#define SMEM_MAX_AXES 8
#define SMEM_MAX_METRICS 8
#define SMEM_MAX_BENCH_SWEEPS 4
#define SMEM_REASON_LEN 256

/* One named parameter of a benchmark; values outside [min, max] are rejected before anything runs. */
struct smem_axis {
    const char *name;       /* snake_case with its unit: stride_words, dyn_smem_bytes */
    const char *unit;
    const char *help;
    const int64_t *defaults;
    size_t n_defaults;
    const int64_t *quick;   /* bounded values for --quick; NULL: the defaults */
    size_t n_quick;
    int64_t min, max;
    bool defaults_only;     /* the defaults are the only meaningful values (widths 4, 8, 16) */
    bool from_device;       /* on a device, the benchmark's device_defaults give the values (the static
                             * lists stand for the plan checked before a device is known) */
    const int64_t *before;  /* the value files written before this axis existed had (their one kernel's),
                             * which the readers fill in; NULL: the benchmark had it from its first file */
};

/* One point of a benchmark's axes: values in the descriptor's axis order (read them by name with
 * smem_axis_value), and the sweep that asked for it. */
struct smem_point {
    const struct smem_bench *bench;
    const char *sweep;
    int64_t values[SMEM_MAX_AXES];
};

/* Launch geometry of one point, known without a GPU: predict mode records exactly what measure
 * mode plans, and nothing after planning changes it (the case holds it const). */
struct smem_plan {
    unsigned block;         /* threads per block; 0: a library call (cuBLAS, cudaMemcpy), no kernel of ours */
    unsigned grid;          /* blocks; 0 = one full wave (SMs x resident blocks per SM, or of clusters) */
    unsigned cluster;       /* blocks per thread block cluster (cc 9.0); 0: not a cluster launch */
    size_t dyn_smem;        /* dynamic shared memory per block, bytes */
    size_t static_smem;     /* static shared memory per block as compiled, bytes */
    int regs;               /* register cap per thread (__launch_bounds__), for prediction */
    int carveout_pct;       /* preferred carveout in percent, -1 = driver default */
    bool optin;             /* raise cudaFuncAttributeMaxDynamicSharedMemorySize to dyn_smem */
    int variant;            /* which kernel of the benchmark's kernel file (its own enum or axis value) */
    int64_t work;           /* amount of work per launch (elements, steps, target cycles), as planned */
};

/* One point being measured. The driver owns it, priv included; the benchmark fills priv in setup. */
struct smem_case {
    const struct smem_bench *bench;
    const int64_t *values;          /* one per axis, in the descriptor's order: use smem_axis_value */
    const struct smem_device *dev;
    const struct smem_plan *plan;   /* as planned; never rewritten */
    unsigned grid;                  /* resolved grid */
    int clusters;                   /* cudaOccupancyMaxActiveClusters for a cluster plan, else 0 */
    void *stream;                   /* cudaStream_t */
    void *clk;                      /* struct smem_clock * in device memory, see kernels/clock_launch.h */
    uint64_t seed;
    struct smem_gpu_inputs *inputs; /* the run's kept inputs (bench/gpu_inputs.h): the driver's, NULL: none */
    void *priv;                     /* the benchmark's private state: bench->priv_size bytes, zeroed before
                                     * setup, freed by the driver after teardown; NULL for priv_size 0 */
    bool check;                     /* --check: one launch for a sanitizer, which may serialize blocks, so
                                     * verify what the kernels computed, not when they ran */
    char reason[SMEM_REASON_LEN];   /* why setup, launch or verify failed, in the benchmark's words */
};

/* Medians of one point's samples. */
struct smem_timing {
    double seconds;         /* kernel time from CUDA events */
    double clock_hz;        /* SM clock measured inside the kernel, 0 when not recorded */
    double kernel_cycles;   /* cycles between the kernel's clock marks */
};

/* Which way a metric improves; every metric declares one (0 is no direction: a bug the unit tests
 * catch), and the result file records it ("better": "higher" | "lower"). */
enum smem_better {
    SMEM_HIGHER_IS_BETTER = 1,  /* throughputs, rates, percentages of a reference or a peak */
    SMEM_LOWER_IS_BETTER,       /* times, latencies, slowdowns, passes, bytes spent */
};

/* A derived number. ceiling > 0 is the physical limit in the same unit: a value above it is an error. */
struct smem_metric {
    const char *name;
    const char *unit;
    double value;
    double ceiling;
    enum smem_better better;
};

struct smem_metrics {
    struct smem_metric m[SMEM_MAX_METRICS];
    size_t n;
};

/* A metric derived against another point of the same run. The baseline point belongs to bench
 * (NULL: the same benchmark), has axis = value when axis is set, and equals this point on every
 * other axis the two benchmarks share. derived = scale * (this / baseline) when this_over_baseline,
 * else scale * (baseline / this). */
struct smem_baseline {
    const char *bench;
    const char *axis;
    int64_t value;
    const char *metric;
    const char *derived;
    const char *unit;
    bool this_over_baseline;
    double scale;
    enum smem_better better;    /* of the derived metric */
};

/* How far a point's median time moves between separate runs of one build although nothing changed,
 * in % of the median: on one GPU unit (run_pct), between units of one model (unit_pct), and, for a
 * benchmark whose points depend on the unit's SM -> GPC layout (thread block clusters), between
 * units whose layouts differ or were not recorded (layout_pct; 0: no dependence). Each is measured
 * on H200s (source says where). The gate's floor for the benchmark's points when it has a single
 * base file (scripts/compare.py); with a history of files it measures the spread itself. */
struct smem_variation {
    double run_pct, unit_pct, layout_pct;
    const char *source;
};

/* A benchmark's variation as measured over the project's H200 files by lab/variation.py (2026-12-02):
 * the largest move of any of its points between two --sweep all processes of one commit on one unit
 * (run) and on two units (unit), each point at its top SM clock as the gate takes it, rounded up to
 * the next 0.5 % with at least 0.25 % to spare (at least 1 %). Files of every measurement method
 * count, except for the swizzle ldmatrix/stmatrix and gather points, whose levels the lead-in launch
 * and the residency probe before setup removed: for those, the files measured as today. The table,
 * with the point and the two files behind each figure: results/gate/variation_20261202.txt (60
 * files, 9 units; global_read is declared 4 % between units, above the table's 3.25 %, for the 2.4-3.9 %
 * measured between leases before it). layout:
 * between units whose GPC layouts differ (cluster benchmarks: kept from their earlier measurement,
 * at least unit). A floor of the gate's band with one base file, not its rule. */
#define SMEM_VARIATION_MEASURED(run, unit, layout)                                                      \
    { run, unit, layout, "measured over results/ by lab/variation.py, 2026-12-02 "                      \
                         "(results/gate/variation_20261202.txt)" }

/* A benchmark's descriptor, its fields in groups; every descriptor names the fields it sets. */
struct smem_bench {
    /* identity: what it is, its kernel file, the hardware it needs */
    const char *name;
    const char *summary;            /* the hardware effect it isolates */
    const char *kernel_file;        /* kernels/<kernel_file>.cu; NULL: a library call, no kernel of ours */
    /* The lowest compute capability with the hardware the benchmark needs (major x 10 + minor: 90
     * for 9.0) and what that hardware is ("thread block clusters"); 0: any. Below it every point is
     * skipped with the reason, and so on a device whose kernel this binary carries only as code
     * compiled for a lower one (a PTX build for an older architecture, JIT-compiled). */
    int min_cc;
    const char *min_cc_feature;

    /* axes and sweeps */
    const struct smem_axis *axes;
    size_t n_axes;
    const char *sweeps[SMEM_MAX_BENCH_SWEEPS];  /* the named sweeps it belongs to ("all" holds every one) */
    /* Device-specific default values of a from_device axis (the occupancy cliffs, the carveout
     * steps, a size derived from the device's limits), under --quick the bounded ones; how many, 0
     * for the static defaults. blocks is the driver's occupancy calculator: blocks of plan p resident
     * per SM of dev, or a negative code when it rejects the plan. */
    size_t (*device_defaults)(const struct smem_device *dev, const char *axis, bool quick,
                              int (*blocks)(const struct smem_device *dev, const struct smem_plan *p),
                              int64_t *out, size_t max);

    /* plan: a point's launch geometry without a GPU, and what predict mode does with it */
    /* Fills p for one point; returns SMEM_ESKIP with a reason when the point cannot run on dev. */
    int (*plan)(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p,
                char *why, size_t why_len);
    bool predictable;               /* predict mode runs it (occupancy only; a library call is skipped) */
    bool predict_skips;             /* predict mode records every point skipped (nothing to predict) */
    /* The model's metrics of a point, which need no GPU: predict mode records them beside the
     * occupancy (NULL: none) */
    void (*model_metrics)(const struct smem_point *pt, struct smem_metrics *m);

    /* GPU operations, called by the driver in this order; NULL (priv_size 0) in a build without
     * CUDA (the descriptors set them inside SMEM_GPU_OPS) */
    /* The __global__ function of a case's plan, for attribute and occupancy calls. */
    const void *(*kernel)(const struct smem_case *c);
    /* Bytes of private state the driver allocates zeroed as c->priv before setup and frees after
     * teardown; 0: none. */
    size_t priv_size;
    /* Fills c->priv (already allocated, zeroed): device buffers, inputs drawn from seeded random
     * data, the host reference. SMEM_ESKIP with c->reason when the point cannot run. */
    int (*setup)(struct smem_case *c);
    int (*launch)(struct smem_case *c);      /* one launch on c->stream, no synchronization */
    int (*verify)(struct smem_case *c);      /* compare the last launch with the host reference */
    /* Releases only what setup acquired beyond c->priv (device buffers, streams, handles, kept
     * inputs given back), never c->priv itself, which the driver frees after it. It accepts a case
     * whose setup failed half-way (c->priv as far as setup filled it, the rest zero). NULL: setup
     * acquires nothing beyond c->priv. */
    void (*teardown)(struct smem_case *c);

    /* report: the metrics of a measured point and what the table derives from them. A metric may
     * come from what verify found (stale words, resident clusters): the driver verifies a point's
     * first trial only, so such a metric must not also depend on the timing t
     * (smem_metrics_keep_verified) */
    void (*metrics)(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);
    const struct smem_baseline *baseline;    /* NULL: none */
    /* The family whose best point the table names, per value of best_axis, by best_metric (its
     * better direction): the sgemm kernels' fastest configuration at each n (NULL: none) */
    const char *best_family, *best_metric, *best_axis;

    /* checks: plan.work under --check, where a sanitizer instruments every access: a short launch
     * that still walks every access pattern (0: the planned work) */
    int64_t check_work;

    /* variation: between runs and units, measured; every benchmark declares it */
    struct smem_variation variation;

    /* the gate (python/smembench/gate.py): NULL where the point's median time is the result the gate
     * judges; else why it is not, one line with its measured figures (a time that moves with the
     * placement or the power-limited clock more than a change the gate must see). gate_metric: the
     * metric the gate judges in its place (a per-clock figure: the work per cycle), or NULL: then the
     * benchmark's counts (metrics not derived from the time) alone are judged, and every gate output
     * lists the benchmark as not gated on time, with this reason. Written to every record
     * (between_run.time_gated, .not_gated, .gate_metric) and to --list --json. */
    const char *time_not_gated;
    const char *gate_metric;
};

/* The GPU operations' initializers of a descriptor (.kernel = ..., .priv_size = sizeof(struct x),
 * .teardown = ...), its last entry: themselves in a CUDA build, nothing in one without, where the
 * kernels' launchers do not exist (the functions behind them sit in the file's one
 * #if SMEM_HAVE_CUDA block at most, and so may the private state's struct). */
#if SMEM_HAVE_CUDA
#define SMEM_GPU_OPS(...) __VA_ARGS__
#else
#define SMEM_GPU_OPS(...)
#endif

/* SMEM_KERNEL and SMEM_LAUNCH define a benchmark's two one-line GPU operations; without CUDA they
 * define nothing, as SMEM_GPU_OPS names nothing. */
#if SMEM_HAVE_CUDA
/* Defines prefix_kernel, the kernel operation: the __global__ function expr of the case c. */
#define SMEM_KERNEL(prefix, expr)                                                                       \
    static const void *prefix##_kernel(const struct smem_case *c)                                       \
    {                                                                                                   \
        (void)c;                                                                                        \
        return (expr);                                                                                  \
    }

/* Defines prefix_launch, the launch operation: call, a kernel's launcher (or a CUDA call) of the case
 * c and its private state var = c->priv of type type *, returning SMEM_OK or the failure's code
 * with the call recorded as the last CUDA error (core/cuda_status.h). */
#define SMEM_LAUNCH(prefix, type, var, call)                                                            \
    static int prefix##_launch(struct smem_case *c)                                                     \
    {                                                                                                   \
        type *var = c->priv;                                                                            \
                                                                                                        \
        (void)var;                                                                                      \
        return smem_cuda_status((cudaError_t)(call), #call, __FILE__, __LINE__);                        \
    }
#else
#define SMEM_KERNEL(prefix, expr)
#define SMEM_LAUNCH(prefix, type, var, call)
#endif

/* The driver's side of a case's setup: c->priv allocated zeroed (c->bench->priv_size bytes; NULL
 * for 0), then the benchmark's setup. SMEM_ENOMEM without memory for c->priv (setup not called),
 * else setup's code. Whatever it returns, smem_case_close gives the case back. */
int smem_case_open(struct smem_case *c);

/* The driver's side of a case's teardown: the benchmark's teardown, when it has one and c->priv
 * was allocated (or it needs none), then c->priv freed and NULL. A case whose open failed is fine. */
void smem_case_close(struct smem_case *c);

/* The registry: every benchmark, alphabetized. */
extern const struct smem_bench *const smem_benches[];
extern const size_t smem_n_benches;

/* The benchmark of that name, or NULL. */
const struct smem_bench *smem_bench_find(const char *name);

/* Index of the axis of that name in b, or -1. */
int smem_bench_axis(const struct smem_bench *b, const char *name);

/* The value of b's axis called name in values (b's axis order); a name b does not have is a bug in
 * the benchmark: it aborts with a message (the unit tests plan every benchmark's every point). */
int64_t smem_axis_get(const struct smem_bench *b, const int64_t *values, const char *name);

/* The value of the axis called name at x, a struct smem_point or a struct smem_case. */
#define smem_axis_value(x, name) smem_axis_get((x)->bench, (x)->values, (name))

/* Appends a metric to m. */
void smem_metrics_add(struct smem_metrics *m, const char *name, const char *unit, double value,
                      double ceiling, enum smem_better better);

/* Checks what the descriptors of benches[0..n) say of each other: every baseline names a benchmark
 * that exists, an axis it has, and a metric both produce (their metrics run on a case planned for
 * dev with a made-up timing), every metric and derived metric declares which way is better, and
 * every kernel_file-less benchmark has no kernel. SMEM_EINVAL with the first problem in why. */
/* The metrics of a point whose trials are pooled: pooled = metrics(last trial's case, pooled timing),
 * first = metrics(first trial's case, its timing), again = metrics(last trial's case, the first
 * trial's timing). A metric whose value again differs from first's depends on the case's state that
 * verification made, which only the first trial's case holds (a later trial is not verified): it
 * keeps first's value. Every other metric is the pooled one. */
void smem_metrics_keep_verified(struct smem_metrics *pooled, const struct smem_metrics *first,
                                 const struct smem_metrics *again);

int smem_bench_check(const struct smem_bench *const *benches, size_t n, const struct smem_device *dev, char *why,
                     size_t why_len);

#endif
