/* The JSON writer. Numbers that do not exist are null, never NaN; counts and nanoseconds are
 * integers; the file appears whole or not at all (src/atomic_out.c writes it). */
#define _GNU_SOURCE
#include "report_json.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "nvml.h"
#include "smem.h"
#include <smem_git.h> /* generated in the build directory at every build (meson vcs_tag) */

cJSON *smem_json_number(cJSON *obj, const char *key, double v)
{
    if (!isfinite(v))
        return cJSON_AddNullToObject(obj, key);
    return cJSON_AddNumberToObject(obj, key, v);
}

cJSON *smem_json_string(cJSON *obj, const char *key, const char *s)
{
    if (!s || !*s)
        return cJSON_AddNullToObject(obj, key);
    return cJSON_AddStringToObject(obj, key, s);
}

/* cJSON reports no failed allocation in its Add functions: a document missing a member would still
 * print. Its allocations come through here, so that one failure fails the write. */
static bool json_alloc_failed;

static void *json_malloc(size_t n)
{
    void *p = malloc(n);

    if (!p)
        json_alloc_failed = true;
    return p;
}

/* Integers are written digit for digit: cJSON prints every number as a double with 15 significant
 * digits (17 where 15 do not read back), which is 1e+17 for 10^17 and loses a 64-bit value's last
 * digits. */
static cJSON *add_raw(cJSON *obj, const char *key, const char *text, double v)
{
    cJSON *item = cJSON_CreateRaw(text);

    if (!item || (obj && !cJSON_AddItemToObject(obj, key, item))) {
        cJSON_Delete(item);
        json_alloc_failed = true;
        return NULL;
    }
    /* the value too, as a number item has it, for whoever reads the document before it is printed */
    item->valuedouble = v;
    item->valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
    return item;
}

cJSON *smem_json_int_item(long long v)
{
    char text[32];

    snprintf(text, sizeof(text), "%lld", v);
    return add_raw(NULL, NULL, text, (double)v);
}

cJSON *smem_json_int(cJSON *obj, const char *key, long long v)
{
    char text[32];

    snprintf(text, sizeof(text), "%lld", v);
    return add_raw(obj, key, text, (double)v);
}

cJSON *smem_json_uint(cJSON *obj, const char *key, unsigned long long v)
{
    char text[32];

    snprintf(text, sizeof(text), "%llu", v);
    return add_raw(obj, key, text, (double)v);
}

/* An integer-valued number (nanoseconds, counts), rounded and written exactly (%.0f is exact for a
 * double); null when not finite. obj NULL: the item alone, for an array. */
static cJSON *json_int_at(cJSON *obj, const char *key, double v)
{
    char text[400];

    if (!isfinite(v))
        return obj ? cJSON_AddNullToObject(obj, key) : cJSON_CreateNull();
    v = round(v);
    snprintf(text, sizeof(text), "%.0f", v == 0 ? 0.0 : v);   /* never "-0" */
    return add_raw(obj, key, text, v);
}

static cJSON *json_int(cJSON *obj, const char *key, double v)
{
    return json_int_at(obj, key, v);
}

static cJSON *json_int_item(double v)
{
    return json_int_at(NULL, NULL, v);
}

/* -1 stands for "does not exist". */
static cJSON *json_opt_int(cJSON *obj, const char *key, long long v)
{
    return v < 0 ? cJSON_AddNullToObject(obj, key) : smem_json_int(obj, key, (long long)(v));
}

void smem_utc_now(char *buf, size_t len, bool compact_date)
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, len, compact_date ? "%Y%m%d" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *nvml_reading(const struct smem_nvml *n)
{
    cJSON *o = cJSON_CreateObject();
    char reasons[256];

    cJSON_AddNumberToObject(o, "temperature_c", n->temperature_c);
    cJSON_AddNumberToObject(o, "power_w", n->power_w);
    cJSON_AddNumberToObject(o, "sm_clock_mhz", n->sm_clock_mhz);
    smem_nvml_reason_names(n->reasons, reasons, sizeof(reasons));
    cJSON_AddStringToObject(o, "clock_event_reasons", reasons);
    return o;
}

cJSON *smem_json_published(int cc_major, int cc_minor)
{
    struct smem_published p[SMEM_ARCH_MAX_PUBLISHED];
    size_t n = smem_arch_published(cc_major, cc_minor, p, SMEM_ARCH_MAX_PUBLISHED);
    cJSON *pub = cJSON_CreateObject();

    for (size_t i = 0; i < n; i++) {
        cJSON *v = cJSON_AddObjectToObject(pub, p[i].name);
        if (p[i].list) {
            cJSON *list = cJSON_AddArrayToObject(v, "value");
            for (size_t k = 0; k < p[i].n_list; k++)
                cJSON_AddItemToArray(list, cJSON_CreateNumber(p[i].list[k]));
        } else {
            cJSON_AddNumberToObject(v, "value", p[i].value);
        }
        cJSON_AddStringToObject(v, "unit", p[i].unit);
        cJSON_AddStringToObject(v, "source", p[i].source);
    }
    return pub;
}

/* The SM -> GPC map (src/gpc.c): the GPCs' sizes, each SM's GPC and the layout as one string that two
 * units share exactly when their GPCs hold the same numbers of SMs ("18x2,16x6"). */
static cJSON *gpc_record(const struct smem_device *d)
{
    const struct smem_gpc_map *g = &d->gpc;
    cJSON *o = cJSON_CreateObject(), *sms, *map;
    int sorted[SMEM_MAX_GPCS];
    char layout[256] = "";

    if (g->count == 0) {
        cJSON_AddNullToObject(o, "count");
        cJSON_AddStringToObject(o, "why", d->is_model ? "a model: nothing was measured" :
                                          g->why[0] ? g->why : "not measured");
        return o;
    }
    cJSON_AddStringToObject(o, "source", "measured: the SMs that ran the blocks of one thread block cluster share a "
                            "GPC (cluster probe, one block per SM, cluster sizes 16/8/6/4/3/2)");
    cJSON_AddNumberToObject(o, "count", g->count);
    sms = cJSON_AddArrayToObject(o, "sms_per_gpc");
    for (int i = 0; i < g->count; i++) {
        cJSON_AddItemToArray(sms, cJSON_CreateNumber(g->sms[i]));
        sorted[i] = g->sms[i];
    }
    /* largest first, as "SMs x GPCs" runs */
    for (int i = 1; i < g->count; i++)
        for (int k = i; k > 0 && sorted[k] > sorted[k - 1]; k--) {
            int t = sorted[k];
            sorted[k] = sorted[k - 1];
            sorted[k - 1] = t;
        }
    for (int i = 0; i < g->count;) {
        int k = i;
        while (k < g->count && sorted[k] == sorted[i])
            k++;
        smem_append(layout, sizeof(layout), ",", "%dx%d", sorted[i], k - i);
        i = k;
    }
    cJSON_AddStringToObject(o, "layout", layout);
    cJSON_AddNumberToObject(o, "unresolved_sms", g->unresolved);
    map = cJSON_AddArrayToObject(o, "sm_gpc");
    for (int i = 0; i < d->sm_count && i < SMEM_MAX_SMS; i++)
        cJSON_AddItemToArray(map, g->sm_gpc[i] >= 0 ? cJSON_CreateNumber(g->sm_gpc[i]) : cJSON_CreateNull());
    return o;
}

/* Everything known of a device (or a model). */
static cJSON *device_record(const struct smem_device *d)
{
    cJSON *dev = cJSON_CreateObject();

    cJSON_AddStringToObject(dev, "name", d->name);
    cJSON_AddBoolToObject(dev, "model", d->is_model);
    json_opt_int(dev, "ordinal", d->ordinal);
    {
        char cc[16];
        smem_fmt(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
        cJSON_AddStringToObject(dev, "cc", cc);
    }
    cJSON_AddNumberToObject(dev, "sm_count", d->sm_count);
    {
        /* how this device runs the built-in kernels: their cubin, or PTX the driver JIT-compiled;
         * null for a model, which runs nothing */
        const char *force = getenv("CUDA_FORCE_PTX_JIT");
        smem_json_string(dev, "kernel_code", d->is_model ? NULL
                         : smem_arch_code_path(d->cc_major, d->cc_minor, SMEM_GPU_CODE, force && !strcmp(force, "1")));
    }
    json_opt_int(dev, "clock_khz", d->clock_khz ? d->clock_khz : -1);
    json_opt_int(dev, "mem_clock_khz", d->mem_clock_khz ? d->mem_clock_khz : -1);
    json_opt_int(dev, "mem_bus_width_bits", d->mem_bus_width_bits ? d->mem_bus_width_bits : -1);
    json_opt_int(dev, "l2_bytes", d->l2_bytes ? d->l2_bytes : -1);
    smem_json_int(dev, "smem_per_block", (long long)(d->smem_per_block));
    smem_json_int(dev, "smem_per_block_optin", (long long)(d->smem_per_block_optin));
    smem_json_int(dev, "smem_per_sm", (long long)(d->smem_per_sm));
    smem_json_int(dev, "reserved_smem_per_block", (long long)(d->reserved_smem_per_block));
    cJSON_AddNumberToObject(dev, "max_blocks_per_sm", d->max_blocks_per_sm);
    cJSON_AddNumberToObject(dev, "max_threads_per_sm", d->max_threads_per_sm);
    cJSON_AddNumberToObject(dev, "max_threads_per_block", d->max_threads_per_block);
    cJSON_AddNumberToObject(dev, "regs_per_sm", d->regs_per_sm);
    cJSON_AddNumberToObject(dev, "regs_per_block", d->regs_per_block);
    cJSON_AddNumberToObject(dev, "warp_size", d->warp_size);
    json_opt_int(dev, "driver_version", d->is_model ? -1 : d->driver_version);
    json_opt_int(dev, "runtime_version", d->is_model ? -1 : d->runtime_version);
    smem_json_string(dev, "pci_bus_id", d->pci_bus_id);
    smem_json_string(dev, "uuid", d->uuid);
    smem_json_string(dev, "driver_release", d->driver_release);
    cJSON_AddItemToObject(dev, "gpc", gpc_record(d));
    smem_json_number(dev, "measured_clock_mhz", d->measured_clock_mhz > 0 ? d->measured_clock_mhz : NAN);
    if (d->nvml_start.ok) {
        /* NVML found this device by its PCI bus id: its own number, and readings around the run */
        cJSON *nv = cJSON_AddObjectToObject(dev, "nvml");
        cJSON_AddNumberToObject(nv, "index", d->nvml_start.index);
        cJSON_AddItemToObject(nv, "start", nvml_reading(&d->nvml_start));
        if (d->nvml_end.ok)
            cJSON_AddItemToObject(nv, "end", nvml_reading(&d->nvml_end));
        else
            cJSON_AddNullToObject(nv, "end");
    } else {
        cJSON_AddNullToObject(dev, "nvml");
    }
    cJSON_AddItemToObject(dev, "published", smem_json_published(d->cc_major, d->cc_minor));
    return dev;
}

/* The build that wrote the file: the device code it carries (meson -Dgpu_arch), whether that is PTX
 * alone, the nvcc that compiled it and the build type; a PTX build's file must not read as a native
 * one's. */
static void add_build(cJSON *tool)
{
    cJSON *b = cJSON_AddObjectToObject(tool, "build"), *code = cJSON_AddArrayToObject(b, "gpu_code");
    const char *p = SMEM_GPU_CODE;
    bool sass = false;

    while (*p) {
        size_t n = strcspn(p, ",");
        char item[32];
        smem_fmt(item, sizeof(item), "%.*s", (int)n, p);
        cJSON_AddItemToArray(code, cJSON_CreateString(item));
        sass |= !strncmp(item, "sm_", 3) || !strcmp(item, "native");
        p += n + (p[n] == ',');
    }
    cJSON_AddBoolToObject(b, "ptx_only", SMEM_GPU_CODE[0] && !sass);
    smem_json_string(b, "nvcc", SMEM_NVCC_VERSION);
    cJSON_AddStringToObject(b, "buildtype", SMEM_BUILDTYPE);
}

cJSON *smem_report_new(const struct smem_run_info *run, const struct smem_device *d)
{
    static cJSON_Hooks hooks = { json_malloc, free };
    cJSON *doc, *tool, *r, *argv, *settings;
    char host[256] = "unknown";
    const char *node;

    cJSON_InitHooks(&hooks);
    doc = cJSON_CreateObject();
    if (!doc)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", SMEM_SCHEMA);
    tool = cJSON_AddObjectToObject(doc, "tool");
    cJSON_AddStringToObject(tool, "name", "smembench");
    cJSON_AddStringToObject(tool, "version", SMEM_VERSION);
    cJSON_AddStringToObject(tool, "git", SMEM_GIT);
    add_build(tool);
#if SMEM_TEST_SLOWDOWN_PCT
    /* a test build whose bandwidth kernel does this much more work than it counts (meson option
     * test_slowdown_pct): its figures are not the device's, and the file says so */
    cJSON_AddNumberToObject(tool, "test_slowdown_pct", SMEM_TEST_SLOWDOWN_PCT);
#endif
#if SMEM_TEST_BANK_CONFLICT
    /* a test build (meson option test_bank_conflict): the bank kernel's lane 31 adds a conflict */
    cJSON_AddBoolToObject(tool, "test_bank_conflict", true);
#endif

    r = cJSON_AddObjectToObject(doc, "run");
    argv = cJSON_AddArrayToObject(r, "argv");
    for (int i = 0; i < run->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(run->argv[i]));
    cJSON_AddStringToObject(r, "started", run->started);
    gethostname(host, sizeof(host) - 1);
    cJSON_AddStringToObject(r, "host", host);
    /* under Slurm the node name, which tells nodes apart where their hostnames do not */
    node = getenv("SLURMD_NODENAME");
    smem_json_string(r, "node", node);
    cJSON_AddStringToObject(r, "mode", run->mode);
    cJSON_AddStringToObject(r, "sweep", run->sweep);
    cJSON_AddBoolToObject(r, "interrupted", false);
    cJSON_AddNullToObject(r, "incomplete_reason");
    settings = cJSON_AddObjectToObject(r, "settings");
    cJSON_AddNumberToObject(settings, "min_samples", run->min_samples);
    cJSON_AddNumberToObject(settings, "max_samples", run->max_samples);
    cJSON_AddNumberToObject(settings, "max_noise", run->max_noise);
    cJSON_AddNumberToObject(settings, "timeout_s", run->timeout_s);
    smem_json_uint(settings, "seed", run->seed);
    cJSON_AddBoolToObject(settings, "quick", run->quick);
    cJSON_AddBoolToObject(settings, "no_optin", run->no_optin);
    cJSON_AddBoolToObject(settings, "cold", run->cold);
    cJSON_AddNumberToObject(settings, "trials", run->trials);
    if (!strcmp(run->mode, "measure"))
        smem_json_uint(settings, "order_seed", run->order_seed);

    cJSON_AddItemToObject(doc, "device", device_record(d));
    cJSON_AddArrayToObject(doc, "results");
    return doc;
}

static void add_stats(cJSON *obj, const struct smem_stats *s)
{
    json_int(obj, "min", s->count ? s->min : NAN);
    json_int(obj, "q1", s->count ? s->q1 : NAN);
    json_int(obj, "median", s->count ? s->median : NAN);
    json_int(obj, "q3", s->count ? s->q3 : NAN);
    json_int(obj, "max", s->count ? s->max : NAN);
    json_int(obj, "mean", s->count ? s->mean : NAN);
    json_int(obj, "stdev", s->count > 1 ? s->stdev : NAN);
    smem_json_number(obj, "noise", s->count > 1 ? s->noise : NAN);
    smem_json_number(obj, "robust_spread", s->count > 1 ? s->robust_spread : NAN);
    smem_json_int(obj, "count", (long long)(s->count));
}

/* Samples left out for a throttled SM clock: which, how long, at what clock. */
static void add_throttled(cJSON *time, const struct smem_result *r)
{
    cJSON *t = cJSON_AddObjectToObject(time, "throttled"), *arr;

    smem_json_number(t, "threshold_mhz", r->throttle_below_mhz > 0 ? r->throttle_below_mhz : NAN);
    smem_json_int(t, "count", (long long)(r->n_throttled));
    cJSON_AddBoolToObject(t, "used", r->throttled_used);
    arr = cJSON_AddArrayToObject(t, "samples");
    for (size_t i = 0; i < r->n_throttled; i++) {
        cJSON *o = cJSON_CreateObject();
        smem_json_int(o, "index", (long long)(r->throttled[i].index));
        json_int(o, "ns", r->throttled[i].ns);
        smem_json_number(o, "clock_mhz", r->throttled[i].clock_mhz);
        cJSON_AddItemToArray(arr, o);
    }
}

static void add_phases(cJSON *o, const struct smem_phase_times *p)
{
    smem_json_number(o, "setup", p->setup);
    smem_json_number(o, "verify", p->verify);
    smem_json_number(o, "warmup", p->warmup);
    smem_json_number(o, "sampling", p->sampling);
    smem_json_number(o, "residency", p->residency);
    smem_json_number(o, "teardown", p->teardown);
    if (p->counters > 0)
        smem_json_number(o, "counters", p->counters);
}

static void phases_add(struct smem_phase_times *sum, const struct smem_phase_times *p)
{
    sum->setup += p->setup;
    sum->verify += p->verify;
    sum->warmup += p->warmup;
    sum->sampling += p->sampling;
    sum->residency += p->residency;
    sum->teardown += p->teardown;
    sum->counters += p->counters;
}

/* The point's trials: each one's median and within-trial spread, the range of their medians, and
 * whether that range is past what their own noise explains (src/stats.h, Trials). */
static void add_trials(cJSON *o, const struct smem_result *r)
{
    cJSON *t = cJSON_AddObjectToObject(o, "trials"), *arr;
    double range, within;
    bool disagree = smem_result_trials(r, &range, &within);

    smem_json_int(t, "count", (long long)(r->n_trials));
    smem_json_int(t, "planned", (long long)(r->trials_planned));
    arr = cJSON_AddArrayToObject(t, "runs");
    for (size_t k = 0; k < r->n_trials; k++) {
        const struct smem_trial *tr = &r->trials[k];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, x);
        json_int(x, "median_ns", tr->median_ns);
        smem_json_number(x, "robust_spread", tr->robust_spread);
        smem_json_int(x, "samples", (long long)(tr->samples));
        smem_json_int(x, "batch", (long long)(tr->batch));
        smem_json_number(x, "clock_mhz", tr->clock_mhz > 0 ? tr->clock_mhz : NAN);
        smem_json_int(x, "order", (long long)(tr->order));
    }
    /* fractions of the median of the trials' medians, like robust_spread */
    smem_json_number(t, "spread", r->n_trials > 1 ? range : NAN);
    smem_json_number(t, "within", within);
    cJSON_AddBoolToObject(t, "disagree", disagree);
}

void smem_json_gate(cJSON *v, const struct smem_bench *b)
{
    cJSON_AddBoolToObject(v, "time_gated", !b->time_not_gated);
    smem_json_string(v, "not_gated", b->time_not_gated ? b->time_not_gated : "");
    smem_json_string(v, "gate_metric", b->gate_metric ? b->gate_metric : "");
}

int smem_report_add(cJSON *doc, const struct smem_result *r, int device_index)
{
    cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
    cJSON *o = cJSON_CreateObject();
    cJSON *params, *launch, *time, *stats, *raw, *metrics, *occ;
    const struct smem_bench *b = r->point->bench;
    bool timed = r->n_samples > 0;

    if (!o || !results)
        return SMEM_ENOMEM;
    cJSON_AddItemToArray(results, o);
    cJSON_AddStringToObject(o, "bench", b->name);
    cJSON_AddStringToObject(o, "sweep", r->point->sweep);
    if (device_index >= 0)
        cJSON_AddNumberToObject(o, "device_index", device_index);
    params = cJSON_AddObjectToObject(o, "params");
    for (size_t a = 0; a < b->n_axes; a++)
        smem_json_int(params, b->axes[a].name, (long long)(r->point->values[a]));
    cJSON_AddStringToObject(o, "status", smem_point_status_name(r->status));
    smem_json_string(o, "reason", r->reason);

    launch = cJSON_AddObjectToObject(o, "launch");
    json_opt_int(launch, "grid", r->grid ? (long long)r->grid : -1);
    cJSON_AddNumberToObject(launch, "block", r->block);
    smem_json_int(launch, "static_smem", (long long)(r->static_smem));
    smem_json_int(launch, "dynamic_smem", (long long)(r->dyn_smem));
    json_opt_int(launch, "regs", r->regs);
    if (r->grid)
        cJSON_AddStringToObject(launch, "grid_from", r->grid_measured ? "measured_residency" : "plan_or_api");
    else
        cJSON_AddNullToObject(launch, "grid_from");
    json_opt_int(launch, "carveout_requested", r->carveout_requested);
    cJSON_AddBoolToObject(launch, "optin", r->optin);

    time = cJSON_AddObjectToObject(o, "time_ns");
    stats = cJSON_AddObjectToObject(time, "stats");
    add_stats(stats, &r->time_ns);
    raw = cJSON_AddArrayToObject(time, "raw");
    for (size_t i = 0; i < r->n_samples; i++)
        cJSON_AddItemToArray(raw, json_int_item(r->samples_ns[i]));
    json_opt_int(time, "batch", timed ? (long long)r->batch : -1);
    if (timed)
        cJSON_AddBoolToObject(time, "lead_in", r->lead_in);
    else
        cJSON_AddNullToObject(time, "lead_in");
    if (timed)
        add_throttled(time, r);
    else
        cJSON_AddNullToObject(time, "throttled");
    smem_json_number(o, "clock_mhz", timed && r->clock_mhz > 0 ? r->clock_mhz : NAN);
    if (timed && r->n_trials)
        add_trials(o, r);
    else
        cJSON_AddNullToObject(o, "trials");

    metrics = cJSON_AddObjectToObject(o, "metrics");
    for (size_t i = 0; i < r->metrics.n; i++) {
        const struct smem_metric *m = &r->metrics.m[i];
        cJSON *mo = cJSON_AddObjectToObject(metrics, m->name);
        smem_json_number(mo, "value", m->value);
        cJSON_AddStringToObject(mo, "unit", m->unit);
        smem_json_number(mo, "ceiling", m->ceiling > 0 ? m->ceiling : NAN);
        cJSON_AddStringToObject(mo, "better", m->better == SMEM_LOWER_IS_BETTER ? "lower" : "higher");
    }

    occ = cJSON_AddObjectToObject(o, "occupancy");
    json_opt_int(occ, "api", r->occ.api);
    json_opt_int(occ, "predicted", r->occ.predicted);
    json_opt_int(occ, "measured", r->occ.measured);
    json_opt_int(occ, "warps_per_sm", r->occ.warps_per_sm);
    smem_json_number(occ, "occupancy_pct", r->occ.warps_per_sm >= 0 ? r->occ.occupancy_pct : NAN);
    smem_json_string(occ, "limiter", r->occ.limiter);
    json_opt_int(occ, "effective_carveout", r->occ.effective_carveout_pct);
    json_opt_int(occ, "smem_config_requested_bytes", r->occ.smem_config_requested);
    json_opt_int(occ, "smem_config_predicted_bytes", r->occ.smem_config_predicted);
    json_opt_int(occ, "smem_config_inferred_min_bytes", r->occ.smem_config_inferred_min);
    json_opt_int(occ, "measured_sms", r->occ.measured_sms);
    json_opt_int(occ, "probe_regs", r->occ.probe_regs);
    cJSON_AddBoolToObject(occ, "hint_overridden", r->occ.hint_overridden);
    cJSON_AddBoolToObject(o, "verified", r->verified);
    if (r->wall_s > 0) {
        /* where the point's time went, host wall seconds (measure mode only) */
        cJSON *ph = cJSON_AddObjectToObject(o, "phases_s");
        add_phases(ph, &r->phase_s);
        smem_json_number(ph, "total", r->wall_s);
    }
    {
        /* what the descriptor declares of the point's movement between runs and units (bench/bench.h) */
        cJSON *v = cJSON_AddObjectToObject(o, "between_run");
        cJSON_AddNumberToObject(v, "run_pct", b->variation.run_pct);
        cJSON_AddNumberToObject(v, "unit_pct", b->variation.unit_pct);
        cJSON_AddBoolToObject(v, "gpc_layout", b->variation.layout_pct > 0);
        smem_json_number(v, "layout_pct", b->variation.layout_pct > 0 ? b->variation.layout_pct : NAN);
        cJSON_AddStringToObject(v, "source", b->variation.source ? b->variation.source : "");
        smem_json_gate(v, b);
    }
    return SMEM_OK;
}

void smem_report_point_counters(cJSON *doc, const struct smem_result *r, const struct smem_counters_run *run)
{
    cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
    cJSON *o = results ? cJSON_GetArrayItem(results, cJSON_GetArraySize(results) - 1) : NULL, *c, *v;
    const struct smem_point_counters *pc = &r->counters;

    if (!o || !run || !run->req || !run->req->on)
        return;
    if (pc->status == SMEM_COUNTERS_NONE && run->status == SMEM_COUNTERS_OK) {
        cJSON_AddNullToObject(o, "counters");   /* the point did not run */
        return;
    }
    c = cJSON_AddObjectToObject(o, "counters");
    if (run->status != SMEM_COUNTERS_OK) {
        cJSON_AddStringToObject(c, "status", smem_counters_status_name(run->status));
        smem_json_string(c, "reason", run->reason);
        cJSON_AddNullToObject(c, "passes");
        cJSON_AddObjectToObject(c, "values");
        return;
    }
    cJSON_AddStringToObject(c, "status", smem_counters_status_name(pc->status));
    smem_json_string(c, "reason", pc->reason);
    json_int(c, "passes", pc->passes);
    v = cJSON_AddObjectToObject(c, "values");
    for (size_t i = 0; i < run->n; i++) {
        cJSON *m = cJSON_AddObjectToObject(v, run->name[i]);
        /* counts are integers; a value that could not be evaluated is null */
        double x = pc->values ? pc->values[i] : NAN;
        if (!strcmp(run->kind[i], "counter") && isfinite(x) && fabs(x) < 9007199254740992.0)
            json_int(m, "value", round(x));
        else
            smem_json_number(m, "value", x);
        cJSON_AddStringToObject(m, "unit", run->unit[i]);
        cJSON_AddStringToObject(m, "kind", run->kind[i]);
        cJSON_AddBoolToObject(m, "exact", run->exact[i]);
    }
}

/* The first len characters of p, as a string (a name of the skipped list: at most 127). */
static const char *smem_json_cut(const char *p, size_t len)
{
    static _Thread_local char buf[SMEM_COUNTER_NAME_MAX];

    smem_fmt(buf, sizeof(buf), "%.*s", (int)len, p);
    return buf;
}

void smem_report_counters(cJSON *doc, const struct smem_device_run *runs, int n_runs)
{
    cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run"), *c, *names;
    const struct smem_counters_run *cr = n_runs > 0 ? &runs[0].counters : NULL;
    double wall = 0;
    int passes = 0;

    if (!run || !cr || !cr->req || !cr->req->on)
        return;
    c = cJSON_AddObjectToObject(run, "counters");
    names = cJSON_AddArrayToObject(c, "requested");
    for (size_t i = 0; i < cr->req->n; i++)
        cJSON_AddItemToArray(names, cJSON_CreateString(cr->req->names[i]));
    cJSON_AddBoolToObject(c, "default_set", cr->req->default_set);
    /* one status for the run: the first device that has none says why */
    for (int d = 0; d < n_runs; d++) {
        if (runs[d].counters.status != SMEM_COUNTERS_OK) {
            cr = &runs[d].counters;
            break;
        }
    }
    cJSON_AddStringToObject(c, "status", smem_counters_status_name(cr->status));
    smem_json_string(c, "reason", cr->reason);
    /* the default set's metrics this chip lacks: skipped with the reason, never guessed */
    names = cJSON_AddArrayToObject(c, "skipped");
    for (const char *p = runs[0].counters.skipped; *p;) {
        const char *e = strstr(p, ", ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        cJSON_AddItemToArray(names, cJSON_CreateString(smem_json_cut(p, len)));
        p += len + (e ? 2 : 0);
    }
    for (int d = 0; d < n_runs; d++) {
        wall += runs[d].counters.wall_s;
        for (size_t i = 0; i < runs[d].out.done; i++)
            if (runs[d].results[i].counters.passes > passes)
                passes = runs[d].results[i].counters.passes;
    }
    if (cr->status == SMEM_COUNTERS_OK)
        json_int(c, "passes", passes);
    else
        cJSON_AddNullToObject(c, "passes");
    smem_json_number(c, "wall_s", wall);
}

void smem_report_add_devices(cJSON *doc, const struct smem_device_run *runs, int n)
{
    cJSON *arr = cJSON_AddArrayToObject(doc, "devices");

    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, device_record(&runs[i].dev));
}

void smem_report_spread(cJSON *doc, const struct smem_point *points, const struct smem_spread *spread, size_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(doc, "spread");

    for (size_t i = 0; i < n; i++) {
        const struct smem_spread *sp = &spread[i];
        const struct smem_bench *b = points[i].bench;
        cJSON *o, *params;

        if (sp->devices < 2)
            continue;
        o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "bench", b->name);
        params = cJSON_AddObjectToObject(o, "params");
        for (size_t a = 0; a < b->n_axes; a++)
            smem_json_int(params, b->axes[a].name, (long long)(points[i].values[a]));
        cJSON_AddNumberToObject(o, "devices", sp->devices);
        cJSON_AddNumberToObject(o, "fastest_device_index", sp->fastest);
        cJSON_AddNumberToObject(o, "slowest_device_index", sp->slowest);
        json_int(o, "fastest_median_ns", sp->fastest_ns);
        json_int(o, "slowest_median_ns", sp->slowest_ns);
        smem_json_number(o, "spread_pct", sp->pct);
    }
}

/* A benchmark's share of the run's time. */
struct bench_time {
    const struct smem_bench *bench;
    size_t points;
    double wall_s;
    struct smem_phase_times phase_s;
};

static int by_wall_desc(const void *a, const void *b)
{
    double x = ((const struct bench_time *)a)->wall_s, y = ((const struct bench_time *)b)->wall_s;

    return (x < y) - (x > y);
}

#define TIMING_TOP 5

void smem_report_timing(cJSON *doc, const struct smem_device_run *runs, int n_runs, double wall_s)
{
    cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run"), *t, *ph, *top;
    struct smem_phase_times sum = { 0 };
    struct bench_time *bt = NULL;
    size_t n_bt = 0, cap = 0;
    double points_s = 0;

    if (!run)
        return;
    for (int d = 0; d < n_runs; d++)
        for (size_t i = 0; i < runs[d].out.done; i++) {
            const struct smem_result *r = &runs[d].results[i];
            size_t k = 0;
            while (k < n_bt && bt[k].bench != r->point->bench)
                k++;
            if (k == n_bt) {
                if (n_bt == cap) {
                    struct bench_time *g = realloc(bt, (cap = cap ? 2 * cap : 32) * sizeof(*bt));
                    if (!g)
                        goto out;
                    bt = g;
                }
                bt[n_bt++] = (struct bench_time){ .bench = r->point->bench };
            }
            bt[k].points++;
            bt[k].wall_s += r->wall_s;
            phases_add(&bt[k].phase_s, &r->phase_s);
            phases_add(&sum, &r->phase_s);
            points_s += r->wall_s;
        }
    qsort(bt, n_bt, sizeof(*bt), by_wall_desc);
    t = cJSON_AddObjectToObject(run, "timing");
    smem_json_number(t, "wall_s", wall_s);
    smem_json_number(t, "points_s", points_s);
    /* with several devices, the points ran side by side: their sum exceeds the wall time */
    smem_json_number(t, "outside_points_s", n_runs == 1 && wall_s > points_s ? wall_s - points_s : NAN);
    ph = cJSON_AddObjectToObject(t, "phases_s");
    add_phases(ph, &sum);
    top = cJSON_AddArrayToObject(t, "top");
    for (size_t k = 0; k < n_bt && k < TIMING_TOP; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(top, o);
        cJSON_AddStringToObject(o, "bench", bt[k].bench->name);
        smem_json_int(o, "points", (long long)(bt[k].points));
        smem_json_number(o, "wall_s", bt[k].wall_s);
        add_phases(cJSON_AddObjectToObject(o, "phases_s"), &bt[k].phase_s);
    }
out:
    free(bt);
}

void smem_report_mark_incomplete(cJSON *doc, int sig, const char *why)
{
    cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");

    if (!run)
        return;
    if (sig)
        cJSON_ReplaceItemInObjectCaseSensitive(run, "interrupted", cJSON_CreateBool(1));
    if (why)
        cJSON_ReplaceItemInObjectCaseSensitive(run, "incomplete_reason", cJSON_CreateString(why));
}


int smem_output_commit(struct smem_output *o, const cJSON *doc)
{
    char a[112], *text = json_alloc_failed ? NULL : cJSON_Print(doc), *fixed;
    size_t bad = 0;
    int rc;

    if (!text || json_alloc_failed) {
        smem_error("cannot write %s%s%s: out of memory while building the results", o->kind == SMEM_OUTPUT_STDOUT ? "" : "\"",
                   o->kind == SMEM_OUTPUT_STDOUT ? "the results to stdout" : smem_output_shown(o->path, a, sizeof(a)),
                   o->kind == SMEM_OUTPUT_STDOUT ? "" : "\"");
        free(text);
        return SMEM_ENOMEM;
    }
    /* the file is UTF-8 (RFC 8259): bytes of a file name, a summary or a path that are not are
     * written as U+FFFD; cJSON copies them as they are, and every reader would refuse the file */
    if ((fixed = smem_utf8_repair(text, &bad)) || bad) {
        free(text);
        if (!fixed) {
            smem_error("cannot write the results: out of memory");
            return SMEM_ENOMEM;
        }
        smem_warn("%zu byte%s of the results (a file name, the description's text or the command line) %s not UTF-8: "
                  "written as U+FFFD", bad, bad == 1 ? "" : "s", bad == 1 ? "is" : "are");
        text = fixed;
    }
    rc = smem_output_write(o, text, strlen(text));
    free(text);
    return rc;
}

/* A file-name-safe lowercase slug of s, at most len - 1 bytes. */
static void slug(char *out, size_t len, const char *s)
{
    size_t n = 0;
    bool dash = false;

    for (; *s && n + 1 < len; s++) {
        if (isalnum((unsigned char)*s)) {
            out[n++] = (char)tolower((unsigned char)*s);
            dash = false;
        } else if (!dash && n) {
            out[n++] = '-';
            dash = true;
        }
    }
    while (n && out[n - 1] == '-')
        n--;
    out[n] = '\0';
}

void smem_output_default_name(char *out, size_t len, const char *gpu_name, const char *what)
{
    /* 63 + 1 + 8 + 1 + 127 + ".json": 205 bytes at most, room for _9999 within 255 */
    char gpu[64], sw[128], date[16];

    slug(gpu, sizeof(gpu), gpu_name);
    slug(sw, sizeof(sw), what);
    smem_utc_now(date, sizeof(date), true);
    smem_fmt(out, len, "%s_%s_%s.json", gpu, date, sw);
}
