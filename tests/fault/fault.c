/* Test-only benchmark: point `point` = 1 faults on the GPU (an out-of-bounds write), the others
 * run a trivial kernel. Registered only in smembench-faulty (tests/meson.build). */
#include <stdlib.h>

#include "bench.h"
#include "cuda_status.h"
#include "smem.h"

const void *smem_fault_fn(void);
int smem_fault_launch(int *out, int fault, void *stream);

static const int64_t points[] = { 0, 1, 2 };

static const struct smem_axis fault_axes[] = {
    { .name = "point", .unit = "index", .help = "1 faults", .defaults = points, .n_defaults = 3, .min = 0, .max = 2 },
};

static int fault_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                      size_t len)
{
    (void)dev, (void)why, (void)len;
    p->block = 32;
    p->grid = 1;
    p->regs = 16;
    p->variant = smem_axis_value(pt, "point") == 1;
    return SMEM_OK;
}

static const void *fault_kernel(const struct smem_case *c)
{
    (void)c;
    return smem_fault_fn();
}

/* A case's private state: the 32 words the kernel writes (one per thread). */
struct fault_state {
    int *out;
};

static int fault_setup(struct smem_case *c)
{
    struct fault_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMalloc((void **)&s->out, 32 * sizeof(int)));
    return SMEM_OK;
fail:
    return rc;
}

static int fault_launch(struct smem_case *c)
{
    struct fault_state *s = c->priv;
    int rc = SMEM_OK;

    SMEM_CUDA_CHECK(smem_fault_launch(s->out, c->plan->variant, c->stream));
    return SMEM_OK;
fail:
    return rc;
}

static int fault_verify(struct smem_case *c)
{
    struct fault_state *s = c->priv;
    int h[32], rc = SMEM_OK;

    SMEM_CUDA_CHECK(cudaMemcpy(h, s->out, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++)
        if (h[i] != 1) {
            smem_fmt(c->reason, sizeof(c->reason), "element %d not written", i);
            return SMEM_EVERIFY;
        }
    return SMEM_OK;
fail:
    return rc;
}

static void fault_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    (void)c;
    smem_metrics_add(m, "launches_per_s", "1/s", 1 / t->seconds, 0, SMEM_HIGHER_IS_BETTER);
}

static void fault_teardown(struct smem_case *c)
{
    struct fault_state *s = c->priv;

    cudaFree(s->out);
}

const struct smem_bench smem_fault_bench = {
    .name = "fault",
    .summary = "test only: point 1 writes out of bounds on the GPU",
    .axes = fault_axes,
    .n_axes = 1,
    .kernel_file = "fault",   /* tests/fault/fault.cu */
    .variation = SMEM_VARIATION_MEASURED(1.0, 1.0, 0.0),
    .plan = fault_plan,
    .kernel = fault_kernel,
    .priv_size = sizeof(struct fault_state),
    .setup = fault_setup,
    .launch = fault_launch,
    .verify = fault_verify,
    .metrics = fault_metrics,
    .teardown = fault_teardown,
};
