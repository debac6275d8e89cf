/* The typed checks of check.h: one loop per type that finds the first mismatch and counts the rest,
 * one function that words the reason. */
#include "check.h"

#include <inttypes.h>
#include <math.h>

#include "smem.h"

/* what[i] or what[r][c], then the values, then the count when there is one (n_diff 0: none). */
static int report(char *why, size_t why_len, const char *what, size_t cols, size_t i, const char *got,
                  const char *want, size_t n_diff, size_t n)
{
    if (cols)
        smem_fmt(why, why_len, "%s[%zu][%zu] is %s, expected %s", what, i / cols, i % cols, got, want);
    else
        smem_fmt(why, why_len, "%s[%zu] is %s, expected %s", what, i, got, want);
    if (n_diff)
        smem_append(why, why_len, " ", "(%zu of %zu differ)", n_diff, n);
    return SMEM_EVERIFY;
}

bool smem_near(double got, double want, double abs_tol, double rel_tol)
{
    double d = fabs(got - want), rel = rel_tol * fabs(want);

    return d <= (abs_tol > rel ? abs_tol : rel);   /* NaN compares false */
}

/* Counts the i < n where differ (an expression of i) holds into n_diff, the first of them into first:
 * the count goes on past the first, one pass and no second loop to keep in step. */
#define SCAN(n, differ, first, n_diff)         \
    for (size_t i = 0; i < (n); i++)           \
        if ((differ) && !(n_diff)++)           \
            (first) = i

static int report_u32(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint32_t got,
                      uint32_t want, size_t n_diff, size_t n)
{
    char g[16], w[16];

    smem_fmt(g, sizeof(g), "0x%08" PRIx32, got);
    smem_fmt(w, sizeof(w), "0x%08" PRIx32, want);
    return report(why, why_len, what, cols, i, g, w, n_diff, n);
}

int smem_check_u32(char *why, size_t why_len, const char *what, size_t cols, const uint32_t *got,
                   const uint32_t *want, size_t n)
{
    size_t first = 0, n_diff = 0;

    SCAN(n, got[i] != want[i], first, n_diff);
    return n_diff ? report_u32(why, why_len, what, cols, first, got[first], want[first], n_diff, n) : SMEM_OK;
}

int smem_check_u32_cycle(char *why, size_t why_len, const char *what, size_t cols, const uint32_t *got, size_t n,
                         const uint32_t *want, size_t period)
{
    size_t first = 0, n_diff = 0, k = 0;

    /* k is i % period without a division per element */
    SCAN(n, (k = i == 0 || k + 1 == period ? 0 : k + 1, got[i] != want[k]), first, n_diff);
    return n_diff ? report_u32(why, why_len, what, cols, first, got[first], want[first % period], n_diff, n)
                  : SMEM_OK;
}

int smem_check_u32_all(char *why, size_t why_len, const char *what, size_t cols, const uint32_t *got, size_t n,
                       uint32_t want)
{
    size_t first = 0, n_diff = 0;

    SCAN(n, got[i] != want, first, n_diff);
    return n_diff ? report_u32(why, why_len, what, cols, first, got[first], want, n_diff, n) : SMEM_OK;
}

int smem_check_i32(char *why, size_t why_len, const char *what, size_t cols, const int32_t *got,
                   const int32_t *want, size_t n)
{
    size_t first = 0, n_diff = 0;
    char g[16], w[16];

    SCAN(n, got[i] != want[i], first, n_diff);
    if (!n_diff)
        return SMEM_OK;
    smem_fmt(g, sizeof(g), "%" PRId32, got[first]);
    smem_fmt(w, sizeof(w), "%" PRId32, want[first]);
    return report(why, why_len, what, cols, first, g, w, n_diff, n);
}

int smem_check_u64(char *why, size_t why_len, const char *what, size_t cols, const uint64_t *got,
                   const uint64_t *want, size_t n)
{
    size_t first = 0, n_diff = 0;
    char g[24], w[24];

    SCAN(n, got[i] != want[i], first, n_diff);
    if (!n_diff)
        return SMEM_OK;
    smem_fmt(g, sizeof(g), "%" PRIu64, got[first]);
    smem_fmt(w, sizeof(w), "%" PRIu64, want[first]);
    return report(why, why_len, what, cols, first, g, w, n_diff, n);
}

/* 9 significant digits tell any two floats apart, 17 any two doubles */
int smem_check_f32(char *why, size_t why_len, const char *what, size_t cols, const float *got, const float *want,
                   size_t n, double abs_tol, double rel_tol)
{
    size_t first = 0, n_diff = 0;
    char g[32], w[32];

    SCAN(n, !smem_near(got[i], want[i], abs_tol, rel_tol), first, n_diff);
    if (!n_diff)
        return SMEM_OK;
    smem_fmt(g, sizeof(g), "%.9g", (double)got[first]);
    smem_fmt(w, sizeof(w), "%.9g", (double)want[first]);
    return report(why, why_len, what, cols, first, g, w, n_diff, n);
}

int smem_check_f64(char *why, size_t why_len, const char *what, size_t cols, const double *got,
                   const double *want, size_t n, double abs_tol, double rel_tol)
{
    size_t first = 0, n_diff = 0;
    char g[32], w[32];

    SCAN(n, !smem_near(got[i], want[i], abs_tol, rel_tol), first, n_diff);
    if (!n_diff)
        return SMEM_OK;
    smem_fmt(g, sizeof(g), "%.17g", got[first]);
    smem_fmt(w, sizeof(w), "%.17g", want[first]);
    return report(why, why_len, what, cols, first, g, w, n_diff, n);
}

int smem_check_f32_written(char *why, size_t why_len, const char *what, size_t cols, const float *got, size_t n)
{
    size_t first = 0, n_diff = 0;

    SCAN(n, isnan(got[i]), first, n_diff);
    if (!n_diff)
        return SMEM_OK;
    if (cols)
        smem_fmt(why, why_len, "%s[%zu][%zu] was never written", what, first / cols, first % cols);
    else
        smem_fmt(why, why_len, "%s[%zu] was never written", what, first);
    smem_append(why, why_len, " ", "(%zu of %zu unwritten)", n_diff, n);
    return SMEM_EVERIFY;
}

int smem_mismatch_u8(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint8_t got, uint8_t want)
{
    char g[8], w[8];

    smem_fmt(g, sizeof(g), "0x%02x", got);
    smem_fmt(w, sizeof(w), "0x%02x", want);
    return report(why, why_len, what, cols, i, g, w, 0, 0);
}

int smem_mismatch_u32(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint32_t got,
                      uint32_t want)
{
    return report_u32(why, why_len, what, cols, i, got, want, 0, 0);
}

int smem_mismatch_u64(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint64_t got,
                      uint64_t want)
{
    char g[24], w[24];

    smem_fmt(g, sizeof(g), "%" PRIu64, got);
    smem_fmt(w, sizeof(w), "%" PRIu64, want);
    return report(why, why_len, what, cols, i, g, w, 0, 0);
}

int smem_mismatch_f32(char *why, size_t why_len, const char *what, size_t cols, size_t i, float got, float want)
{
    char g[32], w[32];

    smem_fmt(g, sizeof(g), "%.9g", (double)got);
    smem_fmt(w, sizeof(w), "%.9g", (double)want);
    return report(why, why_len, what, cols, i, g, w, 0, 0);
}

int smem_mismatch_f64(char *why, size_t why_len, const char *what, size_t cols, size_t i, double got, double want)
{
    char g[32], w[32];

    smem_fmt(g, sizeof(g), "%.17g", got);
    smem_fmt(w, sizeof(w), "%.17g", want);
    return report(why, why_len, what, cols, i, g, w, 0, 0);
}
