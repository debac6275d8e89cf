/* The result file: schema, null for what does not exist, integers for nanoseconds, and a write
 * that never leaves half a file or replaces one it should not. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "gpus.h"
#include "report_json.h"

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/smemjsonXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static int count_entries(const char *d)
{
    DIR *h = opendir(d);
    struct dirent *e;
    int n = 0;

    while ((e = readdir(h)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(h);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 16];
    size_t n;

    cr_assert_not_null(f, "%s", path);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static cJSON *doc_with_one_point(struct smem_result *r, struct smem_point *pt, double *samples)
{
    static char *argv[] = { "smembench", "--bench", "bank" };
    struct smem_run_info info = { .argc = 3, .argv = argv, .mode = "measure", .sweep = "bank",
                                  .started = "2026-11-29T00:00:00Z", .min_samples = 10, .max_samples = 1000,
                                  .max_noise = 0.005, .timeout_s = 1, .seed = 1 };
    cJSON *doc = smem_report_new(&info, &smem_gpu_find("h200")->dev);

    memset(pt, 0, sizeof(*pt));
    pt->bench = smem_bench_find("bank");
    pt->sweep = "bank";
    pt->values[0] = 4;
    pt->values[1] = 2;
    memset(r, 0, sizeof(*r));
    r->point = pt;
    r->status = SMEM_POINT_OK;
    r->samples_ns = samples;
    r->n_samples = 3;
    smem_stats_compute(samples, 3, &r->time_ns);
    r->occ.api = 2;
    r->occ.predicted = 2;
    r->occ.measured = -1;
    r->occ.warps_per_sm = 64;
    r->occ.effective_carveout_pct = -1;
    r->occ.smem_config_requested = r->occ.smem_config_predicted = r->occ.smem_config_inferred_min = -1;
    r->occ.measured_sms = -1;
    r->regs = 29;
    r->carveout_requested = -1;
    smem_metrics_add(&r->metrics, "bytes_per_clk_sm", "B/clk/SM", 121.5, 128, SMEM_HIGHER_IS_BETTER);
    smem_metrics_add(&r->metrics, "slowdown", "x", NAN, 0, SMEM_LOWER_IS_BETTER);
    smem_metrics_add(&r->metrics, "other", "x", INFINITY, 0, SMEM_LOWER_IS_BETTER);
    cr_assert_eq(smem_report_add(doc, r, -1), 0);
    return doc;
}

Test(json, schema_nulls_and_integer_nanoseconds)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1000.4, 1001.6, 999.5 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    cJSON *res, *stats, *m;
    char *text;

    cr_assert_str_eq(cJSON_GetObjectItem(doc, "schema")->valuestring, "smembench/1");
    res = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(res, "status")->valuestring, "ok");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "params"), "stride_elems")->valuedouble, 2);
    stats = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "time_ns"), "stats");
    cr_assert_eq(cJSON_GetObjectItem(stats, "median")->valuedouble, 1000, "rounded to an integer");
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "time_ns"), "raw"), 1)->valuedouble, 1002);
    m = cJSON_GetObjectItem(res, "metrics");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "slowdown"), "value")), "NaN is null");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "other"), "value")), "inf is null");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "bytes_per_clk_sm"), "better")->valuestring, "higher");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "slowdown"), "better")->valuestring, "lower");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "occupancy"), "measured")), "-1 is null");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(res, "clock_mhz")), "no clock measured: null");
    text = cJSON_PrintUnformatted(doc);
    /* as values, not inside key names such as smem_config_inferred_min_bytes */
    cr_assert_null(strstr(text, ":nan"));
    cr_assert_null(strstr(text, ":-nan"));
    cr_assert_null(strstr(text, ":inf"));
    cr_assert_null(strstr(text, ":-inf"));
    free(text);
    cJSON_Delete(doc);
}

Test(json, write_is_whole_and_leaves_no_temporary)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples), *back;
    char path[128];

    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    cr_assert_eq(smem_report_write(doc, path, false), 0);
    cr_assert_eq(count_entries(dir), 1, "only the result file remains");
    back = cJSON_Parse(slurp(path));
    cr_assert_not_null(back, "the file parses back");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(back, "results")), 1);
    cJSON_Delete(back);
    cJSON_Delete(doc);
    unlink(path);
    rmdir(dir);
}

Test(json, never_replaces_without_force, .init = cr_redirect_stderr)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    char path[128];
    FILE *f;

    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    f = fopen(path, "w");
    fputs("precious", f);
    fclose(f);
    cr_assert_lt(smem_report_write(doc, path, false), 0);
    cr_assert_str_eq(slurp(path), "precious", "the existing file is untouched");
    cr_assert_eq(smem_report_write(doc, path, true), 0);
    cr_assert_not_null(strstr(slurp(path), "smembench/1"), "--force replaces it");
    cr_assert_eq(count_entries(dir), 2, "the refused write kept its results in one temporary file");
    cJSON_Delete(doc);
}

Test(json, unwritable_directory_fails_cleanly, .init = cr_redirect_stderr)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);

    cr_assert_lt(smem_report_write(doc, "/nonexistent/r.json", false), 0);
    cJSON_Delete(doc);
}

Test(json, interrupted_run_is_marked)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    cJSON *run = cJSON_GetObjectItem(doc, "run");

    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(run, "interrupted")));
    smem_report_mark_incomplete(doc, 2, "interrupted");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(run, "interrupted")));
    cr_assert_str_eq(cJSON_GetObjectItem(run, "incomplete_reason")->valuestring, "interrupted");
    cJSON_Delete(doc);
}
