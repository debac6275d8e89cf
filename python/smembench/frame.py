"""The pandas side of the package: result files as tidy DataFrames (smembench.to_dataframe and
smembench.samples are these functions; see the package's docstring and docs/tools.md).

Inputs are gathered by documents(): a path, a folder, a glob pattern, a loaded document, a (path,
document) pair, or an iterable of those. pandas is imported only here, when a frame is asked for.
"""
from __future__ import annotations

import glob
import io
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional, Union

from smembench import counters as smem_counters
from smembench import reader

# one input of to_dataframe(), samples() and load(): a path, a loaded document or a (path, document) pair
Source = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", Mapping[str, Any],
               "tuple[Union[str, os.PathLike[str]], Mapping[str, Any]]"]
Sources = Union[Source, Iterable[Source]]

# the columns every wide frame has, in this order; param_<axis>, launch_*, occupancy_* and the
# metrics follow (see wide())
IDENTITY = ("file", "host", "commit", "version", "started", "mode", "sweep", "device", "device_index", "cc",
            "uuid", "pci_bus_id", "build_gpu_code", "build_ptx_only", "build_nvcc", "build_type", "kernel_code",
            "bench", "kernel", "point", "status", "reason", "verified")
TIMES = ("time_min", "time_q1", "time_median", "time_q3", "time_max", "time_mean", "time_stdev")
TIMING = TIMES + ("robust_spread", "samples", "batch", "throttled", "clock", "trials", "trial_spread")
CATEGORIES = ("mode", "sweep", "device", "cc", "build_gpu_code", "build_type", "kernel_code", "bench", "kernel",
              "status", "occupancy_limiter", "counters_status")
# units of the fixed columns that have one (metrics take theirs from the file)
UNITS = dict({t: "ns" for t in TIMES}, robust_spread="1", clock="MHz", trial_spread="1",
             launch_grid="blocks", launch_block="threads", launch_static_smem="B", launch_dynamic_smem="B",
             launch_regs="registers/thread", launch_carveout_requested="%",
             occupancy_api="blocks/SM", occupancy_predicted="blocks/SM", occupancy_measured="blocks/SM",
             occupancy_warps_per_sm="warps/SM", occupancy_pct="%", occupancy_effective_carveout="%",
             occupancy_measured_sms="SMs", occupancy_probe_regs="registers/thread")


def _is_path(x: object) -> bool:
    return isinstance(x, (str, bytes, os.PathLike))


def _folder(name: str) -> Iterator[tuple[str, dict]]:
    for f in sorted(os.listdir(name)):
        p = os.path.join(name, f)
        if f.endswith(".json") and os.path.isfile(p) and not reader.not_results(p):
            yield p, reader.load(p)


def is_glob(name: str) -> bool:
    """A path that holds glob characters (read as a pattern only where no such file exists)."""
    return any(c in name for c in "*?[")


def documents(item: Sources, top: bool = True, what: str = "to_dataframe") -> Iterator[tuple[Optional[str], dict]]:
    """(file name or None, checked document) for one input: a path, a folder (its result files,
    sorted; other JSON skipped), a glob pattern that names no existing file (its matches, sorted,
    "**" recursive; a matched folder read as a folder, matched JSON that is no result skipped), a
    document, a (path, document) pair, or at the top an iterable of those."""
    if _is_path(item):
        name = os.fsdecode(item)
        if os.path.isdir(name):
            yield from _folder(name)
            return
        if not os.path.lexists(name) and is_glob(name):
            matches = sorted(glob.glob(name, recursive=True))
            if not matches:
                raise reader.ResultError(f"{name}: no file matches the pattern")
            for p in matches:
                if os.path.isdir(p):
                    yield from _folder(p)
                elif not reader.not_results(p):
                    yield p, reader.load(p)
            return
        yield name, reader.load(item)
    elif isinstance(item, Mapping):
        yield None, reader.check(dict(item) if not isinstance(item, dict) else item)
    elif isinstance(item, tuple) and len(item) == 2 and _is_path(item[0]) and isinstance(item[1], Mapping):
        name = os.fsdecode(item[0])
        yield name, reader.check(item[1], name)
    elif top and not isinstance(item, (bool, int, float)) and hasattr(item, "__iter__"):
        for x in item:
            yield from documents(x, top=False, what=what)
    else:
        raise TypeError(f"{what} takes a result file's path, a folder of them, a glob pattern, a loaded document, "
                        f"a (path, document) pair or an iterable of those; got {type(item).__name__}")


def pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("smembench's DataFrames need pandas: apt install python3-pandas "
                          "(or pip install pandas)") from None
    return pandas


def _device_columns(doc: dict, r: dict) -> dict:
    dev = reader.device_of(doc, r)
    return {"device": dev.get("name"), "device_index": dev.get("ordinal", r.get("device_index")),
            "cc": dev.get("cc"), "uuid": dev.get("uuid"), "pci_bus_id": dev.get("pci_bus_id")}


def _build_columns(doc: dict, r: dict) -> dict:
    """The build that wrote the file (tool.build) and how this point's device ran it
    (device.kernel_code: sass, ptx_jit, none, unknown); missing for a file before builds were
    recorded. gpu_code is one label, "sm_90,compute_80", so that it groups as a category."""
    b = reader.build(doc) or {}
    code = b.get("gpu_code")
    return {"build_gpu_code": ",".join(code) if code is not None else None, "build_ptx_only": b.get("ptx_only"),
            "build_nvcc": b.get("nvcc"), "build_type": b.get("buildtype"),
            "kernel_code": reader.device_of(doc, r).get("kernel_code")}


def _identity(path: Optional[str], doc: dict, r: dict) -> dict:
    run = doc["run"]
    row = {"file": path, "host": run.get("host"), "commit": doc["tool"].get("git"),
           "version": doc["tool"].get("version"), "started": run.get("started"), "mode": run.get("mode"),
           "sweep": r.get("sweep") or run.get("sweep")}
    row.update(_device_columns(doc, r))
    row.update(_build_columns(doc, r))
    # a user kernel's point (smembench --kernel): the code file its function (bench) came from
    row.update(bench=r["bench"], kernel=(doc["kernel"].get("file") if reader.user_point(doc, r) else None),
               point=reader.point_name(r), status=r.get("status"), reason=r.get("reason"), verified=r.get("verified"))
    return row


def _wide_row(path: Optional[str], doc: dict, r: dict, units: dict, better: dict, named: dict) -> dict:
    row = _identity(path, doc, r)
    t = r.get("time_ns") or {}
    s = reader.stats(r)
    timed = reader.timed(r)
    for k in TIMES:
        row[k] = s.get(k[5:]) if timed else None
    row["robust_spread"] = reader.robust_spread(r) if timed else None
    row["samples"] = s.get("count")
    row["batch"] = t.get("batch")
    th = t.get("throttled")
    row["throttled"] = th.get("count") if isinstance(th, dict) else None
    row["clock"] = r.get("clock_mhz")
    tr = r.get("trials")
    row["trials"] = tr.get("count") if isinstance(tr, dict) else None
    row["trial_spread"] = tr.get("spread") if isinstance(tr, dict) else None
    for k, v in r["params"].items():
        row[f"param_{k}"] = v
    for k, v in (r.get("launch") or {}).items():
        row[f"launch_{k}"] = v
    for k, v in (r.get("occupancy") or {}).items():
        row[k if k == "occupancy_pct" else f"occupancy_{k}"] = v
    for name in r.get("metrics") or {}:
        col = name if name not in row and name not in UNITS else f"metric_{name}"
        row[col] = reader.metric(r, name)
        units.setdefault(col, reader.unit(r, name))
        b = reader.better(r, name)
        if b:
            better.setdefault(col, b)
    st, _ = reader.counter_status(r)
    if st is not None:
        row["counters_status"] = st
        row["counters_passes"] = (r.get("counters") or {}).get("passes")
    for name, e in reader.counters(r).items():
        col = counter_column(name)
        row[col] = e["value"]
        if e["unit"]:
            units.setdefault(col, e["unit"])
        b = smem_counters.better(name)
        if b:
            better.setdefault(col, b)
        named.setdefault(col, {"name": name, "kind": e["kind"]})
    return row


def counter_column(name: str) -> str:
    """A counter's column: counter_ and its metric name in the characters a column name keeps
    (l1tex__t_sector_hit_rate.pct: counter_l1tex__t_sector_hit_rate_pct)."""
    return "counter_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def _ints(col) -> bool:
    vals = [v for v in col if v is not None]
    return bool(vals) and all(isinstance(v, int) and not isinstance(v, bool) for v in vals)


def _bools(col) -> bool:
    vals = [v for v in col if v is not None]
    return bool(vals) and all(isinstance(v, bool) for v in vals)


def _column(pd, name: str, values: list):
    """One column with a real dtype: Int64 for integers, boolean for flags, UTC datetimes for the
    start, categories for what names a group, float64 for other numbers, object for text."""
    if name == "started":
        return pd.to_datetime(pd.Series(values, dtype="object"), utc=True)
    if name in CATEGORIES:
        return pd.Series(values, dtype="category")
    if _bools(values):
        return pd.Series(values, dtype="boolean")
    if _ints(values) and name not in ("file", "host", "commit", "version", "uuid", "point", "reason", "build_nvcc"):
        return pd.Series(values, dtype="Int64")
    vals = [v for v in values if v is not None]
    if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return pd.Series([float("nan") if v is None else float(v) for v in values], dtype="float64")
    return pd.Series(values, dtype="object")


# the dtype of a fixed column where no row has a value (a file before trials, or no row at all)
EMPTY = dict({k: "Int64" for k in TIMES + ("samples", "batch", "throttled", "trials", "device_index")},
             robust_spread="float64", clock="float64", trial_spread="float64", verified="boolean",
             build_ptx_only="boolean", build_nvcc="object",
             started="datetime64[ns, UTC]", **{k: "category" for k in CATEGORIES})


def _group(name: str, last: frozenset = frozenset()) -> int:
    """param_*, launch_*, occupancy_*, the metrics, then the columns in last (the counters)."""
    if name in last:
        return 5
    return next((i for i, p in enumerate(("param_", "launch_", "occupancy_"), 1) if name.startswith(p)), 4)


def _frame(pd, rows: list, first: tuple, last: frozenset = frozenset()):
    """The rows as a frame: the fixed columns first, then every row's param_*, launch_*, occupancy_*
    and metric columns, each group in the order of first appearance."""
    seen, later = set(first), []
    for row in rows:
        for k in row:
            if k not in seen:
                seen.add(k)
                later.append(k)
    names = list(first) + sorted(later, key=lambda k: (_group(k, last), later.index(k)))
    data = {}
    for k in names:
        col = [row.get(k) for row in rows]
        data[k] = pd.Series(col, dtype=EMPTY[k]) if k in EMPTY and all(v is None for v in col) \
            else _column(pd, k, col)
    return pd.DataFrame(data, columns=names)


def wide(sources: Sources):
    """One row per point (per device of a several-device file); see smembench.to_dataframe."""
    pd = pandas()
    rows, units, better, named = [], {}, {}, {}
    for path, doc in documents(sources):
        rows.extend(_wide_row(path, doc, r, units, better, named) for r in doc["results"])
    df = _frame(pd, rows, IDENTITY + TIMING, frozenset(named) | {"counters_status", "counters_passes"})
    for col in named:       # a counter null at every point is still a number column
        if str(df[col].dtype) != "float64":
            df[col] = df[col].astype("float64")
    df.attrs["units"] = {k: u for k, u in dict(UNITS, **units).items() if k in df.columns and u}
    df.attrs["better"] = dict({t: "lower" for t in TIMES}, **better)
    if named:
        df.attrs["counters"] = named
    return df


def _long_column(pd, name: str, values: list):
    if name == "date":
        return pd.to_datetime(pd.Series([v or None for v in values], dtype="object"), utc=True)
    if name in ("value", "noise"):
        return pd.Series([float(v) if v else float("nan") for v in values], dtype="float64")
    if name in ("q1", "q3"):   # integers in ns in today's files; a float where a file has one
        parsed = [None if v == "" else int(v) if v.lstrip("-").isdigit() else float(v) for v in values]
        return _column(pd, name, parsed) if parsed else pd.Series([], dtype="Int64")
    if name in ("samples", "device_index"):
        return pd.Series([int(v) if v else None for v in values], dtype="Int64")
    if name in ("bench", "device", "cc", "metric", "unit", "better"):
        return pd.Series([v or None for v in values], dtype="category")
    return pd.Series([v or None for v in values], dtype="object")


def long(sources: Sources):
    """The rows and columns of export --format csv, typed; see smembench.to_dataframe."""
    import csv
    from smembench import dashboards
    pd = pandas()
    cells = []
    for path, doc in documents(sources):
        if not reader.timed_points(doc):
            continue            # export refuses a file without a timed point; here it adds no row
        try:
            text = dashboards.to_csv([(path if path is not None else "<document>", doc)])
        except dashboards.Usage as e:
            raise reader.ResultError(str(e)) from None
        cells.extend(list(csv.reader(io.StringIO(text)))[1:])
    cols = dashboards.CSV_COLUMNS
    df = pd.DataFrame({c: _long_column(pd, c, [row[i] for row in cells]) for i, c in enumerate(cols)},
                      columns=list(cols))
    df.attrs["units"] = {"q1": "ns", "q3": "ns", "noise": "1"}
    return df


# samples()'s columns that name what a sample belongs to: one value per point, categories (a 200 MB
# file has 25 million samples: as Python objects these columns alone took gigabytes)
SAMPLE_LABELS = ("file", "host", "commit", "sweep", "device", "uuid", "bench", "point")


def samples(sources: Sources):
    """One row per raw sample; see smembench.samples. Built with NumPy a point at a time: each
    file's samples go into one int64 array while it is read (the document is let go before the
    frame is made), what names a point is kept once per point and repeated by its sample count at
    the end, what names a point a category (as Python objects a column of 25 million rows is
    200 MB of pointers)."""
    pd = pandas()
    import numpy as np
    labels: dict[str, list] = {k: [] for k in SAMPLE_LABELS}
    started, index, counts, trial_counts = [], [], [], []
    params: dict[str, list] = {}
    times = []
    n_points = 0
    for path, doc in documents(sources, what="samples"):
        pts = [r for r in doc["results"] if (r.get("time_ns") or {}).get("raw")]
        total = sum(len(r["time_ns"]["raw"]) for r in pts)
        t = np.empty(total, dtype=np.int64 if all(reader._is_int_list(r["time_ns"]["raw"]) for r in pts)
                     else np.float64)
        at = 0
        for r in pts:
            raw = r["time_ns"]["raw"]
            t[at:at + len(raw)] = raw
            at += len(raw)
            ident = _identity(path, doc, r)
            for k in SAMPLE_LABELS:
                labels[k].append(ident[k])
            started.append(ident["started"])
            index.append(ident["device_index"])
            counts.append(len(raw))
            trial_counts.append(_trial_counts(r, len(raw)))
            for k, v in r["params"].items():
                params.setdefault(k, [None] * n_points).append(v)
            n_points += 1
            for k in params:
                params[k].extend([None] * (n_points - len(params[k])))
        times.append(t)
        del doc, pts
    del r, raw, ident
    total = sum(counts)
    data = {}
    for k in SAMPLE_LABELS[:3]:
        data[k] = _spread_category(pd, np, labels[k], counts, total)
    data["started"] = _spread_started(pd, np, started, counts, total)
    for k in SAMPLE_LABELS[3:]:
        data[k] = _spread_category(pd, np, labels[k], counts, total)
    data["device_index"] = _spread_ints(pd, np, index, counts, total, np.int16)
    # a sample's trial (its index in trials.runs), where the point's trial sample counts add up
    trial = np.zeros(total, dtype=np.int16)
    known = np.zeros(total, dtype=bool)
    # a sample's index among its point's samples
    sample = np.empty(total, dtype=np.int32)
    at = 0
    for c, tc in zip(counts, trial_counts):
        sample[at:at + c] = np.arange(c, dtype=np.int32)
        if tc is not None:
            for i, k in enumerate(tc):
                trial[at:at + k] = i
                at += k
            known[at - c:at] = True
        else:
            at += c
    data["trial"] = pd.arrays.IntegerArray(trial, ~known)
    data["sample"] = sample
    data["time_ns"] = times[0] if len(times) == 1 else np.concatenate(times) if times else np.empty(0, np.int64)
    del times, trial, known, sample
    for k, v in params.items():
        data[f"param_{k}"] = _spread_ints(pd, np, v, counts, total, np.int64, plain=True)
    # copy=False: each column is the array made here (pandas 1.5 keeps them as blocks of their own),
    # not a copy of every int64 column into one block
    df = pd.DataFrame(data, copy=False)
    df.attrs["units"] = {"time_ns": "ns"}
    return df


def _spread(np, values: list, counts: list, total: int, dtype):
    """Each point's value repeated by its sample count, as one array (a slice filled a point)."""
    if values and all(v == values[0] for v in values):
        return np.full(total, values[0], dtype=dtype)
    out = np.empty(total, dtype=dtype)
    at = 0
    for v, c in zip(values, counts):
        out[at:at + c] = v
        at += c
    return out


def _spread_category(pd, np, values: list, counts: list, total: int):
    """A category column: each point's value repeated by its sample count (None missing)."""
    cats = list(dict.fromkeys(v for v in values if v is not None))
    code = {v: i for i, v in enumerate(cats)}
    dtype = np.int8 if len(cats) < 127 else np.int16 if len(cats) < 32767 else np.int32
    codes = _spread(np, [code[v] if v is not None else -1 for v in values], counts, total, dtype)
    return pd.Categorical.from_codes(codes, categories=cats)


def _spread_started(pd, np, values: list, counts: list, total: int):
    per_point = pd.to_datetime(pd.Series(values, dtype="object"), utc=True)
    stamps = per_point.dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")
    out = _spread(np, list(stamps.view(np.int64)), counts, total, np.int64).view("datetime64[ns]")
    return pd.arrays.DatetimeArray(out, dtype=pd.DatetimeTZDtype(tz="UTC"))


def _spread_ints(pd, np, values: list, counts: list, total: int, dtype, plain=False):
    """An integer column from one value a point: plain (a parameter every point has: seaborn 0.12
    cannot draw a nullable axis) or nullable where some point lacks it; object for values that are
    not all integers."""
    vals = [v for v in values if v is not None]
    if vals and not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return _spread(np, values, counts, total, object)
    missing = [v is None for v in values]
    ints = _spread(np, [0 if v is None else v for v in values], counts, total, dtype)
    if plain and not any(missing):
        return ints
    return pd.arrays.IntegerArray(ints, _spread(np, missing, counts, total, bool))


def _trial_counts(r: dict, n: int):
    """The point's samples per trial (trials.runs in order), or None where the file records no
    trials or their counts do not add up to the samples (throttled samples left out)."""
    runs = (r.get("trials") or {}).get("runs") if isinstance(r.get("trials"), dict) else None
    counts = [x.get("samples") for x in runs] if isinstance(runs, list) else []
    if not counts or not all(isinstance(c, int) and c >= 0 for c in counts) or sum(counts) != n:
        return None
    return counts
