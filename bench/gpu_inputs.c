/* The input cache, the kept output buffer and the input/output pair (bench/gpu_inputs.h). */
#include "gpu_inputs.h"

#include <stdlib.h>
#include <string.h>

#if SMEM_HAVE_CUDA
#include "fill_launch.h"
#include "smem.h"

/* Inputs drawn in one run on one device (the driver's cache of the run, c->inputs), kept for the
 * points and the trials after:
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

struct input {
    void *dev, *host;
    size_t n;
    enum smem_fill fill;
    uint64_t seed;
    unsigned long long used;    /* the point that last asked for it */
};

/* The host side of a large output, kept across the points of the run and page-locked: a fresh
 * malloc of 256 MiB took its page faults inside every copy back, and a pageable copy runs at a
 * fraction of a pinned one (footprint's check was 0.2 s a point on the H200). One at a time; a
 * second output at once, or a small one, is a plain malloc. */
#define KEPT_OUTPUT_MIN_BYTES (4u << 20)

struct smem_gpu_inputs {
    struct input inputs[INPUT_CACHE_ENTRIES];
    unsigned long long point_stamp;
    size_t max_bytes;           /* 0 until the first input is kept */
    struct {
        void *p;
        size_t bytes;
        bool pinned, busy;
    } kept_output;
};

struct smem_gpu_inputs *smem_gpu_inputs_create(void)
{
    struct smem_gpu_inputs *in = calloc(1, sizeof(*in));

    if (in)
        in->point_stamp = 1;
    return in;
}

/* An eighth of the memory free on the device when first asked, INPUT_CACHE_MIN_BYTES at least. */
static size_t cache_max_bytes(struct smem_gpu_inputs *in)
{
    size_t free_b = 0, total_b = 0;

    if (!in->max_bytes)
        in->max_bytes = cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b / 8 > INPUT_CACHE_MIN_BYTES
                            ? free_b / 8 : INPUT_CACHE_MIN_BYTES;
    return in->max_bytes;
}

void smem_gpu_inputs_next_point(struct smem_gpu_inputs *in)
{
    if (in)
        in->point_stamp++;
}

/* A free slot for bytes more, evicting the least recently used inputs of earlier points; -1 when
 * the input is not to be kept. */
static int input_slot(struct smem_gpu_inputs *in, size_t bytes)
{
    struct input *inputs = in->inputs;

    if (bytes > cache_max_bytes(in))
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
            if (inputs[i].used != in->point_stamp && (oldest < 0 || inputs[i].used < inputs[oldest].used))
                oldest = i;
        }
        if (free_slot >= 0 && held + bytes <= cache_max_bytes(in))
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

int smem_gpu_random(struct smem_gpu_inputs *in, size_t n, enum smem_fill fill, uint64_t seed, void **dev,
                    void **host)
{
    int slot, rc;

    for (int i = 0; in && i < INPUT_CACHE_ENTRIES; i++) {
        struct input *e = &in->inputs[i];
        if (e->dev && e->n == n && e->fill == fill && e->seed == seed) {
            e->used = in->point_stamp;
            *dev = e->dev;
            *host = e->host;
            return SMEM_OK;
        }
    }
    if ((rc = draw(n, fill, seed, dev, host)))
        return rc;
    if (in && (slot = input_slot(in, n * 4)) >= 0)
        in->inputs[slot] = (struct input){ *dev, *host, n, fill, seed, in->point_stamp };
    return SMEM_OK;
}

int smem_gpu_random_private(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host)
{
    return draw(n, fill, seed, dev, host);
}

void smem_gpu_input_release(struct smem_gpu_inputs *in, void *dev, void *host)
{
    for (int i = 0; in && dev && i < INPUT_CACHE_ENTRIES; i++)
        if (in->inputs[i].dev == dev)
            return;     /* kept for the next points */
    cudaFree(dev);
    free(host);
}

/* Without the device (a lost context) a page-locked buffer is left as it is: it cannot be unregistered. */
static void kept_output_free(struct smem_gpu_inputs *in, bool device)
{
    if (in->kept_output.pinned && !device)
        return;
    if (in->kept_output.pinned)
        cudaHostUnregister(in->kept_output.p);
    free(in->kept_output.p);
    memset(&in->kept_output, 0, sizeof(in->kept_output));
}

void smem_gpu_inputs_destroy(struct smem_gpu_inputs *in, bool device)
{
    if (!in)
        return;
    kept_output_free(in, device);
    for (int i = 0; i < INPUT_CACHE_ENTRIES; i++) {
        if (device)
            cudaFree(in->inputs[i].dev);
        free(in->inputs[i].host);
    }
    free(in);
}

int smem_gpu_random_floats(struct smem_gpu_inputs *in, size_t n, uint64_t seed, float **dev, float **host)
{
    return smem_gpu_random(in, n, SMEM_FILL_FLOATS, seed, (void **)dev, (void **)host);
}

void *smem_output_buffer(struct smem_gpu_inputs *in, size_t bytes, bool *kept)
{
    *kept = false;
    if (!in || in->kept_output.busy || bytes < KEPT_OUTPUT_MIN_BYTES)
        return malloc(bytes ? bytes : 1);
    if (in->kept_output.bytes < bytes) {
        kept_output_free(in, true);
        if (!(in->kept_output.p = malloc(bytes)))
            return NULL;
        in->kept_output.bytes = bytes;
        in->kept_output.pinned = cudaHostRegister(in->kept_output.p, bytes, cudaHostRegisterDefault) == cudaSuccess;
        if (!in->kept_output.pinned)
            cudaGetLastError();     /* pageable then, as before; the failure is not the point's */
    }
    in->kept_output.busy = *kept = true;
    return in->kept_output.p;
}

void smem_output_buffer_release(struct smem_gpu_inputs *in, void *p, bool kept)
{
    if (kept)
        in->kept_output.busy = false;
    else
        free(p);
}

int smem_io_setup(struct smem_case *c, size_t n_in, size_t n_out, enum smem_fill fill)
{
    struct smem_io *io = c->priv;
    int rc;

    io->n_in = n_in;
    io->n_out = n_out;
    if (n_in && (rc = smem_gpu_random(c->inputs, n_in, fill, c->seed, &io->in, &io->h_in)))
        return rc;
    SMEM_CUDA_CHECK(cudaMalloc(&io->out, n_out * 4));
    SMEM_CUDA_CHECK(cudaMemset(io->out, 0xff, n_out * 4));
    if (!(io->h_out = smem_output_buffer(c->inputs, n_out * 4, &io->h_out_kept)))
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

    smem_gpu_input_release(c->inputs, io->in, io->h_in);
    cudaFree(io->out);
    smem_output_buffer_release(c->inputs, io->h_out, io->h_out_kept);
}

#endif
