"""swizzle: shared memory as the tensor cores see it. A panel per row width (32..256 bytes): the
measured slowdown of ldmatrix and stmatrix (.x1, .x2, .x4, with and without .trans) on each layout of
the 16-bit tile against the padded one, over the bank model's slowdown (a grey bar per layout). The
last panel: TMA tensor copies per swizzle mode in % of the same run's global read bandwidth (the
landed tiles read back by loads or by ldmatrix), and wgmma fed from shared memory in % of the published
dense BF16 peak, per swizzle mode. Where the files have hardware counters (smembench --counters),
one more panel: the wavefronts per ldmatrix and stmatrix instruction the counters saw at each layout
point against the bank model's (on the diagonal where the model holds)."""
import math

from smembench import counters as smem_counters
from smembench.figures import common as c

NAME = "swizzle"
TILE_BENCHES = ("swizzle_ldmatrix", "swizzle_stmatrix")
COPY_BENCHES = ("swizzle_tma", "swizzle_wgmma")
BENCHES = TILE_BENCHES + COPY_BENCHES + ("global_read",)
DRAWN = {"swizzle_ldmatrix": ("row_bytes", "layout", "matrices", "trans"),
         "swizzle_stmatrix": ("row_bytes", "layout", "matrices", "trans"),
         "swizzle_tma": ("swizzle_bytes", "consumer"), "swizzle_wgmma": ("swizzle_bytes",), "global_read": ()}
# the layout axis's codes, in drawing order
LAYOUTS = ((0, "row-major"), (1, "padded\n+16 B"), (32, "32 B\nswizzle"), (64, "64 B\nswizzle"),
           (128, "128 B\nswizzle"))
CODES = [code for code, _ in LAYOUTS]
MODES = (0, 32, 64, 128)
MODE_NAMES = ["none", "32 B", "64 B", "128 B"]
OP = {"swizzle_ldmatrix": ("ldmatrix", "o"), "swizzle_stmatrix": ("stmatrix", "s")}
# each instruction's place beside its layout's tick: ldmatrix left, stmatrix right, each .x1 .x2 .x4
# then the same .trans
VARIANTS = [(b, t, m) for b in TILE_BENCHES for t in (0, 1) for m in (1, 2, 4)]
# the last panel's lines: bench, consumer (None: any), metric, label, line style
COPIES = (("swizzle_tma", 0, "pct_of_read", "TMA copy, read back by loads (% of global read)", "--"),
          ("swizzle_tma", 1, "pct_of_read", "TMA copy, read back by ldmatrix (% of global read)", "-"),
          ("swizzle_wgmma", None, "pct_of_peak", "wgmma, both operands in shared memory (% of dense BF16 peak)",
           ":"))
BAR = 0.42      # half the width of a layout's model bar (x units: a layout is 1)


def offset(bench, trans, matrices):
    return -0.36 + 0.72 * VARIANTS.index((bench, trans, matrices)) / (len(VARIANTS) - 1)


def tile_point(r):
    """A tile point the panels can place: a known layout, a width, a variant and a slowdown."""
    return (c.param(r, "row_bytes") is not None and c.param(r, "layout") in CODES and
            c.param(r, "trans") in (0, 1) and c.param(r, "matrices") in (1, 2, 4) and
            c.metric(r, "slowdown") is not None)


def copy_points(s, bench, consumer, name):
    """{swizzle mode: value} of one line of the last panel."""
    return {c.param(r, "swizzle_bytes"): c.metric(r, name) for r in s.timed(bench)
            if (consumer is None or c.param(r, "consumer") == consumer) and c.param(r, "swizzle_bytes") in MODES
            and c.metric(r, name) is not None}


def broken(pts):
    """(x, y) over the measured modes, broken where a mode between two was not measured."""
    x, y = [], []
    for k, m in enumerate(MODES):
        if m in pts:
            if x and x[-1] == x[-1] and k - x[-1] > 1:
                x.append(math.nan)
                y.append(math.nan)
            x.append(k)
            y.append(pts[m])
    return x, y


def wgmma_clock(series):
    """The clock wgmma's "% of dense BF16 peak" ran at, for the panel's title: the peak is per clock
    (flop per clock per SM), so a throttled SM clock (1,643-1,648 MHz on the H200 file) reads 97 %
    while the TFLOP/s, also said, is what a user gets; "" where no point records its clock."""
    pts = [r for s in series for r in s.timed("swizzle_wgmma")]
    mhz = [r["clock_mhz"] for r in pts if isinstance(r.get("clock_mhz"), (int, float))]
    tf = [v for v in (c.metric(r, "tflop_per_s") for r in pts) if v is not None]
    if not mhz:
        return ""
    text = f"\nwgmma's % of peak is per clock: it ran at {min(mhz):,.0f}-{max(mhz):,.0f} MHz"
    return text + (f", {min(tf):,.0f}-{max(tf):,.0f} TFLOP/s" if tf else "")


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES)     # four or more units: their median, and each against it
    tiles, copies = [], []
    for s in series:
        pts = [r for b in TILE_BENCHES for r in s.timed(b)]
        if pts:
            if any(tile_point(r) for r in pts):
                tiles.append(s)
            else:
                note(f"{s.path}: ldmatrix/stmatrix points without row_bytes, a known layout, trans, matrices and "
                     f"a slowdown: no layout panels of the {NAME} figure from it")
        if s.timed("swizzle_tma") or s.timed("swizzle_wgmma"):
            if any(copy_points(s, b, k, m) for b, k, m, _, _ in COPIES):
                copies.append(s)
            else:
                lacks = "no global_read point to compare with" if s.timed("swizzle_tma") and \
                    not s.timed("global_read") else "no pct_of_read or pct_of_peak metric with a swizzle_bytes"
                note(f"{s.path}: TMA/wgmma points but {lacks}: no swizzle-mode panel of the {NAME} figure from "
                     "it (run --sweep swizzle, which measures global_read beside them)")
    have = [s for s in series if s in tiles or s in copies]
    if not have:
        return None     # a global_read point alone: the memory figures' business, not this one's
    several = len(have) > 1
    widths = sorted({c.param(r, "row_bytes") for s in tiles for b in TILE_BENCHES for r in s.timed(b)
                     if tile_point(r)})
    # the counters' wavefronts per instruction beside the model's, where the files have them
    counted = [(s, b, r, smem_counters.wavefronts_per_request(r, OP[b][0]), c.metric(r, "wavefronts"))
               for s in tiles for b in TILE_BENCHES for r in s.timed(b)]
    counted = [x for x in counted if x[3] is not None and x[4] is not None]
    n = len(widths) + bool(copies) + bool(counted) + bool(units)
    fig, axes = plt.subplots(n, 1, figsize=(10, 2.3 * n + 0.7), squeeze=False, layout="constrained")
    panels = []
    for ax, w in zip(axes[:, 0], widths):
        # a ratio of two times of one run: a shift of the whole run (a slower unit, a lower clock) divides out
        p = c.Panel(ax, f"{w:g}-byte rows: slowdown against padded rows by layout" + (
            "\n(a ratio within each run: a run-wide shift divides out" +
            ("; the units' times: the last panel)" if units else ")") if several or units else ""))
        models = []
        for s in tiles:
            model = {}
            for b in TILE_BENCHES:
                for r in s.timed(b):
                    m = c.metric(r, "predicted_slowdown")
                    if c.param(r, "row_bytes") == w and c.param(r, "layout") in CODES and m is not None:
                        model.setdefault(CODES.index(c.param(r, "layout")), m)
            # the model once where files agree on it (a file may have measured fewer layouts)
            same = next((m for m, _ in models if all(m[i] == v for i, v in model.items() if i in m)), None)
            if same is not None:
                same.update(model)
            elif model:
                models.append((model, s))
        for k, (model, s) in enumerate(models):
            x, y = [], []
            for i in sorted(model):
                x += [i - BAR, i + BAR, math.nan]
                y += [model[i], model[i], math.nan]
            p.ax.plot(x, y, label="bank model" + (f" ({s.short})" if k else ""),
                      color=c.REF_COLORS[(2 + k) % len(c.REF_COLORS)] if k else "gray", linewidth=3, alpha=0.6, solid_capstyle="butt",
                      zorder=1)
        for s in tiles:
            for b in TILE_BENCHES:
                name, mk = OP[b]
                for trans in (0, 1):
                    pts = [r for r in s.timed(b) if tile_point(r) and c.param(r, "row_bytes") == w and
                           c.param(r, "trans") == trans]
                    if not pts:
                        continue
                    pts.sort(key=lambda r: (CODES.index(c.param(r, "layout")), c.param(r, "matrices")))
                    x = [CODES.index(c.param(r, "layout")) + offset(b, trans, c.param(r, "matrices")) for r in pts]
                    y = [c.metric(r, "slowdown") for r in pts]
                    label = name + (" .trans (hollow)" if trans else "") + (f", {s.short}" if several else "")
                    hollow = {"markerfacecolor": "none"} if trans else {}
                    p.points(x, y, label, marker=mk, markersize=4, zorder=3, **hollow)
        c.plain_log2(ax, suffix="x")
        ax.set_ylim(0.7, 12)
        ax.set_yticks([1, 2, 4, 8])
        ax.set_xticks(range(len(LAYOUTS)), [name for _, name in LAYOUTS])
        ax.set_xlim(-0.5, len(LAYOUTS) - 0.5)
        ax.set_ylabel("slowdown (x)")
        panels.append(p)
    if widths:
        panels[-1].ax.set_xlabel("layout of the 16-bit tile (beside each: ldmatrix then stmatrix, "
                                 ".x1 .x2 .x4 left to right)")
    if copies:
        ax = axes[len(widths), 0]
        p = c.Panel(ax, "TMA tensor copies and wgmma per swizzle mode" + wgmma_clock(copies))
        for k, (bench, consumer, name, label, ls) in enumerate(COPIES):
            for s in copies:
                x, y = broken(copy_points(s, bench, consumer, name))
                if x:   # the modes are categories: markers side by side, no line joining them
                    dx = (k - (len(COPIES) - 1) / 2) * 0.12
                    p.points([v + dx for v in x], y, label + (f", {s.short}" if several else ""),
                             marker=c.MARKERS[k % len(c.MARKERS)], markersize=7)
        ax.set_xticks(range(len(MODES)), MODE_NAMES)
        ax.set_xlim(-0.5, len(MODES) - 0.5)
        ax.set_ylim(0, 110)
        ax.set_xlabel("TMA / wgmma swizzle mode")
        ax.set_ylabel("% of each series' own\nceiling (in its label)")
        panels.append(p)
    if counted:
        ax = axes[len(widths) + bool(copies), 0]
        p = c.Panel(ax, "the bank model checked by the hardware: wavefronts per instruction, the counters "
                        "against the model,\nat every layout, row width and variant (counters profiled after timing)")
        top = max(max(x[3], x[4]) for x in counted)
        ax.plot([0, top * 1.05], [0, top * 1.05], color="gray", linewidth=1, label="counters = bank model")
        for b in TILE_BENCHES:
            for s in tiles:
                pts = [x for x in counted if x[0] is s and x[1] == b]
                if pts:
                    p.points([x[4] for x in pts], [x[3] for x in pts], OP[b][0] + (f", {s.short}" if several else ""),
                             marker=OP[b][1], markersize=5)
        ax.set_xlabel("the bank model's wavefronts per instruction")
        ax.set_ylabel("counters' wavefronts\nper instruction")
        panels.append(p)
    if units:
        p = c.Panel(axes[-1, 0], c.CHANGE_TITLE + ":\nthe absolute times the ratios above divide out")
        c.change_panel(p, units, TILE_BENCHES + COPY_BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 2.3)
    c.title(fig, "Swizzle: ldmatrix/stmatrix slowdown by layout against the bank model; TMA and wgmma per "
                 "swizzle mode", have)
    return fig
