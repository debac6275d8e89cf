/* The result file: schema smembench/1, built with cJSON and written atomically. */
#ifndef SMEM_REPORT_JSON_H
#define SMEM_REPORT_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "atomic_out.h"
#include "device.h"
#include "model.h"

struct smem_run_info {
    int argc;
    char **argv;
    const char *mode;           /* measure | predict */
    const char *sweep;          /* what was asked for: sweep names or the benchmark */
    const char *started;        /* UTC ISO 8601 */
    int min_samples, max_samples;
    double max_noise, timeout_s;
    unsigned long long seed;
    bool quick, no_optin, cold;
    int trials;
    unsigned long long order_seed;  /* measure mode only */
};

/* A new document with tool, run and device; results are added with smem_report_add. */
cJSON *smem_report_new(const struct smem_run_info *run, const struct smem_device *dev);

/* Appends one point; device_index >= 0 names its device in "devices" (several-device runs). */
int smem_report_add(cJSON *doc, const struct smem_result *r, int device_index);

/* What the gate judges of a benchmark's points (bench/bench.h: time_not_gated, gate_metric):
 * time_gated, not_gated (the reason, or null) and gate_metric (or null), into v. */
void smem_json_gate(cJSON *v, const struct smem_bench *b);

/* The counters of the point smem_report_add added last (--counters): status, reason, passes and a
 * value per metric of run with its unit and kind; nothing when counters were not asked for. */
void smem_report_point_counters(cJSON *doc, const struct smem_result *r, const struct smem_counters_run *run);

/* run.counters: what was asked, whether counters could be had (and why not), the most passes a
 * point took and the counter phase's wall time; nothing when counters were not asked for. */
void smem_report_counters(cJSON *doc, const struct smem_device_run *runs, int n_runs);

/* Adds the "devices" array of a several-device run. */
void smem_report_add_devices(cJSON *doc, const struct smem_device_run *runs, int n);

/* Adds "spread": per point run by two or more devices, the fastest and slowest median and the
 * spread between them (spread[i] of points[i], from smem_run_spread). */
void smem_report_spread(cJSON *doc, const struct smem_point *points, const struct smem_spread *spread, size_t n);

/* run.timing: the run's wall time, each phase summed over the points (and over devices), what lies
 * outside the points (opening the devices, writing), and the benchmarks that took longest. */
void smem_report_timing(cJSON *doc, const struct smem_device_run *runs, int n_runs, double wall_s);

/* Marks the run as interrupted by signal sig, or ended early by a sticky CUDA error (sig 0, why). */
void smem_report_mark_incomplete(cJSON *doc, int sig, const char *why);

/* What is published for compute capability major.minor (core/arch.c): {"name": {"value", "unit",
 * "source"}}, empty for one the table does not know; device.published and --list --json's archs. */
cJSON *smem_json_published(int cc_major, int cc_minor);

/* Adds a number, or null when v is not finite. */
cJSON *smem_json_number(cJSON *obj, const char *key, double v);

/* Adds an integer, written digit for digit (cJSON's numbers are doubles printed with 15 significant
 * digits); the _item form for an array. */
cJSON *smem_json_int(cJSON *obj, const char *key, long long v);
cJSON *smem_json_uint(cJSON *obj, const char *key, unsigned long long v);
cJSON *smem_json_int_item(long long v);

/* Adds a string, or null when s is NULL or empty (a name, reason or version that does not exist). */
cJSON *smem_json_string(cJSON *obj, const char *key, const char *s);

/* Writes doc. Returns SMEM_OK (o->path is the name written), or SMEM_EIO / SMEM_ENOMEM after one line
 * naming the cause; then nothing was written, except where an explicit -o name appeared during the run
 * and the results went to the next free numbered name, which the line gives. */
int smem_output_commit(struct smem_output *o, const cJSON *doc);

/* <gpu>_<yyyymmdd>_<what>.json into out, each part cut short so that the name fits a file system's
 * 255 bytes with a number added (smem_output_open with numbered: _2, _3, ... when taken). */
void smem_output_default_name(char *out, size_t len, const char *gpu_name, const char *what);

/* Current UTC time as ISO 8601 (2026-11-29T11:36:33Z) into buf. */
void smem_utc_now(char *buf, size_t len, bool compact_date);

#endif
