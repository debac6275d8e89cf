"""Hardware counters (smembench --counters, issue 48): which way each one is better, its short name
in figures and text, and the quantities derived from them (bank conflicts and wavefronts per
shared-memory request). The file gives each counter's value, unit and kind (reader.counters); the
direction is this module's, one table (BETTER): a metric it does not match has no direction, and is
exported as a plain value that no gate judges.
"""
import re

from smembench import reader

# Which way a counter is better, by its CUPTI / Nsight Compute name: the first pattern that matches
# (re.search) decides. Counts of conflicts, wavefronts, instructions, bytes and sectors are better
# lower (less work for the same result); hit rates and achieved occupancy higher; stall ratios
# (warps stalled per issue) lower.
BETTER = {
    r"bank_conflicts": "lower",
    r"wavefronts": "lower",
    r"inst_executed": "lower",
    r"__bytes|bytes_(read|write)": "lower",
    r"sectors": "lower",
    r"hit_rate": "higher",
    r"^sm__warps_active\..*pct_of_peak": "higher",
    r"warps_issue_stalled": "lower",
}

# short names of the default set (smembench --list --json's "counters" gives their meaning); another
# metric goes by its own name
LABELS = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "shared load wavefronts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "shared store wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared load bank conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared store bank conflicts",
    "smsp__sass_inst_executed_op_shared_ld.sum": "shared load instructions",
    "smsp__sass_inst_executed_op_shared_st.sum": "shared store instructions",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum": "ldmatrix wavefronts",
    "smsp__sass_inst_executed_op_ldsm.sum": "ldmatrix instructions",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum": "stmatrix wavefronts",
    "smsp__sass_inst_executed_op_stsm.sum": "stmatrix instructions",
    "l1tex__t_sector_hit_rate.pct": "L1 hit rate",
    "lts__t_sector_hit_rate.pct": "L2 hit rate",
    "dram__bytes_read.sum": "DRAM bytes read",
    "dram__bytes_write.sum": "DRAM bytes written",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy",
}
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")

L1_HIT = "l1tex__t_sector_hit_rate.pct"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
# (operation, bank conflicts, wavefronts, instructions): a shared-memory request is one instruction
# (a warp's access); conflicts per request = conflicts / instructions, the bank model's n-way =
# wavefronts / instructions (ldmatrix and stmatrix have wavefronts and instructions, no conflicts)
SHARED_OPS = (
    ("load", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("store", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
    # ldmatrix and stmatrix have counters of their own (the default set's names, src/counters.c)
    ("ldmatrix", None, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
     "smsp__sass_inst_executed_op_ldsm.sum"),
    ("stmatrix", None, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
     "smsp__sass_inst_executed_op_shared_stsm.sum"),
)


def better(name):
    """"higher", "lower" or None (a metric BETTER does not know: no direction)."""
    return next((b for pattern, b in BETTER.items() if re.search(pattern, name)), None)


def label(name):
    """A counter's short name: "L1 hit rate", "barrier stall", or the metric's own name."""
    if name in LABELS:
        return LABELS[name]
    m = STALL.match(name)
    return f"{m.group(1).replace('_', ' ')} stall" if m else name


def _ratio(r, num, den):
    a, b = reader.counter(r, num), reader.counter(r, den)
    return a / b if a is not None and b is not None and b > 0 else None


def conflicts_per_request(r, op="load"):
    """Bank conflicts per shared-memory request of the point (conflicts / instructions), None where
    either is missing or no instruction ran."""
    row = next(x for x in SHARED_OPS if x[0] == op)
    return _ratio(r, row[1], row[3]) if row[1] else None


def wavefronts_per_request(r, op="load"):
    """Wavefronts per shared-memory request (wavefronts / instructions): the bank model's n-way."""
    row = next(x for x in SHARED_OPS if x[0] == op)
    return _ratio(r, row[2], row[3])


def derived(r):
    """{name: (value, unit, better)} of the per-request quantities the point's counters give."""
    out = {}
    for op, conf, wave, _ in SHARED_OPS:
        if conf:
            v = conflicts_per_request(r, op)
            if v is not None:
                out[f"shared {op} conflicts per request"] = (v, "conflicts/request", "lower")
        v = wavefronts_per_request(r, op)
        if v is not None:
            out[f"{op} wavefronts per request"] = (v, "wavefronts/request", "lower")
    return out


def status_line(doc):
    """One line where the file asked for counters and has none ("no counters: REASON"), None where
    it has them or never asked."""
    st, reason = reader.counters_run(doc)
    if st is None or st == "ok":
        return None
    return f"no counters ({st}): {reason or 'the file gives no reason'}"
