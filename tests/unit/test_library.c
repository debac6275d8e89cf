/* libsmembench's public functions (include/smembench.h) used wrongly: a NULL argv, argc 0, a NULL
 * element, a NULL path or function, smembench_main before any kernel, twice, and smembench_register
 * after it. Each is refused with 2 and one line on stderr, never a crash; the build-asan setup runs
 * this under AddressSanitizer and UndefinedBehaviorSanitizer. Built with src/libsmembench.c and
 * src/main.c (-DSMEM_LIBRARY) as the library is; no GPU is needed (--version, --help). Criterion runs
 * each test in a process of its own: the library's state starts fresh in every one. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "smembench.h"

#define SCALE_JSON SMEM_SOURCE_ROOT "/tests/kernel/scale.json"

/* What the library wrote on stderr: exactly one line, which must hold want. */
static void one_line(const char *want)
{
    char buf[1024] = "", more[1024];
    FILE *f;

    fflush(stderr);
    f = cr_get_redirected_stderr();
    cr_assert(fgets(buf, sizeof(buf), f), "nothing on stderr, want \"%s\"", want);
    cr_assert(strstr(buf, want), "\"%s\" not in \"%s\"", want, buf);
    cr_assert(!fgets(more, sizeof(more), f), "a second line: %s", more);
}

/* A function to register: never launched here (no GPU; --version and --help launch nothing). */
static void kernel_stand_in(void)
{
}

static int register_scale(void)
{
    return smembench_register(SCALE_JSON, (const void *)kernel_stand_in, NULL, NULL);
}

/* stderr to read back; stdout (--version, --help) out of the test's output */
static void redirect(void)
{
    cr_redirect_stderr();
    cr_redirect_stdout();
}

TestSuite(library, .init = redirect);

Test(library, main_refuses_a_null_argv)
{
    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(smembench_main(1, NULL), 2);
    one_line("smembench_main: argv is NULL");
}

Test(library, main_refuses_argc_below_one)
{
    char *argv[] = { "prog", NULL };

    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(smembench_main(0, argv), 2);
    one_line("argc is less than 1");
    cr_assert_eq(smembench_main(-3, argv), 2);
}

Test(library, main_refuses_a_null_element_of_argv)
{
    char *argv[] = { "prog", NULL, "--version", NULL };

    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(smembench_main(3, argv), 2);
    one_line("argv[1] is NULL, of argc 3");
}

Test(library, main_before_any_register)
{
    char *argv[] = { "prog", "--version", NULL };

    cr_assert_eq(smembench_main(2, argv), 2);
    one_line("no kernel registered: call smembench_register before smembench_main");
}

Test(library, main_before_any_register_then_register_and_main)
{
    char *argv[] = { "prog", "--version", NULL };

    cr_assert_eq(smembench_main(2, argv), 2);   /* refused, and nothing ran: the order can still be put right */
    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(smembench_main(2, argv), 0);
}

Test(library, register_refuses_a_null_path)
{
    cr_assert_eq(smembench_register(NULL, (const void *)kernel_stand_in, NULL, NULL), 2);
    one_line("smembench_register: the description path is NULL");
}

Test(library, register_refuses_a_null_function)
{
    cr_assert_eq(smembench_register(SCALE_JSON, NULL, NULL, NULL), 2);
    one_line("the function is NULL");
}

Test(library, register_refuses_a_missing_description)
{
    cr_assert_eq(smembench_register("/nonexistent/scale.json", (const void *)kernel_stand_in, NULL, NULL), 2);
    one_line("cannot open /nonexistent/scale.json");
}

Test(library, register_refuses_the_same_kernel_twice)
{
    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(register_scale(), 2);
    one_line("a kernel \"scale\" is registered already");
}

Test(library, main_runs_once_and_register_comes_before_it)
{
    char *argv[] = { "prog", "--version", NULL };

    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(smembench_main(2, argv), 0);
    cr_assert_eq(smembench_register(SCALE_JSON, (const void *)kernel_stand_in, NULL, NULL), 2);
    one_line("smembench_register(\"" SCALE_JSON "\"): called after smembench_main");
}

Test(library, main_a_second_time)
{
    char *argv[] = { "prog", "--help", NULL };

    cr_assert_eq(register_scale(), 0);
    cr_assert_eq(smembench_main(2, argv), 0);
    cr_assert_eq(smembench_main(2, argv), 2);
    one_line("smembench_main: called twice; it runs once per program");
}
