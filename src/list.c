/* --list and --predict list: the descriptors and the built-in models as a reader sees them. */
#include "list.h"

#include "bench.h"
#include "gpus.h"
#include "smem.h"
#include "sweep.h"

void smem_list_benches(FILE *f)
{
    fprintf(f, "benchmarks:\n");
    for (size_t i = 0; i < smem_n_benches; i++) {
        const struct smem_bench *b = smem_benches[i];
        fprintf(f, "  %-10s %s\n", b->name, b->summary);
        for (size_t a = 0; a < b->n_axes; a++) {
            const struct smem_axis *ax = &b->axes[a];
            fprintf(f, "    --axis %s=", ax->name);
            for (size_t k = 0; k < ax->n_defaults; k++)
                fprintf(f, "%s%lld", k ? "," : "", (long long)ax->defaults[k]);
            fprintf(f, "  (%s, %lld..%lld)%s\n        %s\n", ax->unit, (long long)ax->min, (long long)ax->max,
                    ax->from_device ? "; on a device (or model) the default is derived from it" : "", ax->help);
        }
    }
    fprintf(f, "sweeps:\n");
    for (size_t i = 0; i < smem_n_sweeps; i++)
        fprintf(f, "  %-10s %s%s\n", smem_sweeps[i].name, smem_sweeps[i].summary,
                smem_sweep_predicts(&smem_sweeps[i]) ? " [also --predict]" : "");
}

void smem_list_models(FILE *f)
{
    fprintf(f, "built-in GPU models for --predict:\n");
    for (size_t i = 0; i < smem_n_gpu_models; i++) {
        const struct smem_device *d = &smem_gpu_models[i].dev;
        fprintf(f, "  %-8s %-34s cc %d.%d  %3d SMs  %3lld KiB shared/SM  %3lld KiB opt-in/block\n",
                smem_gpu_models[i].key, d->name, d->cc_major, d->cc_minor, d->sm_count,
                (long long)(d->smem_per_sm / (int64_t)SMEM_KIB),
                (long long)(d->smem_per_block_optin / (int64_t)SMEM_KIB));
    }
}

void smem_list_model_keys(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < smem_n_gpu_models; i++)
        smem_append(buf, len, ", ", "%s", smem_gpu_models[i].key);
}
