#!/usr/bin/env python3
"""The runner-pool simulation of the gate (issue 50) over every H200 --sweep all file the repository
holds of identical kernels, with the gate's own code (smembench.gate: judge, judge_history,
history_classes) in this process.

  lab/pool_sim.py [--quick] [--all-pairs] [--workers N] [-o FILE.md] [GLOB ...]
        (default glob: results/**/nvidia-h200*_all*.json)

Files: measure mode, --sweep all, three trials, a device uuid (a unit), and kernels identical to the
newest file's: each file's commit (tool.git, else a 7-hex name in its file name) is diffed with the
newest over kernels/*.cu, lines that are #include or comment alone set aside (a header renamed), a kernel file
added set aside (a new benchmark: its points are in the newer files only); a file whose commit git
does not know, or whose kernels differ, is left out with its reason. The files' driver and settings
are not compared (the gate's mismatch findings are another rule): only the points' verdicts.

Every file is the NEW one once (leave-one-out), in every mode:
  pair      against one other file as base (compare.py BASE NEW): the first file of every other unit and
            every other run of its own unit (--all-pairs: every other file)
  history   against the history of all the others (compare.py --history)
  others    against the history of the other units' files only (a unit the history has not seen)
  earlier   against the files that started before it (3 at least)
Counted: runs with any false point (slower or faster; goal 0), uncertain points (goal <= 2 %), and,
in history mode, detection: a slowdown of 3 % and of 5 % planted in ONE benchmark at a time (every
sample, statistic and trial median of its points times 1.03 or 1.05) is caught when the gate calls
at least one of that benchmark's points slower: per benchmark, the share of runs (goal: 3 % in >= 95 %
of runs, 5 % in every run), with the reason of the points that missed it where it misses. --quick:
pair mode against at most 4 bases per file. Two workers at most (a 2-core machine).
"""
import collections
import copy
import glob
import json
import math
import multiprocessing
import os
import re
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from smembench import gate, levels, metric_rule, reader  # noqa: E402

OPT = gate.Options()
NOT_GATED = {}          # bench -> reason (the descriptors' time_gated, read from the files)


def commit_of(path, doc):
    g = str((doc.get("tool") or {}).get("git") or "")
    cands = [g.split("-")[0], g.split("-")[0].rstrip("x")]
    cands += re.findall(r"_([0-9a-f]{7})_", os.path.basename(path))
    for c in cands:
        if c and subprocess.run(["git", "-C", ROOT, "rev-parse", "-q", "--verify", c + "^{commit}"],
                                capture_output=True).returncode == 0:
            return c
    return None


def kernel_diff(a, b):
    """The kernels/*.cu changed from commit a to b beyond #include lines, files added set aside."""
    out = subprocess.run(["git", "-C", ROOT, "diff", "-M", "--diff-filter=MDR", a, b, "--", "kernels/"],
                         capture_output=True, text=True).stdout
    changed, cur = set(), None
    for line in out.splitlines():
        if line.startswith("diff --git"):
            cur = line.split()[-1][2:]
        elif line[:1] in "+-" and not line.startswith(("+++", "---")):
            body = line[1:].strip()
            if body and not body.startswith(("#include", "/*", "*", "//")):
                changed.add(cur)
    return sorted(changed)


def kernel_of(bench):
    """kernels/<file>.cu of a benchmark: its descriptor's .kernel_file, else kernels/<name>.cu, else
    its family's (the name before the first _); None for a library call (no kernel of ours)."""
    try:
        m = re.search(r'\.kernel_file = "([^"]+)"', open(os.path.join(ROOT, "bench", bench + ".c")).read())
    except OSError:
        m = None
    for name in ([m.group(1)] if m else []) + [bench, bench.split("_")[0]]:
        if os.path.exists(os.path.join(ROOT, "kernels", name + ".cu")):
            return f"kernels/{name}.cu"
    return None


def pick(patterns):
    """([(path, doc, benchmarks whose kernels equal the newest file's)], [(path, why left out)])."""
    files, left = [], []
    for p in sorted({f for g in patterns for f in glob.glob(g, recursive=True)}):
        doc = json.load(open(p))
        run = doc.get("run") or {}
        why = None
        if run.get("mode") != "measure" or run.get("sweep") != "all":
            why = "not a measured --sweep all"
        elif (run.get("settings") or {}).get("trials") != 3:
            why = f"trials {(run.get('settings') or {}).get('trials')} (not 3)"
        elif not (doc.get("device") or {}).get("uuid"):
            why = "no device uuid"
        elif "H200" not in str((doc.get("device") or {}).get("name")):
            why = "not an H200"
        c = commit_of(p, doc) if why is None else None
        if why is None and c is None:
            why = f"commit {doc['tool'].get('git')} unknown to git"
        if why:
            left.append((p, why))
        else:
            files.append((p, doc, c))
    files.sort(key=lambda f: f[1]["run"].get("started") or "")
    newest = files[-1][2]
    kept = []
    for p, doc, c in files:
        d = set(kernel_diff(c, newest))
        shared = {f for f in d if not f.endswith(".cu")}     # a header every kernel may include
        benches = {r["bench"] for r in doc["results"]}
        same = {b for b in benches if not shared and kernel_of(b) not in d}
        if not same:
            left.append((p, f"kernels differ from {newest}: {', '.join(sorted(d)[:4])}"))
        else:
            kept.append((p, doc, same, sorted(d)))
    return kept, left


VARIATION = {}          # bench -> (run_pct, unit_pct, layout_pct) of today's descriptors


def descriptors():
    """{bench: (time_not_gated, gate_metric)} of today's descriptors (bench/*.c), as the new binary
    writes them into every record (between_run.time_gated, .not_gated, .gate_metric); VARIATION
    gets their declared variation (SMEM_VARIATION_MEASURED)."""
    out = {}
    for path in glob.glob(os.path.join(ROOT, "bench", "*.c")):
        text = open(path).read()
        for m in re.finditer(r'\.name = "(\w+)",(.*?)\n};', text, re.S):
            body = m.group(2)
            why = re.search(r'\.time_not_gated = ((?:"(?:[^"\\]|\\.)*"\s*)+)', body)
            gm = re.search(r'\.gate_metric = "(\w+)"', body)
            v = re.search(r'SMEM_VARIATION_MEASURED\(([\d.]+), ([\d.]+), ([\d.]+)\)', body)
            if v:
                VARIATION[m.group(1)] = tuple(float(x) for x in v.groups())
            if why:
                out[m.group(1)] = ("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', why.group(1))), gm.group(1) if gm else None)
    return out


def as_today(doc, declared):
    """The records' between_run as today's descriptors write it (the gate takes the NEW record's
    declaration: the build under test declares it): the time gated or not, the declared variation."""
    for r in doc["results"]:
        br = r.get("between_run")
        if isinstance(br, dict):
            v = VARIATION.get(r["bench"])
            if v:
                br.update(run_pct=v[0], unit_pct=v[1], layout_pct=v[2] if v[2] > 0 else None)
            d = declared.get(r["bench"])
            br.update(time_gated=d is None, not_gated=d[0] if d else None, gate_metric=d[1] if d else None)


def scale_record(r, f):
    """A point f times slower: its samples, statistics and trial medians, and the metrics derived
    from its time (throughputs divided by f, times and cycles multiplied)."""
    r = copy.deepcopy(r)
    for name, m in (r.get("metrics") or {}).items():
        if isinstance(m, dict) and isinstance(m.get("value"), (int, float)) and \
                metric_rule.metric_kind(name, m.get("unit")) == "time":
            m["value"] = m["value"] / f if m.get("better") == "higher" else m["value"] * f
    t = r["time_ns"]
    t["raw"] = [round(v * f) for v in t["raw"]]
    for k in ("min", "q1", "median", "q3", "max", "mean", "stdev"):
        if t["stats"].get(k) is not None:
            t["stats"][k] = t["stats"][k] * f
    for x in (r.get("trials") or {}).get("runs") or []:
        if isinstance(x, dict) and x.get("median_ns"):
            x["median_ns"] *= f
    return r


SAME = {}               # id(doc) -> the benchmarks whose kernels are the newest file's


def timed_map(doc):
    same = SAME.get(id(doc))
    return {reader.point_key(r): r for r in doc["results"] if reader.timed(r) and r.get("verified", True)
            and (same is None or r["bench"] in same)}


def uuid(doc):
    return doc["device"]["uuid"]


def history_of(docs):
    h = {}
    for d in docs:
        for k, r in timed_map(d).items():
            h.setdefault(k, []).append((uuid(d), gate.layout_of(d, r), r))
    return h


def judge_hist(hist, new, nmap=None, benches=None, cls=None):
    """{key: row} of NEW's timed points (of benches only, where given) against the history; cls:
    (point levels, classes) of the history, measured once."""
    nmap = nmap or timed_map(new)
    lv, classes = cls or (None, None)
    if lv is None:
        lv = levels.point_levels(hist)
        classes = levels.unit_classes(lv)
    name = levels.class_of(classes, levels.bench_vector(lv, {k: reader.steady_median(r) for k, r in nmap.items()}),
                           uuid(new))
    members = next((m for c, m, _ in classes if c == name), None)
    if members is not None and uuid(new) not in members:
        members = None   # as gate.history_classes: a unit the history has not seen, against every unit
    out = {}
    for k, n in nmap.items():
        if benches is not None and k[0] not in benches or k not in hist:
            continue
        row = gate.judge_history(hist[k], n, OPT, hist[k][-1][2], (uuid(new), gate.layout_of(new, n)), members)
        out[k] = with_metrics(row, hist[k][-1][2], n, hist[k], uuid(new), members)
    return out


def with_metrics(row, b, n, hist, unit, members):
    """The row's verdict as the gate gives it with the metrics: not gated where the descriptor says
    so (then its gate metric's verdict, where it has one), worse where a metric is worse or lost."""
    ng = metric_rule.not_gated(b, n)
    ms = metric_rule.judge_metrics(b, n, "", OPT, hist, unit, gate.scipy_stats()[1], members)
    bad = [m for m in ms if m["verdict"] in ("lost", "worse")]
    if ng:
        gm = [m for m in ms if m.get("gate_metric")]
        v = gm[0]["verdict"] if gm else "not gated"
        row = dict(row, verdict={"worse": "slower", "better": "faster"}.get(v, v), how="gate metric" if gm else "")
    if bad and row["verdict"] not in ("slower",):
        row = dict(row, verdict="slower", how="metric " + bad[0]["metric"])
    return row


def judge_pair(base, new):
    bmap, nmap = timed_map(base), timed_map(new)
    ctxu = (uuid(base), None)
    out = {}
    for k, n in nmap.items():
        b = bmap.get(k)
        if b is None:
            continue
        ctx = gate.unit_context(uuid(base), gate.layout_of(base, b), uuid(new), gate.layout_of(new, n))
        out[k] = with_metrics(gate.judge(b, n, OPT, gate.allowance(b, n, ctx)), b, n, None, uuid(new), None)
    del ctxu
    return out


def tally(rows):
    c = collections.Counter()
    false, unc = [], collections.Counter()
    for k, r in rows.items():
        if r["verdict"] == "not gated":
            c["not gated"] += 1
            continue
        c[r["verdict"]] += 1
        if r["verdict"] in ("slower", "faster"):
            false.append(f"{reader.point_name({'bench': k[0], 'params': dict(k[1])})} {r['verdict']} "
                         f"{100 * r['change']:+.1f} %")
        if r["verdict"] == "uncertain":
            unc[k[0]] += 1
    return c, false, unc


DOCS = []


def work(task):
    mode, i, extra = task
    new = DOCS[i][1]
    if mode == "pair":
        return mode, i, extra, tally(judge_pair(DOCS[extra][1], new))
    hist = history_of(extra_docs(mode, i))
    if mode != "detect":
        return mode, i, None, tally(judge_hist(hist, new))
    nmap = timed_map(new)
    lv = levels.point_levels(hist)
    cls = (lv, levels.unit_classes(lv))
    found = {}
    for bench in sorted({k[0] for k in nmap if k in hist} - {b for b, (_, gm) in NOT_GATED.items() if not gm}):
        for f in (1.03, 1.05):
            planted = {k: (scale_record(r, f) if k[0] == bench else r) for k, r in nmap.items()}
            rows = judge_hist(hist, new, planted, {bench}, cls)
            caught = any(r["verdict"] == "slower" for r in rows.values())
            why = collections.Counter(r["verdict"] + (" " + r.get("how", "") if r.get("how") else "")
                                      for r in rows.values())
            found[(bench, f)] = (caught, why)
    return mode, i, None, found


def extra_docs(mode, i):
    me = DOCS[i][1]
    if mode in ("history", "detect"):
        return [d for j, (_, d) in enumerate(DOCS) if j != i]
    if mode == "others":
        return [d for j, (_, d) in enumerate(DOCS) if j != i and uuid(d) != uuid(me)]
    if mode == "earlier":
        return [d for j, (_, d) in enumerate(DOCS) if (d["run"].get("started") or "") < (me["run"].get("started") or "")]
    raise ValueError(mode)


def main(argv):
    quick = "--quick" in argv
    all_pairs = "--all-pairs" in argv
    workers = 2
    outmd = None
    args = [a for a in argv if a not in ("--quick", "--all-pairs")]
    if "--workers" in args:
        i = args.index("--workers")
        workers = max(1, min(2, int(args[i + 1])))
        del args[i:i + 2]
    if "-o" in args:
        i = args.index("-o")
        outmd = args[i + 1]
        del args[i:i + 2]
    t0 = time.time()
    picked, left = pick(args or [os.path.join(ROOT, "results/**/nvidia-h200*_all*.json")])
    files = [(p, d) for p, d, _, _ in picked]
    DOCS.extend(files)
    for _, d, same, _ in picked:
        SAME[id(d)] = same
    NOT_GATED.update(descriptors())
    for _, d in files:
        as_today(d, NOT_GATED)
    units = list(dict.fromkeys(uuid(d) for _, d in files))
    tasks = []
    for i in range(len(files)):
        # one file of every other unit (its first) and every other run of its own unit; --all-pairs: every file
        first = {}
        for j, (_, d) in enumerate(files):
            first.setdefault(uuid(d), j)
        bases = [j for j in range(len(files)) if j != i and
                 (all_pairs or uuid(files[j][1]) == uuid(files[i][1]) or first[uuid(files[j][1])] == j)]
        if quick:
            bases = bases[:4]
        tasks += [("pair", i, j) for j in bases]
        tasks += [("history", i, None), ("others", i, None), ("detect", i, None)]
        if len(extra_docs("earlier", i)) >= gate.HISTORY_MIN:
            tasks.append(("earlier", i, None))
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(work, tasks, chunksize=4)
    else:
        results = [work(t) for t in tasks]
    lines = []

    def say(s=""):
        lines.append(s)
        print(s)
    rel = [os.path.relpath(p, ROOT) for p, _ in files]
    say(f"# Pool simulation: {len(files)} H200 --sweep all files of identical kernels, {len(units)} units")
    say()
    say(f"Command: `python3 lab/pool_sim.py{' --quick' if quick else ''}{' --all-pairs' if all_pairs else ''} "
        f"-o {os.path.relpath(outmd, ROOT) if outmd else 'FILE.md'}` "
        f"({time.time() - t0:.0f} s, {workers} workers). The gate's defaults (threshold 2 %, alpha 0.01, "
        "max-band 5 %).")
    say()
    say("| file | unit | commit | started | kernels not the newest's (their benchmarks left out of this file) |")
    say("|---|---|---|---|---|")
    for p, d, _, diff in picked:
        say(f"| {os.path.relpath(p, ROOT)} | {uuid(d)[:12]} | {d['tool'].get('git')} | {d['run'].get('started')} | "
            f"{', '.join(diff) or '-'} |")
    if left:
        say()
        say("Left out:")
        for p, why in left:
            say(f"- {os.path.relpath(p, ROOT)}: {why}")
    # the classes of the whole history
    hist_all = history_of([d for _, d in files])
    lv = levels.point_levels(hist_all)
    classes = levels.unit_classes(lv)
    say()
    say("Unit classes over every file (levels.unit_classes: average linkage under "
        f"{100 * levels.CLASS_CUTOFF:g} % RMS over the benchmarks):")
    vecs = {u: levels.bench_vector(lv, {k: x[u] for k, x in lv.items() if u in x}) for u in units}
    for name, members, cen in classes:
        top = sorted(cen.items(), key=lambda kv: -abs(kv[1]))[:7]
        say(f"- class {name}: {', '.join(m[:12] for m in members)}; its largest levels: " +
            ", ".join(f"{b} {100 * v:+.1f} %" for b, v in top))
    dist = []
    for a in units:
        for b in units:
            if a < b:
                dist.append((levels.distance(vecs[a], vecs[b]), a, b))
    if dist:
        say(f"- distances between units' vectors: {100 * min(dist)[0]:.2f}-{100 * max(dist)[0]:.2f} % RMS")
    if NOT_GATED:
        say()
        say("Not gated on time (bench/<name>.c, time_not_gated; their counts and gate metric are judged):")
        for b, (w, gm) in sorted(NOT_GATED.items()):
            say(f"- {b}: {w}" + (f" (judged on {gm})" if gm else ""))
    say()
    say("## False and uncertain points, every mode")
    say()
    say("| mode | runs | runs with a false point | false points | uncertain points | points judged |")
    say("|---|---:|---:|---:|---:|---:|")
    false_by = collections.defaultdict(collections.Counter)
    unc_by = collections.defaultdict(collections.Counter)
    for mode in ("pair", "history", "others", "earlier"):
        rs = [x for x in results if x[0] == mode and x[3] is not None]
        runs = len(rs)
        bad = sum(1 for x in rs if x[3][1])
        nfalse = sum(len(x[3][1]) for x in rs)
        unc = sum(x[3][0]["uncertain"] for x in rs)
        judged = sum(sum(v for k, v in x[3][0].items() if k != "not gated") for x in rs)
        for x in rs:
            for f in x[3][1]:
                false_by[mode][f.rsplit(" ", 3)[0]] += 1
            unc_by[mode].update(x[3][2])
        say(f"| {mode} | {runs} | {bad} | {nfalse} | {unc} ({100 * unc / max(judged, 1):.2f} %) | {judged} |")
    for mode in false_by:
        if false_by[mode]:
            say()
            say(f"False points in {mode} mode (point: runs): " +
                ", ".join(f"{p}: {n}" for p, n in false_by[mode].most_common(12)))
    for mode in unc_by:
        if unc_by[mode]:
            say(f"\nUncertain points in {mode} mode by benchmark: " +
                ", ".join(f"{b} {n}" for b, n in unc_by[mode].most_common(12)))
    say()
    say("## Detection in history mode: a slowdown planted in one benchmark at a time")
    say()
    say("Caught: at least one of the benchmark's points slower. Runs: every file as NEW against the history "
        "of all the others.")
    say()
    say("| benchmark | 3 %: runs caught | 5 %: runs caught | where missed (the planted points' verdicts, how judged) |")
    say("|---|---:|---:|---|")
    det = [x for x in results if x[0] == "detect"]
    benches = sorted({b for x in det for b, _ in x[3]})
    short = []
    for b in benches:
        c3 = [x[3][(b, 1.03)] for x in det if (b, 1.03) in x[3]]
        c5 = [x[3][(b, 1.05)] for x in det if (b, 1.05) in x[3]]
        miss = collections.Counter()
        for caught, why in c3 + c5:
            if not caught:
                miss.update(why)
        k3, k5 = sum(c for c, _ in c3), sum(c for c, _ in c5)
        if k3 < 0.95 * len(c3) or k5 < len(c5):
            short.append(b)
        say(f"| {b} | {k3}/{len(c3)} ({100 * k3 / max(len(c3), 1):.0f} %) | {k5}/{len(c5)} | "
            + (", ".join(f"{w} {n}" for w, n in miss.most_common(4)) if miss else "-") + " |")
    say()
    say(f"Benchmarks short of the goal (3 % in >= 95 % of runs, 5 % in every run): {', '.join(short) or 'none'}")
    if outmd:
        with open(outmd, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
