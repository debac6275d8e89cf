"""One figure per question, from smembench result files, as PNG and SVG.

  smembench-plot FILES... -o DIR        (from the source tree: python3 scripts/plot.py ...)

carveout.*   footprint and gather kernel time against the preferred carveout; the footprint kernel's
             blocks per SM (API, predicted, measured); the shared memory per SM each carveout gives
occupancy.*  blocks per SM (API, predicted, measured) against dynamic shared memory, and the time of
             the dynamic and static-array kernels
bank.*       measured slowdown against stride for each access width, with the bank model
bandwidth.*  shared-memory bytes per clock per SM against the 128 ceiling, and latency in cycles
tile.*       matrix-multiply TFLOP/s against n for every tile and the register-blocked kernel, with
             cuBLAS and the fp32 peak as reference lines
memory.*     transposes and reductions in GB/s beside a device-to-device copy of the same bytes
cluster.*    distributed shared memory by cluster size (cc 9.0): remote, own-block-through-the-cluster
             and ld.shared latency with the published H800 anchors, load bandwidth against the 128
             ceiling, atomics, cluster.sync() and the clusters resident at once (API and measured)
staging.*    global -> shared staging (loads, cp.async, cp.async.bulk) in % of the same run's global
             read bandwidth by transfer size, with the 90 % line and the smallest transfer reaching it

Predict-mode files (smembench --predict MODEL) draw their predicted occupancy: the staircase and the
carveout steps of a GPU you do not have. Several files overlay, one colour and marker each, labelled
by device, with the date, commit, time or file name added only where two would read the same; a
several-device file gives one colour per GPU. Bandwidth and latency are per SM and per clock, and
with several files times are relative to each kernel's fastest point, so GPU generations compare.
Files that are JSON but not results (results/schema.json) are skipped with a note. The same input
gives the same bytes; each image is written whole or not at all.

Each image is written as smembench-export writes its file: a hidden temporary file renamed over the
name (mode 0666 less the umask), never over an input, a smembench result file (unless --force) or
anything but a regular file; a signal leaves no temporary file behind.

Exit status: 0 figures written, 1 nothing to plot, 2 unusable input (out of memory included) or
output directory, 3 a Python module is missing (the message names the Debian package), 128+N a
signal (SIGINT 130, SIGHUP 129, SIGTERM 143), 70 an internal error (a bug).
"""
import argparse
import io
import json
import math
import os
import sys

from smembench import tool
from smembench import reader

# deterministic output: fixed SVG ids and no date; text stays text in SVG (searchable, small)
STYLE = {"svg.hashsalt": "smembench", "svg.fonttype": "none", "figure.dpi": 100, "savefig.dpi": 100,
         "font.size": 9, "axes.grid": True, "grid.alpha": 0.3, "legend.fontsize": 7,
         "axes.titlesize": 9, "figure.titlesize": 11}
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
          "tab:olive", "tab:cyan", "tab:gray"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*"]
LEGEND_RIGHT = {"loc": "upper left", "bbox_to_anchor": (1.02, 1), "borderaxespad": 0}


class MissingModule(Exception):
    """A Python module the plots need is not installed."""

    def __init__(self, module, package):
        super().__init__(f"needs the Python module {module}: install the Debian package {package}")


# the output directory cannot take the figures, or a file in it must not be replaced
OutputError = tool.OutputError


def prog():
    """The command's name as the user typed it: smembench-plot installed, plot.py in the tree."""
    return os.path.basename(sys.argv[0]) or "plot.py"


def pyplot():
    """matplotlib's pyplot on the Agg backend with the deterministic style, or MissingModule."""
    try:
        import matplotlib
    except ImportError:
        raise MissingModule("matplotlib", "python3-matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams.update(STYLE)
    return plt


# ---------------------------------------------------------------------------------------------
# inputs and series

class Series:
    """One device's results from one file: what a figure draws in one colour and one marker (by its
    position among the figure's series)."""

    def __init__(self, doc, path, index, label=None, files=None):
        self.doc = doc
        self.path = path
        self.files = files or {}   # the files its points came from: _file number -> (path, doc)
        self.index = index
        self.label = label or reader.device_label(doc)
        self.color = COLORS[index % len(COLORS)]
        self.marker = MARKERS[index % len(MARKERS)]
        self.width = 1.5   # of its step lines; relabel makes earlier series wider
        self.keys = set()   # the points it holds, but for the references (make_series)

    def points(self, bench):
        """The points of bench that ran (or, in predict mode, were predicted)."""
        rs = self.doc["results"]
        index = getattr(self, "_index", None)
        if index is None or index[0] is not rs or index[1] != len(rs):
            # one pass for every benchmark: the figures ask about twenty times
            by_bench = {}
            for r in rs:
                if r["status"] in ("ok", "predicted"):
                    by_bench.setdefault(r["bench"], []).append(r)
            self._index = index = (rs, len(rs), by_bench)
        return list(index[2].get(bench, ()))

    def timed(self, bench):
        return [r for r in self.points(bench) if time_us(r) is not None]

    def only(self, keep):
        """The same series (label, colour, marker) over the points for which keep(point) holds."""
        doc = dict(self.doc)
        doc["results"] = [r for r in self.doc["results"] if keep(r)]
        return Series(doc, self.path, self.index, self.label, self.files)


def time_us(r):
    t = r["time_ns"]["stats"].get("median") if isinstance(r.get("time_ns"), dict) else None
    return t / 1e3 if isinstance(t, (int, float)) and math.isfinite(t) and t > 0 else None


def occ(r, key):
    v = (r.get("occupancy") or {}).get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def param(r, key):
    v = r["params"].get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def param_kib(r, key):
    v = param(r, key)
    return None if v is None else v / 1024


def xy(pts, fx, fy):
    """(x, y) lists of the points where both exist, sorted by x; a pair that repeats is drawn once
    (a predict file repeats each occupancy for every value of the axes it does not depend on: 65,424
    points are 3,633 steps, and an SVG marker apiece took seconds)."""
    pairs = sorted({(x, y) for x, y in ((fx(r), fy(r)) for r in pts) if x is not None and y is not None})
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _not_results(path):
    """True when path holds JSON that is not a result file at all (a schema, a config): skipped."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError, RecursionError):
        return False
    return not isinstance(doc, dict) or "schema" not in doc


def load(paths, note):
    """[(path, doc)] of the result files among paths; note(text) is told what was skipped and why.
    Raises reader.ResultError for a file that is (or claims to be) a result file but is unusable."""
    loaded = []
    for p in paths:
        try:
            doc = reader.load(p)
        except reader.ResultError:
            if _not_results(p):
                note(f"skipping {p}: not a smembench result file")
                continue
            raise
        untimed = sum(1 for r in doc["results"] if r["status"] == "ok" and time_us(r) is None)
        if untimed:
            note(f"{p}: {untimed} point{'s' if untimed > 1 else ''} ran without a time (a --check run?): "
                 "left out of the time plots")
        loaded.append((p, doc))
    return loaded


def _attrs(s):
    """What may tell two series apart, in the order it is tried: date, commit, time, file name. Taken
    from the first file whose points the figure draws (s.source)."""
    path, doc = s.source
    started = str(doc["run"].get("started") or "")
    return [started[:10], str(doc["tool"].get("git") or ""), started[11:19] + " UTC" if len(started) >= 19 else "",
            os.path.basename(path)]


def _disambiguate(group, depth=0):
    """Adds to the labels of series that read the same the first attribute that tells them apart."""
    by_label = {}
    for s in group:
        by_label.setdefault(s.label, []).append(s)
    for same in by_label.values():
        if len(same) < 2:
            continue
        for k in range(depth, 4):
            values = [_attrs(s)[k] for s in same]
            if len(set(values)) > 1:
                for s, v in zip(same, values):
                    s.label = f"{s.label}, {v}" if v else s.label
                _disambiguate(same, k + 1)
                break
        else:
            for n, s in enumerate(same, 1):
                s.label = f"{s.label}, #{n}"


REFERENCES = ("copy", "cublas")   # baselines a sweep runs again beside the kernels it compares with them


def _session(doc):
    """What makes two files one GPU's session: the same device on the same host, the same build and day."""
    dev, run = doc["device"], doc["run"]
    return (dev.get("name"), dev.get("pci_bus_id"), dev.get("ordinal"), run.get("host"), run.get("mode"),
            doc["tool"].get("git"), reader.run_date(doc))


def make_series(loaded):
    """One Series per device of each file, in order. Files of one session whose points do not
    overlap but for the references (say the tile and the reduction sweep of one GPU, each with its
    own copy) make one series; files that ran the same points stay apart."""
    out = []
    for k, (path, doc) in enumerate(loaded):
        for d in reader.split_devices(doc):
            # each point remembers its file: a kernel is compared with the reference run beside it
            d = dict(d, results=[dict(r, _file=k) for r in d["results"]])
            keys = {reader.point_key(r) for r in d["results"] if r["bench"] not in REFERENCES}
            into = next((s for s in out if _session(s.doc) == _session(d) and not keys & s.keys), None)
            if into is None:
                out.append(Series(d, path, len(out), files={k: (path, d)}))
                out[-1].keys = keys
                continue
            into.doc = dict(into.doc, results=into.doc["results"] + d["results"])
            into.files[k] = (path, d)
            into.keys |= keys
            into.path = f"{into.path} + {os.path.basename(path)}"
    return out


def relabel(series, benches=None):
    """The series of one figure (drawing benches), labelled by device plus what tells apart those
    that read the same in this figure (so a file's label is as short as its company allows)."""
    out = [Series(s.doc, s.path, i, files=s.files) for i, s in enumerate(series)]
    for s in out:
        drawn = sorted({r.get("_file") for r in s.doc["results"] if benches is None or r["bench"] in benches} &
                       set(s.files))
        s.source = s.files[drawn[0]] if drawn else (s.path, s.doc)
    _disambiguate(out)
    for s in out:   # a later series' step line that repeats an earlier one leaves it visible around it
        s.width = min(4.5, 1.5 + 0.6 * (len(out) - 1 - s.index))
    return out


# ---------------------------------------------------------------------------------------------
# shared figure parts

def title(fig, what, series):
    """The figure's title: what it shows, then the devices and the dates, wrapped to its width."""
    devices = list(dict.fromkeys(reader.device_label(s.doc) for s in series))
    dates = sorted({reader.run_date(s.doc) for s in series})
    width = int(fig.get_figwidth() * 11)
    items = [d + "," for d in devices[:-1]] + [devices[-1] + ";", ", ".join(dates)]
    lines = [what, ""]
    for item in items:     # wrapped between devices, never inside a name
        if lines[-1] and len(lines[-1]) + 1 + len(item) > width:
            lines.append("")
        lines[-1] = f"{lines[-1]} {item}".strip()
    fig.suptitle("\n".join(lines))


def new_figure(plt, rows, width=9.0, height=2.9, **kw):
    fig, axes = plt.subplots(rows, 1, figsize=(width, height * rows + 0.6), squeeze=False, layout="constrained",
                             **kw)
    return fig, list(axes[:, 0])


def proxies(specs):
    """Legend handles from (label, dict of Line2D properties) pairs."""
    from matplotlib.lines import Line2D
    return [Line2D([], [], **dict({"color": "black"}, **props), label=label) for label, props in specs]


def series_handles(series, linestyle="-", marker=True):
    from matplotlib.lines import Line2D
    return [Line2D([], [], color=s.color, marker=s.marker if marker else "", linestyle=linestyle, label=s.label,
                   linewidth=s.width if not marker else None) for s in series]


def right_legends(ax, *groups):
    """One legend outside the axes on the right, so it never covers data: the groups of (handles,
    heading) one under the other, each after its heading."""
    from matplotlib.lines import Line2D
    handles, title = [], None
    for group, heading in groups:
        if not group:
            continue
        if handles or (heading and title):
            handles.append(Line2D([], [], linestyle="", label=heading or " "))
        elif heading:
            title = heading
        handles += group
    if handles:
        ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0,
                  title_fontsize=7, alignment="left")


def relative(values):
    best = min(values)
    return [v / best for v in values]


def plain_log2(ax, axis="y", suffix=""):
    """A base-2 log axis labelled 1, 2, 4 ... instead of 2^0, 2^1, 2^2."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    a = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log", base=2)
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}{suffix}"))
    a.set_minor_formatter(NullFormatter())


# ---------------------------------------------------------------------------------------------
# the figures: each takes the series and returns a figure, or None when none has its points

# the per-SM shared-memory configurations a footprint point records: (legend, line style, width factor)
CONFIGS = {
    "requested": ("the carveout hint's step", {"linestyle": "-", "drawstyle": "steps-mid"}, 1.0),
    "predicted": ("the driver's pick (rule fitted to\nNsight Compute, where measured)",
                  {"linestyle": "--", "drawstyle": "steps-mid", "marker": ".", "markersize": 5}, 0.7),
    "inferred_min": ("smallest that holds the\nmeasured residency", {"linestyle": "", "marker": "^", "markersize": 5},
                     1.0),
}


def config_kib(r, kind):
    """A footprint point's configuration of that kind in KiB. Files before issue 12 recorded one,
    smem_config_bytes: the calculator's assumption, the hint's step on a carveout sweep."""
    v = occ(r, f"smem_config_{kind}_bytes")
    if v is None and kind == "requested":
        v = occ(r, "smem_config_bytes")
    return v / 1024 if v is not None else None


def fig_carveout(plt, series):
    series = [s for s in series if s.points("footprint") or s.points("gather")]
    if not series:
        return None
    series = relabel(series, ("footprint", "gather"))
    timed = [s for s in series if s.timed("footprint") or s.timed("gather")]
    has_config = any(config_kib(r, k) is not None for s in series for r in s.points("footprint") for k in CONFIGS)
    rows = (1 if timed else 0) + 1 + (1 if has_config else 0)
    fig, axes = new_figure(plt, rows, sharex=True)
    axes = list(axes)
    single = len(timed) == 1
    if timed:
        ax = axes.pop(0)
        for s in timed:
            for bench, ls, fill in (("footprint", "-", "full"), ("gather", "--", "none")):
                x, t = xy(s.timed(bench), lambda r: param(r, "carveout_pct"), time_us)
                if x:
                    ax.plot(x, t if single else relative(t), ls, color=s.color, marker=s.marker, fillstyle=fill,
                            markersize=5)
        ax.set_ylabel("median kernel time (us)" if single else "time / kernel's fastest point")
        right_legends(ax, (proxies([("footprint: fixed shared tile", {"linestyle": "-", "marker": "o"}),
                                    ("gather: random L1 reads", {"linestyle": "--", "marker": "o",
                                                                 "fillstyle": "none"})]), "kernel"),
                      (series_handles(timed) if len(series) > 1 else [], None))
    ax = axes.pop(0)
    for s in series:
        fp = s.points("footprint")
        x, api = xy(fp, lambda r: param(r, "carveout_pct"), lambda r: occ(r, "api"))
        if x:
            ax.plot(x, api, "-", drawstyle="steps-mid", color=s.color, linewidth=s.width)
        x, pred = xy(fp, lambda r: param(r, "carveout_pct"), lambda r: occ(r, "predicted"))
        if x:
            ax.plot(x, pred, "--", drawstyle="steps-mid", color=s.color, marker=".", markersize=5,
                    linewidth=s.width)
        x, meas = xy(fp, lambda r: param(r, "carveout_pct"), lambda r: occ(r, "measured"))
        if x:
            ax.plot(x, meas, "x", color=s.color, markersize=8)
        if len(series) == 1:
            for r in fp:
                e, y, c = occ(r, "effective_carveout"), occ(r, "measured"), param(r, "carveout_pct")
                if e is not None and y is not None and c is not None:
                    ax.annotate(f"{e}%", (c, y), textcoords="offset points", xytext=(0, 6),
                                ha="center", fontsize=7, color=s.color)
    ax.set_ylabel("footprint kernel:\nblocks per SM")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.12)
    what = [("API", {"linestyle": "-"}), ("predicted (calculator)", {"linestyle": "--", "marker": "."}),
            ("measured (residency probe)", {"linestyle": "", "marker": "x"})]
    if len(series) == 1 and any(occ(r, "effective_carveout") is not None for r in series[0].points("footprint")):
        what.append(("n%: effective carveout inferred\nfrom the measured residency", {"linestyle": ""}))
    right_legends(ax, (proxies(what), "blocks per SM"),
                  (series_handles(series, marker=False) if len(series) > 1 else [], None))
    if has_config:
        ax = axes.pop(0)
        drawn = set()
        for s in series:
            for kind, style in CONFIGS.items():
                x, kib = xy(s.points("footprint"), lambda r: param(r, "carveout_pct"), lambda r: config_kib(r, kind))
                if x:
                    ax.plot(x, kib, color=s.color, **dict(style[1], linewidth=s.width * style[2]))
                    drawn.add(kind)
        ax.set_ylabel("shared memory per SM\n(KiB)")
        ax.set_ylim(bottom=0)
        right_legends(ax, (proxies([(v[0], dict(v[1], linewidth=1.5 * v[2])) for k, v in CONFIGS.items()
                                    if k in drawn]), "configuration"))
    axes_all = fig.axes
    axes_all[-1].set_xlabel("preferred shared-memory carveout (%)")
    title(fig, "L1/shared carveout: shared-memory footprint kernel vs L1-reliant gather", series)
    return fig


def fig_occupancy(plt, series):
    series = [s for s in series if s.points("dynamic")]
    if not series:
        return None
    series = relabel(series, ("dynamic", "static"))
    timed = [s for s in series if s.timed("dynamic") or s.timed("static")]
    fig, axes = new_figure(plt, 2 if timed else 1, height=3.2, sharex=True)
    ax = axes[0]
    kib = lambda r: param_kib(r, "dyn_smem_bytes")  # noqa: E731
    for s in series:
        dyn = s.points("dynamic")
        x, api = xy(dyn, kib, lambda r: occ(r, "api"))
        if x:
            ax.plot(x, api, "-", drawstyle="steps-post", color=s.color, linewidth=s.width)
        x, pred = xy(dyn, kib, lambda r: occ(r, "predicted"))
        if x:
            ax.plot(x, pred, "--", drawstyle="steps-post", color=s.color, marker=".", markersize=4,
                    linewidth=s.width)
        x, meas = xy(dyn, kib, lambda r: occ(r, "measured"))
        if x:
            ax.plot(x, meas, "x", color=s.color, markersize=7)
    ax.set_ylabel("resident blocks per SM\n(dynamic kernel, 256 threads)")
    ax.set_ylim(bottom=0)
    right_legends(ax, (proxies([("API", {"linestyle": "-"}), ("predicted (calculator)", {"linestyle": "--",
                                                                                           "marker": "."}),
                                ("measured (residency probe)", {"linestyle": "", "marker": "x"})]), "blocks per SM"),
                  (series_handles(series, marker=False) if len(series) > 1 else [], None))
    if timed:
        ax2 = axes[1]
        single = len(timed) == 1
        for s in timed:
            x, t = xy(s.timed("dynamic"), kib, time_us)
            if x:
                ax2.plot(x, t if single else relative(t), "-", color=s.color, marker=s.marker, markersize=3)
            xs, ts = xy(s.timed("static"), lambda r: param_kib(r, "smem_bytes"), time_us)
            if xs:
                ax2.plot(xs, ts if single else [v / min(t or ts) for v in ts], "D", color=s.color, fillstyle="none",
                         markersize=6)
        ax2.set_ylabel("median kernel time (us)" if single else "time / fastest dynamic point")
        right_legends(ax2, (proxies([("dynamic shared memory", {"linestyle": "-", "marker": "o", "markersize": 3}),
                                     ("static __shared__ array", {"linestyle": "", "marker": "D",
                                                                  "fillstyle": "none"})]), "kernel"),
                      (series_handles(timed) if len(series) > 1 else [], None))
    # the 48 KiB line: dynamic allocations above it need the opt-in attribute
    for limit in sorted({s.doc["device"].get("smem_per_block") for s in series} - {None}):
        for a in axes:
            a.axvline(limit / 1024, color="gray", linestyle=":", linewidth=1)
        ax.text(limit / 1024, 0.97, f" {limit // 1024:g} KiB: opt-in above", transform=ax.get_xaxis_transform(),
                va="top", ha="left", fontsize=7, color="dimgray")
    axes[-1].set_xlabel("dynamic shared memory per block (KiB)")
    title(fig, "Occupancy staircase against the dynamic shared-memory allocation", series)
    return fig


def fig_bank(plt, series):
    series = [s for s in series if s.timed("bank")]
    if not series:
        return None
    series = relabel(series, ("bank",))
    widths = sorted({param(r, "width_bytes") for s in series for r in s.timed("bank")} - {None})
    if not widths:
        return None     # bank points without their access width: no panel to put them in
    fig, axes = new_figure(plt, len(widths), height=2.4, sharex=True)
    stride = lambda r: param(r, "stride_elems")  # noqa: E731
    for ax, w in zip(axes, widths):
        model_drawn = False
        for s in series:
            pts = [r for r in s.timed("bank") if param(r, "width_bytes") == w]
            if not model_drawn:
                x, m = xy(pts, stride, lambda r: reader.metric(r, "predicted_slowdown"))
                if x:
                    ax.step(x, m, where="mid", color="gray", linewidth=1.2, zorder=1)
                    model_drawn = True
            x, v = xy(pts, stride, lambda r: reader.metric(r, "slowdown"))
            ax.plot(x, v, s.marker, color=s.color, markersize=4, zorder=2)
        plain_log2(ax, suffix="x")
        ax.set_ylabel(f"{w}-byte loads:\nslowdown")
    right_legends(axes[0], (proxies([("bank model", {"color": "gray"})]) + series_handles(series, ""), None))
    axes[-1].set_xlabel("stride between lanes (elements)")
    title(fig, "Bank conflicts: stride-1 throughput over each stride's", series)
    return fig


def fig_bandwidth(plt, series):
    series = [s for s in series if s.timed("bandwidth") or s.timed("latency")]
    if not series:
        return None
    series = relabel(series, ("bandwidth", "latency"))
    from matplotlib.patches import Patch
    panels = [p for p in (
        ("bandwidth", "width_bytes", lambda v: f"{v} B", "bytes_per_clk_sm", "bytes per clock per SM",
         "access width per thread (conflict-free)"),
        ("latency", "index_chase", lambda v: "index chase j = s[j]" if v else "address chase", "latency_cycles",
         "load-to-use latency (cycles)", "pointer chase, one thread"),
    ) if any(s.timed(p[0]) for s in series)]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 + 3 * len(panels), 3.8), layout="constrained", squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2][:len(panels)]})
    for a, (bench, key, name, metric, ylabel, xlabel) in zip(axes[0], panels):
        have = [s for s in series if s.timed(bench)]
        cats = sorted({param(r, key) or 0 for s in have for r in s.timed(bench)})
        n = len(have)
        for i, s in enumerate(have):
            vals = {(param(r, key) or 0): reader.metric(r, metric) for r in s.timed(bench)}
            xs = [k + (i - (n - 1) / 2) * 0.8 / n for k, c in enumerate(cats) if vals.get(c) is not None]
            ys = [vals[c] for c in cats if vals.get(c) is not None]
            bars = a.bar(xs, ys, width=0.8 / n, color=s.color)
            if n <= 3:
                a.bar_label(bars, [f"{v:.1f}" for v in ys], fontsize=7, padding=2)
        a.set_xticks(range(len(cats)), [name(c) for c in cats])
        a.grid(axis="x", visible=False)
        a.set_ylabel(ylabel)
        a.set_xlabel(xlabel)
        if bench == "bandwidth":
            a.axhline(128, color="red", linestyle="--", linewidth=1)
            a.set_ylim(0, 150)
        else:
            a.margins(y=0.15)
    handles = [Patch(color=s.color, label=s.label) for s in series]
    if panels[0][0] == "bandwidth":
        handles += proxies([("ceiling: 32 banks x 4 B", {"color": "red", "linestyle": "--"})])
    right_legends(axes[0][-1], (handles, None))
    title(fig, {("bandwidth",): "Shared-memory bandwidth (conflict-free loads)",
                ("latency",): "Shared-memory load-to-use latency"}.get(
        tuple(p[0] for p in panels), "Shared-memory bandwidth (conflict-free loads) and latency"), series)
    return fig


def fig_tile(plt, series):
    # points without their matrix edge have no place on the n axis
    series = [s for s in series if any(param(r, "n") is not None for r in s.timed("matmul") + s.timed("matmul_rb"))]
    if not series:
        return None
    series = relabel(series, ("matmul", "matmul_rb", "cublas"))
    from matplotlib.ticker import NullFormatter
    k = len(series)
    fig, axes = plt.subplots(1, k, figsize=(5.2 * k + 2.6, 4.6), squeeze=False, sharey=True, layout="constrained")
    styles = {}
    for ax, s in zip(axes[0], series):
        lines = {}
        for r in s.timed("matmul"):
            lines.setdefault((0, param(r, "tile")), []).append(r)
        for r in s.timed("matmul_rb"):
            lines.setdefault((1, param(r, "bk")), []).append(r)
        ns = set()
        for (kind, v), pts in sorted(lines.items()):
            optin = any((r.get("launch") or {}).get("optin") for r in pts)
            name = (f"register-blocked, bk {v}" + (" (opt-in)" if optin else "")) if kind \
                else ("global memory only" if v == 0 else f"tile {v}")
            x, y = xy(pts, lambda r: param(r, "n"), lambda r: reader.metric(r, "gflops") and
                      reader.metric(r, "gflops") / 1e3)
            ns.update(x)
            style = styles.setdefault(name, ({"color": COLORS[len(styles) % len(COLORS)],
                                              "linestyle": "--" if kind else "-",
                                              "marker": "s" if kind else "o", "markersize": 4}))
            ax.plot(x, y, **style)
        x, y = xy(s.timed("cublas"), lambda r: param(r, "n"),
                  lambda r: reader.metric(r, "gflops") and reader.metric(r, "gflops") / 1e3)
        if x:
            ns.update(x)
            styles.setdefault("cuBLAS SGEMM", {"color": "black", "linewidth": 2.5})
            ax.plot(x, y, **styles["cuBLAS SGEMM"])
        ref = next((r for r in s.timed("matmul") + s.timed("cublas")
                    if reader.metric(r, "pct_of_fp32_peak") and reader.metric(r, "gflops")), None)
        if ref:
            peak = reader.metric(ref, "gflops") / reader.metric(ref, "pct_of_fp32_peak") * 100 / 1e3
            styles.setdefault("fp32 peak at the measured clock", {"color": "red", "linestyle": ":", "linewidth": 1})
            ax.axhline(peak, **styles["fp32 peak at the measured clock"])
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(ns), [str(int(v)) for v in sorted(ns)])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("matrix edge n (C = A B, n x n fp32)")
        ax.set_ylim(bottom=0)
        if k > 1:
            ax.set_title(s.label)
    axes[0][0].set_ylabel("TFLOP/s")
    right_legends(axes[0][-1], (proxies([(name, st) for name, st in styles.items()]), None))
    title(fig, "Shared memory as a scratchpad: tiled matrix multiply", series)
    return fig


MEMORY_KERNELS = (  # (benchmark, parameter test, label, colour) in the order they are listed
    ("copy", lambda p: True, "device-to-device copy", "0.35"),
    ("transpose_naive", lambda p: True, "transpose, no shared memory", "tab:red"),
    ("transpose", lambda p: not p.get("padding_words"), "transpose, tile [32][32]", "tab:orange"),
    ("transpose", lambda p: bool(p.get("padding_words")), "transpose, tile [32][33]", "tab:green"),
    ("reduction", lambda p: p.get("method") == 0, "reduce, shared tree + __syncthreads", "tab:blue"),
    ("reduction", lambda p: p.get("method") == 1, "reduce, warp shuffles", "tab:cyan"),
    ("reduction", lambda p: p.get("method") == 2, "reduce, shared atomics", "tab:purple"),
)
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo"]


def fig_memory(plt, series):
    series = [s for s in series if s.timed("transpose") or s.timed("reduction") or s.timed("transpose_naive")]
    if not series:
        return None
    series = relabel(series, ("transpose", "transpose_naive", "reduction"))
    rows = []   # (mib, series index, file, kernel order, label, colour, hatch, GB/s, % of the copy)
    for si, s in enumerate(series):
        copy, compared = {}, set()
        for r in s.timed("copy"):
            v = reader.metric(r, "gbytes_per_s")
            if v is not None and param(r, "mib") is not None:
                copy[(r["_file"], param(r, "mib"))] = max(copy.get((r["_file"], param(r, "mib")), 0), v)
        for b in ("transpose", "transpose_naive", "reduction"):
            compared |= {(r["_file"], param(r, "mib")) for r in s.timed(b)}
        for order, (bench, test, name, color) in enumerate(MEMORY_KERNELS):
            for r in s.timed(bench):
                v, mib, where = reader.metric(r, "gbytes_per_s"), param(r, "mib"), (r["_file"], param(r, "mib"))
                if v is None or mib is None or not test(r["params"]) or (bench == "copy" and where not in compared):
                    continue    # a copy nothing is compared with is left out
                pct = None if bench == "copy" else reader.metric(r, "pct_of_copy")
                if pct is None and bench != "copy" and copy.get(where):
                    pct = 100 * v / copy[where]
                who = f" ({s.label})" if len(series) > 1 else ""
                rows.append((mib, si, r["_file"], order, f"{name}, {mib:g} MiB{who}", color,
                             HATCHES[si % len(HATCHES)], v, pct))
    if not rows:
        return None     # no point with its size and its GB/s: nothing to draw
    rows.sort(key=lambda t: t[:4])
    rows = [r[4:] for r in rows]    # label, colour, hatch, GB/s, % of the copy
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.3 * len(rows)), layout="constrained")
    y = list(range(len(rows)))
    ax.barh(y, [r[3] for r in rows], color=[r[1] for r in rows], edgecolor="white")
    for yi, (name, color, hatch, v, pct) in zip(y, rows):
        if hatch:
            ax.barh([yi], [v], color="none", hatch=hatch, edgecolor="white", linewidth=0)
        text = f" {v:.0f} GB/s" + (f", {pct:.0f} % of the copy beside it" if pct is not None else "")
        ax.text(v, yi, text, va="center", ha="left", fontsize=7)
    ax.set_yticks(y, [r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, max(r[3] for r in rows) * 1.35)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("GB/s (bytes read + written; the reductions read only)")
    if len(series) > 1:
        from matplotlib.patches import Patch
        right_legends(ax, ([Patch(facecolor="0.6", hatch=HATCHES[i % len(HATCHES)], edgecolor="white",
                                  label=s.label) for i, s in enumerate(series)], None))
    title(fig, "Transpose and reduction against a device-to-device copy of the same bytes", series)
    return fig


# Luo et al., "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking and Multiple Level
# Analysis" (arXiv 2501.12084), H800 PCIe: remote shared-memory latency ~181 cycles at cluster size 2
# and 180-213 at 16, 33 cycles for the own block through the cluster path; a dependent chain of
# 4-byte DSM loads reached about 16 B/clk/SM.
ANCHOR_REMOTE = {2: (181, 181), 16: (180, 213)}
ANCHOR_SELF = 33
ANCHOR_CHAIN_BPC = 16
DSM_PATHS = {0: ("ld.shared, own block", ":"), 1: ("own block via cluster window", "--"), 2: ("remote block", "-")}
# dsm_bandwidth's remote patterns beyond the ring (path 2): name, line style, the width plotted
BW_PATTERNS = {3: ("one-way: even ranks read, odd serve", (0, (3, 1, 1, 1)), 16),
               4: ("fan-in: rank 0 reads up to 8 others", (0, (1, 1)), 16),
               5: ("ring as a dependent chain, 4-byte", (0, (6, 2)), 4)}
CLUSTER_BENCHES = ("dsm_latency", "dsm_bandwidth", "dsm_atomics", "cluster_sync", "cluster_occupancy")


def cluster_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 2, 4, 8, 16], ["1", "2", "4", "8", "16"])
    ax.minorticks_off()
    ax.set_xlabel("cluster size (blocks)")


def fig_cluster(plt, series):
    series = [s for s in series if any(s.timed(b) for b in CLUSTER_BENCHES)]
    if not series:
        return None
    series = relabel(series, CLUSTER_BENCHES)
    size = lambda r: param(r, "cluster_size")  # noqa: E731
    fig, axes = plt.subplots(2, 3, figsize=(14, 7.2), layout="constrained", squeeze=False)
    (lat, bw, atom), (sync, occp, notes) = axes
    for s in series:
        for path, (_, ls) in DSM_PATHS.items():
            x, y = xy([r for r in s.timed("dsm_latency") if param(r, "path") == path], size,
                      lambda r: reader.metric(r, "latency_cycles"))
            if x:
                lat.plot(x, y, ls, color=s.color, marker=s.marker, markersize=4)
            x, y = xy([r for r in s.timed("dsm_atomics") if param(r, "path") == path], size,
                      lambda r: reader.metric(r, "atomics_per_clk_sm"))
            if x:
                atom.plot(x, y, ls, color=s.color, marker=s.marker, markersize=4)
            for w, alpha in ((4, 0.45), (8, 0.7), (16, 1.0)):
                if path != 2 and w != 16:
                    continue   # every width for the remote block; the 16-byte line for the others
                x, y = xy([r for r in s.timed("dsm_bandwidth") if param(r, "path") == path and
                           param(r, "width_bytes") == w], size, lambda r: reader.metric(r, "bytes_per_clk_sm"))
                if x:
                    bw.plot(x, y, ls, color=s.color, marker={4: "v", 8: "s", 16: "o"}[w], markersize=4, alpha=alpha)
        for path, (_, ls, w) in BW_PATTERNS.items():
            x, y = xy([r for r in s.timed("dsm_bandwidth") if param(r, "path") == path and
                       param(r, "width_bytes") == w], size, lambda r: reader.metric(r, "bytes_per_clk_sm"))
            if x:
                bw.plot(x, y, linestyle=ls, color=s.color, marker={4: "v", 8: "s", 16: "o"}[w], markersize=4)
        for threads, ls in ((32, "--"), (1024, "-")):
            x, y = xy([r for r in s.timed("cluster_sync") if param(r, "block_threads") == threads], size,
                      lambda r: reader.metric(r, "sync_cycles"))
            if x:
                sync.plot(x, y, ls, color=s.color, marker=s.marker, markersize=4)
        smems = sorted({param(r, "smem_bytes") for r in s.timed("cluster_occupancy")} - {None})
        for k, smem in enumerate(smems):
            pts = [r for r in s.timed("cluster_occupancy") if param(r, "smem_bytes") == smem]
            x, api = xy(pts, size, lambda r: reader.metric(r, "clusters_api"))
            x2, got = xy(pts, size, lambda r: reader.metric(r, "clusters_measured"))
            shade = 0.35 + 0.65 * (k + 1) / len(smems)
            if x:
                occp.plot(x, api, "-", color=s.color, alpha=shade)
            if x2:
                occp.plot(x2, got, "x", color=s.color, alpha=shade, markersize=7)
                if len(series) == 1:
                    occp.annotate(f"{smem // 1024} KiB", (x2[-1], got[-1]), textcoords="offset points",
                                  xytext=(4, 0), fontsize=7, va="center", color=s.color)
    for sz, (lo, hi) in ANCHOR_REMOTE.items():
        lat.plot([sz, sz], [lo, hi], color="gray", linewidth=5, alpha=0.5, solid_capstyle="butt")
    lat.axhline(ANCHOR_SELF, color="gray", linestyle="-.", linewidth=1)
    bw.axhline(128, color="red", linestyle="--", linewidth=1)
    bw.axhline(ANCHOR_CHAIN_BPC, color="gray", linestyle="-.", linewidth=1)
    atom.axhline(32, color="red", linestyle="--", linewidth=1)
    for ax, ylabel in ((lat, "load latency (cycles)"), (bw, "load bytes per clock per SM"),
                       (atom, "atomic adds per clock per SM"), (sync, "cycles per cluster.sync()"),
                       (occp, "clusters resident at once")):
        cluster_axis(ax)
        ax.set_ylabel(ylabel)
    lat.set_ylim(bottom=0)
    plain_log2(bw)   # the 128 ceiling and the remote patterns (8 to 32) both in view
    bw.set_ylim(8, 160)
    atom.set_ylim(bottom=0)
    sync.set_ylim(bottom=0)
    plain_log2(occp)
    paths = proxies([(name, {"linestyle": ls}) for name, ls in DSM_PATHS.values()])
    notes.axis("off")
    handles = paths + proxies([
        ("remote, 4 / 8 / 16-byte loads", {"linestyle": "", "marker": "v"}),
        *[(name, {"linestyle": ls}) for name, ls, _ in BW_PATTERNS.values()],
        ("H800 remote latency (Luo et al.)", {"color": "gray", "linewidth": 5, "alpha": 0.5}),
        ("H800 own block via cluster (Luo et al.)", {"color": "gray", "linestyle": "-."}),
        ("H800 dependent 4-byte chain, B/clk/SM", {"color": "gray", "linestyle": "-."}),
        ("ceiling: 32 banks x 4 B, or one word per bank", {"color": "red", "linestyle": "--"}),
        ("cluster.sync(): 1024 / 32 threads per block", {"linestyle": "-"}),
        ("residency: API (line), measured (x), by KiB per block", {"linestyle": "-", "marker": "x"})])
    if len(series) > 1:
        handles += series_handles(series)
    notes.legend(handles=handles, loc="upper left", fontsize=7, frameon=False)
    title(fig, "Distributed shared memory across a thread block cluster (one block per SM)", series)
    return fig


STAGING_KERNELS = {"staging_plain": ("ld.global + st.shared", "-", "o", 1.2),
                   "staging_cp_async": ("cp.async", "--", "s", 1.2),
                   "staging_bulk": ("cp.async.bulk + mbarrier", "-", "^", 2.5)}


def fig_staging(plt, series):
    series = [s for s in series if any(s.timed(b) for b in STAGING_KERNELS)]
    if not series:
        return None
    series = relabel(series, tuple(STAGING_KERNELS) + ("global_read",))
    from matplotlib.ticker import NullFormatter
    k = len(series)
    fig, axes = plt.subplots(1, k, figsize=(6.5 * k + 3, 4.4), squeeze=False, sharey=True, layout="constrained")
    styles = {}
    for ax, s in zip(axes[0], series):
        smallest = reader.staging_smallest(s.doc)
        sizes = set()
        for (bench, w), reach in sorted(smallest.items(), key=lambda kv: (list(STAGING_KERNELS).index(kv[0][0]),
                                                                          kv[0][1] or 0)):
            name, ls, marker, lw = STAGING_KERNELS[bench]
            x, y = xy([r for r in s.timed(bench) if param(r, "width_bytes") == w], lambda r: param(r, "transfer_bytes"),
                      lambda r: reader.metric(r, "pct_of_read"))
            if not x:
                continue
            sizes.update(x)
            label = name + (f", {w} B" if w else "")
            style = styles.setdefault(label, {"color": COLORS[len(styles) % len(COLORS)], "linestyle": ls,
                                              "marker": marker, "markersize": 4, "linewidth": lw})
            ax.plot(x, y, **style)
            if reach:
                ax.annotate(f"{reach / 1024:g}K", (reach, y[x.index(reach)]), textcoords="offset points",
                            xytext=(0, 7), ha="center", fontsize=7, color=style["color"])
        ax.axhline(90, color="red", linestyle="--", linewidth=1)
        ax.margins(y=0.12)   # room for the labels above the curves
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(sizes), [f"{v / 1024:g}K" for v in sorted(sizes)], rotation=45)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("transfer per operation (bytes)")
        read = [v for v in (reader.metric(r, "gbytes_per_s") for r in s.timed("global_read")) if v is not None]
        if k > 1 or read:
            ax.set_title(s.label + (f": global read {max(read):.0f} GB/s" if read else ""))
    axes[0][0].set_ylabel("% of the global read bandwidth\n(same run, same data)")
    styles["90 % (n K: the smallest transfer reaching it)"] = {"color": "red", "linestyle": "--", "linewidth": 1}
    right_legends(axes[0][-1], (proxies([(name, st) for name, st in styles.items()]), None))
    title(fig, "Staging global memory into shared memory", series)
    return fig


# (name, benchmarks it draws, function), in the order the figures are made
FIGURES = (
    ("carveout", ("footprint", "gather"), fig_carveout),
    ("occupancy", ("dynamic", "static"), fig_occupancy),
    ("bank", ("bank",), fig_bank),
    ("bandwidth", ("bandwidth", "latency"), fig_bandwidth),
    ("tile", ("matmul", "matmul_rb", "cublas"), fig_tile),
    ("memory", ("transpose", "transpose_naive", "reduction", "copy"), fig_memory),
    ("cluster", CLUSTER_BENCHES, fig_cluster),
    ("staging", tuple(STAGING_KERNELS) + ("global_read",), fig_staging),
)


def figures(plt, series):
    """[(name, figure)] of every figure the series have points for."""
    out = []
    for name, _, fn in FIGURES:
        fig = fn(plt, series)
        if fig is not None:
            out.append((name, fig))
    return out


def svg_text(fig, salt):
    """The figure as an SVG element to inline in HTML (ids made unique by salt)."""
    import matplotlib
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


# ---------------------------------------------------------------------------------------------
# writing

def check_outdir(path):
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"{path} is not a directory; -o takes a directory for the figures")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create the output directory {path}: {e.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write to the output directory {path}: permission denied")


def _umask():
    return tool._umask()


def write_atomically(path, render, inputs=(), force=False):
    """Calls render(file) on a hidden temporary file beside path, then renames it over path: the
    image is whole or absent, never half-written, and never replaces an input, a result file (without
    force) or anything but a regular file (tool); OutputError otherwise."""
    return tool.write_file(path, render, inputs=inputs, force=force)


def texts(fig):
    """Every text the figure shows (titles, labels, ticks, legends, notes), one a line, in drawing
    order: the PNG's Description, for readers that cannot see it and for comparing figures made by
    different matplotlib versions (whose pixels differ by a little everywhere)."""
    from matplotlib.text import Text
    fig.canvas.draw()
    return "\n".join(t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip())


def save(plt, fig, outdir, name, inputs=(), force=False):
    made = []
    try:
        for ext in ("png", "svg"):
            path = os.path.join(outdir, f"{name}.{ext}")
            meta = {"Date": None} if ext == "svg" else {"Description": texts(fig)}
            write_atomically(path, lambda f: fig.savefig(f, format=ext, metadata=meta), inputs, force)
            made.append(path)
    finally:
        plt.close(fig)
    return made


def main(argv=None):
    p = reader.Parser(prog=reader.command("plot.py"),
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    reader.add_version(p)
    p.add_argument("results", nargs="+", help="smembench result files (other JSON files are skipped)")
    p.add_argument("-o", "--output", required=True, help="directory for the figures (created if missing)")
    p.add_argument("--force", action="store_true", help="replace a smembench result file that has a figure's name")
    me = prog()

    def body():
        a = p.parse_args(argv)
        plt = pyplot()
        loaded = load(a.results, lambda text: print(f"{me}: {text}", file=sys.stderr))
        figs = figures(plt, make_series(loaded))
        made = []
        if figs:
            check_outdir(a.output)
        while figs:
            name, fig = figs.pop(0)
            made += save(plt, fig, a.output, name, a.results, a.force)
        if not made:
            print(f"{me}: nothing to plot: no finished or predicted points of a plotted benchmark "
                  f"({', '.join(sorted({b for _, bs, _ in FIGURES for b in bs}))})", file=sys.stderr)
            return 1
        return tool.emit(made, 0, "the figures' names")
    return tool.run_tool(body, (reader.ResultError,), [
        (MissingModule, 3, str),
        (RecursionError, 2, "a result file is nested too deeply to plot"),
        (MemoryError, 2, "out of memory reading the result files; plot fewer or smaller files")], prog=me)
