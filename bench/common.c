/* What the benchmarks share (bench/common.h): the copy baseline, the carveout axis's values, the
 * pointer-chase cycle, seeded random inputs and the input/output pair. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "check.h"
#include "rng.h"
#include "smem.h"
#if SMEM_HAVE_CUDA
#include "fill.h"
#endif

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

/* Host references over hundreds of MiB (a transpose, a staging hash, a stream's sums) ran on one
 * core while the GPU host had sixteen: split into contiguous ranges, each on its own thread. */
#define PARALLEL_MAX_THREADS 16

struct range {
    int (*fn)(void *arg, size_t begin, size_t end, char *why, size_t why_len);
    void *arg;
    size_t begin, end;
    int rc;
    char why[256];
};

static void *run_range(void *p)
{
    struct range *r = p;

    r->rc = r->fn(r->arg, r->begin, r->end, r->why, sizeof(r->why));
    return NULL;
}

int smem_parallel_for(size_t n, int (*fn)(void *arg, size_t begin, size_t end, char *why, size_t why_len),
                      void *arg, char *why, size_t why_len)
{
    struct range r[PARALLEL_MAX_THREADS];
    pthread_t t[PARALLEL_MAX_THREADS];
    bool started[PARALLEL_MAX_THREADS] = { false };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = cpus < 1 ? 1 : cpus > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : (size_t)cpus;

    if (k > n)
        k = n ? n : 1;
    for (size_t i = 0; i < k; i++) {
        r[i] = (struct range){ .fn = fn, .arg = arg, .begin = n * i / k, .end = n * (i + 1) / k };
        r[i].why[0] = '\0';
        /* the first range on this thread; a thread that cannot start has its range run here too */
        started[i] = i > 0 && !pthread_create(&t[i], NULL, run_range, &r[i]);
    }
    for (size_t i = 0; i < k; i++)
        if (!started[i])
            run_range(&r[i]);
    for (size_t i = 0; i < k; i++)
        if (started[i])
            pthread_join(t[i], NULL);
    /* the first failure in index order, whichever thread found it first */
    for (size_t i = 0; i < k; i++)
        if (r[i].rc) {
            if (why && why_len)
                smem_fmt(why, why_len, "%s", r[i].why);
            return r[i].rc;
        }
    return SMEM_OK;
}

#if SMEM_HAVE_CUDA

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
    if (got != want)
        return smem_mismatch_u64(c->reason, sizeof(c->reason), "end_slot", 0, 0, got, want);
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
