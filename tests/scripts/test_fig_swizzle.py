#!/usr/bin/env python3
"""Tests of the swizzle figure (TAP), on the committed H200 file: one panel per row width and one for
TMA and wgmma, the bank model drawn from the model (never from what was measured), every measured
point placed at its layout, and nothing drawn for files without the sweep.

  test_fig_swizzle.py
"""
import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402
from smembench import fig_swizzle, plot, reader  # noqa: E402

H200 = os.path.join(ROOT, "results", "swizzle", "nvidia-h200_20261130_swizzle.json")
STAGING = os.path.join(ROOT, "results", "nvidia-h200_20261130_staging.json")
PLT = plot.pyplot()


def draw(*docs):
    return fig_swizzle.fig_swizzle(PLT, plot.make_series([(f"f{i}.json", d) for i, d in enumerate(docs)]))


def model_bars(ax):
    """{layout index: y} of the grey model bars of a panel."""
    return {round(sum(line.get_xdata()) / 2): line.get_ydata()[0] for line in ax.get_lines()
            if line.get_color() == "gray"}


def measured(ax):
    return [(line.get_xdata()[0], line.get_ydata()[0]) for line in ax.get_lines()
            if line.get_color() != "gray" and len(line.get_xdata()) == 1]


@test
def the_h200_file_draws_a_panel_per_row_width_and_one_for_tma_and_wgmma():
    fig = draw(reader.load(H200))
    axes = fig.get_axes()
    assert len(axes) == 5, len(axes)
    assert [a.get_ylabel().split(":")[0] for a in axes[:4]] == ["32-byte rows", "64-byte rows", "128-byte rows",
                                                              "256-byte rows"], [a.get_ylabel() for a in axes]
    # 128-byte rows: row-major 8x, padded 1x, 32 B 4x, 64 B 2x, 128 B 1x, as the bank model says
    assert model_bars(axes[2]) == {0: 8, 1: 1, 2: 4, 3: 2, 4: 1}, model_bars(axes[2])
    # 12 instruction variants per layout (ldmatrix and stmatrix, .trans or not, x1/x2/x4), each near its bar
    pts = measured(axes[2])
    assert len(pts) == 12 * 5, len(pts)
    bars = model_bars(axes[2])
    for x, y in pts:
        assert abs(y / bars[round(x)] - 1) < 0.1, (x, y)
    labels = [t.get_text() for t in axes[-1].get_legend().get_texts()]
    assert any("wgmma" in t for t in labels) and any("ldmatrix" in t for t in labels), labels
    assert "NVIDIA H200" in fig._suptitle.get_text() and "2026-11-30" in fig._suptitle.get_text()
    PLT.close(fig)


@test
def the_model_bar_comes_from_the_model_not_from_the_measurement():
    doc = copy.deepcopy(reader.load(H200))
    for r in doc["results"]:
        if r["bench"] in fig_swizzle.TILE_BENCHES and r["params"]["row_bytes"] == 128 and r["params"]["layout"] == 0:
            r["metrics"]["slowdown"]["value"] = 3.0     # a measurement that disagrees with the model
    fig = draw(doc)
    ax = fig.get_axes()[2]
    assert model_bars(ax)[0] == 8
    assert [y for x, y in measured(ax) if round(x) == 0] == [3.0] * 12
    PLT.close(fig)


@test
def a_file_without_the_sweep_draws_nothing():
    doc = reader.load(STAGING) if os.path.exists(STAGING) else {"results": []}
    assert not any(r["bench"].startswith("swizzle_") for r in doc.get("results", []))
    if doc.get("results"):
        assert draw(doc) is None


sys.exit(tap.run())
