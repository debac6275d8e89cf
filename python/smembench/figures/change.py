"""The change of each point against its base, as the gate judged it (compare.py --plot; nvbench_compare
--plot is the model): a horizontal bar of change per point with its uncertainty, coloured by verdict,
the band the point was judged with behind it, separators and a label per benchmark. Past MAX_POINTS
points, one bar per benchmark and verdict (the median change of its points, the whisker their range),
so the figure stays under MAX_PX on its long side, and its subtitle says so. Drawn by compare, not by
plot: it needs the gate's verdicts."""
import math

from smembench import reader
from smembench.gate import MEDIAN_SE
from smembench.tables import pct

# one colour per verdict (the meaning the gate gives); what the figure draws besides is grey or black
VERDICT_COLORS = {"slower": "#d62728", "faster": "#2ca02c", "same": "#1f77b4", "uncertain": "#ff7f0e"}
VERDICTS = ("slower", "faster", "same", "uncertain")
BAND_COLOR = "#d9d9d9"
MAX_POINTS = 200          # past this many timed points, a bar per benchmark and verdict
MAX_PX = 2500             # the long side's ceiling, in pixels
PITCH_IN = 0.10           # a bar's row, in inches (10 px at the figures' 100 dpi)
TOP_IN, BOTTOM_IN, LEFT_IN, RIGHT_IN = 1.15, 0.6, 1.55, 0.55
WIDTH_IN = 10.0
MAX_CHANGE = 0.5          # the x axis ends at +-50 %: a point past it is drawn at the edge, its value said


def uncertainty(row, z):
    """z times the standard error of the change of the medians (the noise of each side over its
    samples), or None where a side has no noise."""
    noise, n = row.get("noise"), row.get("samples")
    if not noise or None in noise or not n or 0 in n:
        return None
    return z * MEDIAN_SE * math.sqrt(noise[0] ** 2 / n[0] + noise[1] ** 2 / n[1])


def bars(rows, opt, z):
    """The bars to draw, top to bottom: dicts of bench, verdict, change, lo and hi (the whisker),
    band (half width, a fraction) and n (points); grouped (True) past MAX_POINTS timed points."""
    timed = [r for r in rows if r["kind"] == "timed" and r.get("change") is not None]
    order = list(dict.fromkeys(r["bench"] for r in timed))
    timed.sort(key=lambda r: order.index(r["bench"]))      # stable: each benchmark's points in file order
    threshold = opt.threshold / 100
    if len(timed) <= MAX_POINTS:
        out = []
        for r in timed:
            u = uncertainty(r, z)
            out.append({"bench": r["bench"], "verdict": r["verdict"], "change": r["change"], "n": 1,
                        "lo": None if u is None else r["change"] - u, "hi": None if u is None else r["change"] + u,
                        "band": r.get("band") or threshold, "name": r["name"]})
        return out, False
    groups = {}
    for r in timed:
        groups.setdefault((r["bench"], r["verdict"]), []).append(r)
    out = []
    for (bench, verdict), members in sorted(groups.items(), key=lambda g: (order.index(g[0][0]),
                                                                           VERDICTS.index(g[0][1]))):
        changes = sorted(r["change"] for r in members)
        k = len(changes)
        median = changes[k // 2] if k % 2 else (changes[k // 2 - 1] + changes[k // 2]) / 2
        out.append({"bench": bench, "verdict": verdict, "change": median, "lo": changes[0], "hi": changes[-1],
                    "n": k, "band": max(r.get("band") or threshold for r in members), "name": bench})
    return out, True


def side_text(doc, name):
    """A file as the title names it: its file name, device, unit, commit and date."""
    dev = doc["device"]
    unit = reader.unit_label(dev)
    return (f"{name.rsplit('/', 1)[-1]}: {dev.get('name')}" + (f" {unit}" if unit else "") +
            f", {doc['tool'].get('git')}, {reader.run_date(doc)}")


def draw(plt, rows, base, new, names, opt, z):
    """The figure of the gate's rows (gate.gate's) of NEW against BASE (names: how the two are shown),
    and the bars it drew (bars())."""
    items, grouped = bars(rows, opt, z)
    n_rows = max(len(items), 1)
    height = TOP_IN + BOTTOM_IN + PITCH_IN * n_rows
    fig = plt.figure(figsize=(WIDTH_IN, height))
    ax = fig.add_axes((LEFT_IN / WIDTH_IN, BOTTOM_IN / height, 1 - (LEFT_IN + RIGHT_IN) / WIDTH_IN,
                       PITCH_IN * n_rows / height))
    threshold = opt.threshold / 100
    reach = max([threshold * 2.5] + [abs(v) for b in items for v in (b["change"], b["lo"], b["hi"])
                                     if v is not None])
    lim = min(reach * 1.08, MAX_CHANGE)
    ys = list(range(len(items)))
    # the band each point was judged with (the threshold, widened by its declared variation and its
    # trials): a change inside is not told from the run or the unit
    for y, b in zip(ys, items):
        ax.barh(y, 2 * 100 * min(b["band"], lim), left=-100 * min(b["band"], lim), height=1.0, color=BAND_COLOR,
                linewidth=0, zorder=0)
    for s in (-1, 1):
        ax.axvline(100 * s * threshold, color="dimgray", linestyle="--", linewidth=0.8, zorder=1)
    ax.axvline(0, color="black", linewidth=0.8, zorder=1)
    over = 0
    for y, b in zip(ys, items):
        c = VERDICT_COLORS[b["verdict"]]
        x = max(-lim, min(lim, b["change"]))
        ax.barh(y, 100 * x, height=0.7, color=c, linewidth=0, zorder=2)
        ax.plot([100 * x], [y], marker="o", markersize=3, color=c, zorder=3)   # a change of 0.00 % is seen too
        if b["lo"] is not None:
            lo, hi = max(-lim, b["lo"]), min(lim, b["hi"])
            ax.plot([100 * lo, 100 * hi], [y, y], color="black", linewidth=0.8, zorder=4)
        if abs(b["change"]) > lim:
            over += 1
            ax.annotate(pct(b["change"]), (100 * x, y), xytext=(-3 if x > 0 else 3, 0), textcoords="offset points",
                        ha="right" if x > 0 else "left", va="center", fontsize=6)
    ax.set_xlim(-100 * lim, 100 * lim)
    ax.set_ylim(len(items) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    # separators and a label per benchmark, at the middle of its rows
    starts = [i for i in ys if i == 0 or items[i]["bench"] != items[i - 1]["bench"]]
    for i in starts[1:]:
        ax.axhline(i - 0.5, color="black", linewidth=0.5, zorder=5)
    ends = starts[1:] + [len(items)]
    ax.set_yticks([(a + e - 1) / 2 for a, e in zip(starts, ends)], [items[a]["bench"] for a in starts], fontsize=6.5)
    ax.tick_params(axis="y", length=0)
    if grouped:      # the points behind each bar, on the right
        right = ax.twinx()
        right.set_ylim(ax.get_ylim())
        right.set_yticks(ys, [f"n={b['n']}" for b in items], fontsize=6.5)
        right.tick_params(axis="y", length=0)
        right.grid(False)
    ax.set_xlabel("change of the median time per launch, new / base - 1 (%): right is slower (lower time is better)")
    counts = {v: sum(1 for r in rows if r["kind"] == "timed" and r["verdict"] == v) for v in VERDICTS}
    timed = sum(counts.values())
    how = (f"{timed} points, past {MAX_POINTS}: one bar per benchmark and verdict, the median change of its points, "
           "the whisker their range, n their count" if grouped else
           f"{timed} points, one bar each; whisker: ±{z:.2f} x the standard error of the change (alpha {opt.alpha:g})")
    untimed = [f"{sum(1 for r in rows if r['kind'] == k)} {k}" for k in ("missing", "new")
               if any(r["kind"] == k for r in rows)]
    stopped = sum(1 for r in rows if r["kind"] == "status")
    if stopped:
        untimed.append(f"{stopped} whose status changed")
    if untimed or over:
        how += "; " + ", ".join(([f"not drawn: {', '.join(untimed)}"] if untimed else []) +
                                ([f"{over} past ±{100 * MAX_CHANGE:g} % at the edge"] if over else []))
    fig.suptitle(f"Change of the median time against the base, as the gate judged it\n"
                 f"base {side_text(base, names[0])}\nnew  {side_text(new, names[1])}", fontsize=9,
                 y=1 - 0.08 / height, va="top")
    fig.text(0.5, 1 - 0.62 / height, how, ha="center", va="top", fontsize=7)
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    handles = [Patch(color=VERDICT_COLORS[v], label=f"{v} ({counts[v]})") for v in VERDICTS]
    handles += [Patch(color=BAND_COLOR, label="the band it was judged with"),
                Line2D([], [], color="dimgray", linestyle="--", label=f"threshold ±{opt.threshold:g} %")]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.85 / height), ncol=6, fontsize=7,
               frameon=False)
    return fig, items, grouped
