/* --list and --predict list: the descriptors and the built-in models as a reader sees them, each
 * column as wide as its longest entry. */
#include "list.h"

#include <string.h>

#include "bench.h"
#include "gpus.h"
#include "smem.h"
#include "sweep.h"
#include "table.h"

static void sweep_summary(const struct smem_sweep *sw, char *buf, size_t len)
{
    smem_fmt(buf, len, "%s%s", sw->summary, smem_sweep_predicts(sw) ? " [also --predict]" : "");
}

void smem_list_benches_of(FILE *f, const struct smem_bench *const *benches, size_t n_benches,
                          const struct smem_sweep *sweeps, size_t n_sweeps)
{
    struct smem_cols cols;
    const char *cells[2];
    char summary[1024];

    /* one name column for the benchmarks and the sweeps */
    smem_cols_init(&cols, "ll");
    for (size_t i = 0; i < n_benches; i++) {
        cells[0] = benches[i]->name;
        cells[1] = benches[i]->summary;
        smem_cols_fit(&cols, cells);
    }
    for (size_t i = 0; i < n_sweeps; i++) {
        cells[0] = sweeps[i].name;
        cells[1] = "";
        smem_cols_fit(&cols, cells);
    }
    fprintf(f, "benchmarks:\n");
    for (size_t i = 0; i < n_benches; i++) {
        const struct smem_bench *b = benches[i];
        cells[0] = b->name;
        cells[1] = b->summary;
        smem_cols_print(f, &cols, "  ", cells);
        for (size_t a = 0; a < b->n_axes; a++) {
            const struct smem_axis *ax = &b->axes[a];
            char before[64] = "";
            if (ax->before)
                smem_fmt(before, sizeof(before), "; files before this axis: %lld", (long long)*ax->before);
            fprintf(f, "    --axis %s=", ax->name);
            for (size_t k = 0; k < ax->n_defaults; k++)
                fprintf(f, "%s%lld", k ? "," : "", (long long)ax->defaults[k]);
            fprintf(f, "  (%s, %lld..%lld)%s%s\n        %s\n", ax->unit, (long long)ax->min, (long long)ax->max,
                    ax->from_device ? "; on a device (or model) the default is derived from it" : "", before, ax->help);
        }
    }
    fprintf(f, "sweeps:\n");
    for (size_t i = 0; i < n_sweeps; i++) {
        sweep_summary(&sweeps[i], summary, sizeof(summary));
        cells[0] = sweeps[i].name;
        cells[1] = summary;
        smem_cols_print(f, &cols, "  ", cells);
    }
}

void smem_list_benches(FILE *f)
{
    smem_list_benches_of(f, smem_benches, smem_n_benches, smem_sweeps, smem_n_sweeps);
}

enum { M_KEY, M_NAME, M_CC, M_SMS, M_SHARED, M_OPTIN, M_N };

struct model_row {
    char cc[32], sms[32], shared[48], optin[48];
    const char *cells[M_N];
};

static void model_row(const struct smem_gpu_model *m, struct model_row *row)
{
    const struct smem_device *d = &m->dev;

    smem_fmt(row->cc, sizeof(row->cc), "cc %d.%d", d->cc_major, d->cc_minor);
    smem_fmt(row->sms, sizeof(row->sms), "%d SMs", d->sm_count);
    smem_fmt(row->shared, sizeof(row->shared), "%lld KiB shared/SM", (long long)(d->smem_per_sm / (int64_t)SMEM_KIB));
    smem_fmt(row->optin, sizeof(row->optin), "%lld KiB opt-in/block",
             (long long)(d->smem_per_block_optin / (int64_t)SMEM_KIB));
    row->cells[M_KEY] = m->key;
    row->cells[M_NAME] = d->name;
    row->cells[M_CC] = row->cc;
    row->cells[M_SMS] = row->sms;
    row->cells[M_SHARED] = row->shared;
    row->cells[M_OPTIN] = row->optin;
}

void smem_list_models_of(FILE *f, const struct smem_gpu_model *models, size_t n)
{
    struct smem_cols cols;
    struct model_row row;

    smem_cols_init(&cols, "lllrrr");
    for (size_t i = 0; i < n; i++) {
        model_row(&models[i], &row);
        smem_cols_fit(&cols, row.cells);
    }
    fprintf(f, "built-in GPU models for --predict:\n");
    for (size_t i = 0; i < n; i++) {
        model_row(&models[i], &row);
        smem_cols_print(f, &cols, "  ", row.cells);
    }
}

void smem_list_models(FILE *f)
{
    smem_list_models_of(f, smem_gpu_models, smem_n_gpu_models);
}

void smem_list_model_keys(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < smem_n_gpu_models; i++)
        smem_append(buf, len, ", ", "%s", smem_gpu_models[i].key);
}
