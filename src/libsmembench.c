/* libsmembench (include/smembench.h): the driver as a library for a program's own kernels. A
 * registered kernel goes through the same plan, run and result file as `--kernel FILE`; only where
 * its code comes from differs (the program's own function, its resources read from the program's
 * file in predict mode). */
#define _POSIX_C_SOURCE 200809L
#include "smembench.h"

#include <stdlib.h>
#include <string.h>

#include "kernel_job.h"
#include "smem.h"

int smem_driver_main(int argc, char **argv);   /* src/main.c, built with -DSMEM_LIBRARY */

/* A user's launch function behind the driver's own launch record. */
struct trampoline {
    smembench_launch_fn fn;
    void *user;
};

static int launch_trampoline(const struct smem_user_launch *l, void *user)
{
    const struct trampoline *t = user;
    struct smembench_launch sl = { .grid = l->grid, .block = l->block, .cluster = l->cluster,
                                   .dyn_smem = l->dyn_smem, .carveout_pct = l->carveout_pct, .values = l->values,
                                   .stream = l->stream, .args = l->args };

    return t->fn(&sl, t->user);
}

/* Where the program is in the library's life: registering, then one smembench_main (the driver's
 * state, from its option parser to the result file, is the process's; it runs once). */
static enum { REGISTERING, RUNNING, RAN } stage;

int smembench_register(const char *description_path, const void *function, smembench_launch_fn launch, void *user)
{
    struct trampoline *t = NULL;

    if (stage != REGISTERING) {
        smem_error("smembench_register(\"%s\"): called %s smembench_main; register every kernel before it",
                   description_path ? description_path : "(null)", stage == RUNNING ? "while" : "after");
        return SMEM_EXIT_USAGE;
    }
    if (!description_path) {
        smem_error("smembench_register: the description path is NULL; pass the launch description's file");
        return SMEM_EXIT_USAGE;
    }

    if (launch) {
        if (!(t = malloc(sizeof(*t)))) {
            smem_error("smembench_register: out of memory");
            return SMEM_EXIT_FAILED;
        }
        *t = (struct trampoline){ launch, user };   /* lives as long as the program: the registry's */
    }
    if (smem_kernel_register(description_path, function, launch ? launch_trampoline : NULL, t)) {
        free(t);
        return SMEM_EXIT_USAGE;
    }
    return SMEM_EXIT_OK;
}

static int library_main(int argc, char **argv, size_t count);

/* Whether argv names an option already. */
static bool has_option(int argc, char **argv, const char *name)
{
    size_t n = strlen(name);

    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], name, n) && (argv[i][n] == 0 || argv[i][n] == '='))
            return true;
    return false;
}

/* Whether argv is a command line: argc >= 1 strings, none NULL. One line when not. */
static bool command_line(int argc, char **argv)
{
    if (!argv || argc < 1) {
        smem_error("smembench_main: %s; pass main's argc and argv", !argv ? "argv is NULL" : "argc is less than 1");
        return false;
    }
    for (int i = 0; i < argc; i++)
        if (!argv[i]) {
            smem_error("smembench_main: argv[%d] is NULL, of argc %d; pass main's argc and argv", i, argc);
            return false;
        }
    return true;
}

int smembench_main(int argc, char **argv)
{
    int status;
    size_t count = smem_kernel_registered_count();

    if (stage != REGISTERING) {
        smem_error("smembench_main: called %s; it runs once per program", stage == RUNNING ? "from inside itself" : "twice");
        return SMEM_EXIT_USAGE;
    }
    if (!command_line(argc, argv))
        return SMEM_EXIT_USAGE;
    if (!count) {
        smem_error("no kernel registered: call smembench_register before smembench_main");
        return SMEM_EXIT_USAGE;
    }
    stage = RUNNING;
    status = library_main(argc, argv, count);
    stage = RAN;
    return status;
}

static int library_main(int argc, char **argv, size_t count)
{
    char **args;
    int n = 0, status;

    if (has_option(argc, argv, "--kernel") || has_option(argc, argv, "--help") || has_option(argc, argv, "-h") ||
        has_option(argc, argv, "--version") || has_option(argc, argv, "-V"))
        return smem_driver_main(argc, argv);
    if (count > 1 && !has_option(argc, argv, "--list") && !has_option(argc, argv, "-l")) {
        smem_error("%zu kernels are registered: name one with --kernel NAME (--list lists them)", count);
        return SMEM_EXIT_USAGE;
    }
    /* one kernel: it is the run's; --list alone lists all of them */
    if (!(args = calloc((size_t)argc + 3, sizeof(*args)))) {
        smem_error("out of memory");
        return SMEM_EXIT_FAILED;
    }
    for (int i = 0; i < argc; i++)
        args[n++] = argv[i];
    args[n++] = "--kernel";
    args[n++] = count > 1 ? "all" : (char *)smem_kernel_registered_name(0);
    args[n] = NULL;
    status = smem_driver_main(n, args);
    free(args);
    return status;
}
