/* The result file: schema, null for what does not exist, integers for nanoseconds, and a write
 * that never leaves half a file or replaces one it should not. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "gpus.h"
#include "report_json.h"
#include "signals.h"
#include "smem.h"

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/smemjsonXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st, (void)type, (void)f;
    return remove(path);
}

/* Removes the test's directory and everything in it. */
static void remove_dir(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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

/* Writes doc to path through the output API, as main does. */
static int write_doc(const cJSON *doc, const char *path, bool numbered, bool force, char *written, size_t len)
{
    struct smem_output o;
    int rc = smem_output_open(&o, path, numbered, force);

    if (!rc) {
        rc = smem_output_commit(&o, doc);
        if (written)
            snprintf(written, len, "%s", o.path);
    }
    smem_output_close(&o);
    return rc;
}

static void write_whole(bool named_temp)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples), *back;
    char path[128];

    smem_test_hooks.named_temp = named_temp;
    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    cr_assert_eq(write_doc(doc, path, false, false, NULL, 0), 0);
    cr_assert_eq(count_entries(dir), 1, "only the result file remains");
    back = cJSON_Parse(slurp(path));
    cr_assert_not_null(back, "the file parses back");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(back, "results")), 1);
    cJSON_Delete(back);
    cJSON_Delete(doc);
    smem_test_hooks.named_temp = false;
    remove_dir();
}

Test(json, write_is_whole_and_leaves_no_temporary)
{
    write_whole(false);
}

Test(json, write_without_unnamed_files_leaves_no_temporary_either)
{
    write_whole(true);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

Test(json, never_replaces_without_force, .init = cr_redirect_stderr)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    char path[128];

    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    put(path, "precious");
    cr_assert_eq(write_doc(doc, path, false, false, NULL, 0), SMEM_EINVAL, "refused before anything runs");
    cr_assert_str_eq(slurp(path), "precious", "the existing file is untouched");
    cr_assert_eq(write_doc(doc, path, false, true, NULL, 0), 0);
    cr_assert_not_null(strstr(slurp(path), "smembench/1"), "--force replaces it");
    cr_assert_eq(count_entries(dir), 1, "no temporary file is left");
    cJSON_Delete(doc);
    remove_dir();
}

Test(json, a_name_taken_during_the_run_keeps_the_results_in_sight, .init = cr_redirect_stderr)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    struct smem_output o;
    char path[128], second[160];

    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    cr_assert_eq(smem_output_open(&o, path, false, false), 0);
    put(path, "another run's");
    cr_assert_eq(smem_output_commit(&o, doc), SMEM_EIO, "-o r.json did not end up as r.json: an error");
    snprintf(second, sizeof(second), "%s/r_2.json", dir);
    cr_assert_str_eq(o.path, second);
    smem_output_close(&o);
    cr_assert_str_eq(slurp(path), "another run's");
    cr_assert_not_null(strstr(slurp(second), "smembench/1"), "the results are in r_2.json, not hidden");
    cr_assert_eq(count_entries(dir), 2);
    cJSON_Delete(doc);
    remove_dir();
}

Test(json, a_default_name_takes_the_next_number)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    struct smem_output o[3];
    char path[128], want[160];

    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    for (int i = 0; i < 3; i++)   /* three runs that all chose r.json at their start */
        cr_assert_eq(smem_output_open(&o[i], path, true, false), 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(smem_output_commit(&o[i], doc), 0);
        if (i)
            snprintf(want, sizeof(want), "%s/r_%d.json", dir, i + 1);
        else
            snprintf(want, sizeof(want), "%s", path);
        cr_assert_str_eq(o[i].path, want);
        smem_output_close(&o[i]);
        cr_assert_not_null(strstr(slurp(want), "smembench/1"));
    }
    cr_assert_eq(count_entries(dir), 3, "three files, no temporary");
    cJSON_Delete(doc);
    remove_dir();
}

Test(json, force_replaces_nothing_but_a_regular_file, .init = cr_redirect_stderr)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    char fifo[128], sub[128], lfifo[128], lsub[128], ldev[128], dangling[128];
    struct stat st;

    make_dir();
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    snprintf(lfifo, sizeof(lfifo), "%s/to-fifo", dir);
    snprintf(lsub, sizeof(lsub), "%s/to-sub", dir);
    snprintf(ldev, sizeof(ldev), "%s/to-zero", dir);
    snprintf(dangling, sizeof(dangling), "%s/to-nothing", dir);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    cr_assert_eq(mkdir(sub, 0755), 0);
    cr_assert_eq(symlink(fifo, lfifo), 0);
    cr_assert_eq(symlink(sub, lsub), 0);
    cr_assert_eq(symlink("/dev/zero", ldev), 0);
    cr_assert_eq(symlink("nowhere", dangling), 0);
    const char *refused[] = { fifo, sub, lfifo, lsub, ldev, dangling, "/dev/zero", "/dev/full" };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        cr_assert_eq(write_doc(doc, refused[i], false, true, NULL, 0), SMEM_EINVAL, "%s replaced with --force", refused[i]);
        cr_assert_eq(write_doc(doc, refused[i], false, false, NULL, 0), SMEM_EINVAL, "%s written", refused[i]);
    }
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    cr_assert_eq(lstat(lfifo, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link is still a link");
    cr_assert_eq(stat("/dev/zero", &st), 0);
    cr_assert(S_ISCHR(st.st_mode));
    cr_assert_eq(count_entries(dir), 6, "nothing added");
    cJSON_Delete(doc);
    remove_dir();
}

Test(json, force_through_a_link_replaces_the_file_it_points_to)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    char file[128], link[128];
    struct stat st;

    make_dir();
    snprintf(file, sizeof(file), "%s/old.json", dir);
    snprintf(link, sizeof(link), "%s/latest.json", dir);
    put(file, "old");
    cr_assert_eq(symlink("old.json", link), 0);
    cr_assert_eq(write_doc(doc, link, false, true, NULL, 0), 0);
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link stays a link");
    cr_assert_not_null(strstr(slurp(file), "smembench/1"), "the file it points to was replaced");
    cr_assert_eq(count_entries(dir), 2);
    cJSON_Delete(doc);
    remove_dir();
}

Test(json, dev_null_discards_and_stays_a_device)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    struct smem_output o;
    struct stat st;

    for (int force = 0; force < 2; force++) {
        cr_assert_eq(smem_output_open(&o, "/dev/null", false, force), 0);
        cr_assert_eq(o.kind, SMEM_OUTPUT_DISCARD);
        cr_assert_eq(smem_output_commit(&o, doc), 0);
        smem_output_close(&o);
        cr_assert_eq(lstat("/dev/null", &st), 0);
        cr_assert(S_ISCHR(st.st_mode), "/dev/null is still the device");
    }
    cJSON_Delete(doc);
}

Test(json, force_refuses_what_became_a_fifo_during_the_run, .init = cr_redirect_stderr)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    struct smem_output o;
    char path[128], second[160];
    struct stat st;

    make_dir();
    snprintf(path, sizeof(path), "%s/r.json", dir);
    put(path, "old");
    cr_assert_eq(smem_output_open(&o, path, false, true), 0);
    unlink(path);
    cr_assert_eq(mkfifo(path, 0644), 0);
    cr_assert_eq(smem_output_commit(&o, doc), SMEM_EIO);
    smem_output_close(&o);
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the FIFO was not replaced");
    snprintf(second, sizeof(second), "%s/r_2.json", dir);
    cr_assert_not_null(strstr(slurp(second), "smembench/1"), "the results are in r_2.json");
    cr_assert_eq(count_entries(dir), 2);
    cJSON_Delete(doc);
    remove_dir();
}

Test(json, names_too_long_are_refused_before_the_run, .init = cr_redirect_stderr)
{
    char path[5000];

    make_dir();
    snprintf(path, sizeof(path), "%s/%0256d.json", dir, 0);
    cr_assert_eq(smem_output_check(path, false), SMEM_EINVAL, "a 261-byte name");
    memset(path, 'a', 4200);
    path[0] = '/';
    path[4200] = '\0';
    cr_assert_eq(smem_output_check(path, false), SMEM_EINVAL, "a path over PATH_MAX");
    cr_assert_eq(smem_output_check("/nonexistent/r.json", false), SMEM_EINVAL);
    cr_assert_eq(count_entries(dir), 0);
    remove_dir();
}

Test(json, a_4090_byte_path_is_written)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc = doc_with_one_point(&r, &pt, samples);
    char path[4096], name[200];
    size_t len;

    for (int named = 0; named < 2; named++) {
        smem_test_hooks.named_temp = named;
        make_dir();
        len = (size_t)snprintf(path, sizeof(path), "%s", dir);
        /* directories of 200-byte names, then a file name that brings the path to 4090 bytes */
        memset(name, 'd', sizeof(name) - 1);
        name[sizeof(name) - 1] = '\0';
        while (len + 1 + 199 + 1 + 20 < 4090) {
            len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s", name);
            cr_assert_eq(mkdir(path, 0755), 0, "%s", strerror(errno));
        }
        path[len++] = '/';
        memset(path + len, 'f', 4090 - 5 - len);
        strcpy(path + 4090 - 5, ".json");
        cr_assert_eq(strlen(path), 4090);
        cr_assert_eq(write_doc(doc, path, false, false, NULL, 0), 0, "a 4090-byte path");
        cr_assert_not_null(strstr(slurp(path), "smembench/1"));
        remove_dir();
    }
    smem_test_hooks.named_temp = false;
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

/* Slurm nodes can share a hostname; the file names its node where Slurm gave one (each Criterion
 * test runs in a process of its own, so the environment set here goes no further) */
Test(json, run_node_is_the_slurm_node_name_else_null)
{
    struct smem_result r;
    struct smem_point pt;
    double samples[] = { 1, 2, 3 };
    cJSON *doc;

    cr_assert_eq(unsetenv("SLURMD_NODENAME"), 0);
    doc = doc_with_one_point(&r, &pt, samples);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "node")), "outside Slurm: null");
    cJSON_Delete(doc);
    cr_assert_eq(setenv("SLURMD_NODENAME", "", 1), 0);
    doc = doc_with_one_point(&r, &pt, samples);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "node")), "empty: null");
    cJSON_Delete(doc);
    cr_assert_eq(setenv("SLURMD_NODENAME", "n2", 1), 0);
    doc = doc_with_one_point(&r, &pt, samples);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "run"), "node")->valuestring, "n2");
    cJSON_Delete(doc);
}

Test(json, integers_print_digit_for_digit)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "a");
    char *text;

    smem_json_int(doc, "big", 123456789012345678LL);   /* not a double: %.15g/%.17g would change it */
    smem_json_int(doc, "neg", -9223372036854775807LL - 1);
    smem_json_uint(doc, "seed", 18446744073709551615ULL);
    smem_json_int(doc, "e17", 100000000000000000LL);   /* cJSON: 1e+17 */
    cJSON_AddItemToArray(arr, smem_json_int_item(4503599627370497LL));
    text = cJSON_PrintUnformatted(doc);
    cr_assert_str_eq(text, "{\"a\":[4503599627370497],\"big\":123456789012345678,\"neg\":-9223372036854775808,"
                           "\"seed\":18446744073709551615,\"e17\":100000000000000000}");
    /* the item also holds the value, as a number item would, for whoever reads the document first */
    cr_assert_eq(cJSON_GetObjectItem(doc, "e17")->valuedouble, 1e17);
    free(text);
    cJSON_Delete(doc);
}

Test(json, invalid_utf8_becomes_the_replacement_character)
{
    static const struct { const char *in, *out; size_t bad; } cases[] = {
        { "plain ascii", NULL, 0 },
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", NULL, 0 },           /* 2, 3 and 4 bytes, all valid */
        { "k\xff.cubin", "k\xef\xbf\xbd.cubin", 1 },                        /* never a UTF-8 byte */
        { "\xc3\x28", "\xef\xbf\xbd(", 1 },                                 /* a lead byte without its continuation */
        { "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", 2 },                      /* an overlong '/' */
        { "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3 },      /* a surrogate */
        { "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 4 },   /* above U+10FFFF */
        { "end \xe2\x82", "end \xef\xbf\xbd\xef\xbf\xbd", 2 },              /* cut short at the end */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t bad = 99;
        char *r = smem_utf8_repair(cases[i].in, &bad);
        cr_assert_eq(bad, cases[i].bad, "case %zu: %zu bad bytes", i, bad);
        if (!cases[i].out)
            cr_assert_null(r, "case %zu", i);
        else
            cr_assert_str_eq(r, cases[i].out, "case %zu", i);
        free(r);
    }
}
