"""generations: GPUs of several models in one figure per question, each value tagged with how it was
obtained: measured (a run on the GPU), predicted (the occupancy calculator on a --predict model, which
has no timings) or published (device.published: a paper or NVIDIA's guides, with its source). The
axes compare GPUs: the carveout as the shared memory per SM it gives in KiB (a requested % means 228,
164, 100 or 64 KiB on different GPUs), the dynamic allocation in KiB with the 48 KiB default and each
device's opt-in ceiling, bandwidth per SM per clock against the 128 B/clk/SM of 32 four-byte banks,
latency in cycles. One colour per GPU in every panel, the method as the line style and marker; a GPU
with nothing for a panel is named there with what it lacks. Drawn only where the series span two or
more GPU models (figures.ACROSS)."""
import re
import textwrap

from smembench import l1split
from smembench import reader
from smembench.figures import common as c

NAME = "generations"
BENCHES = ("footprint", "dynamic", "bandwidth", "latency")
DRAWN = {"footprint": ("carveout_pct",), "dynamic": ("dyn_smem_bytes",), "bandwidth": ("width_bytes",),
         "latency": ("index_chase",)}

# how a value was obtained: its line style and marker, in every panel
METHODS = {
    "measured": {"linestyle": "-", "marker": "o", "fillstyle": "full"},
    "predicted": {"linestyle": "--", "marker": "s", "fillstyle": "none"},
}
METHOD_TEXT = {"measured": "measured on the GPU (residency probe, timed kernels)",
               "predicted": "predicted by the occupancy calculator (a --predict model: no timings)"}
# published values: a marker per source, in the order the sources are first met
PUBLISHED_MARKERS = ["*", "D", "P", "X", "h"]
GRANULE_KIB = 128 / 1024    # dynamic allocations are rounded to 128 B: nothing lies between closer points
YLABEL = "blocks per SM\n(equal values side by side, within 0.2)"
DODGE = 0.08                # blocks per SM: GPUs with the same staircase drawn side by side, never hidden


def models(series):
    """The GPU models the series ran on or predict."""
    return list(dict.fromkeys(s.model for s in series))


def method(s):
    return "predicted" if s.doc["run"].get("mode") == "predict" else "measured"


def name_of(s):
    """The series' GPU without the vendor and the model marker the method already says."""
    text = s.label
    if text.startswith("NVIDIA "):
        text = text[len("NVIDIA "):]
    return text.replace(" (model)", "")


def source_tag(source):
    """A published value's source, short enough for a legend: without its parentheses (a paper's
    title, a guide's scope), keeping the table and the GPU it was measured on."""
    return textwrap.shorten(re.sub(r"\s*\([^)]*\)", "", source), 110, placeholder="...")


def blocks(s, r):
    """(blocks per SM, method) of an occupancy point: measured where the residency probe ran, else
    the calculator's prediction."""
    m = c.occ(r, "measured")
    if m is not None:
        return m, "measured"
    p = c.occ(r, "predicted")
    return (p, "predicted") if p is not None else (None, None)


def config_kib(r):
    """The shared memory per SM a footprint point ran (or is predicted to run) under, in KiB: the
    configuration the driver picks where the file records it, else the carveout hint's step
    (l1split.config_bytes)."""
    v, _ = l1split.config_bytes(r)
    return v / 1024 if v is not None else None


def agreement(s):
    """For a measured series, how often the calculator's prediction equals the measured residency
    (why a predicted GPU's staircase can be trusted), else ""."""
    pairs = [(c.occ(r, "predicted"), c.occ(r, "measured")) for b in ("footprint", "dynamic") for r in s.points(b)]
    pairs = [(p, m) for p, m in pairs if p is not None and m is not None]
    if method(s) != "measured" or not pairs:
        return ""
    return f"; calculator = measured blocks per SM at {sum(p == m for p, m in pairs)} of {len(pairs)} points"


def dyn_kib(r):
    return c.param_kib(r, "dyn_smem_bytes")


def dodge(i, n):
    """The offset of the i-th of n GPUs on a blocks-per-SM axis (at most 0.2 block either side)."""
    step = min(DODGE, 0.4 / max(n - 1, 1))
    return (i - (n - 1) / 2) * step


def headroom(ax, top, rows):
    """A blocks-per-SM axis from just below 0 whose data (up to top, with a label above) stays under
    the rows of per-GPU markers along the panel's top (0.97, 0.925 ... in axes fraction)."""
    free = 0.97 - 0.045 * rows - 0.04      # the axes fraction the data and its labels may use
    ax.set_ylim(-0.5, -0.5 + (top + 1.2 + 0.5) / free)


def lacking(p, who, text):
    """Names the GPUs a panel has nothing of, inside it, so that no panel is silently empty."""
    if who:
        p.ax.text(0.01, 0.02, textwrap.fill(f"{text}: {', '.join(who)}", 70), transform=p.ax.transAxes, fontsize=7,
                  va="bottom", ha="left", color="dimgray")


def staircase(p, series, colors, pts_of, fx, resolution):
    """Blocks per SM of each series against fx, a step line over its points (common.step_path),
    dodged so that equal staircases sit side by side; [(label, tile KiB)] of the GPUs without points."""
    have = [s for s in series if any(fx(r) is not None and blocks(s, r)[0] is not None for r in pts_of(s))]
    for k, s in enumerate(have):
        pts = pts_of(s)
        how = blocks(s, pts[0])[1] if pts else method(s)
        how = next((blocks(s, r)[1] for r in pts if blocks(s, r)[1]), how)
        x, y = c.xy(pts, fx, lambda r: blocks(s, r)[0])
        off = dodge(k, len(have))
        style = METHODS[how]
        p.steps(x, [v + off for v in y], f"{name_of(s)}: {how}", resolution=resolution, monotone=True,
                color=colors[s.label], linestyle=style["linestyle"], marker=style["marker"],
                fillstyle=style["fillstyle"], markersize=5)
    return have


def occupancy_panels(fig, gs, series, colors):
    panels = []
    # carveout: the footprint kernel (a fixed tile per block) against the configuration it ran under
    p = c.Panel(fig.add_subplot(gs[0, 0]), "Carveout: footprint kernel's resident blocks per SM\nagainst the shared "
                                            "memory per SM the carveout gives")
    have = staircase(p, series, colors, lambda s: s.points("footprint"), config_kib, 0)
    # each line's tile, where it ends (the tile differs per GPU: the plan derives it from the device)
    for s in have:
        fp = [r for r in s.points("footprint") if config_kib(r) is not None and blocks(s, r)[0] is not None]
        last = max(fp, key=config_kib)
        tile = c.param_kib(last, "tile_bytes")
        if tile is not None:
            p.note(config_kib(last), blocks(s, last)[0], f"{tile:g} KiB tile", color=colors[s.label], dy=8)
    steps = [(ss[0], reader.published(ss[0].doc["device"]).get("carveout_steps_kib")) for _, ss in groups(series)]
    steps = [(s, v) for s, v in steps if isinstance(v, dict) and isinstance(v.get("value"), list)]
    for k, (s, v) in enumerate(steps):     # the published steps: a row of ticks per GPU along the top
        p.ax.plot(v["value"], [0.97 - 0.045 * k] * len(v["value"]), linestyle="", marker="|", markersize=7,
                  markeredgewidth=1.5, color=colors[s.label], transform=p.ax.get_xaxis_transform(), clip_on=False,
                  label="_published steps")
    lacking(p, [name_of(s) for s in series if s not in have], "no footprint points")
    p.ax.set_xlabel("shared memory per SM the carveout gives (KiB; not the requested %,\nwhich gives each GPU a "
                    "different size)")
    p.ax.set_ylabel(YLABEL)
    top = max([b for s in have for r in s.points("footprint") for b in [blocks(s, r)[0]] if b is not None] or [1])
    headroom(p.ax, top, len(steps))
    panels.append(p)
    # the dynamic staircase
    p = c.Panel(fig.add_subplot(gs[0, 1]), "Dynamic shared memory: resident blocks per SM\n(256-thread blocks)")
    have = staircase(p, series, colors, lambda s: s.points("dynamic"), dyn_kib, GRANULE_KIB)
    for limit in sorted({s.doc["device"].get("smem_per_block") for s in series} - {None}):
        p.ref(x=limit / 1024, linestyle="--", color="black",
              label=f"{limit / 1024:g} KiB: the default limit per block (opt-in above)")
    firsts = [ss[0] for _, ss in groups(series)]
    for k, s in enumerate(firsts):      # each model's opt-in ceiling: a marker per model along the top
        optin = s.doc["device"].get("smem_per_block_optin")
        if optin:
            p.ax.plot([optin / 1024], [0.97 - 0.045 * k], linestyle="", marker="v", markersize=7, clip_on=False,
                      color=colors[s.label], transform=p.ax.get_xaxis_transform(), label="_opt-in ceiling")
            p.ax.text(optin / 1024, 0.97 - 0.045 * k, f"{optin / 1024:g} KiB  ", color=colors[s.label], fontsize=7,
                      ha="right", va="center", transform=p.ax.get_xaxis_transform())
    lacking(p, [name_of(s) for s in series if s not in have], "no dynamic points")
    p.ax.set_xlabel("dynamic shared memory per block (KiB)")
    p.ax.set_ylabel(YLABEL)
    top = max([b for s in have for r in s.points("dynamic") for b in [blocks(s, r)[0]] if b is not None] or [1])
    headroom(p.ax, top, len(firsts))
    panels.append(p)
    return panels


# the per-GPU panels: (benchmark, metric, the published value's name, title, y label, what a measured point is)
PER_GPU = (
    ("bandwidth", "bytes_per_clk_sm", "smem_bytes_per_clock_per_sm",
     "Bandwidth per SM per clock (conflict-free loads)", "bytes per clock per SM (B/clk/SM)", max),
    ("latency", "latency_cycles", "smem_load_latency_cycles",
     "Load-to-use latency (one thread, pointer chase)", "latency (cycles, lower is better)", None),
)


def model_name(s):
    """The series' GPU model without the vendor and the model marker the method already says."""
    text = s.model or reader.device_label(s.doc)
    return (text[len("NVIDIA "):] if text.startswith("NVIDIA ") else text).replace(" (model)", "")


def groups(series):
    """[(model, its series)] in the order the models first come."""
    out = {}
    for s in series:
        out.setdefault(s.model, []).append(s)
    return list(out.items())


def per_gpu_panel(fig, cell, series, colors, spec, sources):
    """A category per GPU model: a slot per series of the model (its measured values), then one for
    the value published for the model's generation; what a model lacks is said at its place."""
    bench, metric, pub_name, what, ylabel, pick = spec
    p = c.Panel(fig.add_subplot(cell), what)
    ax = p.ax
    top = 0
    models_ = groups(series)
    for g, (model, ss) in enumerate(models_):
        slots = [g - 0.4 + 0.8 * (k + 0.5) / (len(ss) + 1) for k in range(len(ss) + 1)]
        measured = 0
        for k, s in enumerate(ss):
            col = colors[s.label]
            pts = [(r, c.metric(r, metric)) for r in s.timed(bench)]
            pts = [(r, v) for r, v in pts if v is not None]
            if pick is max and pts:     # the best access width: what the ceiling is about
                pts = [max(pts, key=lambda rv: rv[1])]
            for j, (r, v) in enumerate(sorted(pts, key=lambda rv: rv[1])):
                ax.plot([slots[k]], [v], color=col, markersize=7, **dict(METHODS["measured"], linestyle=""),
                        label=f"{name_of(s)}: measured" if j == 0 else "_measured")
                if bench == "bandwidth":
                    w = c.param(r, "width_bytes")
                    p.note(slots[k], v, f"{v:.1f}" + (f"\n{w:g} B loads" if w else ""), color=col, dy=5)
                else:
                    p.note(slots[k], v, f"{v:.1f}\n" + ("j = s[j]" if c.param(r, "index_chase") else "address"),
                           color=col, dy=5)
                top = max(top, v)
            measured += bool(pts)
        pubs = [reader.published(s.doc["device"]).get(pub_name) for s in ss]
        pubs = list({(v["value"], str(v.get("source", ""))): v for v in pubs
                     if isinstance(v, dict) and isinstance(v.get("value"), (int, float))})
        col = colors[ss[0].label]
        for value, source in pubs:
            src = source_tag(source)
            mk = sources.setdefault(src, PUBLISHED_MARKERS[len(sources) % len(PUBLISHED_MARKERS)])
            ax.plot([slots[-1]], [value], linestyle="", marker=mk, markersize=11, color=col, markeredgecolor="black",
                    label=f"{model_name(ss[0])}: published, {src}")
            p.note(slots[-1], value, f"{value:g}", color=col, dy=7)
            top = max(top, value)
        missing = []
        if not measured:
            missing.append("not measured" + (" (a predicted file: no timings)"
                                             if all(method(s) == "predicted" for s in ss) else f" (no {bench} points)"))
        if not pubs:
            missing.append("nothing published")
        if missing:
            ax.text(g, 0.04, textwrap.fill("; ".join(missing), 14), transform=ax.get_xaxis_transform(), fontsize=7,
                    ha="center", va="bottom", color=col)
    if bench == "bandwidth":
        p.ref(128, label="ceiling: 32 banks x 4 B per clock", linestyle=":", color="tab:red")
        top = max(top, 128)
    ax.set_xlim(-0.5, len(models_) - 0.5)
    ax.set_ylim(0, top * 1.35 if top else 1)
    ax.set_xticks(range(len(models_)), [textwrap.fill(model_name(ss[0]), 14) for _, ss in models_], fontsize=7)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel(ylabel)
    return p


def legend_entries(series, colors, sources, counts):
    """(GPU handles, method handles) of the legends below the panels: a colour per GPU, a style per
    method, a marker per published source, the reference lines; labels wrapped to half the width."""
    from matplotlib.lines import Line2D
    wrap = lambda text: textwrap.fill(text, 88, subsequent_indent="  ")   # noqa: E731
    gpus = [Line2D([], [], color=colors[s.label], linewidth=6,
                   label=wrap(f"{s.label} (cc {s.doc['device'].get('cc')}): {method(s)}{agreement(s)}"))
            for s in series]
    marks = [Line2D([], [], color="dimgray", markersize=6, label=METHOD_TEXT[m], **METHODS[m])
             for m in METHODS if counts.get(m)]
    marks += [Line2D([], [], linestyle="", marker=mk, markersize=10, color="lightgray", markeredgecolor="black",
                     label=wrap(f"published: {src}")) for src, mk in sources.items()]
    limits = sorted({s.doc["device"].get("smem_per_block") for s in series} - {None})
    marks += [Line2D([], [], linestyle="--", color="black", linewidth=1,
                     label=f"{v / 1024:g} KiB: the default limit per block (opt-in above)") for v in limits]
    marks += [Line2D([], [], linestyle=":", color="tab:red", linewidth=1,
                     label="bandwidth ceiling: 32 banks x 4 B per clock"),
              Line2D([], [], linestyle="", marker="|", markersize=8, markeredgewidth=1.5, color="dimgray",
                     label="published carveout steps (Programming Guide), a row per GPU model"),
              Line2D([], [], linestyle="", marker="v", markersize=7, color="dimgray",
                     label="the device's opt-in ceiling per block, a row per GPU model")]
    return gpus, marks


def lines(handles):
    return sum(1 + h.get_label().count("\n") for h in handles) + 1


def draw(plt, series, note):
    """The figure, or None where the series hold fewer than two GPU models (nothing to compare)."""
    if len(models(series)) < 2 or not any(s.points(b) for s in series for b in BENCHES):
        return None
    # one colour per GPU (a series), the series of a model together, the same colour in every panel
    series = [s for _, ss in groups(series) for s in ss]
    colors = {s.label: c.color(i) for i, s in enumerate(series)}
    counts = {}
    for s in series:
        counts[method(s)] = counts.get(method(s), 0) + 1
    fig = plt.figure(figsize=(13, 10), layout="constrained")
    gs = fig.add_gridspec(3, 2, height_ratios=[3.6, 3.6, 1])
    panels = occupancy_panels(fig, gs, series, colors)
    sources = {}
    for spec, cell in zip(PER_GPU, (gs[1, 0], gs[1, 1])):
        panels.append(per_gpu_panel(fig, cell, series, colors, spec, sources))
    gpus, marks = legend_entries(series, colors, sources, counts)
    # the legends' row as tall as the longer needs (about 0.15 in a line of 7 pt text)
    legend_h = 0.15 * max(lines(gpus), lines(marks)) + 0.2
    gs.set_height_ratios([3.6, 3.6, legend_h])
    fig.set_size_inches(13, 2 * 3.6 + legend_h + 1.0)
    for cell, handles, what in ((gs[2, 0], gpus, "GPU (one colour in every panel)"),
                                (gs[2, 1], marks, "how each value was obtained")):
        ax = fig.add_subplot(cell)
        ax.axis("off")
        leg = ax.legend(handles=handles, loc="upper left", title=what, fontsize=7, title_fontsize=8, frameon=False,
                        borderaxespad=0, alignment="left")
        leg.set_in_layout(False)    # sized by the row's height, not squeezing the panels' widths
    c.title(fig, "Generations: measured, predicted and published shared-memory figures per GPU", series)
    c.place_texts(fig, panels)
    return fig
