/* What the benchmarks share (bench/common.h): the copy baseline, the carveout axis's values, the
 * pointer-chase cycle, seeded random inputs and the input/output pair. */
#include "common.h"

#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "rng.h"
#include "smem.h"

const struct smem_baseline smem_vs_copy = {
    .bench = "copy", .metric = "gbytes_per_s", .derived = "pct_of_copy", .unit = "%", .this_over_baseline = true,
    .scale = 100, .better = SMEM_HIGHER_IS_BETTER,
};

const int64_t smem_carveout_pcts[11] = { 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
const int64_t smem_carveout_pcts_quick[3] = { 0, 50, 100 };

int smem_chase_cycle(uint32_t *next, uint32_t n, uint32_t n_total, uint64_t seed)
{
    uint32_t *perm = malloc((n ? n : 1) * sizeof(*perm));
    uint64_t state = seed;

    if (!perm)
        return SMEM_ENOMEM;
    for (uint32_t i = 0; i < n_total; i++)
        next[i] = i;
    if (n < 2) {    /* no cycle to make: every slot points to itself */
        free(perm);
        return SMEM_OK;
    }
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(smem_rng_next(&state) % i); /* j < i: Sattolo, one cycle */
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        next[perm[i]] = perm[(i + 1) % n];
    free(perm);
    return SMEM_OK;
}

uint32_t smem_chase_end(const uint32_t *next, int64_t steps)
{
    uint32_t j = 0;

    for (int64_t i = 0; i < steps; i++)
        j = next[j];
    return j;
}

unsigned smem_full_sm_block(const struct smem_device *dev, size_t smem_per_block, unsigned max_block)
{
    for (int k = 1; k <= dev->max_blocks_per_sm && dev->max_threads_per_sm > 0; k++) {
        int block = dev->max_threads_per_sm / k;
        if (block > (int)max_block || block % dev->warp_size)
            continue;
        if ((int64_t)k * ((int64_t)smem_per_block + dev->reserved_smem_per_block) <= dev->smem_per_sm)
            return (unsigned)block;
    }
    return max_block;
}

/* The capacity (KiB) a preference of pct percent rounds up to on a, or -1 above the largest. */
static int carveout_step(const struct smem_arch *a, const struct smem_device *dev, int pct)
{
    int64_t want = (int64_t)pct * dev->smem_per_sm / 100;

    for (int i = 0; i < a->n_carveouts; i++)
        if ((int64_t)a->carveout_kib[i] * 1024 >= want)
            return a->carveout_kib[i];
    return -1;
}

size_t smem_carveout_device_pcts(const struct smem_device *dev, bool quick, int64_t *out, size_t max)
{
    const struct smem_arch *a = smem_arch_find(dev->cc_major, dev->cc_minor);
    bool reached[SMEM_ARCH_MAX_CARVEOUTS] = { false };
    size_t n = 0;

    if (quick) {
        for (; n < SMEM_ARRAY_LEN(smem_carveout_pcts_quick) && n < max; n++)
            out[n] = smem_carveout_pcts_quick[n];
        return n;
    }
    for (; n < SMEM_ARRAY_LEN(smem_carveout_pcts) && n < max; n++)
        out[n] = smem_carveout_pcts[n];
    if (!a)   /* steps not published for this cc: the steps of 10 alone */
        return n;
    for (size_t i = 0; i < SMEM_ARRAY_LEN(smem_carveout_pcts); i++)
        for (int k = 0; k < a->n_carveouts; k++)
            reached[k] |= carveout_step(a, dev, (int)smem_carveout_pcts[i]) == a->carveout_kib[k];
    for (int k = 0; k < a->n_carveouts; k++)
        for (int pct = 0; pct <= 100 && !reached[k] && n < max; pct++)
            if (carveout_step(a, dev, pct) == a->carveout_kib[k]) {
                reached[k] = true;
                out[n++] = pct;
            }
    /* ascending: insertion sort of a dozen values */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

#if SMEM_HAVE_CUDA

/* The last input generated on this thread (one per device in a several-device run). A sweep's
 * points mostly share one input (the dynamic sweep: 39 points of the same 256 MiB), and drawing
 * 64 Mi numbers takes about 0.6 s against 0.05 s to copy them: without this, setup was most of the
 * dynamic sweep's time. Inputs above the cap are drawn anew each time rather than held twice. */
#define RANDOM_CACHE_MAX_BYTES (1ull << 30)

static _Thread_local struct {
    uint32_t *h;
    size_t n;
    enum smem_fill fill;
    uint64_t seed;
} random_cache;

static void random_fill(uint32_t *h, size_t n, enum smem_fill fill, uint64_t seed)
{
    uint64_t state = seed;

    if (random_cache.h && random_cache.n == n && random_cache.fill == fill && random_cache.seed == seed) {
        memcpy(h, random_cache.h, n * sizeof(*h));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (fill == SMEM_FILL_FLOATS) {
            float f = smem_rng_float(&state);
            memcpy(&h[i], &f, sizeof(f));
        } else {
            h[i] = (uint32_t)smem_rng_next(&state);
        }
    }
    if (n * sizeof(*h) > RANDOM_CACHE_MAX_BYTES)
        return;
    free(random_cache.h);
    random_cache.h = malloc(n * sizeof(*h));
    if (random_cache.h)
        memcpy(random_cache.h, h, n * sizeof(*h));
    random_cache.n = n;
    random_cache.fill = fill;
    random_cache.seed = seed;
}

int smem_gpu_random(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host)
{
    uint32_t *h = malloc(n * sizeof(*h));
    int rc = SMEM_OK;

    *dev = NULL;
    *host = NULL;
    if (!h)
        return SMEM_ENOMEM;
    random_fill(h, n, fill, seed);
    SMEM_CUDA_CHECK(cudaMalloc(dev, n * sizeof(*h)));
    SMEM_CUDA_CHECK(cudaMemcpy(*dev, h, n * sizeof(*h), cudaMemcpyHostToDevice));
    *host = h;
    return SMEM_OK;
fail:
    cudaFree(*dev);
    *dev = NULL;
    free(h);
    return rc;
}

int smem_gpu_random_floats(size_t n, uint64_t seed, float **dev, float **host)
{
    return smem_gpu_random(n, SMEM_FILL_FLOATS, seed, (void **)dev, (void **)host);
}

int smem_io_setup(struct smem_case *c, size_t n_in, size_t n_out, enum smem_fill fill)
{
    struct smem_io *io = calloc(1, sizeof(*io));
    int rc;

    if (!(c->priv = io))
        return SMEM_ENOMEM;
    io->n_in = n_in;
    io->n_out = n_out;
    if (n_in && (rc = smem_gpu_random(n_in, fill, c->seed, &io->in, &io->h_in)))
        return rc;
    SMEM_CUDA_CHECK(cudaMalloc(&io->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemset(io->out, 0xff, n_out * 4));
    if (!(io->h_out = malloc(n_out * 4)))
        return SMEM_ENOMEM;
    return SMEM_OK;
fail:
    return rc;
}

int smem_io_fetch(struct smem_io *io)
{
    return SMEM_CUDA_STATUS(cudaMemcpy(io->h_out, io->out, io->n_out * 4, cudaMemcpyDeviceToHost));
}

void smem_io_teardown(struct smem_case *c)
{
    struct smem_io *io = c->priv;

    if (!io)
        return;
    cudaFree(io->in);
    cudaFree(io->out);
    free(io->h_in);
    free(io->h_out);
    free(io);
    c->priv = NULL;
}

int smem_chase_setup(struct smem_case *c, uint32_t n, uint32_t n_total)
{
    struct smem_chase *s = calloc(1, sizeof(*s));
    int rc;

    if (!(c->priv = s) || !(s->h_next = malloc(n_total * sizeof(uint32_t))))
        return SMEM_ENOMEM;
    if ((rc = smem_chase_cycle(s->h_next, n, n_total, c->seed)))
        return rc;
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->next, n_total * sizeof(uint32_t)));
    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, sizeof(uint32_t)));
    SMEM_CUDA_CHECK(cudaMemcpy(s->next, s->h_next, n_total * sizeof(uint32_t), cudaMemcpyHostToDevice));
    SMEM_CUDA_CHECK(cudaMemset(s->out, 0xff, sizeof(uint32_t)));
    return SMEM_OK;
fail:
    return rc;
}

int smem_chase_verify(struct smem_case *c)
{
    struct smem_chase *s = c->priv;
    uint32_t got, want = smem_chase_end(s->h_next, c->plan->work);
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(&got, s->out, sizeof(got), cudaMemcpyDeviceToHost));
    if (got != want) {
        smem_fmt(c->reason, sizeof(c->reason), "the chase ended at slot %u, the host reference at %u", got, want);
        return SMEM_EVERIFY;
    }
    return SMEM_OK;
fail:
    return rc;
}

void smem_chase_teardown(struct smem_case *c)
{
    struct smem_chase *s = c->priv;

    if (!s)
        return;
    cudaFree(s->next);
    cudaFree(s->out);
    free(s->h_next);
    free(s);
    c->priv = NULL;
}

#endif
