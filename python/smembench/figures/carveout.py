"""carveout: the trade the L1/shared carveout makes between a kernel that needs shared memory
(footprint: a fixed tile per block, more shared memory = more resident blocks) and one that needs L1
(gather: random reads of a table, more shared memory = less L1 to hold it). Three panels over one x
axis: both kernels' time (log scale) with the measured blocks per SM at each point; both kernels'
resident blocks per SM; the shared-memory configuration the driver gives each kernel beside the hint,
and the L1 it leaves the gather against the gather's table.

The x axis is the shared memory the requested carveout asks for, in KiB (carveout_pct % of the
device's largest configuration, device.smem_per_sm): a requested 60 % is 137 KiB on an H200 and 98 KiB
on an A100, so GPUs compare on what the hint asks for, not on a percentage of different sizes. The
hint rather than the driver's configuration is the x axis because it is the sweep's own variable: it
exists for measured and predicted files alike and gives each point its own x, where the driver's steps
would stack 30 and 40 % on one value. The requested % is the secondary axis on top.

Where the files have hardware counters (smembench --counters), panels under the residency show the
counters that move with the gather's time: the L1 hit rate and the DRAM bytes one launch reads,
for both kernels; a file that asked for counters and has none
says why under the title. Files without counters give the figure as it was."""
from smembench import counters as smem_counters
from smembench import l1split
from smembench import reader
from smembench.figures import common as c

NAME = "carveout"
BENCHES = ("footprint", "gather")
DRAWN = {"footprint": ("carveout_pct",), "gather": ("carveout_pct",)}

# one colour per kernel in every panel
KERNEL_COLORS = {"footprint": "tab:blue", "gather": "tab:orange"}
KERNEL_MARKERS = {"footprint": "o", "gather": "s"}
BOTH_COLOR = "tab:purple"     # a line both kernels share
# the three answers to "how many blocks per SM", in the order a merged label names them
RESIDENCY = (("measured", "measured"), ("api", "API"), ("predicted", "calculator"))


def pct(r):
    return c.param(r, "carveout_pct")


def config_kib(r, kind):
    """A point's configuration of that kind (requested, predicted, inferred_min) in KiB. Files before
    issue 12 recorded one, smem_config_bytes: the calculator's assumption, the hint's step."""
    v = c.occ(r, f"smem_config_{kind}_bytes")
    if v is None and kind == "requested":
        v = c.occ(r, "smem_config_bytes")
    return v / 1024 if v is not None else None


def hint_kib(s):
    """x of a point of series s: the shared memory its requested carveout asks for (KiB)."""
    return lambda r: (lambda v: None if v is None else v / 1024)(l1split.hint_bytes(s.doc, r))


def per_sm_kib(s):
    v = s.doc["device"].get("smem_per_sm")
    return v / 1024 if isinstance(v, (int, float)) and v > 0 else None


def kernel_name(s, bench):
    """The kernel with the size that differs per GPU: footprint's tile, gather's table."""
    pts = s.points(bench)
    if bench == "footprint":
        tiles = sorted({c.param(r, "tile_bytes") for r in pts} - {None})
        return "footprint" + (f", {'/'.join(f'{t / 1024:g}' for t in tiles)} KiB tile" if tiles else "")
    tables = sorted({c.param(r, "table_kib") for r in pts} - {None})
    return "gather" + (f", {'/'.join(f'{t:g}' for t in tables)} KiB table" if tables else "")


def merged(candidates, series, across_kernels=False):
    """Candidates (bench, kernel label, source, series, x, y) grouped where their drawn values are
    equal (and, unless across_kernels, their kernel): one line per group, its label naming every
    kernel and source ("measured = API = calculator") and the series it stands for, so that no line
    is drawn exactly under another. A group's colour is its kernel's, BOTH_COLOR for both kernels."""
    groups = {}
    for bench, kernel, source, s, x, y in candidates:
        key = (None if across_kernels else bench, tuple(x), tuple(y))
        g = groups.setdefault(key, {"benches": [], "kernels": [], "x": x, "y": y, "sources": [], "series": []})
        for k, v in (("benches", bench), ("kernels", kernel), ("sources", source), ("series", s)):
            if v not in g[k]:
                g[k].append(v)
    several = len({s.label for s in series}) > 1
    out = []
    for g in groups.values():
        g["bench"] = g["benches"][0] if len(g["benches"]) == 1 else None
        who = ""
        if several:
            everyone = {s for h in groups.values() if h["benches"] == g["benches"] for s in h["series"]}
            who = " (every series)" if len(g["series"]) == len(everyone) > 1 else \
                "; " + ", ".join(s.short for s in g["series"])
        g["label"] = wrap(f"{' = '.join(g['kernels'])}: {' = '.join(g['sources'])}", who)
        g["color"] = KERNEL_COLORS[g["bench"]] if g["bench"] else BOTH_COLOR
        g["marker"] = KERNEL_MARKERS[g["bench"]] if g["bench"] else "D"
        out.append(g)
    return out


def wrap(label, who="", width=44):
    """label over lines of width characters, then who (the series) unbroken: on the last line where
    it fits, else on its own (a device's name is never split)."""
    import textwrap
    text = textwrap.fill(label, width)
    last = text.rsplit("\n", 1)[-1]
    return text + (who if len(last) + len(who) <= width else "\n" + who.lstrip())


def log_times(ax):
    """A log time axis read in plain numbers (200, 500, 1000), not powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def residency(r):
    """The blocks per SM a point ran with: measured, else the API's, else the calculator's."""
    for k in ("measured", "api", "predicted"):
        if c.occ(r, k) is not None:
            return c.occ(r, k)
    return None


def draw(plt, series, note):
    # the layout rule (smembench.layout): a line per unit for two or three, their median past that,
    # and each unit against the units' median in a panel of its own below
    series, units = c.pooled(series, BENCHES, lines=True)

    def has_x(s, r):
        return hint_kib(s)(r) is not None

    timed = [s for s in series if any(has_x(s, r) for b in BENCHES for r in s.timed(b))]
    blocks = [s for s in series if any(has_x(s, r) and residency(r) is not None for b in BENCHES for r in s.points(b))]
    configs = [s for s in series if any(has_x(s, r) and config_kib(r, k) is not None for b in BENCHES
                                        for r in s.points(b) for k in ("predicted", "requested", "inferred_min"))]
    for s in series:
        if s not in timed and s not in blocks:
            note(f"{s.path}: footprint/gather points without a carveout_pct and a time or an occupancy: "
                 f"nothing for the {NAME} figure")
    counted = counter_panels(series)
    models = list(dict.fromkeys(s.model for s in configs))
    splits = [[s for s in configs if s.model == m] for m in models]     # one split panel per GPU model
    rows = [r for r in (timed, blocks) if r] + counted + splits
    if not rows:
        return None
    several = len({s.label for s in series}) > 1
    fig, axes = plt.subplots(len(rows) + bool(units), 1, figsize=(10, 3.1 * (len(rows) + bool(units)) + 0.7),
                             squeeze=False, layout="constrained")
    axes = list(axes[:, 0])
    change = axes.pop() if units else None
    for ax in axes[1:]:
        ax.sharex(axes[0])
    panels = []
    if timed:
        ylabel, rel = c.times(timed, "kernel time")
        p = c.Panel(axes.pop(0), "Kernel time, log scale (lower is better); n: blocks per SM at the point")
        said, drawn = set(), {}
        for s in timed:
            for bench in BENCHES:
                pts = s.timed(bench)
                x, t = c.xy(pts, hint_kib(s), c.time_us)
                if not x:
                    continue
                t = c.scaled(t, rel)
                k = drawn[bench] = drawn.get(bench, -1) + 1     # the kernel's k-th line: its own style
                p.line(x, t, kernel_name(s, bench) + (f"; {s.short}" if several else ""), style=k,
                       color=KERNEL_COLORS[bench], marker=KERNEL_MARKERS[bench] if k == 0 else c.marker(k),
                       fillstyle="full" if bench == "footprint" else "none")
                at = {hint_kib(s)(r): residency(r) for r in pts}
                for xv, yv in zip(x, t):
                    if at.get(xv) is not None and (bench, xv, at[xv]) not in said:
                        said.add((bench, xv, at[xv]))      # once where several series agree
                        p.note(xv, yv, f"{at[xv]:g}", dy=5 if bench == "footprint" else -13,
                               color=KERNEL_COLORS[bench])
        log_times(p.ax)
        lo, hi = p.ax.get_ylim()
        p.ax.set_ylim(lo / 1.25, hi * 1.25)     # room for the labels above and below the points
        p.ax.plot([], [], " ", label="n: blocks per SM beside a point\n(measured, else the API's)")
        p.ax.set_ylabel(ylabel)
        panels.append(p)
    if blocks:
        p = c.Panel(axes.pop(0), "Resident blocks per SM (answers that agree are one line)")
        cands = []
        for s in blocks:
            for bench in BENCHES:
                for key, source in RESIDENCY:
                    x, y = c.xy(s.points(bench), hint_kib(s), lambda r, k=key: c.occ(r, k))
                    if x:
                        cands.append((bench, kernel_name(s, bench), source, s, x, y))
        for i, g in enumerate(merged(cands, blocks)):
            res = (per_sm_kib(g["series"][0]) or 100) / 100 * 1.01    # neighbours 1 % apart: a riser
            p.steps(g["x"], g["y"], g["label"], resolution=res, monotone=True, style=i, color=g["color"],
                    marker="x" if g["sources"] == ["measured"] else g["marker"] if i < 2 else c.marker(i),
                    fillstyle="none" if g["bench"] == "gather" else "full")
        p.ax.set_ylabel("blocks per SM")
        p.ax.set_ylim(0, p.ax.get_ylim()[1] * 1.15)
        panels.append(p)
    for name, title, ylabel, scale, have in counted:
        p = c.Panel(axes.pop(0), title)
        draw_counter(p, name, ylabel, scale, have, several)
        panels.append(p)
    for group in splits:
        dev = f"{reader.device_label(group[0].doc)}: s" if len(splits) > 1 else "S"
        draw_split(p := c.Panel(axes.pop(0), f"{dev}hared memory per SM each kernel gets, and the L1 left to "
                                             "the gather"), group, note)
        panels.append(p)
    data = list(panels)
    if change is not None:
        cp = c.Panel(change, c.CHANGE_TITLE)
        c.change_panel(cp, units, BENCHES)
        panels.append(cp)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 3.1)
    for p in data[:-1]:
        p.ax.tick_params(labelbottom=False)
    top, bottom = data[0].ax, data[-1].ax
    bottom.set_xlabel("shared memory per SM the carveout hint asks for (KiB): requested % of the largest configuration")
    secondary(top, series)
    why = list(dict.fromkeys(x for x in (smem_counters.status_line(s.doc) for s in series) if x))
    for line in why:
        note(f"carveout figure: {line}")
    c.title(fig, "L1/shared carveout: shared-memory footprint kernel vs L1-reliant gather" +
            "".join(f"\n{line}" for line in why), series)
    c.place_texts(fig, panels)
    return fig


COUNTER_PANELS = ((smem_counters.L1_HIT, "L1 hit rate of one launch (counters, profiled after timing; higher "
                                         "is better)", "L1 hit rate (%)", 1),
                  (smem_counters.DRAM_READ, "DRAM bytes one launch reads, log scale (counters; lower is better)",
                   "DRAM bytes read (MB)", 1e6))


def counter_panels(series):
    """[(counter, title, y label, scale, the series that have it)] of the counter panels to draw."""
    out = []
    for name, title, ylabel, scale in COUNTER_PANELS:
        have = [s for s in series if any(hint_kib(s)(r) is not None and reader.counter(r, name) is not None
                                         for b in BENCHES for r in s.points(b))]
        if have:
            out.append((name, title, ylabel, scale, have))
    return out


def draw_counter(p, name, ylabel, scale, series, several):
    """One counter of each kernel against the hint, in the kernel's colour; a point without it is
    left out."""
    for s in series:
        for bench in BENCHES:
            x, y = c.xy(s.points(bench), hint_kib(s),
                        lambda r: (lambda v: None if v is None else v / scale)(reader.counter(r, name)))
            if x:
                p.line(x, y, kernel_name(s, bench) + (f"; {s.short}" if several else ""), color=KERNEL_COLORS[bench],
                       marker=KERNEL_MARKERS[bench], fillstyle="full" if bench == "footprint" else "none")
    p.ax.set_ylabel(ylabel)
    if name.endswith(".pct"):
        p.ax.set_ylim(0, 105)
    else:       # bytes: the two kernels' reads lie orders of magnitude apart, a factor is a step
        log_times(p.ax)


def draw_split(p, series, note):
    """The configuration each kernel runs under (the driver's pick; the hint's step where the file
    has no pick), the smallest configuration holding the measured residency, the hint itself, the L1
    left to the gather and the gather's table, the effective carveout where it changes and the points
    where the hint was overridden."""
    ax = p.ax
    cands, lows = [], []
    for s in series:
        for bench in BENCHES:
            pts = s.points(bench)
            x, y = c.xy(pts, hint_kib(s), lambda r: (lambda v: None if v[0] is None else v[0] / 1024)(
                l1split.config_bytes(r)))
            if x:
                kinds = {l1split.config_bytes(r)[1] for r in pts} - {None}
                what = "driver's configuration" if kinds == {"driver"} else "the hint's step" \
                    if kinds == {"hint"} else "configuration (driver's pick, else the hint's step)"
                cands.append((bench, kernel_name(s, bench), what, s, x, y))
                lx, ly = c.xy(pts, hint_kib(s), lambda r: config_kib(r, "inferred_min"))
                if lx:
                    cands.append((bench, kernel_name(s, bench), "smallest holding the measured residency", s, lx, ly))
    for i, g in enumerate(merged(cands, series, across_kernels=True)):
        single = len(g["sources"]) == 1 and g["sources"][0].startswith("smallest")
        res = (per_sm_kib(g["series"][0]) or 100) / 100 * 1.01
        if single:      # a lower bound, not a configuration: markers only
            lows.append(g)      # each its own marker: ^ first
            p.points(g["x"], g["y"], g["label"], color=g["color"], marker=c.marker(1 + len(lows)), markersize=5)
        else:           # where footprint's and gather's partly agree, gather's hollow squares ring footprint's
            gather = g["bench"] == "gather"
            p.steps(g["x"], g["y"], g["label"], resolution=res, monotone=True, style=i + 3 if gather else i,
                    color=g["color"], marker=g["marker"] if i < 2 else c.marker(i),
                    fillstyle="none" if gather else "full",
                    markersize=7 if gather else 4, linewidth=1.2 if gather else 1.5)
    # the hint: y = x, the configuration asked for, across every series' range
    xs = sorted({hint_kib(s)(r) for s in series for b in BENCHES for r in s.points(b)} - {None})
    if xs:
        ax.plot([xs[0], xs[-1]], [xs[0], xs[-1]], color="dimgray", linewidth=0.8, linestyle=(0, (2, 2)),
                label="the hint (the x value): what the\nrequested carveout asks for")
    # L1 left to the gather, per series (its unified size), and the gather's table per series
    tables, left = {}, []
    for s in series:
        pts = s.points("gather")
        unified, whence = l1split.unified_bytes(s.doc)
        if unified is None:
            note(f"{s.path}: {whence}: the carveout figure draws no L1 left")
            continue
        x, y = c.xy(pts, hint_kib(s), lambda r: l1split.split(s.doc, r)["l1_left_kib"])
        if x:
            src = "" if whence == "recorded" else " (core/arch.c)"
            left.append(("gather", "gather", f"L1 left = {unified / 1024:g} KiB unified{src} - configuration", s, x, y))
        for t in {c.param(r, "table_kib") for r in pts} - {None}:
            tables.setdefault(t, []).append(s)
    for i, g in enumerate(merged(left, series)):
        p.steps(g["x"], g["y"], g["label"], resolution=(per_sm_kib(g["series"][0]) or 100) / 100 * 1.01,
                monotone=True, color=g["color"], linestyle=c.linestyle(i), marker="v", markersize=5, linewidth=2)
    for t, ss in sorted(tables.items()):
        who = "" if len(tables) == 1 else "; " + ", ".join(dict.fromkeys(s.short for s in ss))
        p.ref(y=t, label=wrap(f"gather's table: {t:g} KiB (L1 left below it: the table misses){who}"),
              linestyle="--")
    # the carveout the measured residency implies, once per run of equal values, and overridden hints
    for s in series:
        for bench in BENCHES:
            last = None
            for r in sorted(s.points(bench), key=lambda r: hint_kib(s)(r) or -1):
                e, x0, y0 = c.occ(r, "effective_carveout"), hint_kib(s)(r), l1split.config_bytes(r)[0]
                if e is None or x0 is None or y0 is None or e == last or bench != "footprint":
                    continue
                last = e
                p.note(x0, y0 / 1024, f"{e}%", color="dimgray")
    over = [(hint_kib(s)(r), l1split.config_bytes(r)[0] / 1024) for s in series for b in BENCHES
            for r in s.points(b) if l1split.hint_overridden(r)
            and hint_kib(s)(r) is not None and l1split.config_bytes(r)[0] is not None]
    if over:
        ax.plot([o[0] for o in over], [o[1] for o in over], linestyle="", marker="o", markersize=12,
                markerfacecolor="none", markeredgecolor="tab:red", markeredgewidth=1.5,
                label="hint overridden: the measured\nresidency differs from the API's")
    if p.texts:
        ax.plot([], [], " ", label="n%: footprint's effective carveout\n(implied by the measured residency)")
    ax.set_ylabel("KiB per SM")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.08)     # room for the effective carveout above the top step


def secondary(ax, series):
    """The requested carveout in % on top: of the first series' device's largest configuration, and the
    label says which device where the series' sizes differ."""
    sizes = list(dict.fromkeys(v for v in (per_sm_kib(s) for s in series) if v))
    if not sizes:
        return None
    full = sizes[0]
    sec = ax.secondary_xaxis("top", functions=(lambda k: k / full * 100, lambda q: q / 100 * full))
    dev = "" if len(sizes) == 1 else \
        f" of {reader.device_label(next(s.doc for s in series if per_sm_kib(s) == full))}'s {full:g} KiB"
    sec.set_xlabel(f"requested carveout (%{dev})")
    sec.set_xticks([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    return sec
