"""How a figure lays out what it is given, decided here once for every figure (issue 52).

The measured series of one GPU model (and settings: series._pool_key) are counted by GPU unit, and
that count picks one of four layouts:

  one run           the series as it is: one line, one bar, one panel
  runs of one unit  the runs' median at each point with their range as a band (series.aggregate)
  several units     2 .. MANY_FROM-1 units: a figure that overlays lines draws a line per unit (the
                    median of its runs), named by its uuid and by its commit and build where those
                    differ between the units; a figure that draws a panel or a bar per series draws
                    one, the units' median with their range; both add a difference panel, each unit
                    against the units' median (figures.common.change_panel)
  many units        MANY_FROM or more units: every figure draws the pooled median with the units'
                    range as a band, and the difference panel

Predict-mode files and files without a uuid are never counted as units; they stay series of their own
beside the layout's."""
from smembench import reader
from smembench import series as series_mod

ONE, RUNS, UNITS, MANY = "one run", "runs of one unit", "several units", "many units"
# from this many units of one model on, lines are pooled too (a line per unit hides the one that
# differs under the others); from two on, panels and bars are (two panels of one kernel side by side
# read the same: the difference panel shows what differs)
MANY_FROM = series_mod.POOL_FROM


class Layout:
    """kind (ONE, RUNS, UNITS, MANY); lines: the series a figure that overlays draws, a line each;
    panels: the series a figure with a panel or a bar per series draws; units: the units' series the
    difference panel draws against their median ([] for one unit)."""

    def __init__(self, kind, lines, panels, units):
        self.kind, self.lines, self.panels, self.units = kind, lines, panels, units


def _measured(s):
    return s.doc["run"].get("mode") != "predict" and s.doc["device"].get("uuid")


def unit_count(series):
    """The most GPU units any one pool (model and settings) of the series holds."""
    by = {}
    for s in series:
        if _measured(s):
            by.setdefault(series_mod._pool_key(s), set()).add(s.doc["device"]["uuid"])
    return max((len(v) for v in by.values()), default=0)


def unit_name(s, company):
    """A unit among company (the units of one figure): its short uuid, then its build and commit where
    they differ between the units, then how many runs it is the median of."""
    d = s.doc
    parts = [reader.unit_label(d["device"]) or reader.device_label(d)]
    codes = {reader.code_label(u.doc) for u in company}
    commits = {str(u.doc["tool"].get("git") or "") for u in company}
    if len(codes) > 1:
        parts.append(reader.code_label(d))
    if len(commits) > 1:
        parts.append(f"commit {d['tool'].get('git') or '?'}")
    if s.fixed:
        parts.append(series_mod._axes_text(s.fixed))
    parts.append(f"median of {len(s.runs)} runs" if s.runs else "1 run")
    return ", ".join(p for p in parts if p)


def decide(series, benches=None):
    """The Layout of a figure of benches over series (a figure's series: aggregated, split, labelled)."""
    n = unit_count(series)
    if n < 2:
        runs = any(s.runs for s in series)
        return Layout(RUNS if runs else ONE, list(series), list(series), [])
    pooled = series_mod.pool(series, benches, 2)
    units = [u for s in pooled if s.units for u in s.units]
    if len({u.doc["device"]["uuid"] for u in units}) < 2:      # the pool of two was one unit's runs
        return Layout(RUNS, list(series), list(series), [])
    if n >= MANY_FROM:
        return Layout(MANY, pooled, pooled, units)
    lines = []
    for s in pooled:
        if not s.units:
            lines.append(s)
            continue
        for u in s.units:
            u = series_mod.Series(u.doc, u.path, len(lines), fixed=u.fixed, runs=u.runs, hue=u.hue)
            u.short = unit_name(u, s.units)
            u.label = f"{reader.device_label(u.doc)}, {u.short}"
            lines.append(u)
    for i, s in enumerate(lines):
        s.index = i
    return Layout(UNITS, lines, pooled, units)
