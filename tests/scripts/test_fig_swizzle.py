#!/usr/bin/env python3
"""Tests of the swizzle figure (TAP), on the committed H200 file: one titled panel per row width and
one for TMA and wgmma, each with its own legend naming what it draws, the bank model drawn from the
model (never from what was measured), every measured point placed at its layout, distinct colours,
the plot command writing swizzle.png, and nothing drawn for files without the sweep.

  test_fig_swizzle.py
"""
import copy
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import without_figure_lines, test  # noqa: E402
from smembench import plot, reader  # noqa: E402
from smembench.figures import swizzle  # noqa: E402



H200 = os.path.join(ROOT, "results", "swizzle", "nvidia-h200_20261130_swizzle.json")
STAGING = os.path.join(ROOT, "results", "nvidia-h200_20261130_staging.json")
PLT = plot.pyplot()


def figures(*docs):
    """{name: figure} the plot command draws for these documents, and the notes it gave."""
    notes = []
    figs = plot.figures(PLT, plot.make_series([(f"f{i}.json", d) for i, d in enumerate(docs)]), notes.append)
    return dict(figs), notes


def draw(*docs):
    figs, _ = figures(*docs)
    for name, fig in figs.items():
        if name != "swizzle":
            PLT.close(fig)
    return figs.get("swizzle")


def model_bars(ax, label="bank model"):
    """{layout index: y} of a panel's model bars (one line, a NaN between bars)."""
    line = next(ln for ln in ax.get_lines() if ln.get_label() == label)
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    bars = {}
    for i in range(0, len(xs), 3):
        a, b = xs[i], xs[i + 1]
        assert ys[i] == ys[i + 1] and b - a < 1, (xs[i:i + 3], ys[i:i + 3])
        bars[round((a + b) / 2)] = ys[i]
        if i + 2 < len(xs):
            assert math.isnan(xs[i + 2]), "bars are separate, never joined from one layout to the next"
    return bars


def measured(ax):
    """[(label, x, y)] of the measured points of a panel."""
    return [(ln.get_label(), float(x), float(y)) for ln in ax.get_lines()
            if not ln.get_label().startswith(("_", "bank model")) for x, y in zip(ln.get_xdata(), ln.get_ydata())]


@test
def the_h200_file_draws_a_titled_panel_per_row_width_and_one_for_tma_and_wgmma():
    fig = draw(reader.load(H200))
    axes = fig.get_axes()
    assert len(axes) == 5, len(axes)
    assert [a.get_title().split(":")[0] for a in axes[:4]] == ["32-byte rows", "64-byte rows", "128-byte rows",
                                                              "256-byte rows"], [a.get_title() for a in axes]
    assert "TMA" in axes[4].get_title() and "wgmma" in axes[4].get_title(), axes[4].get_title()
    for ax in axes:
        assert ax.get_ylabel(), f"{ax.get_title()}: an axis without a label"
        assert [t.get_text() for t in ax.get_xticklabels()], f"{ax.get_title()}: no tick labels"
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["row-major", "padded\n+16 B", "32 B\nswizzle",
                                                                 "64 B\nswizzle", "128 B\nswizzle"]
    assert [t.get_text() for t in axes[4].get_xticklabels()] == ["none", "32 B", "64 B", "128 B"]
    title = fig._suptitle.get_text()
    assert "NVIDIA H200" in title and "2026-11-30" in title, title
    PLT.close(fig)


@test
def the_model_and_every_measured_variant_are_drawn_and_agree_on_the_h200():
    doc = reader.load(H200)
    fig = draw(doc)
    # 128-byte rows: row-major 8x, padded 1x, 32 B 4x, 64 B 2x, 128 B 1x, as the bank model says
    ax = fig.get_axes()[2]
    assert model_bars(ax) == {0: 8, 1: 1, 2: 4, 3: 2, 4: 1}, model_bars(ax)
    for ax, w in zip(fig.get_axes()[:4], (32, 64, 128, 256)):
        pts = measured(ax)
        # 12 instruction variants per layout (ldmatrix and stmatrix, .trans or not, x1/x2/x4), each near its bar
        assert len(pts) == 12 * 5, (w, len(pts))
        bars = model_bars(ax)
        for _, x, y in pts:
            assert abs(y / bars[round(x)] - 1) < 0.1, (w, x, y)
        # each point is the file's slowdown of its variant, at its layout
        want = sorted((swizzle.CODES.index(r["params"]["layout"]), reader.metric(r, "slowdown"))
                      for r in doc["results"] if r["bench"] in swizzle.TILE_BENCHES and r["params"]["row_bytes"] == w)
        assert sorted((round(x), y) for _, x, y in pts) == want, w
        assert {lab for lab, _, _ in pts} == {"ldmatrix", "ldmatrix .trans (hollow)", "stmatrix",
                                              "stmatrix .trans (hollow)"}, {lab for lab, _, _ in pts}
    PLT.close(fig)


@test
def every_legend_names_what_its_panel_draws_and_no_two_lines_share_a_colour():
    from matplotlib.colors import to_hex
    fig = draw(reader.load(H200))
    for ax in fig.get_axes():
        leg = ax.get_legend()
        assert leg is not None, f"{ax.get_title()}: no legend"
        drawn = [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        assert [t.get_text() for t in leg.get_texts()] == drawn, (ax.get_title(), drawn)
        colours = [to_hex(ln.get_color()) for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        assert len(set(colours)) == len(colours), (ax.get_title(), colours)
    labels = [t.get_text() for t in fig.get_axes()[0].get_legend().get_texts()]
    assert labels[0] == "bank model" and any(t.startswith("ldmatrix") for t in labels), labels
    labels = [t.get_text() for t in fig.get_axes()[-1].get_legend().get_texts()]
    assert any("wgmma" in t for t in labels) and any("ldmatrix" in t for t in labels), labels
    fig.canvas.draw()
    boxes = [a.get_window_extent() for a in fig.get_axes()]
    for a in fig.get_axes():
        lb = a.get_legend().get_window_extent()
        assert not any(lb.overlaps(b) for b in boxes), f"{a.get_title()}: the legend covers an axes"
        assert fig.bbox.contains(lb.x1 - 1, lb.y0 + 1), f"{a.get_title()}: the legend runs off the figure"
    PLT.close(fig)


@test
def the_last_panel_draws_tma_and_wgmma_per_swizzle_mode_from_the_file():
    doc = reader.load(H200)
    fig = draw(doc)
    ax = fig.get_axes()[-1]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    for bench, consumer, name, label, _ in swizzle.COPIES:
        want = {swizzle.MODES.index(r["params"]["swizzle_bytes"]): reader.metric(r, name)
                for r in doc["results"] if r["bench"] == bench and
                (consumer is None or r["params"]["consumer"] == consumer)}
        assert len(want) == 4, (label, want)
        ln = lines[label]
        got = {round(x): y for x, y in zip(ln.get_xdata(), ln.get_ydata()) if x == x}
        assert got == want, label
        # issue 35: the modes are categories, never joined by a line; each series beside the tick
        assert ln.get_linestyle() == "None", f"{label}: a line joins categorical swizzle modes"
        assert all(abs(x - round(x)) < 0.3 for x in ln.get_xdata() if x == x), label
    # issue 35: wgmma's % of peak is per clock; the title says the clock it ran at and the TFLOP/s
    pts = [r for r in doc["results"] if r["bench"] == "swizzle_wgmma"]
    lo, hi = min(r["clock_mhz"] for r in pts), max(r["clock_mhz"] for r in pts)
    title = ax.get_title()
    assert f"{lo:,.0f}-{hi:,.0f} MHz" in title and "TFLOP/s" in title and "per clock" in title, title
    PLT.close(fig)


@test
def the_model_bar_comes_from_the_model_not_from_the_measurement():
    doc = copy.deepcopy(reader.load(H200))
    for r in doc["results"]:
        if r["bench"] in swizzle.TILE_BENCHES and r["params"]["row_bytes"] == 128 and r["params"]["layout"] == 0:
            r["metrics"]["slowdown"]["value"] = 3.0     # a measurement that disagrees with the model
    fig = draw(doc)
    ax = fig.get_axes()[2]
    assert model_bars(ax)[0] == 8
    assert [y for _, x, y in measured(ax) if round(x) == 0] == [3.0] * 12
    PLT.close(fig)


@test
def a_file_without_tma_and_wgmma_draws_the_layout_panels_only():
    doc = copy.deepcopy(reader.load(H200))
    doc["results"] = [r for r in doc["results"] if r["bench"] in swizzle.TILE_BENCHES]
    fig = draw(doc)
    assert [a.get_title().split(":")[0] for a in fig.get_axes()] == ["32-byte rows", "64-byte rows",
                                                                    "128-byte rows", "256-byte rows"]
    PLT.close(fig)


@test
def tma_points_without_their_global_read_are_a_note_naming_the_file():
    doc = copy.deepcopy(reader.load(H200))
    doc["results"] = [r for r in doc["results"] if r["bench"] == "swizzle_tma"]
    for r in doc["results"]:
        r["metrics"].pop("pct_of_read", None)     # nothing to be a per cent of
    figs, notes = figures(doc)
    assert "swizzle" not in figs, "no empty figure"
    assert any("f0.json" in n and "global_read" in n for n in notes), notes


@test
def a_file_without_the_sweep_draws_nothing():
    doc = reader.load(STAGING)
    assert not any(r["bench"].startswith("swizzle_") for r in doc["results"])
    assert any(r["bench"] == "global_read" for r in doc["results"]), "a global_read point alone is not the sweep"
    figs, notes = figures(doc)
    assert "swizzle" not in figs and not any("swizzle" in n for n in notes), (list(figs), notes)
    for fig in figs.values():
        PLT.close(fig)


@test
def the_plot_command_writes_swizzle_png_for_the_h200_file():
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), H200, "-o", d, "--format", "png"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and without_figure_lines(p.stderr) == "", (p.returncode, p.stderr)
        assert os.listdir(d) == ["swizzle.png"], os.listdir(d)
        with open(os.path.join(d, "swizzle.png"), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


sys.exit(tap.run())
