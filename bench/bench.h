/* The benchmark contract. A benchmark is one descriptor: its axes, a plan that turns one point of
 * the axes into a launch geometry without touching the GPU (so predict mode can use it), and the
 * GPU operations (setup, launch, verify, teardown) that the driver calls in that order. A build
 * without CUDA leaves the GPU operations NULL (the descriptors set them under #if SMEM_HAVE_CUDA). */
#ifndef SMEM_BENCH_H
#define SMEM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../src/device.h"

#define SMEM_MAX_AXES 4
#define SMEM_MAX_METRICS 8
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
};

/* Launch geometry of one point, known without a GPU. */
struct smem_plan {
    unsigned block;         /* threads per block; 0: a library call (cuBLAS, cudaMemcpy), no kernel of ours */
    unsigned grid;          /* blocks; 0 = one full wave (SMs x resident blocks per SM, or of clusters) */
    unsigned cluster;       /* blocks per thread block cluster (cc 9.0); 0: not a cluster launch */
    size_t dyn_smem;        /* dynamic shared memory per block, bytes */
    size_t static_smem;     /* static shared memory per block as compiled, bytes */
    int regs;               /* register cap per thread (__launch_bounds__), for prediction */
    int carveout_pct;       /* preferred carveout in percent, -1 = driver default */
    bool optin;             /* raise cudaFuncAttributeMaxDynamicSharedMemorySize to dyn_smem */
    int variant;            /* benchmark-private kernel selector */
    int64_t work;           /* benchmark-private amount of work per launch (iterations, elements) */
};

/* One point being measured. The driver owns it; the benchmark fills priv in setup. */
struct smem_case {
    const struct smem_bench *bench;
    const int64_t *values;          /* one per axis, in the descriptor's order */
    const struct smem_device *dev;
    struct smem_plan plan;
    unsigned grid;                  /* resolved grid */
    int clusters;                   /* cudaOccupancyMaxActiveClusters for a cluster plan, else 0 */
    void *stream;                   /* cudaStream_t */
    void *clk;                      /* struct smem_clock * in device memory, see kernels.h */
    uint64_t seed;
    void *priv;
    char reason[SMEM_REASON_LEN];   /* why setup or verify failed */
};

/* Medians of one point's samples. */
struct smem_timing {
    double seconds;         /* kernel time from CUDA events */
    double clock_hz;        /* SM clock measured inside the kernel, 0 when not recorded */
    double kernel_cycles;   /* cycles between the kernel's clock marks */
};

/* A derived number. ceiling > 0 is the physical limit in the same unit: a value above it is an error. */
struct smem_metric {
    const char *name;
    const char *unit;
    double value;
    double ceiling;
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
};

struct smem_bench {
    const char *name;
    const char *summary;            /* the hardware effect it isolates */
    const struct smem_axis *axes;
    size_t n_axes;
    /* Fills p for one point; returns SMEM_ESKIP with a reason when the point cannot run on dev. */
    int (*plan)(const int64_t *values, const struct smem_device *dev, struct smem_plan *p,
                char *why, size_t why_len);
    /* The __global__ function of a plan, for attribute and occupancy calls. */
    const void *(*kernel)(const struct smem_plan *p);
    int (*setup)(struct smem_case *c);       /* allocate, fill inputs with seeded random data */
    int (*launch)(struct smem_case *c);      /* one launch on c->stream, no synchronization */
    int (*verify)(struct smem_case *c);      /* compare the last launch with the host reference */
    void (*metrics)(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m);
    void (*teardown)(struct smem_case *c);   /* accepts a case whose setup failed half-way */
    const struct smem_baseline *baseline;    /* NULL: none */
    /* plan.work under --check, where a sanitizer instruments every access: a short launch that
     * still walks every access pattern (0: the planned work) */
    int64_t check_work;
    /* Device-specific default values of axis a (the occupancy cliffs, say); NULL: the static ones. */
    size_t (*device_defaults)(const struct smem_device *dev, size_t a, int64_t *out, size_t max);
};


/* The registry: every benchmark, alphabetized. */
extern const struct smem_bench *const smem_benches[];
extern const size_t smem_n_benches;

/* The benchmark of that name, or NULL. */
const struct smem_bench *smem_bench_find(const char *name);

/* Index of the axis of that name in b, or -1. */
int smem_bench_axis(const struct smem_bench *b, const char *name);

/* Appends a metric to m. */
void smem_metrics_add(struct smem_metrics *m, const char *name, const char *unit, double value,
                      double ceiling);

#endif
