#!/usr/bin/env python3
"""Where the time of a run went, before and after (issue 24): run.timing of each result file, and
for the benchmarks that took longest in the first file, each phase summed over their points in
every file, as a Markdown table.

usage: phases.py BEFORE.json AFTER.json [AFTER2.json ...] [--top N]"""
import argparse
import json
import sys

PHASES = ("setup", "verify", "warmup", "sampling", "residency", "teardown")


def by_bench(doc):
    """{bench: {phase: seconds, "total": seconds, "points": n}} from the points' phases_s."""
    out = {}
    for r in doc["results"]:
        p = r.get("phases_s")
        if not p:
            continue
        b = out.setdefault(r["bench"], dict.fromkeys(PHASES + ("total",), 0.0) | {"points": 0})
        for k in PHASES + ("total",):
            b[k] += p.get(k) or 0.0
        b["points"] += 1
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="phases.py", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=5)
    a = ap.parse_args(argv)
    if len(a.files) < 2:
        ap.error("give a file before and at least one after")
    docs = []
    for f in a.files:
        try:
            with open(f) as fh:
                doc = json.load(fh)
            docs.append((f, doc, doc["run"]["timing"]))
        except (OSError, ValueError, KeyError) as e:
            print(f"phases.py: {f}: no run.timing ({e})", file=sys.stderr)
            return 2
    print("| file | wall s | points s | " + " | ".join(PHASES) + " |")
    print("|---|---:|---:|" + "---:|" * len(PHASES))
    for f, doc, t in docs:
        print(f"| {f.rsplit('/', 1)[-1]} | {t['wall_s']:.1f} | {t['points_s']:.1f} | "
              + " | ".join(f"{t['phases_s'][k]:.2f}" for k in PHASES) + " |")
    first = by_bench(docs[0][1])
    top = sorted(first, key=lambda b: -first[b]["total"])[:a.top]
    print()
    print("| benchmark (points) | file | total s | " + " | ".join(PHASES) + " |")
    print("|---|---|---:|" + "---:|" * len(PHASES))
    for b in top:
        for i, (f, doc, _) in enumerate(docs):
            s = by_bench(doc).get(b)
            if not s:
                continue
            label = f"{b} ({s['points']})" if i == 0 else ""
            print(f"| {label} | {'before' if i == 0 else f'after {i}'} | {s['total']:.2f} | "
                  + " | ".join(f"{s[k]:.2f}" for k in PHASES) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
