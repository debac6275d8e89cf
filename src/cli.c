/* Command-line parsing. Everything that can be wrong with the command line is found here, before
 * a GPU is opened or a file touched, and reported in one line with what would be accepted. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_out.h"
#include "smem.h"
#include "stats.h"

enum {
    OPT_MIN_SAMPLES = 256,
    OPT_MAX_SAMPLES,
    OPT_MAX_NOISE,
    OPT_TIMEOUT,
    OPT_SEED,
    OPT_PREDICT,
    OPT_NO_OPTIN,
    OPT_REQUIRE_GPU,
    OPT_QUICK,
    OPT_FORCE,
    OPT_CHECK,
    OPT_COLD,
    OPT_TRIALS,
    OPT_ORDER_SEED,
    OPT_KERNEL,
    OPT_LAUNCH,
    OPT_WATCHDOG,
    OPT_COUNTERS,
    OPT_JSON,
    OPT_WIDE,
};

static const struct option long_options[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { "list", no_argument, NULL, 'l' },
    { "json", no_argument, NULL, OPT_JSON },
    { "sweep", required_argument, NULL, 's' },
    { "bench", required_argument, NULL, 'b' },
    { "axis", required_argument, NULL, 'a' },
    { "device", required_argument, NULL, 'd' },
    { "output", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, OPT_FORCE },
    { "quick", no_argument, NULL, OPT_QUICK },
    { "quiet", no_argument, NULL, 'q' },
    { "wide", no_argument, NULL, OPT_WIDE },
    { "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
    { "max-samples", required_argument, NULL, OPT_MAX_SAMPLES },
    { "max-noise", required_argument, NULL, OPT_MAX_NOISE },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "seed", required_argument, NULL, OPT_SEED },
    { "predict", required_argument, NULL, OPT_PREDICT },
    { "no-optin", no_argument, NULL, OPT_NO_OPTIN },
    { "require-gpu", no_argument, NULL, OPT_REQUIRE_GPU },
    { "check", no_argument, NULL, OPT_CHECK },
    { "cold", no_argument, NULL, OPT_COLD },
    { "trials", required_argument, NULL, OPT_TRIALS },
    { "order-seed", required_argument, NULL, OPT_ORDER_SEED },
    { "kernel", required_argument, NULL, OPT_KERNEL },
    { "launch", required_argument, NULL, OPT_LAUNCH },
    { "watchdog", required_argument, NULL, OPT_WATCHDOG },
    { "counters", optional_argument, NULL, OPT_COUNTERS },
    { NULL, 0, NULL, 0 },
};

void smem_cli_usage(FILE *f)
{
    fprintf(f, "usage: smembench --sweep NAME[,NAME...] [options]\n"
          "       smembench --bench NAME [--axis NAME=LIST]... [options]\n"
          "       smembench --predict MODEL --sweep NAME[,NAME...]   (no GPU needed; --list marks the sweeps)\n"
          "       smembench --kernel FILE --launch DESC.json [--sweep carveout,dynamic,block,cluster,axes]\n"
          "       smembench --kernel FILE --list\n"
          "\n"
          "Measures GPU shared memory: bandwidth, latency, bank conflicts, occupancy against the\n"
          "L1/shared carveout and the dynamic allocation size. Results go to a JSON file and a table.\n"
          "\n"
          "  -s, --sweep NAME[,NAME]  named sweeps (--list shows them)\n"
          "  -b, --bench NAME         one benchmark with its default axes\n"
          "      --kernel FILE        your own kernel: a cubin, fatbin or PTX file (with --launch; --list\n"
          "                           lists its kernels); its sweeps: carveout, dynamic (the default),\n"
          "                           block, cluster, axes, all\n"
          "      --launch DESC.json   the launch description of --kernel (results/launch.schema.json)\n"
          "      --watchdog SEC       a user kernel's first launch still running after SEC seconds is a\n"
          "                           hang: the run stops there, the file keeps what ran (default 10)\n"
          "  -a, --axis NAME=LIST     override an axis: 1,2,4  0:100:10  1:1024:*2  48K (repeatable)\n"
          "  -d, --device N|N,M|all   CUDA device(s) (default 0); several run at once, one thread each\n"
          "  -o, --output FILE        result file ('-' for stdout, /dev/null to discard); default\n"
          "                           <gpu>_<yyyymmdd>_<sweep>.json, or _2, _3, ... when taken\n"
          "      --force              replace FILE if it is a regular file (never done otherwise)\n"
          "      --quick              bounded axes and a fixed sample count, for CI\n"
          "      --min-samples N      samples per point before stopping is considered (default 10)\n"
          "      --max-samples N      hard cap on samples per point (default 1000)\n"
          "      --max-noise PCT      stop once relative noise is below PCT percent (default 0.5)\n"
          "      --timeout SEC        stop sampling a point after SEC seconds (default 1)\n"
          "      --seed N             seed of the random inputs (default 1)\n"
          "      --trials N           trials per point, each a fresh setup, warm-up and sampling, in a\n"
          "                           shuffled order across the run; verified once (default 3)\n"
          "      --order-seed N       seed of the trials' shuffled order (default: new in every process)\n"
          "      --predict MODEL      occupancy only, for a built-in GPU model ('list' shows them)\n"
          "      --no-optin           do not raise the dynamic shared-memory limit above 48 KiB\n"
          "      --require-gpu        fail (exit 3) instead of falling back to predict mode\n"
          "      --check              launch and verify every point once, time nothing (for compute-sanitizer)\n"
          "      --cold               flush L2 before every sample (kernels that read global memory)\n"
          "      --counters [LIST]    hardware counters per point (CUPTI), in passes of their own after\n"
          "                           the point is timed: the default set (--list shows it), or metric\n"
          "                           names as ncu --metrics takes them, \"default\" for the set%s\n"
          "  -q, --quiet              no table, no progress, nothing on success\n"
          "      --wide               table lines as long as their cells (default: at most 100\n"
          "                           characters, a cut cell ending in '~')\n"
          "  -l, --list               list benchmarks, axes, defaults and sweeps\n"
          "      --json               with --list: the same as one JSON document, for scripts\n"
          "  -V, --version            print the version\n"
          "  -h, --help               print this help\n"
          "\n"
          "Exit status: 0 all points ran, 1 a point failed or the results (or --help, --list...)\n"
          "could not be written (a closed or full stdout too), 2 bad command line or an -o FILE\n"
          "that cannot be made (nothing run or written), 3 no GPU where one is needed,\n"
          "128+N a signal ended the run (129 HUP, 130 INT, 131 QUIT, 141 PIPE, 143 TERM, 153 XFSZ;\n"
          "the finished points are written; a second HUP/INT/QUIT/TERM leaves nothing).\n",
          smem_counters_built_in() ? "" : " (not built in)");
}

static int bad_value(const char *opt, const char *arg, const char *expected)
{
    smem_error("invalid value \"%s\" for %s; expected %s", arg, opt, expected);
    return SMEM_EINVAL;
}

static int parse_long(const char *opt, const char *arg, long long min, long long max, long long *out)
{
    char *end;
    char expected[96];

    smem_fmt(expected, sizeof(expected), "an integer in %lld..%lld", min, max);
    errno = 0;
    if (!*arg)
        return bad_value(opt, arg, expected);
    *out = strtoll(arg, &end, 10);
    if (errno || *end || *out < min || *out > max)
        return bad_value(opt, arg, expected);
    return SMEM_OK;
}

static int parse_double(const char *opt, const char *arg, double min_excl, double max, double *out)
{
    char *end;
    char expected[96];

    smem_fmt(expected, sizeof(expected), "a number above %g and at most %g", min_excl, max);
    errno = 0;
    if (!*arg)
        return bad_value(opt, arg, expected);
    *out = strtod(arg, &end);
    if (errno || *end || !isfinite(*out) || *out <= min_excl || *out > max)
        return bad_value(opt, arg, expected);
    return SMEM_OK;
}

/* Copies s into o->storage and returns the copy, or NULL when full. */
static char *keep(struct smem_options *o, size_t *used, const char *s, size_t len)
{
    char *dst = o->storage + *used;

    if (*used + len + 1 > sizeof(o->storage))
        return NULL;
    memcpy(dst, s, len);
    dst[len] = '\0';
    *used += len + 1;
    return dst;
}

int smem_cli_parse_devices(const char *text, int *devices, int max, int *n, bool *all)
{
    static const char *expected = "a device number 0..1023, a list of distinct numbers (0,2), or all";
    const char *s = text;

    *n = 0;
    *all = false;
    if (!strcmp(text, "all")) {
        *all = true;
        return SMEM_OK;
    }
    for (;;) {
        const char *comma = strchr(s, ',');
        char item[16];
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        long long v;
        char *end;

        if (!len || len >= sizeof(item))
            return bad_value("--device", text, expected);
        memcpy(item, s, len);
        item[len] = '\0';
        errno = 0;
        v = strtoll(item, &end, 10);
        if (errno || *end || item[0] == '-' || item[0] == '+' || v < 0 || v > 1023)
            return bad_value("--device", text, expected);
        for (int i = 0; i < *n; i++)
            if (devices[i] == v) {
                smem_error("invalid value \"%s\" for --device: device %lld is listed twice", text, v);
                return SMEM_EINVAL;
            }
        if (*n == max)
            return bad_value("--device", text, "at most 64 devices");
        devices[(*n)++] = (int)v;
        if (!comma)
            break;
        s = comma + 1;
    }
    return SMEM_OK;
}

static int parse_sweeps(struct smem_options *o, size_t *used, const char *arg)
{
    const char *s = arg;

    if (o->n_sweeps) {
        smem_error("--sweep given twice; name several sweeps in one: --sweep a,b");
        return SMEM_EINVAL;
    }
    smem_fmt(o->sweep_text, sizeof(o->sweep_text), "%s", arg);
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (!len)
            return bad_value("--sweep", arg, "sweep names separated by commas (--list shows them)");
        if (o->n_sweeps == SMEM_MAX_SWEEPS)
            return bad_value("--sweep", arg, "at most 16 sweeps");
        if (!(o->sweeps[o->n_sweeps++] = keep(o, used, s, len)))
            return bad_value("--sweep", arg, "a shorter list");
        if (!comma)
            break;
        s = comma + 1;
    }
    return SMEM_OK;
}

static int parse_axis(struct smem_options *o, size_t *used, const char *arg)
{
    const char *eq = strchr(arg, '=');

    if (!eq || eq == arg || !eq[1])
        return bad_value("--axis", arg, "NAME=LIST, as in carveout_pct=0:100:10");
    if (o->n_overrides == SMEM_MAX_OVERRIDES)
        return bad_value("--axis", arg, "at most 16 --axis options");
    for (size_t i = 0; i < o->n_overrides; i++)
        if (strlen(o->overrides[i].name) == (size_t)(eq - arg) && !strncmp(o->overrides[i].name, arg, (size_t)(eq - arg))) {
            smem_error("--axis %s given twice; give all its values in one list: %s=1,2,4", o->overrides[i].name,
                       o->overrides[i].name);
            return SMEM_EINVAL;
        }
    o->overrides[o->n_overrides].name = keep(o, used, arg, (size_t)(eq - arg));
    o->overrides[o->n_overrides].list = eq + 1;
    if (!o->overrides[o->n_overrides].name)
        return bad_value("--axis", arg, "a shorter name");
    o->n_overrides++;
    return SMEM_OK;
}

int smem_cli_check_output(const char *path, bool force)
{
    return smem_output_check(path, force);
}

const char *smem_cli_measuring_option(const struct smem_options *o)
{
    if (o->check)
        return "--check";
    if (o->cold)
        return "--cold";
    if (o->device_given)
        return "--device";
    if (o->counters.on)
        return "--counters";
    return NULL;
}

int smem_cli_parse(int argc, char **argv, struct smem_options *o)
{
    size_t used = 0;
    long long v;
    int c;
    bool seen_device = false, seen_output = false;

    memset(o, 0, sizeof(*o));
    o->min_samples = 10;
    o->max_samples = 1000;
    o->max_noise = 0.005;
    o->timeout_s = 1.0;
    o->seed = 1;
    o->trials = SMEM_TRIALS_DEFAULT;
    o->n_devices = 1;   /* device 0 */
    o->watchdog_s = 10;
    bool min_given = false;

    opterr = 0;
    optind = 0;   /* 0, not 1: glibc then also resets its position inside a cluster of short options */
    while ((c = getopt_long(argc, argv, ":hVls:b:a:d:o:q", long_options, NULL)) != -1) {
        const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "";
        switch (c) {
        case 'h': o->help = true; break;
        case 'V': o->version = true; break;
        case 'l': o->list = true; break;
        case OPT_JSON: o->json = true; break;
        case 'q': o->quiet = true; break;
        case OPT_WIDE: o->wide = true; break;
        case OPT_QUICK: o->quick = true; break;
        case OPT_FORCE: o->force = true; break;
        case OPT_NO_OPTIN: o->no_optin = true; break;
        case OPT_REQUIRE_GPU: o->require_gpu = true; break;
        case OPT_CHECK: o->check = true; break;
        case OPT_COLD: o->cold = true; break;
        case 's':
            if (parse_sweeps(o, &used, optarg))
                return SMEM_EINVAL;
            break;
        case 'b':
            if (o->bench) {
                smem_error("--bench given twice; run one benchmark, or a sweep for several");
                return SMEM_EINVAL;
            }
            if (!*optarg)
                return bad_value("--bench", optarg, "a benchmark name (--list shows them)");
            o->bench = optarg;
            break;
        case 'a':
            if (parse_axis(o, &used, optarg))
                return SMEM_EINVAL;
            break;
        case 'd':
            if (seen_device) {
                smem_error("--device given twice; list several devices in one: --device 0,1 or --device all");
                return SMEM_EINVAL;
            }
            seen_device = o->device_given = true;
            if (smem_cli_parse_devices(optarg, o->devices, SMEM_MAX_DEVICES, &o->n_devices, &o->all_devices))
                return SMEM_EINVAL;
            break;
        case 'o':
            if (seen_output) {
                smem_error("--output given twice; give one result file");
                return SMEM_EINVAL;
            }
            seen_output = true;
            o->output = optarg;
            break;
        case OPT_MIN_SAMPLES:
            if (parse_long("--min-samples", optarg, 1, 100000, &v))
                return SMEM_EINVAL;
            o->min_samples = (int)v;
            min_given = true;
            break;
        case OPT_MAX_SAMPLES:
            if (parse_long("--max-samples", optarg, 1, 100000, &v))
                return SMEM_EINVAL;
            o->max_samples = (int)v;
            break;
        case OPT_MAX_NOISE:
            if (parse_double("--max-noise", optarg, 0, 100, &o->max_noise))
                return SMEM_EINVAL;
            o->max_noise /= 100;
            break;
        case OPT_TIMEOUT:
            if (parse_double("--timeout", optarg, 0, 3600, &o->timeout_s))
                return SMEM_EINVAL;
            break;
        case OPT_SEED:
            if (parse_long("--seed", optarg, 0, LLONG_MAX, &v))
                return SMEM_EINVAL;
            o->seed = (uint64_t)v;
            break;
        case OPT_TRIALS:
            if (parse_long("--trials", optarg, 1, SMEM_TRIALS_MAX, &v))
                return SMEM_EINVAL;
            o->trials = (int)v;
            break;
        case OPT_ORDER_SEED:
            if (parse_long("--order-seed", optarg, 0, LLONG_MAX, &v))
                return SMEM_EINVAL;
            o->order_seed = (uint64_t)v;
            o->order_seed_given = true;
            break;
        case OPT_KERNEL:
            if (o->kernel) {
                smem_error("--kernel given twice; one code file per run");
                return SMEM_EINVAL;
            }
            if (!*optarg)
                return bad_value("--kernel", optarg, "a cubin, fatbin or PTX file");
            o->kernel = optarg;
            break;
        case OPT_LAUNCH:
            if (o->launch) {
                smem_error("--launch given twice; one launch description per run");
                return SMEM_EINVAL;
            }
            if (!*optarg)
                return bad_value("--launch", optarg, "a launch description file (JSON)");
            o->launch = optarg;
            break;
        case OPT_COUNTERS: {
            /* --counters=LIST, or --counters LIST where the next word reads as a list of metric
             * names (each holds a double underscore, as every CUPTI name does), or the default set */
            const char *list = optarg;
            char why[256];
            if (!list && optind < argc && smem_counters_looks_like_list(argv[optind]))
                list = argv[optind++];
            if (o->counters.on) {
                smem_error("--counters given twice; give one list");
                return SMEM_EINVAL;
            }
            if (smem_counters_parse(list, &o->counters, why, sizeof(why))) {
                smem_error("invalid value \"%s\" for --counters: %s; expected metric names as ncu --metrics "
                           "takes them, or default", list ? list : "", why);
                return SMEM_EINVAL;
            }
            break;
        }
        case OPT_WATCHDOG:
            if (parse_double("--watchdog", optarg, 0.1, 3600, &o->watchdog_s))
                return SMEM_EINVAL;
            break;
        case OPT_PREDICT:
            if (o->predict) {
                smem_error("--predict given twice; give one model");
                return SMEM_EINVAL;
            }
            if (!*optarg)
                return bad_value("--predict", optarg, "a model name ('--predict list' shows them)");
            o->predict = optarg;
            break;
        case ':':
            smem_error("option %s needs a value", opt);
            return SMEM_EINVAL;
        default:
            if (optopt && optopt < 256)
                smem_error("unknown option \"-%c\"", optopt);
            else
                smem_error("unknown option \"%s\"", opt);
            return SMEM_EINVAL;
        }
    }
    if (optind < argc) {
        smem_error("unexpected argument \"%s\"; options take their values as --name VALUE", argv[optind]);
        return SMEM_EINVAL;
    }
    if (o->launch && !o->kernel) {
        smem_error("--launch describes the launch of a user kernel; give its code file with --kernel FILE");
        return SMEM_EINVAL;
    }
    if (o->kernel && o->bench) {
        smem_error("--kernel and --bench cannot be combined; --kernel runs the user kernel's own sweeps");
        return SMEM_EINVAL;
    }
    if (o->json && (!o->list || o->kernel)) {
        smem_error("--json changes what --list prints; give it with --list (the benchmarks and sweeps)");
        return SMEM_EINVAL;
    }
    if (o->help || o->version || o->list || (o->predict && !strcmp(o->predict, "list")))
        return SMEM_OK;
    if (o->bench && o->n_sweeps) {
        smem_error("--bench and --sweep cannot be combined; give one of them");
        return SMEM_EINVAL;
    }
    if (o->predict && o->require_gpu) {
        smem_error("--predict and --require-gpu cannot be combined; predict mode needs no GPU");
        return SMEM_EINVAL;
    }
    if (o->check && o->cold) {
        smem_error("--check and --cold cannot be combined; --check times nothing");
        return SMEM_EINVAL;
    }
    if (o->predict && o->cold) {
        smem_error("--predict and --cold cannot be combined; predict mode times nothing");
        return SMEM_EINVAL;
    }
    if (o->predict && o->check) {
        smem_error("--predict and --check cannot be combined; predict mode launches nothing");
        return SMEM_EINVAL;
    }
    if (o->predict && o->counters.on) {
        smem_error("--predict and --counters cannot be combined; predict mode launches nothing to count");
        return SMEM_EINVAL;
    }
    if (o->check && o->counters.on) {
        smem_error("--check and --counters cannot be combined; --check times nothing (counters come after a point is timed)");
        return SMEM_EINVAL;
    }
    if (o->predict && seen_device) {
        smem_error("--predict and --device cannot be combined; predict mode uses a model, not a device");
        return SMEM_EINVAL;
    }
    if (o->quick && !min_given)
        o->min_samples = 10;   /* what compare.py's rule needs to decide: README, Result files */
    if (o->max_samples < o->min_samples) {
        smem_error("--max-samples %d is below --min-samples %d; expected max >= min", o->max_samples, o->min_samples);
        return SMEM_EINVAL;
    }
    if (!o->bench && !o->n_sweeps && !o->kernel) {
        smem_error("nothing to run; give --sweep NAME or --bench NAME (--list shows them)");
        return SMEM_EINVAL;
    }
    if (o->output && smem_cli_check_output(o->output, o->force))
        return SMEM_EINVAL;
    return SMEM_OK;
}
