"""Result files in dashboards' formats (the export command, and smembench.to_dataframe(long=True)
through to_csv): github-action-benchmark's two lists, Bencher Metric Format, OpenMetrics and CSV,
each metric with its unit and direction. smembench-export's --help says what each holds.
"""
import csv
import io
import json
import math
import re

from smembench import reader
from smembench.cli import Usage

FORMATS = ("gab-smaller", "gab", "gab-bigger", "bmf", "openmetrics", "csv")
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
    return out


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
            raise Usage(f"{name} is in both {seen[name]} and {path} (one point of one GPU twice); export the "
                        "runs separately")
        seen[name] = path
        out.append((name, path, doc, r, dev))
    return out


def gab(inputs, bigger):
    out = []
    for point, path, doc, r, dev in named_points(inputs):
        s = reader.stats(r)
        who = ident(doc, dev)
        extra = (f"{who['device']} {who['pci_bus_id']}".rstrip() + f"; commit {who['commit']}; "
                 f"{s.get('count')} samples")
        for name, v, unit, better in metrics(r, path):
            if (better == "higher") != bigger:
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
                fam, extra = f"smembench_{bu}", [("metric", name), ("unit", unit), ("better", better)]
                help_ = f"smembench metrics in {bu.replace('_', ' ')} (the metric and its file unit in labels)"
            text = _labels(labels + extra)
            samples = families.setdefault(fam, (bu, help_, {}))[2]
            if text in samples:
                raise Usage(f"{reader.point_name(r)} of one GPU is in both {samples[text][0]} and {path} "
                            "(a series twice); export the runs separately")
            samples[text] = (path, f"{fam}{{{text}}} {value}")
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
            row = dict(point, metric=name, value=_number(v), unit=unit, better=better,
                       q1=_number(s.get("q1")) if name == "time" else "",
                       q3=_number(s.get("q3")) if name == "time" else "")
            w.writerow([row[c] for c in CSV_COLUMNS])
    return buf.getvalue()
