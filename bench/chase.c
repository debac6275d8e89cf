/* The pointer-chase cycle and its buffers (bench/chase.h). */
#include "chase.h"

#include <stdlib.h>

#include "check.h"
#include "rng.h"
#include "smem.h"
#if SMEM_HAVE_CUDA
#include "cuda_status.h"
#endif

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

#if SMEM_HAVE_CUDA

int smem_chase_setup(struct smem_case *c, uint32_t n, uint32_t n_total)
{
    struct smem_chase *s = c->priv;
    int rc;

    if (!(s->h_next = malloc(n_total * sizeof(uint32_t))))
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

    cudaFree(s->next);
    cudaFree(s->out);
    free(s->h_next);
}

#endif
