/* The command line: getopt_long parsing and validation of everything that can be checked before a
 * GPU is touched. */
#ifndef SMEM_CLI_H
#define SMEM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "sweep.h"

#define SMEM_MAX_SWEEPS 16
#define SMEM_MAX_OVERRIDES 16
#define SMEM_MAX_DEVICES 64

struct smem_options {
    const char *sweeps[SMEM_MAX_SWEEPS];
    size_t n_sweeps;
    char sweep_text[256];           /* the --sweep argument, for naming the output */
    const char *bench;
    const char *kernel;             /* --kernel FILE: a user's cubin, fatbin or PTX */
    const char *launch;             /* --launch DESC.json: its launch description */
    double watchdog_s;              /* --watchdog: a user kernel's first launch longer than this is a hang */
    struct smem_override overrides[SMEM_MAX_OVERRIDES];
    size_t n_overrides;
    int devices[SMEM_MAX_DEVICES];  /* CUDA ordinals, in the order given */
    int n_devices;                  /* 1 by default (device 0) */
    bool all_devices;               /* --device all: every device the machine has */
    bool device_given;              /* --device was on the command line */
    const char *output;             /* NULL: a default name in the current directory; "-": stdout */
    bool force;                     /* overwrite an existing -o file */
    bool quick, quiet, list, help, version, no_optin, require_gpu;
    bool wide;                      /* --wide: table lines not cut to SMEM_TABLE_WIDTH */
    bool json;                  /* --json: --list as one JSON document */
    bool check;                     /* verify every point once, time nothing (for compute-sanitizer) */
    bool cold;                      /* flush L2 before every sample */
    const char *predict;            /* model name, "list", or NULL */
    int min_samples, max_samples;
    double max_noise;               /* fraction */
    double timeout_s;
    uint64_t seed;
    int trials;                     /* trials per point, each a fresh setup (default 3) */
    uint64_t order_seed;            /* seeds the shuffled order of the trials */
    bool order_seed_given;          /* else drawn anew by every process */
    struct smem_counters_request counters;  /* --counters [LIST]: hardware counters per point */
    char storage[4096];             /* copies of split arguments */
};

/* Parses argv into o. Returns SMEM_OK, or SMEM_EINVAL after printing one line and a --help hint. */
int smem_cli_parse(int argc, char **argv, struct smem_options *o);

/* Parses a --device value: "all", "N" or "N,M,..." (distinct ordinals 0..1023). Prints one line
 * and returns SMEM_EINVAL on anything else. */
int smem_cli_parse_devices(const char *text, int *devices, int max, int *n, bool *all);

/* Checks that path can be written: its directory exists and takes a new file, the name fits, and
 * nothing is there unless force and a regular file ("/dev/null" discards). Prints one line and
 * returns SMEM_EINVAL otherwise. */
int smem_cli_check_output(const char *path, bool force);

/* The first option given that only a measuring run can honour (--check, --cold, --device), or NULL:
 * without a GPU such a run is refused rather than quietly turned into a prediction. */
const char *smem_cli_measuring_option(const struct smem_options *o);

/* Prints the usage text. */
void smem_cli_usage(FILE *f);

#endif
