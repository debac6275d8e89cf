"""A fleet of GPU units of one model, point by point against the fleet median (the fleet command and
the report): the units of a set of result files and their names, each unit's relation to the others
and the allowance the gate's rule gives it, the outliers, the report's text and Markdown, and the
heatmap of the deviations. smembench-fleet's --help says the rules in words.
"""
import os
import statistics

from smembench import gate
from smembench import inputs
from smembench import levels
from smembench import reader
from smembench import tables
from smembench import tool
from smembench.cli import Usage

DEFAULT_THRESHOLD_PCT = 2.0


class Run:
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


class Unit:
    """A GPU unit: the runs of one GPU (one uuid; a run without a uuid is a unit of its own, as
    nothing says which GPU it ran on), named by its first run's node and CUDA index. Per point its
    time is the median of its runs' median times, so that the fleet median is one vote per GPU
    whatever the number of its runs."""

    def __init__(self, runs):
        first = runs[0]
        self.runs = runs
        self.path, self.doc, self.dev, self.stem = first.path, first.doc, first.dev, first.stem
        self.node, self.gpu, self.uuid, self.pci, self.layout = first.node, first.gpu, first.uuid, first.pci, first.layout
        self.name = f"{self.node} gpu{self.gpu}"
        self.points = {}        # key: [the records of the runs that timed it]
        for run in runs:
            for k, r in run.points.items():
                self.points.setdefault(k, []).append(r)

    def files(self):
        """The unit's files, shown: one, or the first and how many more."""
        first = inputs.shown(os.path.basename(self.path))
        return first if len(self.runs) == 1 else f"{first} and {len(self.runs) - 1} more"

    def commits(self):
        return ", ".join(dict.fromkeys(str(run.doc["tool"].get("git", "-")) for run in self.runs))

    def started(self):
        times = sorted(str(run.doc["run"].get("started", "-")) for run in self.runs)
        return times[0] if len(times) == 1 else f"{times[0]} .. {times[-1]}"


def unit_time(records):
    """(median time in ns, the record that stands for the unit, its noise) of a unit's runs of one
    point: the median of the runs' medians, the run at the (lower) median for the variation it
    declares, and the median of the runs' robust noise."""
    ranked = sorted(records, key=reader.median_ns)
    spreads = [s for s in (reader.robust_spread(r) for r in records) if s is not None]
    return (statistics.median(reader.median_ns(r) for r in records), ranked[(len(ranked) - 1) // 2],
            statistics.median(spreads) if spreads else None)


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


def allowance(r, context, threshold_pct, noise=None):
    """(fraction, source): how much slower than the fleet median a unit's point r may be before it is
    an outlier: the largest of the threshold, the variation r declares for the unit's relation to
    the others (context, as relation() gives it; gate.allowance(): layout_pct, unit_pct or run_pct
    of between_run, where the file records one) and 3 x its robust noise (noise: a unit's, as
    unit_time() gives it, in place of r's own)."""
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
    s = reader.robust_spread(r) if noise is None else noise
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
    """The GPU units of the files, named apart: every GPU of every file is a run, the runs of one GPU
    (one uuid) one unit; refuses units of different models. A file without run.node (written outside
    Slurm, or by a driver before it recorded the node) whose name is NODE.json for a NODE of expect
    is that node's, as the Slurm script names its node files; otherwise its node is its host."""
    runs = [Run(path, doc, i, dev) for path, doc in loaded for i, dev in enumerate(reader.devices(doc))]
    for run in runs:
        if not run.doc["run"].get("node") and run.stem in expect:
            run.node = run.stem
    models = sorted({str(run.dev.get("name")) for run in runs})
    if len(models) > 1:
        raise Usage(f"units of {len(models)} GPU models ({', '.join(models)}): a fleet report compares units of "
                    "one model; compare.py --across-devices compares models")
    return name_apart(merge(runs))


def merge(runs):
    """[Unit]: the runs of one GPU (one uuid) as one unit, in the order of their first run; a run
    without a uuid a unit of its own. Two runs of one GPU that started at the same time are one run
    given twice (a copy of a file): refused."""
    groups = {}
    for i, run in enumerate(runs):
        groups.setdefault(run.uuid or i, []).append(run)
    for same in groups.values():
        seen = {}
        for run in same:
            when = (run.doc["run"].get("started"), run.gpu)
            if when in seen:
                raise Usage(f"the same run twice among the inputs: {inputs.shown(seen[when].path)}, "
                            f"{inputs.shown(run.path)} (GPU {run.uuid}, started {when[0]})")
            seen[when] = run
    return [Unit(same) for same in groups.values()]


def by_model(loaded):
    """{model: its units} of every file, for the HTML report's fleet section (name_apart() names
    them)."""
    groups = {}
    for path, doc in loaded:
        for i, dev in enumerate(reader.devices(doc)):
            groups.setdefault(str(dev.get("name")), []).append(Run(path, doc, i, dev))
    return {model: merge(runs) for model, runs in groups.items()}


def distinct_gpus(units):
    """How many GPUs the units are known to be: told apart by uuid where every unit records one,
    else by node and PCI bus (two runs on one GPU are one; files without a uuid on one bus are too)."""
    if all(u.uuid for u in units):
        return len({u.uuid for u in units})
    return len({(u.node, u.pci or u.gpu) for u in units})


def name_apart(units):
    """Units whose names read the same (two GPUs at one index of one host, in two files) get their
    short uuid added, or without one their file's name."""
    names = {}
    for u in units:
        names.setdefault(u.name, []).append(u)
    for same in names.values():
        if len(same) > 1:
            for u in same:
                u.name += f" ({reader.unit_label(u.dev) or u.stem})"
    if len({u.name for u in units}) < len(units):
        raise Usage("the same file twice among the inputs: " +
                    ", ".join(sorted({inputs.shown(u.path) for u in units if sum(v.name == u.name for v in units) > 1})))
    return units


class Fleet:
    """The comparison: rows per point, outliers, points missing on units."""

    def __init__(self, units, threshold_pct):
        self.units, self.threshold_pct = units, threshold_pct
        self.rows = []          # dicts: name, median_ns, spread, worst, cells {unit name: cell dict}
        self.outliers = []      # (unit, point name, deviation, allowance, source), most over allowance first
        self.lacking = []       # (unit, point name): timed on another unit, not on this one
        keys = list(dict.fromkeys(k for u in units for k in u.points))
        for k in keys:
            have = [(u, unit_time(u.points[k])) for u in units if k in u.points]
            name = point_name(have[0][1][1])
            self.lacking += [(u, name) for u in units if k not in u.points]
            medians = [t for _, (t, _, _) in have]
            med = statistics.median(medians)
            row = {"name": name, "median_ns": med, "spread": (max(medians) - min(medians)) / med, "cells": {},
                   "worst": 0.0}
            for u, (t, r, noise) in have:
                dev = t / med - 1
                context = relation(u, [v for v, _ in have if v is not u])
                allow, source = allowance(r, context, threshold_pct, noise)
                out = len(have) > 1 and dev > allow
                row["cells"][u.name] = {"dev": dev, "allow": allow, "ratio": dev / allow, "source": source,
                                        "context": context, "outlier": out, "runs": len(u.points[k])}
                if len(have) > 1:
                    row["worst"] = max(row["worst"], abs(dev) / allow)
                if out:
                    self.outliers.append((u, name, dev, allow, source))
            self.rows.append(row)
        self.outliers.sort(key=lambda o: -o[2] / o[3])
        # the classes the units fall into, measured from their levels (levels.unit_classes)
        lv = {}
        for u in units:
            for k, recs in u.points.items():
                lv.setdefault(k, {})[u.name] = unit_time(recs)[0]
        self.classes = levels.unit_classes(lv) if len(units) >= levels.CLASS_MIN_UNITS else []
        self.class_of = {m: c for c, members, _ in self.classes for m in members}

    def difference(self, u, name):
        """What an outlier is: a unit difference where the unit's runs agree on the point (two or
        more, within the threshold), else one run, which cannot tell the unit from the run."""
        k = next((k for k in u.points if point_name(u.points[k][0]) == name), None)
        recs = u.points.get(k, [])
        if len(recs) < 2:
            return "one run"
        t = sorted(reader.median_ns(r) for r in recs)
        agree = t[-1] / t[0] - 1
        if agree * 100 <= self.threshold_pct:
            return f"unit difference ({len(recs)} runs within {100 * agree:.1f} %)"
        return f"{len(recs)} runs {100 * agree:.1f} % apart"

    def ranked(self):
        """The rows that matter first: those with an outlier, then by the largest deviation over its
        allowance (either way) among the units; a point one unit alone timed last."""
        return sorted(self.rows, key=lambda row: (not any(c["outlier"] for c in row["cells"].values()),
                                                  -row["worst"]))

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


def short_source(source):
    """Where an allowance came from, short: "threshold", "3 x noise", or the declared number's name
    ("unit_pct"); declared_notes() says each declared number's source once."""
    if source.endswith(")") and "(" in source:
        return source[source.index("(") + 1:-1].split(":")[0]
    return source


def declared_notes(fleet, md):
    """Lines: each benchmark's declared variation that made an outlier's allowance, once (the
    source a benchmark gives for its number, in place of repeating it on every row)."""
    seen = {}
    for u, name, d, allow, source in fleet.outliers:
        if source.endswith(")") and ": " in source:
            key = (name.split("/")[0], short_source(source), allow)
            seen.setdefault(key, source[source.index(": ") + 2:-1])
    return [f"{'- ' if md else '  '}{bench} {what} {100 * allow:g} %: {text}" for (bench, what, allow), text in seen.items()]


OUTLIER_HEADS = ("unit", "point", "deviation (%)", "allowance (%)", "x allowance", "allowance from", "what")


def outlier_rows(fleet):
    """The outliers' table rows, the most over their allowance first."""
    return [(u.name, name, pct(d), pct(allow, False), f"{d / allow:.2f}", short_source(source),
             fleet.difference(u, name)) for u, name, d, allow, source in fleet.outliers]


def class_lines(fleet, md):
    """A line per unit class: its units and the benchmarks where its level sits furthest from the
    fleet's."""
    out = []
    for c, members, cen in fleet.classes:
        top = sorted(cen.items(), key=lambda kv: -abs(kv[1]))[:6]
        out.append(f"{'- ' if md else '  '}class {c} ({plural(len(members), 'unit')}: {', '.join(members)}): " +
                   ", ".join(f"{b} {100 * v:+.1f} %" for b, v in top if abs(v) >= 0.005))
    return out


def point_rows(fleet):
    """(heads, rows) of the deviation table, the points farthest from normal first (Fleet.ranked)."""
    heads = ["point", "fleet median (us)", "spread (%)"] + [u.name for u in fleet.units]
    prow = []
    for row in fleet.ranked():
        cells = []
        for u in fleet.units:
            c = row["cells"].get(u.name)
            cells.append("absent" if c is None else pct(c["dev"]) + (" *" if c["outlier"] else ""))
        prow.append([row["name"], f"{row['median_ns'] / 1e3:,.2f}", pct(row["spread"], False)] + cells)
    return heads, prow


def rule_text(fleet):
    return (f"allowance = the largest of the threshold ({fleet.threshold_pct:g} %), the variation the point declares "
            "for the unit's relation to the others (run_pct between runs of one GPU, unit_pct between units of one "
            "GPC layout, layout_pct across layouts) and 3 x its noise")


def report_lines(fleet, missing, unexpected, md, notes=(), keep=None, limit=None):
    """The report as lines of text or Markdown. keep: (outliers, points), the rows of those two
    tables kept (the first, the most important), each table's rest folded into a line saying how many
    were left out for the cap of limit characters (markdown())."""
    units = fleet.units
    dev = units[0].dev if units else {}
    dates = sorted({reader.run_date(run.doc) for u in units for run in u.runs})
    nruns = sum(len(u.runs) for u in units)
    out = [("## " if md else "") + f"smembench fleet: {dev.get('name', '?')}, {plural(len(units), 'unit')}"
           + (f" ({nruns} runs)" if nruns != len(units) else "") + f", {len(fleet.rows)} points, {', '.join(dates)}", ""]
    out += list(notes)
    urows = [(u.name, u.node, u.gpu, u.uuid or "-", u.pci or "-", u.layout or "not recorded",
              fleet.class_of.get(u.name, "-"), len(u.runs), u.files(), u.commits(), u.started(), len(u.points))
             for u in units]
    out += tables.table(("unit", "node", "gpu", "uuid", "pci bus", "GPC layout", "class", "runs", "files", "commit",
                         "started", "timed points"), urows, {2, 7, 11}, md) + [""]
    if fleet.classes:
        out.append(("### " if md else "") + f"Unit classes ({len(fleet.classes)}): units whose levels sit together "
                   f"across the benchmarks (average linkage under {100 * levels.CLASS_CUTOFF:g} % RMS of the "
                   "benchmarks' median deviation from the fleet), each class's levels furthest from the fleet:")
        out += [""] + class_lines(fleet, md) + [""]
    if any(len(u.runs) > 1 for u in units) and fleet.rows:
        out += ["note: a unit is a GPU (its uuid): its time at a point is the median of its runs' median times, "
                "one vote per unit in the fleet median", ""]
    if len(units) > 1 and fleet.rows:
        out += [layout_note(units), ""]
    commits = sorted({str(run.doc["tool"].get("git", "-")) for u in units for run in u.runs})
    if len(commits) > 1:
        out += [f"note: the units ran {len(commits)} builds ({', '.join(commits)}): a deviation may be the build's",
                ""]

    def fold(left, what):
        if not left:
            return []
        return ["", f"*{left} more {what} left out, the least far from normal: the comment is capped at "
                    f"{limit or tables.MARKDOWN_CAP:,} characters (GitHub takes 65,536); fleet.txt and the report "
                    "without --markdown list every row*"]
    orows = outlier_rows(fleet)
    out.append(("### " if md else "") + f"Outliers ({len(orows)}), the most over their allowance first; "
               + rule_text(fleet))
    out.append("")
    if orows:
        n = len(orows) if keep is None else keep[0]
        out += tables.table(OUTLIER_HEADS, orows[:n], {2, 3, 4}, md) + fold(len(orows) - n, "outliers")
        notes = declared_notes(fleet, md)
        if notes:
            out += ["", "The declared variations these allowances took, each once:", ""] + notes
    else:
        out.append(("- " if md else "  ") + "none")
    out.append("")
    top = fleet.largest()
    if top:
        out.append(("### " if md else "") + f"The {plural(len(top), 'largest deviation')} (slower than the fleet "
                   "median) and their allowances")
        out.append("")
        for uname, name, c in top:
            out.append(f"{'- ' if md else '  '}{uname} at {name}: {pct(c['dev'])} %, allowance {100 * c['allow']:.2f} % "
                       f"({short_source(c['source'])})")
        out.append("")
    if fleet.rows:
        heads, prow = point_rows(fleet)
        n = len(prow) if keep is None else keep[1]
        out.append(("### " if md else "") + "Deviation of each unit's median time from the fleet median (%; "
                   "* slower than its allowance), the points farthest from normal (deviation over allowance) first")
        out.append("")
        out += tables.table(heads, prow[:n], set(range(1, len(heads))), md) + fold(len(prow) - n, "points") + [""]
    elif units:
        out += ["no unit has a timed point (predict mode?): times are not compared", ""]
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


def markdown(fleet, missing, unexpected, notes=(), limit=None):
    """The Markdown report within limit characters (a pull-request comment; tables.MARKDOWN_CAP):
    capped by importance, not by the order of the points: the outliers (the most over their
    allowance first) keep their rows before the deviation table (the points farthest from normal
    first) gets what is left, and each table says how many rows it left out."""
    limit = tables.MARKDOWN_CAP if limit is None else limit

    def size(lines):
        return sum(len(line) + 1 for line in lines)
    full = report_lines(fleet, missing, unexpected, True, notes)
    if size(full) <= limit:
        return full
    orows = outlier_rows(fleet)
    heads, prow = point_rows(fleet)
    budget = limit - size(report_lines(fleet, missing, unexpected, True, notes, (0, 0), limit)) - 400
    keep = []
    for lines in (tables.table(OUTLIER_HEADS, orows, {2, 3, 4}, True)[2:],
                  tables.table(heads, prow, set(range(1, len(heads))), True)[2:]):
        n = 0
        while n < len(lines) and len(lines[n]) + 1 <= budget:
            budget -= len(lines[n]) + 1
            n += 1
        keep.append(n)
    # a table left without rows keeps its header; the rest of the text (the verdict last) is kept whole
    return tables.cap_markdown(report_lines(fleet, missing, unexpected, True, notes, tuple(keep), limit), limit)


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
    layout, where recorded, and its number of runs where it has several."""
    ids = " ".join(x for x in (u.uuid[:12] if u.uuid[:12] not in u.name else "", u.pci) if x)
    runs = f"median of {len(u.runs)} runs" if len(u.runs) > 1 else ""
    return "\n".join(x for x in (u.name, ids, u.layout, runs) if x)


# The heatmap: a cell is a unit's deviation over its allowance (1: the edge of normal), the colours
# clipped at CLIP so that one extreme does not wash out the rest; at most HEATMAP_ROWS points drawn,
# those farthest from normal, so that the figure stays under 2,500 px whatever the number of points
CLIP = 3.0
HEATMAP_ROWS = 80


def heatmap(plt, fleet, max_rows=HEATMAP_ROWS):
    """The deviations as a heatmap: a row per point, the points farthest from normal first (at most
    max_rows; the rest counted in the title, not drawn), a column per unit, each cell coloured by
    the deviation over its allowance (red slower, blue faster, centred on 0, clipped at +-CLIP) and
    labelled with the deviation in %, outliers boxed, absent points grey."""
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle
    units = fleet.units
    ranked = fleet.ranked()
    rows = ranked[:max_rows]
    left = ranked[max_rows:]
    data = np.full((len(rows), len(units)), np.nan)
    for i, row in enumerate(rows):
        for j, u in enumerate(units):
            c = row["cells"].get(u.name)
            if c is not None:
                data[i, j] = c["ratio"]
    clipped = int(np.sum(np.abs(data[np.isfinite(data)]) > CLIP))
    longest = max((len(r["name"]) for r in rows), default=10)
    width = min(4 + 0.075 * longest + 1.25 * len(units), 24)
    height = 2.6 + 0.2 * len(rows)
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#d0d0d0")
    im = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap,
                   norm=TwoSlopeNorm(vcenter=0, vmin=-CLIP, vmax=CLIP), interpolation="nearest")
    ax.grid(False)
    turn = len(units) > 6         # up to six columns side by side, more turned
    ax.set_xticks(range(len(units)), [tick_label(u) for u in units], rotation=30 if turn else 0,
                  ha="left" if turn else "center", fontsize=7 if turn else 7.5, rotation_mode="anchor")
    ax.set_yticks(range(len(rows)), [r["name"] for r in rows], fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xlabel("unit (node, CUDA index; uuid, PCI bus, GPC layout)")
    ax.xaxis.set_label_position("top")
    ax.set_ylabel("point (benchmark/parameters), the farthest from normal first")
    for i, row in enumerate(rows):
        for j, u in enumerate(units):
            c = row["cells"].get(u.name)
            if c is None:
                ax.text(j, i, "absent", ha="center", va="center", fontsize=7, color="#555555")
                continue
            ax.text(j, i, f"{100 * c['dev']:+.2f}", ha="center", va="center", fontsize=7,
                    color="white" if abs(c["ratio"]) > 0.6 * CLIP else "black")
            if c["outlier"]:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.6))
    bar = fig.colorbar(im, ax=ax, extend="both", shrink=min(1.0, 6 / height), pad=0.02)
    bar.set_label(f"deviation / its allowance (1: the edge of normal; > 0 slower); clipped at \u00b1{CLIP:g}"
                  + (f" ({plural(clipped, 'cell')} beyond)" if clipped else ""), fontsize=8)
    bar.ax.axhline(1, color="black", lw=1)
    dev = units[0].dev
    dates = ", ".join(sorted({reader.run_date(run.doc) for u in units for run in u.runs}))
    nruns = sum(len(u.runs) for u in units)
    title = (f"{dev.get('name')} fleet, {dates}: {plural(len(units), 'unit')}" +
             (f" ({nruns} runs, each unit the median of its runs)" if nruns != len(units) else "") +
             f", {len(fleet.rows)} points, {plural(len(fleet.outliers), 'outlier')} (boxed); cells: deviation from the "
             "fleet median (%)")
    if left:
        hidden = sum(1 for row in left for c in row["cells"].values() if c["outlier"])
        worst = max(row["worst"] for row in left)
        title += (f"\nthe {len(rows)} points farthest from normal drawn; {len(left)} more not drawn (" +
                  (f"{plural(hidden, 'outlier')} among them" if hidden else
                   f"all within their allowance, at most {worst:.2f} of it") + "; fleet.txt lists every point)")
    fig.suptitle(title, fontsize=9)
    return fig
