/* The registry: one line per benchmark, alphabetized. */
#include <string.h>

#include "bench.h"

extern const struct smem_bench smem_bandwidth_bench;
extern const struct smem_bench smem_bank_bench;
extern const struct smem_bench smem_copy_bench;
extern const struct smem_bench smem_cublas_bench;
extern const struct smem_bench smem_dynamic_bench;
extern const struct smem_bench smem_footprint_bench;
extern const struct smem_bench smem_gather_bench;
extern const struct smem_bench smem_latency_bench;
extern const struct smem_bench smem_matmul_bench;
extern const struct smem_bench smem_matmul_rb_bench;
extern const struct smem_bench smem_reduction_bench;
extern const struct smem_bench smem_static_bench;
extern const struct smem_bench smem_transpose_bench;
extern const struct smem_bench smem_transpose_naive_bench;

const struct smem_bench *const smem_benches[] = {
    &smem_bandwidth_bench,
    &smem_bank_bench,
    &smem_copy_bench,
    &smem_cublas_bench,
    &smem_dynamic_bench,
    &smem_footprint_bench,
    &smem_gather_bench,
    &smem_latency_bench,
    &smem_matmul_bench,
    &smem_matmul_rb_bench,
    &smem_reduction_bench,
    &smem_static_bench,
    &smem_transpose_bench,
    &smem_transpose_naive_bench,
};
const size_t smem_n_benches = sizeof(smem_benches) / sizeof(smem_benches[0]);

const struct smem_bench *smem_bench_find(const char *name)
{
    for (size_t i = 0; i < smem_n_benches; i++)
        if (!strcmp(smem_benches[i]->name, name))
            return smem_benches[i];
    return NULL;
}

int smem_bench_axis(const struct smem_bench *b, const char *name)
{
    for (size_t i = 0; i < b->n_axes; i++)
        if (!strcmp(b->axes[i].name, name))
            return (int)i;
    return -1;
}

void smem_metrics_add(struct smem_metrics *m, const char *name, const char *unit, double value, double ceiling)
{
    if (m->n >= SMEM_MAX_METRICS)
        return;
    m->m[m->n++] = (struct smem_metric){ name, unit, value, ceiling };
}
