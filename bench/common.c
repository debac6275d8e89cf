/* What the benchmarks share (bench/common.h): the copy baseline, the carveout axis's values, seeded
 * random inputs and the input/output pair. */
#include "common.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "smem.h"

const struct smem_baseline smem_vs_copy = {
    .bench = "copy", .metric = "gbytes_per_s", .derived = "pct_of_copy", .unit = "%", .this_over_baseline = true,
    .scale = 100, .better = SMEM_HIGHER_IS_BETTER,
};

const int64_t smem_carveout_pcts[11] = { 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
const int64_t smem_carveout_pcts_quick[3] = { 0, 50, 100 };

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
    if ((rc = smem_gpu_random(n_in, fill, c->seed, &io->in, &io->h_in)))
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

#endif
