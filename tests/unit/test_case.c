/* The driver's side of a case (bench/bench.c: smem_case_open, smem_case_close) on a made-up
 * benchmark, without a GPU: the private state is there, zeroed, before setup, still there for
 * teardown, and freed after it, however far setup got; without state or teardown nothing is called
 * that is not there. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "bench.h"
#include "smem.h"

/* AddressSanitizer reports an impossible allocation instead of returning NULL (GCC says so with
 * __SANITIZE_ADDRESS__, clang with __has_feature) */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

struct state {
    uint32_t words[256];
    int acquired;           /* what setup "acquired", for teardown to find */
};

/* What the made-up benchmark's operations saw, and what its setup returns. */
static struct {
    int setups, teardowns;
    void *setup_priv, *teardown_priv;
    bool zeroed;
    int acquired;
    int setup_rc;
} seen;

static int made_up_setup(struct smem_case *c)
{
    static const struct state zero;
    struct state *s = c->priv;

    seen.setups++;
    seen.setup_priv = c->priv;
    seen.zeroed = s && !memcmp(s, &zero, sizeof(zero));
    if (s) {
        /* dirtied, so a later case handed the same memory unzeroed would show */
        memset(s->words, 0xab, sizeof(s->words));
        s->acquired = 1;
    }
    return seen.setup_rc;
}

static void made_up_teardown(struct smem_case *c)
{
    const struct state *s = c->priv;

    seen.teardowns++;
    seen.teardown_priv = c->priv;
    seen.acquired = s ? s->acquired : -1;
}

static const struct smem_bench with_state = {
    .name = "made_up", .priv_size = sizeof(struct state), .setup = made_up_setup, .teardown = made_up_teardown,
};

Test(cases, the_state_is_zeroed_before_setup_kept_for_teardown_and_freed_after)
{
    memset(&seen, 0, sizeof(seen));
    for (int round = 1; round <= 3; round++) {
        struct smem_case c = { .bench = &with_state };
        void *priv;

        cr_assert_eq(smem_case_open(&c), SMEM_OK);
        priv = c.priv;
        cr_assert_not_null(priv);
        cr_assert_eq(seen.setups, round);
        cr_assert_eq(seen.setup_priv, priv, "setup sees the state the driver allocated");
        cr_assert(seen.zeroed, "round %d: the state is all zeros when setup first sees it", round);
        smem_case_close(&c);
        cr_assert_eq(seen.teardowns, round);
        cr_assert_eq(seen.teardown_priv, priv, "teardown sees the same state, not yet freed");
        cr_assert_eq(seen.acquired, 1, "teardown finds what setup recorded in it");
        cr_assert_null(c.priv, "freed and cleared after teardown");
    }
}

Test(cases, a_failed_setup_is_torn_down_and_its_state_freed)
{
    struct smem_case c = { .bench = &with_state };

    memset(&seen, 0, sizeof(seen));
    seen.setup_rc = SMEM_ECUDA;
    cr_assert_eq(smem_case_open(&c), SMEM_ECUDA, "setup's code comes back");
    cr_assert_not_null(c.priv);
    smem_case_close(&c);
    cr_assert_eq(seen.teardowns, 1, "teardown gives back what a half-way setup acquired");
    cr_assert_eq(seen.acquired, 1);
    cr_assert_null(c.priv);
}

Test(cases, no_state_and_no_teardown)
{
    static const struct smem_bench bare = { .name = "made_up", .setup = made_up_setup };
    struct smem_case c = { .bench = &bare };

    memset(&seen, 0, sizeof(seen));
    cr_assert_eq(smem_case_open(&c), SMEM_OK);
    cr_assert_eq(seen.setups, 1);
    cr_assert_null(seen.setup_priv, "priv_size 0: no state");
    smem_case_close(&c);
    cr_assert_eq(seen.teardowns, 0);
    cr_assert_null(c.priv);
}

Test(cases, without_memory_for_the_state_setup_and_teardown_are_not_called)
{
#ifdef UNDER_ASAN
    cr_skip_test("an allocation of SIZE_MAX bytes aborts under AddressSanitizer");
#else
    static const struct smem_bench huge = {
        .name = "made_up", .priv_size = SIZE_MAX, .setup = made_up_setup, .teardown = made_up_teardown,
    };
    struct smem_case c = { .bench = &huge };

    memset(&seen, 0, sizeof(seen));
    cr_assert_eq(smem_case_open(&c), SMEM_ENOMEM, "the runner fails the point: \"setup: out of host memory\"");
    cr_assert_null(c.priv);
    cr_assert_eq(seen.setups, 0);
    smem_case_close(&c);
    cr_assert_eq(seen.teardowns, 0, "setup never ran: nothing to give back");
#endif
}

/* Trials: a later trial's case is set up and timed, never verified, so what verify found is only in
 * the first trial's case; the pooled metrics keep that and take the rest from the pooled timing. */
struct pooled_state {
    double found;   /* what verify counted (stale words, resident clusters) */
    int tiles;      /* what setup planned */
};

static void pooled_metrics(const struct smem_case *c, const struct smem_timing *t, struct smem_metrics *m)
{
    const struct pooled_state *s = c->priv;

    smem_metrics_add(m, "found", "words", s->found, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "tiles_per_s", "1/s", s->tiles / t->seconds, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "tiles", "tiles", s->tiles, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(m, "nothing", "words", NAN, 0, SMEM_HIGHER_IS_BETTER);
}

Test(cases, pooled_trials_keep_what_the_first_trials_verification_found)
{
    struct smem_bench b = { .name = "pooled", .metrics = pooled_metrics };
    struct pooled_state verified = { .found = 74.2, .tiles = 8 }, later = { .found = 0, .tiles = 8 };
    struct smem_case first_case = { .bench = &b, .priv = &verified }, last_case = { .bench = &b, .priv = &later };
    struct smem_timing t1 = { .seconds = 2e-6 }, pooled_t = { .seconds = 4e-6 };
    struct smem_metrics first = { .n = 0 }, again = { .n = 0 }, pooled = { .n = 0 };

    b.metrics(&first_case, &t1, &first);
    b.metrics(&last_case, &t1, &again);
    b.metrics(&last_case, &pooled_t, &pooled);
    cr_assert_eq(pooled.m[0].value, 0, "the bug: the later trial's unverified state");
    smem_metrics_keep_verified(&pooled, &first, &again);
    cr_assert_eq(pooled.n, 4);
    cr_assert_eq(pooled.m[0].value, 74.2, "verify's count is the first trial's, not the later trial's 0");
    cr_assert_float_eq(pooled.m[1].value, 8 / 4e-6, 1e-3, "a rate is the pooled timing's");
    cr_assert_eq(pooled.m[2].value, 8, "setup's plan is the same in every trial");
    cr_assert(isnan(pooled.m[3].value), "an absent value stays absent (NaN is not a change)");
}
