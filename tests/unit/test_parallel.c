/* The host's parallel loop (bench/common.c) that the benchmarks' inputs and host references use: every
 * item once, and the first failure in index order whatever the number of cores. */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common.h"
#include "smem.h"

struct cover {
    unsigned char seen[10000];
    size_t fail_at[2];
};

static int mark(void *arg, size_t begin, size_t end, char *why, size_t why_len)
{
    struct cover *c = arg;

    for (size_t i = begin; i < end; i++) {
        c->seen[i]++;
        if (i == c->fail_at[0] || i == c->fail_at[1]) {
            smem_fmt(why, why_len, "item %zu", i);
            return SMEM_EVERIFY;
        }
    }
    return SMEM_OK;
}

Test(parallel, covers_every_item_once_and_reports_the_first_failure_in_index_order)
{
    static struct cover c;
    char why[64] = "";

    c.fail_at[0] = c.fail_at[1] = SIZE_MAX;
    cr_assert_eq(smem_parallel_for(10000, mark, &c, why, sizeof(why)), SMEM_OK);
    for (size_t i = 0; i < 10000; i++)
        cr_assert_eq(c.seen[i], 1, "item %zu seen %d times", i, c.seen[i]);
    /* two failures far apart, in different ranges wherever the host has more than one core */
    memset(c.seen, 0, sizeof(c.seen));
    c.fail_at[0] = 9990;
    c.fail_at[1] = 17;
    cr_assert_eq(smem_parallel_for(10000, mark, &c, why, sizeof(why)), SMEM_EVERIFY);
    cr_assert_str_eq(why, "item 17");
    cr_assert_eq(smem_parallel_for(0, mark, &c, why, sizeof(why)), SMEM_OK);
}
