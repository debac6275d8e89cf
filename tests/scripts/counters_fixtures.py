"""Result files with hardware counters (issue 48) for the tests, made from committed H200 files with
plausible `counters` blocks added (docs/result-format.md, results.counters), deterministic, in the
format the C side writes (the lead's contract): the points' times are the real ones, the counters
made up to match them.

- carveout(): results/figures_35/h200's carveout sweep; the gather's L1 hit rate falls from 89 % to
  41 % and its DRAM bytes read rise x4.1 where its time steps (50 -> 60 %); the footprint's counters
  stay put.
- bank(): the --sweep all file's bank points; shared-load wavefronts = instructions x the bank
  model's n-way (metric "wavefronts"), conflicts = wavefronts - the least a request of the width takes.
- unavailable(): the carveout sweep whose run.counters is "unavailable" with a reason, no point
  with counters.
- kernel(): a --kernel file (results/kernel) whose L1 hit rate falls at 20 % carveout and up.
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
H200 = os.path.join(ROOT, "results", "figures_35", "h200")
CARVEOUT = os.path.join(H200, "nvidia-h200_20261203_carveout_u1_p1.json")
ALL = os.path.join(H200, "nvidia-h200_20261203_all_u1.json")
KERNEL = os.path.join(ROOT, "results", "kernel", "nvidia-h200_20261202_llmc_softmax_kernel2.json")

L1 = "l1tex__t_sector_hit_rate.pct"
L2 = "lts__t_sector_hit_rate.pct"
DRAM_R = "dram__bytes_read.sum"
DRAM_W = "dram__bytes_write.sum"
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
LD_WAVE = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
LD_CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
LD_INST = "smsp__sass_inst_executed_op_shared_ld.sum"
STALL_LONG = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
REASON = "profiling needs admin rights (NVreg_RestrictProfilingToAdminUsers=1); run as root or set it to 0"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def value(v, unit, kind):
    return {"value": v, "unit": unit, "kind": kind}


def run_block(doc, names, status="ok", reason=None, passes=3, wall_s=4.2):
    doc["run"]["counters"] = {"requested": list(names), "default_set": False, "status": status, "reason": reason,
                              "passes": passes if status == "ok" else None,
                              "wall_s": wall_s if status == "ok" else None}
    timing = doc["run"].get("timing")
    if isinstance(timing, dict) and status == "ok":
        timing["phases_s"]["counters"] = wall_s


def point_block(values, passes=3):
    return {"status": "ok", "reason": None, "passes": passes, "values": values}


def carveout():
    """The carveout sweep with counters: the gather's step at 60 % explained by L1 and DRAM."""
    doc = _read(CARVEOUT)
    names = [L1, L2, DRAM_R, DRAM_W, OCC, STALL_LONG]
    run_block(doc, names)
    for r in doc["results"]:
        if r["status"] != "ok":
            continue
        pct = r["params"]["carveout_pct"]
        if r["bench"] == "gather":
            hit = 89.0 if pct <= 50 else 41.0 if pct <= 70 else 12.0
            dram = 8.0e6 if pct <= 50 else 3.28e7 if pct <= 70 else 6.1e7
            vals = {L1: value(hit, "%", "ratio"), L2: value(97.5, "%", "ratio"),
                    DRAM_R: value(dram, "bytes", "counter"), DRAM_W: value(1.05e6, "bytes", "counter"),
                    OCC: value(93.0, "%", "ratio"), STALL_LONG: value(2.1 if pct <= 50 else 7.9, "ratio", "ratio")}
        else:
            vals = {L1: value(3.0, "%", "ratio"), L2: value(50.2, "%", "ratio"),
                    DRAM_R: value(2.684e8, "bytes", "counter"), DRAM_W: value(2.684e8, "bytes", "counter"),
                    OCC: value(None, "%", "ratio"), STALL_LONG: value(11.0, "ratio", "ratio")}
        r["counters"] = point_block(vals)
        if isinstance(r.get("phases_s"), dict):
            r["phases_s"]["counters"] = 0.16
    return doc


def bank():
    """The bank points of the --sweep all file, their counters following the bank model."""
    doc = _read(ALL)
    doc["results"] = [r for r in doc["results"] if r["bench"] == "bank"]
    run_block(doc, [LD_WAVE, LD_CONF, LD_INST])
    for r in doc["results"]:
        if r["status"] != "ok":
            continue
        n = r["metrics"]["wavefronts"]["value"]
        least = max(1, r["params"]["width_bytes"] // 4)     # a warp's 128, 256 or 512 bytes
        inst = 1048576
        r["counters"] = point_block({LD_WAVE: value(inst * n, "wavefronts", "counter"),
                                     LD_CONF: value(inst * (n - least), "conflicts", "counter"),
                                     LD_INST: value(inst, "inst", "counter")}, passes=1)
    return doc


def unavailable():
    """The carveout sweep that asked for counters and could not have them."""
    doc = _read(CARVEOUT)
    run_block(doc, [L1, DRAM_R], status="unavailable", reason=REASON)
    return doc


def kernel():
    """A user kernel (llm.c's softmax kernel2) whose L1 hit rate falls from 59 % to 32 % where its
    time steps up (50 -> 60 % carveout), and is 45 % at the slow 0 and 1 % hints; its DRAM writes
    double at 60 % and up (made-up counters on the real times)."""
    doc = _read(KERNEL)
    run_block(doc, [L1, DRAM_R, DRAM_W])
    for r in doc["results"]:
        if r["status"] != "ok":
            continue
        pct = r["params"].get("carveout_pct", -1)
        low = pct < 60
        hit = 45.0 if pct in (0, 1) else 59.0 if low else 32.0
        r["counters"] = point_block({L1: value(hit, "%", "ratio"),
                                     DRAM_R: value(2.52e7, "bytes", "counter"),
                                     DRAM_W: value(1.26e7 if low else 2.5e7, "bytes", "counter")})
    return doc


def write(doc, folder, name):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def without_counters(doc):
    """The document as it was before --counters: run.counters and every point's counters removed."""
    doc = copy.deepcopy(doc)
    doc["run"].pop("counters", None)
    if isinstance(doc["run"].get("timing"), dict):
        doc["run"]["timing"]["phases_s"].pop("counters", None)
    for r in doc["results"]:
        r.pop("counters", None)
        if isinstance(r.get("phases_s"), dict):
            r["phases_s"].pop("counters", None)
    return doc
