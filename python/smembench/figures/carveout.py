"""carveout: the footprint and gather kernels' time against the preferred carveout; the footprint
kernel's blocks per SM (API, predicted, measured); the shared memory per SM each carveout gives."""
from smembench.figures import common as c

NAME = "carveout"
BENCHES = ("footprint", "gather")
DRAWN = {"footprint": ("carveout_pct",), "gather": ("carveout_pct",)}

# the per-SM shared-memory configurations a footprint point records: (legend, drawn as steps)
CONFIGS = {
    "requested": ("the carveout hint's step", True),
    "predicted": ("the driver's pick (rule fitted to Nsight Compute)", True),
    "inferred_min": ("smallest holding the measured residency", False),
}


def config_kib(r, kind):
    """A footprint point's configuration of that kind in KiB. Files before issue 12 recorded one,
    smem_config_bytes: the calculator's assumption, the hint's step on a carveout sweep."""
    v = c.occ(r, f"smem_config_{kind}_bytes")
    if v is None and kind == "requested":
        v = c.occ(r, "smem_config_bytes")
    return v / 1024 if v is not None else None


def pct(r):
    return c.param(r, "carveout_pct")


def draw(plt, series, note):
    timed = [s for s in series if any(pct(r) is not None for b in BENCHES for r in s.timed(b))]
    blocks = [s for s in series if any(pct(r) is not None and c.occ(r, k) is not None for r in s.points("footprint")
                                       for k in ("api", "predicted", "measured"))]
    configs = [s for s in series if any(pct(r) is not None and config_kib(r, k) is not None
                                        for r in s.points("footprint") for k in CONFIGS)]
    for s in series:
        if s not in timed and s not in blocks:
            note(f"{s.path}: footprint/gather points without a carveout_pct and a time or an occupancy: "
                 f"nothing for the {NAME} figure")
    rows = [r for r in (timed, blocks, configs) if r]
    if not rows:
        return None
    several = len({s.label for s in series}) > 1
    fig, axes = plt.subplots(len(rows), 1, figsize=(10, 3.1 * len(rows) + 0.7), squeeze=False, sharex=True,
                             layout="constrained")
    axes = list(axes[:, 0])
    panels = []
    xs = set()
    if timed:
        ylabel, rel = c.times(timed, "kernel time")
        p = c.Panel(axes.pop(0), "Kernel time against the carveout")
        for s in timed:
            for bench, what, m, fill in (("footprint", "footprint: fixed shared tile", "o", "full"),
                                         ("gather", "gather: random L1 reads", "s", "none")):
                x, t = c.xy(s.timed(bench), pct, c.time_us)
                if x:
                    xs.update(x)
                    p.line(x, c.scaled(t, rel), what + (f"; {s.short}" if several else ""), style=s.index, marker=m,
                           fillstyle=fill)
        p.ax.set_ylabel(ylabel)
        panels.append(p)
    if blocks:
        p = c.Panel(axes.pop(0), "Footprint kernel: resident blocks per SM")
        for s in blocks:
            fp = s.points("footprint")
            who = f"; {s.short}" if several else ""
            x, api = c.xy(fp, pct, lambda r: c.occ(r, "api"))
            if x:
                p.steps(x, api, "API" + who, resolution=1, monotone=True, style=s.index)
            x, pred = c.xy(fp, pct, lambda r: c.occ(r, "predicted"))
            if x:
                p.steps(x, pred, "predicted (calculator)" + who, resolution=1, monotone=True, style=s.index, marker=".")
            x, meas = c.xy(fp, pct, lambda r: c.occ(r, "measured"))
            if x:
                xs.update(x)
                p.points(x, meas, "measured (residency probe)" + who, marker="x", markersize=8)
            # the effective carveout the residency implies, once per run of equal values
            last = None
            for r in sorted(fp, key=lambda r: pct(r) if pct(r) is not None else -1):
                e, y, x0 = c.occ(r, "effective_carveout"), c.occ(r, "measured"), pct(r)
                if e is None or y is None or x0 is None or e == last:
                    continue
                last = e
                p.note(x0, y, f"{e}%", color="dimgray")
        if any(p.texts for p in [p]):
            p.ax.plot([], [], " ", label="n%: effective carveout inferred\nfrom the measured residency")
        p.ax.set_ylabel("blocks per SM")
        p.ax.set_ylim(0, p.ax.get_ylim()[1] * 1.2)
        panels.append(p)
    if configs:
        p = c.Panel(axes.pop(0), "Shared memory per SM the carveout gives")
        for s in configs:
            who = f"; {s.short}" if several else ""
            for kind, (what, step) in CONFIGS.items():
                x, kib = c.xy(s.points("footprint"), pct, lambda r: config_kib(r, kind))
                if not x:
                    continue
                if step:
                    p.steps(x, kib, what + who, resolution=1, monotone=True, style=s.index)
                else:
                    p.points(x, kib, what + who, marker="^")
        p.ax.set_ylabel("shared memory per SM (KiB)")
        p.ax.set_ylim(bottom=0)
        panels.append(p)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 3.1)
    panels[-1].ax.set_xlabel("preferred shared-memory carveout (%)")
    c.title(fig, "L1/shared carveout: shared-memory footprint kernel vs L1-reliant gather", series)
    c.place_texts(fig, panels)
    return fig
