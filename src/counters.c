/* The counters' host side: the default set, the --counters list, status names, and the stand-ins of
 * a build without CUPTI (src/counters_cupti.cpp holds the CUPTI calls). */
#include "counters.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "smem.h"

/* Names as Nsight Compute's --metrics takes them; units and meanings from `ncu --query-metrics` and
 * the Nsight Compute Kernel Profiling Guide (the shared-memory and memory-workload sections). */
const struct smem_counter_spec smem_counters_default[] = {
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts", "counter",
      "shared-memory load wavefronts (a conflict-free 4-byte warp load is one)" , true },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts", "counter",
      "shared-memory store wavefronts" , true },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "conflicts", "counter",
      "shared-memory load bank conflicts (extra wavefronts a request took)", false },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "conflicts", "counter",
      "shared-memory store bank conflicts", false },
    { "smsp__sass_inst_executed_op_shared_ld.sum", "inst", "counter", "shared-memory load instructions (LDS), per warp" , true },
    { "smsp__sass_inst_executed_op_shared_st.sum", "inst", "counter", "shared-memory store instructions (STS), per warp" , true },
    /* ldmatrix and stmatrix are neither LDS nor STS: counters of their own (the names
     * tests/scripts/ncu_check.py found in Nsight Compute 2025 on the H200) */
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", "wavefronts", "counter",
      "ldmatrix wavefronts" , true },
    { "smsp__sass_inst_executed_op_ldsm.sum", "inst", "counter", "ldmatrix instructions (LDSM), per warp" , true },
    { "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum", "wavefronts", "counter",
      "stmatrix wavefronts" , true },
    { "smsp__sass_inst_executed_op_shared_stsm.sum", "inst", "counter", "stmatrix instructions (STSM), per warp" , true },
    { "l1tex__t_sector_hit_rate.pct", "%", "ratio", "L1 hit rate: sectors found in L1 of those requested", false },
    { "lts__t_sector_hit_rate.pct", "%", "ratio", "L2 hit rate: sectors found in L2 of those requested", false },
    { "dram__bytes_read.sum", "bytes", "counter", "bytes read from DRAM", false },
    { "dram__bytes_write.sum", "bytes", "counter", "bytes written to DRAM", false },
    { "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "ratio",
      "achieved occupancy: active warps of the most an SM holds, while active", false },
    { "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "ratio", "ratio",
      "stall: waiting at a barrier (__syncthreads), warps per issue", false },
    { "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "ratio", "ratio",
      "stall: waiting for L1TEX (global, local) data, warps per issue", false },
    { "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "ratio", "ratio",
      "stall: waiting for MIO (shared memory) data, warps per issue", false },
    { "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", "ratio", "ratio",
      "stall: the MIO queue (shared memory) is full, warps per issue", false },
    { "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", "ratio", "ratio",
      "stall: the local/global queue is full, warps per issue", false },
    { "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", "ratio", "ratio",
      "stall: a math pipe is busy, warps per issue", false },
    { "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "ratio", "ratio",
      "stall: a fixed-latency dependency, warps per issue", false },
    { "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", "ratio", "ratio",
      "stall: eligible but another warp issued, warps per issue", false },
};
const size_t smem_counters_n_default = SMEM_ARRAY_LEN(smem_counters_default);

static bool add_name(struct smem_counters_request *req, const char *name, size_t len, char *why, size_t why_len)
{
    if (!len || len >= SMEM_COUNTER_NAME_MAX) {
        smem_fmt(why, why_len, "a metric name of %zu characters; expected 1..%d", len, SMEM_COUNTER_NAME_MAX - 1);
        return false;
    }
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '.') {
            smem_fmt(why, why_len, "metric \"%.*s\": a name has letters, digits, '_' and '.' only", (int)len, name);
            return false;
        }
    for (size_t i = 0; i < req->n; i++)
        if (strlen(req->names[i]) == len && !strncmp(req->names[i], name, len))
            return true;   /* each once */
    if (req->n >= SMEM_COUNTERS_MAX) {
        smem_fmt(why, why_len, "more than %d metrics", SMEM_COUNTERS_MAX);
        return false;
    }
    memcpy(req->names[req->n], name, len);
    req->names[req->n++][len] = '\0';
    return true;
}

int smem_counters_parse(const char *list, struct smem_counters_request *req, char *why, size_t why_len)
{
    const char *p = list ? list : "default";

    memset(req, 0, sizeof(*req));
    req->on = true;
    if (!*p) {
        smem_fmt(why, why_len, "an empty list");
        return SMEM_EINVAL;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 7 && !strncmp(p, "default", 7)) {
            req->default_set = true;
            for (size_t i = 0; i < smem_counters_n_default; i++)
                if (!add_name(req, smem_counters_default[i].name, strlen(smem_counters_default[i].name), why, why_len))
                    return SMEM_EINVAL;
        } else if (!add_name(req, p, len, why, why_len)) {
            return SMEM_EINVAL;
        }
        if (!end)
            return SMEM_OK;
        p = end + 1;
    }
}

bool smem_counters_looks_like_list(const char *text)
{
    const char *p = text;

    if (!text || !*text || *text == '-')
        return false;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool metric = false;
        for (size_t i = 0; i + 1 < len; i++)
            metric |= p[i] == '_' && p[i + 1] == '_';
        if (!metric && !(len == 7 && !strncmp(p, "default", 7)))
            return false;
        if (!end)
            return true;
        p = end + 1;
    }
}

const char *smem_counters_status_name(enum smem_counters_status s)
{
    switch (s) {
    case SMEM_COUNTERS_OK:
        return "ok";
    case SMEM_COUNTERS_UNAVAILABLE:
        return "unavailable";
    case SMEM_COUNTERS_FAILED:
        return "failed";
    default:
        return "none";
    }
}

void smem_counters_run_unavailable(struct smem_counters_run *run, const char *why)
{
    run->status = SMEM_COUNTERS_UNAVAILABLE;
    smem_fmt(run->reason, sizeof(run->reason), "%s", why);
}

#if !SMEM_HAVE_CUPTI
bool smem_counters_built_in(void)
{
    return false;
}

int smem_counters_open(int ordinal, struct smem_counters_run *run, struct smem_counters **out, char *why,
                       size_t why_len)
{
    (void)ordinal;
    (void)run;
    *out = NULL;
    smem_fmt(why, why_len, "this build has no counters (built without CUPTI's headers: cupti_range_profiler.h)");
    return SMEM_ENODEV;
}

int smem_counters_collect(struct smem_counters *s, const struct smem_counters_run *run, int (*launch)(void *arg),
                          void *arg, struct smem_point_counters *pc)
{
    (void)s;
    (void)run;
    (void)launch;
    (void)arg;
    pc->status = SMEM_COUNTERS_UNAVAILABLE;
    smem_fmt(pc->reason, sizeof(pc->reason), "this build has no counters");
    return SMEM_ENODEV;
}

void smem_counters_close(struct smem_counters *s)
{
    (void)s;
}
#endif
