/* The result file: schema smembench/1, built with cJSON and written atomically. */
#ifndef SMEM_REPORT_JSON_H
#define SMEM_REPORT_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "device.h"
#include "result.h"
#include "runner.h"

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
};

/* A new document with tool, run and device; results are added with smem_report_add. */
cJSON *smem_report_new(const struct smem_run_info *run, const struct smem_device *dev);

/* Appends one point; device_index >= 0 names its device in "devices" (several-device runs). */
int smem_report_add(cJSON *doc, const struct smem_result *r, int device_index);

/* Adds the "devices" array of a several-device run. */
void smem_report_add_devices(cJSON *doc, const struct smem_device_run *runs, int n);

/* Adds "spread": per point run by two or more devices, the fastest and slowest median and the
 * spread between them (spread[i] of points[i], from smem_run_spread). */
void smem_report_spread(cJSON *doc, const struct smem_point *points, const struct smem_spread *spread, size_t n);

/* Marks the run as interrupted by signal sig, or ended early by a sticky CUDA error (sig 0, why). */
void smem_report_mark_incomplete(cJSON *doc, int sig, const char *why);

/* Adds a number, or null when v is not finite. */
cJSON *smem_json_number(cJSON *obj, const char *key, double v);

/* Where the result file goes. Everything that can be known before the sweep is found by
 * smem_output_open (a name too long, a missing or read-only directory, something there that is not a
 * regular file), the file is written by smem_output_commit after it. A file is written into an unnamed
 * temporary file (O_TMPFILE; a hidden named one where the file system has none), synced, and only
 * then given its name, so it appears whole or not at all and a killed run leaves nothing behind. */
enum smem_output_kind {
    SMEM_OUTPUT_FILE,
    SMEM_OUTPUT_STDOUT,         /* -o - */
    SMEM_OUTPUT_DISCARD,        /* -o /dev/null: written there, never replaced */
};

struct smem_output {
    enum smem_output_kind kind;
    char path[4096];            /* as given; after smem_output_commit, the name actually written */
    char prefix[4096];          /* path up to and including its last slash ("" for none) */
    char name[256];             /* the file's name inside its directory */
    long name_max;              /* the longest name that directory takes */
    int dirfd;                  /* that directory, or -1 */
    int fd;                     /* the unnamed temporary file, or -1 (none yet: a named one at commit) */
    bool numbered;              /* a default name: when taken, _2, _3, ... are tried in turn */
    bool force;                 /* replace an existing regular file */
};

/* Called first in main: a closed standard descriptor (0, 1, 2) is opened on /dev/null, so that no
 * file of ours can land on it and be taken for stdout; -o - then refuses a closed stdout. */
void smem_output_guard_stdio(void);

/* Checks that path ("-" for stdout) can be written, without leaving anything behind; prints one line
 * and returns SMEM_EINVAL otherwise. */
int smem_output_check(const char *path, bool force);

/* Settles where the result goes: path ("-" for stdout); numbered: path is a default name that may
 * become _2, _3, ... Returns SMEM_OK, SMEM_EINVAL (the name or its directory: a usage error) or
 * SMEM_EIO (stdout is closed), after one line. Close with smem_output_close. */
int smem_output_open(struct smem_output *o, const char *path, bool numbered, bool force);

/* Writes doc. Returns SMEM_OK (o->path is the name written), or SMEM_EIO / SMEM_ENOMEM after one line
 * naming the cause; then nothing was written, except where an explicit -o name appeared during the run
 * and the results went to the next free numbered name, which the line gives. */
int smem_output_commit(struct smem_output *o, const cJSON *doc);

/* Releases o; a temporary file that was never committed disappears with it. */
void smem_output_close(struct smem_output *o);

/* <gpu>_<yyyymmdd>_<what>.json into out, each part cut short so that the name fits a file system's
 * 255 bytes with a number added (smem_output_open with numbered: _2, _3, ... when taken). */
void smem_output_default_name(char *out, size_t len, const char *gpu_name, const char *what);

/* Current UTC time as ISO 8601 (2026-11-29T11:36:33Z) into buf. */
void smem_utc_now(char *buf, size_t len, bool compact_date);

#endif
