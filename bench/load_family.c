/* The shared-memory load kernel family: plan, bank model, host reference and GPU operations shared
 * by the bandwidth and bank benchmarks (kernels/load.cu). */
#include "load_family.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "smem.h"

int smem_bank_wavefronts(int width_bytes, int stride)
{
    int words_per_access = width_bytes / 4, worst = 0;
    long long distinct_total = 0;

    for (int bank = 0; bank < 32; bank++) {
        long long seen[128];
        int n = 0;
        for (int lane = 0; lane < 32; lane++)
            for (int k = 0; k < words_per_access; k++) {
                long long word = (long long)lane * stride * words_per_access + k;
                bool dup = false;
                if (word % 32 != bank)
                    continue;
                for (int i = 0; i < n && !dup; i++)
                    dup = seen[i] == word;
                if (!dup)
                    seen[n++] = word;
            }
        distinct_total += n;
        if (n > worst)
            worst = n;
    }
    /* a request never takes fewer passes than its distinct bytes over 128 */
    int min_passes = (int)((distinct_total * 4 + 127) / 128);
    return worst > min_passes ? worst : min_passes;
}

int smem_bank_request_wavefronts(const uint32_t *addrs, int n, int width_bytes)
{
    int lanes = 128 / width_bytes, words = width_bytes / 4, total = 0;

    for (int p = 0; p < n; p += lanes) {
        int worst = 0;
        for (int bank = 0; bank < 32; bank++) {
            uint32_t seen[32];
            int k = 0;
            for (int lane = p; lane < p + lanes && lane < n; lane++)
                for (uint32_t w = 0; w < (uint32_t)words; w++) {
                    uint32_t word = addrs[lane] / 4 + w;
                    bool dup = false;
                    if (word % 32 != (uint32_t)bank)
                        continue;
                    for (int i = 0; i < k && !dup; i++)
                        dup = seen[i] == word;
                    if (!dup)
                        seen[k++] = word;
                }
            if (k > worst)
                worst = k;
        }
        total += worst;
    }
    return total;
}

int smem_bank_phase_wavefronts(const uint32_t *addrs, int n)
{
    return smem_bank_request_wavefronts(addrs, n, 16);
}

/* The access of a point or case: its width, and its stride where the benchmark has that axis. */
#define ACCESS_WIDTH(x) ((int)smem_axis_value(x, "width_bytes"))
#define ACCESS_STRIDE(x) (smem_bench_axis((x)->bench, "stride_elems") < 0 ? 1 : (int)smem_axis_value(x, "stride_elems"))

int smem_load_plan(const struct smem_point *pt, const struct smem_device *dev, double target_cycles,
                   struct smem_plan *p, char *why, size_t why_len)
{
    int width = ACCESS_WIDTH(pt), stride = ACCESS_STRIDE(pt);
    long long last = 31LL * stride * width + (SMEM_LOAD_UNROLL - 1) * SMEM_LOAD_ROW_BYTES + width;

    if (last > SMEM_LOAD_WORDS * 4LL) {
        smem_fmt(why, why_len, "stride %d at %d bytes reaches byte %lld of the %d-byte buffer", stride, width, last,
                 SMEM_LOAD_WORDS * 4);
        return SMEM_ESKIP;
    }
    p->block = smem_full_sm_block(dev, SMEM_LOAD_WORDS * 4, SMEM_LOAD_BLOCK);
    p->grid = 0;            /* one full wave: every block resident for the whole kernel */
    p->static_smem = SMEM_LOAD_WORDS * 4;
    p->regs = 32;
    /* the target, in cycles; the iterations follow from the residency the grid resolves to */
    p->work = (int64_t)target_cycles;
    return SMEM_OK;
}

int64_t smem_shared_iterations(const struct smem_case *c, int passes, int unroll)
{
    size_t threads = (size_t)c->grid * c->plan->block;
    double threads_per_sm = (double)threads / c->dev->sm_count;
    double per_iteration = (double)passes * unroll * (threads_per_sm / 32.0);
    int64_t iters = (int64_t)((double)c->plan->work / per_iteration);

    return iters < 8 ? 8 : iters;
}

int64_t smem_load_iterations(const struct smem_case *c)
{
    return smem_shared_iterations(c, smem_bank_wavefronts(ACCESS_WIDTH(c), ACCESS_STRIDE(c)), SMEM_LOAD_UNROLL);
}

double smem_load_bytes(const struct smem_case *c)
{
    return (double)c->grid * c->plan->block * (double)smem_load_iterations(c) * SMEM_LOAD_UNROLL * ACCESS_WIDTH(c);
}

double smem_load_bytes_per_clk_sm(const struct smem_case *c, const struct smem_timing *t)
{
    if (t->seconds <= 0 || t->clock_hz <= 0)
        return 0;
    return smem_load_bytes(c) / (t->seconds * t->clock_hz * c->dev->sm_count);
}

#if SMEM_HAVE_CUDA

const void *smem_load_kernel(const struct smem_case *c)
{
    return smem_load_fn(ACCESS_WIDTH(c));
}

int smem_load_setup(struct smem_case *c)
{
    return smem_io_setup(c, SMEM_LOAD_WORDS, (size_t)c->grid * c->plan->block, SMEM_FILL_WORDS);
}

int smem_load_run(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_load_launch(ACCESS_WIDTH(c), c->grid, c->plan->block, io->in, io->out, ACCESS_STRIDE(c),
                                     (int)smem_load_iterations(c), c->clk, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

int smem_load_verify(struct smem_case *c)
{
    struct smem_io *io = c->priv;
    const uint32_t *in = io->h_in, *out = io->h_out;
    int width = ACCESS_WIDTH(c), stride = ACCESS_STRIDE(c), rc;
    uint32_t iters = (uint32_t)smem_load_iterations(c), ref[32];

    /* lane l sums, iters times over, the words of its SMEM_LOAD_UNROLL accesses */
    for (int lane = 0; lane < 32; lane++) {
        uint32_t once = 0;
        for (int j = 0; j < SMEM_LOAD_UNROLL; j++) {
#if SMEM_TEST_BANK_CONFLICT
            /* the test build's planted conflict (kernels/load.cu): lane 31 reads past lane 0's rows */
            size_t byte = (lane == 31 ? (size_t)(SMEM_LOAD_UNROLL + 1) * SMEM_LOAD_ROW_BYTES
                                      : (size_t)lane * stride * width) + (size_t)j * SMEM_LOAD_ROW_BYTES;
#else
            size_t byte = (size_t)lane * stride * width + (size_t)j * SMEM_LOAD_ROW_BYTES;
#endif
            for (int k = 0; k < width / 4; k++)
                once += in[byte / 4 + k];
        }
        ref[lane] = once * iters;
    }
    if ((rc = smem_io_fetch(io)))
        return rc;
    return smem_check_u32_cycle(c->reason, sizeof(c->reason), "sum", 0, out, io->n_out, ref, 32);
}

#endif
