#!/usr/bin/env python3
"""The side-by-side table of smembench and nvbench (tests/peers/side_by_side.sh): for every point, the
metric smembench reports and the same metric computed from nvbench's time, the difference, whether
both ran the same launch, each tool's kernel time and noise; then each tool's wall time.

Reads, in the folder given: smembench_<bench>.json (smembench's result files), nvbench_<bench>.json
(smem_nvbench --json) and walltimes.tsv (tool, bench, seconds, exit status). Writes side_by_side.md
there and prints it. Standard library only: it reads both JSON formats directly.

nvbench's time is the cold GPU median (nv/cold/time/gpu/median): CUDA events around each launch, the
one measurement its --max-noise governs, as smembench's median of event-timed samples is. Cold flushes
L2 before each launch, which smembench does only with --cold; these kernels read their inputs into
shared memory once (or stream 256 MiB, several times the L2), so that costs little (see README.md).
The metric from nvbench's time uses the work per launch smem_nvbench recorded from smembench's own
descriptor (smem/bytes_per_launch, smem/loads_per_launch) and, for B/clk/SM, the SM clock smembench
measured at the same point (nvbench does not measure it)."""
import argparse
import json
import os
import sys

FLAG_PCT = 1.0
BENCHES = ("bandwidth", "bank", "latency", "dynamic")
# bench -> (smembench metric, unit)
METRIC = {
    "bandwidth": ("gbytes_per_s", "GB/s"),
    "bank": ("bytes_per_clk_sm", "B/clk/SM"),
    "latency": ("latency_ns", "ns/load"),
    "dynamic": ("gbytes_per_s", "GB/s"),
}


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def nv_value(entry):
    """A named value of nvbench's JSON ({name, type, value}): int64 and float64 are written as strings."""
    t, v = entry.get("type"), entry.get("value")
    if t == "int64":
        return int(v)
    if t == "float64":
        return float(v)
    return v


def nv_summaries(state):
    """tag -> the summary's "value" entry, for one nvbench state."""
    out = {}
    for s in state.get("summaries") or []:
        for d in s.get("data") or []:
            if d.get("name") == "value":
                out[s["tag"]] = nv_value(d)
    return out


def nv_states(doc, bench):
    """The states of one nvbench benchmark: (axis values as a dict, summaries, skip reason or None)."""
    out = []
    for b in doc.get("benchmarks") or []:
        if b.get("name") != bench:
            continue
        for st in b.get("states") or []:
            axes = {a["name"]: nv_value(a) for a in st.get("axis_values") or []}
            skip = st.get("skip_reason") if st.get("is_skipped") else None
            out.append((axes, nv_summaries(st), skip))
    return out


def nv_time_s(summ):
    """nvbench's cold GPU time of one launch in seconds: the median, or the mean where no median."""
    for tag in ("nv/cold/time/gpu/median", "nv/cold/time/gpu/mean"):
        if isinstance(summ.get(tag), float):
            return summ[tag]
    return None


def nv_batch_s(summ):
    """nvbench's batch GPU time of one launch in seconds (launches back to back, no L2 flush), or None."""
    v = summ.get("nv/batch/time/gpu/mean")
    return v if isinstance(v, float) and v > 0 else None


def nv_metric(bench, summ, t, smem_result):
    """smembench's metric of bench from nvbench's time t (seconds) of one launch."""
    if bench == "latency":
        return t / summ["smem/loads_per_launch"] * 1e9
    if bench == "bank":
        clock_hz = (smem_result.get("clock_mhz") or 0) * 1e6
        if clock_hz <= 0:
            return None
        return summ["smem/bytes_per_launch"] / (t * clock_hz * summ["smem/sm_count"])
    return summ["smem/bytes_per_launch"] / t / 1e9


def launch_check(smem_result, summ):
    """'same' when both tools launched the same geometry, else what differs."""
    launch = smem_result.get("launch") or {}
    diffs = []
    for key, tag in (("grid", "smem/grid"), ("block", "smem/block"), ("dynamic_smem", "smem/dyn_smem_bytes")):
        if launch.get(key) != summ.get(tag):
            diffs.append(f"{key} {launch.get(key)} vs {summ.get(tag)}")
    return "same" if not diffs else "; ".join(diffs)


def point_name(bench, params):
    return bench + " " + " ".join(f"{k}={v}" for k, v in params.items())


def fmt(x, digits=4):
    if x is None:
        return "-"
    return f"{x:.{digits}g}" if abs(x) < 1e4 else f"{x:.0f}"


def compare(folder):
    """The table's rows and the problems (missing points, different launches)."""
    rows, problems = [], []
    for bench in BENCHES:
        sp, np_ = os.path.join(folder, f"smembench_{bench}.json"), os.path.join(folder, f"nvbench_{bench}.json")
        if not os.path.exists(sp) and not os.path.exists(np_):
            continue
        if not os.path.exists(sp) or not os.path.exists(np_):
            problems.append(f"{bench}: only one tool's file ({os.path.basename(sp if os.path.exists(sp) else np_)})")
            continue
        smem = [r for r in load_json(sp).get("results") or [] if r.get("bench") == bench]
        states = nv_states(load_json(np_), bench)
        used = set()
        metric, unit = METRIC[bench]
        for r in smem:
            params = r.get("params") or {}
            name = point_name(bench, params)
            match = [i for i, (axes, _, _) in enumerate(states)
                     if all(axes.get(k) == v for k, v in params.items())]
            row = {"point": name, "unit": unit, "smem": None, "nv": None, "diff": None, "flag": "",
                   "launch": "-", "smem_us": None, "nv_us": None, "smem_noise": None, "nv_noise": None,
                   "nv_batch_us": None}
            rows.append(row)
            if r.get("status") == "ok":
                row["smem"] = ((r.get("metrics") or {}).get(metric) or {}).get("value")
                stats = (r.get("time_ns") or {}).get("stats") or {}
                row["smem_us"] = stats["median"] / 1e3 if stats.get("median") else None
                # smembench's noise everywhere: the robust spread (1.4826 MAD / median)
                row["smem_noise"] = stats["robust_spread"] * 100 if stats.get("robust_spread") is not None else None
            if not match:
                row["flag"] = "missing in nvbench"
                problems.append(f"{name}: no nvbench state")
                continue
            used.add(match[0])
            _, summ, skip = states[match[0]]
            if r.get("status") != "ok" or skip:
                why = []
                if r.get("status") != "ok":
                    why.append(f"smembench {r.get('status')}: {r.get('reason')}")
                if skip:
                    why.append(f"nvbench skipped: {skip}")
                row["flag"] = "; ".join(why)
                continue
            row["launch"] = launch_check(r, summ)
            if row["launch"] != "same":
                problems.append(f"{name}: launches differ ({row['launch']})")
            t = nv_time_s(summ)
            if t is None or t <= 0:
                row["flag"] = "no nvbench time"
                problems.append(f"{name}: no nvbench time")
                continue
            row["nv_us"] = t * 1e6
            tb = nv_batch_s(summ)
            row["nv_batch_us"] = tb * 1e6 if tb else None
            rel = summ.get("nv/cold/time/gpu/stdev/relative")
            row["nv_noise"] = rel * 100 if isinstance(rel, float) else None
            row["nv"] = nv_metric(bench, summ, t, r)
            if row["smem"] and row["nv"] is not None:
                row["diff"] = (row["nv"] - row["smem"]) / row["smem"] * 100
                row["flag"] = "> 1 %" if abs(row["diff"]) > FLAG_PCT else ""
        for i, (axes, _, skip) in enumerate(states):
            if i not in used:
                name = point_name(bench, axes)
                problems.append(f"{name}: no smembench point")
                rows.append({"point": name, "unit": unit, "smem": None, "nv": None, "diff": None,
                             "flag": "missing in smembench" + (f" (nvbench skipped: {skip})" if skip else ""),
                             "launch": "-", "smem_us": None, "nv_us": None, "smem_noise": None, "nv_noise": None,
                             "nv_batch_us": None})
    return rows, problems


def walltimes(folder):
    """tool -> bench -> (seconds, exit status), from walltimes.tsv."""
    out = {}
    path = os.path.join(folder, "walltimes.tsv")
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4 or parts[0] == "tool":
                continue
            out.setdefault(parts[0], {})[parts[1]] = (float(parts[2]), int(parts[3]))
    return out


def markdown(rows, problems, walls, title):
    out = [f"# {title}", "",
           f"nvbench: cold GPU median converted with smembench's work per launch; difference = nvbench / smembench "
           f"- 1; flagged above {FLAG_PCT:g} %. Latency: smembench counts the cycles between the kernel's clock "
           "marks (the chase alone), nvbench's time is the whole kernel (4096-slot fill and launch included), "
           "so its ns/load is higher by that overhead; the kernel times beside it compare like with like. "
           "smembench's noise is its robust spread (1.4826 MAD / median), nvbench's its stdev / mean. nvbench's "
           "batch time (launches back to back, no L2 flush) is the like-for-like time of a kernel that streams "
           "DRAM: smembench times warm unless --cold.", "",
           "| point | smembench | nvbench | unit | difference % | flag | launch | smembench us (noise %) "
           "| nvbench cold us (noise %) | time difference % | nvbench batch us | batch difference % |",
           "|---|---:|---:|---|---:|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        tdiff = None
        if r["smem_us"] and r["nv_us"]:
            tdiff = (r["nv_us"] - r["smem_us"]) / r["smem_us"] * 100
        bdiff = None
        if r["smem_us"] and r.get("nv_batch_us"):
            bdiff = (r["nv_batch_us"] - r["smem_us"]) / r["smem_us"] * 100
        out.append("| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} ({}) | {} | {} | {} |".format(
            r["point"], fmt(r["smem"]), fmt(r["nv"]), r["unit"],
            "-" if r["diff"] is None else f"{r['diff']:+.2f}", r["flag"], r["launch"],
            fmt(r["smem_us"]), "-" if r["smem_noise"] is None else f"{r['smem_noise']:.2f}",
            fmt(r["nv_us"]), "-" if r["nv_noise"] is None else f"{r['nv_noise']:.2f}",
            "-" if tdiff is None else f"{tdiff:+.2f}", fmt(r.get("nv_batch_us")),
            "-" if bdiff is None else f"{bdiff:+.2f}"))
    if walls:
        benches = [b for b in BENCHES if any(b in w for w in walls.values())]
        out += ["", "## Wall time (whole process, each tool run once per benchmark)", "",
                "| tool | " + " | ".join(benches) + " | total s |", "|---|" + "---:|" * (len(benches) + 1)]
        totals = {}
        for tool in ("smembench", "nvbench"):
            w = walls.get(tool, {})
            totals[tool] = sum(s for s, _ in w.values())
            cells = [f"{w[b][0]:.1f}" + ("" if w[b][1] == 0 else f" (exit {w[b][1]})") if b in w else "-"
                     for b in benches]
            out.append(f"| {tool} | " + " | ".join(cells) + f" | {totals[tool]:.1f} |")
        if totals.get("smembench"):
            out += ["", f"nvbench / smembench wall time: {totals['nvbench'] / totals['smembench']:.2f}"]
    if problems:
        out += ["", "## Problems", ""] + [f"- {p}" for p in problems]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description="the smembench / nvbench side-by-side table")
    ap.add_argument("folder", help="side_by_side.sh's output folder")
    ap.add_argument("--title", default="smembench and nvbench side by side")
    a = ap.parse_args()
    if not os.path.isdir(a.folder):
        print(f"side_by_side: no folder {a.folder}", file=sys.stderr)
        return 2
    rows, problems = compare(a.folder)
    if not rows:
        print(f"side_by_side: no smembench or nvbench results in {a.folder}", file=sys.stderr)
        return 1
    text = markdown(rows, problems, walltimes(a.folder), a.title)
    with open(os.path.join(a.folder, "side_by_side.md"), "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)
    # a point one tool lacks or a launch that differs makes the comparison wrong, not just different
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
