#!/usr/bin/env python3
"""Between-run variation of every benchmark, measured from the project's H200 result files.

  lab/variation.py [--quick | --full] [--all-methods] [DIR ...]    (default: both kinds, results/)

Only files measured as today's driver measures (trials, and the lead-in launch before each timed
batch, which removed the swizzle x4 levels: their result records have time_ns.lead_in), unless
--all-methods.

The files are the --sweep all runs on a known unit (device.uuid), grouped by the commit, --quick and
the trials they record, so that a change of code is never counted as
variation; within a group, each point's median time (at its top SM clock, as the gate takes it) is compared between every two files: on one
GPU unit (the same device uuid) that is run-to-run variation, on two units unit-to-unit. A point's
variation is max / min - 1 of its medians over the files in question; a benchmark's is the largest
of its points'. The output is a table (benchmark, run %, unit %, the point and files that set each),
which bench/*.c's .variation declarations must not be below: they are the gate's floor with a single
base file (scripts/compare.py), never its rule.
"""
import collections
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
from smembench import reader  # noqa: E402


def sweep_files(dirs):
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                if not n.endswith(".json") or n == "schema.json":
                    continue
                p = os.path.join(root, n)
                try:
                    doc = json.load(open(p))
                except (OSError, ValueError):
                    continue
                if not isinstance(doc, dict) or "results" not in doc or doc.get("run", {}).get("mode") != "measure":
                    continue
                if "H200" not in (doc.get("device") or {}).get("name", ""):
                    continue
                yield p, doc


def medians(doc):
    """Each timed point's median at its top SM clock, as the gate takes it (reader.steady)."""
    out = {}
    for r in doc["results"]:
        t = (r.get("time_ns") or {}).get("stats") or {}
        if r.get("status") == "ok" and t.get("median"):
            key = r["bench"] + "/" + ",".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
            out[key] = reader.steady_median(r)
    return out


def main(argv):
    quick, current = None, True
    while argv and argv[0] in ("--quick", "--full", "--all-methods"):
        flag = argv.pop(0)
        if flag == "--all-methods":
            current = False
        else:
            quick = flag == "--quick"
    dirs = argv or ["results"]
    groups = collections.defaultdict(list)
    for p, doc in sweep_files(dirs):
        commit = (doc.get("tool") or {}).get("git") or (doc.get("tool") or {}).get("commit") or "?"
        if (doc.get("tool") or {}).get("test_slowdown_pct"):
            continue   # a test build's planted slowdown is not variation
        uuid = (doc.get("device") or {}).get("uuid")
        settings = doc["run"].get("settings") or {}
        if not uuid or doc["run"].get("sweep") != "all":
            continue   # a unit must be known, and only whole sweeps share their settings and order
        if current and not any("lead_in" in (r.get("time_ns") or {}) for r in doc["results"]):
            continue   # measured before the lead-in launch (src/measure.c): its levels are gone
        key = (commit, bool(settings.get("quick")), settings.get("trials", 1))
        if quick is not None and key[1] != quick:
            continue
        groups[key].append((p, uuid, medians(doc)))
    worst = {}   # bench -> {"run": (pct, point, a, b), "unit": ...}
    used = set()
    for _, files in groups.items():
        for (pa, ua, ma), (pb, ub, mb) in itertools.combinations(files, 2):
            kind = "run" if ua == ub else "unit"
            used.update((pa, pb))
            for key in ma.keys() & mb.keys():
                lo, hi = sorted((ma[key], mb[key]))
                pct = 100 * (hi / lo - 1)
                w = worst.setdefault(key.split("/")[0], {})
                if pct > w.get(kind, (-1,))[0]:
                    w[kind] = (pct, key, pa, pb)
    print(f"# between-run variation{'' if current else ' (every measurement method)'} from {len(used)} H200 files in {sum(len(f) > 1 for f in groups.values())} "
          f"groups of one commit ({', '.join(dirs)})")
    print(f"{'benchmark':20} {'run %':>7} {'unit %':>7}  largest on one unit / between units")
    for bench in sorted(worst):
        w = worst[bench]
        r, u = w.get("run", (0, "-", "", "")), w.get("unit", (0, "-", "", ""))
        print(f"{bench:20} {r[0]:7.2f} {u[0]:7.2f}  {r[1]} ({os.path.basename(r[2])} / {os.path.basename(r[3])}); "
              f"{u[1]} ({os.path.basename(u[2])} / {os.path.basename(u[3])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
