"""kernel: a user kernel's sweeps (smembench --kernel), one figure per function. The time against
the preferred carveout, with the blocks per SM measured and by the occupancy API on a second axis
and the carveout the driver gave where it is not the hint; the time against dynamic shared memory
with the same residency staircase and the 48 KiB default limit (the opt-in above it). A line per
value of the description's own axes (cols=1024, cols=4096), in one colour in both panels; the
fastest setting of each named in the title; a failed point (outputs that depend on the
configuration: a race) a red x at the foot of its panel, with a note.

Where the points have hardware counters (smembench --counters), each time panel has one beneath it:
the counter that moved most with the time along that axis (the one named at most of its steps past
the noise, smembench.explain; the L1 hit rate where none moved), a line per key in the time's
colours. A file that asked for counters and has none says why under the title. Files without
counters give the figure as it was."""
import re

from smembench import counters as smem_counters
from smembench import explain
from smembench import reader
from smembench import series as series_mod
from smembench.figures import common as c

NAME = "kernel"
# the panels: (sweep, the axis it varies, title, x label)
PANELS = (("carveout", "carveout_pct", "Time against the preferred carveout", "preferred shared-memory carveout (%)"),
          ("dynamic", "dyn_smem_bytes", "Time against dynamic shared memory",
           "dynamic shared memory per block (KiB)"))
DEFAULT_X = -8          # where carveout_pct -1 (no hint: the driver's default) is drawn, left of 0 %
FAILED = dict(color="tab:red", marker="x", markersize=9, markeredgewidth=2, linestyle="")
MEASURED = dict(marker="D", markersize=4, fillstyle="none")
API = dict(linestyle=":", marker=".", markersize=4, linewidth=1)
# the residency axis's colours, apart from the times' (another meaning): API, measured, ...
RESIDENCY = ["black", "dimgray", "tab:brown", "darkgoldenrod", "#393b79", "#637939", "#8c6d31", "#7b4173",
             "darkslategray", "rosybrown"]


def file_name(function):
    """The figure's name: kernel_<function>, the function's characters a file name may hold."""
    return "kernel_" + re.sub(r"[^A-Za-z0-9_.-]", "_", function)


def kernels(series):
    """{function: [series of its points only]}, in the order the files name them; a file without a
    kernel record gives none."""
    out = {}
    for s in series:
        k = reader.kernel(s.doc)
        if k is None:
            continue
        own = s.only(lambda r, f=k["function"]: r["bench"] == f)
        if own.doc["results"]:
            out.setdefault(k["function"], []).append(own)
    return out


def figures(plt, series, note):
    """[(kernel_<function>, figure)] of every user kernel among the series."""
    out = []
    for function, group in kernels(series).items():
        fig = draw(plt, function, series_mod.relabel(group), note)
        if fig is not None:
            out.append((file_name(function), fig))
    return out


def _rest(r, axis):
    return tuple(sorted((k, v) for k, v in r["params"].items() if k != axis))


def panel_points(s, sweep, axis):
    """The series' points on the sweep's lines: the sweep's own, and a point of another sweep that
    lies on one of them (the configuration every sweep shares is written once, under the first
    that reaches it); a configuration listed twice is drawn once, its own sweep's first."""
    own = [r for r in s.doc["results"] if r.get("sweep") == sweep and c.param(r, axis) is not None]
    lines = {_rest(r, axis) for r in own}
    pts = {}
    for r in own + [r for r in s.doc["results"] if r.get("sweep") != sweep]:
        if c.param(r, axis) is not None and _rest(r, axis) in lines:
            pts.setdefault((_rest(r, axis), r["params"][axis]), r)
    return list(pts.values())


def varying(points, leave=()):
    """The parameters whose value differs between the points, but those in leave, in their order."""
    names = list(dict.fromkeys(k for r in points for k in r["params"] if k not in leave))
    return [k for k in names if len({r["params"].get(k) for r in points}) > 1]


def key_text(key):
    return ", ".join(f"{k}={v}" for k, v in key)


def xval(axis, r):
    v = r["params"][axis]
    if axis == "carveout_pct":
        return DEFAULT_X if v < 0 else v
    return v / 1024


def size_text(b):
    return f"{b // 1024} KiB" if b and b % 1024 == 0 else f"{b} B"


def setting_text(r, shown):
    """A point's built-in settings as a person reads them: "carveout 100 %, 0 B dynamic"."""
    p = r["params"]
    parts = ["carveout default" if p.get("carveout_pct", -1) < 0 else f"carveout {p['carveout_pct']} %",
             f"{size_text(p.get('dyn_smem_bytes', 0))} dynamic"]
    parts += [f"{k} {p[k]}" for k in ("block", "cluster") if k in shown and k in p]
    return ", ".join(parts)


def failed_label(r):
    """The legend's entry of a failed point: a race with its residencies, or the reason's first
    clause (the report has the whole reason)."""
    why = r.get("reason") or ""
    if "race" in why:
        m = re.search(r"\(residency [^)]*\)", why)
        return "failed: outputs differ, a race" + (f"\n{m.group(0)}" if m else "")
    return f"failed ({r['status']}): " + (why.split(";")[0].split(": ")[0][:40] or "no reason given")


def draw(plt, function, series, note):
    timed = [s for s in series if any(c.time_us(r) is not None for r in s.doc["results"])]
    if not timed:
        for s in series:
            note(f"{s.path}: the kernel {function} has no timed point: nothing for its figure")
        return None
    several = len(series) > 1
    # a line per value of what varies besides the panel's axis, one colour for it in both panels
    user = [k for k in dict.fromkeys(k for s in series for r in s.doc["results"] for k in r["params"])
            if k not in reader.KERNEL_AXES]
    every = [r for s in series for r in s.doc["results"]]
    shown = varying(every)
    lines = {}
    for s in series:
        for sweep, axis, _, _ in PANELS:
            pts = panel_points(s, sweep, axis)
            for r in pts:
                lines.setdefault((s.index, tuple((k, r["params"].get(k)) for k in varying(pts, (axis,)))), None)
    order = sorted(lines, key=lambda sk: (sk[0], [(k not in user, k, v if v is not None else 0) for k, v in sk[1]]))
    colour = {sk: c.color(i) for i, sk in enumerate(order)}
    present = [panel for panel in PANELS if any(panel_points(s, panel[0], panel[1]) for s in series)]
    if not present:
        for s in series:
            note(f"{s.path}: the kernel {function} has no carveout or dynamic sweep: nothing for its figure")
        return None
    ylabel, rel = c.times(series, "kernel time")
    moved = {panel: moved_counter(series, panel[0], panel[1]) for panel in present}
    rows = [row for panel in present for row in [(panel, None)] + ([(panel, moved[panel])] if moved[panel] else [])]
    if len(rows) == len(present):       # no counters: the figure as it was
        fig, axes = plt.subplots(len(present), 1, figsize=(11, 4.3 * len(present)), squeeze=False,
                                 layout="constrained")
    else:
        ratios = [1 if name is None else 0.7 for _, name in rows]
        fig, axes = plt.subplots(len(rows), 1, figsize=(11, 4.3 * sum(ratios)), squeeze=False, layout="constrained",
                                 gridspec_kw={"height_ratios": ratios})
    drawn, counted = [], []
    for ((sweep, axis, title, xlabel), name), ax in zip(rows, axes[:, 0]):
        if name is not None:
            counted.append(draw_counter(ax, name, series, sweep, axis, colour, several, xlabel))
            continue
        p = c.Panel(ax, title + panel_fixed(series, sweep, axis))
        blocks = c.Panel(ax.twinx(), "")
        draw_panel(p, blocks, series, sweep, axis, colour, rel, several, user)
        drawn.append((p, blocks))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        blocks.ax.set_ylabel("resident blocks per SM")
    for p, blocks in drawn:
        p.ax.legend(loc="upper left", bbox_to_anchor=(1.09, 1), borderaxespad=0)
        blocks.ax.legend(loc="lower left", bbox_to_anchor=(1.09, 0), borderaxespad=0)
    for p in counted:
        p.ax.legend(loc="upper left", bbox_to_anchor=(1.09, 1), borderaxespad=0)
    k = reader.kernel(series[0].doc)
    what = f"Your kernel {function} ({k.get('file')}, {k.get('kind')}): median time by carveout and dynamic " \
           f"shared memory"
    why = list(dict.fromkeys(x for x in (smem_counters.status_line(s.doc) for s in series) if x))
    for line in why:
        note(f"the kernel {function}'s figure: {line}")
    what += "".join(f"\n{line}" for line in why)
    c.title(fig, what + "\n" + best_text(series, user, shown, several, int(fig.get_figwidth() * 11)), series)
    c.place_texts(fig, [p for pair in drawn for p in pair] + counted)
    return fig


def moved_counter(series, sweep, axis):
    """The counter to draw under a time panel: the one named at most steps in time along the axis
    at an unchanged residency (smembench.explain; the first named on a tie), else the L1 hit rate, else the first counter the
    panel's points have; (name, True where it moved) or None where they have none."""
    names, votes = [], {}
    for s in series:
        pts = panel_points(s, sweep, axis)
        ids = {id(r) for r in pts}
        have = [n for r in pts for n in reader.counters(r)]
        names += [n for n in have if n not in names]
        for step in explain.steps(s.doc):
            # a step where the residency changed is the residency's, drawn in the panel above: the
            # counter shown is the one that explains the steps at the same residency
            if explain.blocks(step.a) != explain.blocks(step.b):
                continue
            if step.axis == axis and id(step.a) in ids and id(step.b) in ids:
                for m in step.moved:
                    if m.name in have:
                        votes[m.name] = votes.get(m.name, 0) + 1
    if not names:
        return None
    if votes:
        return max(votes, key=lambda n: (votes[n], -list(votes).index(n))), True
    return (smem_counters.L1_HIT if smem_counters.L1_HIT in names else names[0]), False


def draw_counter(ax, chosen, series, sweep, axis, colour, several, xlabel):
    """The counter against the panel's axis, a line per key in the time's colour (the default
    carveout apart, as in the time panel); chosen: moved_counter's answer."""
    name, voted = chosen
    unit = next((e["unit"] for s in series for r in panel_points(s, sweep, axis)
                 for n, e in reader.counters(r).items() if n == name and e["unit"]), "")
    better = smem_counters.better(name)
    why = "the counter that moved most with the time" if voted else "no counter moved with the time here"
    p = c.Panel(ax, f"{smem_counters.label(name)} of one launch: {why} "
                    f"(profiled after timing{f'; {better} is better' if better else ''})")
    scale, shown_unit = (1e6, "MB") if unit == "bytes" else (1, unit)
    for s in series:
        pts = panel_points(s, sweep, axis)
        split = varying(pts, (axis,))
        groups = {}
        for r in pts:
            groups.setdefault(tuple((k, r["params"].get(k)) for k in split), []).append(r)
        for key, group in groups.items():
            label = (key_text(key) or smem_counters.label(name)) + (f"; {s.short}" if several else "")
            vals = sorted((xval(axis, r), reader.counter(r, name) / scale) for r in group
                          if reader.counter(r, name) is not None)
            parts = ([[(x, v) for x, v in vals if x == DEFAULT_X], [(x, v) for x, v in vals if x != DEFAULT_X]]
                     if axis == "carveout_pct" else [vals])
            for part in (q for q in parts if q):
                p.line(*zip(*part), label, style=s.index, color=colour.get((s.index, key), "black"))
                label = "_" + label
    ax.set_ylabel(f"{smem_counters.label(name)}" + (f" ({shown_unit})" if shown_unit else ""))
    if unit == "%":
        ax.set_ylim(0, 105)
    else:
        ax.set_ylim(0, ax.get_ylim()[1] * 1.1)
    ax.set_xlabel(xlabel)
    if axis == "carveout_pct":
        ticks = [DEFAULT_X] + list(range(0, 101, 10))
        ax.set_xticks(ticks, ["default"] + [str(t) for t in ticks[1:]])
        ax.set_xlim(DEFAULT_X - 5, 103)
    else:
        ax.set_xlim(left=-4)
        from matplotlib.ticker import MultipleLocator
        ax.xaxis.set_major_locator(MultipleLocator(32))
    return p


def panel_fixed(series, sweep, axis):
    """The settings a panel holds fixed, for its title: "(carveout default, block 256, cluster 0)"."""
    pts = [r for s in series for r in panel_points(s, sweep, axis)]
    if not pts:
        return ""
    fixed = [k for k in reader.KERNEL_AXES if k != axis and len({r["params"].get(k) for r in pts}) == 1 and
             k in pts[0]["params"]]
    text = []
    for k in fixed:
        v = pts[0]["params"][k]
        text.append("carveout default (no hint)" if k == "carveout_pct" and v < 0 else
                    f"carveout {v} %" if k == "carveout_pct" else
                    f"{size_text(v)} dynamic" if k == "dyn_smem_bytes" else f"{k} {v}")
    return f" ({', '.join(text)})" if text else ""


def draw_panel(p, blocks, series, sweep, axis, colour, rel, several, user):
    """One panel: a time line per key, the residency on the second axis, the failed points."""
    ax, marked = p.ax, False
    for s in series:
        pts = panel_points(s, sweep, axis)
        if not pts:
            continue
        who = f"; {s.short}" if several else ""
        split = varying(pts, (axis,))
        groups = {}
        for r in pts:
            groups.setdefault(tuple((k, r["params"].get(k)) for k in split), []).append(r)
        fastest = min((c.time_us(r) for r in s.doc["results"] if c.time_us(r) is not None), default=None)
        scale = (lambda t: t / fastest) if rel and fastest else (lambda t: t)
        for key, group in sorted(groups.items(), key=lambda kv: list(colour).index((s.index, kv[0]))):
            label = (key_text(key) or "median time") + who
            hue = colour[(s.index, key)]
            ok = sorted((xval(axis, r), scale(c.time_us(r))) for r in group if c.time_us(r) is not None)
            # the default carveout apart: no line joins it to 0 %
            parts = ([[(x, t) for x, t in ok if x == DEFAULT_X], [(x, t) for x, t in ok if x != DEFAULT_X]]
                     if axis == "carveout_pct" else [ok])
            for part in (q for q in parts if q):
                p.line(*zip(*part), label, style=s.index, color=hue)
                label = "_" + label     # one legend entry per line
        # the residency: once per series where every line has the same, else per line
        stairs = {key: sorted({(xval(axis, r), c.occ(r, "measured"), c.occ(r, "api")) for r in group})
                  for key, group in groups.items()}
        same = len({tuple(v) for v in stairs.values()}) == 1
        for key, rows in (list(stairs.items())[:1] if same else stairs.items()):
            tag = ("" if same else f" ({key_text(key)})") + who
            api = [(x, a) for x, _, a in rows if a is not None and x != DEFAULT_X]
            hue = next_residency(blocks)
            if api:
                blocks.steps(*zip(*api), "API" + tag, monotone=True, resolution=1 if axis == "carveout_pct" else 0,
                             **dict(API, color=hue))
            dflt = [(x, a) for x, _, a in rows if a is not None and x == DEFAULT_X]
            if dflt:
                blocks.ax.plot(*zip(*dflt), label="_API" + tag, **dict(API, color=hue))
            meas = [(x, m) for x, m, _ in rows if m is not None]
            if meas:
                blocks.points(*zip(*meas), "measured (residency probe)" + tag,
                              **dict(MEASURED, color=next_residency(blocks)))
        if axis == "carveout_pct":
            marked |= mark_effective(blocks, pts)
        for r in pts:
            if r["status"] in ("failed", "invalid"):
                mark_failed(p, r, axis, split, who)
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
    lo, hi = ax.get_ylim()
    if hi / lo < 30:        # a decade or so: labels between the powers of ten, as many as fit
        subs = (1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9) if hi / lo < 10 else (1, 1.5, 2, 3, 5, 7)
        ax.yaxis.set_major_locator(LogLocator(subs=subs))
        ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    blocks.ax.set_ylim(0, max(blocks.ax.get_ylim()[1], 1) * 1.25)
    blocks.ax.grid(False)
    if axis == "carveout_pct":
        ticks = [DEFAULT_X] + list(range(0, 101, 10))
        ax.set_xticks(ticks, ["default"] + [str(t) for t in ticks[1:]])
        ax.set_xlim(DEFAULT_X - 5, 103)
        if marked:
            blocks.ax.plot([], [], " ", label="n%: the carveout the driver gave,\nwhere it is not the hint")
    else:
        limits = {reader.device_of(s.doc, s.doc["results"][0])["smem_per_block"] for s in series
                  if s.doc["results"] and reader.device_of(s.doc, s.doc["results"][0]).get("smem_per_block")}
        for lim in sorted(limits):
            p.ref(x=lim / 1024, color="darkgoldenrod", linestyle="--",
                  label=f"{lim // 1024} KiB: the default limit per block\n(above it, the opt-in)")
        ax.set_xlim(left=-4)
        from matplotlib.ticker import MultipleLocator
        ax.xaxis.set_major_locator(MultipleLocator(32))
    mark_best(p, series, sweep, axis, rel)


def mark_effective(blocks, pts):
    """The carveout the driver gave (effective_carveout, from the measured residency) where it is
    not the hint, above the point's measured blocks; True when any is marked."""
    marked = False
    for r in sorted(pts, key=lambda r: r["params"]["carveout_pct"]):
        e, m, hint = c.occ(r, "effective_carveout"), c.occ(r, "measured"), r["params"]["carveout_pct"]
        if e is None or m is None or e == hint:
            continue
        blocks.note(xval("carveout_pct", r), m, f"{e}%", color="dimgray")
        marked = True
    return marked


def next_residency(blocks):
    """The next colour of the residency axis: black and grey for the API and the measurement of a
    file, other dark colours for more."""
    n = getattr(blocks, "residency", 0)
    blocks.residency = n + 1
    return RESIDENCY[n % len(RESIDENCY)]


def mark_failed(p, r, axis, split, who):
    """A failed point: a red x at the foot of the panel at its x (it has no time), and a note."""
    x = xval(axis, r)
    label = failed_label(r)
    p.ax.plot([x], [0.05], transform=p.ax.get_xaxis_transform(), label=label if label not in
              p.ax.get_legend_handles_labels()[1] else "_" + label, **FAILED)
    who = key_text((k, r["params"].get(k)) for k in split) + who
    t = p.ax.annotate(f"{who + ': ' if who else ''}{'race' if 'race' in (r.get('reason') or '') else 'failed'}",
                      (x, 0.05), xycoords=p.ax.get_xaxis_transform(), textcoords="offset points", xytext=(0, 8),
                      ha="center", fontsize=7, color="tab:red")
    p.texts.append(t)


def best_of(s, user):
    """{user-axis key: the series' fastest point} over every point of the file."""
    out = {}
    for r in s.doc["results"]:
        t = c.time_us(r)
        if t is None:
            continue
        key = tuple((k, r["params"].get(k)) for k in user if k in r["params"])
        if key not in out or t < c.time_us(out[key]):
            out[key] = r
    return out


def best_text(series, user, shown, several, width):
    """The fastest setting of each user-axis value, as the title's last lines."""
    keep = [k for k in user if k in shown]
    items = []
    for s in series:
        for key, r in best_of(s, keep).items():
            who = ", ".join(x for x in ((s.short if several else ""), key_text(key)) if x)
            items.append(f"{who + ': ' if who else ''}{setting_text(r, shown)}: {c.time_us(r):.1f} us")
    lines = ["best: "]
    for i, item in enumerate(items):
        sep = "; " if i else ""
        if i and len(lines[-1]) + len(sep) + len(item) > width:
            lines[-1] += ";"
            lines.append(item)
        else:
            lines[-1] += sep + item
    return "\n".join(lines)


def mark_best(p, series, sweep, axis, rel):
    """A star on the panel's line at each user-axis value's fastest setting, where it lies on it."""
    user = [k for k in dict.fromkeys(k for s in series for r in s.doc["results"] for k in r["params"])
            if k not in reader.KERNEL_AXES]
    for s in series:
        pts = panel_points(s, sweep, axis)
        fastest = min((c.time_us(r) for r in s.doc["results"] if c.time_us(r) is not None), default=None)
        for r in best_of(s, user).values():
            if any(q is r for q in pts):
                t = c.time_us(r) / fastest if rel and fastest else c.time_us(r)
                lab = "fastest setting" if "fastest setting" not in p.ax.get_legend_handles_labels()[1] \
                    else "_fastest setting"
                p.ax.plot([xval(axis, r)], [t], marker="*", markersize=13, color="gold", markeredgecolor="black",
                          linestyle="", label=lab, zorder=5)
