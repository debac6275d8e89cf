/* The device record against the runtime on a real GPU: plausible properties and clock, the built-in
 * H200 model equal to a real H200, the limits equal to the per-compute-capability table. */
#include <string.h>

#include <criterion/criterion.h>

#include "arch.h"
#include "gpu_test.h"
#include "gpus.h"

TestSuite(device, .init = open_device);

Test(device, properties_and_clock_are_plausible)
{
    cr_assert_geq(dev.cc_major, 7);
    cr_assert_gt(dev.sm_count, 0);
    cr_assert_eq(dev.smem_per_block, 48 * 1024, "the 48 KiB default");
    cr_assert_geq(dev.smem_per_block_optin, dev.smem_per_block);
    cr_assert_geq(dev.smem_per_sm, dev.smem_per_block_optin);
    cr_assert_gt(dev.measured_clock_mhz, 200);
    cr_assert_lt(dev.measured_clock_mhz, dev.clock_khz / 1000.0 * 1.05, "no faster than the rated maximum");
}

Test(device, h200_model_equals_the_real_h200)
{
    const struct smem_device *m = &smem_gpu_find("h200")->dev;

    if (!strstr(dev.name, "H200"))
        cr_skip_test("not an H200: %s", dev.name);
    cr_assert_eq(m->cc_major, dev.cc_major);
    cr_assert_eq(m->cc_minor, dev.cc_minor);
    cr_assert_eq(m->sm_count, dev.sm_count);
    cr_assert_eq(m->smem_per_block, dev.smem_per_block);
    cr_assert_eq(m->smem_per_block_optin, dev.smem_per_block_optin);
    cr_assert_eq(m->smem_per_sm, dev.smem_per_sm);
    cr_assert_eq(m->reserved_smem_per_block, dev.reserved_smem_per_block);
    cr_assert_eq(m->max_blocks_per_sm, dev.max_blocks_per_sm);
    cr_assert_eq(m->max_threads_per_sm, dev.max_threads_per_sm);
    cr_assert_eq(m->max_threads_per_block, dev.max_threads_per_block);
    cr_assert_eq(m->regs_per_sm, dev.regs_per_sm);
    cr_assert_eq(m->regs_per_block, dev.regs_per_block);
    cr_assert_eq(m->l2_bytes, dev.l2_bytes);
    cr_assert_eq(m->clock_khz, dev.clock_khz);
}

Test(device, limits_equal_the_published_table)
{
    /* core/arch.c restates the Programming Guide per compute capability; the runtime is the
     * authority on the GPU at hand, so the two must agree wherever the table knows the cc */
    const struct smem_arch *a = smem_arch_find(dev.cc_major, dev.cc_minor);

    if (!a)
        cr_skip_test("cc %d.%d is not in the table", dev.cc_major, dev.cc_minor);
    cr_assert_eq(dev.smem_per_sm, a->smem_per_sm_kib * 1024LL);
    cr_assert_eq(dev.smem_per_block_optin, a->smem_per_block_optin_kib * 1024LL);
    cr_assert_eq(dev.reserved_smem_per_block, a->reserved_per_block_bytes);
    cr_assert_eq(dev.max_blocks_per_sm, a->max_blocks_per_sm);
    cr_assert_eq(dev.max_threads_per_sm, a->max_threads_per_sm);
}
