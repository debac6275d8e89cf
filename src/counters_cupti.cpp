/* The counters' CUPTI side: the range profiler (cupti_range_profiler.h) replays one launch of a
 * point in user-replay passes over one user range, and the Profiler Host API
 * (cupti_profiler_host.h) checks the names, builds the configuration and evaluates the values.
 * C++ only because CUPTI's host header includes <string>; the interface is counters.h's C one.
 * libcupti is dlopen'ed: a machine without it still measures, and says why it has no counters. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "counters.h"
#include "smem.h"
}

namespace {

/* Every CUPTI function the session calls, looked up once in the library that was loaded. */
struct cupti_api {
    void *lib;
    decltype(&cuptiGetResultString) result_string;
    decltype(&cuptiProfilerInitialize) initialize;
    decltype(&cuptiProfilerDeInitialize) deinitialize;
    decltype(&cuptiDeviceGetChipName) chip_name;
    decltype(&cuptiProfilerGetCounterAvailability) availability;
    decltype(&cuptiProfilerHostInitialize) host_initialize;
    decltype(&cuptiProfilerHostDeinitialize) host_deinitialize;
    decltype(&cuptiProfilerHostGetMetricProperties) metric_properties;
    decltype(&cuptiProfilerHostConfigAddMetrics) add_metrics;
    decltype(&cuptiProfilerHostGetConfigImageSize) config_size;
    decltype(&cuptiProfilerHostGetConfigImage) config_image;
    decltype(&cuptiProfilerHostGetNumOfPasses) num_passes;
    decltype(&cuptiProfilerHostEvaluateToGpuValues) evaluate;
    decltype(&cuptiRangeProfilerEnable) enable;
    decltype(&cuptiRangeProfilerDisable) disable;
    decltype(&cuptiRangeProfilerSetConfig) set_config;
    decltype(&cuptiRangeProfilerStart) start;
    decltype(&cuptiRangeProfilerStop) stop;
    decltype(&cuptiRangeProfilerPushRange) push;
    decltype(&cuptiRangeProfilerPopRange) pop;
    decltype(&cuptiRangeProfilerDecodeData) decode;
    decltype(&cuptiRangeProfilerGetCounterDataSize) data_size;
    decltype(&cuptiRangeProfilerCounterDataImageInitialize) data_initialize;
    decltype(&cuptiRangeProfilerGetCounterDataInfo) data_info;
};

/* The library: $SMEM_CUPTI_LIB, else the soname on the loader's path, else the toolkit's folder
 * this build was made with (libcupti ships beside cudart). */
bool load(cupti_api *a, char *why, size_t why_len)
{
    const char *env = getenv("SMEM_CUPTI_LIB");
    const char *tried = env && *env ? env : "libcupti.so." SMEM_CUPTI_SOVERSION;

    memset(a, 0, sizeof(*a));
    a->lib = dlopen(tried, RTLD_NOW | RTLD_LOCAL);
    if (!a->lib && !(env && *env) && *SMEM_CUPTI_LIBDIR) {
        tried = SMEM_CUPTI_LIBDIR "/libcupti.so." SMEM_CUPTI_SOVERSION;
        a->lib = dlopen(tried, RTLD_NOW | RTLD_LOCAL);
    }
    if (!a->lib) {
        const char *e = dlerror();
        smem_fmt(why, why_len, "cannot load CUPTI (%s): %s; install the CUDA toolkit's CUPTI or set SMEM_CUPTI_LIB",
                 tried, e ? e : "not found");
        return false;
    }
#define SYM(field, name)                                                                                   \
    do {                                                                                                   \
        if (!(*(void **)&a->field = dlsym(a->lib, #name))) {                                               \
            smem_fmt(why, why_len, "CUPTI (%s) has no %s: the range profiler needs CUDA 12.6 or newer", tried, \
                     #name);                                                                               \
            dlclose(a->lib);                                                                               \
            a->lib = NULL;                                                                                 \
            return false;                                                                                  \
        }                                                                                                  \
    } while (0)
    SYM(result_string, cuptiGetResultString);
    SYM(initialize, cuptiProfilerInitialize);
    SYM(deinitialize, cuptiProfilerDeInitialize);
    SYM(chip_name, cuptiDeviceGetChipName);
    SYM(availability, cuptiProfilerGetCounterAvailability);
    SYM(host_initialize, cuptiProfilerHostInitialize);
    SYM(host_deinitialize, cuptiProfilerHostDeinitialize);
    SYM(metric_properties, cuptiProfilerHostGetMetricProperties);
    SYM(add_metrics, cuptiProfilerHostConfigAddMetrics);
    SYM(config_size, cuptiProfilerHostGetConfigImageSize);
    SYM(config_image, cuptiProfilerHostGetConfigImage);
    SYM(num_passes, cuptiProfilerHostGetNumOfPasses);
    SYM(evaluate, cuptiProfilerHostEvaluateToGpuValues);
    SYM(enable, cuptiRangeProfilerEnable);
    SYM(disable, cuptiRangeProfilerDisable);
    SYM(set_config, cuptiRangeProfilerSetConfig);
    SYM(start, cuptiRangeProfilerStart);
    SYM(stop, cuptiRangeProfilerStop);
    SYM(push, cuptiRangeProfilerPushRange);
    SYM(pop, cuptiRangeProfilerPopRange);
    SYM(decode, cuptiRangeProfilerDecodeData);
    SYM(data_size, cuptiRangeProfilerGetCounterDataSize);
    SYM(data_initialize, cuptiRangeProfilerCounterDataImageInitialize);
    SYM(data_info, cuptiRangeProfilerGetCounterDataInfo);
#undef SYM
    return true;
}

/* What a CUPTI status means for the user: the cases a machine can be in, then CUPTI's own words. */
void explain(const cupti_api *a, CUptiResult r, const char *call, char *why, size_t why_len)
{
    const char *s = NULL;

    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        smem_fmt(why, why_len, "profiling needs administrator rights here (the driver's "
                 "NVreg_RestrictProfilingToAdminUsers=1): run as root, or load nvidia with "
                 "NVreg_RestrictProfilingToAdminUsers=0 (%s)", call);
        return;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        smem_fmt(why, why_len, "CUPTI cannot profile a MIG instance of this GPU (%s)", call);
        return;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
        smem_fmt(why, why_len, "another profiler (Nsight Compute, Nsight Systems, DCGM) holds this GPU's counters (%s)",
                 call);
        return;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        if (a->result_string)
            a->result_string(r, &s);
        smem_fmt(why, why_len, "CUPTI's range profiler is not supported on this GPU or configuration (MPS, vGPU, "
                 "an old driver): %s: %s", call, s ? s : "not supported");
        return;
    default:
        if (a->result_string)
            a->result_string(r, &s);
        smem_fmt(why, why_len, "%s: %s", call, s ? s : "CUPTI error");
    }
}

/* The unit of one launch's value, from the name's rollup and CUPTI's dimension. */
void unit_of(const char *name, const char *dim, const char *fallback, char *unit, size_t len)
{
    size_t n = strlen(name);

    if (strstr(name, ".pct"))
        smem_fmt(unit, len, "%%");
    else if (n > 6 && !strcmp(name + n - 6, ".ratio"))
        smem_fmt(unit, len, "ratio");
    else if (fallback)
        smem_fmt(unit, len, "%s", fallback);
    else if (dim && *dim)
        smem_fmt(unit, len, "%s%s%s", dim, strcmp(dim, "byte") && strcmp(dim, "sector") && strcmp(dim, "cycle") &&
                 strcmp(dim, "warp") && strcmp(dim, "request") ? "" : "s",
                 strstr(name, ".per_second") ? "/s" : "");
    else
        unit[0] = '\0';
}

/* Whether the default set holds name as an exact count (the same on every unit and run). */
bool default_exact(const char *name)
{
    for (size_t i = 0; i < smem_counters_n_default; i++)
        if (!strcmp(smem_counters_default[i].name, name))
            return smem_counters_default[i].exact;
    return false;
}

/* The default set's unit of a name, or NULL for one outside it. */
const char *default_unit(const char *name)
{
    for (size_t i = 0; i < smem_counters_n_default; i++)
        if (!strcmp(smem_counters_default[i].name, name))
            return smem_counters_default[i].unit;
    return NULL;
}

} // namespace

struct smem_counters {
    cupti_api api;
    bool initialized;
    CUcontext ctx;
    const char *chip;                    /* CUPTI's name of the device's chip (GH100) */
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *range;   /* enabled at the first point's passes */
    const char *names[SMEM_COUNTERS_MAX];
    size_t n;
    uint8_t *availability, *config, *data;
    size_t config_size, data_size;
};

/* An image buffer of n bytes into *p, or SMEM_ENOMEM with why. */
static int image(uint8_t **p, size_t n, char *why, size_t why_len)
{
    if (!(*p = (uint8_t *)malloc(n ? n : 1))) {
        smem_fmt(why, why_len, "out of memory");
        return SMEM_ENOMEM;
    }
    return SMEM_OK;
}

/* A host object for the chip (the last one, if any, given back first). */
static int host_new(struct smem_counters *s, char *why, size_t why_len)
{
    CUpti_Profiler_Host_Initialize_Params hi = { CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, NULL,
                                                 CUPTI_PROFILER_TYPE_RANGE_PROFILER, NULL, NULL, NULL };
    CUptiResult r;

    if (s->host) {
        CUpti_Profiler_Host_Deinitialize_Params p = { CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
                                                      s->host };
        s->api.host_deinitialize(&p);
        s->host = NULL;
    }
    hi.pChipName = s->chip;
    hi.pCounterAvailabilityImage = s->availability;
    if ((r = s->api.host_initialize(&hi)) != CUPTI_SUCCESS) {
        explain(&s->api, r, "cuptiProfilerHostInitialize", why, why_len);
        return SMEM_ENODEV;
    }
    s->host = hi.pHostObject;
    return SMEM_OK;
}

/* Whether the range profiler can configure name on this chip: added alone to a host object of
 * its own (a metric the host API names may still need what user replay cannot collect). */
static bool addable(struct smem_counters *s, const char *name)
{
    CUpti_Profiler_Host_Initialize_Params hi = { CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, NULL,
                                                 CUPTI_PROFILER_TYPE_RANGE_PROFILER, s->chip, s->availability, NULL };
    CUpti_Profiler_Host_Deinitialize_Params de = { CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL, NULL };
    const char *names[1] = { name };
    bool ok;

    if (s->api.host_initialize(&hi) != CUPTI_SUCCESS)
        return true;   /* cannot tell here: the configuration of the whole set will say */
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = { CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, NULL,
                                                        hi.pHostObject, names, 1 };
    ok = s->api.add_metrics(&add) == CUPTI_SUCCESS;
    de.pHostObject = hi.pHostObject;
    s->api.host_deinitialize(&de);
    return ok;
}

extern "C" bool smem_counters_built_in(void)
{
    return true;
}

#define CALL(x, what)                                                                                      \
    do {                                                                                                   \
        CUptiResult r_ = (x);                                                                              \
        if (r_ != CUPTI_SUCCESS) {                                                                         \
            explain(&s->api, r_, what, why, why_len);                                                      \
            rc = SMEM_ENODEV;                                                                              \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

extern "C" int smem_counters_open(int ordinal, struct smem_counters_run *run, struct smem_counters **out, char *why,
                                  size_t why_len)
{
    struct smem_counters *s = (struct smem_counters *)calloc(1, sizeof(*s));
    CUresult (*get_ctx)(CUcontext *) = NULL;
    enum cudaDriverEntryPointQueryResult found;
    int rc = SMEM_OK;

    *out = NULL;
    if (!s) {
        smem_fmt(why, why_len, "out of memory");
        return SMEM_ENOMEM;
    }
    if (!load(&s->api, why, why_len)) {
        free(s);
        return SMEM_ENODEV;
    }
    /* the runtime's primary context of the device, made current; the driver's own entry point
     * for cuCtxGetCurrent (this build links cudart, not libcuda) */
    if (cudaSetDevice(ordinal) != cudaSuccess || cudaFree(NULL) != cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get_ctx, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !get_ctx || get_ctx(&s->ctx) != CUDA_SUCCESS || !s->ctx) {
        smem_fmt(why, why_len, "no CUDA context on device %d for CUPTI", ordinal);
        rc = SMEM_ENODEV;
        goto fail;
    }
    {
        CUpti_Profiler_Initialize_Params p = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
        CALL(s->api.initialize(&p), "cuptiProfilerInitialize");
        s->initialized = true;
    }
    {
        CUpti_Device_GetChipName_Params chip = { CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL, 0, NULL };
        CUpti_Profiler_GetCounterAvailability_Params av = { CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
                                                            NULL, s->ctx, 0, NULL };
        chip.deviceIndex = (size_t)ordinal;
        CALL(s->api.chip_name(&chip), "cuptiDeviceGetChipName");
        CALL(s->api.availability(&av), "cuptiProfilerGetCounterAvailability");
        if ((rc = image(&s->availability, av.counterAvailabilityImageSize, why, why_len)))
            goto fail;
        av.pCounterAvailabilityImage = s->availability;
        CALL(s->api.availability(&av), "cuptiProfilerGetCounterAvailability");
        s->chip = chip.pChipName;
        if ((rc = host_new(s, why, why_len)))
            goto fail;
    }
    /* every name against the chip before anything runs: a name the user gave that the chip does
     * not have is the user's error; one of the default set the chip lacks is skipped, said once */
    for (size_t i = 0; i < run->req->n; i++) {
        const char *name = run->req->names[i];
        bool ours = run->req->default_set && default_unit(name);
        CUpti_Profiler_Host_GetMetricProperties_Params mp = {};
        CUptiResult r;
        mp.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        mp.pHostObject = s->host;
        mp.pMetricName = name;
        r = s->api.metric_properties(&mp);
        if (r == CUPTI_SUCCESS && !addable(s, name))
            r = CUPTI_ERROR_NOT_SUPPORTED;   /* named, but not collectable by the range profiler */
        if (r != CUPTI_SUCCESS && (r == CUPTI_ERROR_INVALID_METRIC_NAME || r == CUPTI_ERROR_INVALID_PARAMETER ||
                                   r == CUPTI_ERROR_NOT_SUPPORTED)) {
            if (ours) {
                smem_append(run->skipped, sizeof(run->skipped), ", ", "%s", name);
                continue;
            }
            smem_fmt(why, why_len, "metric \"%s\" %s on %s (ncu --query-metrics --chip %s lists them)", name,
                     r == CUPTI_ERROR_NOT_SUPPORTED ? "cannot be collected by the range profiler" : "is unknown",
                     s->chip, s->chip);
            rc = SMEM_EINVAL;
            goto fail;
        }
        CALL(r, "cuptiProfilerHostGetMetricProperties");
        size_t k = s->n++;
        s->names[k] = name;
        run->name[k] = name;
        unit_of(name, mp.pDimUnit, default_unit(name), run->unit[k], sizeof(run->unit[k]));
        size_t len = strlen(name);
        bool sum = len > 4 && !strcmp(name + len - 4, ".sum");
        run->exact[k] = default_exact(name);
        smem_fmt(run->kind[k], sizeof(run->kind[k]), "%s",
                 !strcmp(run->unit[k], "%") || !strcmp(run->unit[k], "ratio") ? "ratio"
                 : mp.metricType == CUPTI_METRIC_TYPE_COUNTER && sum          ? "counter"
                                                                              : "throughput");
    }
    run->n = s->n;
    if (!s->n) {
        smem_fmt(why, why_len, "none of the metrics asked for can be collected on %s", s->chip);
        rc = SMEM_ENODEV;
        goto fail;
    }
    /* a fresh host object for the configuration: the checks above added metrics one at a time */
    if ((rc = host_new(s, why, why_len)))
        goto fail;
    {
        CUpti_Profiler_Host_ConfigAddMetrics_Params add = { CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
                                                            NULL, s->host, s->names, s->n };
        CUpti_Profiler_Host_GetConfigImageSize_Params sz = {};
        CUpti_Profiler_Host_GetConfigImage_Params img = {};
        CUpti_Profiler_Host_GetNumOfPasses_Params np = {};
        CALL(s->api.add_metrics(&add), "cuptiProfilerHostConfigAddMetrics");
        sz.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
        sz.pHostObject = s->host;
        CALL(s->api.config_size(&sz), "cuptiProfilerHostGetConfigImageSize");
        s->config_size = sz.configImageSize;
        if ((rc = image(&s->config, s->config_size, why, why_len)))
            goto fail;
        img.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
        img.pHostObject = s->host;
        img.configImageSize = s->config_size;
        img.pConfigImage = s->config;
        CALL(s->api.config_image(&img), "cuptiProfilerHostGetConfigImage");
        np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
        np.configImageSize = s->config_size;
        np.pConfigImage = s->config;
        CALL(s->api.num_passes(&np), "cuptiProfilerHostGetNumOfPasses");
        run->passes_max = (int)np.numOfPasses;
    }
    run->status = SMEM_COUNTERS_OK;
    run->reason[0] = '\0';
    *out = s;
    return SMEM_OK;
fail:
    smem_counters_close(s);
    return rc;
}

/* The range profiler on the context, and a counter-data image for one range: at the first point
 * whose counters are taken, after every point was timed. */
static int enable(struct smem_counters *s, char *why, size_t why_len)
{
    CUpti_RangeProfiler_Enable_Params en = { CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL, s->ctx, NULL };
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {};
    int rc = SMEM_OK;

    CALL(s->api.enable(&en), "cuptiRangeProfilerEnable");
    s->range = en.pRangeProfilerObject;
    ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    ds.pRangeProfilerObject = s->range;
    ds.pMetricNames = s->names;
    ds.numMetrics = s->n;
    ds.maxNumOfRanges = 1;
    ds.maxNumRangeTreeNodes = 1;
    CALL(s->api.data_size(&ds), "cuptiRangeProfilerGetCounterDataSize");
    s->data_size = ds.counterDataSize;
    return image(&s->data, s->data_size, why, why_len);
fail:
    return rc;
}

extern "C" int smem_counters_collect(struct smem_counters *s, const struct smem_counters_run *run,
                                     int (*launch)(void *arg), void *arg, struct smem_point_counters *pc)
{
    char *why = pc->reason;
    size_t why_len = sizeof(pc->reason);
    double values[SMEM_COUNTERS_MAX];
    int rc = SMEM_OK, passes = 0;

    pc->status = SMEM_COUNTERS_FAILED;
    pc->passes = 0;
    pc->reason[0] = '\0';
    if (!(pc->values = (double *)malloc((run->n ? run->n : 1) * sizeof(double)))) {
        smem_fmt(why, why_len, "out of memory");
        return SMEM_ENOMEM;
    }
    for (size_t i = 0; i < run->n; i++)
        pc->values[i] = NAN;
    if (!s->range && (rc = enable(s, why, why_len)))
        return rc;
    {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params di = {};
        CUpti_RangeProfiler_SetConfig_Params sc = {};
        di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
        di.pRangeProfilerObject = s->range;
        di.counterDataSize = s->data_size;
        di.pCounterData = s->data;
        CALL(s->api.data_initialize(&di), "cuptiRangeProfilerCounterDataImageInitialize");
        sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
        sc.pRangeProfilerObject = s->range;
        sc.configSize = s->config_size;
        sc.pConfig = s->config;
        sc.counterDataImageSize = s->data_size;
        sc.pCounterDataImage = s->data;
        sc.range = CUPTI_UserRange;
        sc.replayMode = CUPTI_UserReplay;
        sc.maxRangesPerPass = 1;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        CALL(s->api.set_config(&sc), "cuptiRangeProfilerSetConfig");
    }
    /* one range, one launch of the point per pass; a pass count past twice the configuration's is
     * a profiler that never says it is done */
    for (uint8_t all = 0; !all;) {
        CUpti_RangeProfiler_Start_Params st = { CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, s->range };
        CUpti_RangeProfiler_PushRange_Params pu = { CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, NULL, s->range,
                                                    "smembench" };
        CUpti_RangeProfiler_PopRange_Params po = { CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, NULL, s->range };
        CUpti_RangeProfiler_Stop_Params sp = {};
        if (passes > 2 * (run->passes_max > 0 ? run->passes_max : 1) + 2) {
            smem_fmt(why, why_len, "CUPTI asked for more than %d passes", passes);
            rc = SMEM_ECUDA;
            goto fail;
        }
        CALL(s->api.start(&st), "cuptiRangeProfilerStart");
        CALL(s->api.push(&pu), "cuptiRangeProfilerPushRange");
        if ((rc = launch(arg))) {
            s->api.pop(&po);
            sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
            sp.pRangeProfilerObject = s->range;
            s->api.stop(&sp);
            if (!*why)
                smem_fmt(why, why_len, "the launch of a counter pass failed");
            goto fail;
        }
        CALL(s->api.pop(&po), "cuptiRangeProfilerPopRange");
        sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = s->range;
        CALL(s->api.stop(&sp), "cuptiRangeProfilerStop");
        all = sp.isAllPassSubmitted;
        passes++;
    }
    {
        CUpti_RangeProfiler_DecodeData_Params dd = {};
        CUpti_RangeProfiler_GetCounterDataInfo_Params info = {};
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {};
        dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dd.pRangeProfilerObject = s->range;
        CALL(s->api.decode(&dd), "cuptiRangeProfilerDecodeData");
        info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
        info.pCounterDataImage = s->data;
        info.counterDataImageSize = s->data_size;
        CALL(s->api.data_info(&info), "cuptiRangeProfilerGetCounterDataInfo");
        if (info.numTotalRanges < 1) {
            smem_fmt(why, why_len, "CUPTI recorded no range for the point's launch");
            rc = SMEM_ECUDA;
            goto fail;
        }
        ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
        ev.pHostObject = s->host;
        ev.pCounterDataImage = s->data;
        ev.counterDataImageSize = s->data_size;
        ev.rangeIndex = 0;
        ev.ppMetricNames = s->names;
        ev.numMetrics = s->n;
        ev.pMetricValues = values;
        CALL(s->api.evaluate(&ev), "cuptiProfilerHostEvaluateToGpuValues");
    }
    for (size_t i = 0; i < run->n; i++)
        pc->values[i] = isfinite(values[i]) ? values[i] : NAN;
    pc->passes = passes;
    pc->status = SMEM_COUNTERS_OK;
    return SMEM_OK;
fail:
    pc->passes = passes;
    return rc ? rc : SMEM_ECUDA;
}

extern "C" void smem_counters_close(struct smem_counters *s)
{
    if (!s)
        return;
    if (s->range) {
        CUpti_RangeProfiler_Disable_Params p = { CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, s->range };
        s->api.disable(&p);
    }
    if (s->host) {
        CUpti_Profiler_Host_Deinitialize_Params p = { CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
                                                      s->host };
        s->api.host_deinitialize(&p);
    }
    if (s->initialized) {
        CUpti_Profiler_DeInitialize_Params p = { CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL };
        s->api.deinitialize(&p);
    }
    /* libcupti stays loaded: CUPTI leaves callbacks in the driver (a module unloaded later, the
     * context's end at exit) that would call into unmapped code (a --kernel run's library unload
     * segfaulted after the file was written) */
    free(s->availability);
    free(s->config);
    free(s->data);
    free(s);
}
