/* Shared-memory load-to-use latency: a single thread follows a random single cycle (Sattolo's
 * shuffle) through chain_slots slots, so the cycles between the kernel's clock marks over the
 * number of loads is the latency. index_chase 0: the slots hold addresses, the load alone;
 * index_chase 1: the slots hold indices (j = s[j]), the load plus the address arithmetic that
 * ordinary code puts on the dependent path. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common.h"
#include "latency_launch.h"
#include "smem.h"

#define STEPS 65536

static const int64_t slots[] = { 1024 };
static const int64_t modes[] = { 0, 1 };

static const struct smem_axis latency_axes[] = {
    { .name = "chain_slots", .unit = "slots", .help = "length of the pointer cycle (4 bytes each)",
      .defaults = slots, .n_defaults = SMEM_ARRAY_LEN(slots), .min = 2, .max = SMEM_LATENCY_SLOTS },
    { .name = "index_chase", .unit = "bool", .help = "0: slots hold addresses; 1: slots hold indices (j = s[j])",
      .defaults = modes, .n_defaults = SMEM_ARRAY_LEN(modes), .min = 0, .max = 1, .defaults_only = true },
};

static int latency_plan(const struct smem_point *pt, const struct smem_device *dev, struct smem_plan *p, char *why,
                        size_t len)
{
    (void)dev, (void)why, (void)len;
    p->block = 32;
    p->grid = 1;
    p->static_smem = SMEM_LATENCY_SLOTS * 4;
    p->regs = 16;
    p->work = STEPS;
    p->variant = (int)smem_axis_value(pt, "index_chase");
    return SMEM_OK;
}

static void latency_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    double cycles = t->kernel_cycles / (double)c->plan->work;

    smem_metrics_add(m, "latency_cycles", "cycles", cycles, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(m, "latency_ns", "ns", t->clock_hz > 0 ? cycles / t->clock_hz * 1e9 : 0, 0, SMEM_LOWER_IS_BETTER);
}

#if SMEM_HAVE_CUDA

SMEM_KERNEL(latency, smem_latency_fn(c->plan->variant))

static int latency_setup(struct smem_case *c)
{
    return smem_chase_setup(c, (uint32_t)smem_axis_value(c, "chain_slots"), SMEM_LATENCY_SLOTS);
}

SMEM_LAUNCH(latency, struct smem_chase, s,
            smem_latency_launch(c->plan->variant, s->next, (uint32_t)c->plan->work, s->out, c->clk, c->stream))

#endif

const struct smem_bench smem_latency_bench = {
    .name = "latency",
    .summary = "shared-memory load-to-use latency in cycles: one thread's dependent pointer chase",
    .axes = latency_axes,
    .n_axes = SMEM_ARRAY_LEN(latency_axes),
    .sweeps = { "latency" },
    .variation = SMEM_VARIATION_MEASURED(1.5, 1.5, 0.0),
    .kernel_file = "latency",
    .plan = latency_plan,
    .check_work = 256,   /* eight unrolled passes of the chase */
    .metrics = latency_metrics,
    SMEM_GPU_OPS(.kernel = latency_kernel, .setup = latency_setup, .launch = latency_launch,
                 .verify = smem_chase_verify, SMEM_CHASE_STATE)
};
