"""occupancy: blocks per SM (API, predicted, measured) against dynamic shared memory, and the time of
the dynamic and static-array kernels."""
from smembench.figures import common as c

NAME = "occupancy"
BENCHES = ("dynamic", "static")
DRAWN = {"dynamic": ("dyn_smem_bytes",), "static": ("smem_bytes",)}
GRANULE_KIB = 128 / 1024    # allocations are rounded to 128 bytes: points this close have nothing between


def kib(r):
    return c.param_kib(r, "dyn_smem_bytes")


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES, lines=True)     # four or more units: their median, and each against it
    blocks = [s for s in series if any(kib(r) is not None and c.occ(r, k) is not None for r in s.points("dynamic")
                                       for k in ("api", "predicted", "measured"))]
    timed = [s for s in series if any(kib(r) is not None for r in s.timed("dynamic")) or
             any(c.param(r, "smem_bytes") is not None for r in s.timed("static"))]
    for s in series:
        if s not in blocks and s not in timed:
            note(f"{s.path}: dynamic/static points without their size and an occupancy or a time: "
                 f"nothing for the {NAME} figure")
    rows = [r for r in (blocks, timed) if r]
    if not rows:
        return None
    several = len({s.label for s in series}) > 1
    n = len(rows) + bool(units)
    fig, axes = plt.subplots(n, 1, figsize=(10, 3.3 * n + 0.7), squeeze=False, sharex=not units,
                             layout="constrained")
    axes = list(axes[:, 0])
    for ax in axes[1:len(rows)] if units else ():
        ax.sharex(axes[0])
    panels = []
    if blocks:
        p = c.Panel(axes.pop(0), "Resident blocks per SM (dynamic kernel, 256 threads)")
        for s in blocks:
            dyn = s.points("dynamic")
            who = f"; {s.short}" if several else ""
            x, api = c.xy(dyn, kib, lambda r: c.occ(r, "api"))
            if x:
                p.steps(x, api, "API" + who, resolution=GRANULE_KIB, monotone=True, style=s.index)
            x, pred = c.xy(dyn, kib, lambda r: c.occ(r, "predicted"))
            if x:
                p.steps(x, pred, "predicted (calculator)" + who, resolution=GRANULE_KIB, monotone=True,
                        style=s.index, marker=".")
            x, meas = c.xy(dyn, kib, lambda r: c.occ(r, "measured"))
            if x:
                p.points(x, meas, "measured (residency probe)" + who, marker="x", markersize=7)
        p.ax.set_ylabel("blocks per SM")
        p.ax.set_ylim(bottom=0)
        panels.append(p)
    if timed:
        ylabel, rel = c.times(timed, "kernel time")
        p = c.Panel(axes.pop(0), "Kernel time against the shared memory per block")
        for s in timed:
            who = f"; {s.short}" if several else ""
            x, t = c.xy(s.timed("dynamic"), kib, c.time_us)
            xs, ts = c.xy(s.timed("static"), lambda r: c.param_kib(r, "smem_bytes"), c.time_us)
            best = min(t or ts) if rel else 1
            if x:
                p.line(x, [v / best for v in t], "dynamic shared memory" + who, style=s.index, markersize=3)
            if xs:
                p.points(xs, [v / best for v in ts], "static __shared__ array" + who, marker="D", fillstyle="none")
        p.ax.set_ylabel(ylabel)
        panels.append(p)
    # the 48 KiB line: dynamic allocations above it need the opt-in attribute
    for limit in sorted({s.doc["device"].get("smem_per_block") for s in series} - {None}):
        for p in panels:
            p.ref(x=limit / 1024, linestyle=":", color="gray")
        panels[0].ax.text(limit / 1024, 0.97, f" {limit // 1024:g} KiB: opt-in above",
                          transform=panels[0].ax.get_xaxis_transform(), va="top", ha="left", fontsize=7,
                          color="dimgray")
    panels[-1].ax.set_xlabel("shared memory per block (KiB)")
    if units:
        p = c.Panel(axes.pop(0), c.CHANGE_TITLE)
        c.change_panel(p, units, BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 3.3)
    c.title(fig, "Occupancy staircase against the dynamic shared-memory allocation", series)
    c.place_texts(fig, panels)
    return fig
