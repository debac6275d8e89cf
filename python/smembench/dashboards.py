"""Result files in dashboards' formats (the export command, and smembench.to_dataframe(long=True)
through to_csv): github-action-benchmark's two lists, Bencher Metric Format, OpenMetrics and CSV,
each metric with its unit and direction. smembench-export's --help says what each holds.
"""
import csv
import datetime
import itertools
import io
import json
import math
import os
import re
import shutil
import subprocess

from smembench import counters as smem_counters
from smembench import reader
from smembench.cli import Usage

FORMATS = ("gab-smaller", "gab", "gab-bigger", "bmf", "openmetrics", "csv", "asv")
# OpenMetrics base units: (unit name, factor from the file's unit); another unit keeps its value
# and a name made of its characters
BASE_UNITS = {
    "ns": ("seconds", 1e-9), "us": ("seconds", 1e-6), "ms": ("seconds", 1e-3), "s": ("seconds", 1),
    "GB/s": ("bytes_per_second", 1e9), "MB/s": ("bytes_per_second", 1e6), "B/s": ("bytes_per_second", 1),
    "B": ("bytes", 1), "KiB": ("bytes", 1024), "MiB": ("bytes", 1024 ** 2),
    "GFLOP/s": ("flop_per_second", 1e9), "TFLOP/s": ("flop_per_second", 1e12), "G/s": ("per_second", 1e9),
    "%": ("ratio", 1e-2), "x": ("ratio", 1), "cycles": ("cycles", 1),
    "B/clk/SM": ("bytes_per_clock_per_sm", 1), "passes/request": ("passes_per_request", 1),
    "Gatomics/s": ("atomics_per_second", 1e9), "atomics/clk/SM": ("atomics_per_clock_per_sm", 1),
    "clusters": ("clusters", 1), "SMs": ("sms", 1), "tiles": ("tiles", 1),
}
RESERVED_LABELS = {"bench", "device", "cc", "device_index", "pci_bus_id", "uuid", "metric", "better", "unit",
                   "job", "instance"}


def points(inputs):
    """(path, doc, point, device record) of every timed point of every input; refuses a file
    without any."""
    out = []
    for path, doc in inputs:
        pts = reader.timed_points(doc)
        if not pts:
            raise Usage(f"{path}: no timed point in the file (mode {doc['run'].get('mode')}, {len(doc['results'])} "
                        "points none of which ran with a timing): nothing to export")
        out += [(path, doc, r, reader.device_of(doc, r)) for r in pts]
    return out


def metrics(r, path):
    """(name, value, unit, better) of the time and every performance metric of a point with a
    value (reader.performance: times and rates, not what describes the point)."""
    s = reader.stats(r)
    out = [("time", s["median"], "ns", "lower")]
    for name in sorted(r["metrics"]):
        v = reader.metric(r, name)
        if v is None or not reader.performance(r, name):
            continue
        b = reader.better(r, name)
        if b is None:
            raise Usage(f'{path}: {reader.point_name(r)}: metric "{name}" ({reader.unit(r, name)}) says '
                        'nothing of which way is better and the reader does not know it; expected "better": '
                        '"higher" or "lower" on the metric')
        out.append((name, v, reader.unit(r, name), b))
    return out + counter_metrics(r)


def counter_metrics(r):
    """(name, value, unit, better) of the point's hardware counters with a value (smembench
    --counters), by their metric names in name order: better from smembench.counters.BETTER, None
    for a metric it does not know (exported as a plain value, with no direction: in neither of
    github-action-benchmark's lists, with no better label or field elsewhere)."""
    vals = reader.counters(r)
    return [(name, vals[name]["value"], vals[name]["unit"], smem_counters.better(name)) for name in sorted(vals)
            if vals[name]["value"] is not None]


def ident(doc, dev):
    """What names the GPU and the build a point comes from."""
    return {"device": str(dev.get("name")), "cc": str(dev.get("cc") or ""),
            "device_index": "" if dev.get("ordinal") is None else str(dev["ordinal"]),
            "pci_bus_id": str(dev.get("pci_bus_id") or ""), "uuid": str(dev.get("uuid") or ""),
            "host": str(doc["run"].get("host", "")), "commit": str(doc["tool"].get("git", "")),
            "version": str(doc["tool"].get("version", "")), "date": str(doc["run"].get("started", ""))}


def gpu_tag(doc, dev):
    """A GPU among the several of an export: its uuid, else host and CUDA index."""
    return dev.get("uuid") or f"{doc['run'].get('host') or '?'}/gpu{dev.get('ordinal')}"


def named_points(inputs):
    """(name, path, doc, point, device) of every timed point: the reader's point name; when several
    files hold more than one GPU, the point's name without the device position and the GPU's tag in
    brackets. The same name twice (one point of one GPU in two files) is an error: a dashboard keeps
    one value per name and run."""
    pts = points(inputs)
    several = len(inputs) > 1 and len({gpu_tag(doc, dev) for _, doc, _, dev in pts}) > 1
    seen, out = {}, []
    for path, doc, r, dev in pts:
        if several:
            name = reader.point_name({k: v for k, v in r.items() if k != "device_index"})
            name += f" [{gpu_tag(doc, dev)}]"
        else:
            name = reader.point_name(r)
        if name in seen:
            raise Usage(twice(name, seen[name], (path, doc, r)))
        seen[name] = (path, doc, r)
        out.append((name, path, doc, r, dev))
    return out


def _where(doc, r):
    """A point's place in its file: results[i]."""
    return next((f"results[{i}]" for i, x in enumerate(doc["results"]) if x is r), "results[?]")


def twice(name, first, second, what="one point of one GPU twice", then="export the runs separately"):
    """The one line for a point found twice: first and second are (path, doc, point); within one file
    the two places are named (results[i] and results[j]), else the two files."""
    (p1, d1, r1), (p2, d2, r2) = first, second
    if p1 == p2 and d1 is d2:
        return (f"{name} is twice in {p2} ({_where(d1, r1)} and {_where(d2, r2)}: {what}); a dashboard keeps one "
                "value per point: remove one of them")
    return f"{name} is in both {p1} and {p2} ({what}); {then}"


def gab(inputs, bigger):
    out = []
    for point, path, doc, r, dev in named_points(inputs):
        s = reader.stats(r)
        who = ident(doc, dev)
        extra = (f"{who['device']} {who['pci_bus_id']}".rstrip() + f"; commit {who['commit']}; "
                 f"{s.get('count')} samples")
        for name, v, unit, better in metrics(r, path):
            if better is None or (better == "higher") != bigger:
                continue
            e = {"name": f"{point} {name}", "unit": unit, "value": v}
            if name == "time" and s.get("q1") is not None and s.get("q3") is not None:
                e["range"] = f"±{(s['q3'] - s['q1']) / 2:g}"
            e["extra"] = extra
            out.append(e)
    return json.dumps(out, indent=2) + "\n"


def bmf(inputs):
    out = {}
    for point, path, _, r, _ in named_points(inputs):
        s = reader.stats(r)
        entry = {}
        for name, v, unit, _ in metrics(r, path):
            if name == "time":
                entry["latency"] = {"value": v}
                if s.get("q1") is not None and s.get("q3") is not None:
                    entry["latency"].update(lower_value=s["q1"], upper_value=s["q3"])
            else:
                entry[f"{name} ({unit})"[:64]] = {"value": v}
        out[point] = entry
    return json.dumps(out, indent=2) + "\n"


def _escape(v):
    return str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _label_name(k, taken):
    name = re.sub(r"[^a-zA-Z0-9_]", "_", str(k)) or "param"
    if name[0].isdigit() or name in RESERVED_LABELS or name.startswith("__"):
        name = "param_" + name
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def base_unit(unit):
    if unit in BASE_UNITS:
        return BASE_UNITS[unit]
    name = re.sub(r"[^a-z0-9]+", "_", unit.lower().replace("/", "_per_")).strip("_") or "value"
    return name, 1


def _value(v):
    v = float(v)
    return repr(v) if math.isfinite(v) else None


def _labels(pairs):
    return ",".join(f'{k}="{_escape(x)}"' for k, x in pairs)


def openmetrics(inputs):
    """Prometheus conventions: each sample labelled with what identifies its series (the benchmark,
    its parameters, the GPU: model, compute capability, CUDA index, PCI bus and uuid where
    recorded); the build (version, commit, host) in the info gauge smembench_build_info, value 1."""
    families = {}     # family name -> (unit, help, {label text: (path, sample line)})
    builds = set()
    for path, doc, r, dev in points(inputs):
        who = ident(doc, dev)
        builds.add((who["version"], who["commit"], who["host"]))
        taken = set(RESERVED_LABELS)
        labels = [("bench", r["bench"])] + [(_label_name(k, taken), v) for k, v in sorted(r["params"].items())]
        labels += [(k, who[k]) for k in ("device", "cc", "device_index", "pci_bus_id", "uuid") if who[k]]
        for name, v, unit, better in metrics(r, path):
            bu, factor = base_unit(unit)
            # dividing by 1e9 rather than multiplying by 1e-9 keeps 20736 ns at 2.0736e-05 s
            value = _value(v * factor if factor >= 1 else v / round(1 / factor))
            if value is None:
                continue
            if name == "time":
                fam, extra = "smembench_time_seconds", [("better", better)]
                help_ = "Median time of one launch of a smembench point"
            else:
                fam, extra = f"smembench_{bu}", [("metric", name), ("unit", unit)] + ([("better", better)] if better else [])
                help_ = f"smembench metrics in {bu.replace('_', ' ')} (the metric and its file unit in labels)"
            text = _labels(labels + extra)
            samples = families.setdefault(fam, (bu, help_, {}))[2]
            if text in samples:
                raise Usage(twice(f"{reader.point_name(r)} of one GPU", samples[text][0], (path, doc, r),
                                  "a series twice"))
            samples[text] = ((path, doc, r), f"{fam}{{{text}}} {value}")
    # a gauge of value 1 named *_info (as prometheus_build_info): the same text is OpenMetrics and
    # the Prometheus text format that the Pushgateway and promtool read, where "info" is no type
    lines = ["# TYPE smembench_build_info gauge",
             "# HELP smembench_build_info The smembench build that measured the samples."]
    lines += [f"smembench_build_info{{{_labels(zip(('version', 'commit', 'host'), b))}}} 1" for b in sorted(builds)]
    for fam in sorted(families, key=lambda f: (f != "smembench_time_seconds", f)):
        bu, help_, samples = families[fam]
        lines += [f"# TYPE {fam} gauge", f"# UNIT {fam} {bu}", f"# HELP {fam} {help_}."]
        lines += [line for _, line in samples.values()]
    return "\n".join(lines + ["# EOF"]) + "\n"


# the CSV's columns: one row per point and metric; q1 and q3 (of the time, in ns) on the time's row,
# noise and samples (of the point's time samples) on every row
CSV_COLUMNS = ("point", "bench", "params", "device", "cc", "device_index", "pci_bus_id", "uuid", "host", "commit",
               "date", "metric", "value", "unit", "better", "q1", "q3", "noise", "samples")


def _number(v):
    return "" if v is None else v if isinstance(v, int) else repr(float(v))


def to_csv(inputs):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for path, doc, r, dev in points(inputs):
        who = ident(doc, dev)
        s = reader.stats(r)
        point = dict(who, point=reader.point_name(r), bench=r["bench"],
                     params=",".join(f"{k}={v}" for k, v in sorted(r["params"].items())),
                     noise=_number(reader.robust_spread(r)), samples=_number(s.get("count")))
        for name, v, unit, better in metrics(r, path):
            row = dict(point, metric=name, value=_number(v), unit=unit, better=better or "",
                       q1=_number(s.get("q1")) if name == "time" else "",
                       q3=_number(s.get("q3")) if name == "time" else "")
            w.writerow([row[c] for c in CSV_COLUMNS])
    return buf.getvalue()


# asv (airspeed velocity): the results tree that `asv publish` reads (results/benchmarks.json,
# results/<machine>/machine.json, results/<machine>/<commit[:8]>-<env>.json) and an asv.conf.json.
# The layout and the version numbers are asv 0.6's (asv/results.py, benchmarks.py, machine.py).
ASV_RESULTS_VERSION, ASV_BENCHMARKS_VERSION, ASV_MACHINE_VERSION = 2, 2, 1
ASV_COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
               "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]
# asv reads every rise as a regression; its regressions page skips the benchmarks matched here
ASV_HIGHER = "higher_is_better"
ASV_NO_DIRECTION = "no_direction"     # a counter smembench.counters has no direction for
ASV_NO_REGRESSIONS = {rf"[^(]*\.{ASV_HIGHER}\.": None, rf"[^(]*\.{ASV_NO_DIRECTION}\.": None}
# past this many parameter combinations a benchmark's points are one "params" axis (k=v,k=v) in
# place of one asv parameter per axis, whose product asv stores for every combination
ASV_MAX_COMBINATIONS = 4096


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "gpu"


def asv_machine(doc, dev):
    """The asv machine of a point: its GPU unit, the model and the uuid's first 8 hex digits
    (nvidia-h200-gpu-cf20f41c), else the model, host and CUDA index."""
    uuid = dev.get("uuid")
    if uuid:
        return f"{_slug(dev.get('name'))}-{_slug(uuid[:12])}"
    return f"{_slug(dev.get('name'))}-{_slug(doc['run'].get('host') or 'host')}-gpu{dev.get('ordinal') or 0}"


def _asv_value(v):
    """An asv parameter value: the repr of the axis value, as asv writes a benchmark's params."""
    return repr(v) if isinstance(v, str) else "None" if v is None else str(v)


def _sorted_values(values):
    def key(text):
        try:
            return (0, float(text), "")
        except ValueError:
            return (1, 0.0, text)
    return sorted(values, key=key)


def _epoch_ms(iso):
    """A run's start (ISO 8601 UTC) as asv's JavaScript timestamp (ms since the epoch), None where
    the file has none."""
    try:
        t = datetime.datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return int(t.timestamp() * 1000)


# the one-sided tail of the 99 % interval, and its normal quantile z (Phi(-z) = 0.005)
CI_TAIL = 0.005
CI_Z = 2.5758293035489004
# up to this many samples the interval's rank is found in exact integers; above, from log
# probabilities (math.lgamma) summed from the normal approximation's rank: the same ranks (tested
# on every n from 8 to 3000), in microseconds instead of a time that grew as n^3 (6.8 s at 10 000
# samples, 61 s at 20 000; --max-samples allows 100 000)
CI_EXACT_N = 1000


def _ci_rank_exact(n):
    """The largest k with P(Binomial(n, 1/2) < k) <= CI_TAIL, in integers: sum of C(n, j) for
    j < k, times 1 / CI_TAIL, at most 2^n. 0 where there is none."""
    limit = 2 ** n          # sum * 200 <= 2^n  <=>  sum / 2^n <= 0.005
    scale = round(1 / CI_TAIL)
    below, c, k = 0, 1, 0   # c = C(n, k)
    while (below + c) * scale <= limit:
        below += c
        c = c * (n - k) // (k + 1)
        k += 1
    return k


def _log_pmf(n, j):
    return math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2)


def _cdf(n, k):
    """P(Binomial(n, 1/2) <= k) for k well below n / 2: the terms summed from k down until they no
    longer count (each under 1e-18 of the sum; in the tail a term is at most k / (n - k + 1) of the
    one above it)."""
    if k < 0:
        return 0.0
    top = _log_pmf(n, k)
    total, term, j = 0.0, 1.0, k
    while j >= 0 and term > 1e-18 * total:
        total += term
        term *= j / (n - j + 1)            # pmf(j - 1) / pmf(j)
        j -= 1
    return total * math.exp(top)


def _ci_rank_fast(n):
    """_ci_rank_exact's k for large n: the normal approximation's rank (with the continuity
    correction), moved to where P(B <= k - 1) <= CI_TAIL < P(B <= k)."""
    k = max(0, int(math.floor(n / 2 + 0.5 - CI_Z * math.sqrt(n) / 2)))
    while k > 0 and _cdf(n, k - 1) > CI_TAIL:
        k -= 1
    while _cdf(n, k) <= CI_TAIL:
        k += 1
    return k


def ci_rank(n):
    """The rank k of the distribution-free 99 % interval of the median of n samples: the interval
    is the k-th smallest to the k-th largest (0: none)."""
    return _ci_rank_exact(n) if n <= CI_EXACT_N else _ci_rank_fast(n)


def _median_ci99(raw):
    """The distribution-free 99 % interval of the median from the sorted samples (order statistics
    of Binomial(n, 1/2): ci_rank); None where n is too small for one (n < 8)."""
    n = len(raw)
    if n < 8:
        return None
    k = ci_rank(n)
    if k == 0:
        return None
    x = sorted(raw)
    return x[k - 1], x[n - k]


def asv_benchmarks(r, path):
    """(asv name, benchmarks.json entry less its params, value, stats or None, samples or None) of
    a point: the median time in seconds (a "time" benchmark, lower is better, the quartiles, the
    99 % interval of the median, the batch size and the sample count as asv's stats) and each
    performance metric a "track" benchmark with its unit; a metric better higher is named
    BENCH.higher_is_better.METRIC, which the asv.conf.json written here keeps off asv's regressions
    page (asv reads every rise as a regression)."""
    out = []
    for name, v, unit, better in metrics(r, path):
        if name == "time":
            s = reader.stats(r)
            stats = {"q_25": s.get("q1"), "q_75": s.get("q3"), "number": r["time_ns"].get("batch"),
                     "repeat": s.get("count")}
            stats = {k: (x / 1e9 if k.startswith("q_") and x is not None else x) for k, x in stats.items()}
            raw = r["time_ns"].get("raw") or []
            ci = _median_ci99(raw)
            if ci:
                stats.update(ci_99_a=ci[0] / 1e9, ci_99_b=ci[1] / 1e9)
            entry = {"type": "time", "unit": "seconds", "pretty_name": f"{r['bench']}: median time of one launch",
                     "code": f"smembench {r['bench']}: the median time of one launch (s), lower is better; "
                             "the quartiles and the 99 % interval of the median as its statistics"}
            out.append((f"{r['bench']}.time", entry, v / 1e9, stats, [x / 1e9 for x in raw] or None))
            continue
        higher = better == "higher"
        leaf = name.replace(".", "_")     # a counter's name has dots, asv's separator
        asv_name = f"{r['bench']}.{ASV_HIGHER}.{leaf}" if higher else f"{r['bench']}.{ASV_NO_DIRECTION}.{leaf}" \
            if better is None else f"{r['bench']}.{leaf}"
        said = f"{better} is better" if better else "no direction"
        entry = {"type": "track", "unit": unit, "pretty_name": f"{r['bench']}: {name} ({unit}), {said}",
                 "code": f"smembench {r['bench']}: the metric {name} in {unit}, {said}"
                         + ("; off asv's regressions page, which reads every rise as a regression"
                            if higher or better is None else "")}
        out.append((asv_name, entry, v, None, None))
    return out


def _asv_params(text):
    """A point's parameters from the one asv parameter "params" ("k=v,k=v")."""
    return dict(kv.split("=", 1) for kv in text.split(",") if "=" in kv) if text else {}


def asv_points_of(result, benchmarks):
    """The points of an asv result file already in a tree (asv's or this export's): {benchmark:
    [(params {axis: asv value}, value, stats, samples)]}, each point with a value, read by the file's
    own result_columns; a benchmark that benchmarks (the tree's benchmarks.json) does not describe
    is None (kept as it is)."""
    cols = result.get("result_columns") if isinstance(result, dict) else None
    rows = result.get("results") if isinstance(result, dict) else None
    if not isinstance(cols, list) or not isinstance(rows, dict):
        raise ValueError('no "result_columns" and "results"')
    out = {}
    for name, row in rows.items():
        entry = benchmarks.get(name)
        names = entry.get("param_names") if isinstance(entry, dict) else None
        if not isinstance(row, list) or not isinstance(names, list):
            out[name] = None
            continue

        def get(col):
            i = cols.index(col) if col in cols else len(row)
            return row[i] if i < len(row) else None
        values, plist = get("result"), get("params") or []
        if not isinstance(values, list):
            values = [values]
        combos = list(itertools.product(*plist)) if plist else [()]
        if len(combos) != len(values) or (names != ["params"] and len(names) != len(plist)):
            out[name] = None
            continue
        stat_cols = {f: get(f"stats_{f}") for f in ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat")}
        samples = get("samples")
        pts = []
        for i, (combo, v) in enumerate(zip(combos, values)):
            if v is None:
                continue
            params = _asv_params(combo[0]) if names == ["params"] else dict(zip(names, combo))
            stats = {f: c[i] for f, c in stat_cols.items() if isinstance(c, list) and i < len(c) and c[i] is not None}
            raw = samples[i] if isinstance(samples, list) and i < len(samples) else None
            pts.append((params, v, stats or None, raw))
        out[name] = pts
    return out


def asv_tree(inputs, commits, existing_benchmarks=None, existing_result=None, merged=None):
    """The asv results tree of the inputs: {relative path: JSON object} of results/benchmarks.json
    (merged with existing_benchmarks, an earlier tree's), each machine's machine.json and one
    results file per machine, commit and build. commits maps each file's tool.git to (full hash,
    commit time in ms since the epoch). One point of one GPU at one commit and build twice is an
    error (asv keeps one value per commit, machine and build). existing_result(relative path): the
    tree's result file of that name (a dict) or None; its points are merged into the new file's (the
    union of benchmarks and points; a point in both takes this export's value, and merged, a dict,
    counts "files", "kept" (values of the tree's files kept: a benchmark at a point) and "replaced"
    (values of them this export replaced))."""
    groups = {}      # (machine, hash, env) -> {"doc", "dev", "points": {asv name: {param tuple: ...}}}
    bench_axes = {}  # asv name -> (entry, {axis: set of values})
    seen = {}
    for path, doc, r, dev in points(inputs):
        git = str(doc["tool"].get("git", ""))
        full, date = commits[git]
        dirty = git.endswith("-dirty")
        code = dev.get("kernel_code")
        env = "smembench" + (f"-{code}" if code else "") + ("-dirty" if dirty else "")
        machine = asv_machine(doc, dev)
        key = (machine, full, env)
        g = groups.setdefault(key, {"doc": doc, "dev": dev, "dirty": dirty, "points": {}, "started_ms": None})
        ms = _epoch_ms(doc["run"].get("started"))
        if ms is not None:
            g["started_ms"] = min(g.get("started_ms") or ms, ms)
        params = {k: _asv_value(v) for k, v in r["params"].items()}
        where = (f"{reader.point_name({k: v for k, v in r.items() if k != 'device_index'})} of {machine} at "
                 f"{git} ({env})")
        if where in seen:
            raise Usage(twice(where, seen[where], (path, doc, r), "asv keeps one value per commit, machine and "
                              "build", "export each run into a tree of its own"))
        seen[where] = (path, doc, r)
        for name, entry, v, stats, raw in asv_benchmarks(r, path):
            e, axes = bench_axes.setdefault(name, (dict(entry, name=name), {}))
            for k, x in params.items():
                axes.setdefault(k, set()).add(x)
            g["points"].setdefault(name, []).append((params, v, stats, raw))
    benchmarks = dict(existing_benchmarks or {})
    for name, (entry, axes) in bench_axes.items():
        names = sorted(axes)
        old = benchmarks.get(name)
        if old and old.get("param_names") not in (names, ["params"]):
            raise Usage(f'benchmark {name} has the axes {", ".join(old.get("param_names") or []) or "none"} in the '
                        f'tree and {", ".join(names) or "none"} in the files; export into a new tree')
        values = {k: set(axes[k]) for k in names}
        if old and old.get("param_names") == names:
            for k, vs in zip(names, old.get("params", [])):
                values[k] |= set(vs)
        combos = math.prod(len(v) for v in values.values()) if names else 1
        if (old and old.get("param_names") == ["params"]) or combos > ASV_MAX_COMBINATIONS:
            names = ["params"]
        entry = dict(entry, param_names=names, version=None)
        entry["params"] = [] if not names or names == ["params"] else [_sorted_values(values[k]) for k in names]
        bench_axes[name] = (entry, axes)
        benchmarks[name] = entry
    files = {}
    for (machine, full, env), g in sorted(groups.items()):
        doc, dev = g["doc"], g["dev"]
        earlier = existing_result(f"results/{machine}/{full[:8]}-{env}.json") if existing_result else None
        kept_rows = {}
        if earlier is not None:
            old_points = asv_points_of(earlier, existing_benchmarks or {})
            counts = merged if merged is not None else {}
            counts["files"] = counts.get("files", 0) + 1
            for name, pts in old_points.items():
                if pts is None:          # a benchmark the tree does not describe: its row as it is
                    if name not in g["points"]:
                        kept_rows[name] = earlier["results"][name]
                    continue
                new_keys = {tuple(sorted(p.items())) for p, *_ in g["points"].get(name, [])}
                keep = [x for x in pts if tuple(sorted(x[0].items())) not in new_keys]
                counts["kept"] = counts.get("kept", 0) + len(keep)
                counts["replaced"] = counts.get("replaced", 0) + len(pts) - len(keep)
                if keep:
                    g["points"][name] = keep + g["points"].get(name, [])
                    entry = benchmarks.get(name)
                    if entry is not None and entry["param_names"] not in ([], ["params"]):
                        entry["params"] = [_sorted_values(set(vs) | {p.get(k, "None") for p, *_ in keep})
                                           for k, vs in zip(entry["param_names"], entry["params"])]
            at = earlier["results"] and [row[3] for row in earlier["results"].values()
                                         if isinstance(row, list) and len(row) > 3 and isinstance(row[3], int)]
            if at:
                g["started_ms"] = min([g["started_ms"]] + at) if g["started_ms"] is not None else min(at)
        files[f"results/{machine}/machine.json"] = {
            "machine": machine, "gpu": str(dev.get("name")), "cc": str(dev.get("cc") or ""),
            "uuid": str(dev.get("uuid") or ""), "sm_count": dev.get("sm_count"),
            "host": str(doc["run"].get("host", "")), "os": "", "arch": "", "cpu": str(dev.get("name")),
            "num_cpu": "", "ram": "", "version": ASV_MACHINE_VERSION}
        rows = {}
        for name, pts in g["points"].items():
            entry = benchmarks[name]
            names = entry["param_names"]
            if names == ["params"]:
                keyed = {(",".join(f"{k}={p[k]}" for k in sorted(p)),): rest for p, *rest in pts}
                plist = [sorted(k[0] for k in keyed)]
                entry["params"] = [_sorted_values(set(entry["params"][0] if entry["params"] else []) | set(plist[0]))]
            else:
                keyed = {tuple(p.get(k, "None") for k in names): rest for p, *rest in pts}
                plist = [_sorted_values({k[i] for k in keyed}) for i in range(len(names))]
            combos = list(itertools.product(*plist)) if names else [()]
            got = [keyed.get(c) for c in combos]
            value = [x[0] if x else None for x in got]
            stats = [x[1] if x else None for x in got]
            raw = [x[2] if x else None for x in got]

            def column(field):
                col = [s.get(field) if s else None for s in stats]
                return None if all(x is None for x in col) else col
            row = [value, plist, None, g["started_ms"], None]
            row += [column(f) for f in ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat")]
            row += [None if all(x is None for x in raw) else raw, None]
            while row and row[-1] is None:
                row.pop()
            rows[name] = row
        rows.update(kept_rows)
        params = {"machine": machine, "gpu": str(dev.get("name")), "cc": str(dev.get("cc") or ""),
                  "build": reader.code_label(doc, dev) or "not recorded", "tree": "dirty" if g["dirty"] else "clean"}
        files[f"results/{machine}/{full[:8]}-{env}.json"] = {
            "commit_hash": full, "env_name": env, "date": commits[str(doc["tool"].get("git", ""))][1],
            "params": params, "python": "", "requirements": {}, "env_vars": {},
            "result_columns": ASV_COLUMNS, "results": rows,
            "durations": {}, "version": ASV_RESULTS_VERSION}
    files["results/benchmarks.json"] = dict(benchmarks, version=ASV_BENCHMARKS_VERSION)
    return files


def asv_conf(repo_rel, branch):
    """The asv.conf.json of a new tree: the repository asv resolves commits in (relative to the
    tree), the branch whose first-parent history orders them, the results and html directories, and
    the higher-is-better benchmarks off the regressions page."""
    return {"version": 1, "project": "smembench", "project_url": "#", "repo": repo_rel, "dvcs": "git",
            "branches": [branch], "results_dir": "results", "html_dir": "html", "show_commit_url": "#",
            "regressions_first_commits": ASV_NO_REGRESSIONS}


def _git(repo, *args, said=None):
    """git -C repo ARGS: its stdout, None where it fails (its stderr's last line then in said[0])."""
    p = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)
    if p.returncode and said is not None:
        lines = [x.strip() for x in p.stderr.splitlines() if x.strip()]
        said[:] = [next((x for x in lines if x.startswith("fatal:")), lines[-1] if lines else "")]
    return p.stdout.strip() if p.returncode == 0 else None


def asv_commits(repo, branch, docs):
    """(full hash, commit time in ms) of each file's tool.git ("861aea4", "37b32c3-dirty") in the git
    repository repo, on the first-parent history of branch (asv publish places a result by that
    history and drops one off it), and the repository's top directory; Usage in one line for a
    repository that is none, a commit it lacks or one off the branch."""
    if shutil.which("git") is None:
        raise Usage("--format asv resolves each file's commit with git, which is not installed")
    said = [""]
    top = _git(repo, "rev-parse", "--show-toplevel", said=said) or (_git(repo, "rev-parse", "--absolute-git-dir"))
    if top is None:
        why = said[0][:200]
        hint = ("git does not take it (a clone another user owns: git config --global --add safe.directory "
                f"{os.path.abspath(repo)})" if "dubious ownership" in why else
                "a source tarball or a copy of the tree without its .git has no commits")
        raise Usage(f"--repo {repo} is no git repository{f' (git: {why})' if why else ''}: {hint}; asv publish "
                    "orders results by the commits of the project's clone: give --repo that clone (with its history: "
                    "actions/checkout fetch-depth: 0)")
    if _git(repo, "rev-parse", "--verify", "-q", f"{branch}^{{commit}}") is None:
        raise Usage(f'no branch "{branch}" in {repo}; give --branch the branch the results were measured on')
    first_parent = set((_git(repo, "rev-list", "--first-parent", branch) or "").split())
    out = {}
    for path, doc in docs:
        git = str(doc["tool"].get("git", ""))
        if git in out:
            continue
        short = git[:-len("-dirty")] if git.endswith("-dirty") else git
        if not re.fullmatch(r"[0-9a-f]{4,40}", short):
            raise Usage(f'{path}: tool.git is "{git[:60]}", no commit: the build that wrote it was made outside a git '
                        "clone (a source tarball); asv places each result by its commit: build smembench in a clone, "
                        "or set SMEM_GIT_REV=COMMIT at meson setup, or export the file in another format")
        full = _git(repo, "rev-parse", "--verify", "-q", f"{short}^{{commit}}") if re.fullmatch(r"[0-9a-f]{4,40}",
                                                                                                  short) else None
        if full is None:
            raise Usage(f'{path}: commit "{git}" (tool.git) is not in the repository {repo}; asv places a result by '
                        "its commit: give --repo a clone that holds it")
        if full not in first_parent:
            raise Usage(f"{path}: commit {short} is not on the first-parent history of {branch} in {repo}, which asv "
                        "publish shows alone; give --branch the branch it was measured on")
        out[git] = (full, int(_git(repo, "show", "-s", "--format=%ct", full)) * 1000)
    return out, top
