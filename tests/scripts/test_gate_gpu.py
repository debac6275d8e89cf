#!/usr/bin/env python3
"""The comparison gate on real GPU runs (TAP; exit 77 without a GPU): what issue 11 asks to see.

  test_gate_gpu.py SMEMBENCH [OUTDIR]

Six separate runs of `--sweep bandwidth,latency,bank,carveout,dynamic --quick`, compared in three
pairs: every pair exits 0 with no point slower or faster. A copy of the first run with one
benchmark's samples 5 % slower: that benchmark's points slower (each of its points slower, or
uncertain for its own noise) and no other point slower or faster, exit 1. 3 % on every point whose
noise is under 0.5 %: each of them slower. A missing point, a failed point and another device:
exit 1. The runs, the comparisons and a summary stay in OUTDIR (default: a temporary folder,
printed) for the report.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")
sys.path.insert(0, os.path.join(SCRIPTS, "..", "python"))
sys.path.insert(0, HERE)
from smembench import reader  # noqa: E402
from tap import scale  # noqa: E402

SWEEPS = "bandwidth,latency,bank,carveout,dynamic"
results = []


def check(ok, what, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} - {what}" + (f": {detail}" if detail and not ok else ""))
    if detail and ok:
        for line in detail.split("\n"):
            print(f"# {line}")
    sys.stdout.flush()


def compare(out, name, *args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "compare.py"), *args], capture_output=True, text=True,
                       timeout=600)
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    return p.returncode, p.stdout, p.stderr


def verdicts(text):
    rows = {}
    for line in text.split("\n"):
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 6 and "/" in cells[0] and re.match(r"^(\d+\.\d+|-)$", cells[1]):
            rows[cells[0]] = cells[5]
    return rows


def judged(rows):
    """The points timed in both files (skipped or failed points are not the rule's to judge)."""
    return {k: x for k, x in rows.items() if x.split()[0] in ("slower", "faster", "same", "uncertain")}


def kind(verdict):
    """A verdict's first word: "slower (band ±2.0 %)" is slower, its widened band a note."""
    return verdict.split()[0]




def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def main():
    exe = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="smem-gate-gpu.")
    os.makedirs(out, exist_ok=True)
    runs = []
    for k in range(6):
        path = os.path.join(out, f"quick{k + 1}.json")
        if os.path.exists(path):
            os.unlink(path)
        p = subprocess.run([exe, "--sweep", SWEEPS, "--quick", "--require-gpu", "--quiet", "-o", path],
                           capture_output=True, text=True, timeout=900)
        if p.returncode == 3 and k == 0:
            print("1..0 # SKIP no GPU")
            return 77
        if p.returncode != 0:
            print(f"1..1\nnot ok 1 - quick run {k + 1}: exit {p.returncode}: {p.stderr[-2000:]}")
            return 1
        runs.append(path)
    print("1..9")
    print(f"# runs and comparisons in {out}")
    base = reader.load(runs[0])
    n = len(reader.timed_points(base))
    for i in range(3):
        a, b = runs[2 * i], runs[2 * i + 1]
        rc, text, err = compare(out, f"pair{i + 1}", a, b)
        v = judged(verdicts(text))
        moved = {k: x for k, x in v.items() if kind(x) in ("slower", "faster")}
        unsure = {k: x for k, x in v.items() if x.startswith("uncertain")}
        summary = [x for x in text.split("\n") if "points compared" in x]
        check(rc == 0 and not moved and len(v) == n,
              f"separate quick runs {2 * i + 1} and {2 * i + 2}: exit 0, no point slower or faster",
              f"exit {rc}; {summary[-1] if summary else err[-500:]}; moved {moved}; uncertain: " +
              "; ".join(f"{k} {x}" for k, x in sorted(unsure.items())))

    benches = sorted({r["bench"] for r in base["results"]})
    bad, lines = [], []
    for bench in benches:
        doc = json.load(open(runs[1]))
        for r in doc["results"]:
            if r["bench"] == bench:
                scale(r, 1.05)
        rc, text, _ = compare(out, f"slow_{bench}", runs[0], save(doc, os.path.join(out, f"slow_{bench}.json")))
        v = judged(verdicts(text))
        mine = {k: x for k, x in v.items() if k.startswith(bench + "/")}
        others = {k: x for k, x in v.items() if not k.startswith(bench + "/") and kind(x) in ("slower", "faster")}
        slower = sum(1 for x in mine.values() if kind(x) == "slower")
        noisy = {k: x for k, x in mine.items() if kind(x) != "slower"}
        if not mine:          # a benchmark whose every point was skipped on this GPU
            continue
        ok = rc == 1 and slower > 0 and not others and all(x.startswith("uncertain (noise") for x in noisy.values())
        lines.append(f"{bench} x1.05: {slower} of {len(mine)} slower, exit {rc}" +
                     (f"; not slower: {noisy}" if noisy else "") + (f"; others moved: {others}" if others else ""))
        if not ok:
            bad.append(bench)
    check(not bad, "one benchmark 5 % slower: its points slower (or uncertain for their noise), no other", "\n".join(lines))

    doc = json.load(open(runs[0]))
    quiet = []
    for r in doc["results"]:
        if reader.timed(r) and reader.robust_spread(r) < 0.005:
            scale(r, 1.03)
            quiet.append(reader.point_name(r))
    rc, text, _ = compare(out, "three_percent", runs[0], save(doc, os.path.join(out, "three_percent.json")))
    v = verdicts(text)
    missed = [k for k in quiet if kind(v.get(k, "-")) != "slower"]   # "slower (band ±2.3 %)" is slower
    extra = [k for k, x in v.items() if k not in quiet and kind(x) in ("slower", "faster")]
    check(rc == 1 and quiet and not missed and not extra,
          f"3 % on each of the {len(quiet)} points with noise under 0.5 %: each slower",
          f"missed {missed}; others {extra}")

    for name, mutate, want in (
            ("missing", lambda d: d["results"].pop(0), "1 missing"),
            ("failed", lambda d: d["results"][0].update(status="failed", reason="test", verified=False), "1 stopped"),
            ("device", lambda d: d["device"].update(name="NVIDIA Other", cc="8.0", sm_count=108), "device mismatch")):
        doc = json.load(open(runs[0]))
        mutate(doc)
        rc, text, _ = compare(out, name, runs[0], save(doc, os.path.join(out, name + ".json")))
        last = text.rstrip().split("\n")[-1]
        check(rc == 1 and want in last, f"{name}: exit 1", f"exit {rc}: {last}")
    rc, text, _ = compare(out, "self", runs[0], runs[0])
    check(rc == 0, "a run against itself: exit 0", text.rstrip().split("\n")[-2] if text else "")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
