/* Occupancy: the prediction goes through NVIDIA's own calculator (cuda_occupancy.h, header-only,
 * usable from C) so that it matches what the runtime computes; the API and measured numbers are
 * read off the device (occupancy_gpu.c). */
#include "occupancy.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_occupancy.h>

#include "arch.h"
#include "bench.h"
#include "smem.h"

static void to_occ_prop(const struct smem_device *d, cudaOccDeviceProp *p)
{
    memset(p, 0, sizeof(*p));
    p->computeMajor = d->cc_major;
    p->computeMinor = d->cc_minor;
    p->maxThreadsPerBlock = d->max_threads_per_block;
    p->maxThreadsPerMultiprocessor = d->max_threads_per_sm;
    p->regsPerBlock = d->regs_per_block;
    p->regsPerMultiprocessor = d->regs_per_sm;
    p->warpSize = d->warp_size;
    p->sharedMemPerBlock = (size_t)d->smem_per_block;
    p->sharedMemPerMultiprocessor = (size_t)d->smem_per_sm;
    p->numSms = d->sm_count;
    p->sharedMemPerBlockOptin = (size_t)d->smem_per_block_optin;
    p->reservedSharedMemPerBlock = (size_t)d->reserved_smem_per_block;
}

static void limiter_name(const cudaOccResult *r, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { OCC_LIMIT_WARPS, "warps" },
        { OCC_LIMIT_REGISTERS, "registers" },
        { OCC_LIMIT_SHARED_MEMORY, "shared_memory" },
        { OCC_LIMIT_BLOCKS, "blocks" },
        { OCC_LIMIT_BARRIERS, "barriers" },
    };
    buf[0] = '\0';
    for (size_t i = 0; i < SMEM_ARRAY_LEN(names); i++)
        if (r->limitingFactors & names[i].bit)
            smem_append(buf, len, ",", "%s", names[i].name);
    if (!buf[0])
        smem_fmt(buf, len, "none");
}

int smem_occupancy_predict(const struct smem_device *d, const struct smem_func *f, int block,
                           size_t dyn, int carveout_pct, struct smem_prediction *out)
{
    cudaOccDeviceProp prop;
    cudaOccFuncAttributes attr;
    cudaOccDeviceState state;
    cudaOccResult r;
    size_t config;

    memset(out, 0, sizeof(*out));
    to_occ_prop(d, &prop);
    memset(&attr, 0, sizeof(attr));
    attr.maxThreadsPerBlock = f->max_threads_per_block ? f->max_threads_per_block : INT_MAX;
    attr.numRegs = f->regs;
    attr.sharedSizeBytes = f->static_smem;
    attr.partitionedGCConfig = PARTITIONED_GC_OFF;
    attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    attr.maxDynamicSharedSizeBytes = f->max_dyn_smem;
    attr.numBlockBarriers = 1;
    memset(&state, 0, sizeof(state));
    state.cacheConfig = CACHE_PREFER_NONE;
    state.carveoutConfig = carveout_pct < 0 ? SHAREDMEM_CARVEOUT_DEFAULT : carveout_pct;
    memset(&r, 0, sizeof(r));

    if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, block, dyn) != CUDA_OCC_SUCCESS)
        return SMEM_EINVAL;
    out->blocks_per_sm = r.activeBlocksPerMultiprocessor;
    {
        /* the same function without shared memory: what warps, blocks and registers allow */
        cudaOccFuncAttributes bare = attr;
        cudaOccResult rb;
        memset(&rb, 0, sizeof(rb));
        bare.sharedSizeBytes = 0;
        out->blocks_without_smem =
            cudaOccMaxActiveBlocksPerMultiprocessor(&rb, &prop, &bare, &state, block, 0) == CUDA_OCC_SUCCESS
                ? rb.activeBlocksPerMultiprocessor : -1;
    }
    out->warps_per_sm = r.activeBlocksPerMultiprocessor * ((block + d->warp_size - 1) / d->warp_size);
    out->occupancy_pct = 100.0 * out->warps_per_sm / (d->max_threads_per_sm / d->warp_size);
    out->smem_per_block_bytes = (int64_t)r.allocatedSharedMemPerBlock;
    limiter_name(&r, out->limiter, sizeof(out->limiter));

    /* The calculator keeps the preferred carveout unless one block does not fit in it, then takes
     * the smallest configuration that holds one block; the same rule, reported. */
    if (cudaOccSMemPerMultiprocessor(&config, &prop, &state) == CUDA_OCC_SUCCESS) {
        size_t need = r.allocatedSharedMemPerBlock;
        if (need > config) {
            config = need;
            if (cudaOccAlignUpShmemSizeVoltaPlus(&config, &prop) != CUDA_OCC_SUCCESS)
                config = (size_t)d->smem_per_sm;
        }
        out->smem_config_bytes = (int64_t)config;
    }
    return SMEM_OK;
}

void smem_occupancy_plan_func(const struct smem_device *d, const struct smem_plan *p, struct smem_func *f)
{
    *f = (struct smem_func){ .regs = p->regs, .static_smem = p->static_smem,
                             .max_dyn_smem = p->optin ? p->dyn_smem : (size_t)(d->smem_per_block - (int64_t)p->static_smem),
                             .max_threads_per_block = (int)p->block };
}

int smem_occupancy_blocks_per_sm(const struct smem_device *d, const struct smem_plan *p)
{
    struct smem_prediction pr;
    struct smem_func f;

    smem_occupancy_plan_func(d, p, &f);
    if (smem_occupancy_predict(d, &f, (int)p->block, p->dyn_smem, p->carveout_pct, &pr))
        return SMEM_EINVAL;
    return pr.blocks_per_sm;
}

int smem_occupancy_smem_configs(int cc_major, int cc_minor, int *kib, int max)
{
    const struct smem_arch *a = smem_arch_find(cc_major, cc_minor);
    cudaOccDeviceProp prop;
    int n = 0;

    if (a) {   /* the published steps (core/arch.c; a unit test holds them to the calculator's) */
        for (; n < a->n_carveouts && n < max; n++)
            kib[n] = a->carveout_kib[n];
        return n;
    }
    /* a compute capability the table does not know: what the calculator rounds sizes up to */
    memset(&prop, 0, sizeof(prop));
    prop.computeMajor = cc_major;
    prop.computeMinor = cc_minor;
    if (cc_major < 7)
        return 0;
    for (size_t size = 0; size <= 256 * SMEM_KIB && n < max; size += SMEM_KIB) {
        size_t aligned = size;
        if (cudaOccAlignUpShmemSizeVoltaPlus(&aligned, &prop) != CUDA_OCC_SUCCESS)
            break;
        if (n == 0 || kib[n - 1] != (int)(aligned / SMEM_KIB))
            kib[n++] = (int)(aligned / SMEM_KIB);
    }
    return n;
}

int64_t smem_occupancy_config_holding(const struct smem_device *d, double need)
{
    int kib[32];
    int n = smem_occupancy_smem_configs(d->cc_major, d->cc_minor, kib, 32);

    for (int i = 0; i < n; i++)
        if ((double)kib[i] * SMEM_KIB >= need)
            return (int64_t)kib[i] * (int64_t)SMEM_KIB;
    return -1;
}

int64_t smem_occupancy_config_requested(const struct smem_device *d, int carveout_pct)
{
    return carveout_pct < 0 ? -1 : smem_occupancy_config_holding(d, carveout_pct / 100.0 * (double)d->smem_per_sm);
}

/* Without a hint the driver sizes the configuration for twice the blocks that warps and the block
 * limit allow, but no further than this, unless the resident blocks themselves need more (cc 9.0). */
#define DRIVER_HEADROOM_CAP_BYTES (132 * (int64_t)SMEM_KIB)

/* The driver's rule, fitted to 3717 launches under Nsight Compute on the H200 (driver 580.159.04,
 * tests/ncu/), u = static + dynamic bytes per block, f = u + the 1 KiB reservation, every size
 * rounded up to the next configuration step and held at the largest:
 * - hint of c %: h = c % of the SM's shared memory, b = floor(h / u) blocks (counted without the
 *   reservation), configuration max(b f, f, h); with u = 0 the step holding max(h, what no hint
 *   gives), seen by ncu_check below the probe's 10 % (1 % and 4 % took 32 KiB). The occupancy of the
 *   launch plays no part: a small hint shrinks residency, and a small u inflates the configuration
 *   (u = 1 KiB under a 50 % hint takes the whole 228 KiB).
 * - no hint (or 0 % with u = 0): with n0 blocks per SM without shared memory and n resident,
 *   u = 0: min(32, 4 n0) f; else max(n f, min(b f, 132 KiB)), b = min(32, 2 n0), but b = n0 where
 *   n0 = 2 (1024-thread blocks). n0 was 2, 4, 8, 16, 32 in the probe and limited by warps or the
 *   block count, so other n0, and registers that bind, are outside what was measured. */
int64_t smem_occupancy_config_driver(const struct smem_device *d, const struct smem_config_query *q)
{
    int64_t u = q->smem_bytes, f = u + d->reserved_smem_per_block, largest;
    int kib[32], steps = smem_occupancy_smem_configs(d->cc_major, d->cc_minor, kib, 32);
    int warps, n0;
    double need;

    if (d->cc_major != 9 || d->cc_minor != 0 || steps == 0 || q->block <= 0 || u < 0 || q->blocks_per_sm == 0)
        return -1;  /* (no block resident: the launch fails, there is no configuration) */
    largest = (int64_t)kib[steps - 1] * (int64_t)SMEM_KIB;
    if (f > largest)
        return -1;
    warps = (q->block + d->warp_size - 1) / d->warp_size;
    n0 = d->max_threads_per_sm / d->warp_size / warps;
    n0 = n0 < d->max_blocks_per_sm ? n0 : d->max_blocks_per_sm;
    if (q->carveout_pct >= 0 && (u > 0 || q->carveout_pct > 0)) {
        double h = q->carveout_pct / 100.0 * (double)d->smem_per_sm;
        if (u == 0) {
            /* never below what the launch would get without a hint: the probe's hints (10 % and
             * up) all held more than that, and ncu_check on the H200 saw the gather kernel (no
             * shared memory, n0 = 8) take 32 KiB under 1 % and 4 % hints, not 8 and 16 */
            if (q->blocks_without_smem != n0 || (n0 != 2 && n0 != 4 && n0 != 8 && n0 != 16 && n0 != 32))
                return -1;
            need = (double)((4 * n0 < d->max_blocks_per_sm ? 4 * n0 : d->max_blocks_per_sm) * f);
            return smem_occupancy_config_holding(d, need > h ? need : h);
        }
        return smem_arch_config_hinted(smem_arch_find(d->cc_major, d->cc_minor), d->smem_per_sm, u,
                                       d->reserved_smem_per_block, q->carveout_pct);
    }
    if (q->blocks_without_smem != n0 || (n0 != 2 && n0 != 4 && n0 != 8 && n0 != 16 && n0 != 32))
        return -1;
    if (u == 0) {
        int b0 = 4 * n0 < d->max_blocks_per_sm ? 4 * n0 : d->max_blocks_per_sm;
        need = (double)(b0 * f);
    } else {
        int b = n0 == 2 ? n0 : (2 * n0 < d->max_blocks_per_sm ? 2 * n0 : d->max_blocks_per_sm);
        if (q->blocks_per_sm < 0)
            return -1;
        need = (double)(b * f < DRIVER_HEADROOM_CAP_BYTES ? b * f : DRIVER_HEADROOM_CAP_BYTES);
        need = need > (double)(q->blocks_per_sm * f) ? need : (double)(q->blocks_per_sm * f);
    }
    return need > (double)largest ? largest : smem_occupancy_config_holding(d, need);
}

struct edge {
    unsigned long long t;
    int delta;  /* +1 start, -1 end */
};

static int edge_cmp(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta - y->delta; /* an end before a start at the same instant: no overlap */
}

int smem_occupancy_max_overlap(const uint32_t *smid, const unsigned long long *start, const unsigned long long *end,
                               size_t n, int sm_count, int *sms_used)
{
    struct edge *e = malloc(2 * n * sizeof(*e));
    int best = 0, used = 0;

    if (!e)
        return SMEM_ENOMEM;
    for (int sm = 0; sm < sm_count; sm++) {
        size_t m = 0;
        int cur = 0, peak = 0;
        for (size_t i = 0; i < n; i++) {
            if ((int)smid[i] != sm)
                continue;
            e[m++] = (struct edge){ start[i], +1 };
            e[m++] = (struct edge){ end[i], -1 };
        }
        if (!m)
            continue;
        used++;
        qsort(e, m, sizeof(*e), edge_cmp);
        for (size_t i = 0; i < m; i++) {
            cur += e[i].delta;
            if (cur > peak)
                peak = cur;
        }
        if (peak > best)
            best = peak;
    }
    free(e);
    if (sms_used)
        *sms_used = used;
    return best;
}
