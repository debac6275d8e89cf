/* The input cache, the kept output buffer and the input/output pair (bench/gpu_inputs.h). */
#include "gpu_inputs.h"

#include <stdlib.h>
#include <string.h>

#if SMEM_HAVE_CUDA
#include "fill.h"
#include "smem.h"

/* Inputs drawn on this thread (one per device in a several-device run), kept for the points and the
 * trials after:
 * a sweep's points mostly share their inputs (the dynamic and static points one 256 MiB input, the
 * staging points and global_read another), and a point that finds its input here skips the draw,
 * the allocation and the copy (setup was 57 % of a --sweep all on the H200 before: README, Where the
 * time goes). Shared inputs are read-only: no kernel writes its input, and one that did would fail
 * the next point's check against the host copy. The later trials run in a shuffled order, which an
 * LRU of a few inputs misses nearly every time (setup took 60 of a 98 s --sweep all with 3 trials on
 * the H200): the cache holds every distinct input of a sweep, up to INPUT_CACHE_ENTRIES of them in
 * an eighth of the device memory free when it first fills (2 GiB at least), the least recently
 * used going first, never one of the point being set up. */
#define INPUT_CACHE_ENTRIES 32
#define INPUT_CACHE_MIN_BYTES (2ull << 30)

/* An eighth of the memory free on this thread's device when first asked, INPUT_CACHE_MIN_BYTES at least. */
static size_t cache_max_bytes(void)
{
    static _Thread_local size_t max;
    size_t free_b = 0, total_b = 0;

    if (!max)
        max = cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b / 8 > INPUT_CACHE_MIN_BYTES
                  ? free_b / 8 : INPUT_CACHE_MIN_BYTES;
    return max;
}

struct input {
    void *dev, *host;
    size_t n;
    enum smem_fill fill;
    uint64_t seed;
    unsigned long long used;    /* the point that last asked for it */
};

static _Thread_local struct input inputs[INPUT_CACHE_ENTRIES];
static _Thread_local unsigned long long point_stamp = 1;

void smem_gpu_inputs_next_point(void)
{
    point_stamp++;
}

/* A free slot for bytes more, evicting the least recently used inputs of earlier points; -1 when
 * the input is not to be kept. */
static int input_slot(size_t bytes)
{
    if (bytes > cache_max_bytes())
        return -1;
    for (;;) {
        size_t held = 0;
        int free_slot = -1, oldest = -1;
        for (int i = 0; i < INPUT_CACHE_ENTRIES; i++) {
            if (!inputs[i].dev) {
                free_slot = free_slot < 0 ? i : free_slot;
                continue;
            }
            held += inputs[i].n * 4;
            if (inputs[i].used != point_stamp && (oldest < 0 || inputs[i].used < inputs[oldest].used))
                oldest = i;
        }
        if (free_slot >= 0 && held + bytes <= cache_max_bytes())
            return free_slot;
        if (oldest < 0)
            return -1;
        cudaFree(inputs[oldest].dev);
        free(inputs[oldest].host);
        memset(&inputs[oldest], 0, sizeof(inputs[oldest]));
    }
}

/* n values of the seeded stream drawn on the GPU into a new device buffer, and copied back. */
static int draw(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host)
{
    int rc = SMEM_OK;

    *dev = NULL;
    if (!(*host = malloc((n ? n : 1) * 4)))
        return SMEM_ENOMEM;
    SMEM_CUDA_CHECK(cudaMalloc(dev, (n ? n : 1) * 4));
    SMEM_CUDA_CHECK(smem_fill_launch(*dev, n,
                                     fill == SMEM_FILL_FLOATS   ? SMEM_FILL_KIND_FLOATS
                                     : fill == SMEM_FILL_WORDS  ? SMEM_FILL_KIND_WORDS
                                                                : SMEM_FILL_KIND_SMALL_INTS,
                                     seed, NULL));
    SMEM_CUDA_CHECK(cudaMemcpy(*host, *dev, n * 4, cudaMemcpyDeviceToHost));
    return SMEM_OK;
fail:
    cudaFree(*dev);
    free(*host);
    *dev = *host = NULL;
    return rc;
}

int smem_gpu_random(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host)
{
    int slot, rc;

    for (int i = 0; i < INPUT_CACHE_ENTRIES; i++)
        if (inputs[i].dev && inputs[i].n == n && inputs[i].fill == fill && inputs[i].seed == seed) {
            inputs[i].used = point_stamp;
            *dev = inputs[i].dev;
            *host = inputs[i].host;
            return SMEM_OK;
        }
    if ((rc = draw(n, fill, seed, dev, host)))
        return rc;
    if ((slot = input_slot(n * 4)) >= 0)
        inputs[slot] = (struct input){ *dev, *host, n, fill, seed, point_stamp };
    return SMEM_OK;
}

int smem_gpu_random_private(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host)
{
    return draw(n, fill, seed, dev, host);
}

void smem_gpu_input_release(void *dev, void *host)
{
    for (int i = 0; dev && i < INPUT_CACHE_ENTRIES; i++)
        if (inputs[i].dev == dev)
            return;     /* kept for the next points */
    cudaFree(dev);
    free(host);
}

static void kept_output_free(void);

void smem_gpu_inputs_free(void)
{
    kept_output_free();
    for (int i = 0; i < INPUT_CACHE_ENTRIES; i++) {
        cudaFree(inputs[i].dev);
        free(inputs[i].host);
        memset(&inputs[i], 0, sizeof(inputs[i]));
    }
}

int smem_gpu_random_floats(size_t n, uint64_t seed, float **dev, float **host)
{
    return smem_gpu_random(n, SMEM_FILL_FLOATS, seed, (void **)dev, (void **)host);
}

/* The host side of a large output, kept across the points of this thread and page-locked: a fresh
 * malloc of 256 MiB took its page faults inside every copy back, and a pageable copy runs at a
 * fraction of a pinned one (footprint's check was 0.2 s a point on the H200). One at a time; a
 * second output at once, or a small one, is a plain malloc. */
#define KEPT_OUTPUT_MIN_BYTES (4u << 20)

static _Thread_local struct {
    void *p;
    size_t bytes;
    bool pinned, busy;
} kept_output;

static void kept_output_free(void)
{
    if (kept_output.pinned)
        cudaHostUnregister(kept_output.p);
    free(kept_output.p);
    memset(&kept_output, 0, sizeof(kept_output));
}

void *smem_output_buffer(size_t bytes, bool *kept)
{
    *kept = false;
    if (kept_output.busy || bytes < KEPT_OUTPUT_MIN_BYTES)
        return malloc(bytes ? bytes : 1);
    if (kept_output.bytes < bytes) {
        kept_output_free();
        if (!(kept_output.p = malloc(bytes)))
            return NULL;
        kept_output.bytes = bytes;
        kept_output.pinned = cudaHostRegister(kept_output.p, bytes, cudaHostRegisterDefault) == cudaSuccess;
        if (!kept_output.pinned)
            cudaGetLastError();     /* pageable then, as before; the failure is not the point's */
    }
    kept_output.busy = *kept = true;
    return kept_output.p;
}

void smem_output_buffer_release(void *p, bool kept)
{
    if (kept)
        kept_output.busy = false;
    else
        free(p);
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
    if (!(io->h_out = smem_output_buffer(n_out * 4, &io->h_out_kept)))
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
    smem_gpu_input_release(io->in, io->h_in);
    cudaFree(io->out);
    smem_output_buffer_release(io->h_out, io->h_out_kept);
    free(io);
    c->priv = NULL;
}

#endif
