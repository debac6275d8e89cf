"""tile: matrix-multiply TFLOP/s against n for every tile and the register-blocked kernel, with cuBLAS
and the fp32 peak as reference lines; a panel per series, every line in its panel's legend."""
from smembench.figures import common as c

NAME = "tile"
BENCHES = ("matmul", "matmul_rb", "cublas")
DRAWN = {"matmul": ("n", "tile"), "matmul_rb": ("n", "bk"), "cublas": ("n",)}


def tflops(r):
    g = c.metric(r, "gflops")
    return g / 1e3 if g is not None else None


def n(r):
    return c.param(r, "n")


def draw(plt, series, note):
    have = []
    for s in series:
        if any(n(r) is not None and tflops(r) is not None for b in BENCHES for r in s.timed(b)):
            have.append(s)
        else:
            note(f"{s.path}: matmul/cublas points without n and gflops: nothing for the {NAME} figure")
    if not have:
        return None
    k = len(have)
    cols = min(k, 2)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7.5 * cols, 4.4 * rows + 0.6), squeeze=False, sharey=True,
                             layout="constrained")
    colours = {}    # a kernel keeps its colour in every panel
    panels = []
    for i, s in enumerate(have):
        p = c.Panel(axes[i // cols][i % cols], s.label)
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
        ref = next((r for r in s.timed("matmul") + s.timed("cublas")
                    if c.metric(r, "pct_of_fp32_peak") and c.metric(r, "gflops")), None)
        if ref:
            peak = c.metric(ref, "gflops") / c.metric(ref, "pct_of_fp32_peak") * 100 / 1e3
            p.ax.axhline(peak, color="tab:red", linestyle=":", linewidth=1, label="fp32 peak at the measured clock")
        c.measured_ticks(p.ax, ns, lambda v: str(int(v)))
        p.ax.set_xlabel("matrix edge n (C = A B, n x n fp32)")
        p.ax.set_ylabel("TFLOP/s")
        p.ax.set_ylim(bottom=0)
        panels.append(p)
    for ax in axes.flat[k:]:
        ax.remove()
    for p in panels:
        p.legend()
    c.title(fig, "Shared memory as a scratchpad: tiled matrix multiply", have)
    return fig
