/* A stand-in for libcupti (SMEM_CUPTI_LIB=libfake_cupti.so), for the counters' failure paths on a
 * GPU: every function --counters looks up exists, and the first call fails with the status
 * FAKE_CUPTI_STATUS names (default 35, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: what a driver loaded
 * with NVreg_RestrictProfilingToAdminUsers=1 answers a user who is not root). Never part of
 * smembench. */
#include <stdlib.h>

#define FAKE_API __attribute__((visibility("default")))

static int status(void)
{
    const char *s = getenv("FAKE_CUPTI_STATUS");
    return s && *s ? atoi(s) : 35;
}

FAKE_API int cuptiGetResultString(int result, const char **str)
{
    *str = result == 35 ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_FAKE";
    return 0;
}

#define FAIL(name)                                                                                         \
    FAKE_API int name(void *params);                                                                       \
    int name(void *params)                                                                                 \
    {                                                                                                      \
        (void)params;                                                                                      \
        return status();                                                                                   \
    }
FAIL(cuptiProfilerInitialize)
FAIL(cuptiProfilerDeInitialize)
FAIL(cuptiDeviceGetChipName)
FAIL(cuptiProfilerGetCounterAvailability)
FAIL(cuptiProfilerHostInitialize)
FAIL(cuptiProfilerHostDeinitialize)
FAIL(cuptiProfilerHostGetMetricProperties)
FAIL(cuptiProfilerHostConfigAddMetrics)
FAIL(cuptiProfilerHostGetConfigImageSize)
FAIL(cuptiProfilerHostGetConfigImage)
FAIL(cuptiProfilerHostGetNumOfPasses)
FAIL(cuptiProfilerHostEvaluateToGpuValues)
FAIL(cuptiRangeProfilerEnable)
FAIL(cuptiRangeProfilerDisable)
FAIL(cuptiRangeProfilerSetConfig)
FAIL(cuptiRangeProfilerStart)
FAIL(cuptiRangeProfilerStop)
FAIL(cuptiRangeProfilerPushRange)
FAIL(cuptiRangeProfilerPopRange)
FAIL(cuptiRangeProfilerDecodeData)
FAIL(cuptiRangeProfilerGetCounterDataSize)
FAIL(cuptiRangeProfilerCounterDataImageInitialize)
FAIL(cuptiRangeProfilerGetCounterDataInfo)
