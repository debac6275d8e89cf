"""A fleet of GPU units of one model, point by point against the fleet median (the fleet command and
the report): the units of a set of result files and their names, each unit's relation to the others
and the allowance the gate's rule gives it, the outliers, the report's text and Markdown, and the
heatmap of the deviations. smembench-fleet's --help says the rules in words.
"""
import os
import statistics

from smembench import gate
from smembench import inputs
from smembench import reader
from smembench import tables
from smembench import tool
from smembench.cli import Usage

DEFAULT_THRESHOLD_PCT = 2.0


class Unit:
    """One GPU of one file: its names and its timed points by (benchmark, parameters)."""

    def __init__(self, path, doc, index, dev):
        run = doc["run"]
        self.path, self.doc, self.dev = path, doc, dev
        self.stem = tool.shown(os.path.splitext(os.path.basename(path))[0])
        self.node = str(run.get("node") or run.get("host") or self.stem)
        self.gpu = dev.get("ordinal") if isinstance(dev.get("ordinal"), int) else index
        self.uuid = dev.get("uuid") or ""
        self.pci = dev.get("pci_bus_id") or ""
        self.layout = gate.gpc_layout(dev)
        self.name = f"{self.node} gpu{self.gpu}"
        several = "devices" in doc
        self.points = {}
        for r in doc["results"]:
            if several and r.get("device_index") != index or not reader.timed(r):
                continue
            k = point_key(r)
            if k in self.points:
                raise Usage(f"{inputs.shown(path)}: point {point_name(r)} appears twice on GPU {self.gpu}; a fleet needs each "
                            "point once per unit")
            self.points[k] = r


def point_key(r):
    return r["bench"], tuple(sorted(r["params"].items()))


def point_name(r):
    """The reader's point name without the device position (a unit is one GPU)."""
    return reader.point_name({k: v for k, v in r.items() if k != "device_index"})


RELATION_TEXT = {"run": "declared between runs of one unit (run_pct",
                 "unit": "declared between units of one GPC layout (unit_pct",
                 "layout": "declared between units of another or an unrecorded GPC layout (layout_pct"}


def relation(u, others):
    """How unit u relates to the other units that timed a point, by the gate's rule
    (gate.unit_context), the widest over them: "layout" where any has another GPC layout or a
    layout is not recorded, else "unit" (another GPU), else "run" (files of this same GPU)."""
    found = {gate.unit_context(v.uuid or None, v.layout, u.uuid or None, u.layout) for v in others}
    return next((c for c in ("layout", "unit", "run") if c in found), "unit")


def allowance(r, context, threshold_pct):
    """(fraction, source): how much slower than the fleet median a unit's point r may be before it is
    an outlier: the largest of the threshold, the variation r declares for the unit's relation to
    the others (context, as relation() gives it; gate.allowance(): layout_pct, unit_pct or run_pct
    of between_run, where the file records one) and 3 x its robust noise."""
    cands = [(threshold_pct / 100, "threshold")]
    declared = gate.allowance(None, r, context)
    if declared is not None:
        br = r["between_run"]
        text = RELATION_TEXT[context]
        # gate.allowance() takes unit_pct where a record declares no layout_pct (a benchmark the layout
        # does not move, or a file written before layout_pct): say which number it was
        if context == "layout" and gate.allowance(None, {"between_run": {"layout_pct": br.get("layout_pct")}},
                                                     "layout") is None:
            text = "declared between units (unit_pct"
        src = br.get("source")
        cands.append((declared, text + (f": {src})" if isinstance(src, str) and src else ")")))
    s = reader.robust_spread(r)
    if s is not None:
        cands.append((gate.DRIFT_PER_NOISE * s, f"{gate.DRIFT_PER_NOISE} x noise"))
    return max(cands, key=lambda c: c[0])


def gather(paths, note):
    """[(path, doc)] of the result files among paths, by the scanner's rules (smembench.inputs:
    folders' *.json, each file once, what is no result file skipped with one line)."""
    try:
        return [(f, inputs.load(f)) for f in inputs.paths(paths, "the inputs", note)]
    except reader.ResultError as e:
        raise Usage(str(e)) from None


def units_of(loaded, expect=()):
    """Every GPU of every file as a unit, named apart; refuses units of different models. A file
    without run.node (written outside Slurm, or by a driver before it recorded the node) whose name
    is NODE.json for a NODE of expect is that node's, as the Slurm script names its node files;
    otherwise its node is its host."""
    units = [Unit(path, doc, i, dev) for path, doc in loaded for i, dev in enumerate(reader.devices(doc))]
    for u in units:
        if not u.doc["run"].get("node") and u.stem in expect:
            u.node = u.stem
            u.name = f"{u.node} gpu{u.gpu}"
    models = sorted({str(u.dev.get("name")) for u in units})
    if len(models) > 1:
        raise Usage(f"units of {len(models)} GPU models ({', '.join(models)}): a fleet report compares units of "
                    "one model; compare.py --across-devices compares models")
    return name_apart(units)


def by_model(loaded):
    """{model: its units} of every file, for the HTML report's fleet section (name_apart() names
    them)."""
    groups = {}
    for path, doc in loaded:
        for i, dev in enumerate(reader.devices(doc)):
            groups.setdefault(str(dev.get("name")), []).append(Unit(path, doc, i, dev))
    return groups


def distinct_gpus(units):
    """How many GPUs the units are known to be: told apart by uuid where every unit records one,
    else by node and PCI bus (two runs on one GPU are one; files without a uuid on one bus are too)."""
    if all(u.uuid for u in units):
        return len({u.uuid for u in units})
    return len({(u.node, u.pci or u.gpu) for u in units})


def name_apart(units):
    """Units whose names read the same (two files of one host) get their file's name added."""
    names = {}
    for u in units:
        names.setdefault(u.name, []).append(u)
    for same in names.values():
        if len(same) > 1:
            for u in same:
                u.name += f" ({u.stem})"
    if len({u.name for u in units}) < len(units):
        raise Usage("the same file twice among the inputs: " +
                    ", ".join(sorted({inputs.shown(u.path) for u in units if sum(v.name == u.name for v in units) > 1})))
    return units


class Fleet:
    """The comparison: rows per point, outliers, points missing on units."""

    def __init__(self, units, threshold_pct):
        self.units, self.threshold_pct = units, threshold_pct
        self.rows = []          # dicts: name, median_ns, spread, cells {unit name: cell dict}
        self.outliers = []      # (unit, point name, deviation, allowance, source)
        self.lacking = []       # (unit, point name): timed on another unit, not on this one
        keys = list(dict.fromkeys(k for u in units for k in u.points))
        for k in keys:
            have = [(u, u.points[k]) for u in units if k in u.points]
            name = point_name(have[0][1])
            self.lacking += [(u, name) for u in units if k not in u.points]
            medians = [reader.median_ns(r) for _, r in have]
            med = statistics.median(medians)
            row = {"name": name, "median_ns": med, "spread": (max(medians) - min(medians)) / med, "cells": {}}
            for u, r in have:
                dev = reader.median_ns(r) / med - 1
                context = relation(u, [v for v, _ in have if v is not u])
                allow, source = allowance(r, context, threshold_pct)
                out = len(have) > 1 and dev > allow
                row["cells"][u.name] = {"dev": dev, "allow": allow, "source": source, "context": context,
                                        "outlier": out}
                if out:
                    self.outliers.append((u, name, dev, allow, source))
            self.rows.append(row)

    def largest(self, n=5):
        """The n largest deviations (a unit slower than the fleet median) of points that more than one
        unit timed: [(unit name, point name, cell)], largest first."""
        cells = [(uname, row["name"], c) for row in self.rows if len(row["cells"]) > 1
                 for uname, c in row["cells"].items() if c["dev"] > 0]
        return sorted(cells, key=lambda t: -t[2]["dev"])[:n]


def plural(n, what):
    return f"{n} {what}{'s' if n != 1 else ''}"


def pct(x, signed=True):
    return "-" if x is None else f"{100 * x:+.2f}" if signed else f"{100 * x:.2f}"


def report_lines(fleet, missing, unexpected, md, notes=()):
    """The report as lines of text or Markdown."""
    units = fleet.units
    dev = units[0].dev if units else {}
    dates = sorted({reader.run_date(u.doc) for u in units})
    out = [("## " if md else "") + f"smembench fleet: {dev.get('name', '?')}, {len(units)} unit"
           f"{'s' if len(units) != 1 else ''}, {len(fleet.rows)} points, {', '.join(dates)}", ""]
    out += list(notes)
    urows = [(u.name, u.node, u.gpu, u.uuid or "-", u.pci or "-", u.layout or "not recorded", inputs.shown(os.path.basename(u.path)),
              u.doc["tool"].get("git", "-"), str(u.doc["run"].get("started", "-")), len(u.points)) for u in units]
    out += tables.table(("unit", "node", "gpu", "uuid", "pci bus", "GPC layout", "file", "commit", "started",
                          "timed points"), urows, {2, 9}, md) + [""]
    if len(units) > 1 and fleet.rows:
        out += [layout_note(units), ""]
    commits = sorted({u.doc["tool"].get("git", "-") for u in units})
    if len(commits) > 1:
        out += [f"note: the units ran {len(commits)} builds ({', '.join(commits)}): a deviation may be the build's",
                ""]
    if fleet.rows:
        heads = ["point", "fleet median (us)", "spread (%)"] + [u.name for u in units]
        prow = []
        for row in fleet.rows:
            cells = []
            for u in units:
                c = row["cells"].get(u.name)
                cells.append("absent" if c is None else pct(c["dev"]) + (" *" if c["outlier"] else ""))
            prow.append([row["name"], f"{row['median_ns'] / 1e3:,.2f}", pct(row["spread"], False)] + cells)
        out.append(("### " if md else "") + "Deviation of each unit's median time from the fleet median (%; "
                   "* slower than its allowance)")
        out.append("")
        out += tables.table(heads, prow, set(range(1, len(heads))), md) + [""]
    elif units:
        out += ["no unit has a timed point (predict mode?): times are not compared", ""]
    top = fleet.largest()
    if top:
        out.append(("### " if md else "") + f"The {plural(len(top), 'largest deviation')} (slower than the fleet "
                   "median) and their allowances")
        out.append("")
        for uname, name, c in top:
            out.append(f"{'- ' if md else '  '}{uname} at {name}: {pct(c['dev'])} %, allowance {100 * c['allow']:.2f} % "
                       f"({c['source']})")
        out.append("")
    out.append(("### " if md else "") + f"Outliers ({len(fleet.outliers)}): allowance = max(threshold "
               f"{fleet.threshold_pct:g} %, the declared variation for the unit's relation to the others, 3 x noise)")
    out.append("")
    for u, name, d, allow, source in fleet.outliers:
        out.append(f"{'- ' if md else '  '}{u.name} at {name}: {pct(d)} % against the fleet median, beyond its "
                   f"allowance of {100 * allow:.2f} % ({source})")
    if not fleet.outliers:
        out.append(("- " if md else "  ") + "none")
    out.append("")
    if fleet.lacking:
        out.append(("### " if md else "") + f"Points another unit timed and these did not ({len(fleet.lacking)})")
        out.append("")
        by_unit = {}
        for u, name in fleet.lacking:
            by_unit.setdefault(u.name, []).append(name)
        for uname, names in by_unit.items():
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            out.append(f"{'- ' if md else '  '}{uname}: {len(names)} ({shown})")
        out.append("")
    if missing:
        out += [("### " if md else "") + f"Missing nodes ({len(missing)}): no file for " + ", ".join(missing), ""]
    if unexpected:
        out += [f"note: nodes with a file that --expect does not name: {', '.join(unexpected)}", ""]
    bad = bool(fleet.outliers or missing or fleet.lacking)
    counts = f"{plural(len(fleet.outliers), 'outlier')}, {plural(len(missing), 'missing node')}, " \
        f"{plural(len(fleet.lacking), 'point')} missing on a unit"
    out.append(("**" if md else "") + ("FAIL: " if bad else "PASS: ") + counts + ("**" if md else ""))
    return out


def layout_note(units):
    """One line: the units' GPC layouts and the declared variation the rule takes for them."""
    layouts = list(dict.fromkeys(u.layout for u in units))
    if len(layouts) == 1 and layouts[0] is not None:
        if len({u.uuid for u in units}) == 1 and units[0].uuid:
            return (f"layout: every file is of one GPU ({layouts[0]}): each point is judged with its declared "
                    "variation between runs of one unit (run_pct)")
        return (f"layout: every unit has GPC layout {layouts[0]}: each point is judged with its declared variation "
                "between units of one layout (unit_pct)")
    known = sorted({x for x in layouts if x is not None})
    unrecorded = [u.name for u in units if u.layout is None]
    what = "; ".join(([f"GPC layout{'s' if len(known) > 1 else ''} {', '.join(known)}"] if known else []) +
                     ([f"no layout recorded on {', '.join(unrecorded)}"] if unrecorded else []))
    return (f"layout: {what}: the cluster benchmarks' points are judged with their declared variation between "
            "units of different or unrecorded layouts (layout_pct), the others' with their variation between "
            "units (unit_pct)")


def tick_label(u):
    """A unit's column heading: its name, then the start of its uuid and its PCI bus, then its GPC
    layout, where recorded."""
    ids = " ".join(x for x in (u.uuid[:12], u.pci) if x)
    return "\n".join(x for x in (u.name, ids, u.layout) if x)


def heatmap(plt, fleet):
    """The deviations as a heatmap: a row per point, a column per unit, red slower and blue faster
    on a scale centred on 0, outliers boxed, absent points grey."""
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle
    units, rows = fleet.units, fleet.rows
    data = np.full((len(rows), len(units)), np.nan)
    for i, row in enumerate(rows):
        for j, u in enumerate(units):
            c = row["cells"].get(u.name)
            if c is not None:
                data[i, j] = 100 * c["dev"]
    finite = data[np.isfinite(data)]
    lim = max(float(np.max(np.abs(finite))) if finite.size else 0.0, fleet.threshold_pct, 0.1)
    longest = max((len(r["name"]) for r in rows), default=10)
    width = min(4 + 0.075 * longest + 1.1 * len(units), 40)
    height = min(1.9 + 0.2 * len(rows), 400)
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#d0d0d0")
    im = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap,
                   norm=TwoSlopeNorm(vcenter=0, vmin=-lim, vmax=lim), interpolation="nearest")
    ax.grid(False)
    ax.set_xticks(range(len(units)), [tick_label(u) for u in units], rotation=30 if len(units) > 3 else 0,
                  ha="right" if len(units) > 3 else "center", fontsize=8)
    ax.set_yticks(range(len(rows)), [r["name"] for r in rows], fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xlabel("unit (node, CUDA index; uuid, PCI bus, GPC layout)")
    ax.xaxis.set_label_position("top")
    ax.set_ylabel("point (benchmark/parameters)")
    for i, row in enumerate(rows):
        for j, u in enumerate(units):
            c = row["cells"].get(u.name)
            if c is None:
                ax.text(j, i, "absent", ha="center", va="center", fontsize=7, color="#555555")
                continue
            v = 100 * c["dev"]
            ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=7,
                    color="white" if abs(v) > 0.6 * lim else "black")
            if c["outlier"]:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.6))
    bar = fig.colorbar(im, ax=ax, shrink=min(1.0, 6 / height) if height > 6 else 1.0, pad=0.02)
    bar.set_label("median time against the fleet median (%): > 0 slower")
    dev = units[0].dev
    dates = ", ".join(sorted({reader.run_date(u.doc) for u in units}))
    fig.suptitle(f"{dev.get('name')} fleet, {dates}: {len(units)} units, {len(rows)} points, "
                 f"{len(fleet.outliers)} outlier{'s' if len(fleet.outliers) != 1 else ''} (boxed)")
    return fig
