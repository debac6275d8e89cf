"""staging: global -> shared staging (loads, cp.async, cp.async.bulk) in % of the same run's global
read bandwidth by transfer size, with the 90 % line and the smallest transfer reaching it; a panel per
series."""
from smembench import reader
from smembench.figures import common as c

NAME = "staging"
# one colour per kernel, in every panel (name, colour, marker, line width); the width of each load
# is the line style (WIDTH_STYLES), the same in every panel
KERNELS = {"staging_plain": ("ld.global + st.shared", "tab:blue", "o", 1.2),
           "staging_cp_async": ("cp.async", "tab:orange", "s", 1.2),
           "staging_bulk": ("cp.async.bulk + mbarrier", "tab:green", "^", 2.5)}
WIDTH_STYLES = {4: ":", 8: "--", 16: "-", None: "-"}
BENCHES = tuple(KERNELS) + ("global_read",)
DRAWN = {"staging_plain": ("transfer_bytes", "width_bytes"), "staging_cp_async": ("transfer_bytes", "width_bytes"),
         "staging_bulk": ("transfer_bytes",), "global_read": ()}


def transfer(r):
    return c.param(r, "transfer_bytes")


def kib(v):
    """A transfer size in KiB for a tick or a label: "64K", "226.9K" (232,320 B, the opt-in limit less
    a reservation, is no whole KiB; 226.875K was printed before)."""
    k = v / 1024
    return f"{k:g}K" if k == int(k) else f"{k:.1f}K"


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES)     # four or more units: a panel of their median, and each against it
    have = []
    for s in series:
        pts = [r for b in KERNELS for r in s.timed(b)]
        if not pts:
            continue     # a global_read point alone: the memory figures' business, not this one's
        if not any(c.metric(r, "pct_of_read") is not None and transfer(r) is not None for r in pts):
            lacks = "no global_read point to compare with" if not s.timed("global_read") else \
                "no pct_of_read metric with a transfer_bytes"
            note(f"{s.path}: staging points but {lacks}: no {NAME} figure from it (run --sweep staging, "
                 "which measures global_read beside them)")
            continue
        have.append(s)
    if not have:
        return None
    k = len(have)
    cols = min(k, 2)
    rows = (k + cols - 1) // cols + bool(units)
    fig, axes = plt.subplots(rows, cols, figsize=(7.5 * cols + 1, 4.4 * rows + 0.6), squeeze=False, sharey=not units,
                             layout="constrained")
    panels = []
    for i, s in enumerate(have):
        ax = axes[i // cols][i % cols]
        read = [v for v in (c.metric(r, "gbytes_per_s") for r in s.timed("global_read")) if v is not None]
        p = c.Panel(ax, s.label + (f": global read {max(read):.0f} GB/s" if read else ""))
        smallest = reader.staging_smallest(s.doc)
        sizes = set()
        for (bench, w), reach in sorted(smallest.items(), key=lambda kv: (list(KERNELS).index(kv[0][0]),
                                                                          kv[0][1] or 0)):
            name, col, m, lw = KERNELS[bench]
            x, y = c.xy([r for r in s.timed(bench) if c.param(r, "width_bytes") == w], transfer,
                        lambda r: c.metric(r, "pct_of_read"))
            if not x:
                continue
            sizes.update(x)
            label = name + (f", {w} B" if w else "")
            p.line(x, y, label, color=col, linestyle=WIDTH_STYLES.get(w, "-."), marker=m, linewidth=lw)
            if reach and reach in x:
                p.note(reach, y[x.index(reach)], kib(reach), dy=7, color=col)
        p.ref(90, label="90 % (n K: the smallest transfer reaching it)", linestyle="--")
        ax.margins(y=0.15)   # room for the labels above the curves
        c.measured_ticks(ax, sizes, kib)
        for t in ax.get_xticklabels():
            t.set_rotation(45)
        ax.set_xlabel("transfer per operation (K = KiB)")
        ax.set_ylabel("% of the global read bandwidth\n(same run, same data)")
        panels.append(p)
    for ax in list(axes.flat[k:]) if not units else list(axes.flat[k:-cols]) + list(axes[-1, 1:]):
        ax.remove()
    if units:
        p = c.Panel(axes[-1, 0], c.CHANGE_TITLE)
        c.change_panel(p, units, BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.title(fig, "Staging global memory into shared memory", have)
    c.place_texts(fig, panels)
    return fig
