/* Typed comparisons of a kernel's output with its host reference (after dav1d's checkasm_check):
 * each returns SMEM_OK, or SMEM_EVERIFY with the first mismatch written into why in one wording,
 * "<what>[<index>] is <value>, expected <reference> (<n> of <m> differ)". An index is what[i], or
 * what[i / cols][i % cols] for a row-major matrix cols wide (cols 0: one dimension). Bytes print as
 * 0x%02x, uint32_t values as 0x%08x (words, hashes), the other integers in decimal, floats with every
 * digit that tells them apart. NaN matches nothing, itself included: an unwritten element fails. The
 * checks of a whole buffer also count the mismatches; a reason longer than why_len is cut. Plain C. */
#ifndef SMEM_CHECK_H
#define SMEM_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* got[i] == want[i] for i < n. */
int smem_check_u32(char *why, size_t why_len, const char *what, size_t cols, const uint32_t *got,
                   const uint32_t *want, size_t n);
int smem_check_i32(char *why, size_t why_len, const char *what, size_t cols, const int32_t *got,
                   const int32_t *want, size_t n);
int smem_check_u64(char *why, size_t why_len, const char *what, size_t cols, const uint64_t *got,
                   const uint64_t *want, size_t n);

/* got[i] == want[i % period] for i < n, period > 0: a reference that repeats (one value per lane). */
int smem_check_u32_cycle(char *why, size_t why_len, const char *what, size_t cols, const uint32_t *got, size_t n,
                         const uint32_t *want, size_t period);

/* got[i] == want for i < n. */
int smem_check_u32_all(char *why, size_t why_len, const char *what, size_t cols, const uint32_t *got, size_t n,
                       uint32_t want);

/* smem_near(got[i], want[i], abs_tol, rel_tol) for i < n; both tolerances 0 ask for equality. */
int smem_check_f32(char *why, size_t why_len, const char *what, size_t cols, const float *got, const float *want,
                   size_t n, double abs_tol, double rel_tol);
int smem_check_f64(char *why, size_t why_len, const char *what, size_t cols, const double *got,
                   const double *want, size_t n, double abs_tol, double rel_tol);

/* No got[i] is NaN, the poison an output buffer is filled with: "<what>[<index>] was never written". */
int smem_check_f32_written(char *why, size_t why_len, const char *what, size_t cols, const float *got, size_t n);

/* |got - want| <= max(abs_tol, rel_tol |want|); false when either is NaN. */
bool smem_near(double got, double want, double abs_tol, double rel_tol);

/* One mismatch found by a loop of its own (a reference computed element by element): element i
 * of what is got where want was expected. Writes why in the wording above, without the count, and
 * returns SMEM_EVERIFY. */
int smem_mismatch_u8(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint8_t got, uint8_t want);
int smem_mismatch_u32(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint32_t got,
                      uint32_t want);
int smem_mismatch_u64(char *why, size_t why_len, const char *what, size_t cols, size_t i, uint64_t got,
                      uint64_t want);
int smem_mismatch_f32(char *why, size_t why_len, const char *what, size_t cols, size_t i, float got, float want);
int smem_mismatch_f64(char *why, size_t why_len, const char *what, size_t cols, size_t i, double got, double want);

#endif
