"""memory: transposes and reductions in GB/s beside the device-to-device copy of the same bytes run
in the same file, and the tile copy (the transposes' DRAM pattern without shared memory, their ceiling)."""
from smembench.figures import common as c

NAME = "memory"
BENCHES = ("transpose", "transpose_naive", "tile_copy", "reduction", "copy")
# the transpose's layout and geometry are in each bar's label; files before the layout axis had
# padding_words (0: [32][32], 1: [32][33]) at one geometry
DRAWN = {"transpose": ("mib", "layout", "padding_words", "edge_elems", "width_bytes", "band_tiles", "depth_tiles",
                           "block_tiles", "resident_blocks"),
         "transpose_naive": ("mib",), "tile_copy": ("mib", "edge_elems", "block_kib"), "reduction": ("mib", "method"),
         "copy": ("mib",)}
ACCESS = {4: "float", 8: "float2", 16: "float4"}


def layout(p):
    """A transpose point's layout code (0 row-major, 1 padded, 2 swizzled), from either file format."""
    return p["layout"] if "layout" in p else (1 if p.get("padding_words") else 0)


def transpose_label(p):
    if "layout" not in p:
        return "transpose, tile [32][33]" if p.get("padding_words") else "transpose, tile [32][32]"
    e, w, band = p.get("edge_elems", 32), p.get("width_bytes", 4), p.get("band_tiles", 1)
    tile = {0: f"[{e}][{e}]", 1: f"[{e}][{e + 1}]", 2: f"[{e}][{e}] XOR-swizzled"}.get(p["layout"],
                                                                                   f"layout {p['layout']}")
    depth, tiles, resident = p.get("depth_tiles", 1), p.get("block_tiles", 1), p.get("resident_blocks", 0)
    return f"transpose, tile {tile}, {ACCESS.get(w, f'{w}-byte')} accesses" + \
        (f", bands of {band} tile rows" if band != 1 else "") + \
        (f", {depth} tiles in flight (persistent, cp.async)" if depth != 1 else "") + \
        (f", {tiles} tiles a block" if tiles != 1 else "") + \
        (f", {resident} blocks/SM" if resident else "")


def tile_copy_label(p):
    return f"tile copy, no shared memory ({p.get('edge_elems', 64)}-float tiles, {p.get('block_kib', 16)} KiB a block)"


KERNELS = (  # (benchmark, parameter test, label or a function of the parameters, colour) in the order listed
    ("copy", lambda p: True, "device-to-device copy", "0.35"),
    ("tile_copy", lambda p: True, tile_copy_label, "0.65"),
    ("transpose_naive", lambda p: True, "transpose, no shared memory", "tab:red"),
    ("transpose", lambda p: layout(p) == 0, transpose_label, "tab:orange"),
    ("transpose", lambda p: layout(p) == 1, transpose_label, "tab:green"),
    ("transpose", lambda p: layout(p) == 2, transpose_label, "tab:olive"),
    ("reduction", lambda p: p.get("method") == 0, "reduce, shared tree + __syncthreads", "tab:blue"),
    ("reduction", lambda p: p.get("method") == 1, "reduce, warp shuffles", "tab:cyan"),
    ("reduction", lambda p: p.get("method") == 2, "reduce, shared atomics", "tab:purple"),
)
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "+++", "---"]
COMPARED = ("transpose", "transpose_naive", "tile_copy", "reduction")


def draw(plt, series, note):
    series = [s for s in series if any(s.points(b) for b in COMPARED)]
    # three or more units of one model (a bar each per kernel and size: 45 rows each on the H200):
    # the bars of their median, and each unit against it below
    series, units = c.pooled(series, BENCHES)
    rows = []   # (mib, series index, kernel order, label, colour, hatch, GB/s, % of the copy)
    several = len({s.label for s in series}) > 1
    for si, s in enumerate(series):
        copy, compared = {}, set()
        for r in s.timed("copy"):
            v, mib = c.metric(r, "gbytes_per_s"), c.param(r, "mib")
            if v is not None and mib is not None:
                copy[mib] = max(copy.get(mib, 0), v)
        for b in COMPARED:
            compared |= {c.param(r, "mib") for r in s.timed(b)}
        before = len(rows)
        for order, (bench, test, label, colour) in enumerate(KERNELS):
            for r in s.timed(bench):
                v, mib = c.metric(r, "gbytes_per_s"), c.param(r, "mib")
                if v is None or mib is None or not test(r["params"]) or (bench == "copy" and mib not in compared):
                    continue    # a copy nothing is compared with is left out
                name = label if isinstance(label, str) else label(r["params"])
                pct = None if bench == "copy" else c.metric(r, "pct_of_copy")
                if pct is None and bench != "copy" and copy.get(mib):
                    pct = 100 * v / copy[mib]
                who = f" ({s.short})" if several else ""
                rows.append((mib, si, order, f"{name}, {mib:g} MiB{who}", colour, HATCHES[si % len(HATCHES)], v,
                             pct))
        if len(rows) == before:
            note(f"{s.path}: transpose/reduction points without mib and gbytes_per_s: nothing for the {NAME} figure")
    if not rows:
        return None
    rows.sort(key=lambda t: t[:3])
    rows = [r[3:] for r in rows]    # label, colour, hatch, GB/s, % of the copy
    longest = max(len(r[0]) for r in rows)    # the y labels take their width from the axes
    # a row 0.3 inches high, less where that would pass MAX_PX (two series of 45 rows: 0.2 inches)
    high = min(1.5 + 0.3 * len(rows), c.MAX_PX / 100 - 0.5 - (3.6 if units else 0))
    if units:
        fig, (ax, cax) = plt.subplots(2, 1, figsize=(7 + longest * 0.06, high + 3.6), layout="constrained",
                                      gridspec_kw={"height_ratios": [high, 3.6]})
        cp = c.Panel(cax, c.CHANGE_TITLE)
        c.change_panel(cp, units, BENCHES)
        cp.legend()
    else:
        fig, ax = plt.subplots(figsize=(7 + longest * 0.06, high), layout="constrained")
    ax.set_title("Throughput of each kernel and size, beside the copy of the same bytes" +
                 (f" ({series[0].short})" if units and len(series) == 1 else ""))
    y = list(range(len(rows)))
    ax.barh(y, [r[3] for r in rows], color=[r[1] for r in rows], edgecolor="white")
    for yi, (name, colour, hatch, v, pct) in zip(y, rows):
        if hatch:
            ax.barh([yi], [v], color="none", hatch=hatch, edgecolor="white", linewidth=0)
        text = f" {v:.0f} GB/s" + (f", {pct:.1f} % of the copy beside it" if pct is not None else "")
        ax.text(v, yi, text, va="center", ha="left", fontsize=7)
    ax.set_yticks(y, [r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, max(r[3] for r in rows) * 1.35)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("GB/s (bytes read + written; the reductions read only)")
    if several:
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(facecolor="0.6", hatch=HATCHES[i % len(HATCHES)], edgecolor="white", label=s.short)
                           for i, s in enumerate(series)], loc="upper left", bbox_to_anchor=(1.02, 1),
                  borderaxespad=0)
    c.title(fig, "Transpose and reduction against a device-to-device copy of the same bytes", series)
    r = fig.canvas.get_renderer()
    for _ in range(4):      # widen the x range until every value label ends inside the axes
        fig.get_layout_engine().execute(fig)    # the axes' place without drawing every artist
        box = ax.get_window_extent(r)
        right = max(t.get_window_extent(r).x1 for t in ax.texts)
        if right < box.x1 - 2:
            break
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * (right - box.x0 + 12) / box.width)
    return fig
