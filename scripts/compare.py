#!/usr/bin/env python3
"""Compares two smembench result files point by point, for CI gates.

  python3 scripts/compare.py BASE.json NEW.json [NEW2.json ...] [--threshold PCT] [--alpha A] [--markdown]

Several NEW files (one per node of a cluster, say) are each compared with BASE. Points are matched
by benchmark, parameters and, in several-device files, the device's position. For each, the change of the median time and a
decision from the raw samples: a Mann-Whitney U test (two-sided, normal approximation with tie
correction) says whether the two sets of samples differ at all; the change must also reach
--threshold to count.
  faster / slower  the samples differ (p < alpha) and the median moved by at least the threshold
  same             the median moved by less than the threshold
  ambiguous        the median moved by the threshold or more but the samples do not confirm it
  failed           the point ran in BASE but not in NEW
Exit status: 0 nothing got slower, 1 something got slower or failed, 2 unusable input.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smem_results  # noqa: E402


def mann_whitney_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test (normal approximation, tie-corrected)."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return 1.0
    allv = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(allv)
    ties = 0.0
    i = 0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1][0] == allv[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    r1 = sum(r for r, (_, g) in zip(ranks, allv) if g == 0)
    u = r1 - n1 * (n1 + 1) / 2
    mu = n1 * n2 / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - mu) - 0.5) / math.sqrt(var)
    return math.erfc(max(z, 0) / math.sqrt(2))


def decide(base, new, threshold, alpha):
    mb, mn = smem_results.median_ns(base), smem_results.median_ns(new)
    change = (mn - mb) / mb if mb else 0.0
    p = mann_whitney_p(base["time_ns"]["raw"], new["time_ns"]["raw"])
    if abs(change) < threshold:
        verdict = "same"
    elif p < alpha:
        verdict = "slower" if change > 0 else "faster"
    else:
        verdict = "ambiguous"
    return change, p, verdict


def compare(base_doc, new_doc, threshold, alpha):
    new_by_key = {smem_results.point_key(r): r for r in new_doc["results"]}
    rows = []
    for b in smem_results.ok(base_doc):
        n = new_by_key.get(smem_results.point_key(b))
        if n is None:
            continue
        if n["status"] != "ok":
            rows.append((smem_results.point_name(b), smem_results.median_ns(b), None, None, None, "failed"))
            continue
        change, p, verdict = decide(b, n, threshold, alpha)
        rows.append((smem_results.point_name(b), smem_results.median_ns(b), smem_results.median_ns(n), change, p,
                     verdict))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("new", nargs="+")
    ap.add_argument("--threshold", type=float, default=2.0, help="smallest change that counts, in percent (2)")
    ap.add_argument("--alpha", type=float, default=0.01, help="significance level of the test (0.01)")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table, for CI comments")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    if not (0 <= a.threshold < 1000) or not (0 < a.alpha < 1):
        print("compare.py: --threshold must be in 0..1000 and --alpha in (0, 1)", file=sys.stderr)
        return 2
    try:
        base = smem_results.load(a.base)
        news = [(f, smem_results.load(f)) for f in a.new]
    except smem_results.ResultError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    worst = 0
    for path, new in news:
        if len(news) > 1:
            print(f"\n## {path}\n" if a.markdown else f"== {path}")
        rc = report(base, new, a)
        if rc == 2:
            return 2
        worst = max(worst, rc)
    return worst


def report(base, new, a):
    rows = compare(base, new, a.threshold / 100, a.alpha)
    if not rows:
        print("compare.py: no point of the base file ran in the new file: nothing to compare", file=sys.stderr)
        return 2
    counts = {}
    for r in rows:
        counts[r[5]] = counts.get(r[5], 0) + 1
    if a.markdown:
        print(f"**smembench**: {smem_results.device_label(base)} -> {smem_results.device_label(new)}, "
              f"threshold {a.threshold:g} %, alpha {a.alpha:g}\n")
        print("| point | base median (us) | new median (us) | change | p | verdict |")
        print("|---|---:|---:|---:|---:|---|")
    for name, mb, mn, change, p, verdict in rows:
        nstr = f"{mn / 1e3:.2f}" if mn is not None else "-"
        cstr = f"{100 * change:+.2f} %" if change is not None else "-"
        pstr = f"{p:.2g}" if p is not None else "-"
        if a.markdown:
            print(f"| `{name}` | {mb / 1e3:.2f} | {nstr} | {cstr} | {pstr} | {verdict} |")
        else:
            print(f"{name:56s} {mb / 1e3:10.2f} {nstr:>10s} {cstr:>10s} {pstr:>8s}  {verdict}")
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"\n{len(rows)} points compared: {summary}" if a.markdown else f"{len(rows)} points compared: {summary}")
    return 1 if counts.get("slower") or counts.get("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
