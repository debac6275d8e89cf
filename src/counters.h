/* Hardware counters per point (--counters): why a configuration costs what it costs. The one module
 * that owns CUPTI: its range profiler replays one launch of a point in as many passes as the metric
 * set needs, and its Profiler Host API names, configures and evaluates the metrics. libcupti is
 * loaded at run time (dlopen, beside cudart), so a machine without it, without the permission to
 * profile, or under MIG or MPS still times everything; the file says why it has no counters.
 * Counter passes run after every point is timed, in a phase of their own: no time ever comes from
 * a counter pass. */
#ifndef SMEM_COUNTERS_H
#define SMEM_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

#define SMEM_COUNTERS_MAX 64            /* metrics in one request */
#define SMEM_COUNTER_NAME_MAX 128

/* A metric of the default set, as --list and docs/counters.md give it. */
struct smem_counter_spec {
    const char *name;       /* the Nsight Compute / CUPTI metric name */
    const char *unit;       /* of one launch's value */
    const char *kind;       /* "counter" (a count), "ratio" or "throughput" */
    const char *meaning;
    /* the same count for the same kernel and input on every unit and run: instructions and
     * wavefronts are; the bank-conflict counter and DRAM bytes are counts that move (measured on
     * two H200 units: conflicts up to 14.5 % apart at one bank point, DRAM bytes of L2-resident
     * kernels from 0 to 100 KB), so only exact ones are signals for the gate */
    bool exact;
};

/* The default set: shared-memory wavefronts, bank conflicts and instructions (plain, ldmatrix,
 * stmatrix), L1 and L2 hit rates, DRAM bytes, achieved occupancy and the stall reasons. */
extern const struct smem_counter_spec smem_counters_default[];
extern const size_t smem_counters_n_default;

/* What --counters asked for: the default set, or a list of names. */
struct smem_counters_request {
    bool on;
    bool default_set;
    size_t n;
    char names[SMEM_COUNTERS_MAX][SMEM_COUNTER_NAME_MAX];
};

/* Parses a --counters list ("NAME,NAME", "default" or "default,NAME" for the default set and more)
 * into req: names of letters, digits, '_' and '.', each once. SMEM_EINVAL with the reason in why. */
int smem_counters_parse(const char *list, struct smem_counters_request *req, char *why, size_t why_len);

/* Whether text reads as a --counters list (the value after a bare --counters): every name holds a
 * double underscore, as every CUPTI metric name does, or is "default". */
bool smem_counters_looks_like_list(const char *text);

enum smem_counters_status {
    SMEM_COUNTERS_NONE = 0,     /* not asked for, or the point did not run */
    SMEM_COUNTERS_OK,
    SMEM_COUNTERS_UNAVAILABLE,  /* no counters on this run (reason): no library, no permission, ... */
    SMEM_COUNTERS_FAILED,       /* this point's passes failed (reason) */
};

/* A run's counters on one device: the metrics with their units and kinds as the device's chip
 * names them, and what they cost. */
struct smem_counters_run {
    enum smem_counters_status status;
    char reason[256];
    size_t n;                   /* the metrics collected: req's, less those of the default set the chip lacks */
    const struct smem_counters_request *req;
    const char *name[SMEM_COUNTERS_MAX];
    char skipped[512];          /* the default set's metrics this chip lacks, "" when none */
    char unit[SMEM_COUNTERS_MAX][24];
    char kind[SMEM_COUNTERS_MAX][12];
    bool exact[SMEM_COUNTERS_MAX];
    int passes_max;
    double wall_s;              /* host wall time of the counter phase */
};

/* One point's counters: a value per metric of the run (NAN where it could not be evaluated). */
struct smem_point_counters {
    enum smem_counters_status status;
    char reason[256];
    int passes;
    double *values;             /* owned; run->n of them */
};

/* Status name as written to JSON: ok, unavailable, failed. */
const char *smem_counters_status_name(enum smem_counters_status s);

/* A run's counters status on a build without CUPTI, or before a device: unavailable with why. */
void smem_counters_run_unavailable(struct smem_counters_run *run, const char *why);

/* Whether this build can collect counters (built with the CUPTI headers). */
bool smem_counters_built_in(void);

struct smem_counters;   /* a profiling session on one device's context */

/* Opens a session on the current device's context for run->req: loads libcupti (SMEM_CUPTI_LIB
 * names another file), checks every name against the chip and fills run's units and kinds.
 * SMEM_EINVAL with why for a name the chip does not have (nothing has run: exit 2); another
 * negative code with why when counters cannot be had here (the run goes on without them). */
int smem_counters_open(int ordinal, struct smem_counters_run *run, struct smem_counters **out, char *why,
                       size_t why_len);

/* One launch's counters: launch(arg) then a wait, once per pass, until every pass is in; values
 * into pc (allocated here). A negative code with pc->reason when the passes failed. */
int smem_counters_collect(struct smem_counters *s, const struct smem_counters_run *run, int (*launch)(void *arg),
                          void *arg, struct smem_point_counters *pc);

/* Ends the session (NULL: nothing). */
void smem_counters_close(struct smem_counters *s);

#endif
