/* The console table after a run and --list: every column as wide as its longest cell (a long
 * benchmark name and long parameters no longer push the columns apart), and a value that is an
 * integer printed as one (alloc_bytes=16384, never 1.638e+04). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include "arch.h"
#include "list.h"
#include "smem.h"
#include "result.h"
#include "table.h"

#define MAX_LINES 64

struct out {
    char *text;
    size_t size;
    char *line[MAX_LINES];
    size_t n;
};

/* Splits what f printed into lines (in place). */
static void lines(struct out *o, FILE *f)
{
    char *s;

    fclose(f);
    o->n = 0;
    for (s = o->text; *s && o->n < MAX_LINES;) {
        char *nl = strchr(s, '\n');
        o->line[o->n++] = s;
        if (!nl)
            break;
        *nl = '\0';
        s = nl + 1;
    }
}

/* Where label starts in the header line (it occurs once). */
static size_t column(const char *header, const char *label)
{
    const char *at = strstr(header, label);

    cr_assert_not_null(at, "no column \"%s\" in: %s", label, header);
    cr_assert_null(strstr(at + 1, label), "column \"%s\" twice in: %s", label, header);
    return (size_t)(at - header);
}

/* The cell starts where its header does: left-aligned. */
static void starts_at(const char *row, size_t off, const char *cell)
{
    cr_assert(strlen(row) >= off + strlen(cell) && !strncmp(row + off, cell, strlen(cell)) &&
              (off == 0 || row[off - 1] == ' '),
              "\"%s\" does not start at column %zu in:\n%s", cell, off, row);
}

/* The cell ends where its header does: right-aligned. */
static void ends_at(const char *row, size_t end, const char *cell)
{
    size_t w = strlen(cell);

    cr_assert(end >= w && strlen(row) >= end && !strncmp(row + end - w, cell, w) &&
              (row[end] == ' ' || row[end] == '\0') && (end == w || row[end - w - 1] == ' '),
              "\"%s\" does not end at column %zu in:\n%s", cell, end, row);
}

static const int64_t one[] = { 1 };
static const struct smem_axis long_axes[] = {
    { .name = "a_very_long_axis_name_in_bytes", .unit = "bytes", .help = "", .defaults = one, .n_defaults = 1,
      .min = 0, .max = 1 << 30 },
    { .name = "another_rather_long_axis_count", .unit = "count", .help = "", .defaults = one, .n_defaults = 1,
      .min = 0, .max = 1 << 30 },
};
static const struct smem_axis short_axes[] = {
    { .name = "s", .unit = "x", .help = "", .defaults = one, .n_defaults = 1, .min = 0, .max = 9 },
};
static const struct smem_bench long_bench = {
    .name = "a_benchmark_name_much_longer_than_the_old_ten_columns", .summary = "the long one",
    .axes = long_axes, .n_axes = 2,
};
static const struct smem_bench short_bench = {
    .name = "b", .summary = "the short one", .axes = short_axes, .n_axes = 1,
};

static struct smem_device h200(void)
{
    struct smem_device d = { 0 };

    strcpy(d.name, "NVIDIA H200");
    d.cc_major = 9;
    d.sm_count = 132;
    d.smem_per_sm = 233472;
    d.smem_per_block_optin = 232448;
    return d;
}

Test(table, columns_fit_long_names_and_params)
{
    struct smem_point pts[3] = {
        { .bench = &long_bench, .values = { 1073741824, 123456789 } },
        { .bench = &short_bench, .values = { 3 } },
        { .bench = &long_bench, .values = { 0, 1 } },
    };
    struct smem_result res[3];
    struct smem_device dev = h200();
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    const char *params[3] = { "a_very_long_axis_name_in_bytes=1073741824 another_rather_long_axis_count=123456789",
                              "s=3", "a_very_long_axis_name_in_bytes=0 another_rather_long_axis_count=1" };
    const char *median[3] = { "1234.57", "2.00", "-" }, *status[3] = { "ok", "ok", "skipped" };
    size_t c_params, c_status, c_median, c_mhz, c_occ, c_carve, c_limiter, c_metrics;

    memset(res, 0, sizeof(res));
    for (int i = 0; i < 3; i++) {
        res[i].point = &pts[i];
        res[i].status = SMEM_POINT_OK;
        res[i].n_samples = 10;
        res[i].clock_mhz = 1980;
        res[i].carveout_requested = -1;
        res[i].occ.api = res[i].occ.predicted = res[i].occ.measured = 2;
        strcpy(res[i].occ.limiter, "shared_memory");
    }
    res[0].time_ns.median = 1234567;
    res[1].time_ns.median = 2000;
    res[1].carveout_requested = 100;
    strcpy(res[1].occ.limiter, "warps,registers");
    smem_metrics_add(&res[0].metrics, "alloc_bytes", "B", 16384, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(&res[0].metrics, "gbps", "GB/s", 1234.5678, 0, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(&res[1].metrics, "big_bytes", "B", 1048576.0 * 1024, 0, SMEM_LOWER_IS_BETTER);
    res[2].status = SMEM_POINT_SKIPPED;
    res[2].n_samples = 0;
    strcpy(res[2].reason, "cannot run here");
    cr_assert_not_null(f);
    smem_table_width = 0;       /* --wide: every column as wide as its cells */
    smem_table_print(f, &dev, res, 3);
    smem_table_width = SMEM_TABLE_WIDTH;
    lines(&o, f);
    cr_assert_geq(o.n, 5);

    const char *h = o.line[1];
    cr_assert_eq(column(h, "bench"), 0);
    c_params = column(h, "params");
    c_status = column(h, "status");
    c_median = column(h, "median_us") + strlen("median_us");
    c_mhz = column(h, "MHz") + strlen("MHz");
    c_occ = column(h, "blk/SM a/p/m");
    c_carve = column(h, "carve") + strlen("carve");
    c_limiter = column(h, "limiter");
    c_metrics = column(h, "metrics");
    /* the columns are as wide as their longest entry: one space after the longest name and params */
    cr_assert_eq(c_params, strlen(long_bench.name) + 1, "%s", h);
    cr_assert_eq(c_status, c_params + strlen(params[0]) + 1, "%s", h);
    for (int i = 0; i < 3; i++) {
        const char *row = o.line[2 + i];
        starts_at(row, 0, pts[i].bench->name);
        starts_at(row, c_params, params[i]);
        starts_at(row, c_status, status[i]);
        ends_at(row, c_median, median[i]);
        ends_at(row, c_mhz, i == 2 ? "-" : "1980");
        starts_at(row, c_occ, "2/2/2");
        ends_at(row, c_carve, i == 1 ? "100" : "dflt");
        starts_at(row, c_limiter, i == 1 ? "warps,registers" : "shared_memory");
        cr_assert(row[strlen(row) - 1] != ' ', "a trailing space: \"%s\"", row);
    }
    starts_at(o.line[2], c_metrics, "alloc_bytes=16384 B, gbps=1235 GB/s");
    starts_at(o.line[3], c_metrics, "big_bytes=1073741824 B");
    starts_at(o.line[4], c_metrics, "cannot run here");
    for (size_t i = 0; i < o.n; i++)
        cr_assert_null(strstr(o.line[i], "e+"), "an exponent: %s", o.line[i]);
    free(o.text);
}

Test(table, integers_print_without_exponent)
{
    char buf[64];

    smem_fmt_value(buf, sizeof(buf), 16384, 4);
    cr_assert_str_eq(buf, "16384");
    smem_fmt_value(buf, sizeof(buf), 1073741824.0, 6);
    cr_assert_str_eq(buf, "1073741824");
    smem_fmt_value(buf, sizeof(buf), -0.0, 4);
    cr_assert_str_eq(buf, "0");
    smem_fmt_value(buf, sizeof(buf), 1234.5678, 4);
    cr_assert_str_eq(buf, "1235");
    smem_fmt_value(buf, sizeof(buf), 0.000123456, 4);
    cr_assert_str_eq(buf, "0.0001235");
    smem_fmt_value(buf, sizeof(buf), 1.5e300, 4);
    cr_assert_str_eq(buf, "1.5e+300", "beyond 2^53 a double's integer is no longer exact: %%g");
}

Test(table, list_columns_fit_long_names)
{
    const struct smem_bench *benches[] = { &short_bench, &long_bench };
    const struct smem_sweep sweeps[] = { { "x", "a sweep", false }, { "sweep_with_a_name", "another", false } };
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    size_t col = strlen(long_bench.name) + 3, rows = 0;

    cr_assert_not_null(f);
    smem_list_benches_of(f, benches, 2, sweeps, 2);
    lines(&o, f);
    for (size_t i = 0; i < o.n; i++) {
        const char *l = o.line[i];
        const char *summary = NULL;
        if (strncmp(l, "  ", 2) || l[2] == ' ')
            continue;       /* a heading or an axis line */
        if (!strncmp(l + 2, "b ", 2))
            summary = "the short one";
        else if (!strncmp(l + 2, long_bench.name, strlen(long_bench.name)))
            summary = "the long one";
        else if (!strncmp(l + 2, "x ", 2))
            summary = "a sweep";
        else if (!strncmp(l + 2, "sweep_with_a_name ", 18))
            summary = "another";
        cr_assert_not_null(summary, "an unexpected line: %s", l);
        starts_at(l, col, summary);
        rows++;
    }
    cr_assert_eq(rows, 4);
    free(o.text);
}

Test(table, list_names_the_benchmarks_of_each_sweep)
{
    /* a sweep's benchmarks come from the descriptors that name it, not from its summary */
    static const struct smem_bench in_x = { .name = "member", .summary = "in x", .axes = short_axes, .n_axes = 1,
                                            .sweeps = { "x" } };
    const struct smem_bench *benches[] = { &short_bench, &in_x, &long_bench };
    const struct smem_sweep sweeps[] = { { "all", "every benchmark", true }, { "x", "a sweep", false } };
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    size_t i = 0;

    cr_assert_not_null(f);
    smem_list_benches_of(f, benches, 3, sweeps, 2);
    lines(&o, f);
    while (i < o.n && strncmp(o.line[i], "  x ", 4))
        i++;
    cr_assert_lt(i + 1, o.n, "no line for the sweep x");
    cr_assert_str_eq(o.line[i + 1], "    benchmarks: member");
    for (size_t k = 0; k < o.n; k++)
        if (!strncmp(o.line[k], "  all ", 6))
            cr_assert(k + 1 == o.n || strncmp(o.line[k + 1], "    benchmarks:", 15),
                      "\"all\" lists no benchmarks: it holds every one");
    free(o.text);
}

/* The string item name of every element of array a, comma-joined. */
static void names_of(const cJSON *a, char *buf, size_t len)
{
    const cJSON *e;

    buf[0] = 0;
    cJSON_ArrayForEach(e, a)
        smem_append(buf, len, ",", "%s", cJSON_IsString(e) ? e->valuestring
                                                           : cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")));
}

Test(table, list_json_is_the_registry)
{
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    const cJSON *benches, *sweeps, *e;
    cJSON *doc;
    char got[2048], want[2048];
    size_t i = 0;

    cr_assert_not_null(f);
    cr_assert_eq(smem_list_benches_json(f), 0);
    fclose(f);
    doc = cJSON_Parse(o.text);
    cr_assert_not_null(doc, "--list --json is not JSON: %.200s", o.text);
    benches = cJSON_GetObjectItem(doc, "benchmarks");
    sweeps = cJSON_GetObjectItem(doc, "sweeps");
    cr_assert_eq((size_t)cJSON_GetArraySize(benches), smem_n_benches);
    cJSON_ArrayForEach(e, benches) {
        const struct smem_bench *b = smem_benches[i++];
        const cJSON *axes = cJSON_GetObjectItem(e, "axes"), *ax;
        size_t a = 0;
        cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), b->name);
        cr_assert_eq((size_t)cJSON_GetArraySize(axes), b->n_axes, "%s", b->name);
        cJSON_ArrayForEach(ax, axes) {
            const struct smem_axis *d = &b->axes[a++];
            const cJSON *before = cJSON_GetObjectItem(ax, "before");
            cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(ax, "name")), d->name);
            cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(ax, "unit")), d->unit);
            cr_assert_eq((size_t)cJSON_GetArraySize(cJSON_GetObjectItem(ax, "defaults")), d->n_defaults);
            cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(ax, "max")), (double)d->max);
            if (d->before)
                cr_assert_eq(cJSON_GetNumberValue(before), (double)*d->before, "%s.%s", b->name, d->name);
            else
                cr_assert(cJSON_IsNull(before), "%s.%s has no value for older files", b->name, d->name);
        }
        cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "variation"), "unit_pct")),
                     b->variation.unit_pct);
    }
    cr_assert_eq((size_t)cJSON_GetArraySize(sweeps), smem_n_sweeps);
    i = 0;
    cJSON_ArrayForEach(e, sweeps) {
        const struct smem_sweep *sw = &smem_sweeps[i++];
        cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), sw->name);
        want[0] = 0;
        for (size_t k = 0; k < smem_n_benches; k++)
            if (smem_sweep_has(sw, smem_benches[k]))
                smem_append(want, sizeof(want), ",", "%s", smem_benches[k]->name);
        names_of(cJSON_GetObjectItem(e, "benchmarks"), got, sizeof(got));
        cr_assert_str_eq(got, want, "sweep %s", sw->name);
        cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(e, "predicts")), smem_sweep_predicts(sw), "sweep %s", sw->name);
    }
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(sweeps, 0), "name")), "all");
    /* archs: every row of core/arch.c with its unified L1 + shared size (what the Python side snapshots) */
    cr_assert_eq((size_t)cJSON_GetArraySize(cJSON_GetObjectItem(doc, "archs")), smem_n_archs);
    i = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "archs")) {
        const struct smem_arch *a = &smem_archs[i++];
        const cJSON *u = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "published"), "unified_l1_smem_bytes");
        smem_fmt(want, sizeof(want), "%d.%d", a->cc_major, a->cc_minor);
        cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(e, "cc")), want);
        cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(u, "value")), a->unified_kib * 1024.0, "cc %s", want);
    }
    cJSON_Delete(doc);
    free(o.text);
}

Test(table, model_list_columns_fit)
{
    struct smem_gpu_model models[2] = { { .key = "k" }, { .key = "a_long_model_key" } };
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    size_t cc = 0, sms = 0;

    strcpy(models[0].dev.name, "short");
    models[0].dev.cc_major = 9;
    models[0].dev.sm_count = 8;
    models[0].dev.smem_per_sm = 64 * 1024;
    strcpy(models[1].dev.name, "NVIDIA Some Very Long Product Name (model)");
    models[1].dev.cc_major = 10;
    models[1].dev.sm_count = 148;
    models[1].dev.smem_per_sm = 228 * 1024;
    cr_assert_not_null(f);
    smem_list_models_of(f, models, 2);
    lines(&o, f);
    cr_assert_eq(o.n, 3);
    for (size_t i = 1; i < 3; i++) {
        const char *l = o.line[i], *at = strstr(l, " cc "), *end = strstr(l, " SMs");
        cr_assert(at && end, "%s", l);
        if (i == 1) {
            cc = (size_t)(at - l);
            sms = (size_t)(end - l);
        }
        cr_assert_eq((size_t)(at - l), cc, "\"cc\" moved:\n%s\n%s", o.line[1], l);
        cr_assert_eq((size_t)(end - l), sms, "\"SMs\" moved:\n%s\n%s", o.line[1], l);
    }
    cr_assert_eq(cc, 2 + strlen("a_long_model_key") + 1 + strlen(models[1].dev.name));
    free(o.text);
}

/* The best line: per family and value of the best axis, the best verified point by the best metric. */
static const int64_t ns[] = { 1 };
static const struct smem_axis best_axes[] = {
    { .name = "n", .unit = "elements", .help = "", .defaults = ns, .n_defaults = 1, .min = 0, .max = 1 << 20 },
    { .name = "k", .unit = "x", .help = "", .defaults = ns, .n_defaults = 1, .min = 0, .max = 9 },
};
static const struct smem_bench fam_a = {
    .name = "fam_a", .summary = "", .axes = best_axes, .n_axes = 2, .best_family = "fam",
    .best_metric = "gflops", .best_axis = "n",
};
static const struct smem_bench fam_b = {
    .name = "fam_b", .summary = "", .axes = best_axes, .n_axes = 2, .best_family = "fam",
    .best_metric = "gflops", .best_axis = "n",
};

static const struct smem_bench latency_bench = {
    .name = "latency", .summary = "the one the published latency compares with", .axes = short_axes, .n_axes = 1,
};

/* Issue 52: lines of up to 356 characters, and the published block after every run, predict mode
 * included. By default a line is at most SMEM_TABLE_WIDTH (the widest text columns cut, ending in
 * '~'); the published block lists only what a benchmark of the run measured beside, and nothing
 * for a model. */
Test(table, lines_fit_100_columns_and_published_values_only_beside_a_measurement)
{
    struct smem_point pts[2] = {
        { .bench = &long_bench, .values = { 1073741824, 123456789 } },
        { .bench = &latency_bench, .values = { 3 } },
    };
    struct smem_result res[2];
    struct smem_device dev = h200();
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    bool cut = false, published = false, latency = false, others = false;

    memset(res, 0, sizeof(res));
    for (int i = 0; i < 2; i++) {
        res[i].point = &pts[i];
        res[i].status = SMEM_POINT_OK;
        res[i].n_samples = 10;
        res[i].clock_mhz = 1980;
        res[i].carveout_requested = -1;
        res[i].time_ns.median = 2000;
        res[i].occ.api = res[i].occ.predicted = res[i].occ.measured = 2;
        strcpy(res[i].occ.limiter, "registers,shared_memory");
        smem_metrics_add(&res[i].metrics, "a_long_metric_name_bytes", "B", 16384, 0, SMEM_LOWER_IS_BETTER);
        smem_metrics_add(&res[i].metrics, "another_long_metric_gbps", "GB/s", 1234.5, 0, SMEM_HIGHER_IS_BETTER);
    }
    cr_assert_not_null(f);
    cr_assert_eq(smem_table_width, 100);
    smem_table_print(f, &dev, res, 2);
    lines(&o, f);
    for (size_t i = 0; i < o.n; i++) {
        cr_assert_leq(strlen(o.line[i]), 100, "%zu characters: %s", strlen(o.line[i]), o.line[i]);
        cut |= strchr(o.line[i], '~') != NULL;
        published |= !strncmp(o.line[i], "published for cc 9.0", 20);
        latency |= strstr(o.line[i], "smem_load_latency_cycles") != NULL;
        others |= strstr(o.line[i], "smem_bytes_per_clock_per_sm") != NULL || strstr(o.line[i], "banks") != NULL;
    }
    cr_assert(cut, "the long cells are cut, marked '~'");
    cr_assert(published && latency && !others, "only the latency, which a latency point measured beside");
    free(o.text);
    /* a model (predict mode) measured nothing: no published block */
    o = (struct out){ 0 };
    f = open_memstream(&o.text, &o.size);
    dev.is_model = true;
    res[1].status = SMEM_POINT_PREDICTED;
    smem_table_print(f, &dev, res, 2);
    lines(&o, f);
    for (size_t i = 0; i < o.n; i++)
        cr_assert_null(strstr(o.line[i], "published for"), "%s", o.line[i]);
    free(o.text);
}

Test(table, names_the_best_verified_point_of_a_family_at_each_n)
{
    struct smem_point pts[5] = {
        { .bench = &fam_a, .values = { 2048, 1 } }, { .bench = &fam_b, .values = { 2048, 2 } },
        { .bench = &fam_a, .values = { 4096, 3 } }, { .bench = &fam_b, .values = { 4096, 4 } },
        { .bench = &short_bench, .values = { 5 } },
    };
    const double gflops[5] = { 100, 300, 900, 950, 5000 };
    struct smem_result res[5];
    struct smem_device dev = h200();
    struct out o = { 0 };
    FILE *f = open_memstream(&o.text, &o.size);
    size_t best = 0;

    memset(res, 0, sizeof(res));
    for (int i = 0; i < 5; i++) {
        res[i].point = &pts[i];
        res[i].status = SMEM_POINT_OK;
        res[i].verified = true;
        res[i].carveout_requested = -1;
        res[i].dyn_smem = 1000u * (unsigned)(i + 1);
        res[i].occ.api = res[i].occ.predicted = res[i].occ.measured = 1 + i % 2;
        smem_metrics_add(&res[i].metrics, "gflops", "GFLOP/s", gflops[i], 0, SMEM_HIGHER_IS_BETTER);
    }
    res[3].verified = false;   /* the fastest at 4096 computed something wrong: not the best */
    smem_table_print(f, &dev, res, 5);
    lines(&o, f);
    for (size_t i = 0; i < o.n; i++) {
        if (strncmp(o.line[i], "best ", 5))
            continue;
        if (best++ == 0) {
            cr_assert(strstr(o.line[i], "best fam at n=2048: fam_b n=2048 k=2: gflops=300 GFLOP/s; 2000 B shared/block, "
                                        "2/2/2 blocks/SM"), "%s", o.line[i]);
        } else {
            cr_assert(strstr(o.line[i], "best fam at n=4096: fam_a n=4096 k=3: gflops=900 GFLOP/s; 3000 B"), "%s",
                      o.line[i]);
        }
    }
    cr_assert_eq(best, 2, "one best line per n of the family, none for a benchmark outside it");
    free(o.text);
}
