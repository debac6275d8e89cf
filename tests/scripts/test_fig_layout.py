#!/usr/bin/env python3
"""Tests of the one layout rule every figure follows (smembench.layout, issue 52), on the real H200
files: one run; runs of one unit (their median and band); several units (a line per unit where a
figure overlays, one median where it draws a panel or a bar per series, and each unit against the
units' median in a difference panel); many units (the pooled median with its range). Every figure's
pixel size and legend counts at 1, 2, 3, 14 and 30 files, and the defects issue 52 found: the 14
files' carveout figure (16 series, an 18-entry legend, a 126-character entry), bandwidth's 8 equal
bars a group, staging's two identical panels, tile's 18-entry legends in four panels, memory's
2,250 px.

  test_fig_layout.py
"""
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULTS = os.path.join(ROOT, "results")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402
from smembench import layout  # noqa: E402
from smembench import plot  # noqa: E402
from smembench import series as series_mod  # noqa: E402

ONE = [os.path.join(RESULTS, "nvidia-h200_20261130_all.json")]
H200 = os.path.join(RESULTS, "figures_35", "h200")
# two units (GPU-69c12d03, GPU-04113c2b), one --sweep all run each, one commit
TWO = [os.path.join(H200, f"nvidia-h200_20261203_all_u{u}.json") for u in (1, 2)]
# a third unit, of another commit
THREE = TWO + [os.path.join(RESULTS, "contract", "nvidia-h200_20261202_all_37a9db0_unitB_p1.json")]
# the 14 --sweep all files: two units of one host (5 runs each) and two more (2 runs each)
FOURTEEN = sorted(os.path.join(RESULTS, "units", f) for f in os.listdir(os.path.join(RESULTS, "units"))
                  if "_all_gpu" in f) + \
    sorted(os.path.join(RESULTS, "contract", f) for f in os.listdir(os.path.join(RESULTS, "contract"))
           if "_all_" in f)
RUNS = FOURTEEN[:2]     # two runs of one unit

_made = {}


def figures_of(paths):
    key = tuple(paths)
    if key not in _made:
        plt = plot.pyplot()
        got = dict(plot.figures(plt, plot.make_series(plot.load(paths, lambda t: None))))
        _made[key] = {}
        for name, fig in got.items():
            w, h = fig.canvas.get_width_height()
            legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes if ax.get_legend()] + \
                [[t.get_text() for t in leg.get_texts()] for leg in fig.legends]
            _made[key][name] = {"px": (w, h), "legends": legends, "titles": [ax.get_title() for ax in fig.axes],
                                "bars": [len(ax.patches) for ax in fig.axes], "axes": len(fig.axes)}
            plt.close(fig)
    return _made[key]


def thirty(d):
    """The 14 files, then 16 copies of them under other names, each copy a GPU unit of its own (its
    uuid changed): 30 files of 20 units."""
    out = list(FOURTEEN)
    for i in range(16):
        doc = json.load(open(FOURTEEN[i % len(FOURTEEN)]))
        doc["device"]["uuid"] = f"GPU-{i:08x}-0000-0000-0000-000000000000"
        out.append(os.path.join(d, f"copy{i}.json"))
        json.dump(doc, open(out[-1], "w"))
    return out


def series_of(paths):
    return series_mod.relabel(series_mod.aggregate(plot.make_series(plot.load(paths, lambda t: None))))


def change(fig):
    return [i for i, t in enumerate(fig["titles"]) if t.startswith("Each GPU unit's time")]


@test
def the_rule_names_one_layout_for_each_input():
    assert layout.decide(series_of(ONE)).kind == layout.ONE
    lay = layout.decide(series_of(RUNS))
    assert lay.kind == layout.RUNS and len(lay.lines) == 1 and lay.units == [], (lay.kind, len(lay.lines))
    for paths, n in ((TWO, 2), (THREE, 3)):
        lay = layout.decide(series_of(paths))
        assert lay.kind == layout.UNITS and len(lay.lines) == n and len(lay.panels) == 1 and len(lay.units) == n
    # units named by what differs between them: the third is of another commit, the first two not
    names = [s.short for s in layout.decide(series_of(THREE)).lines]
    assert all(n.startswith("GPU-") for n in names) and all("commit" in n for n in names), names
    names = [s.short for s in layout.decide(series_of(TWO)).lines]
    assert not any("commit" in n for n in names), names
    lay = layout.decide(series_of(FOURTEEN))
    assert lay.kind == layout.MANY and len(lay.lines) == 1 and len(lay.units) == 4, (lay.kind, len(lay.units))


@test
def every_figure_at_1_2_3_14_and_30_files_is_bounded():
    """No figure passes 2,500 px; no legend holds more than 30 entries, none an entry over four
    lines; one unit never has a difference panel, two units on always do (every figure that draws
    times)."""
    with tempfile.TemporaryDirectory() as d:
        sets = {1: ONE, 2: TWO, 3: THREE, 14: FOURTEEN, 30: thirty(d)}
        got = {n: figures_of(p) for n, p in sets.items()}
        for n, figs in got.items():
            assert len(figs) >= 8, (n, sorted(figs))
            for name, f in figs.items():
                w, h = f["px"]
                assert max(w, h) <= 2500, f"{n} files: {name} is {w}x{h} px"
                for entries in f["legends"]:
                    assert len(entries) <= 30, f"{n} files: {name} has a legend of {len(entries)}"
                    assert all(e.count("\n") < 4 and len(e) <= 160 for e in entries), (n, name, entries)
                if n == 1:
                    assert not change(f), f"one file: {name} has a difference panel"
                elif name not in ("generations",):
                    assert change(f), f"{n} files: {name} has no difference panel"
                print(f"# {n} files: {name} {w}x{h} px, legends {[len(e) for e in f['legends']]}")
        # the legends do not grow with the files past many units
        for name in ("carveout", "bandwidth", "staging", "tile", "memory"):
            assert [len(e) for e in got[14][name]["legends"][:-1]] == [len(e) for e in got[30][name]["legends"][:-1]], name


@test
def the_defects_of_issue_52_stay_fixed():
    figs = figures_of(FOURTEEN)
    carve = figs["carveout"]
    # the time panel: a line per kernel of the pooled median, and its note (13-18 entries before)
    assert len(carve["legends"][0]) <= 4, carve["legends"][0]
    left = [e for leg in carve["legends"] for e in leg if e.startswith("gather: L1 left")]
    assert left and all(len(e) <= 70 for e in left), left   # 126 characters before
    # bandwidth: one bar a category, the units' median (8 equal bars a group before)
    bw = figs["bandwidth"]
    assert bw["bars"][0] == 3 and bw["bars"][1] == 2, bw["bars"]
    two = figures_of(TWO)
    # staging: one panel of the two units' median and the difference panel (two identical panels)
    st = two["staging"]
    assert st["axes"] == 2 and len(change(st)) == 1, st["titles"]
    # tile: a panel per n of the units' median, then the difference panel (four panels before)
    tile = two["tile"]
    assert tile["axes"] == 3, tile["titles"]
    # memory: one bar per kernel and size (2,250 px tall: a bar each per unit)
    assert two["memory"]["px"][1] <= 1600, two["memory"]["px"]
    # runs of one unit: their median, no difference panel
    runs = figures_of(RUNS)
    assert not any(change(f) for f in runs.values())


def main():
    return tap.run()


if __name__ == "__main__":
    sys.exit(main())
