#!/usr/bin/env python3
"""Joins what smem_config_probe asked for (its stdout, one line per launch in launch order) with what
Nsight Compute measured (ncu --csv, one line per metric per launch, launches numbered in the same
order) into the fixture the unit tests read: one line per launch, the request and ncu's configuration.

    join.py probe_launches.csv probe_ncu.csv > fixture.csv
"""
import argparse
import csv
import sys


def ncu_launches(path):
    """{launch id: {metric: value}} from ncu's CSV; lines that are not ncu's (the program's own
    output) are skipped."""
    launches = {}
    with open(path, newline="") as f:
        rows = (line for line in f if line.startswith('"'))
        for row in csv.DictReader(rows):
            value = row["Metric Value"].replace(",", "")
            launches.setdefault(int(row["ID"]), {})[row["Metric Name"]] = value
    return launches


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("launches", help="the probe's stdout")
    ap.add_argument("ncu", help="ncu --csv output over the same run")
    args = ap.parse_args()
    with open(args.launches, newline="") as f:
        asked = list(csv.DictReader(f))
    seen = ncu_launches(args.ncu)
    if len(seen) != len(asked):
        print(f"join.py: {len(asked)} launches asked, ncu profiled {len(seen)}", file=sys.stderr)
        return 1
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["block", "dyn_bytes", "carveout", "maxdyn_attr", "api_blocks", "config_bytes", "limit_smem",
                  "limit_warps", "limit_blocks"])
    for i, a in enumerate(asked):
        m = seen[i]
        if int(m["launch__block_size"]) != int(a["block"]) or \
                int(m["launch__shared_mem_per_block_dynamic"]) != int(a["dyn_bytes"]):
            print(f"join.py: launch {i}: ncu saw block {m['launch__block_size']} with "
                  f"{m['launch__shared_mem_per_block_dynamic']} bytes, the probe launched block {a['block']} with "
                  f"{a['dyn_bytes']}", file=sys.stderr)
            return 1
        out.writerow([a["block"], a["dyn_bytes"], a["carveout"], a["maxdyn_attr"], a["api_blocks"],
                      m["launch__shared_mem_config_size"], m["launch__occupancy_limit_shared_mem"],
                      m["launch__occupancy_limit_warps"], m["launch__occupancy_limit_blocks"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
