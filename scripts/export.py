#!/usr/bin/env python3
"""Exports a smembench result file to a dashboard's format, on stdout.

  python3 scripts/export.py RESULTS.json --format gab|gab-bigger|bmf|openmetrics

gab          github-action-benchmark "customSmallerIsBetter": the median time of each point (ns)
gab-bigger   github-action-benchmark "customBiggerIsBetter": each point's first metric
bmf          Bencher Metric Format: per point "latency" (median ns, q1 and q3 as bounds) and, where the
             point has one, "throughput" (its first metric)
openmetrics  OpenMetrics text: smembench_time_ns and smembench_metric gauges, labelled by device,
             benchmark and parameters
Only points that ran (status ok) are exported.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smem_results  # noqa: E402


def first_metric(r):
    for name, m in r["metrics"].items():
        if smem_results.metric(r, name) is not None:
            return name, m
    return None, None


def gab(doc, bigger):
    out = []
    for r in smem_results.ok(doc):
        stats = r["time_ns"]["stats"]
        if bigger:
            name, m = first_metric(r)
            if name is None:
                continue
            out.append({"name": f"{smem_results.point_name(r)} {name}", "unit": m["unit"], "value": m["value"],
                        "extra": smem_results.device_label(doc)})
        else:
            out.append({"name": smem_results.point_name(r), "unit": "ns", "value": stats["median"],
                        "range": f"±{(stats['q3'] - stats['q1']) / 2:g}",
                        "extra": f"{smem_results.device_label(doc)}; {stats['count']} samples"})
    return json.dumps(out, indent=2)


def bmf(doc):
    out = {}
    for r in smem_results.ok(doc):
        s = r["time_ns"]["stats"]
        entry = {"latency": {"value": s["median"], "lower_value": s["q1"], "upper_value": s["q3"]}}
        name, m = first_metric(r)
        if name is not None:
            entry["throughput"] = {"value": m["value"]}
        out[smem_results.point_name(r)] = entry
    return json.dumps(out, indent=2)


def _label(v):
    return str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def openmetrics(doc):
    dev = _label(smem_results.device_label(doc))
    lines = ["# TYPE smembench_time_ns gauge", "# UNIT smembench_time_ns ns",
             "# HELP smembench_time_ns Median kernel time of a smembench point."]
    metric_lines = []
    for r in smem_results.ok(doc):
        labels = f'device="{dev}",bench="{_label(r["bench"])}"' + "".join(
            f',{k}="{v}"' for k, v in sorted(r["params"].items()))
        lines.append(f"smembench_time_ns{{{labels}}} {r['time_ns']['stats']['median']}")
        for name in sorted(r["metrics"]):
            v = smem_results.metric(r, name)
            if v is not None:
                metric_lines.append(f'smembench_metric{{{labels},metric="{_label(name)}",'
                                    f'unit="{_label(r["metrics"][name]["unit"])}"}} {v!r}')
    lines += ["# TYPE smembench_metric gauge", "# HELP smembench_metric Derived metric of a smembench point."]
    return "\n".join(lines + metric_lines + ["# EOF"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--format", required=True, choices=["gab", "gab-bigger", "bmf", "openmetrics"])
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        doc = smem_results.load(a.results)
    except smem_results.ResultError as e:
        print(f"export.py: {e}", file=sys.stderr)
        return 2
    text = {"gab": lambda: gab(doc, False), "gab-bigger": lambda: gab(doc, True), "bmf": lambda: bmf(doc),
            "openmetrics": lambda: openmetrics(doc)}[a.format]()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
