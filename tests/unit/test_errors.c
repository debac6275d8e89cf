/* A failed point keeps the words of whoever knew what went wrong: the case's own reason (a cuBLAS
 * status, a setup message) before the last CUDA error, the CUDA error before the bare status. */
#include <string.h>

#include <criterion/criterion.h>

#include "runner.h"
#include "smem.h"

static struct smem_result failed(int rc, const char *what, const char *own, const char *cuda)
{
    struct smem_result r;

    memset(&r, 0, sizeof(r));
    smem_point_fail(&r, rc, what, own, cuda);
    cr_assert_eq(r.status, SMEM_POINT_FAILED);
    return r;
}

Test(point_fail, the_cases_own_reason_wins_over_the_last_cuda_error)
{
    struct smem_result r = failed(SMEM_ECUDA, "launch", "cublasSgemm: the function failed to launch on the GPU",
                                  "cudaErrorInvalidValue: invalid argument (cudaMemcpy at gemm.c:80)");

    cr_assert_str_eq(r.reason, "launch: cublasSgemm: the function failed to launch on the GPU");
}

Test(point_fail, a_setup_message_is_kept_when_cuda_has_nothing_to_say)
{
    /* what cuBLAS's setup does: its own message, and no CUDA call failed */
    struct smem_result r = failed(SMEM_ECUDA, "setup", "cublasCreate failed", "");

    cr_assert_str_eq(r.reason, "setup: cublasCreate failed");
}

Test(point_fail, without_its_own_words_the_cuda_error_is_used)
{
    struct smem_result r = failed(SMEM_ESTICKY, "launch", "",
                                  "cudaErrorIllegalAddress: an illegal memory access was encountered");

    cr_assert_str_eq(r.reason, "launch: cudaErrorIllegalAddress: an illegal memory access was encountered");
}

Test(point_fail, never_an_empty_reason)
{
    cr_assert_str_eq(failed(SMEM_ECUDA, "setup", "", "").reason, "setup: failed");
    cr_assert_str_eq(failed(SMEM_ENOMEM, "setup", NULL, NULL).reason, "setup: out of host memory");
}

Test(point_fail, an_earlier_reason_stays)
{
    struct smem_result r;

    memset(&r, 0, sizeof(r));
    smem_fmt(r.reason, sizeof(r.reason), "first");
    smem_point_fail(&r, SMEM_ECUDA, "timing", "second", "third");
    cr_assert_str_eq(r.reason, "first");
}
