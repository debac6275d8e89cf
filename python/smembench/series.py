"""What a figure draws as one line or one bar group: a series is one file (one device of it) and the
values of the axes it holds fixed, or the runs of one GPU unit and one build (aggregate). Two files of
one GPU and one day are two series, labelled by what tells them apart (unit, sweep, settings, extra
axes, commit; the start time only where nothing else differs); AGGREGATE_FROM or more runs of one
unit, build, commit and settings are one series, the median of the runs at each point with the
runs' range as a band (never an overlay of a line per run). Where a file varies an axis the figure does not plot (a
footprint run with --axis tile_bytes=8192,49152,100000), its points are split into a series per value
(split; never a predict-mode file, whose predictions do not depend on the axes a figure leaves out)."""
import math
import os
import statistics

from smembench import inputs
from smembench import reader
from smembench import tool


class Series:
    """One device's points from one file, with the axis values it was split on (fixed)."""

    def __init__(self, doc, path, index=0, label=None, fixed=None, runs=None, units=None, hue=None):
        self.doc = doc
        self.path = path
        self.index = index
        self.fixed = dict(fixed or {})     # axis -> value this series holds (split)
        self.runs = runs        # the series of the runs it is the median of (aggregate), or None
        self.units = units      # the units' series it is the median of (pool), or None
        self.hue = index if hue is None else hue   # its colour where a colour means a unit: its place in the input
        self.label = label or reader.device_label(doc)
        self.short = self.label     # the label less the device every series of the figure shares
        self._by_bench = None

    def points(self, bench):
        """The points of bench that ran (or, in predict mode, were predicted)."""
        if self._by_bench is None:
            by = {}
            for r in self.doc["results"]:
                if r["status"] in ("ok", "predicted"):
                    by.setdefault(r["bench"], []).append(r)
            self._by_bench = by
        return list(self._by_bench.get(bench, ()))

    def timed(self, bench):
        return [r for r in self.points(bench) if time_us(r) is not None]

    def only(self, keep):
        """The same series (label, index) over the points for which keep(point) holds."""
        doc = dict(self.doc, results=[r for r in self.doc["results"] if keep(r)])
        return Series(doc, self.path, self.index, self.label, self.fixed, self.runs, self.units, self.hue)

    @property
    def model(self):
        """The GPU model the series ran on (or predicts): overlays of one model compare absolute values."""
        return self.doc["device"].get("name")


def time_us(r):
    t = reader.stats(r).get("median")
    return t / 1e3 if isinstance(t, (int, float)) and math.isfinite(t) and t > 0 else None


# how many runs of one unit, build, commit and settings become one series (a median and a band): from
# two on (issue 52: the layout rule, smembench.layout: runs of one unit are their median and band)
AGGREGATE_FROM = 2
# past this many series (a handful) the input is a wall of lines however it is drawn: the runs of a
# unit become one series from two runs on (aggregate)
HANDFUL = 6
# from this many measured series of one GPU model on, a figure that overlays a line per series (or
# draws a panel per series) draws instead their median with the units' range as a band (pool), and
# beside it the change of each one against that median, by benchmark (figures.common.change_panel):
# three units overlay readably; more hide the one that differs under the others
POOL_FROM = 4
# settings that differ from run to run by design and tell nothing apart: the seed of the order the
# points ran in (--order random draws one per run)
PER_RUN = ("order_seed",)


# the options that choose what a run measures (its plan): runs of one unit that differ in them are not
# runs of one thing (a --bench staging_bulk run beside a --sweep staging one, an --axis override)
PLAN_OPTIONS = ("--sweep", "-s", "--bench", "-b", "--axis", "-a", "--kernel", "--launch")


def _plan(argv, options=PLAN_OPTIONS):
    """The plan options of a run's argv and their values, in order (--axis=x and --axis x alike)."""
    out, argv = [], [str(a) for a in (argv or [])]
    for i, a in enumerate(argv):
        name = a.split("=", 1)[0]
        if name in options:
            out.append(a if "=" in a else f"{a}={argv[i + 1] if i + 1 < len(argv) else ''}")
    return tuple(out)


def _run_key(s):
    """What runs of one series share: the GPU unit (model, uuid, position), the build and how it ran,
    the commit, the mode, the sweep and the plan options (_plan), the settings and the axes the series
    was split on."""
    d, run = s.doc, s.doc["run"]
    dev = d["device"]
    return (dev.get("name"), dev.get("uuid"), dev.get("ordinal"), repr(d["tool"].get("build")), dev.get("kernel_code"),
            d["tool"].get("git"), run.get("mode"), run.get("sweep"), _plan(run.get("argv")), repr(sorted((k, v) for k, v in (run.get("settings") or {}).items() if k not in PER_RUN)),
            repr(sorted(s.fixed.items())))


def _median_record(members):
    """One point from the same point of several runs: the first run's record with the median of the
    runs' median times and of each metric; runs keeps the count and each run's record (for bands)."""
    # a copy of what changes (the time's statistics, the metrics); the rest is shared with the first
    # run's record, read only (a deep copy of every record's raw samples took 1.5 s of 15 files' plot)
    r = dict(members[0])
    meds = [m for m in (reader.stats(x).get("median") for x in members) if isinstance(m, (int, float))]
    if isinstance(r.get("time_ns"), dict):
        r["time_ns"] = dict(r["time_ns"])
        if isinstance(r["time_ns"].get("stats"), dict):
            r["time_ns"]["stats"] = dict(r["time_ns"]["stats"])
    st = (r.get("time_ns") or {}).get("stats")
    if isinstance(st, dict) and meds:
        st.update(median=statistics.median(meds), min=min(meds), max=max(meds))
        st.pop("q1", None), st.pop("q3", None)
    if isinstance(r.get("metrics"), dict):
        r["metrics"] = {k: dict(m) if isinstance(m, dict) else m for k, m in r["metrics"].items()}
    for name, m in (r.get("metrics") or {}).items():
        vals = [v for v in (reader.metric(x, name) for x in members) if v is not None]
        if isinstance(m, dict) and vals:
            m["value"] = statistics.median(vals)
    r["runs"] = {"count": len(members), "members": members}
    return r


def _aggregate(group, index):
    """The runs of one unit and build as one series: at each point the median of the runs (a point of
    one run only is that run's); members(r) gives the runs' records of a point."""
    by, order = {}, []
    for s in group:
        for r in s.doc["results"]:
            k = reader.point_key(r)
            if k not in by:
                order.append(k)
            by.setdefault(k, []).append(r)
    results = []
    for k in order:
        ok = [r for r in by[k] if r["status"] in ("ok", "predicted")]
        results.append(_median_record(ok) if len(ok) > 1 else (ok or by[k])[0])
    return Series(dict(group[0].doc, results=results), group[0].path, index, fixed=group[0].fixed, runs=list(group),
                  hue=group[0].hue)


def members(r):
    """The runs' records of an aggregated point, or [r] for a point of one run."""
    runs = r.get("runs") if isinstance(r, dict) else None
    return runs["members"] if isinstance(runs, dict) and runs.get("members") else [r]


def aggregate(series, least=None):
    """The series with each AGGREGATE_FROM (least) or more runs of one unit, build, commit and settings
    made one series (at the place of its first run); where that leaves more than HANDFUL series, the
    runs of a unit are one series from two on. Predict-mode files are never aggregated (a model gives
    the same answer every run). Each series' hue is its place in the result (a unit's colour), where
    least is not given; with least, the hue of its first run."""
    out = _fold(series, least or AGGREGATE_FROM)
    if least is None and len(out) > HANDFUL:
        out = _fold(series, 2)
    if least is None:
        for i, s in enumerate(out):
            s.hue = i
    return out


def _fold(series, least):
    groups = {}
    for s in series:
        if s.doc["run"].get("mode") != "predict" and s.doc["device"].get("uuid"):
            groups.setdefault(_run_key(s), []).append(s)
    out, done = [], set()
    for s in series:
        g = groups.get(_run_key(s)) if s.doc["run"].get("mode") != "predict" and s.doc["device"].get("uuid") else None
        if not g or len(g) < least:
            out.append(s)
        elif id(g) not in done:
            done.add(id(g))
            out.append(_aggregate(g, len(out)))
    return out


def _pool_key(s):
    """What series pooled into one share: the model, the mode, how the kernels ran (a JIT-compiled
    run is not a unit of the cubin's), the settings that change what a point measures, the axes the
    series was split on and the --bench/--axis options that chose its points; not the unit, the
    commit, the sweep or the start time."""
    d, st = s.doc, _settings(s.doc)
    return (d["device"].get("name"), d["run"].get("mode"), d["device"].get("kernel_code") == "ptx_jit",
            bool(st.get("quick")), bool(st.get("cold")), bool(st.get("no_optin")), repr(sorted(s.fixed.items())),
            _plan(d["run"].get("argv"), PLAN_OPTIONS[2:]))


def crowded(series, least=POOL_FROM):
    """The pool keys of which series has least (POOL_FROM) or more measured series (units or runs)."""
    count = {}
    for s in series:
        if s.doc["run"].get("mode") != "predict":
            count[_pool_key(s)] = count.get(_pool_key(s), 0) + 1
    return {k for k, n in count.items() if n >= least}


def pool(series, benches=None, least=POOL_FROM):
    """The series with every POOL_FROM or more measured series of one model (and settings, _pool_key)
    made one: at each point the median of the series' values, the band their lowest and highest
    (the units' medians, not the runs': each unit one vote), labelled as such (relabel). The series
    of fewer stay as they are. A figure draws the units themselves beside it with change_panel;
    benches: the benchmarks it draws (the others' points are left out of the median, not computed)."""
    keys = crowded(series, least)
    if not keys:
        return list(series)
    groups = {}
    for s in series:
        if s.doc["run"].get("mode") != "predict" and _pool_key(s) in keys:
            groups.setdefault(_pool_key(s), []).append(s)
    out, done = [], set()
    for s in series:
        k = _pool_key(s) if s.doc["run"].get("mode") != "predict" else None
        if k not in keys:
            out.append(s)
        elif k not in done:
            done.add(k)
            g = aggregate(groups[k], 2)     # a unit once, however many of its runs the figure has
            p = _aggregate([u.only(lambda r: r["bench"] in benches) for u in g] if benches else g, len(out))
            n = len({u.doc["device"].get("uuid") for u in g})
            what = f"median of {n} units" if n == len(g) else f"median of {len(g)} series of {n} units"
            short = f"{what} (band: their range)"
            pooled = Series(p.doc, p.path, len(out), f"{reader.device_label(p.doc)}, {short}", p.fixed, units=list(g),
                            hue=0)
            pooled.short = short
            out.append(pooled)
    return out


def against_all(units, benches, value=None):
    """The change of each series against the median of all at each point they share (two or more):
    [(bench, series, [(per cent, low, high)])] in bench order, then series order; low and high the
    change of the series' runs' lowest and highest (its band). value(r): what is compared (default
    the median time, so + is slower)."""
    value = value or time_us
    out = []
    for b in benches:
        by = {}
        for i, s in enumerate(units):
            for r in s.timed(b):
                v = value(r)
                if v is not None:
                    by.setdefault(reader.point_key(r), {})[i] = (v, [value(m) for m in members(r)])
        rows = {i: [] for i in range(len(units))}
        for k, got in by.items():
            if len(got) < 2:
                continue
            mid = statistics.median(v for v, _ in got.values())
            if not mid:
                continue
            for i, (v, runs) in got.items():
                runs = [x for x in runs if x is not None] or [v]
                rows[i].append((100 * (v / mid - 1), 100 * (min(runs) / mid - 1), 100 * (max(runs) / mid - 1)))
        for i, s in enumerate(units):
            if rows[i]:
                out.append((b, s, rows[i]))
    return out


def make_series(loaded):
    """One Series per device of each file, in order; never one for two files."""
    out = []
    for path, doc in loaded:
        for d in reader.split_devices(doc):
            out.append(Series(d, path, len(out)))
    return out


def split(series, drawn):
    """The series with each one's points split by the axes it varies that the figure does not draw.
    drawn: {bench: the params the figure places on an axis, a panel or a line of its own}. A point of
    a bench that does not vary such an axis stays in the series holding no fixed value."""
    out = []
    for s in series:
        if s.doc["run"].get("mode") == "predict":
            # a prediction depends only on what the figure draws: the values of the other axes repeat
            # it (65,424 points of a --predict file are 3,633 steps), drawn once (common.xy)
            out.append(s)
            continue
        groups = {}
        for bench, keys in drawn.items():
            pts = s.points(bench)
            extra = sorted({k for r in pts for k in r["params"]} - set(keys))
            varying = [k for k in extra if len({_hashable(r["params"].get(k)) for r in pts}) > 1]
            for r in pts:
                key = tuple((k, r["params"].get(k)) for k in varying)
                groups.setdefault(key, []).append(r)
        if len(groups) <= 1:
            out.append(s)
            continue
        for key in sorted(groups, key=lambda k: [(a, str(type(v)), v if v is not None else 0) for a, v in k]):
            doc = dict(s.doc, results=groups[key])
            out.append(Series(doc, s.path, s.index, s.label, dict(s.fixed, **dict(key)), s.runs, s.units, s.hue))
    return out


def _hashable(v):
    return v if not isinstance(v, (list, dict)) else repr(v)


def _axes_text(fixed):
    return ", ".join(f"{k}={v}" for k, v in fixed.items())


def _settings(doc):
    return doc["run"].get("settings") or {}


def _attributes(group):
    """Functions giving what may tell the series of group apart, in the order they are tried: the
    axes a series was split on, --quick or not, the sweep, the other settings that differ, the GPU
    unit (a short uuid: two GPUs of one model, one host's gpu0 and gpu1 among them, never read the
    same), how the kernels ran (a cubin or JIT-compiled PTX), the commit, the date, the start time,
    the file name."""
    keys = sorted({k for s in group for k in _settings(s.doc) if k not in PER_RUN})
    differ = [k for k in keys if len({repr(_settings(s.doc).get(k)) for s in group}) > 1]

    def quick(s):
        return ("--quick" if _settings(s.doc).get("quick") else "full") if "quick" in differ else ""

    def settings(s):
        st = _settings(s.doc)
        return ", ".join(f"{k}={st.get(k)}" for k in differ if k != "quick")

    def sweep(s):
        w = str(s.doc["run"].get("sweep") or "")
        names = w.split(",")
        return f"--sweep {','.join(names[:2])}" + (f",+{len(names) - 2}" if len(names) > 2 else "") if w else ""

    def started(s):
        t = str(s.doc["run"].get("started") or "")
        return t[11:19] + " UTC" if len(t) >= 19 else ""
    return [lambda s: _axes_text(s.fixed),
            quick,
            sweep,
            settings,
            lambda s: reader.unit_label(s.doc["device"]),
            lambda s: reader.code_label(s.doc),
            lambda s: str(s.doc["tool"].get("git") or ""),
            lambda s: reader.run_date(s.doc),
            started,
            lambda s: tool.shown(os.path.basename(s.path))]


def _disambiguate(group, depth=0):
    by_label = {}
    for s in group:
        by_label.setdefault(s.label, []).append(s)
    for same in by_label.values():
        if len(same) < 2:
            continue
        attrs = _attributes(same)
        for k in range(depth, len(attrs)):
            values = [attrs[k](s) for s in same]
            if len(set(values)) > 1:
                for s, v in zip(same, values):
                    s.label = f"{s.label}, {v}" if v else s.label
                _disambiguate(same, k + 1)
                break
        else:
            for n, s in enumerate(same, 1):
                s.label = f"{s.label}, #{n}"


def relabel(series):
    """Copies of the series of one figure, indexed in order and labelled by device plus what tells
    apart those that read the same (so a label is as short as its company allows)."""
    out = [Series(s.doc, s.path, i, fixed=s.fixed, runs=s.runs, hue=s.hue) for i, s in enumerate(series)]
    _disambiguate(out)
    for s in out:   # what the line is: the median of the runs, their range the band around it
        if s.runs:
            s.label = f"{s.label}, median of {len(s.runs)} runs"
    devices = {reader.device_label(s.doc) for s in out}
    for s in out:   # where every series is of one device (the figure's title names it), the rest
        d = reader.device_label(s.doc)
        s.short = s.label[len(d) + 2:] if len(devices) == 1 and s.label.startswith(d + ", ") else s.label
    return out


def unit_text(s):
    """A unit's series in a change chart's legend: its short uuid, how its kernels ran, its commit and
    how many runs it is the median of ("GPU-53e5ebc9, cubin (sm_90, ...), 37a9db0, median of 2 runs")."""
    d = s.doc
    parts = [reader.unit_label(d["device"]) or reader.device_label(d), reader.code_label(d),
             str(d["tool"].get("git") or ""), _axes_text(s.fixed)]
    parts.append(f"median of {len(s.runs)} runs" if s.runs else "1 run")
    return ", ".join(p for p in parts if p)


def same_model(series):
    """True when every series ran on (or predicts) one GPU model: absolute values overlay."""
    return len({s.model for s in series}) <= 1
