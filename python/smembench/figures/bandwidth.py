"""bandwidth: shared-memory bytes per clock per SM against the 128 ceiling, and the load-to-use latency
in cycles; a bar per series in each category. By the layout rule (smembench.layout) two or more
GPU units are one bar, their median with their range as an error bar, and a panel below of each unit
against that median (8 equal bars a group were the 14 files' figure)."""
from smembench.figures import common as c

NAME = "bandwidth"
BENCHES = ("bandwidth", "latency")
DRAWN = {"bandwidth": ("width_bytes",), "latency": ("index_chase",)}
PANELS = (
    ("bandwidth", "width_bytes", lambda v: f"{v} B", "bytes_per_clk_sm", "bytes per clock per SM",
     "access width per thread (conflict-free)", "Bandwidth by access width"),
    ("latency", "index_chase", lambda v: "index chase j = s[j]" if v else "address chase", "latency_cycles",
     "load-to-use latency (cycles)", "pointer chase, one thread", "Load-to-use latency"),
)


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES)
    panels_spec = []
    for spec in PANELS:
        bench, key, metric = spec[0], spec[1], spec[3]
        if any(c.metric(r, metric) is not None for s in series for r in s.timed(bench)):
            panels_spec.append(spec)
    for s in series:
        if not any(c.metric(r, spec[3]) is not None for spec in PANELS for r in s.timed(spec[0])):
            note(f"{s.path}: bandwidth/latency points without bytes_per_clk_sm or latency_cycles: nothing for the "
                 f"{NAME} figure")
    if not panels_spec:
        return None
    rows = 1 + bool(units)
    fig, axes = plt.subplots(rows, len(panels_spec), figsize=(5 + 3.5 * len(panels_spec), 4.2 * rows),
                             layout="constrained", squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2][:len(panels_spec)]})
    panels = []
    for ax, (bench, key, name, metric, ylabel, xlabel, what) in zip(axes[0], panels_spec):
        p = c.Panel(ax, what)
        have = [s for s in series if any(c.metric(r, metric) is not None for r in s.timed(bench))]
        cats = sorted({c.param(r, key) or 0 for s in have for r in s.timed(bench)})
        n = len(have)
        for i, s in enumerate(have):
            vals = {(c.param(r, key) or 0): c.metric(r, metric) for r in s.timed(bench)}
            xs = [k + (i - (n - 1) / 2) * 0.8 / n for k, cat in enumerate(cats) if vals.get(cat) is not None]
            ys = [vals[cat] for cat in cats if vals.get(cat) is not None]
            band = None
            if s.units:     # the units' range at each category: an error bar
                from smembench.series import members
                rng = {(c.param(r, key) or 0): [v for v in (c.metric(m, metric) for m in members(r)) if v is not None]
                       for r in s.timed(bench)}
                band = [[vals[cat] - min(rng[cat] or [vals[cat]]) for cat in cats if vals.get(cat) is not None],
                        [max(rng[cat] or [vals[cat]]) - vals[cat] for cat in cats if vals.get(cat) is not None]]
            bars = ax.bar(xs, ys, width=0.8 / n, color=c.color(s.index), label=s.short, yerr=band,
                          error_kw={"elinewidth": 1, "capsize": 3})
            if n <= 3:
                p.texts += ax.bar_label(bars, [f"{v:.1f}" for v in ys], fontsize=7, padding=2)
        ax.set_xticks(range(len(cats)), [name(v) for v in cats])
        ax.grid(axis="x", visible=False)
        ax.set_ylabel(ylabel)
        ax.set_xlabel(xlabel)
        if bench == "bandwidth":
            p.ref(128, label="ceiling: 32 banks x 4 B", linestyle="--")
            ax.set_ylim(0, 150)
        else:
            ax.margins(y=0.15)
        panels.append(p)
    if units:
        for ax in axes[1][1:]:
            ax.remove()
        cp = c.Panel(axes[1][0], c.CHANGE_TITLE)
        c.change_panel(cp, units, BENCHES)
        panels.append(cp)
    for p in panels:
        p.legend()
    c.title(fig, {("bandwidth",): "Shared-memory bandwidth (conflict-free loads)",
                  ("latency",): "Shared-memory load-to-use latency"}.get(
        tuple(p[0] for p in panels_spec), "Shared-memory bandwidth (conflict-free loads) and latency"), series)
    c.place_texts(fig, panels)
    return fig
