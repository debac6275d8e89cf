"""What the figures share: the style, the colours (a distinct colour for each line of an axes), the
values read from a point, lines drawn only over measured x values, labels that never overprint, a
titled panel with its legend beside it, and the figure's title (what it shows, devices and dates)."""
import math

from smembench import reader
from smembench.series import time_us  # noqa: F401 - the figures read it from here

# deterministic output: fixed SVG ids and no date; text stays text in SVG (searchable, small)
STYLE = {"svg.hashsalt": "smembench", "svg.fonttype": "none", "figure.dpi": 100, "savefig.dpi": 100,
         "font.size": 9, "axes.grid": True, "grid.alpha": 0.3, "legend.fontsize": 7,
         "axes.titlesize": 9, "figure.titlesize": 11}
# the measured lines' colours: tab10 but red and grey (kept for ceilings and published anchors), then
# the lighter tab20 shades; past those, evenly spaced hues (so no two lines of an axes share one)
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan",
          "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#393b79",
          "#637939", "#8c6d31", "#7b4173"]
# a GPU unit's colour in the change charts (change_panel): ColorBrewer's Dark2, none of the lines' colours,
# so a colour is a unit there and a kernel or a setting in the panels above it
UNIT_COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]
# reference lines (ceilings, peaks, published figures): each of an axes gets the next one
REF_COLORS = ["tab:red", "black", "dimgray", "darkgoldenrod", "magenta"]
# a series' line style and marker, by its position among the figure's series
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (1, 3)), (0, (3, 1, 3, 4))]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*"]


# no figure passes this many pixels on its long side at the default 100 dpi, whatever the number of
# files (fit_legends grows a panel for its legend up to it; past POOL_FROM series a figure pools them)
MAX_PX = 2500


def color(i):
    if i < len(COLORS):
        return COLORS[i]
    import colorsys
    h = (i * 0.618034) % 1.0     # golden-ratio hues: never two alike however many
    return colorsys.hsv_to_rgb(h, 0.75, 0.8)


def linestyle(i):
    return LINESTYLES[i % len(LINESTYLES)]


def marker(i):
    return MARKERS[i % len(MARKERS)]


def occ(r, key):
    v = (r.get("occupancy") or {}).get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def param(r, key):
    v = r["params"].get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def param_kib(r, key):
    v = param(r, key)
    return None if v is None else v / 1024


def metric(r, name):
    return reader.metric(r, name)


class Values(list):
    """The y values of a line; band: (lows, highs) of the runs it is the median of (an aggregated
    series: series.aggregate), or None."""
    band = None


def xy(pts, fx, fy):
    """(x, y) lists of the points where both exist, sorted by x; a pair that repeats is drawn once
    (a predict file repeats each occupancy for every value of the axes it does not depend on). Where
    the points are medians of several runs, y.band holds the runs' lowest and highest value at each x
    (Panel.line draws it)."""
    pairs = sorted({(x, y) for x, y in ((fx(r), fy(r)) for r in pts) if x is not None and y is not None})
    ys = Values(p[1] for p in pairs)
    if any(isinstance(r.get("runs"), dict) for r in pts):
        from smembench.series import members
        rng = {}
        for r in pts:
            x = fx(r)
            vals = [v for v in (fy(m) for m in members(r)) if v is not None]
            if x is not None and vals:
                lo, hi = rng.get(x, (min(vals), max(vals)))
                rng[x] = (min(lo, *vals), max(hi, *vals))
        ys.band = ([rng.get(p[0], (p[1], p[1]))[0] for p in pairs], [rng.get(p[0], (p[1], p[1]))[1] for p in pairs])
    return [p[0] for p in pairs], ys


class Panel:
    """One axes: gives each line it draws the next colour (so none repeats), keeps a legend entry per
    labelled artist, and places its texts so that none overprints another."""

    def __init__(self, ax, title):
        self.ax = ax
        self.n = 0
        self.refs = 0
        self.texts = []
        self.noted = set()
        ax.set_title(title)

    def next_color(self):
        c = color(self.n)
        self.n += 1
        return c

    def line(self, x, y, label, style=0, **kw):
        """A measured line (points joined: the x values between were measured or are the sweep's)."""
        kw.setdefault("color", self.next_color())
        kw.setdefault("linestyle", linestyle(style))
        kw.setdefault("marker", marker(style))
        kw.setdefault("markersize", 4)
        line = self.ax.plot(x, y, label=label, **kw)[0]
        band = getattr(y, "band", None)
        if band is not None:    # the runs' range around their median, in the line's colour
            self.ax.fill_between(x, band[0], band[1], color=line.get_color(), alpha=0.2, linewidth=0,
                                 zorder=line.get_zorder() - 0.5)
        return line

    def points(self, x, y, label, style=0, **kw):
        kw.setdefault("color", self.next_color())
        kw.setdefault("marker", marker(style))
        kw.setdefault("markersize", 5)
        return self.ax.plot(x, y, linestyle="", label=label, **kw)[0]

    def steps(self, x, y, label, resolution=0, monotone=False, style=0, **kw):
        """A step line (a model, the API's answer) drawn only over the measured x values (step_path);
        every value is marked."""
        kw.setdefault("color", self.next_color())
        kw.setdefault("linestyle", linestyle(style))
        kw.setdefault("marker", marker(style))
        kw.setdefault("markersize", 4)
        return self.ax.plot(*step_path(x, y, resolution, monotone), label=label, **kw)[0]

    def ref(self, y=None, x=None, label=None, **kw):
        """A reference line (a ceiling, a peak, a published figure) in the next reference colour."""
        kw.setdefault("color", REF_COLORS[self.refs % len(REF_COLORS)])
        self.refs += 1
        kw.setdefault("linewidth", 1)
        if y is not None:
            return self.ax.axhline(y, label=label, **kw)
        return self.ax.axvline(x, label=label, **kw)

    def note(self, x, y, text, dy=6, **kw):
        """An annotation above (x, y) in points; placed by place_texts."""
        kw.setdefault("fontsize", 7)
        if (x, y, text) in self.noted:
            return None     # another series said the same at the same point
        self.noted.add((x, y, text))
        t = self.ax.annotate(text, (x, y), textcoords="offset points", xytext=(0, dy), ha="center", **kw)
        self.texts.append(t)
        return t

    def legend(self):
        """The panel's legend outside it, on the right: its labelled artists, each once."""
        handles, labels = self.ax.get_legend_handles_labels()
        if handles:
            self.ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0)


def step_path(x, y, resolution=0, monotone=False):
    """The (x, y) of a step line over measured points only. Two points are joined when nothing could
    lie between them (x within resolution: a riser at the later x where the value changes), or, for a
    quantity monotone in x (blocks per SM against the shared memory asked for), when they read the
    same (then so does everything between). Anywhere else the line breaks: the step is somewhere in the
    gap, and a model need not be monotone (the bank model is not)."""
    px, py = [], []
    for i, (a, b) in enumerate(zip(x, y)):
        if i:
            pa, pb = x[i - 1], y[i - 1]
            if a - pa <= resolution:
                if b != pb:
                    px.append(a)            # neighbours: the riser at the later x
                    py.append(pb)
            elif not (monotone and b == pb):
                px.append(math.nan)         # unmeasured in between: a gap
                py.append(math.nan)
        px.append(a)
        py.append(b)
    return px, py


def fit_legends(fig, panels, height):
    """Grows each row of panels (stacked one per row) to the height its legend needs, so that many
    series never squash the axes; height: a panel's height without legend (inches)."""
    need = []
    for p in panels:
        n = len(p.ax.get_legend_handles_labels()[0])
        lines = sum(1 + str(lab).count("\n") for lab in p.ax.get_legend_handles_labels()[1])
        need.append(max(height, 0.14 * max(n, lines) + 0.5))
    if len(panels) > 1:
        panels[0].ax.get_gridspec().set_height_ratios(need)
    fig.set_size_inches(fig.get_figwidth(), min(sum(need) + 0.7, MAX_PX / fig.dpi))


def place_texts(fig, panels):
    """Moves each panel's annotations up, then sideways, until none overlaps an earlier one of its
    axes; one that still would is removed (its value is in the point's marker and the legend)."""
    if not any(p.texts for p in panels):
        return
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for p in panels:
        placed = []
        for t in p.texts:
            dx0, dy0 = t.xyann
            for dx, dy in [(0, 0)] + [(0, 9 * k) for k in range(1, 4)] + [(0, -9 * k - 12) for k in range(0, 3)] + \
                    [(s * 18 * k, 0) for k in (1, 2) for s in (1, -1)]:
                t.xyann = (dx0 + dx, dy0 + dy)
                box = t.get_window_extent(renderer)
                if not any(box.overlaps(b) for b in placed):
                    placed.append(box)
                    break
            else:
                t.remove()
        p.texts = [t for t in p.texts if t.axes is not None]


def title(fig, what, series):
    """The figure's title: what it shows, then the devices and the dates, wrapped to its width."""
    series = [u for s in series for u in (s.units or [s])]     # a pooled series: the units' dates
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


def plain_log2(ax, axis="y", suffix=""):
    """A base-2 log axis labelled 1, 2, 4 ... instead of 2^0, 2^1, 2^2."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    a = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log", base=2)
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}{suffix}"))
    a.set_minor_formatter(NullFormatter())


def measured_ticks(ax, values, fmt=lambda v: f"{v:g}", log2=True):
    """An x axis whose ticks are the measured values (log base 2 where they span powers of two)."""
    from matplotlib.ticker import NullFormatter, NullLocator
    values = sorted(set(values))
    if log2:
        ax.set_xscale("log", base=2)
    ax.set_xticks(values, [fmt(v) for v in values])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def times(series, what="time"):
    """(label, scale) of a time axis: absolute microseconds where every series ran on one GPU model;
    each series relative to its own fastest point only where models differ (and the label says so)."""
    from smembench.series import same_model
    if same_model(series):
        return f"median {what} (us)", False
    return f"{what} / the series' fastest point\n(GPU models differ: shapes compared)", True


def scaled(values, relative):
    if not relative or not values:
        return values
    best = min(values)
    return [v / best for v in values]


def pooled(series, benches=None, least=None, lines=False):
    """(series, units) of a figure of benches by the one layout rule (smembench.layout): the series
    the figure draws and the units the difference panel draws against their median ([] for one
    unit). lines: the figure overlays a line per series (two or three units are a line each, named
    by unit, build and commit); else it draws a panel or a bar per series (two units on are their
    median with their range). least: kept for callers; the rule is layout's alone."""
    from smembench import layout
    lay = layout.decide(series, benches)
    return (lay.lines if lines else lay.panels), lay.units


def change_panel(p, units, benches):
    """Each unit's time at each point against the median of all units' at that point (series
    .against_all), a column per benchmark (nvbench_compare's --plot): a dot per point, the unit's
    median over the benchmark a wide bar with its runs' range as a vertical bar, in the unit's colour
    (its hue: the same in every figure), so a unit a few per cent slower stands apart from the rest.
    Returns the benchmarks drawn."""
    import statistics
    from smembench.layout import unit_name
    from smembench.series import against_all
    rows = against_all(units, benches)
    names = [b for b in benches if any(r[0] == b for r in rows)]
    n = len(units)
    labelled = set()
    for b, s, vals in rows:
        i = units.index(s)
        x0 = names.index(b) + (i - (n - 1) / 2) * 0.8 / n
        col = UNIT_COLORS[s.hue % len(UNIT_COLORS)]
        # past the palette, and for the parts of a split unit, a marker each
        mk = marker(s.hue // len(UNIT_COLORS) + sum(1 for u in units[:i] if u.hue == s.hue))
        ys = [v for v, _, _ in vals]
        mid, lo, hi = statistics.median(ys), statistics.median(v for _, v, _ in vals), \
            statistics.median(v for _, _, v in vals)
        p.ax.plot([x0] * len(ys), ys, linestyle="", marker=".", markersize=3, alpha=0.35, color=col)
        label = None if i in labelled else unit_name(s, units)
        labelled.add(i)
        p.ax.vlines([x0], [min(lo, mid)], [max(hi, mid)], color=col, linewidth=1.2)
        p.ax.plot([x0], [mid], color=col, marker=mk, markersize=5, linestyle="", label=label)
    p.ax.axhline(0, color="black", linewidth=0.8)
    for k in range(1, len(names)):     # separators between benchmarks
        p.ax.axvline(k - 0.5, color="0.8", linewidth=0.8)
    slant = len(names) > 4     # five benchmarks' names side by side overprint
    p.ax.set_xticks(range(len(names)), names, rotation=30 if slant else 0, ha="right" if slant else "center")
    p.ax.set_xlim(-0.5, max(len(names), 1) - 0.5)
    p.ax.grid(axis="x", visible=False)
    p.ax.set_ylabel("time against the median\nof the units (%, + slower)")
    return names


CHANGE_TITLE = ("Each GPU unit's time against the units' median at each point (a dot each; lower is faster),\n"
                "its median per benchmark (a marker) with its runs' range (a bar)")
