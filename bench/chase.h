/* The pointer chase of the latency benchmarks (latency, dsm_latency): one random cycle through a
 * buffer's slots, replayed on the host, and its buffers on the device. */
#ifndef SMEM_CHASE_H
#define SMEM_CHASE_H

#include <stdint.h>

#include "bench.h"

/* next[i] for one random cycle (Sattolo's shuffle) through the first n of n_total slots, from seed;
 * the other slots point to themselves. A pointer chase along it never settles into a short loop a
 * cache could learn, and the host replays it exactly (latency, dsm_latency). SMEM_ENOMEM when the
 * shuffle cannot be allocated. */
int smem_chase_cycle(uint32_t *next, uint32_t n, uint32_t n_total, uint64_t seed);

/* The slot a chase from slot 0 reaches after steps loads. */
uint32_t smem_chase_end(const uint32_t *next, int64_t steps);

#if SMEM_HAVE_CUDA
/* A pointer chase's buffers (latency, dsm_latency): the cycle on host and device and the slot the
 * kernel's chase ended at. */
struct smem_chase {
    uint32_t *next, *out;   /* device: n_total slots; the end slot */
    uint32_t *h_next;       /* host */
};

/* Fills c->priv, a struct smem_chase (SMEM_CHASE_STATE), with one random cycle through n of n_total
 * slots (smem_chase_cycle, from c->seed), on the device too, and an end slot poisoned with 0xff bytes. */
int smem_chase_setup(struct smem_case *c, uint32_t n, uint32_t n_total);

/* SMEM_EVERIFY with the reason unless the kernel's chase ended where the host's replay of
 * c->plan->work loads does. */
int smem_chase_verify(struct smem_case *c);

/* Gives back the buffers of c->priv's struct smem_chase, however far its setup got. */
void smem_chase_teardown(struct smem_case *c);

/* The private state and teardown of a descriptor whose setup is smem_chase_setup's, inside its
 * SMEM_GPU_OPS. */
#define SMEM_CHASE_STATE .priv_size = sizeof(struct smem_chase), .teardown = smem_chase_teardown
#endif

#endif
