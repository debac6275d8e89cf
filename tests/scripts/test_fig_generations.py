#!/usr/bin/env python3
"""Tests of the generations figure (python/smembench/figures/generations.py) and the report's section
of it (TAP), on the committed measured H200 file and the four predicted files of results/predict/: a
series per GPU in the occupancy panels drawn from the files' values, one colour per GPU in every
panel and a style per method, the published values as markers tagged with their source, what a GPU
lacks said in the panel, no text over another, the size, and the figure (and the report's section)
only where the files hold two or more GPU models.

  test_fig_generations.py
"""
import contextlib
import glob
import io
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402
from smembench import plot, reader, report  # noqa: E402
from smembench import figures as figures_pkg  # noqa: E402
from smembench.figures import generations  # noqa: E402

RESULTS = os.path.join(ROOT, "results")
H200 = os.path.join(RESULTS, "nvidia-h200_20261130_all.json")
PREDICTED = sorted(glob.glob(os.path.join(RESULTS, "predict", "*.json")))
T4 = next(p for p in PREDICTED if "t4" in os.path.basename(p))
A100 = next(p for p in PREDICTED if "a100" in os.path.basename(p))
PLT = plot.pyplot()
FIGS = {}


def series(paths):
    return plot.make_series(plot.load(paths, lambda text: None))


def across(paths):
    """{name: figure} of the across-model figures of these files."""
    return {name: fig for name, fig, _ in figures_pkg.across_models(PLT, series(paths))}


def five():
    """The figure of the H200 file and the four predicted files (drawn once)."""
    if "five" not in FIGS:
        FIGS["five"] = across([H200] + PREDICTED)["generations"]
    return FIGS["five"]


def panels(fig):
    """The four panels (carveout, dynamic, bandwidth, latency): the axes that are shown."""
    axes = [ax for ax in fig.get_axes() if ax.axison]
    assert len(axes) == 4, [ax.get_title() for ax in axes]
    return axes


def lines(ax, gpus_only=True):
    """{label: line} of an axes' labelled lines: a GPU's ("T4: predicted"), or with gpus_only False
    the reference lines' too."""
    names = tuple(f"{n}: " for n in models())
    return {ln.get_label(): ln for ln in ax.get_lines()
            if not ln.get_label().startswith("_") and (ln.get_label().startswith(names) or not gpus_only)}


def models():
    """The five files' GPU names as the figure shows them (without NVIDIA and (model))."""
    if "names" not in FIGS:
        FIGS["names"] = [generations.model_name(s) for s in series([H200] + PREDICTED)]
    return FIGS["names"]


@test
def the_occupancy_panels_draw_a_series_per_gpu_from_the_files_values():
    fig = five()
    carve, dyn = panels(fig)[:2]
    assert "carveout" in carve.get_title().lower() and "dynamic" in dyn.get_title().lower()
    names = models()
    for ax in (carve, dyn):
        got = lines(ax)
        want = [f"{n}: {'measured' if n == 'H200' else 'predicted'}" for n in names]
        assert sorted(got) == sorted(want), sorted(got)
    # the T4's carveout line: at the KiB the hint's step gives, its predicted blocks per SM (dodged < 0.25)
    doc = reader.load(T4)
    want = {}
    for r in doc["results"]:
        if r["bench"] == "footprint":
            o = r["occupancy"]
            want[o["smem_config_requested_bytes"] / 1024] = o["predicted"]
    ln = lines(carve)["T4: predicted"]
    got = {x: y for x, y in zip(ln.get_xdata(), ln.get_ydata()) if x == x}    # NaN: a gap of the step line
    assert set(got) == set(want), (sorted(got), sorted(want))
    assert all(abs(got[x] - want[x]) <= 0.25 and round(got[x]) == want[x] for x in want), (got, want)
    # the H200's dynamic line: its measured residency at each allocation in KiB
    doc = reader.load(H200)
    want = {r["params"]["dyn_smem_bytes"] / 1024: r["occupancy"]["measured"] for r in doc["results"]
            if r["bench"] == "dynamic" and r["status"] == "ok"}
    ln = lines(dyn)["H200: measured"]
    got = {x: y for x, y in zip(ln.get_xdata(), ln.get_ydata()) if x == x}
    assert set(got) == set(want) and all(round(got[x]) == want[x] for x in want), (got, want)
    assert carve.get_xlabel().startswith("shared memory per SM") and "KiB" in carve.get_xlabel()
    assert "KiB" in dyn.get_xlabel() and "blocks per SM" in carve.get_ylabel()


@test
def one_colour_per_gpu_in_every_panel_and_a_style_per_method():
    import matplotlib.colors as mc
    fig = five()
    colour = {}
    for ax in panels(fig):
        for label, ln in lines(ax).items():
            if ": " not in label:
                continue
            gpu = label.split(": ")[0]
            c = mc.to_hex(ln.get_color())
            assert colour.setdefault(gpu, c) == c, f"{gpu}: {colour[gpu]} in one panel, {c} in another ({label})"
    assert len(set(colour.values())) == len(colour) == 5, colour
    carve = panels(fig)[0]
    styles = {label.split(": ")[1]: (ln.get_linestyle(), ln.get_marker(), ln.get_fillstyle())
              for label, ln in lines(carve).items()}
    assert styles["measured"] != styles["predicted"], styles
    # no two GPUs' staircases on top of each other: equal values are set side by side
    ys = [tuple(ln.get_ydata()) for ln in lines(carve).values()]
    assert len(set(ys)) == len(ys)


@test
def published_values_are_markers_tagged_with_their_source():
    fig = five()
    bw, lat = panels(fig)[2:]
    pub = {k: v for k, v in lines(bw).items() if ": published, " in k}
    assert len(pub) == 5, sorted(lines(bw))
    for label, ln in pub.items():
        assert "Best Practices Guide" in label and list(ln.get_ydata()) == [128], (label, ln.get_ydata())
    measured = {k: v for k, v in lines(bw).items() if k.endswith(": measured")}
    assert list(measured) == ["H200: measured"], list(measured)
    assert {ln.get_marker() for ln in pub.values()}.isdisjoint({ln.get_marker() for ln in measured.values()})
    doc = reader.load(H200)
    best = max(reader.metric(r, "bytes_per_clk_sm") for r in doc["results"] if r["bench"] == "bandwidth")
    assert abs(measured["H200: measured"].get_ydata()[0] - best) < 1e-9
    pub = {k: v for k, v in lines(lat).items() if ": published, " in k}
    assert sorted(k.split(":")[0] for k in pub) == ["GeForce RTX 4090", "H200"], sorted(pub)
    h200 = next(v for k, v in pub.items() if k.startswith("H200"))
    rtx = next(v for k, v in pub.items() if k.startswith("GeForce"))
    assert list(h200.get_ydata()) == [29] and list(rtx.get_ydata()) == [30.1]
    assert "Luo et al." in next(k for k in pub if k.startswith("H200")) and "H800" in next(
        k for k in pub if k.startswith("H200"))
    # the method legend names every source
    texts = [t.get_text() for leg in fig.legends + [ax.get_legend() for ax in fig.get_axes() if ax.get_legend()]
             for t in leg.get_texts()]
    assert any("Best Practices Guide" in t for t in texts) and any("H800" in t for t in texts), texts


@test
def a_panel_says_what_each_gpu_lacks():
    fig = five()
    bw, lat = panels(fig)[2:]
    for ax, nothing in ((bw, 0), (lat, 3)):
        said = [t.get_text().replace("\n", " ") for t in ax.texts if "not measured" in t.get_text()]
        assert len(said) == 4 and all("predicted file" in t for t in said), said
        assert sum("nothing published" in t for t in said) == nothing, said


@test
def no_text_overprints_another_and_the_figure_stays_small():
    for name, paths in (("five files", [H200] + PREDICTED),
                        ("the 15 files and four predicted", sorted(
                            glob.glob(os.path.join(RESULTS, "units", "*.json")) +
                            glob.glob(os.path.join(RESULTS, "contract", "nvidia-h200_20261202_all_*.json"))) +
                         PREDICTED)):
        fig = five() if name == "five files" else across(paths)["generations"]
        w, h = fig.get_size_inches() * fig.dpi
        assert max(w, h) < 2500, (name, w, h)
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        for ax in panels(fig):
            boxes = [(t.get_text(), t.get_window_extent(r)) for t in ax.texts + ax.get_xticklabels()
                     if t.get_visible() and t.get_text().strip()]
            for i, (a, ba) in enumerate(boxes):
                for b, bb in boxes[i + 1:]:
                    assert not ba.overlaps(bb), f"{name}, {ax.get_title()}: {a!r} over {b!r}"
        if name != "five files":
            PLT.close(fig)


@test
def the_figure_only_where_two_or_more_gpu_models_are_given():
    assert across([T4]) == {}
    two_units = sorted(glob.glob(os.path.join(RESULTS, "units", "nvidia-h200_20261130_all_gpu*_r1.json")))
    assert len(two_units) == 2 and across(two_units) == {}
    figs = across([T4, A100])
    assert list(figs) == ["generations"]
    PLT.close(figs["generations"])
    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        assert plot.main([T4, "-o", d, "--format", "png"]) == 0
        assert "generations.png" not in os.listdir(d), os.listdir(d)
        assert plot.main([T4, A100, "-o", d, "--format", "png"]) == 0
        assert "generations.png" in os.listdir(d), os.listdir(d)


@test
def the_report_has_a_generations_section_for_several_models_only():
    import re
    page = report.render(PLT, plot.load([T4, A100], lambda text: None))
    m = re.search(r'<section id="generations">(.*?)</section>', page, re.S)
    assert m, "no generations section for two models"
    assert '<a href="#generations">' in page
    assert m.group(1).count("<svg") == 1 and "T4" in m.group(1) and "A100" in m.group(1)
    assert "predicted by the occupancy calculator" in m.group(1)
    page = report.render(PLT, plot.load([T4], lambda text: None))
    assert 'id="generations"' not in page and "#generations" not in page


if __name__ == "__main__":
    sys.exit(tap.run())
