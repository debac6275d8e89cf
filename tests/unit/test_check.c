/* The typed output checks of bench/check.h on buffers built by hand: equal buffers pass, the first
 * mismatch is the one reported with its index, value and reference, the rest are counted, floats
 * pass up to their tolerance and no further, NaN matches nothing, and a reason stays in its buffer. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "smem.h"

Test(check, u32_equal_buffers_pass_and_leave_why_alone)
{
    uint32_t got[] = { 1, 2, 3, 0xdeadbeef }, want[] = { 1, 2, 3, 0xdeadbeef };
    char why[64] = "untouched";

    cr_assert_eq(smem_check_u32(why, sizeof(why), "sum", 0, got, want, 4), SMEM_OK);
    cr_assert_str_eq(why, "untouched");
    cr_assert_eq(smem_check_u32(why, sizeof(why), "sum", 0, got, want, 0), SMEM_OK, "nothing to compare passes");
}

Test(check, u32_reports_the_first_mismatch_in_hex_and_counts_all)
{
    uint32_t got[] = { 1, 7, 3, 9, 5 }, want[] = { 1, 2, 3, 4, 5 };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_u32(why, sizeof(why), "sum", 0, got, want, 5), SMEM_EVERIFY);
    cr_assert_str_eq(why, "sum[1] is 0x00000007, expected 0x00000002 (2 of 5 differ)");
}

Test(check, a_row_width_names_row_and_column)
{
    uint32_t got[6] = { 0 }, want[6] = { 0 };
    char why[SMEM_REASON_LEN];

    got[5] = 0xff;
    cr_assert_eq(smem_check_u32(why, sizeof(why), "hash", 4, got, want, 6), SMEM_EVERIFY);
    cr_assert_str_eq(why, "hash[1][1] is 0x000000ff, expected 0x00000000 (1 of 6 differ)");
}

Test(check, u32_all_against_one_value)
{
    uint32_t got[] = { 8, 8, 8, 8 };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_u32_all(why, sizeof(why), "counter", 2, got, 4, 8), SMEM_OK);
    got[3] = 6;
    got[2] = 7;
    cr_assert_eq(smem_check_u32_all(why, sizeof(why), "counter", 2, got, 4, 8), SMEM_EVERIFY);
    cr_assert_str_eq(why, "counter[1][0] is 0x00000007, expected 0x00000008 (2 of 4 differ)");
}

Test(check, u32_cycle_repeats_the_reference)
{
    uint32_t want[] = { 10, 20, 30 }, got[] = { 10, 20, 30, 10, 20, 30, 10, 21 };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_u32_cycle(why, sizeof(why), "lane", 0, got, 7, want, 3), SMEM_OK);
    cr_assert_eq(smem_check_u32_cycle(why, sizeof(why), "lane", 0, got, 8, want, 3), SMEM_EVERIFY);
    cr_assert_str_eq(why, "lane[7] is 0x00000015, expected 0x00000014 (1 of 8 differ)");
    got[4] = 30;   /* a reference read one lane off is caught where it starts */
    cr_assert_eq(smem_check_u32_cycle(why, sizeof(why), "lane", 0, got, 8, want, 3), SMEM_EVERIFY);
    cr_assert_str_eq(why, "lane[4] is 0x0000001e, expected 0x00000014 (2 of 8 differ)");
}

Test(check, i32_and_u64_print_decimal)
{
    int32_t gi[] = { 0, -5 }, wi[] = { 0, 5 };
    uint64_t gu[] = { 18446744073709551615ull, 2 }, wu[] = { 1, 2 };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_i32(why, sizeof(why), "d", 0, gi, wi, 2), SMEM_EVERIFY);
    cr_assert_str_eq(why, "d[1] is -5, expected 5 (1 of 2 differ)");
    cr_assert_eq(smem_check_i32(why, sizeof(why), "d", 0, wi, wi, 2), SMEM_OK);
    cr_assert_eq(smem_check_u64(why, sizeof(why), "n", 0, gu, wu, 2), SMEM_EVERIFY);
    cr_assert_str_eq(why, "n[0] is 18446744073709551615, expected 1 (1 of 2 differ)");
    cr_assert_eq(smem_check_u64(why, sizeof(why), "n", 0, wu, wu, 2), SMEM_OK);
}

Test(check, f32_exact_when_both_tolerances_are_zero)
{
    float want[] = { 1.0f, 0.1f }, got[] = { 1.0f, nextafterf(0.1f, 1.0f) };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, want, want, 2, 0, 0), SMEM_OK);
    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, got, want, 2, 0, 0), SMEM_EVERIFY);
    /* nine digits tell one ulp apart */
    cr_assert_str_eq(why, "y[1] is 0.100000009, expected 0.100000001 (1 of 2 differ)");
}

Test(check, f32_tolerance_boundary_absolute_and_relative)
{
    float want[] = { 1000.0f }, in_rel[] = { 1000.0f + 0.0625f }, out_rel[] = { 1000.0f + 0.125f };
    float small[] = { 0.0f }, in_abs[] = { 0.5f }, out_abs[] = { 0.5625f };
    char why[SMEM_REASON_LEN];

    /* relative 1/16000 of 1000 is 0.0625: on the bound passes, past it fails */
    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, in_rel, want, 1, 0, 1.0 / 16000), SMEM_OK);
    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, out_rel, want, 1, 0, 1.0 / 16000), SMEM_EVERIFY);
    cr_assert_str_eq(why, "y[0] is 1000.125, expected 1000 (1 of 1 differ)");
    /* near zero the absolute bound holds */
    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, in_abs, small, 1, 0.5, 1e-5), SMEM_OK);
    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, out_abs, small, 1, 0.5, 1e-5), SMEM_EVERIFY);
    /* the larger of the two bounds, not their sum */
    cr_assert(smem_near(1000.0625, 1000, 0.0625, 1.0 / 16000));
    cr_assert(!smem_near(1000.1, 1000, 0.0625, 1.0 / 16000));
}

Test(check, nan_matches_nothing_not_even_nan)
{
    float want[] = { 1.0f, NAN }, got[] = { NAN, NAN };
    double dw[] = { NAN }, dg[] = { NAN };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_f32(why, sizeof(why), "y", 0, got, want, 2, 1e9, 1e9), SMEM_EVERIFY);
    cr_assert_str_eq(why, "y[0] is nan, expected 1 (2 of 2 differ)");
    cr_assert_eq(smem_check_f64(why, sizeof(why), "z", 0, dg, dw, 1, 0, 0), SMEM_EVERIFY);
    cr_assert(!smem_near(NAN, 0, INFINITY, 0));
    cr_assert(!smem_near(0, NAN, INFINITY, 0));
}

Test(check, f64_prints_seventeen_digits)
{
    double want[] = { 1.0, 2.0 }, got[] = { 1.0, 2.0 + 0x1p-51 };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_f64(why, sizeof(why), "acc", 0, got, want, 2, 0, 0), SMEM_EVERIFY);
    cr_assert_str_eq(why, "acc[1] is 2.0000000000000004, expected 2 (1 of 2 differ)");
    cr_assert_eq(smem_check_f64(why, sizeof(why), "acc", 0, got, want, 2, 1e-15, 0), SMEM_OK);
}

Test(check, f32_written_finds_the_poison)
{
    float out[] = { 0.5f, -1.0f, NAN, 2.0f, NAN, NAN };
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_check_f32_written(why, sizeof(why), "C", 0, out, 2), SMEM_OK);
    cr_assert_eq(smem_check_f32_written(why, sizeof(why), "C", 3, out, 6), SMEM_EVERIFY);
    cr_assert_str_eq(why, "C[0][2] was never written (3 of 6 unwritten)");
}

Test(check, one_mismatch_from_a_loop_of_its_own)
{
    char why[SMEM_REASON_LEN];

    cr_assert_eq(smem_mismatch_u32(why, sizeof(why), "sum", 256, 515, 1, 2), SMEM_EVERIFY);
    cr_assert_str_eq(why, "sum[2][3] is 0x00000001, expected 0x00000002");
    cr_assert_eq(smem_mismatch_u8(why, sizeof(why), "copy", 0, 16777217, 0xab, 0x0c), SMEM_EVERIFY);
    cr_assert_str_eq(why, "copy[16777217] is 0xab, expected 0x0c");
    cr_assert_eq(smem_mismatch_u64(why, sizeof(why), "count", 0, 4, 7, 9), SMEM_EVERIFY);
    cr_assert_str_eq(why, "count[4] is 7, expected 9");
    cr_assert_eq(smem_mismatch_f32(why, sizeof(why), "out", 0, 0, 0.25f, -0.5f), SMEM_EVERIFY);
    cr_assert_str_eq(why, "out[0] is 0.25, expected -0.5");
    cr_assert_eq(smem_mismatch_f64(why, sizeof(why), "C", 10, 99, 1.5, 3), SMEM_EVERIFY);
    cr_assert_str_eq(why, "C[9][9] is 1.5, expected 3");
}

Test(check, the_reason_stays_within_its_buffer)
{
    char what[400], why[SMEM_REASON_LEN + 8];
    double got[] = { -1.2345678901234567e-300 }, want[] = { 1.2345678901234567e300 };
    char small[16];

    memset(what, 'x', sizeof(what) - 1);
    what[sizeof(what) - 1] = '\0';
    memset(why, '#', sizeof(why));
    cr_assert_eq(smem_check_f64(why, SMEM_REASON_LEN, what, SIZE_MAX, got, want, 1, 0, 0), SMEM_EVERIFY);
    cr_assert_eq(strlen(why), SMEM_REASON_LEN - 1, "cut, and terminated");
    cr_assert_eq(why[SMEM_REASON_LEN], '#', "nothing written past the length given");
    /* the longest values and indexes with a name of 32 characters fit a reason whole */
    smem_fmt(what, sizeof(what), "%.32s", "a_name_of_thirty_two_characters_");
    cr_assert_eq(smem_mismatch_f64(why, SMEM_REASON_LEN, what, 1, SIZE_MAX, got[0], want[0]), SMEM_EVERIFY);
    smem_append(why, SMEM_REASON_LEN, " ", "(%zu of %zu differ)", (size_t)SIZE_MAX, (size_t)SIZE_MAX);
    cr_assert(strlen(why) < SMEM_REASON_LEN - 1, "%zu characters: %s", strlen(why), why);
    cr_assert_eq(smem_mismatch_u32(small, sizeof(small), "sum", 0, 12, 1, 2), SMEM_EVERIFY);
    cr_assert_str_eq(small, "sum[12] is 0x00");
}
