/* Measurement. A sample is a batch of back-to-back launches between two events on the point's
 * stream, synchronized before the next sample, so samples never overlap. The batch is sized once
 * per point after warm-up so that a sample lasts SMEM_BATCH_TARGET_NS: the start event, the first
 * launch's latency and the stop event then weigh on one sample, not on every launch. Cold mode keeps
 * one launch per sample, the L2 flush before it. The kernel's clock marks (those of the batch's last
 * launch) give cycles and nanoseconds of the same run; where a kernel has none, a short clock probe
 * right after the sample stands in. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_launch.h"
#include "cuda_status.h"
#include "signals.h"   /* smem_interrupted */

#define WARMUP_MIN_LAUNCHES 3
/* the point's first launch has already run (its check) when warm-up begins: 2 ms of launches, not
 * 10 (README, Where the time goes: the two --sweep all runs after it gated clean) */
#define WARMUP_MIN_S 0.002
#define WARMUP_MAX_LAUNCHES 200
#define PROBE_NS 200000ull
/* Launches shorter than this get a lead-in launch before every timed batch (time_batch); a longer
 * one is always a batch of one, where the first launch's cost is the same in every sample and every
 * trial, and a lead-in would double its sampling time. */
#define LEAD_IN_BELOW_NS 2e6

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

/* Nanoseconds per launch of batch back-to-back launches between start and stop. With lead_in, one
 * more launch goes first, outside the events: the first launch after the GPU waited for the host
 * runs slower, by a fixed amount that a batch of b launches shares b ways (on the H200 the 320 us
 * ldmatrix/stmatrix x4 points took 332-336 us a launch in every trial whose batch was 3 and at most
 * 327 us in those of 4: a point at the boundary of two batch sizes switched levels by 2-4 % from
 * setup to setup). After the lead-in the timed launches follow a running kernel. */
static int time_batch(struct smem_case *c, cudaEvent_t start, cudaEvent_t stop, size_t batch, bool lead_in,
                      double *ns)
{
    cudaStream_t s = (cudaStream_t)c->stream;
    float ms = 0;
    int rc = SMEM_OK;

    if (lead_in && (rc = c->bench->launch(c)))
        return rc;
    SMEM_CUDA_CHECK(cudaEventRecord(start, s));
    for (size_t k = 0; k < batch; k++)
        if ((rc = c->bench->launch(c)))
            return rc;
    SMEM_CUDA_CHECK(cudaEventRecord(stop, s));
    SMEM_CUDA_CHECK(cudaEventSynchronize(stop));
    SMEM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    *ns = (double)ms * 1e6 / (double)batch;
    return SMEM_OK;
fail:
    return rc;
}

/* Warm-up, then the batch size: from the fastest single warm-up launch a first guess, then one batch
 * of that size times the launches back to back, as the samples will. */
static int warm_up(struct smem_case *c, cudaEvent_t start, cudaEvent_t stop, bool cold, size_t *batch,
                   bool *lead_in)
{
    double t0 = smem_now_s(), ns, fastest = 0;
    int rc;

    *lead_in = false;
    for (int i = 0; i < WARMUP_MAX_LAUNCHES; i++) {
        if ((rc = time_batch(c, start, stop, 1, false, &ns)))
            return rc;
        if (i == 0 || ns < fastest)
            fastest = ns;
        if (i + 1 >= WARMUP_MIN_LAUNCHES && smem_now_s() - t0 >= WARMUP_MIN_S)
            break;
    }
    *batch = 1;
    if (cold)
        return SMEM_OK;   /* a lead-in would fill the L2 the flush emptied */
    *lead_in = fastest < LEAD_IN_BELOW_NS;
    *batch = smem_batch_size(fastest, SMEM_BATCH_TARGET_NS, SMEM_BATCH_MAX);
    if (*batch > 1) {
        if ((rc = time_batch(c, start, stop, *batch, *lead_in, &ns)))
            return rc;
        *batch = smem_batch_size(ns, SMEM_BATCH_TARGET_NS, SMEM_BATCH_MAX);
    }
    return SMEM_OK;
}

/* A later trial's warm-up: the first trial's batch and lead-in, one untimed batch of them, so the
 * timed batches follow a running kernel as the first trial's did. The calibration is not redone: it
 * took 7 of a 52 s --sweep all with 3 trials on the H200 (results/gate/trials_20261201/NOTES.md),
 * and since the lead-in the batch size no longer moves a point's level. */
static int warm_up_known(struct smem_case *c, cudaEvent_t start, cudaEvent_t stop, const struct smem_batch *known,
                         size_t *batch, bool *lead_in)
{
    double ns;

    *batch = known->batch;
    *lead_in = known->lead_in;
    return time_batch(c, start, stop, *batch, *lead_in, &ns);
}

int smem_measure(struct smem_case *c, const struct smem_stop_rule *rule, bool cold, const struct smem_batch *known,
                 struct smem_measurement *m)
{
    cudaStream_t s = (cudaStream_t)c->stream;
    cudaEvent_t start = NULL, stop = NULL;
    double *hz = NULL, *cycles = NULL, *thr_cycles = NULL, t0, ref_hz;
    size_t cap = rule->max_samples, taken = 0;
    /* cold: writing twice the L2 evicts whatever the last launch left there */
    size_t flush_bytes = cold ? 2 * (size_t)(c->dev->l2_bytes > 0 ? c->dev->l2_bytes : 64 << 20) : 0;
    void *flush = NULL;
    bool lead_in = false;
    int rc = SMEM_OK;

    memset(m, 0, sizeof(*m));
    /* the run's clock: measured when the device was opened, else the one it reports */
    ref_hz = c->dev->measured_clock_mhz > 0 ? c->dev->measured_clock_mhz * 1e6 : c->dev->clock_khz * 1e3;
    m->throttle_below_mhz = SMEM_THROTTLE_FRACTION * ref_hz / 1e6;
    m->samples_ns = malloc(cap * sizeof(double));
    m->throttled = malloc(cap * sizeof(*m->throttled));
    hz = malloc(cap * sizeof(double));
    cycles = malloc(cap * sizeof(double));
    thr_cycles = malloc(cap * sizeof(double));
    if (!m->samples_ns || !m->throttled || !hz || !cycles || !thr_cycles) {
        rc = SMEM_ENOMEM;
        goto fail;
    }
    SMEM_CUDA_CHECK(cudaEventCreate(&start));
    SMEM_CUDA_CHECK(cudaEventCreate(&stop));
    if (cold)
        SMEM_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
    t0 = smem_now_s();
    rc = known && known->batch && !cold ? warm_up_known(c, start, stop, known, &m->batch, &lead_in)
                                        : warm_up(c, start, stop, cold, &m->batch, &lead_in);
    m->warmup_s = smem_now_s() - t0;
    if (rc)
        goto fail;

    t0 = smem_now_s();
    while (!smem_interrupted && taken < cap) {
        double ns = 0, h = 0, cyc = 0;
        struct smem_sampling_state ss = { 0 };
        struct smem_stats st;
        SMEM_CUDA_CHECK(cudaMemsetAsync(c->clk, 0, sizeof(struct smem_clock), s));
        if (cold)
            SMEM_CUDA_CHECK(cudaMemsetAsync(flush, (int)(taken & 0xff), flush_bytes, s));
        if ((rc = time_batch(c, start, stop, m->batch, lead_in, &ns)) || (rc = read_clock(c, &h, &cyc)))
            goto fail;
        if (smem_clock_throttled(h, ref_hz)) {
            /* as nvbench does: a throttled sample is not the kernel's time; kept aside, listed */
            thr_cycles[m->n_throttled] = cyc;
            m->throttled[m->n_throttled++] = (struct smem_throttled_sample){ taken, ns, h / 1e6 };
        } else {
            hz[m->n] = h;
            cycles[m->n] = cyc;
            m->samples_ns[m->n++] = ns;
        }
        taken++;
        ss.n = m->n;
        ss.n_throttled = m->n_throttled;
        ss.elapsed_s = smem_now_s() - t0;
        if (m->n && smem_stats_compute(m->samples_ns, m->n, &st) == SMEM_OK)
            ss.spread = st.robust_spread;
        else if (m->n_throttled && smem_stats_compute(thr_cycles, m->n_throttled, &st) == SMEM_OK)
            ss.cycle_spread = st.robust_spread;
        if (smem_sampling_done(rule, &ss))
            break;
    }
    if (m->n == 0 && m->n_throttled > 0) {
        /* every sample was throttled: report them, flagged, rather than nothing */
        for (size_t i = 0; i < m->n_throttled; i++) {
            m->samples_ns[i] = m->throttled[i].ns;
            hz[i] = m->throttled[i].clock_mhz * 1e6;
            cycles[i] = thr_cycles[i];
        }
        m->n = m->n_throttled;
        m->throttled_used = true;
    }
    if (m->n == 0) {
        rc = SMEM_EINTR;
        goto fail;
    }
    m->sampling_s = smem_now_s() - t0;
    m->lead_in = lead_in;
    smem_stats_compute(m->samples_ns, m->n, &m->stats);
    m->median.seconds = m->stats.median * 1e-9;
    m->median.clock_hz = smem_stats_median(hz, m->n);
    m->median.kernel_cycles = smem_stats_median(cycles, m->n);
    rc = smem_interrupted ? SMEM_EINTR : SMEM_OK;
    goto done;
fail:
    free(m->samples_ns);
    free(m->throttled);
    m->samples_ns = NULL;
    m->throttled = NULL;
    m->n = m->n_throttled = 0;
done:
    cudaFree(flush);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    free(hz);
    free(cycles);
    free(thr_cycles);
    return rc;
}
