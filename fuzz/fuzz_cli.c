/* libFuzzer target: the command-line parser and the axis-list parser, the two places where
 * untrusted text enters smembench. The input is split at newlines into argv; the first line is
 * also parsed as an axis list against a byte-sized axis. Nothing may crash, overflow or leak.
 * Rejected inputs print a line each: run with -close_fd_mask=2 (fuzz/run.sh does) to keep the
 * fuzzer's own report readable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct smem_axis axis = { .name = "dyn_smem_bytes", .unit = "bytes", .min = 0, .max = 228 * 1024 };
    char *text = malloc(size + 1), *argv[MAX_ARGS + 2], *line;
    int64_t values[SMEM_MAX_AXIS_VALUES];
    struct smem_options o;
    size_t n;
    int argc = 1;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    argv[0] = "smembench";
    for (line = strtok(text, "\n"); line && argc <= MAX_ARGS; line = strtok(NULL, "\n")) {
        if (argc == 1)
            smem_sweep_parse_list(line, &axis, values, SMEM_MAX_AXIS_VALUES, &n);
        argv[argc++] = line;
    }
    argv[argc] = NULL;
    if (smem_cli_parse(argc, argv, &o) == 0 && !o.help && !o.list && !o.version) {
        struct smem_plan_request req = { .sweeps = o.sweeps, .n_sweeps = o.n_sweeps, .bench = o.bench,
                                         .overrides = o.overrides, .n_overrides = o.n_overrides, .quick = o.quick,
                                         .predict = o.predict != NULL };
        struct smem_point *points = NULL;
        if (smem_sweep_expand(&req, &points, &n, NULL) == 0)
            free(points);
    }
    free(text);
    return 0;
}
