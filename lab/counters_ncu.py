#!/usr/bin/env python3
"""--counters against Nsight Compute on the same launches (issue 48): every counter of a --counters
run checked against `ncu --metrics` on the points' own counter launches.

  counters_ncu.py COUNTERS.json EXTERNAL.json NCU.csv [-o REPORT.md]

COUNTERS.json: a run with --counters (CUPTI in process). EXTERNAL.json and NCU.csv: the same sweeps
run with SMEM_COUNTERS_EXTERNAL=1 under `ncu --profile-from-start off --csv --print-units base
--metrics LIST`: the counter phase then launches each point once between cudaProfilerStart and
cudaProfilerStop and collects nothing itself, so ncu profiles exactly one counter launch per point, in
the order of the points that ran. A point's launch may hold several kernels; ncu's records are
matched to the points by launch geometry (grid, block, dynamic shared memory) in order, and a
point's value is the sum over its kernels for a count, and the only kernel's value for a rate.

Agreement: within 2 % for counts, or 1 point for a percentage (the issue's bar). Where they differ,
the report names the metric, how many points and by how much."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "scripts"))
from ncu_check import parse_ncu_csv  # noqa: E402


def ran(doc):
    return [r for r in doc["results"] if r["status"] == "ok"]


def key(r):
    return (r["bench"], json.dumps(r["params"], sort_keys=True))


def geometry(r):
    launch = r["launch"]
    return (launch.get("grid"), launch.get("block"), launch.get("dynamic_smem"))


def rec_geometry(rec):
    return (rec.get("launch__grid_size"), rec.get("launch__block_size"), rec.get("launch__shared_mem_per_block_dynamic"))


def assign(points, launches):
    """{point key: [ncu launch records]}, and how many records were left over: one record a point
    where there are as many as points; else each point takes the next record and those after it up
    to the first whose geometry is the next point's."""
    if len(launches) == len(points):
        return {key(p): [launches[i]] for i, p in enumerate(points)}, 0
    out, k = {}, 0
    for i, p in enumerate(points):
        nxt = geometry(points[i + 1]) if i + 1 < len(points) else None
        recs = []
        while k < len(launches) and (not recs or rec_geometry(launches[k]) != nxt):
            recs.append(launches[k])
            k += 1
            if nxt is None:
                continue
        out[key(p)] = recs
    return out, len(launches) - k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("counters")
    ap.add_argument("external")
    ap.add_argument("ncu")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    ours = {key(r): r for r in ran(json.load(open(a.counters)))}
    ext = ran(json.load(open(a.external)))
    with open(a.ncu, errors="replace") as f:
        launches = parse_ncu_csv(f.read().splitlines())
    pairs, left = assign(ext, launches)
    stats = {}
    worst = {}
    for k, recs in pairs.items():
        p = ours.get(k)
        if not p or not recs or (p.get("counters") or {}).get("status") != "ok":
            continue
        for name, v in p["counters"]["values"].items():
            vals = [rec.get(name) for rec in recs if rec.get(name) is not None]
            if v["value"] is None or not vals:
                continue
            ref = sum(vals) if v["kind"] == "counter" else vals[0] if len(vals) == 1 else None
            if ref is None:
                continue
            mine = v["value"]
            if v["unit"] == "%":
                ok, diff = abs(mine - ref) <= 1.0, mine - ref
            else:
                ok = abs(mine - ref) <= 0.02 * max(abs(ref), 1e-9) or (abs(ref) < 1 and abs(mine) < 1)
                diff = (mine / ref - 1) * 100 if ref else (0 if not mine else float("inf"))
            s = stats.setdefault(name, [0, 0, v["unit"]])
            s[0] += 1
            s[1] += ok
            if not ok and (name not in worst or abs(diff) > abs(worst[name][0])):
                worst[name] = (diff, k, mine, ref)
    lines = [f"# --counters against ncu --metrics, the same launches", "",
             f"points: {len(ours)} with counters, {len(ext)} profiled by ncu ({len(launches)} kernel launches, "
             f"{left} left unpaired)", "",
             "| metric | unit | points | within the bar | worst (ours vs ncu) |", "|---|---|---|---|---|"]
    for name in sorted(stats):
        n, ok, unit = stats[name]
        w = worst.get(name)
        wt = "" if not w else (f"{w[1][0]} {w[1][1]}: {w[2]:.4g} vs {w[3]:.4g} "
                               f"({w[0]:+.2f} {'points' if unit == '%' else '%'})")
        lines.append(f"| `{name}` | {unit} | {n} | {ok} | {wt} |")
    total = sum(s[0] for s in stats.values())
    good = sum(s[1] for s in stats.values())
    lines += ["", f"{good} of {total} values within 2 % (1 point for a percentage)"]
    text = "\n".join(lines) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    print(text)
    return 0 if total and good == total else 1


if __name__ == "__main__":
    sys.exit(main())
