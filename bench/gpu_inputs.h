/* Seeded random inputs on host and device, kept across the points of a run, the host side of large
 * outputs, and the input/output pair most benchmarks verify through. A CUDA build's only. */
#ifndef SMEM_GPU_INPUTS_H
#define SMEM_GPU_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

#if SMEM_HAVE_CUDA
#include "cuda_status.h"

enum smem_fill {
    SMEM_FILL_FLOATS,       /* uniform floats in [-1, 1) */
    SMEM_FILL_WORDS,        /* uniform 32-bit words */
    SMEM_FILL_SMALL_INTS,   /* whole-number floats in -4..3, uniform (the reduction: exact sums) */
};

/* The inputs a run keeps across its points on one device, and the host buffer it keeps for a large
 * output: the driver creates one per run, hands it to every case (c->inputs) and destroys it at the
 * end. Benchmarks take and give back through it; NULL keeps nothing (every input drawn anew). */
struct smem_gpu_inputs;

/* A new, empty cache, or NULL without memory (which keeps nothing). */
struct smem_gpu_inputs *smem_gpu_inputs_create(void);

/* A new point begins: the inputs it asks for are not evicted while it is set up (the runner). */
void smem_gpu_inputs_next_point(struct smem_gpu_inputs *in);

/* Frees every kept input and in; without the device (a lost context: device false) only host
 * memory, no CUDA call. NULL is fine. */
void smem_gpu_inputs_destroy(struct smem_gpu_inputs *in, bool device);

/* n seeded random 4-byte values in a device buffer (*dev, drawn on the GPU) and on the host (*host),
 * shared through in with every later point that asks for the same input: read-only, given back
 * with smem_gpu_input_release. */
int smem_gpu_random(struct smem_gpu_inputs *in, size_t n, enum smem_fill fill, uint64_t seed, void **dev,
                    void **host);

/* The same values in buffers of the caller's own, to write into; given back the same way. */
int smem_gpu_random_private(size_t n, enum smem_fill fill, uint64_t seed, void **dev, void **host);

/* Gives back an input of smem_gpu_random (kept in in for later points) or _private (freed); NULL is
 * fine. */
void smem_gpu_input_release(struct smem_gpu_inputs *in, void *dev, void *host);

/* The host side of a large output (4 MiB and more), page-locked and kept in in for the next points,
 * one at a time (*kept true); a second at once, or a small one, is a plain malloc. Given back with
 * smem_output_buffer_release(in, p, *kept). */
void *smem_output_buffer(struct smem_gpu_inputs *in, size_t bytes, bool *kept);
void smem_output_buffer_release(struct smem_gpu_inputs *in, void *p, bool kept);

/* Shorthand for the float case. */
int smem_gpu_random_floats(struct smem_gpu_inputs *in, size_t n, uint64_t seed, float **dev, float **host);

/* A benchmark's input and output: the input seeded random on host and device, the output poisoned
 * on the device (every byte 0xff: NaN as a float) so an element the kernel never writes cannot pass,
 * and a host buffer to fetch it into for verification. */
struct smem_io {
    void *in, *out;         /* device */
    void *h_in, *h_out;     /* host */
    bool h_out_kept;        /* h_out is the run's kept output buffer (smem_output_buffer), not its own */
    size_t n_in, n_out;     /* 4-byte elements */
};

/* Fills c->priv, a struct smem_io (SMEM_IO_STATE), with n_in random inputs (none where n_in is 0:
 * an output only) and n_out poisoned outputs. */
int smem_io_setup(struct smem_case *c, size_t n_in, size_t n_out, enum smem_fill fill);

/* Copies the device output into h_out. */
int smem_io_fetch(struct smem_io *io);

/* Gives back the buffers of c->priv's struct smem_io, however far its setup got (the driver frees
 * the struct itself). */
void smem_io_teardown(struct smem_case *c);

/* The private state and teardown of a descriptor whose setup is smem_io_setup's, inside its
 * SMEM_GPU_OPS: the state's size and the teardown that gives its buffers back, named together. */
#define SMEM_IO_STATE .priv_size = sizeof(struct smem_io), .teardown = smem_io_teardown

#endif

#endif
