"""The swizzle sweep's figure: shared memory as the tensor cores see it.

One panel per row width (32..256 bytes): the measured slowdown of ldmatrix and stmatrix (.x1, .x2,
.x4, with and without .trans) on each layout against the padded one, beside the bank model's
slowdown (a grey bar per layout). The last panel: TMA tensor copies per swizzle mode in % of the same
run's global read bandwidth (landed tiles read back by loads or by ldmatrix) and wgmma fed from
shared memory in % of the published dense BF16 peak, per swizzle mode.
"""
from smembench import reader
from smembench.plot import new_figure, param, proxies, relabel, right_legends, series_handles, title

TILE_BENCHES = ("swizzle_ldmatrix", "swizzle_stmatrix")
BENCHES = TILE_BENCHES + ("swizzle_tma", "swizzle_wgmma", "global_read")
# the layout axis's codes, in drawing order
LAYOUTS = ((0, "row-major"), (1, "padded\n+16 B"), (32, "32 B\nswizzle"), (64, "64 B\nswizzle"),
           (128, "128 B\nswizzle"))
MODES = (0, 32, 64, 128)
MODE_NAMES = ["none", "32 B", "64 B", "128 B"]
# each instruction's place beside its layout's tick: ldmatrix left, stmatrix right
VARIANTS = [(b, t, m) for b in TILE_BENCHES for t in (0, 1) for m in (1, 2, 4)]
OP = {"swizzle_ldmatrix": ("ldmatrix", "o"), "swizzle_stmatrix": ("stmatrix", "s")}


def _offset(bench, trans, matrices):
    return -0.36 + 0.72 * VARIANTS.index((bench, trans, matrices)) / (len(VARIANTS) - 1)


def fig_swizzle(plt, series):
    """The figure, or None when no series has a timed point of the sweep."""
    series = [s for s in series if any(s.timed(b) for b in BENCHES if b != "global_read")]
    if not series:
        return None
    series = relabel(series, BENCHES)
    widths = sorted({param(r, "row_bytes") for s in series for b in TILE_BENCHES for r in s.timed(b)} - {None})
    copies = any(s.timed("swizzle_tma") or s.timed("swizzle_wgmma") for s in series)
    fig, axes = new_figure(plt, len(widths) + copies, height=2.3)
    for ax, w in zip(axes, widths):
        model = {}
        for s in series:
            for b in TILE_BENCHES:
                for r in s.timed(b):
                    if param(r, "row_bytes") != w or param(r, "layout") not in dict(LAYOUTS):
                        continue
                    i = [code for code, _ in LAYOUTS].index(param(r, "layout"))
                    predicted = reader.metric(r, "predicted_slowdown")
                    if predicted is not None:
                        model.setdefault(i, predicted)
                    seen = reader.metric(r, "slowdown")
                    if seen is None:
                        continue
                    name, marker = OP[b]
                    trans = param(r, "trans") == 1
                    ax.plot(i + _offset(b, int(trans), param(r, "matrices")), seen, marker, color=s.color,
                            markersize=4, markerfacecolor="none" if trans else s.color, zorder=3, linestyle="")
        for i, predicted in model.items():
            ax.plot([i - 0.42, i + 0.42], [predicted, predicted], color="gray", linewidth=3, alpha=0.6, zorder=1,
                    solid_capstyle="butt")
        ax.set_yscale("log", base=2)
        ax.set_ylim(0.7, 12)
        ax.set_yticks([1, 2, 4, 8], ["1", "2", "4", "8"])
        ax.set_xticks(range(len(LAYOUTS)), [name for _, name in LAYOUTS])
        ax.set_xlim(-0.5, len(LAYOUTS) - 0.5)
        ax.set_ylabel(f"{w:g}-byte rows:\nslowdown (x)")
    if widths:
        right_legends(axes[0], (proxies([("bank model", {"color": "gray", "linewidth": 3, "alpha": 0.6})] +
                                        [(f"{name} .x1 .x2 .x4 (left to right)",
                                          {"marker": marker, "linestyle": ""}) for name, marker in OP.values()] +
                                        [(".trans (hollow)", {"marker": "o", "linestyle": "",
                                                              "markerfacecolor": "none"})]), None),
                      (series_handles(series, "") if len(series) > 1 else [], None))
    if copies:
        ax = axes[-1]
        lines = (("swizzle_tma", 0, "pct_of_read", "TMA copy, read back by loads (% of global read)", "--"),
                 ("swizzle_tma", 1, "pct_of_read", "TMA copy, read back by ldmatrix (% of global read)", "-"),
                 ("swizzle_wgmma", None, "pct_of_peak", "wgmma, both operands in shared memory (% of dense peak)", ":"))
        styles = []
        for bench, consumer, name, label, ls in lines:
            drawn = False
            for s in series:
                pts = {param(r, "swizzle_bytes"): reader.metric(r, name) for r in s.timed(bench)
                       if consumer is None or param(r, "consumer") == consumer}
                xs = [k for k, m in enumerate(MODES) if pts.get(m) is not None]
                if xs:
                    ax.plot(xs, [pts[MODES[k]] for k in xs], linestyle=ls, marker=s.marker, color=s.color,
                            markersize=4)
                    drawn = True
            if drawn:
                styles.append((label, {"linestyle": ls, "marker": "o"}))
        ax.set_xticks(range(len(MODES)), MODE_NAMES)
        ax.set_xlim(-0.5, len(MODES) - 0.5)
        ax.set_ylim(0, 110)
        ax.set_xlabel("TMA / wgmma swizzle mode")
        ax.set_ylabel("% of the ceiling")
        right_legends(ax, (proxies(styles), None))
    if widths:
        axes[len(widths) - 1].set_xlabel("layout of the 16-bit tile (slowdown against padded rows)")
    title(fig, "Swizzle: ldmatrix/stmatrix slowdown by layout against the bank model; TMA and wgmma per "
               "swizzle mode", series)
    return fig
