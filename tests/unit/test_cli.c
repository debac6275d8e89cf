/* The command line: every bad-input case gets SMEM_EINVAL and one line naming the problem; good
 * input sets the options. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli.h"
#include "smem.h"

static struct smem_options opts;

#define PARSE(...)                                                              \
    ({                                                                          \
        char *argv_[] = { "smembench", __VA_ARGS__, NULL };                     \
        smem_cli_parse((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, &opts); \
    })

/* The single line a rejected command line printed. */
static void expect_one_line(const char *needle)
{
    char buf[1024] = "", extra[1024];
    FILE *f;

    fflush(stderr);
    f = cr_get_redirected_stderr();
    cr_assert(fgets(buf, sizeof(buf), f), "no message");
    cr_assert(strncmp(buf, "smembench: ", 11) == 0, "%s", buf);
    cr_assert(strstr(buf, needle), "expected \"%s\" in: %s", needle, buf);
    cr_assert_null(fgets(extra, sizeof(extra), f), "more than one line: %s", extra);
}

Test(cli, defaults)
{
    cr_assert_eq(PARSE("--sweep", "carveout"), 0);
    cr_assert_eq(opts.n_sweeps, 1);
    cr_assert_str_eq(opts.sweeps[0], "carveout");
    cr_assert_eq(opts.min_samples, 10);
    cr_assert_eq(opts.max_samples, 1000);
    cr_assert_float_eq(opts.max_noise, 0.005, 1e-12);
    cr_assert_float_eq(opts.timeout_s, 1.0, 1e-12);
    cr_assert_eq(opts.seed, 1);
    cr_assert_eq(opts.n_devices, 1);
    cr_assert_eq(opts.devices[0], 0, "device 0 by default");
    cr_assert_not(opts.all_devices);
    cr_assert_null(opts.output);
}

Test(cli, every_option)
{
    cr_assert_eq(PARSE("-s", "bank,bandwidth", "-a", "stride_elems=1:4", "-a", "width_bytes=4", "-d", "0", "-o", "-",
                       "--min-samples", "20", "--max-samples", "50", "--max-noise", "1.5", "--timeout", "2.5",
                       "--seed", "7", "--quiet", "--no-optin"), 0);
    cr_assert_eq(opts.n_sweeps, 2);
    cr_assert_str_eq(opts.sweeps[1], "bandwidth");
    cr_assert_eq(opts.n_overrides, 2);
    cr_assert_str_eq(opts.overrides[0].name, "stride_elems");
    cr_assert_str_eq(opts.overrides[0].list, "1:4");
    cr_assert_eq(opts.min_samples, 20);
    cr_assert_eq(opts.max_samples, 50);
    cr_assert_float_eq(opts.max_noise, 0.015, 1e-12);
    cr_assert_float_eq(opts.timeout_s, 2.5, 1e-12);
    cr_assert_eq(opts.seed, 7);
    cr_assert(opts.quiet && opts.no_optin);
    cr_assert_str_eq(opts.output, "-");
}

Test(cli, quick_uses_a_small_fixed_count)
{
    cr_assert_eq(PARSE("--sweep", "bank", "--quick"), 0);
    cr_assert(opts.quick);
    cr_assert_eq(opts.min_samples, 10);
}

Test(cli, help_list_version_need_nothing_else)
{
    cr_assert_eq(PARSE("--help"), 0);
    cr_assert(opts.help);
    cr_assert_eq(PARSE("--list"), 0);
    cr_assert_eq(PARSE("--version"), 0);
    cr_assert_eq(PARSE("--predict", "list"), 0);
}

Test(cli, rejects_unknown_option, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--frobnicate"), 0);
    expect_one_line("unknown option \"--frobnicate\"");
}

Test(cli, rejects_unknown_short_option, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("-z"), 0);
    expect_one_line("unknown option \"-z\"");
}

Test(cli, rejects_missing_value, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep"), 0);
    expect_one_line("needs a value");
}

Test(cli, rejects_stray_argument, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "carveout"), 0);
    expect_one_line("unexpected argument \"carveout\"");
}

Test(cli, rejects_nothing_to_run, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--quiet"), 0);
    expect_one_line("nothing to run");
}

Test(cli, rejects_zero_min_samples, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--min-samples", "0"), 0);
    expect_one_line("invalid value \"0\" for --min-samples; expected an integer in 1..100000");
}

Test(cli, rejects_overflowing_min_samples, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--min-samples", "99999999999999999999"), 0);
    expect_one_line("--min-samples");
}

Test(cli, rejects_max_below_min, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--min-samples", "20", "--max-samples", "10"), 0);
    expect_one_line("--max-samples 10 is below --min-samples 20");
}

Test(cli, rejects_negative_device, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--device", "-1"), 0);
    expect_one_line("for --device");
}

Test(cli, rejects_device_given_twice, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "-d", "0", "-d", "1"), 0);
    expect_one_line("--device given twice");
}

Test(cli, rejects_noise_out_of_range, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--max-noise", "0"), 0);
    expect_one_line("--max-noise");
}

Test(cli, rejects_noise_not_a_number, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--max-noise", "nan"), 0);
    expect_one_line("--max-noise");
}

Test(cli, rejects_timeout_with_junk, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--timeout", "1s"), 0);
    expect_one_line("invalid value \"1s\" for --timeout");
}

Test(cli, rejects_negative_seed, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--seed", "-3"), 0);
    expect_one_line("--seed");
}

Test(cli, rejects_sweep_twice, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--sweep", "latency"), 0);
    expect_one_line("--sweep given twice");
}

Test(cli, rejects_empty_sweep_item, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank,,latency"), 0);
    expect_one_line("for --sweep");
}

Test(cli, rejects_bench_with_sweep, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--bench", "latency"), 0);
    expect_one_line("--bench and --sweep cannot be combined");
}

Test(cli, rejects_axis_without_value, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--axis", "stride_elems="), 0);
    expect_one_line("NAME=LIST");
}

Test(cli, rejects_axis_without_name, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--axis", "=4"), 0);
    expect_one_line("NAME=LIST");
}

Test(cli, rejects_predict_with_require_gpu, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "carveout", "--predict", "h100", "--require-gpu"), 0);
    expect_one_line("cannot be combined");
}

Test(cli, rejects_predict_with_device, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "carveout", "--predict", "h100", "--device", "0"), 0);
    expect_one_line("cannot be combined");
}

Test(cli, rejects_existing_output_unless_forced, .init = cr_redirect_stderr)
{
    char dir[] = "/tmp/smemcliXXXXXX", path[256];
    FILE *f;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/old.json", dir);
    f = fopen(path, "w");
    fputs("keep", f);
    fclose(f);
    cr_assert_eq(PARSE("--sweep", "bank", "-o", path, "--force"), 0);
    cr_assert_lt(PARSE("--sweep", "bank", "-o", path), 0);
    expect_one_line("already exists");
    unlink(path);
    rmdir(dir);
}

Test(cli, rejects_output_in_missing_directory, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "-o", "/nonexistent/dir/r.json"), 0);
    expect_one_line("does not exist");
}

Test(cli, rejects_output_that_is_a_directory, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "-o", "/tmp", "--force"), 0);
    expect_one_line("is a directory");
}

Test(cli, rejects_output_ending_in_slash, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "-o", "/tmp/"), 0);
    expect_one_line("expected a file name");
}

static int devices_of(const char *text, int *d, int *n, bool *all)
{
    return smem_cli_parse_devices(text, d, SMEM_MAX_DEVICES, n, all);
}

Test(devices, one_several_and_all)
{
    int d[SMEM_MAX_DEVICES], n;
    bool all;

    cr_assert_eq(devices_of("3", d, &n, &all), 0);
    cr_assert(n == 1 && d[0] == 3 && !all);
    cr_assert_eq(devices_of("0,2,7", d, &n, &all), 0);
    cr_assert(n == 3 && d[0] == 0 && d[1] == 2 && d[2] == 7, "in the order given");
    cr_assert_eq(devices_of("all", d, &n, &all), 0);
    cr_assert(all && n == 0);
    cr_assert_eq(PARSE("--sweep", "bank", "--device", "1,0"), 0);
    cr_assert(opts.n_devices == 2 && opts.devices[0] == 1 && opts.devices[1] == 0);
}

Test(devices, rejects_malformed_lists, .init = cr_redirect_stderr)
{
    static const char *bad[] = { "", ",", "0,", ",1", "0,,1", "-1", "+1", "1024", "x", "1.5", "al", "all,0", "0 1",
                                 "99999999999999999999" };
    int d[SMEM_MAX_DEVICES], n;
    bool all;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_lt(devices_of(bad[i], d, &n, &all), 0, "\"%s\" should be rejected", bad[i]);
}

Test(devices, rejects_a_device_listed_twice, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "bank", "--device", "0,1,0"), 0);
    expect_one_line("device 0 is listed twice");
}

Test(cli, rejects_an_axis_given_twice, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "carveout", "-a", "carveout_pct=0", "-a", "carveout_pct=100"), 0);
    expect_one_line("--axis carveout_pct given twice");
}

Test(cli, rejects_predict_with_cold, .init = cr_redirect_stderr)
{
    cr_assert_lt(PARSE("--sweep", "tile", "--predict", "h100", "--cold"), 0);
    expect_one_line("--predict and --cold cannot be combined");
}

Test(cli, names_the_options_only_a_measuring_run_honours)
{
    cr_assert_eq(PARSE("--sweep", "tile"), 0);
    cr_assert_null(smem_cli_measuring_option(&opts), "nothing asks for a GPU");
    cr_assert_eq(PARSE("--sweep", "tile", "--device", "0"), 0);
    cr_assert_str_eq(smem_cli_measuring_option(&opts), "--device", "even device 0, the default, given explicitly");
    cr_assert_eq(PARSE("--sweep", "tile", "--cold"), 0);
    cr_assert_str_eq(smem_cli_measuring_option(&opts), "--cold");
    cr_assert_eq(PARSE("--sweep", "tile", "--check"), 0);
    cr_assert_str_eq(smem_cli_measuring_option(&opts), "--check");
}

Test(cli, rejects_a_fifo_as_output_even_with_force, .init = cr_redirect_stderr)
{
    char dir[] = "/tmp/smemcliXXXXXX", path[64];

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/fifo", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    cr_assert_lt(PARSE("--sweep", "carveout", "-o", path, "--force"), 0);
    expect_one_line("it is a FIFO, not a regular file");
    unlink(path);
    rmdir(dir);
}

Test(cli, counters_alone_is_the_default_set)
{
    cr_assert_eq(PARSE("--sweep", "carveout", "--counters"), 0);
    cr_assert(opts.counters.on);
    cr_assert(opts.counters.default_set);
    cr_assert_eq(opts.counters.n, smem_counters_n_default);
    cr_assert_str_eq(opts.counters.names[0], smem_counters_default[0].name);
}

Test(cli, counters_takes_a_list_as_the_next_word_or_after_an_equals_sign)
{
    cr_assert_eq(PARSE("--counters", "l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum", "--sweep", "carveout"), 0);
    cr_assert_not(opts.counters.default_set);
    cr_assert_eq(opts.counters.n, 2);
    cr_assert_str_eq(opts.counters.names[1], "dram__bytes_read.sum");
    cr_assert_eq(PARSE("--sweep", "carveout", "--counters=default,lts__t_sectors.sum,dram__bytes_read.sum"), 0);
    cr_assert(opts.counters.default_set);
    cr_assert_eq(opts.counters.n, smem_counters_n_default + 1, "dram__bytes_read.sum is in the set already: once");
    /* a word that is not a list is not taken: here the option's own value is missing */
    cr_assert_eq(PARSE("--counters", "--sweep", "carveout"), 0);
    cr_assert(opts.counters.default_set);
}

Test(cli, rejects_a_bad_counters_list, .init = cr_redirect_stderr)
{
    cr_assert_eq(PARSE("--sweep", "carveout", "--counters=l1tex__x.sum,bad name"), SMEM_EINVAL);
    expect_one_line("for --counters");
}

Test(cli, rejects_counters_twice, .init = cr_redirect_stderr)
{
    cr_assert_eq(PARSE("--sweep", "carveout", "--counters", "--counters=dram__bytes_read.sum"), SMEM_EINVAL);
    expect_one_line("--counters given twice");
}

Test(cli, rejects_counters_in_predict_mode, .init = cr_redirect_stderr)
{
    cr_assert_eq(PARSE("--predict", "h100", "--sweep", "carveout", "--counters"), SMEM_EINVAL);
    expect_one_line("--predict and --counters cannot be combined");
}

Test(cli, rejects_counters_with_check, .init = cr_redirect_stderr)
{
    cr_assert_eq(PARSE("--check", "--sweep", "carveout", "--counters"), SMEM_EINVAL);
    expect_one_line("--check and --counters cannot be combined");
}

Test(cli, counters_need_a_gpu)
{
    cr_assert_eq(PARSE("--sweep", "carveout", "--counters"), 0);
    cr_assert_str_eq(smem_cli_measuring_option(&opts), "--counters");
}

Test(counters, a_list_is_names_with_double_underscores)
{
    cr_assert(smem_counters_looks_like_list("l1tex__t_sector_hit_rate.pct"));
    cr_assert(smem_counters_looks_like_list("default,dram__bytes_read.sum"));
    cr_assert_not(smem_counters_looks_like_list("carveout"));
    cr_assert_not(smem_counters_looks_like_list("--sweep"));
    cr_assert_not(smem_counters_looks_like_list("dram__bytes_read.sum,bank"));
}

Test(counters, the_default_set_says_unit_kind_and_meaning_of_each)
{
    struct smem_counters_request req;
    char why[256];

    cr_assert_geq(smem_counters_n_default, 20);
    for (size_t i = 0; i < smem_counters_n_default; i++) {
        const struct smem_counter_spec *c = &smem_counters_default[i];
        cr_assert(strstr(c->name, "__"), "%s", c->name);
        cr_assert(c->unit[0] && c->meaning[0], "%s", c->name);
        cr_assert(!strcmp(c->kind, "counter") || !strcmp(c->kind, "ratio"), "%s: %s", c->name, c->kind);
        /* a count is a sum over the launch; a rate is a percentage or a ratio */
        cr_assert_eq(!strcmp(c->kind, "counter"), strstr(c->name, ".sum") != NULL, "%s", c->name);
    }
    cr_assert_eq(smem_counters_parse("", &req, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_eq(smem_counters_parse("a,,b", &req, why, sizeof(why)), SMEM_EINVAL);
}

Test(cli, help_says_whether_counters_are_built_in)
{
    /* a build without CUPTI's headers (the ASan build: no CUDA) still takes --counters, and --help
     * says the option is not built in; a CUPTI build says nothing of the kind */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    cr_assert_not_null(f);
    smem_cli_usage(f);
    fclose(f);
    cr_assert_eq(strstr(text, "(not built in)") != NULL, !smem_counters_built_in(), "%s", text);
    free(text);
}
