/* Measurement. Each sample is one launch between two events on the point's stream, synchronized
 * before the next, so samples never overlap. The kernel's clock marks give cycles and nanoseconds
 * of the same run; where a kernel has none, a short clock probe right after the sample stands in. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "cuda_status.h"

volatile sig_atomic_t smem_interrupted;

#define WARMUP_MIN_LAUNCHES 3
#define WARMUP_MIN_S 0.01
#define WARMUP_MAX_LAUNCHES 200
#define PROBE_NS 200000ull

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Cycles and nanoseconds of the sample that just ran, from the kernel's marks or a probe. */
static int read_clock(struct smem_case *c, double *hz, double *cycles)
{
    struct smem_clock h;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(&h, c->clk, sizeof(h), cudaMemcpyDeviceToHost));
    *cycles = h.cycles1 > h.cycles0 ? (double)(h.cycles1 - h.cycles0) : 0;
    if (h.ns1 > h.ns0 && h.cycles1 > h.cycles0 && h.ns1 - h.ns0 >= 20000) {
        *hz = (double)(h.cycles1 - h.cycles0) * 1e9 / (double)(h.ns1 - h.ns0);
        return SMEM_OK;
    }
    /* too short to time itself against %globaltimer: a probe right after it */
    SMEM_CUDA_CHECK(smem_clock_launch(PROBE_NS, c->clk, c->stream));
    SMEM_CUDA_CHECK(cudaMemcpyAsync(&h, c->clk, sizeof(h), cudaMemcpyDeviceToHost, (cudaStream_t)c->stream));
    SMEM_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)c->stream));
    *hz = h.ns1 > h.ns0 ? (double)(h.cycles1 - h.cycles0) * 1e9 / (double)(h.ns1 - h.ns0) : 0;
    return SMEM_OK;
fail:
    return rc;
}

int smem_measure(struct smem_case *c, const struct smem_stop_rule *rule, bool cold, struct smem_measurement *m)
{
    cudaStream_t s = (cudaStream_t)c->stream;
    cudaEvent_t start = NULL, stop = NULL;
    double *hz = NULL, *cycles = NULL, t0, spent = 0;
    size_t cap = rule->max_samples;
    /* cold: writing twice the L2 evicts whatever the last launch left there */
    size_t flush_bytes = cold ? 2 * (size_t)(c->dev->l2_bytes > 0 ? c->dev->l2_bytes : 64 << 20) : 0;
    void *flush = NULL;
    int rc = SMEM_OK;

    memset(m, 0, sizeof(*m));
    m->samples_ns = malloc(cap * sizeof(double));
    hz = malloc(cap * sizeof(double));
    cycles = malloc(cap * sizeof(double));
    if (!m->samples_ns || !hz || !cycles) {
        rc = SMEM_ENOMEM;
        goto fail;
    }
    SMEM_CUDA_CHECK(cudaEventCreate(&start));
    SMEM_CUDA_CHECK(cudaEventCreate(&stop));
    if (cold)
        SMEM_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));

    t0 = now_s();
    for (int i = 0; i < WARMUP_MAX_LAUNCHES; i++) {
        if ((rc = c->bench->launch(c)))
            goto fail;
        SMEM_CUDA_CHECK(cudaStreamSynchronize(s));
        if (i + 1 >= WARMUP_MIN_LAUNCHES && now_s() - t0 >= WARMUP_MIN_S)
            break;
    }

    t0 = now_s();
    while (!smem_interrupted) {
        float ms = 0;
        struct smem_stats st;
        SMEM_CUDA_CHECK(cudaMemsetAsync(c->clk, 0, sizeof(struct smem_clock), s));
        if (cold)
            SMEM_CUDA_CHECK(cudaMemsetAsync(flush, (int)(m->n & 0xff), flush_bytes, s));
        SMEM_CUDA_CHECK(cudaEventRecord(start, s));
        if ((rc = c->bench->launch(c)))
            goto fail;
        SMEM_CUDA_CHECK(cudaEventRecord(stop, s));
        SMEM_CUDA_CHECK(cudaEventSynchronize(stop));
        SMEM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if ((rc = read_clock(c, &hz[m->n], &cycles[m->n])))
            goto fail;
        m->samples_ns[m->n++] = (double)ms * 1e6;
        spent = now_s() - t0;
        smem_stats_compute(m->samples_ns, m->n, &st);
        if (smem_stats_should_stop(rule, m->n, st.noise, spent))
            break;
    }
    if (m->n == 0) {
        rc = SMEM_EINTR;
        goto fail;
    }
    smem_stats_compute(m->samples_ns, m->n, &m->stats);
    m->median.seconds = m->stats.median * 1e-9;
    m->median.clock_hz = smem_stats_median(hz, m->n);
    m->median.kernel_cycles = smem_stats_median(cycles, m->n);
    rc = smem_interrupted ? SMEM_EINTR : SMEM_OK;
    goto done;
fail:
    free(m->samples_ns);
    m->samples_ns = NULL;
    m->n = 0;
done:
    cudaFree(flush);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    free(hz);
    free(cycles);
    return rc;
}
