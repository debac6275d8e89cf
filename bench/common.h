/* Helpers the benchmarks share: the copy baseline, the carveout axis, the pointer-chase cycle, seeded
 * random inputs on host and device, and the input/output pair most benchmarks verify through. Their
 * GPU parts exist only in a CUDA build. */
#ifndef SMEM_BENCH_COMMON_H
#define SMEM_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "smem.h"

/* A memory-bound benchmark's GB/s as a percentage of a device-to-device copy of the same size
 * (bench/copy.c): pct_of_copy. */
extern const struct smem_baseline smem_vs_copy;

/* The preferred carveout in percent, 0..100 in steps of 10, shared by the carveout sweep's benchmarks;
 * on a device, also the smallest percentage of every carveout step the steps of 10 miss
 * (smem_carveout_device_pcts). */
extern const int64_t smem_carveout_pcts[11], smem_carveout_pcts_quick[3];
#define SMEM_CARVEOUT_AXIS                                                                              \
    { .name = "carveout_pct", .unit = "%", .help = "preferred shared-memory carveout",                  \
      .defaults = smem_carveout_pcts, .n_defaults = SMEM_ARRAY_LEN(smem_carveout_pcts),                 \
      .quick = smem_carveout_pcts_quick, .n_quick = SMEM_ARRAY_LEN(smem_carveout_pcts_quick), .min = 0, \
      .max = 100, .from_device = true }

/* Threads per block that fill every thread slot of an SM of dev with as few blocks as possible:
 * max_threads_per_sm / k for the smallest k whose block is at most max_block threads and whose k
 * blocks of smem_per_block bytes (plus the reservation) fit the per-SM maximum. 1024 on the H200
 * (two blocks), 768 on 1536-thread SMs (two), 1024 on Turing (one); max_block where nothing fits. */
unsigned smem_full_sm_block(const struct smem_device *dev, size_t smem_per_block, unsigned max_block);

/* The carveout percentages of dev: under quick the quick list; otherwise 0..100 in steps of 10 plus,
 * for each shared-memory capacity the device offers (core/arch.c) that no step of 10 reaches, the
 * smallest percentage that rounds up to it (a preference of p % asks p % of the per-SM maximum,
 * rounded down to bytes, then up to the next capacity, as cuda_occupancy.h and the Programming
 * Guide describe). Ascending; the count. */
size_t smem_carveout_device_pcts(const struct smem_device *dev, bool quick, int64_t *out, size_t max);

/* next[i] for one random cycle (Sattolo's shuffle) through the first n of n_total slots, from seed;
 * the other slots point to themselves. A pointer chase along it never settles into a short loop a
 * cache could learn, and the host replays it exactly (latency, dsm_latency). SMEM_ENOMEM when the
 * shuffle cannot be allocated. */
int smem_chase_cycle(uint32_t *next, uint32_t n, uint32_t n_total, uint64_t seed);

/* The slot a chase from slot 0 reaches after steps loads. */
uint32_t smem_chase_end(const uint32_t *next, int64_t steps);

/* fn(arg, begin, end, why, why_len) over [0, n) split into contiguous ranges on up to 16 host
 * threads (for work of milliseconds and more: a thread costs tens of microseconds); fn returns 0 or a negative code with why filled. The
 * first failing range's code and reason, in index order, so a report does not depend on timing. */
int smem_parallel_for(size_t n, int (*fn)(void *arg, size_t begin, size_t end, char *why, size_t why_len),
                      void *arg, char *why, size_t why_len);

#if SMEM_HAVE_CUDA
#include "cuda_status.h"

enum smem_fill {
    SMEM_FILL_FLOATS,       /* uniform floats in [-1, 1) */
    SMEM_FILL_WORDS,        /* uniform 32-bit words */
    SMEM_FILL_SMALL_INTS,   /* whole-number floats in -4..3, uniform (the reduction: exact sums) */
};

/* n seeded random 4-byte values in a device buffer (*dev, drawn on the GPU) and on the host (*host),
 * shared with every later point that asks for the same input on this thread: read-only, given back
 * with smem_gpu_input_release. */
int smem_gpu_random(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host);

/* The same values in buffers of the caller's own, to write into; given back the same way. */
int smem_gpu_random_private(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host);

/* Gives back an input of smem_gpu_random (kept for later points) or _private (freed); NULL is fine. */
void smem_gpu_input_release(void *dev, void *host);

/* The host side of a large output (4 MiB and more), page-locked and kept for the next points of this
 * thread, one at a time (*kept true); a second at once, or a small one, is a plain malloc. Given
 * back with smem_output_buffer_release(p, *kept). */
void *smem_output_buffer(size_t bytes, bool *kept);
void smem_output_buffer_release(void *p, bool kept);

/* A new point begins: the inputs it asks for are not evicted while it is set up (the runner). */
void smem_gpu_inputs_next_point(void);

/* Frees every kept input of this thread (the end of a device's run). */
void smem_gpu_inputs_free(void);

/* Shorthand for the float case. */
int smem_gpu_random_floats(size_t n, uint64_t seed, float **dev, float **host);

/* A benchmark's input and output: the input seeded random on host and device, the output poisoned
 * on the device (every byte 0xff: NaN as a float) so an element the kernel never writes cannot pass,
 * and a host buffer to fetch it into for verification. */
struct smem_io {
    void *in, *out;         /* device */
    void *h_in, *h_out;     /* host */
    bool h_out_kept;        /* h_out is the thread's kept output buffer (bench/common.c), not its own */
    size_t n_in, n_out;     /* 4-byte elements */
};

/* Allocates c->priv as a struct smem_io with n_in random inputs (none where n_in is 0: an output
 * only) and n_out poisoned outputs. */
int smem_io_setup(struct smem_case *c, size_t n_in, size_t n_out, enum smem_fill fill);

/* Copies the device output into h_out. */
int smem_io_fetch(struct smem_io *io);

/* Frees c->priv's struct smem_io, however far its setup got. */
void smem_io_teardown(struct smem_case *c);

/* A pointer chase's buffers (latency, dsm_latency): the cycle on host and device and the slot the
 * kernel's chase ended at. */
struct smem_chase {
    uint32_t *next, *out;   /* device: n_total slots; the end slot */
    uint32_t *h_next;       /* host */
};

/* Allocates c->priv as a struct smem_chase holding one random cycle through n of n_total slots
 * (smem_chase_cycle, from c->seed), on the device too, and an end slot poisoned with 0xff bytes. */
int smem_chase_setup(struct smem_case *c, uint32_t n, uint32_t n_total);

/* SMEM_EVERIFY with the reason unless the kernel's chase ended where the host's replay of
 * c->plan->work loads does. */
int smem_chase_verify(struct smem_case *c);

/* Frees c->priv's struct smem_chase, however far its setup got. */
void smem_chase_teardown(struct smem_case *c);
#endif

#endif
