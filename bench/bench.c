/* Look-ups in the registry and the metric list, shared by every benchmark. */
#include <string.h>

#include "bench.h"

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
