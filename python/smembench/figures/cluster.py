"""cluster: distributed shared memory by cluster size (cc 9.0): remote, own-block-through-the-cluster
and ld.shared latency with the published H800 anchors, load bandwidth against the 128 ceiling,
atomics, cluster.sync() and the clusters resident at once (API and measured). A panel per quantity,
each with its title and its own legend; the x ticks are the measured cluster sizes."""
from smembench.figures import common as c

NAME = "cluster"
BENCHES = ("dsm_latency", "dsm_bandwidth", "dsm_atomics", "cluster_sync", "cluster_occupancy")
DRAWN = {"dsm_latency": ("cluster_size", "path"), "dsm_bandwidth": ("cluster_size", "path", "width_bytes"),
         "dsm_atomics": ("cluster_size", "path"), "cluster_sync": ("cluster_size", "block_threads"),
         "cluster_occupancy": ("cluster_size", "smem_bytes")}

# Luo et al., "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking and Multiple Level
# Analysis" (arXiv 2501.12084), H800 PCIe: remote shared-memory latency ~181 cycles at cluster size 2
# and 180-213 at 16, 33 cycles for the own block through the cluster path; a dependent chain of
# 4-byte DSM loads reached about 16 B/clk/SM.
ANCHOR_REMOTE = {2: (181, 181), 16: (180, 213)}
ANCHOR_SELF = 33
ANCHOR_CHAIN_BPC = 16
PATHS = {0: "ld.shared, own block", 1: "own block via cluster window", 2: "remote block"}
# dsm_bandwidth's lines: (path, width) -> name
BW_LINES = {(0, 16): "ld.shared, own block, 16 B", (1, 16): "own block via cluster window, 16 B",
            (2, 4): "remote ring, 4 B", (2, 8): "remote ring, 8 B", (2, 16): "remote ring, 16 B",
            (3, 16): "one-way: even ranks read, odd serve, 16 B", (4, 16): "fan-in: rank 0 reads up to 8, 16 B",
            (5, 4): "ring as a dependent chain, 4 B"}


def size(r):
    return c.param(r, "cluster_size")


def _lines(s):
    """{panel: [(name, x, y, kind)]} of one series; kind: line, steps or points."""
    out = {}
    for path, name in PATHS.items():
        x, y = c.xy([r for r in s.timed("dsm_latency") if c.param(r, "path") == path], size,
                    lambda r: c.metric(r, "latency_cycles"))
        out.setdefault("latency", []).append((name, x, y, "line"))
        x, y = c.xy([r for r in s.timed("dsm_atomics") if c.param(r, "path") == path], size,
                    lambda r: c.metric(r, "atomics_per_clk_sm"))
        out.setdefault("atomics", []).append((name, x, y, "line"))
    for (path, w), name in BW_LINES.items():
        x, y = c.xy([r for r in s.timed("dsm_bandwidth") if c.param(r, "path") == path and
                     c.param(r, "width_bytes") == w], size, lambda r: c.metric(r, "bytes_per_clk_sm"))
        out.setdefault("bandwidth", []).append((name, x, y, "line"))
    for threads in sorted({c.param(r, "block_threads") for r in s.timed("cluster_sync")} - {None}):
        x, y = c.xy([r for r in s.timed("cluster_sync") if c.param(r, "block_threads") == threads], size,
                    lambda r: c.metric(r, "sync_cycles"))
        out.setdefault("sync", []).append((f"{threads:g} threads per block", x, y, "line"))
    for smem in sorted({c.param(r, "smem_bytes") for r in s.timed("cluster_occupancy")} - {None}):
        pts = [r for r in s.timed("cluster_occupancy") if c.param(r, "smem_bytes") == smem]
        # the API's answer at the measured sizes only: a step line would claim values between sizes
        # (1 to 2, 8 to 16) that no cluster of the sweep has
        x, y = c.xy(pts, size, lambda r: c.metric(r, "clusters_api"))
        out.setdefault("occupancy", []).append((f"API, {smem / 1024:g} KiB per block", x, y, "api"))
        x, y = c.xy(pts, size, lambda r: c.metric(r, "clusters_measured"))
        out.setdefault("occupancy", []).append((f"measured, {smem / 1024:g} KiB per block", x, y, "points"))
    return {k: [v for v in lines if v[1]] for k, lines in out.items()}


PANELS = (  # key, title, y label
    ("latency", "DSM load latency", "load latency (cycles)"),
    ("bandwidth", "DSM load bandwidth", "load bytes per clock per SM"),
    ("atomics", "DSM atomic adds", "atomic adds per clock per SM"),
    ("sync", "cluster.sync()", "cycles per cluster.sync()"),
    ("occupancy", "Clusters resident at once", "clusters"),
)


def _sm_ticks(ax, series):
    """Ticks of the clusters-resident axis at the SM count times powers of two (1056, 528 ... 132, 66
    on 132 SMs: one cluster per SM is a tick), the counts a cluster of 2^k blocks can reach, instead
    of powers of two that sit beside those counts (1024 under 1056). The device's sm_count; where
    the figure's GPUs differ in it, the plain powers of two stay."""
    from matplotlib.ticker import NullFormatter, NullLocator
    sms = {s.doc["device"].get("sm_count") for s in series}
    counts = [v for ln in ax.get_lines() for v in ln.get_ydata() if v == v and v > 0]
    if len(sms) != 1 or not counts or not isinstance(next(iter(sms)), int):
        return
    sm = next(iter(sms))
    lo, hi = min(counts), max(counts)
    ticks = [sm * 2.0 ** k for k in range(-12, 13) if lo / 2 <= sm * 2.0 ** k <= hi * 1.01
             and float(sm * 2.0 ** k).is_integer()]
    # below the last whole multiple (33 on 132 SMs), powers of two: a count there is not a fraction of SMs
    ticks += [2.0 ** k for k in range(0, 13) if lo / 2 <= 2.0 ** k < min(ticks or [hi]) / 1.5]
    ticks.sort()
    ax.set_yticks(ticks, [f"{t:g}" + (f" (1 per SM)" if t == sm else "") for t in ticks])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(min(ticks) / 1.3, max(hi, max(ticks)) * 1.3)


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES)     # four or more units: their median, and each against it
    drawn = {}
    for s in series:
        lines = _lines(s)
        if not any(lines.values()):
            note(f"{s.path}: cluster points without cluster_size and their metrics: nothing for the {NAME} figure")
        drawn[s] = lines
    keys = [k for k, _, _ in PANELS if any(drawn[s].get(k) for s in drawn)]
    if not keys:
        return None
    have = [s for s in series if any(drawn[s].values())]
    several = len({s.label for s in have}) > 1
    rows = len(keys) + bool(units)
    fig, axes = plt.subplots(rows, 1, figsize=(10.5, 2.9 * rows + 0.7), squeeze=False, layout="constrained")
    panels = []
    for ax, key in zip(axes[:, 0], keys):
        _, what, ylabel = next(p for p in PANELS if p[0] == key)
        p = c.Panel(ax, what)
        sizes = set()
        api = None
        for s in have:
            for name, x, y, kind in drawn[s].get(key, ()):
                label = name + (f"; {s.short}" if several else "")
                sizes.update(x)
                if kind == "api":
                    api = p.points(x, y, label, style=s.index, markerfacecolor="none", markersize=8)
                elif kind == "points":      # measured: the colour of the API's answer it checks
                    kw = {"color": api.get_color()} if api is not None else {}
                    p.points(x, y, label, marker="x", markersize=7, **kw)
                    api = None
                else:
                    p.line(x, y, label, style=s.index)
        if key == "latency":
            for sz, (lo, hi) in ANCHOR_REMOTE.items():
                if sz in sizes:     # published at sizes 2 and 16: drawn where this run measured them
                    label = "H800 remote latency (Luo et al.)" if sz == min(set(ANCHOR_REMOTE) & sizes) else None
                    if hi > lo:     # a published range: a bar over it
                        ax.plot([sz, sz], [lo, hi], color="dimgray", linewidth=6, alpha=0.5, solid_capstyle="butt",
                                label=label)
                    else:           # one published value: a bar of it would have no height
                        ax.plot([sz], [lo], color="dimgray", marker="D", markersize=7, alpha=0.6, linestyle="",
                                label=label)
            p.ref(ANCHOR_SELF, label="H800 own block via cluster (Luo et al.)", linestyle="-.", color="black")
            ax.set_ylim(bottom=0)
        elif key == "bandwidth":
            p.ref(128, label="ceiling: 32 banks x 4 B", linestyle="--")
            p.ref(ANCHOR_CHAIN_BPC, label="H800 dependent 4-byte chain (Luo et al.)", linestyle="-.")
            c.plain_log2(ax)   # the 128 ceiling and the remote patterns (8 to 32) both in view
        elif key == "atomics":
            p.ref(32, label="ceiling: one word per bank per clock", linestyle="--")
            ax.set_ylim(bottom=0)
        elif key == "sync":
            ax.set_ylim(bottom=0)
        else:
            c.plain_log2(ax)
            _sm_ticks(ax, have)
        c.measured_ticks(ax, sizes, lambda v: f"{v:g}")
        ax.set_ylabel(ylabel)
        ax.set_xlabel("cluster size (blocks)")
        panels.append(p)
    if units:
        p = c.Panel(axes[-1, 0], c.CHANGE_TITLE)
        c.change_panel(p, units, BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 2.9)
    c.title(fig, "Distributed shared memory across a thread block cluster (one block per SM)", have)
    return fig
