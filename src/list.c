/* --list and --predict list: the descriptors and the built-in models as a reader sees them, each
 * column as wide as its longest entry. */
#include "list.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arch.h"
#include "bench.h"
#include "counters.h"
#include "gpus.h"
#include "report_json.h"
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
        if (sweeps[i].every)
            continue;
        /* its benchmarks, as their descriptors name it */
        fprintf(f, "    benchmarks:");
        for (size_t k = 0, n = 0; k < n_benches; k++)
            if (smem_sweep_has(&sweeps[i], benches[k]))
                fprintf(f, "%s %s", n++ ? "," : "", benches[k]->name);
        fprintf(f, "\n");
    }
}

/* The default set of --counters, with each metric's unit, kind and meaning. */
static void list_counters(FILE *f)
{
    fprintf(f, "counters (--counters: this default set, per launch; --counters LIST takes any metric "
               "ncu --query-metrics names)%s:\n", smem_counters_built_in() ? "" : " [not built in]");
    for (size_t i = 0; i < smem_counters_n_default; i++) {
        const struct smem_counter_spec *c = &smem_counters_default[i];
        fprintf(f, "  %s\n      %s, %s%s: %s\n", c->name, c->unit, c->kind, c->exact ? " (exact)" : "", c->meaning);
    }
}

static cJSON *int_array(const int64_t *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();

    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, smem_json_int_item((long long)v[i]));
    return a;
}

static cJSON *axis_json(const struct smem_axis *ax)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "name", ax->name);
    cJSON_AddStringToObject(o, "unit", ax->unit);
    cJSON_AddStringToObject(o, "help", ax->help);
    cJSON_AddItemToObject(o, "defaults", int_array(ax->defaults, ax->n_defaults));
    cJSON_AddItemToObject(o, "quick", ax->quick ? int_array(ax->quick, ax->n_quick) : cJSON_CreateNull());
    smem_json_int(o, "min", (long long)(ax->min));
    smem_json_int(o, "max", (long long)(ax->max));
    cJSON_AddBoolToObject(o, "defaults_only", ax->defaults_only);
    cJSON_AddBoolToObject(o, "from_device", ax->from_device);
    if (ax->before)
        smem_json_int(o, "before", (long long)(*ax->before));
    else
        cJSON_AddNullToObject(o, "before");
    return o;
}

static cJSON *bench_json(const struct smem_bench *b)
{
    cJSON *o = cJSON_CreateObject(), *axes, *sweeps, *v;

    cJSON_AddStringToObject(o, "name", b->name);
    cJSON_AddStringToObject(o, "summary", b->summary);
    smem_json_string(o, "kernel_file", b->kernel_file);
    cJSON_AddNumberToObject(o, "min_cc", b->min_cc);
    smem_json_string(o, "min_cc_feature", b->min_cc_feature);
    cJSON_AddBoolToObject(o, "predictable", b->predictable);
    sweeps = cJSON_AddArrayToObject(o, "sweeps");
    for (size_t k = 0; k < SMEM_MAX_BENCH_SWEEPS && b->sweeps[k]; k++)
        cJSON_AddItemToArray(sweeps, cJSON_CreateString(b->sweeps[k]));
    axes = cJSON_AddArrayToObject(o, "axes");
    for (size_t a = 0; a < b->n_axes; a++)
        cJSON_AddItemToArray(axes, axis_json(&b->axes[a]));
    v = cJSON_AddObjectToObject(o, "variation");
    cJSON_AddNumberToObject(v, "run_pct", b->variation.run_pct);
    cJSON_AddNumberToObject(v, "unit_pct", b->variation.unit_pct);
    cJSON_AddNumberToObject(v, "layout_pct", b->variation.layout_pct);
    cJSON_AddStringToObject(v, "source", b->variation.source ? b->variation.source : "");
    smem_json_gate(v, b);
    return o;
}

int smem_list_benches_json_of(FILE *f, const struct smem_bench *const *benches, size_t n_benches,
                              const struct smem_sweep *sweeps, size_t n_sweeps)
{
    cJSON *doc = cJSON_CreateObject(), *arr;
    char *text;
    int rc;

    if (!doc)
        return SMEM_ENOMEM;
    arr = cJSON_AddArrayToObject(doc, "benchmarks");
    for (size_t i = 0; i < n_benches; i++)
        cJSON_AddItemToArray(arr, bench_json(benches[i]));
    arr = cJSON_AddArrayToObject(doc, "sweeps");
    for (size_t i = 0; i < n_sweeps; i++) {
        const struct smem_sweep *sw = &sweeps[i];
        cJSON *o = cJSON_CreateObject(), *members;
        cJSON_AddStringToObject(o, "name", sw->name);
        cJSON_AddStringToObject(o, "summary", sw->summary);
        cJSON_AddBoolToObject(o, "predictable", smem_sweep_predictable(sw));
        cJSON_AddBoolToObject(o, "predicts", smem_sweep_predicts(sw));
        members = cJSON_AddArrayToObject(o, "benchmarks");
        for (size_t k = 0; k < n_benches; k++)
            if (smem_sweep_has(sw, benches[k]))
                cJSON_AddItemToArray(members, cJSON_CreateString(benches[k]->name));
        cJSON_AddItemToArray(arr, o);
    }
    /* the default set of --counters, with each metric's unit, kind and meaning */
    arr = cJSON_AddArrayToObject(doc, "counters");
    for (size_t i = 0; i < smem_counters_n_default; i++) {
        const struct smem_counter_spec *c = &smem_counters_default[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", c->name);
        cJSON_AddStringToObject(o, "unit", c->unit);
        cJSON_AddStringToObject(o, "kind", c->kind);
        cJSON_AddStringToObject(o, "meaning", c->meaning);
        cJSON_AddBoolToObject(o, "exact", c->exact);
        cJSON_AddBoolToObject(o, "default", true);
        cJSON_AddItemToArray(arr, o);
    }
    cJSON_AddBoolToObject(doc, "counters_built_in", smem_counters_built_in());
    /* the per-compute-capability table, as device.published writes it (the Python side's snapshot of
     * what older files lack, python/smembench/archs.json, is held to it) */
    arr = cJSON_AddArrayToObject(doc, "archs");
    for (size_t i = 0; i < smem_n_archs; i++) {
        const struct smem_arch *a = &smem_archs[i];
        cJSON *o = cJSON_CreateObject();
        char cc[16];
        smem_fmt(cc, sizeof(cc), "%d.%d", a->cc_major, a->cc_minor);
        cJSON_AddStringToObject(o, "cc", cc);
        cJSON_AddStringToObject(o, "generation", a->generation);
        cJSON_AddItemToObject(o, "published", smem_json_published(a->cc_major, a->cc_minor));
        cJSON_AddItemToArray(arr, o);
    }
    text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        return SMEM_ENOMEM;
    rc = fprintf(f, "%s\n", text) < 0 ? SMEM_EIO : SMEM_OK;
    free(text);
    return rc;
}

int smem_list_benches_json(FILE *f)
{
    return smem_list_benches_json_of(f, smem_benches, smem_n_benches, smem_sweeps, smem_n_sweeps);
}

void smem_list_benches(FILE *f)
{
    smem_list_benches_of(f, smem_benches, smem_n_benches, smem_sweeps, smem_n_sweeps);
    list_counters(f);
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
