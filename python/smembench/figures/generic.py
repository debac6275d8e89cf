"""generic: the figure of a benchmark no other module draws, made from its points alone (no benchmark
is named here). A panel per metric, its unit on the y axis and its direction ("better") in the
panel's title; x the axis the benchmark varies most (log base 2 where its values are powers of two);
a line per series and value of the other axes it varies, as long as those are few (MAX_LINES a
panel): the axes with the most values beyond that are folded into a median, and the legend says so.
A benchmark that varies no axis draws a marker per series at its one setting. A ceiling every point
of a metric shares (the file's "ceiling") is a dashed line."""
import statistics

from smembench import reader
from smembench.figures import common as c

MAX_LINES = 6


def name(bench):
    """The figure's file name (without the format)."""
    return f"bench_{bench}"


def _values(pts, key):
    return sorted({r["params"][key] for r in pts if c.param(r, key) is not None})


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _powers_of_two(values):
    return len(values) >= 3 and all(v > 0 and v & (v - 1) == 0 for v in values)


def _metrics(pts):
    """[(metric, unit, better)] in the order the points list them: each metric with a number."""
    out = {}
    for r in pts:
        for m in r["metrics"]:
            if m not in out and reader.metric(r, m) is not None:
                out[m] = (reader.unit(r, m), reader.better(r, m))
    return [(m, u, b) for m, (u, b) in out.items()]


def _axes(pts):
    """(x axis or None, the axes drawn as lines, the axes folded into a median): the varied axes,
    the one with the most values on x; lines while their product stays within MAX_LINES."""
    keys = list(dict.fromkeys(k for r in pts for k in r["params"]))
    varied = [k for k in keys if len(_values(pts, k)) > 1]
    if not varied:
        return None, [], []
    x = max(varied, key=lambda k: len(_values(pts, k)))     # the first of the most varied
    rest = sorted((k for k in varied if k != x), key=lambda k: len(_values(pts, k)))
    lines, n = [], 1
    for k in rest:
        if n * len(_values(pts, k)) > MAX_LINES:
            break
        lines.append(k)
        n *= len(_values(pts, k))
    return x, lines, [k for k in rest if k not in lines]


def _title(metric, unit, better):
    way = {"higher": "\u2191 higher is better", "lower": "\u2193 lower is better"}.get(better, "")
    return f"{metric} ({unit})" + (f", {way}" if way else "") if unit else metric + (f", {way}" if way else "")


def draw(plt, bench, series, note):
    """The figure of bench over the series that have its points, or None (note says why)."""
    # the layout rule (smembench.layout): two or more GPU units are their median (a line per unit
    # times a line per axis value is a wall), each unit against it in a panel below
    have, units = c.pooled([s for s in series if s.points(bench)], (bench,))
    pts = [r for s in have for r in s.points(bench)]
    metrics = _metrics(pts)
    if not metrics:
        for s in have:
            note(f"{s.path}: {bench} points without a metric: nothing for the {name(bench)} figure")
        return None
    x, line_axes, folded = _axes(pts)
    several = len({s.label for s in have}) > 1
    fig, axes = plt.subplots(len(metrics) + bool(units), 1, figsize=(9, 3 * (len(metrics) + bool(units)) + 0.7),
                             squeeze=False, layout="constrained")
    axes = list(axes[:, 0])
    change = axes.pop() if units else None
    for ax in axes[1:]:
        ax.sharex(axes[0])
        axes[0].tick_params(labelbottom=False)
    panels = []
    for ax, (metric, unit, better) in zip(axes, metrics):
        p = c.Panel(ax, _title(metric, unit, better))
        for s in have:
            groups = {}
            for r in s.points(bench):
                v = reader.metric(r, metric)
                if v is None or (x is not None and c.param(r, x) is None):
                    continue
                key = tuple(r["params"].get(k) for k in line_axes)
                groups.setdefault(key, {}).setdefault(r["params"][x] if x else 0, []).append(v)
            for key in sorted(groups, key=lambda k: [v if v is not None else -1 for v in k]):
                by_x = groups[key]
                xs = sorted(by_x)
                ys = [statistics.median(by_x[v]) for v in xs]
                parts = [f"{k}={v}" for k, v in zip(line_axes, key)]
                if several or not parts:
                    parts.insert(0, s.short)
                label = ", ".join(parts)
                if x is None:
                    p.points(xs, ys, label, style=s.index, markersize=7)
                else:
                    p.line(xs, ys, label, style=s.index)
        ceilings = {(r["metrics"][metric].get("ceiling") if isinstance(r["metrics"].get(metric), dict) else None)
                    for r in pts if reader.metric(r, metric) is not None}
        if len(ceilings) == 1 and _number(next(iter(ceilings))):
            p.ref(next(iter(ceilings)), label=f"ceiling: {next(iter(ceilings)):g} {unit}".rstrip(), linestyle="--")
        ax.set_ylabel(f"{metric} ({unit})" if unit else metric)
        if folded:
            ax.text(0.01, 0.97, f"median over {', '.join(folded)}", transform=ax.transAxes, va="top", ha="left",
                    fontsize=7, color="dimgray")
        p.legend()
        panels.append(p)
    bottom = panels[-1].ax
    if x is None:
        one = pts[0]["params"]
        bottom.set_xticks([0], [", ".join(f"{k}={v}" for k, v in one.items()) or "(no axes)"])
        bottom.set_xlim(-1, 1)
        bottom.set_xlabel("its one setting (the benchmark varies no axis here)")
    else:
        vals = _values(pts, x)
        c.measured_ticks(bottom, vals, log2=_powers_of_two(vals))
        bottom.set_xlabel(x)
    for p in panels[:-1]:
        p.ax.tick_params(labelbottom=False)
    if change is not None:
        cp = c.Panel(change, c.CHANGE_TITLE)
        c.change_panel(cp, units, [bench])
        cp.legend()
        panels.append(cp)
    c.fit_legends(fig, panels, 3)
    what = f"{bench}: each metric against {x}" if x else f"{bench}: each metric"
    c.title(fig, what, have)
    return fig
