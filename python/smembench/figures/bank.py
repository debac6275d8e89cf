"""bank: the measured slowdown against stride for each access width, with the bank model drawn over
the measured strides only, as a bar at each (the model has no value between two strides). Where the
files have hardware counters (smembench --counters), a last panel: the shared-load wavefronts per
request the counters saw (wavefronts / instructions: the n-way) beside the bank model's, and the bank
conflicts per request (conflicts / instructions), per width, against the stride."""
from smembench import counters as smem_counters
from smembench.figures import common as c

NAME = "bank"
BENCHES = ("bank",)
DRAWN = {"bank": ("width_bytes", "stride_elems")}


def stride(r):
    return c.param(r, "stride_elems")


def draw(plt, series, note):
    series, units = c.pooled(series, BENCHES, lines=True)     # four or more units: their median, and each against it
    have = []
    for s in series:
        if any(c.param(r, "width_bytes") is not None and stride(r) is not None and
               c.metric(r, "slowdown") is not None for r in s.timed("bank")):
            have.append(s)
        else:
            note(f"{s.path}: bank points without width_bytes, stride_elems and a slowdown: nothing for the "
                 f"{NAME} figure")
    if not have:
        return None
    widths = sorted({c.param(r, "width_bytes") for s in have for r in s.timed("bank")} - {None})
    several = len({s.label for s in have}) > 1
    counted = [s for s in have if any(smem_counters.wavefronts_per_request(r) is not None or
                                      smem_counters.conflicts_per_request(r) is not None for r in s.timed("bank"))]
    rows = len(widths) + bool(units) + bool(counted)
    fig, axes = plt.subplots(rows, 1, figsize=(10, 2.6 * rows + 0.7), squeeze=False, sharex=not units,
                             layout="constrained")
    panels = []
    for ax, w in zip(axes[:, 0], widths):
        p = c.Panel(ax, f"{w}-byte loads")
        models = []
        for s in have:
            pts = [r for r in s.timed("bank") if c.param(r, "width_bytes") == w]
            x, m = c.xy(pts, stride, lambda r: c.metric(r, "predicted_slowdown"))
            if x and (x, m) not in models:   # the model once where files agree on it
                models.append((x, m))
                # the model exists at whole strides only: a bar at each, no risers between two
                # strides (a comb of them when the model alternates, as it does between odd and even)
                p.points(x, m, "bank model" + (f" (strides of {s.short})" if several and len(models) > 1 else ""),
                         color=c.REF_COLORS[2 + len(models) - 1], marker="_", markersize=12,
                         markeredgewidth=2, zorder=1)
        for s in have:
            pts = [r for r in s.timed("bank") if c.param(r, "width_bytes") == w]
            x, v = c.xy(pts, stride, lambda r: c.metric(r, "slowdown"))
            if x:
                p.points(x, v, s.short, marker=c.marker(s.index), markersize=4, zorder=2)
        c.plain_log2(ax, suffix="x")
        ax.set_ylabel("slowdown\n(stride-1 throughput / this)")
        if several or units:    # a ratio of two times of one run: a shift of the whole run divides out
            ax.set_title(f"{w}-byte loads\n(a ratio within each run: a run-wide shift divides out"
                         + ("; the units' times: the last panel)" if units else ")"))
        panels.append(p)
    for p in panels[1:] if units else ():
        p.ax.sharex(panels[0].ax)
    panels[-1].ax.set_xlabel("stride between lanes (elements)")
    if counted:
        p = c.Panel(axes[len(widths), 0], "Shared loads per request, counted by the hardware: wavefronts (the "
                                          "n-way) beside the bank model's, and bank conflicts")
        for w in widths:
            for s in counted:
                pts = [r for r in s.timed("bank") if c.param(r, "width_bytes") == w]
                who = f" ({s.short})" if several else ""
                x, m = c.xy(pts, stride, lambda r: c.metric(r, "wavefronts"))
                if x:
                    p.points(x, m, f"{w}-byte: model's wavefronts" + who, marker="_", markersize=12,
                             markeredgewidth=2, zorder=1)
                x, v = c.xy(pts, stride, smem_counters.wavefronts_per_request)
                if x:
                    p.points(x, v, f"{w}-byte: wavefronts / instructions" + who, marker=c.marker(s.index),
                             markersize=4, zorder=2)
                x, v = c.xy(pts, stride, smem_counters.conflicts_per_request)
                if x:
                    p.points(x, v, f"{w}-byte: conflicts / instructions" + who, marker="x", markersize=4, zorder=2)
        p.ax.set_ylabel("per request")
        p.ax.set_xlabel("stride between lanes (elements)")
        panels.append(p)
    if units:
        p = c.Panel(axes[-1, 0], c.CHANGE_TITLE + ":\nthe absolute times the ratios above divide out")
        c.change_panel(p, units, BENCHES)
        panels.append(p)
    for p in panels:
        p.legend()
    c.fit_legends(fig, panels, 2.6)
    c.title(fig, "Bank conflicts: stride-1 throughput over each stride's", have)
    return fig
