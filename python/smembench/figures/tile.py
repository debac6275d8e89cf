"""tile: matrix-multiply TFLOP/s. A file with the pipelined SGEMM points (sgemm_cp_async, sgemm_tma)
gets a panel per series and n against the shared memory per block: a line per copy and bm x bn x bk
over its stage counts, every point ringed by the shape of its measured blocks per SM, the teaching
kernels (tiled, register-blocked) as the lower lines at their own shared memory and global-only as a
dotted floor, cuBLAS as the line to reach, the fp32 peak, and the panel's best SGEMM point starred and
named. A file without them: TFLOP/s against n for every tile and the register-blocked kernel, with
cuBLAS and the fp32 peak as reference lines, a panel per series. Every line is in its panel's legend."""
import math

from smembench.figures import common as c

NAME = "tile"
# the SGEMM family, by its copy engine: TMA solid, cp.async dashed in a lighter shade of the same colour
SGEMM = {"sgemm_tma": ("TMA", "-"), "sgemm_cp_async": ("cp.async", "--")}
BENCHES = ("matmul", "matmul_rb", "cublas") + tuple(SGEMM)
# stages is on the x axis (the shared memory per block is stages deep), bm x bn x bk a line, n a panel
DRAWN = {"matmul": ("n", "tile"), "matmul_rb": ("n", "bk"), "cublas": ("n",),
         "sgemm_cp_async": ("n", "bm", "bn", "bk", "stages", "a_width_bytes"),
         "sgemm_tma": ("n", "bm", "bn", "bk", "stages", "a_width_bytes")}
# a colour per bm x bn x bk (tab10 less red, grey, olive and cyan, then darker tab20 shades); the teaching
# kernels keep olive and cyan
TILE_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "#393b79", "#8c6d31",
               "#7b4173"]
TEACHING = {"matmul": ("tiled matmul, tile", "tab:olive", "o"), "matmul_rb": ("register-blocked, bk", "tab:cyan", "s")}
# the rings around the points: a shape and a grey per measured blocks-per-SM value, fewest blocks first
RINGS = [("o", "#262626"), ("s", "#4d4d4d"), ("^", "#737373"), ("D", "#8c8c8c"), ("v", "#a6a6a6"),
         ("p", "#595959"), ("h", "#333333"), ("8", "#808080")]


def tflops(r):
    g = c.metric(r, "gflops")
    return g / 1e3 if g is not None else None


def n(r):
    return c.param(r, "n")


def smem_kib(r):
    """Shared memory per block: the static arrays and the dynamic allocation (KiB)."""
    launch = r.get("launch") or {}
    return ((launch.get("static_smem") or 0) + (launch.get("dynamic_smem") or 0)) / 1024


def sgemm_ns(s):
    """The n values at which the series has timed SGEMM points with a rate."""
    return sorted({n(r) for b in SGEMM for r in s.timed(b) if n(r) is not None and tflops(r) is not None})


def lighter(colour, f=0.45):
    from matplotlib.colors import to_hex, to_rgb
    return to_hex([v + (1 - v) * f for v in to_rgb(colour)])


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES)     # four or more units: a panel of their median, and each against it
    have = []
    for s in series:
        if any(n(r) is not None and tflops(r) is not None for b in BENCHES for r in s.timed(b)):
            have.append(s)
        else:
            note(f"{s.path}: matmul/cublas points without n and gflops: nothing for the {NAME} figure")
    if not have:
        return None
    if any(sgemm_ns(s) for s in have):
        return draw_by_smem(plt, have, units)
    k = len(have)
    cols = min(k, 2)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows + bool(units), cols, figsize=(7.5 * cols, 4.4 * (rows + bool(units)) + 0.6),
                             squeeze=False, sharey=not units, layout="constrained")
    colours = {}    # a kernel keeps its colour in every panel
    panels = []
    for i, s in enumerate(have):
        panels.append(by_n(c.Panel(axes[i // cols][i % cols], s.label), s, colours))
    for ax in list(axes.flat[k:]) if not units else list(axes.flat[k:-cols]) + list(axes[-1, 1:]):
        ax.remove()
    if units:
        p = c.Panel(axes[-1, 0], c.CHANGE_TITLE)
        c.change_panel(p, units, BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.title(fig, "Shared memory as a scratchpad: tiled matrix multiply", have)
    return fig


def peak_tflops(pts):
    """The fp32 peak at the measured clock, from a point that gives its rate and its share of it."""
    ref = next((r for r in pts if c.metric(r, "pct_of_fp32_peak") and c.metric(r, "gflops")), None)
    return c.metric(ref, "gflops") / c.metric(ref, "pct_of_fp32_peak") * 100 / 1e3 if ref else None


def by_n(p, s, colours):
    """A panel of TFLOP/s against n: a line per tile and per register-blocked bk, cuBLAS, the peak."""
    lines = {}
    for r in s.timed("matmul"):
        lines.setdefault((0, c.param(r, "tile")), []).append(r)
    for r in s.timed("matmul_rb"):
        lines.setdefault((1, c.param(r, "bk")), []).append(r)
    ns = set()
    for (kind, v), pts in sorted(lines.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        optin = any((r.get("launch") or {}).get("optin") for r in pts)
        name = (f"register-blocked, bk {v}" + (" (opt-in)" if optin else "")) if kind \
            else ("global memory only" if v == 0 else f"tile {v}")
        x, y = c.xy(pts, n, tflops)
        if not x:
            continue
        ns.update(x)
        col = colours.setdefault(name, c.color(len(colours)))
        p.line(x, y, name, color=col, linestyle="--" if kind else "-", marker="s" if kind else "o")
    x, y = c.xy(s.timed("cublas"), n, tflops)
    if x:
        ns.update(x)
        # a marker too: a --quick file has one n, and a one-point line without one draws nothing
        p.ax.plot(x, y, color="black", linewidth=2.5, marker="D", markersize=5, label="cuBLAS SGEMM")
    peak = peak_tflops(s.timed("matmul") + s.timed("cublas"))
    if peak:
        p.ax.axhline(peak, color="tab:red", linestyle=":", linewidth=1, label="fp32 peak at the measured clock")
    c.measured_ticks(p.ax, ns, lambda v: str(int(v)))
    p.ax.set_xlabel("matrix edge n (C = A B, n x n fp32)")
    p.ax.set_ylabel("TFLOP/s")
    p.ax.set_ylim(bottom=0)
    return p


def blocks_text(b):
    return f"{b:g} block{'' if b == 1 else 's'}/SM"


def best_text(r, cublas):
    """The annotation of a panel's best point: what it is, its shared memory and blocks, its rate."""
    pct = c.metric(r, "pct_of_cublas")
    if pct is None and cublas:
        pct = 100 * tflops(r) / cublas
    blocks = c.occ(r, "measured")
    what = [f"{c.param(r, 'stages'):g} stages", f"{smem_kib(r):.1f} KiB"] + \
        ([blocks_text(blocks)] if blocks is not None else [])
    rate = f"{tflops(r):.1f} TFLOP/s" + (f", {pct:.0f} % of cuBLAS" if pct is not None else "")
    return (f"best: {r['bench']} {c.param(r, 'bm'):g} x {c.param(r, 'bn'):g} x {c.param(r, 'bk'):g}"
            f"{a_width_text(r)}, {', '.join(what)}:\n{rate}")


def a_width_text(r):
    """How a point's threads read A: float2 or float4 loads (files from before the axis: float2)."""
    w = c.param(r, "a_width_bytes")
    return f", A float{w / 4:g}" if w else ""


def by_smem(p, s, at, colours, rings):
    """A panel of TFLOP/s against shared memory per block at n = at; returns its x values and its
    highest y (the lines, cuBLAS and the peak)."""
    def here(bench):
        return [r for r in s.timed(bench) if n(r) == at and tflops(r) is not None]
    xs, ys = set(), [0.0]
    ringed = {}     # blocks per SM -> the points measured with it
    configs = {}
    for bench in SGEMM:
        for r in here(bench):
            configs.setdefault((c.param(r, "bm"), c.param(r, "bn"), c.param(r, "bk"),
                                c.param(r, "a_width_bytes") or 0, bench), []).append(r)
    for (bm, bn, bk, width, bench), pts in sorted(configs.items(),
                                                   key=lambda kv: (kv[0][:4], list(SGEMM).index(kv[0][4]))):
        copy, ls = SGEMM[bench]
        x, y = c.xy(pts, smem_kib, tflops)
        stages = ", ".join(f"{v:g}" for v in sorted({c.param(r, "stages") for r in pts} - {None}))
        # a colour per tile and A width; the copy is the line style; float4 A loads a square marker
        base = colours.setdefault((bm, bn, bk, width), TILE_COLORS[len(colours)] if len(colours) < len(TILE_COLORS)
                                  else c.color(len(colours) + len(c.COLORS)))
        p.line(x, y, f"{copy} {bm:g} x {bn:g} x {bk:g}{a_width_text(pts[0])}, stages {stages}",
               color=base if ls == "-" else lighter(base), linestyle=ls, marker="s" if width == 16 else "o",
               markersize=3, linewidth=1.6)
        xs.update(x)
        ys += y
    for bench, (name, col, mk) in TEACHING.items():
        key = "tile" if bench == "matmul" else "bk"
        pts = [r for r in here(bench) if c.param(r, key)]
        x, y = c.xy(pts, smem_kib, tflops)
        if not x:
            continue
        values = ", ".join(f"{v:g}" for v in sorted({c.param(r, key) for r in pts}))
        p.line(x, y, f"{name} {values}", color=col, linestyle="-.", marker=mk, markersize=3, linewidth=1.2)
        xs.update(x)
        ys += y
    for r in [r for b in list(SGEMM) + list(TEACHING) for r in here(b)]:
        if c.occ(r, "measured") is not None and smem_kib(r) > 0:
            ringed.setdefault(c.occ(r, "measured"), []).append(r)
    for b in sorted(ringed):
        mk, grey = rings[b]
        x, y = c.xy(ringed[b], smem_kib, tflops)
        p.ax.plot(x, y, linestyle="", marker=mk, markersize=8, markerfacecolor="none", markeredgecolor=grey,
                  markeredgewidth=0.8, color=grey, label=f"ring: {blocks_text(b)} (measured)", zorder=1)
    # tile 0 uses no shared memory: no place on a log axis of it, so a floor under every x
    floor = next((r for r in here("matmul") if c.param(r, "tile") == 0), None)
    if floor is not None:
        blocks = c.occ(floor, "measured")
        p.ax.axhline(tflops(floor), color="dimgray", linestyle=":", linewidth=1.2,
                     label=f"global memory only: {tflops(floor):.1f} TFLOP/s"
                           + (f" ({blocks_text(blocks)})" if blocks else ""))
    cublas = next((tflops(r) for r in here("cublas")), None)
    if cublas is not None:
        p.ax.axhline(cublas, color="black", linewidth=2, label=f"cuBLAS SGEMM: {cublas:.1f} TFLOP/s")
        p.ax.annotate(f"cuBLAS {cublas:.1f} TFLOP/s", (0.01, cublas), xycoords=("axes fraction", "data"),
                      xytext=(0, 2), textcoords="offset points", va="bottom", fontsize=7.5, fontweight="bold")
        ys.append(cublas)
    peak = peak_tflops([r for b in BENCHES for r in here(b)])
    if peak:
        p.ax.axhline(peak, color="tab:red", linestyle=":", linewidth=1, label="fp32 peak at the measured clock")
        ys.append(peak)
    best = max((r for b in SGEMM for r in here(b)), key=tflops)
    p.ax.plot([smem_kib(best)], [tflops(best)], linestyle="", marker="*", markersize=15, color="gold",
              markeredgecolor="black", markeredgewidth=0.8, label="best SGEMM point (named above)", zorder=5)
    # the name in the band above every line (draw_by_smem leaves it), right-aligned: a short arrow down
    p.ax.annotate(best_text(best, cublas), (smem_kib(best), tflops(best)), xytext=(0.99, 0.985),
                  textcoords="axes fraction", va="top", ha="right", fontsize=7.5,
                  arrowprops={"arrowstyle": "->", "color": "black", "linewidth": 0.8, "shrinkB": 7})
    p.ax.set_ylabel("TFLOP/s")
    return xs, max(ys)


def draw_by_smem(plt, have, units=()):
    """The figure of files with SGEMM points: a panel per (series, n) of them; a series without any
    keeps its panel against n; units (pooled into one of have): a last panel of each against their
    median."""
    panels_of = [(s, at) for s in have for at in (sgemm_ns(s) or [None])]
    k = len(panels_of)
    rows = k + bool(units)
    fig, axes = plt.subplots(rows, 1, figsize=(11, 5.2 * rows + 0.8), squeeze=False, sharey=not units,
                             layout="constrained")
    blocks = sorted({c.occ(r, "measured") for s, at in panels_of if at is not None
                     for b in list(SGEMM) + list(TEACHING) for r in s.timed(b) if n(r) == at} - {None})
    rings = {b: RINGS[i % len(RINGS)] for i, b in enumerate(blocks)}
    colours, by_n_colours = {}, {}
    panels, top = [], 0.0
    for ax, (s, at) in zip(axes[:, 0], panels_of):
        if at is None:
            panels.append(by_n(c.Panel(ax, s.label), s, by_n_colours))
            top = max([top] + [y for line in ax.get_lines() for y in line.get_ydata() if y == y])
            continue
        p = c.Panel(ax, f"{s.label}, n = {at:g}")
        xs, high = by_smem(p, s, at, colours, rings)
        top = max(top, high)
        lo, hi = min(xs), max(xs)
        ticks = [2.0 ** e for e in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)]
        c.plain_log2(ax, "x")
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.set_xlim(ticks[0] / 1.3, ticks[-1] * 1.3)
        ax.set_xlabel("shared memory per block (KiB, static + dynamic; log scale)")
        panels.append(p)
    # room above the peak line for the best point's name
    for p in panels if units else panels[:1]:     # the panels share y but for a change panel's
        p.ax.set_ylim(0, top * 1.14)
    if units:
        p = c.Panel(axes[-1, 0], c.CHANGE_TITLE)
        c.change_panel(p, units, BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 5.2 if rows < 4 else 3.6)
    c.title(fig, "Shared memory as a scratchpad: FP32 GEMM against shared memory per block (cuBLAS the line to reach)",
            have)
    return fig
